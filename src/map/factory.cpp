// factory.cpp -- algorithm names, problem preparation and the dispatch
// switch (no default: adding an Algorithm without a case is a compile
// warning, and -Werror-minded readers see it at once).
#include <algorithm>

#include "common/error.hpp"
#include "map/mapper.hpp"

namespace rankmap {

namespace {
struct NameEntry {
    Algorithm a;
    const char *name;
};
constexpr NameEntry kNames[] = {
    {Algorithm::Auto, "auto"},           {Algorithm::Identity, "identity"},
    {Algorithm::Random, "random"},       {Algorithm::Order, "order"},
    {Algorithm::Cartesian, "cart"},      {Algorithm::Greedy, "greedy"},
    {Algorithm::Anneal, "anneal"},       {Algorithm::DivideAnneal, "dc-anneal"},
    {Algorithm::KernighanLin, "kl"},     {Algorithm::Scotch, "scotch"},
    {Algorithm::Hier, "hier"},           {Algorithm::Congestion, "congestion"},
    {Algorithm::Fast, "fast"},           {Algorithm::Auto, "quality"},
};
} // namespace

Algorithm parse_algorithm(const std::string &name) {
    for (const auto &e : kNames)
        if (name == e.name) return e.a;
    std::string list;
    for (const auto &e : kNames) list += std::string(list.empty() ? "" : ", ") + e.name;
    throw Error("unknown algorithm '" + name + "' (expected one of: " + list + ")");
}

const char *algorithm_name(Algorithm a) {
    for (const auto &e : kNames)
        if (e.a == a) return e.name;
    return "?";
}

std::vector<std::string> algorithm_names() {
    std::vector<std::string> v;
    for (const auto &e : kNames) v.push_back(e.name);
    return v;
}

ProblemData prepare(const Graph &g, const Topology &topo) {
    const int64_t n = g.n(), P = topo.size();
    if (n == 0) throw Error("the communication graph has no tasks");
    if (n > P * topo.slots())
        throw Error("topology " + topo.describe() + " is too small: " + std::to_string(P) + " nodes x " +
                        std::to_string(topo.slots()) + " slot(s) cannot hold " + std::to_string(n) +
                        " tasks (declare more tasks per node with :slots=K, or use a larger topology)",
                    ErrorKind::TooSmall);
    ProblemData d;
    d.sym = g.symmetrized();
    d.cap = capacity_for(static_cast<int>(n), static_cast<int>(P));
    d.f_min = lower_bound(g, topo);
    return d;
}

std::vector<int> run_mapper(Algorithm a, const Problem &p) {
    std::vector<int> place;
    switch (a) {
    case Algorithm::Identity: place = map_identity(p); break;
    case Algorithm::Random: place = map_random(p); break;
    case Algorithm::Order: place = map_order(p); break;
    case Algorithm::Cartesian: place = map_cartesian(p); break;
    case Algorithm::Greedy: place = map_greedy(p); break;
    case Algorithm::Anneal: place = map_anneal(p); break;
    case Algorithm::DivideAnneal: place = map_divide_anneal(p); break;
    case Algorithm::KernighanLin: place = map_kernighan_lin(p); break;
    case Algorithm::Scotch: place = map_scotch(p); break;
    case Algorithm::Hier: place = map_hier(p); break;
    case Algorithm::Auto: place = map_auto(p); break;
    case Algorithm::Fast: place = map_fast(p); break;
    case Algorithm::Congestion: place = map_congestion(p); break;
    }
    try {
        check_placement(p.topo, p.g.n(), place);
    } catch (const Error &e) {
        throw Error(std::string("internal error: mapper '") + algorithm_name(a) + "' returned an invalid placement: " +
                        e.what(),
                    ErrorKind::Internal);
    }
    return place;
}

} // namespace rankmap
