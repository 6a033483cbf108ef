// rng.hpp -- a small, fast, reproducible PRNG (xoshiro256**, seeded through
// splitmix64).  Every randomized algorithm takes its generator from the
// user's seed so that the same seed gives the same mapping on every platform
// (std:: distributions are implementation-defined, so we avoid them).
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace rankmap {

// One step of splitmix64: advances state and returns the next number.  The
// seeding of Rng, and the shuffle of the address table's random:SEED order.
inline uint64_t splitmix64(uint64_t &state) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

class Rng {
public:
    explicit Rng(uint64_t seed = 1) { reseed(seed); }
    void reseed(uint64_t seed) {
        uint64_t x = seed;
        for (auto &v : s_) v = splitmix64(x);
    }
    uint64_t next() {
        const uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }
    // Uniform integer in [0, n), n > 0 (Lemire's multiply-shift; the tiny bias
    // is irrelevant for annealing and keeps results bit-identical).
    uint32_t below(uint32_t n) {
        return static_cast<uint32_t>(((next() >> 32) * static_cast<uint64_t>(n)) >> 32);
    }
    // Uniform double in [0, 1).
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

private:
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    uint64_t s_[4];
};

// The Metropolis test u < exp(-x) for x > 0, answered as std::exp would
// answer it: exp is called only when u falls between two bounds of it,
// 1 - x + x^2/2 - x^3/6 <= e^-x <= 1 / (1 + x + x^2/2 + x^3/6) (Taylor),
// each widened by a margin far above the bounds' rounding (the upper one
// tested as u (1 + x + ...) >= 1: no division).  Most uphill proposals
// fall outside, so exp, costly in the annealers' inner loops, is rarely
// called (doc/tuning.md, below_exp_neg).
inline bool below_exp_neg(double u, double x) {
    const double x2 = x * x, x3 = x2 * x;
    if (u * (1.0 + x + 0.5 * x2 + x3 * (1.0 / 6.0)) >= 1.0 + 1e-12) return false;
    if (u < 1.0 - x + 0.5 * x2 - x3 * (1.0 / 6.0) - 1e-12) return true;
    return u < std::exp(-x);
}

// Multipliers that spread a user seed before a stream's salt is added: the
// golden-ratio gamma of splitmix64 and the multiplier of a 64-bit
// multiplicative congruential generator.  Which one a stream uses is part
// of its identity (changing it changes every result drawn from it).
enum class StreamMix : uint64_t { Golden = 0x9e3779b97f4a7c15ULL, Lcg = 0x2545f4914f6cdd1dULL };

// The generator of one named random stream derived from the user's seed:
// every randomized step takes its own salt, so the steps draw independent
// numbers and the same seed gives the same mapping.
inline uint64_t stream_seed(uint64_t seed, uint64_t salt, StreamMix mix = StreamMix::Golden) {
    return seed * static_cast<uint64_t>(mix) + salt;
}
inline Rng rng_stream(uint64_t seed, uint64_t salt, StreamMix mix = StreamMix::Golden) {
    return Rng(stream_seed(seed, salt, mix));
}

// Fisher-Yates with our generator (std::shuffle's result is unspecified).
template <class Vec> void shuffle(Vec &v, Rng &rng) {
    for (std::size_t i = v.size(); i > 1; --i) {
        std::size_t j = rng.below(static_cast<uint32_t>(i));
        auto tmp = v[i - 1];
        v[i - 1] = v[j];
        v[j] = tmp;
    }
}

} // namespace rankmap
