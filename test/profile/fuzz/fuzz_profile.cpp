// fuzz_profile.cpp -- libFuzzer target for the "rankmap-profile 1" reader
// (src/profile/profile.cpp) and the weight choice.  Byte 0 picks the
// requested weights and threshold; the rest is the file.  An accepted
// profile must give a graph of its task count with weights as chosen, and a
// median that is finite and non-negative.
#include <cmath>
#include <cstdlib>
#include <string>

#include "common/error.hpp"
#include "fuzz_common.hpp"
#include "profile/profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    static const rankmap::WeightKind kinds[] = {rankmap::WeightKind::Auto, rankmap::WeightKind::Count,
                                                rankmap::WeightKind::Volume, rankmap::WeightKind::Auto};
    static const double thresholds[] = {0, 1, 16384, 1e300};
    const auto kind = kinds[data[0] & 3];
    const double threshold = thresholds[(data[0] >> 2) & 3];
    const std::string &path = fuzz::write_scratch(data + 1, size - 1);
    try {
        rankmap::Profile p = rankmap::read_profile(path);
        if (p.ntasks < 1) std::abort();
        auto c = rankmap::choose_weights(p, kind, threshold);
        if (c.kind == rankmap::WeightKind::Auto) std::abort();
        if (!std::isfinite(c.median_bytes) || c.median_bytes < 0) std::abort();
        if (kind != rankmap::WeightKind::Auto && c.kind != kind) std::abort();
        rankmap::Graph g = rankmap::profile_graph(p, c.kind);
        if (g.n() != p.ntasks) std::abort();
        if (c.kind == rankmap::WeightKind::Count && g.nedges() != static_cast<int64_t>(p.pairs.size())) std::abort();
    } catch (const rankmap::Error &) {
    }
    return 0;
}
