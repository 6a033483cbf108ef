// mapfile.cpp -- BG/L-style mapfiles (see mapfile.hpp).
#include "topology/mapfile.hpp"

#include <fstream>
#include <set>
#include <sstream>

#include "common/error.hpp"
#include "common/text.hpp"
#include "topology/coordfile.hpp"
#include "topology/placement.hpp"

namespace rankmap {

namespace {

// The whole file, read once: the format is told from its first line, and
// the path may be a pipe that cannot be read twice.
std::string slurp(const std::string &path) {
    std::ifstream file(path);
    if (!file) throw Error("mapfile '" + path + "': cannot open", ErrorKind::Io);
    std::ostringstream all;
    all << file.rdbuf();
    return all.str();
}

} // namespace

std::vector<int> read_mapfile(const Topology &topo, const std::string &path, int ntasks) {
    const std::string text = slurp(path);
    std::istringstream in(text);
    if (is_coordinates_text(text)) return read_coordinates(topo, path, in, ntasks);
    const int nd = topo.ndims();
    std::vector<int> place;
    std::vector<int> count(topo.size(), 0);
    std::set<std::pair<int, int>> slots;
    std::vector<long> first_line(topo.size(), 0);
    // Capacity is only known once the task count is: with ntasks < 0 we
    // read everything first and check afterwards.
    std::string line;
    long lineno = 0;
    std::vector<int> slot_of;
    std::vector<long> line_of;
    while (std::getline(in, line)) {
        ++lineno;
        auto hash = line.find('#');
        if (hash != std::string::npos) line.resize(hash);
        auto f = split(line, " \t\r,");
        if (f.empty()) continue;
        if (static_cast<int>(f.size()) != nd && static_cast<int>(f.size()) != nd + 1)
            throw Error(where(path, lineno) + "expected " + std::to_string(nd) + " coordinates (" +
                        "optionally followed by a slot) for " + topo.describe() + ", found " +
                        std::to_string(f.size()) + " values");
        std::vector<int> c(nd);
        for (int k = 0; k < nd; ++k) {
            long long v;
            if (!parse_int(f[k], v)) throw Error(where(path, lineno) + "coordinate '" + f[k] + "' is not a whole number");
            if (v < 0 || v >= topo.dims()[k])
                throw Error(where(path, lineno) + "coordinate " + std::to_string(k) + " = " + f[k] +
                            " is outside 0.." + std::to_string(topo.dims()[k] - 1));
            c[k] = static_cast<int>(v);
        }
        int slot = -1;
        if (static_cast<int>(f.size()) == nd + 1) {
            long long v;
            if (!parse_int(f[nd], v) || v < 0) throw Error(where(path, lineno) + "slot '" + f[nd] + "' is not a whole number >= 0");
            slot = static_cast<int>(v);
        }
        if (ntasks >= 0 && static_cast<int>(place.size()) >= ntasks)
            throw Error(where(path, lineno) + "more lines than the " + std::to_string(ntasks) + " tasks");
        int node = topo.node_at(c.data());
        if (slot >= 0 && !slots.insert({node, slot}).second)
            throw Error(where(path, lineno) + "node and slot already used at line " + std::to_string(first_line[node]));
        if (count[node] == 0) first_line[node] = lineno;
        count[node]++;
        place.push_back(node);
        slot_of.push_back(slot);
        line_of.push_back(lineno);
    }
    const int n = static_cast<int>(place.size());
    if (ntasks >= 0 && n < ntasks)
        throw Error("mapfile '" + path + "': " + std::to_string(n) + " lines for " + std::to_string(ntasks) + " tasks");
    if (n == 0) throw Error("mapfile '" + path + "': no coordinates");
    Capacity cap = capacity_for(n, topo.size());
    std::vector<int> seen(topo.size(), 0);
    for (int r = 0; r < n; ++r) {
        int node = place[r];
        if (++seen[node] > cap.hi) {
            std::ostringstream msg;
            msg << where(path, line_of[r]);
            if (cap.hi == 1) msg << "duplicate coordinate: node already used at line " << first_line[node];
            else msg << "node holds more than " << cap.hi << " tasks (first used at line " << first_line[node] << ")";
            throw Error(msg.str());
        }
        if (slot_of[r] >= cap.hi && !(cap.hi == 1 && slot_of[r] == 0))
            throw Error(where(path, line_of[r]) + "slot " + std::to_string(slot_of[r]) + " is outside 0.." +
                        std::to_string(cap.hi - 1));
    }
    return place;
}

std::string mapfile_text(const Topology &topo, const std::vector<int> &place) {
    const int nd = topo.ndims();
    Capacity cap = capacity_for(static_cast<int>(place.size()), topo.size());
    std::vector<int> used(topo.size(), 0);
    std::vector<int> c(nd);
    std::ostringstream out;
    for (int node : place) {
        topo.coords(node, c.data());
        for (int k = 0; k < nd; ++k) out << (k ? " " : "") << c[k];
        int slot = used[node]++;
        if (cap.hi > 1) out << " " << slot;
        out << "\n";
    }
    return out.str();
}

void write_mapfile(const Topology &topo, const std::string &path, const std::vector<int> &place) {
    std::ofstream out(path);
    if (!out) throw Error("mapfile '" + path + "': cannot open for writing", ErrorKind::Io);
    out << mapfile_text(topo, place);
    if (!out) throw Error("mapfile '" + path + "': write failed", ErrorKind::Io);
}

} // namespace rankmap
