// fuzz_common.hpp -- helpers shared by the libFuzzer targets of test/profile/fuzz.
// The readers under test take a path, so each input is written to one
// scratch file per process (under $TMPDIR, default /tmp) and read back.
// A target fails only by crashing, hanging or tripping a sanitizer: a
// rankmap::Error is the expected answer to malformed input.
#pragma once
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace fuzz {

inline const std::string &scratch_path() {
    static const std::string p = [] {
        const char *d = std::getenv("TMPDIR");
        return std::string(d && *d ? d : "/tmp") + "/rankmap-fuzz-" + std::to_string(getpid()) + ".in";
    }();
    return p;
}

// The harness cannot write its scratch file: an environment failure (the
// directory removed, the file system full), not a parser finding; said with
// the reason before aborting so the log tells the two apart.
[[noreturn]] inline void cannot_write(const std::string &path) {
    std::fprintf(stderr, "fuzz harness: cannot write %s: %s (environment, not a finding)\n", path.c_str(),
                 std::strerror(errno));
    std::abort();
}

inline const std::string &write_scratch(const uint8_t *data, size_t size) {
    const std::string &p = scratch_path();
    std::FILE *f = std::fopen(p.c_str(), "wb");
    if (!f) cannot_write(p);
    if (size && std::fwrite(data, 1, size, f) != size) std::abort();
    std::fclose(f);
    return p;
}

// Every exception a reader may throw on bad input is a rankmap::Error; any
// other exception type escaping is a bug (e.g. std::out_of_range from a
// stray .at() or std::stoll), so the targets let it through to abort.
} // namespace fuzz
