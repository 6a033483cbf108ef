// coordfile.hpp -- MPICH's network coordinates file (MPIR_CVAR_COORDINATES_FILE
// of MPICH's topology-aware collectives): one line per rank,
//   RANK: GROUP SWITCH PORT
// '#' starts a comment; blank lines are skipped.  On a dragonfly topology
// the group is the dragonfly group, the switch the router's index inside it
// (chassis * blades + blade), and the ports of one switch, in ascending
// order, its hosts; ranks with the same (group, switch, port) share a host,
// its cores taken in rank order.
#pragma once
#include <istream>
#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace rankmap {

// True when the first line of text that is not blank or a comment has "RANK:".
bool is_coordinates_text(const std::string &text);
// Node of every rank (ntasks < 0: as many as the file has).  Errors name
// the file and line: a malformed line, a rank given twice or missing, a
// group or switch outside the dragonfly, more ports on a switch than hosts
// per router, more ranks on a host than it holds; a topology that is not a
// dragonfly.
// The lines are read from in; path names the source in errors.
std::vector<int> read_coordinates(const Topology &topo, const std::string &path, std::istream &in, int ntasks);
// "r: group switch port", the port being the host's index on its router.
std::string coordinates_text(const Topology &topo, const std::vector<int> &place);

} // namespace rankmap
