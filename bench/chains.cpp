// bench/chains -- what a chain brings where the tuning leaves it out.
//
// Default mode: the cold chain after the hot chain when both start from
// the graph drawing (tuning.cpp: kColdFromDrawingMax, the AutoContext field
// cold_from_hot_start).  For every torus and graph it runs the fast preset
// twice in this process, with the cold chain from the hot chain's start
// allowed and left out, and prints F/F_min and seconds of both; "cold won"
// says when the extra chain ended lower.  Graphs: UMT-like with graph seeds
// 1..N (irregular meshes, where the drawing is the best start) and
// SAGE-like with scrambled labels (no band search; Scotch's map is the
// cold chain's start there, so both runs agree).
//
// --hot: the hot chain (the AutoContext field hot_share; 0 leaves it out)
// of the fast preset up to 1024 tasks, run with auto_preset's share and
// left out, on the default mode's graphs and on 3-D and 2-D tori; "hot
// won" says when running it ended lower.
//
// --band: the chains (and the graph drawing they start from) after a band
// result that beats every start (the AutoContext field chains_after_band).
// Graphs: SAGE-like in rank order with several cells per task (each a
// different band graph); both presets, fast and quality, run with the
// chains and without; "chains won" says when running them ended lower.
//
// --band-search: fast above 16,384 tasks with the band search off (the
// chain from the graph drawing) and on (AutoContext::band_search), on the
// same graphs at 32,768 and 65,536 tasks; "on won" says when the band
// search ended lower.
//
// --band-temperature: the band search's tile annealing with the large-tile
// temperatures (BandContext::large_tile and its two temperatures, for
// tiles of 256 tasks and more) and with the small-tile ones at every tile
// size (large_tile = 0), on --band's graphs from 4096 to 65,536 tasks:
// fast with the seeds of portfolio members 0..K-1 (default 4), quality
// with seed 1; "large won" says when the large-tile temperatures ended
// lower, and the summary gives both columns' medians and worst runs.
//
// --band-phase1: fast's band search above 32,768 tasks (phase 1's
// successive halving keeps a ninth of the translations per round, phase 2
// gets the time that saves: BandContext::halving_factor 9 and
// band_phase2_extra 2.3) against a third per round and auto_preset's
// phase 2 (3 and 1.5), fast only, on --band-phase2's graphs at 65,536
// tasks, with the seeds of members 0-7; "ninths won" says when the
// preset ended lower, and the summary gives both columns' seconds (both
// with the current translation tables, which took phase 1 1.7 s instead of
// 2.5 at 65,536 tasks; the extra phase 2 work spends that).
//
// --band-phase2: phase 2 of the band search (the AutoContext field
// band_phase2_translations) on phase 1's best three translations and on
// its best one, on the same graphs at 32,768 and 65,536 tasks, with the
// same seeds; "one won" says when one translation ended lower.
//
// --multilevel: the multilevel path (multilevel.cpp; the AutoContext field
// multilevel) forced on at every size and left out (the drawing and its
// chain), both presets, on the default mode's graphs at 32,768 and 65,536
// tasks; "multilevel won" says when it ended lower.  (Quality takes both
// paths above 32,768 tasks; here each alone.)
//
// --cold-other: fast's cold chain from a start other than the graph drawing
// (the AutoContext field cold_from_other_start; it runs when the drawing is
// more than geometric_cold_margin above the best start, Scotch's map, which
// depends on the seed) run and left out, on the default mode's graphs at
// 4096, 8192 and 16,384 tasks.
//
// --seeds K: every graph is mapped with the seeds of the in-call
// portfolio's members 0..K-1 (rankmap_portfolio_seed of seed 1; member 0's
// is seed 1 itself), each a row; default 1 (8 with --cold-other, whose
// case arises for some seeds only, and with --band-phase1; 4 with
// --band-temperature and --band-phase2, whose results scatter with the
// seed).
//
//   bench/chains [--hot | --band | --band-search | --band-temperature | --band-phase1 | --band-phase2
//                 | --multilevel | --cold-other]
//                [--sizes 16x16x8,16x16x16,32x16x16]
//                [--graphs 5] [--seeds K] [--markdown]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "common/text.hpp"
#include "cost/cost.hpp"
#include "graph/graph.hpp"
#include "map/mapper.hpp"
#include "map/tuning.hpp"
#include "rankmap_glue.h"
#include "topology/topology.hpp"
#include "workload/workload.hpp"

