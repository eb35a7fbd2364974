// Status: how core reports failure. Every fallible core function returns one; nothing in core throws
// across its API, aborts or prints.
#pragma once

#include <string>
#include <utility>

namespace swe {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument = 1,   // the caller passed something unusable (bad option, wrong size)
  kCorrupt = 2,           // bytes are not a valid .swe file (bad magic, checksum, structure)
  kUnsupported = 3,       // a valid file of a newer format version or unknown feature
  kTooLarge = 4,          // a declared size exceeds the reader's limits
  kIo = 5,                // reading or writing a file failed (native layer only)
  kNotFound = 6,          // e.g. an id that is not in an index
  kInternal = 7,          // a bug: please report
};

// Short stable name of a code ("corrupt", "io", ...).
const char* status_code_name(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "corrupt: checksum mismatch" style text for people.
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) { return Status(StatusCode::kInvalidArgument, std::move(m)); }
inline Status Corrupt(std::string m) { return Status(StatusCode::kCorrupt, std::move(m)); }
inline Status Unsupported(std::string m) { return Status(StatusCode::kUnsupported, std::move(m)); }
inline Status TooLarge(std::string m) { return Status(StatusCode::kTooLarge, std::move(m)); }
inline Status IoError(std::string m) { return Status(StatusCode::kIo, std::move(m)); }
inline Status NotFound(std::string m) { return Status(StatusCode::kNotFound, std::move(m)); }
inline Status Internal(std::string m) { return Status(StatusCode::kInternal, std::move(m)); }

}  // namespace swe

// Returns early from the enclosing function when `expr` is not ok.
#define SWE_RETURN_IF_ERROR(expr)            \
  do {                                       \
    ::swe::Status swe_status_ = (expr);      \
    if (!swe_status_.ok()) return swe_status_; \
  } while (0)
