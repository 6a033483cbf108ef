// fixtures.hpp -- locate test/fixtures (CTest sets RANKMAP_FIXTURES).
#pragma once
#include <cstdlib>
#include <string>

inline std::string fixture(const std::string &name) {
    const char *dir = std::getenv("RANKMAP_FIXTURES");
    return std::string(dir ? dir : "test/fixtures") + "/" + name;
}
