// mapfile.hpp -- BG/L-style mapfiles: line r holds the coordinates of rank
// r's node ("x y z"), optionally followed by the slot on the node ("t").
// '#' starts a comment; blank lines are skipped.
#pragma once
#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace rankmap {

// Reads `ntasks` lines (ntasks < 0: as many as the file has).  A file of
// "RANK: GROUP SWITCH PORT" lines is MPICH's coordinates file
// (topology/coordfile.hpp) and read as such.  Errors name
// the file and line: wrong number of coordinates, out of range, a slot used
// twice, a node over capacity, too few or too many lines.
std::vector<int> read_mapfile(const Topology &topo, const std::string &path, int ntasks);
// Writes coordinates and, when nodes hold more than one task, the slot.
void write_mapfile(const Topology &topo, const std::string &path, const std::vector<int> &place);
std::string mapfile_text(const Topology &topo, const std::vector<int> &place);

} // namespace rankmap
