// Whole-file and line reading, and atomic writing. Errors come back as text that names the file; callers wrap
// it in their own error type (swe::Status, swe_status, the CLI's CliError).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace swe::util {

struct ByteSpan {
  const void* data;
  size_t size;
};

// Writes `parts` in order to path + ".tmp", then renames it over `path`, so that no reader ever sees a
// half-written file. On failure removes the temporary file, sets *error ("PATH: ...") and returns false.
bool WriteFileAtomically(const std::string& path, std::initializer_list<ByteSpan> parts, std::string* error);

// Reads the whole file into *out; false with *error ("PATH: ...") when it cannot.
bool ReadFile(const std::string& path, std::string* out, std::string* error);
bool ReadFile(const std::string& path, std::vector<uint8_t>* out, std::string* error);

// A regular file read with one read() into 8-byte-aligned memory that the caller keeps (*size bytes),
// for readers that use the bytes where they land (a model's raw payload): no second copy, no growing
// buffer. kNotRegular, with nothing read, for anything else (a pipe): read that with ReadFile.
enum class WordsRead { kDone, kFailed, kNotRegular };
WordsRead ReadRegularFileWords(const std::string& path, std::unique_ptr<uint64_t[]>* out, size_t* size,
                               std::string* error);

// The lines of a text file, each without its "\n" or "\r\n"; empty lines are kept, and a last line
// without an end counts. False with *error ("PATH: cannot open" or "PATH: read failed") when it cannot.
bool ReadLines(const std::string& path, std::vector<std::string>* lines, std::string* error);

}  // namespace swe::util
