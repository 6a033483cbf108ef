// bench/placements.hpp -- --placements DIR of bench/mapping and bench/scale:
// every placement a run computes goes to DIR/<size>-<workload>-<mapper>.map,
// one line per task holding its node, so two builds can be compared file by
// file (bench/results/placements-md5.md).
#pragma once
#include <sys/stat.h>

#include <cstdio>
#include <string>
#include <vector>

namespace rankmap_bench {

// Writes `place` to DIR/NAME.map (DIR is created when missing); false, with
// a message on stderr, when the file cannot be written.
inline bool write_placement(const std::string &dir, const std::string &name, const std::vector<int> &place) {
    mkdir(dir.c_str(), 0755);
    const std::string path = dir + "/" + name + ".map";
    FILE *f = std::fopen(path.c_str(), "w");
    if (!f) {
        std::fprintf(stderr, "cannot write %s\n", path.c_str());
        return false;
    }
    for (int v : place) std::fprintf(f, "%d\n", v);
    return std::fclose(f) == 0;
}

} // namespace rankmap_bench
