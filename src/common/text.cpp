// text.cpp -- strict parsing helpers (see text.hpp).
#include "common/text.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace rankmap {

std::vector<std::string> split(const std::string &s, const char *seps) {
    std::vector<std::string> out;
    std::string cur;
    for (char ch : s) {
        if (std::strchr(seps, ch) != nullptr) {
            if (!cur.empty()) out.push_back(cur);
            cur.clear();
        } else {
            cur.push_back(ch);
        }
    }
    if (!cur.empty()) out.push_back(cur);
    return out;
}

std::string trim(const std::string &s) {
    size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return "";
    size_t e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

bool parse_int(const std::string &s, long long &out) {
    if (s.empty()) return false;
    errno = 0;
    char *end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (errno != 0 || end == s.c_str() || *end != '\0') return false;
    out = v;
    return true;
}

bool parse_double(const std::string &s, double &out) {
    if (s.empty()) return false;
    errno = 0;
    char *end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (errno != 0 || end == s.c_str() || *end != '\0' || !std::isfinite(v)) return false;
    out = v;
    return true;
}

std::string where(const std::string &path, long line) {
    return path + ":" + std::to_string(line) + ": ";
}

} // namespace rankmap
