// text.hpp -- strict number parsing and splitting shared by every reader
// (graphs, topologies, mapfiles), so each error names what was wrong.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace rankmap {

// Split on any of `seps`, dropping empty fields.
std::vector<std::string> split(const std::string &s, const char *seps);
std::string trim(const std::string &s);

// Parse the whole string as an integer / finite double; false on garbage,
// overflow or trailing characters.
bool parse_int(const std::string &s, long long &out);
bool parse_double(const std::string &s, double &out);

// "file:line: " prefix for messages.
std::string where(const std::string &path, long line);

} // namespace rankmap
