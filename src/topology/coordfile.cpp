// coordfile.cpp -- MPICH's network coordinates file (see coordfile.hpp).
#include "topology/coordfile.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "common/error.hpp"
#include "common/text.hpp"
#include "topology/dragonfly.hpp"
#include "topology/placement.hpp"

namespace rankmap {

namespace {

struct Entry {
    long line;
    int group, router;
    long long port;
};

// The entries by rank; errors name the file and line.
std::vector<Entry> read_entries(const DragonflyTopology &d, const std::string &path, std::istream &in, int ntasks) {
    std::map<long long, Entry> by_rank;
    std::string line;
    long lineno = 0;
    const int R = d.chassis() * d.blades();
    while (std::getline(in, line)) {
        ++lineno;
        auto hash = line.find('#');
        if (hash != std::string::npos) line.resize(hash);
        if (split(line, " \t\r").empty()) continue;
        auto colon = line.find(':');
        auto f = split(colon == std::string::npos ? std::string() : line.substr(colon + 1), " \t\r");
        long long rank, v[3];
        if (colon == std::string::npos || !parse_int(trim(line.substr(0, colon)), rank) || f.size() != 3 ||
            !parse_int(f[0], v[0]) || !parse_int(f[1], v[1]) || !parse_int(f[2], v[2]))
            throw Error(where(path, lineno) + "expected 'RANK: GROUP SWITCH PORT' (whole numbers), found '" +
                        trim(line) + "'");
        if (rank < 0 || (ntasks >= 0 && rank >= ntasks))
            throw Error(where(path, lineno) + "rank " + std::to_string(rank) + " is outside 0.." +
                        std::to_string(ntasks - 1));
        if (v[0] < 0 || v[0] >= d.groups())
            throw Error(where(path, lineno) + "group " + std::to_string(v[0]) + " is outside 0.." +
                        std::to_string(d.groups() - 1) + " of " + d.describe());
        if (v[1] < 0 || v[1] >= R)
            throw Error(where(path, lineno) + "switch " + std::to_string(v[1]) + " is outside 0.." +
                        std::to_string(R - 1) + " (routers per group) of " + d.describe());
        if (v[2] < 0) throw Error(where(path, lineno) + "port " + std::to_string(v[2]) + " is negative");
        auto ins = by_rank.emplace(rank, Entry{lineno, static_cast<int>(v[0]), static_cast<int>(v[1]), v[2]});
        if (!ins.second)
            throw Error(where(path, lineno) + "rank " + std::to_string(rank) + " already given at line " +
                        std::to_string(ins.first->second.line));
    }
    const long long n = ntasks >= 0 ? ntasks : static_cast<long long>(by_rank.size());
    if (n == 0) throw Error("coordinates file '" + path + "': no ranks");
    std::vector<Entry> out;
    for (long long r = 0; r < n; ++r) {
        auto it = by_rank.find(r);
        if (it == by_rank.end())
            throw Error("coordinates file '" + path + "': rank " + std::to_string(r) + " is missing (" +
                        std::to_string(n) + " ranks)");
        out.push_back(it->second);
    }
    return out;
}

} // namespace

bool is_coordinates_text(const std::string &text) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        auto hash = line.find('#');
        if (hash != std::string::npos) line.resize(hash);
        if (split(line, " \t\r").empty()) continue;
        return line.find(':') != std::string::npos;
    }
    return false;
}

std::vector<int> read_coordinates(const Topology &topo, const std::string &path, std::istream &in, int ntasks) {
    if (topo.kind() != TopologyKind::Dragonfly)
        throw Error("coordinates file '" + path + "': 'RANK: GROUP SWITCH PORT' lines need a dragonfly topology, not " +
                    topo.describe());
    const auto &d = static_cast<const DragonflyTopology &>(topo);
    const std::vector<Entry> e = read_entries(d, path, in, ntasks);
    const int n = static_cast<int>(e.size());
    // The ports of each switch in ascending order are its hosts.
    std::map<std::pair<int, int>, std::vector<long long>> ports;
    for (const Entry &x : e) ports[{x.group, x.router}].push_back(x.port);
    for (auto &[sw, p] : ports) {
        std::sort(p.begin(), p.end());
        p.erase(std::unique(p.begin(), p.end()), p.end());
        if (static_cast<int>(p.size()) > d.hosts_per_router())
            throw Error("coordinates file '" + path + "': switch " + std::to_string(sw.second) + " of group " +
                        std::to_string(sw.first) + " has " + std::to_string(p.size()) + " ports in use, " +
                        d.describe() + " has " + std::to_string(d.hosts_per_router()) + " hosts per router");
    }
    const int K = d.cores(), R = d.chassis() * d.blades();
    const Capacity cap = capacity_for(n, topo.size());
    std::map<int, int> used;  // host -> ranks placed
    std::vector<int> place(n);
    for (int r = 0; r < n; ++r) {
        const Entry &x = e[r];
        const auto &p = ports[{x.group, x.router}];
        const int slot = static_cast<int>(std::lower_bound(p.begin(), p.end(), x.port) - p.begin());
        const int host = (x.group * R + x.router) * d.hosts_per_router() + slot;
        const int k = used[host]++;
        if (k >= K * cap.hi)
            throw Error(where(path, x.line) + "host (group " + std::to_string(x.group) + ", switch " +
                        std::to_string(x.router) + ", port " + std::to_string(x.port) + ") holds more than " +
                        std::to_string(K * cap.hi) + " ranks");
        place[r] = host * K + k % K;
    }
    return place;
}

std::string coordinates_text(const Topology &topo, const std::vector<int> &place) {
    if (topo.kind() != TopologyKind::Dragonfly)
        throw Error("coordinates file: 'RANK: GROUP SWITCH PORT' lines need a dragonfly topology, not " +
                    topo.describe());
    const auto &d = static_cast<const DragonflyTopology &>(topo);
    std::ostringstream out;
    for (size_t r = 0; r < place.size(); ++r) {
        const int host = d.host(place[r]);
        out << r << ": " << d.group(place[r]) << ' ' << d.router(place[r]) << ' ' << host % d.hosts_per_router()
            << '\n';
    }
    return out.str();
}

} // namespace rankmap
