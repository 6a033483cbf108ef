// fuzz_common.hpp -- helpers shared by the libFuzzer targets of test/profile/fuzz.
// The readers under test take a path, so each input is written to one
// scratch file per process (under $TMPDIR, default /tmp) and read back.
// A target fails only by crashing, hanging or tripping a sanitizer: a
// rankmap::Error is the expected answer to malformed input.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace fuzz {

inline const std::string &scratch_path() {
    static const std::string p = [] {
        const char *d = std::getenv("TMPDIR");
        return std::string(d && *d ? d : "/tmp") + "/rankmap-fuzz-" + std::to_string(getpid()) + ".in";
    }();
    return p;
}

inline const std::string &write_scratch(const uint8_t *data, size_t size) {
    const std::string &p = scratch_path();
    std::FILE *f = std::fopen(p.c_str(), "wb");
    if (!f) std::abort();
    if (size && std::fwrite(data, 1, size, f) != size) std::abort();
    std::fclose(f);
    return p;
}

// Every exception a reader may throw on bad input is a rankmap::Error; any
// other exception type escaping is a bug (e.g. std::out_of_range from a
// stray .at() or std::stoll), so the targets let it through to abort.
} // namespace fuzz
