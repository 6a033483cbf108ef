// timer.hpp -- wall clock and deadlines for time-budgeted mappers.
#pragma once
#include <chrono>
#include <limits>

namespace rankmap {

class Deadline {
public:
    using clock = std::chrono::steady_clock;
    // seconds <= 0 means no deadline.
    explicit Deadline(double seconds = 0) : start_(clock::now()), limit_(seconds) {}
    double elapsed() const {
        return std::chrono::duration<double>(clock::now() - start_).count();
    }
    double remaining() const {
        return limit_ > 0 ? limit_ - elapsed() : std::numeric_limits<double>::infinity();
    }
    bool expired() const { return limit_ > 0 && elapsed() >= limit_; }
    double limit() const { return limit_; }
    // A deadline for a share of what is left (used by `auto` to split budget).
    Deadline share(double fraction) const {
        if (limit_ <= 0) return Deadline(0);
        double r = remaining();
        return Deadline(r > 0 ? r * fraction : 1e-9);
    }

private:
    clock::time_point start_;
    double limit_;
};

} // namespace rankmap
