// error.hpp -- the engine's one exception type.  Engine code throws
// rankmap::Error with a message that names the setting, file or line at
// fault; the C API (src/capi) turns it into a status code and never lets it
// escape.  The engine never calls exit().
#pragma once
#include <stdexcept>
#include <string>

namespace rankmap {

enum class ErrorKind { Invalid, Io, TooSmall, Timeout, Internal };

class Error : public std::runtime_error {
public:
    explicit Error(const std::string &msg, ErrorKind kind = ErrorKind::Invalid)
        : std::runtime_error(msg), kind_(kind) {}
    ErrorKind kind() const { return kind_; }

private:
    ErrorKind kind_;
};

} // namespace rankmap
