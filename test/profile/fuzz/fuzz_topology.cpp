// fuzz_topology.cpp -- libFuzzer target for the topology string parser
// (src/topology/parse.cpp) and the file: distance-matrix reader.
// Input byte 0 chooses: even = the rest is a topology string; odd = the rest
// is the content of a file: distance matrix.  A string that parses must
// describe() to a string that parses again to the same description.
#include <cstdlib>
#include <string>

#include "common/error.hpp"
#include "fuzz_common.hpp"
#include "topology/topology.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    const bool as_file = data[0] & 1;
    std::string spec;
    if (as_file) {
        spec = "file:" + fuzz::write_scratch(data + 1, size - 1);
    } else {
        spec.assign(reinterpret_cast<const char *>(data + 1), size - 1);
        // file: would open whatever path the fuzzer invents (/dev/zero...);
        // the matrix reader is reached through the odd branch instead.
        if (spec.find("file") != std::string::npos) return 0;
        // Machines of up to 16,777,216 nodes are legal and take seconds to
        // build under ASan (a coordinate table per node); the fuzzer is
        // after parser bugs, so it stays below 2^16 nodes (the
        // fuzzer's -timeout is wall clock, and the test machine is shared).
        double nodes = 1;
        auto colon = spec.find(':');
        std::string dims = colon == std::string::npos ? "" : spec.substr(colon + 1, spec.find(':', colon + 1) - colon - 1);
        for (size_t i = 0; i < dims.size();) {
            size_t j = i;
            while (j < dims.size() && dims[j] >= '0' && dims[j] <= '9') ++j;
            if (j > i) nodes *= std::atof(dims.substr(i, j - i).c_str());
            i = j + 1;
        }
        if (nodes > (1 << 16)) return 0;
    }
    try {
        auto t = rankmap::parse_topology(spec);
        if (t->size() < 1) std::abort();
        std::string d = t->describe();
        if (!as_file) {
            auto again = rankmap::parse_topology(d);
            if (again->describe() != d || again->size() != t->size()) std::abort();
        }
        // Coordinates of the last node map back to it.
        std::vector<int> c(t->ndims());
        t->coords(t->size() - 1, c.data());
        if (t->node_at(c.data()) != t->size() - 1) std::abort();
        if (t->distance(0, t->size() - 1) < 0) std::abort();
    } catch (const rankmap::Error &) {
    }
    return 0;
}
