// tuning.cpp -- the named presets of the tuning contexts (tuning.hpp).
// Each preset starts from the context's defaults and changes only what its
// size class or mode needs; doc/tuning.md lists the values and the
// benchmark behind each.
#include "map/tuning.hpp"

namespace rankmap {

namespace {

// Size classes of auto.
constexpr int kSmall = 1024;
constexpr int kMedium = 4096;
// Size classes of congestion (auto's own cost grows with N).
constexpr int kCongestionMedium = 8192;
// Size classes of the hierarchy mapper.
constexpr int kHierMedium = 8192;

} // namespace

AnnealContext anneal_preset() { return AnnealContext{}; }

BandContext band_preset() { return BandContext{}; }

AutoContext auto_preset(int n) {
    AutoContext c;
    if (n <= kSmall) {
        c.cold_acceptance = 0.04;
        c.cold_share = 0.9;
        c.band.start_temperature = 0.6;
        return c;
    }
    c.cold_acceptance = 0.06;
    c.cold_share = n <= kMedium ? 1.5 : 0.3;
    c.band_phase1 = 0.3;
    c.band_chain_scale = 0.4;
    c.band_phase2_bonus = n <= kMedium ? 0.5 : 0.0;
    c.band_phase2_extra = 0.0;
    return c;
}

AutoContext auto_link_load_preset(int n) {
    AutoContext c = auto_preset(n);
    c.band_phase1 = n <= kSmall ? 1.5 : 0.3;
    c.band_chain_scale = 0.4;
    c.band_phase2_extra = 0.0;
    c.band_phase2_translations = 0;
    c.band.weighted_partners = false;
    c.band.staircase = false;
    c.band.start_temperature = 1.0;
    c.band.end_temperature = 0.05;
    return c;
}

CongestionContext congestion_preset(int n) {
    CongestionContext c;
    if (n <= kSmall) return c;
    c.starts = n <= kCongestionMedium ? 2 : 1;
    c.sweeps = n <= kCongestionMedium ? 200 : 40;
    return c;
}

KlContext kl_preset() { return KlContext{}; }

GeometricContext geometric_preset(int n) {
    GeometricContext c;
    if (n <= kSmall) return c;
    c.pivots = n <= kMedium ? 100 : 64;
    c.majorize_rounds = 30;
    c.rotations = n <= kMedium ? 32 : 16;
    return c;
}

DivideAnnealContext divide_anneal_preset() { return DivideAnnealContext{}; }

GreedyContext greedy_preset() { return GreedyContext{}; }

CartContext cart_preset() { return CartContext{}; }

ScotchContext scotch_preset() { return ScotchContext{}; }

KwayContext kway_preset() { return KwayContext{}; }

HierContext hier_preset(int n) {
    HierContext c;
    c.kway = kway_preset();
    if (n <= kSmall) return c;
    c.sweeps = n <= kHierMedium ? 300 : 150;
    if (n > kHierMedium) c.outer_tries = 8;
    return c;
}

} // namespace rankmap