using namespace rankmap;

namespace {

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Run {
    double ratio = 0, seconds = 0;
    std::vector<int> place;
};

Run map_once(const Graph &g, const Topology &topo, const AutoContext &c, uint64_t seed = 1) {
    ProblemData d = prepare(g, topo);
    Options opt;
    opt.seed = seed;
    Problem p{g, d.sym, topo, d.cap, d.f_min, std::nullopt, opt, Deadline(0), nullptr, nullptr};
    Run r;
    const double t0 = now();
    r.place = map_auto(p, c);
    r.seconds = now() - t0;
    r.ratio = free_energy(g, topo, r.place) / d.f_min;
    return r;
}

// One row of a comparison of two runs, a and b, of the same graph.
void print_row(bool markdown, const std::string &size, int n, const std::string &name, const char *preset, const Run &a,
               const Run &b, const char *verdict) {
    if (markdown)
        std::printf("| %s | %d | %s | %s | %.4f | %.2f | %.4f | %.2f | %s |\n", size.c_str(), n, name.c_str(), preset,
                    a.ratio, a.seconds, b.ratio, b.seconds, verdict);
    else
        std::printf("%-10s %6d %-14s %-8s %10.4f %8.2f %10.4f %8.2f %s\n", size.c_str(), n, name.c_str(), preset,
                    a.ratio, a.seconds, b.ratio, b.seconds, verdict);
    std::fflush(stdout);
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double worst(const std::vector<double> &v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }

// The comparisons of one size and preset: how often the run the mode asks
// about ended lower, both runs' total seconds and F/F_min medians.
struct Tally {
    int won = 0, total = 0;
    double a_s = 0, b_s = 0;
    std::vector<double> a_f, b_f;
    void add(const Run &a, const Run &b, bool won_here) {
        won += won_here;
        ++total;
        a_s += a.seconds;
        b_s += b.seconds;
        a_f.push_back(a.ratio);
        b_f.push_back(b.ratio);
    }
};

// SAGE-like graphs of --band: cells per task (13824 is the workload's default).
const int kSageCells[] = {13824, 8000, 2744, 21952, 1000};

[[noreturn]] void usage(const std::string &why) {
    std::fprintf(stderr,
                 "bench/chains: %s\nusage: bench/chains [--hot | --band | --band-search | --band-temperature | --band-phase1 "
                 "| --band-phase2 | --multilevel | --cold-other] [--sizes AxBxC,...] [--graphs N] [--seeds K] [--markdown]\n",
                 why.c_str());
    std::exit(2);
}

std::unique_ptr<Topology> torus_or_usage(const std::string &size) {
    try {
        return parse_topology("torus:" + size);
    } catch (const std::exception &e) {
        usage(std::string("--sizes: ") + e.what());
    }
}

// --band (search = false): both presets with the chains after a winning
// band result run and left out.  --band-search (search = true): fast with
// the band search off and on.
int band_mode(const std::vector<std::string> &sizes, bool markdown, bool search) {
    if (search)
        std::printf("seed 1, one core: SAGE-like graphs in rank order (band graphs); the fast preset with the band "
                    "search off (band_search = false: the chain from the graph drawing) and on (no chains after a "
                    "band result that beats every start); F/F_min and seconds of each\n\n");
    else
        std::printf("seed 1, one core: SAGE-like graphs in rank order (band graphs); the chains after a band result "
                    "that beats every start run (chains_after_band = true) and left out with the graph drawing "
                    "(false); F/F_min and seconds of each\n\n");
    const char *a_name = search ? "off" : "chains run", *b_name = search ? "on" : "left out";
    const char *won_name = search ? "on won" : "chains won";
    if (markdown)
        std::printf("| torus | tasks | graph | preset | %s: F/F_min | seconds | %s: F/F_min | seconds | %s |\n"
                    "|---|---:|---|---|---:|---:|---:|---:|---|\n",
                    a_name, b_name, won_name);
    else
        std::printf("%-10s %6s %-14s %-8s %10s %8s %10s %8s %s\n", "torus", "tasks", "graph", "preset", a_name, "s",
                    b_name, "s", won_name);
    std::string summary;
    for (const std::string &size : sizes) {
        const std::unique_ptr<Topology> topo = torus_or_usage(size);
        const int n = topo->size();
        for (const bool quality : search ? std::vector<bool>{false} : std::vector<bool>{false, true}) {
            Tally t;
            for (const int cells : kSageCells) {
                const Graph g = workload_sage(n, cells);
                AutoContext a_ctx = quality ? auto_preset(n) : auto_fast_preset(n), b_ctx = a_ctx;
                if (search) {
                    a_ctx.band_search = false;
                    b_ctx.band_search = true;
                } else {
                    a_ctx.chains_after_band = true;
                    b_ctx.chains_after_band = false;
                }
                const Run a = map_once(g, *topo, a_ctx), b = map_once(g, *topo, b_ctx);
                const bool same = a.place == b.place;
                // "won": the chains (a) ended lower; with --band-search, the band search (b) did
                const bool won_here = !same && (search ? b.ratio < a.ratio : a.ratio < b.ratio);
                t.add(a, b, won_here);
                const char *verdict = won_here ? "yes" : same ? "no (same placement)" : "no";
                const std::string name = "sage-" + std::to_string(cells);
                print_row(markdown, size, n, name, quality ? "quality" : "fast", a, b, verdict);
            }
            char line[256];
            if (search)
                std::snprintf(line, sizeof line,
                              "  %s fast: the band search ended lower in %d of %d graphs; %.1f s without it, %.1f s "
                              "with it\n",
                              size.c_str(), t.won, t.total, t.a_s, t.b_s);
            else
                std::snprintf(line, sizeof line,
                              "  %s %s: the chains ended lower in %d of %d graphs; %.1f s with them, %.1f s "
                              "without\n",
                              size.c_str(), quality ? "quality" : "fast", t.won, t.total, t.a_s, t.b_s);
            summary += line;
        }
    }
    std::printf("\n%s", summary.c_str());
    return 0;
}

// One band setting against the preset (b), on --band's graphs: fast with
// the seeds of portfolio members 0..seeds-1 and quality with seed 1.
struct BandAb {
    std::string what;                        // the first line's description of a and b
    const char *a_name, *b_name, *won_name;  // column heads
    const char *summary;                     // "the ... ended lower"
    void (*make_a)(AutoContext &);           // a: the preset with this change
    bool fast_only = false;                  // the setting is fast's alone (quality's rows would be the same)
};

// --band-temperature: a with the small-tile temperatures at every tile
// size (large_tile = 0).
void small_tiles_only(AutoContext &c) { c.band.large_tile = 0; }
// --band-phase2: a with phase 2 on phase 1's best three translations.
void phase2_three(AutoContext &c) { c.band_phase2_translations = 3; }
// --band-phase1: a with phase 1 keeping a third of the translations per
// round and phase 2 on auto_preset's work (fast's preset: a ninth, and
// phase 2 gets the time that saves).
void phase1_thirds(AutoContext &c) {
    c.band.halving_factor = 3;
    c.band_phase2_extra = 1.5;
}

int band_ab_mode(const std::vector<std::string> &sizes, int seeds, bool markdown, const BandAb &m) {
    std::printf("one core: SAGE-like graphs in rank order (band graphs); %s; fast with the seeds of portfolio "
                "members 0..%d%s; F/F_min and seconds of each\n\n",
                m.what.c_str(), seeds - 1, m.fast_only ? "" : ", quality with seed 1");
    if (markdown)
        std::printf("| torus | tasks | graph | preset | %s: F/F_min | seconds | %s: F/F_min | seconds | %s |\n"
                    "|---|---:|---|---|---:|---:|---:|---:|---|\n",
                    m.a_name, m.b_name, m.won_name);
    else
        std::printf("%-10s %6s %-14s %-8s %10s %8s %10s %8s %s\n", "torus", "tasks", "graph", "preset", m.a_name, "s",
                    m.b_name, "s", m.won_name);
    std::string summary;
    for (const std::string &size : sizes) {
        const std::unique_ptr<Topology> topo = torus_or_usage(size);
        const int n = topo->size();
        for (const bool quality : {false, true}) {
            if (quality && m.fast_only) continue;
            Tally t;
            for (const int cells : kSageCells) {
                const Graph g = workload_sage(n, cells);
                for (int k = 0; k < (quality ? 1 : seeds); ++k) {
                    AutoContext b_ctx = quality ? auto_preset(n) : auto_fast_preset(n), a_ctx = b_ctx;
                    m.make_a(a_ctx);
                    const uint64_t seed = rankmap_portfolio_seed(1, k);
                    const Run a = map_once(g, *topo, a_ctx, seed), b = map_once(g, *topo, b_ctx, seed);
                    const bool same = a.place == b.place, b_won = !same && b.ratio < a.ratio;
                    t.add(a, b, b_won);
                    std::string name = "sage-" + std::to_string(cells);
                    if (!quality && seeds > 1) name += " m" + std::to_string(k);
                    print_row(markdown, size, n, name, quality ? "quality" : "fast", a, b,
                              b_won ? "yes" : same ? "no (same placement)" : "no");
                }
            }
            char line[400];
            std::snprintf(line, sizeof line,
                          "  %s %s: %s ended lower in %d of %d runs; median F/F_min %.4f %s, %.4f %s; worst %.4f, "
                          "%.4f; %.1f s %s, %.1f s %s\n",
                          size.c_str(), quality ? "quality" : "fast", m.summary, t.won, t.total, median(t.a_f),
                          m.a_name, median(t.b_f), m.b_name, worst(t.a_f), worst(t.b_f), t.a_s, m.a_name, t.b_s,
                          m.b_name);
            summary += line;
        }
    }
    std::printf("\n%s", summary.c_str());
    return 0;
}

enum class Irregular { Cold, Hot, Multilevel, ColdOther };

// Default mode (Cold): the cold chain from the hot chain's start allowed
// and left out.  --hot: the hot chain run (auto_preset's share) and left
// out (hot_share = 0).  --multilevel: the multilevel path on (threshold 0)
// and off, fast and quality.  --cold-other: fast's cold chain from another start (cold_from_other_start)
// run and left out.  UMT-like graphs 1..graphs and SAGE-like with scrambled
// labels, each with the seeds of portfolio members 0..seeds-1.
int irregular_mode(const std::vector<std::string> &sizes, int graphs, int seeds, bool markdown, Irregular mode) {
    const bool hot = mode == Irregular::Hot, ml = mode == Irregular::Multilevel, other = mode == Irregular::ColdOther;
    const std::string seed_text =
        seeds == 1 ? "seed 1" : "the seeds of portfolio members 0.." + std::to_string(seeds - 1);
    if (other)
        std::printf("fast preset, %s, one core: the cold chain from a start other than the graph drawing "
                    "(Scotch's map, when the drawing is more than geometric_cold_margin above it) run "
                    "and left out (cold_from_other_start); F/F_min and seconds of each\n\n",
                    seed_text.c_str());
    else if (ml)
        std::printf("%s, one core: the multilevel path on (multilevel.min_tasks = 0, and_chains = false) and "
                    "off (the graph drawing and its chain); F/F_min and seconds of each\n\n",
                    seed_text.c_str());
    else if (hot)
        std::printf("fast preset, %s, one core: the hot chain run (hot_share as auto_preset) and left out "
                    "(hot_share = 0); F/F_min and seconds of each\n\n",
                    seed_text.c_str());
    else
        std::printf("fast preset, %s, one core: the cold chain from the hot chain's start (the graph drawing) "
                    "allowed, and left out (cold_from_hot_start = false); F/F_min and seconds of each\n\n",
                    seed_text.c_str());
    const char *a_name = ml ? "on" : hot ? "hot run" : other ? "run" : "allowed";
    const char *b_name = ml ? "off" : "left out";
    const char *won_name = ml ? "multilevel won" : hot ? "hot won" : "cold won";
    if (markdown)
        std::printf("| torus | tasks | graph | preset | %s: F/F_min | seconds | %s: F/F_min | seconds | %s |\n"
                    "|---|---:|---|---|---:|---:|---:|---:|---|\n",
                    a_name, b_name, won_name);
    else
        std::printf("%-10s %6s %-14s %-8s %10s %8s %10s %8s %s\n", "torus", "tasks", "graph", "preset", a_name, "s",
                    b_name, "s", won_name);
    std::string summary;
    for (const std::string &size : sizes) {
        const std::unique_ptr<Topology> topo = torus_or_usage(size);
        const int n = topo->size();
        for (const bool quality : ml ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
            Tally t;
            for (int k = 0; k <= graphs; ++k) {
                const bool sage = k == graphs;
                const std::string gname = sage ? "sage-scrambled" : "umt-" + std::to_string(k + 1);
                Graph g = sage ? workload_sage(n).relabeled(scramble_permutation(n, 1))
                               : workload_umt(n, static_cast<uint64_t>(k + 1));
                for (int m = 0; m < seeds; ++m) {
                    const std::string name = seeds == 1 ? gname : gname + " m" + std::to_string(m);
                    const uint64_t seed = rankmap_portfolio_seed(1, m);
                    AutoContext with = quality ? auto_preset(n) : auto_fast_preset(n), without = with;
                    if (ml) {
                        with.multilevel.min_tasks = 0;
                        with.multilevel.and_chains = false;
                        without.multilevel.min_tasks = 1 << 30;
                    } else if (hot) {
                        with.hot_share = auto_preset(n).hot_share;
                        without.hot_share = 0;
                    } else if (other) {
                        with.cold_from_other_start = true;
                        without.cold_from_other_start = false;
                    } else {
                        with.cold_from_hot_start = true;
                        without.cold_from_hot_start = false;
                    }
                    const Run a = map_once(g, *topo, with, seed), b = map_once(g, *topo, without, seed);
                    const bool same = a.place == b.place, a_won = !same && a.ratio < b.ratio;
                    t.add(a, b, a_won);
                    const char *verdict = a_won ? "yes" : same ? "no (same placement)" : "no";
                    print_row(markdown, size, n, name, quality ? "quality" : "fast", a, b, verdict);
                }
            }
            char line[256];
            std::snprintf(line, sizeof line, "  %s%s: %s ended lower in %d of %d %s; %.1f s with it, %.1f s without\n",
                          size.c_str(), ml ? (quality ? " quality" : " fast") : "",
                          ml      ? "the multilevel path"
                          : hot   ? "the hot chain"
                          : other ? "the cold chain from another start"
                                  : "the cold chain from the hot chain's start",
                          t.won, t.total, seeds == 1 ? "graphs" : "runs", t.a_s, t.b_s);
            summary += line;
        }
    }
    std::printf("\n%s", summary.c_str());
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    std::vector<std::string> sizes;
    int graphs = 5, seeds = 0;
    bool markdown = false, band = false, band_search = false, band_temp = false, band_p1 = false, band_p2 = false,
         hot = false, ml = false, other = false;
    for (int i = 1; i < argc; ++i) {
        const std::string opt = argv[i];
        if (opt == "--markdown" || opt == "--hot" || opt == "--band" || opt == "--band-search" ||
            opt == "--band-temperature" || opt == "--band-phase1" || opt == "--band-phase2" || opt == "--multilevel" ||
            opt == "--cold-other") {
            (opt == "--band"               ? band
             : opt == "--band-search"      ? band_search
             : opt == "--band-temperature" ? band_temp
             : opt == "--band-phase1"      ? band_p1
             : opt == "--band-phase2"      ? band_p2
             : opt == "--hot"         ? hot
             : opt == "--multilevel"  ? ml
             : opt == "--cold-other"  ? other
                                      : markdown) = true;
            continue;
        }
        if (i + 1 >= argc) usage("option " + opt + " needs a value");
        const std::string v = argv[++i];
        if (opt == "--sizes")
            sizes = split(v, ",");
        else if (opt == "--graphs")
            graphs = std::atoi(v.c_str());
        else if (opt == "--seeds") {
            seeds = std::atoi(v.c_str());
            if (seeds < 1 || seeds > 64) usage("--seeds must be 1..64");
        } else
            usage("unknown option " + opt);
    }
    if (graphs < 1 || graphs > 64) usage("--graphs must be 1..64");
    if (band + band_search + band_temp + band_p1 + band_p2 + hot + ml + other > 1)
        usage("--hot, --band, --band-search, --band-temperature, --band-phase1, --band-phase2, --multilevel and "
              "--cold-other are separate runs");
    if (seeds == 0) seeds = other || band_p1 ? 8 : band_temp || band_p2 ? 4 : 1;
    if (seeds > 1 && (band || band_search))
        usage("--seeds applies to --band-temperature, --band-phase1, --band-phase2 and the irregular graphs' modes");
    if (sizes.empty())
        sizes = band                ? std::vector<std::string>{"8x8x8", "16x16x8", "16x16x16"}
                : band_search || ml || band_p2 ? std::vector<std::string>{"32x32x32", "64x32x32"}
                : band_p1           ? std::vector<std::string>{"64x32x32"}
                : band_temp ? std::vector<std::string>{"16x16x16", "32x16x16", "32x32x16", "32x32x32", "64x32x32"}
                : hot               ? std::vector<std::string>{"8x8x8", "16x8x8", "32x16", "16x16x4"}
                : other             ? std::vector<std::string>{"16x16x16", "32x16x16", "32x32x16"}
                                    : std::vector<std::string>{"16x16x8", "16x16x16", "32x16x16"};
    if (band || band_search) return band_mode(sizes, markdown, band_search);
    if (band_temp)
        return band_ab_mode(sizes, seeds, markdown,
                            {"the band search's tile annealing with the small-tile temperatures at every tile size "
                             "(large_tile = 0) and with the large-tile ones for tiles of " +
                                 std::to_string(band_preset().large_tile) + " tasks and more (the preset)",
                             "small", "large", "large won", "the large-tile temperatures", small_tiles_only});
    if (band_p1)
        return band_ab_mode(sizes, seeds, markdown,
                            {"fast's band search with phase 1 keeping a third of the translations per round and "
                             "phase 2 on auto_preset's work (halving_factor = 3, band_phase2_extra = 1.5) and with "
                             "fast's preset above 32,768 tasks (a ninth; phase 2 gets the time that saves)",
                             "thirds", "ninths", "ninths won", "the preset", phase1_thirds, true});
    if (band_p2)
        return band_ab_mode(sizes, seeds, markdown,
                            {"phase 2 of the band search on phase 1's best three translations "
                             "(band_phase2_translations = 3) and on its best one (the preset above 16,384 tasks)",
                             "three", "one", "one won", "phase 2 on one translation", phase2_three});
    return irregular_mode(sizes, graphs, seeds, markdown,
                          ml      ? Irregular::Multilevel
                          : hot   ? Irregular::Hot
                          : other ? Irregular::ColdOther
                                  : Irregular::Cold);
}
