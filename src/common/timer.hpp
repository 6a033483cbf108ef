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
    // A safety net: the work is budgeted elsewhere (in work units, for a
    // result that does not depend on the clock) and the net only stops it
    // when the machine is far slower than planned.  Its shares are the
    // whole net, and annealing does not shorten its steps to fit it, so
    // every step runs its budgeted work unless the net itself expires.
    static Deadline safety_net(double seconds) {
        Deadline d(seconds);
        d.net_ = true;
        return d;
    }
    bool is_safety_net() const { return net_; }
    double elapsed() const {
        return std::chrono::duration<double>(clock::now() - start_).count();
    }
    double remaining() const {
        return limit_ > 0 ? limit_ - elapsed() : std::numeric_limits<double>::infinity();
    }
    bool expired() const { return limit_ > 0 && elapsed() >= limit_; }
    double limit() const { return limit_; }
    // A deadline for a share of what is left (used by `auto` to split a
    // caller's time limit); a safety net's share is the net.
    Deadline share(double fraction) const {
        if (net_) return *this;
        if (limit_ <= 0) return Deadline(0);
        double r = remaining();
        return Deadline(r > 0 ? r * fraction : 1e-9);
    }

private:
    clock::time_point start_;
    double limit_;
    bool net_ = false;
};

} // namespace rankmap
