// fuzz_graph.cpp -- libFuzzer target for the communication-graph readers
// (src/graph/readers.cpp): edge list, METIS .graph and dense matrix.
// Byte 0 chooses the format; the rest is the file.  An accepted graph must
// have finite non-negative weights and neighbours inside [0, n).
#include <cmath>
#include <cstdlib>
#include <string>

#include "common/error.hpp"
#include "fuzz_common.hpp"
#include "graph/graph.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    static const char *formats[] = {"edges", "metis", "matrix"};
    const char *fmt = formats[data[0] % 3];
    const std::string &path = fuzz::write_scratch(data + 1, size - 1);
    try {
        rankmap::Graph g = rankmap::read_graph(path, fmt);
        if (g.n() < 1) std::abort();
        for (int v = 0; v < g.n(); ++v)
            for (int64_t e = g.begin(v); e < g.end(v); ++e) {
                if (g.target(e) < 0 || g.target(e) >= g.n() || g.target(e) == v) std::abort();
                if (!(g.weight(e) >= 0) || !std::isfinite(g.weight(e))) std::abort();
            }
    } catch (const rankmap::Error &) {
    }
    return 0;
}
