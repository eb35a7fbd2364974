// Reads a file or stdin line by line, holding one buffer and the current line: input of any size in
// bounded memory, and answers to interactive input as each line arrives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace swe::cli {

// The longest line (a text, a JSON document) a reader takes: past it, Next throws CliError
// "NAME:LINE: line longer than 64 MiB" instead of buffering on (an endless line: /dev/zero).
constexpr size_t kMaxLineBytes = size_t{64} << 20;

class LineReader {
 public:
  // `path` "-" is stdin. Throws CliError naming the path when it cannot be opened.
  explicit LineReader(const std::string& path);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line without its end ("\n" or "\r\n"); false at the end of the input. Throws CliError
  // naming the line past kMaxLineBytes.
  bool Next(std::string* line);
  // True when Next would not wait: a whole line is buffered, the input has ended, or bytes are ready.
  bool Ready();

 private:
  bool Fill();  // reads once more; false at the end of the input
  [[noreturn]] void LineTooLong() const;

  std::string name_;
  int fd_ = -1;
  bool eof_ = false;
  std::vector<char> buffer_;
  size_t begin_ = 0, end_ = 0;  // unread bytes
  size_t lines_ = 0;            // lines returned so far
};

// The lines of a regular file counted without keeping them; -1 for stdin, pipes and terminals.
int64_t CountLines(const std::string& path);

}  // namespace swe::cli
