// fuzz_mapfile.cpp -- libFuzzer target for the BG/L mapfile reader
// (src/topology/mapfile.cpp).  Byte 0 chooses the machine and the task count
// the reader is asked for; the rest is the file.  An accepted mapfile must
// be a valid placement and must survive a write/read round trip.
#include <cstdlib>
#include <string>

#include "common/error.hpp"
#include "cost/cost.hpp"
#include "fuzz_common.hpp"
#include "topology/mapfile.hpp"
#include "topology/topology.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    static const char *machines[] = {"torus:4x4x4", "torus:2x2", "mesh:3x2:slots=2", "tree:2x2x2",
                                     "torus:2x2x2x2:local=0.5", "torus:4:slots=3", "torus:8x8x8", "mesh:5"};
    static const int counts[] = {-1, 1, 4, 8, 64, 3, 12, 512};
    const int m = data[0] & 7, c = (data[0] >> 3) & 7;
    static std::unique_ptr<rankmap::Topology> topos[8];
    if (!topos[m]) topos[m] = rankmap::parse_topology(machines[m]);
    const rankmap::Topology &t = *topos[m];
    const std::string &path = fuzz::write_scratch(data + 1, size - 1);
    try {
        auto place = rankmap::read_mapfile(t, path, counts[c]);
        if (counts[c] >= 0 && static_cast<int>(place.size()) != counts[c]) std::abort();
        rankmap::check_placement(t, static_cast<int>(place.size()), place);
        std::string text = rankmap::mapfile_text(t, place);
        const std::string &p2 = fuzz::write_scratch(reinterpret_cast<const uint8_t *>(text.data()), text.size());
        if (rankmap::read_mapfile(t, p2, static_cast<int>(place.size())) != place) std::abort();
    } catch (const rankmap::Error &) {
    }
    return 0;
}
