#include "line_reader.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common.h"

namespace swe::cli {

LineReader::LineReader(const std::string& path)
    : name_(path == "-" ? "stdin" : path), fd_(path == "-" ? STDIN_FILENO : open(path.c_str(), O_RDONLY)),
      buffer_(1 << 16) {
  if (fd_ < 0) throw CliError(1, path + ": " + std::strerror(errno));
}

LineReader::~LineReader() {
  if (fd_ > STDIN_FILENO) close(fd_);
}

void LineReader::LineTooLong() const {
  throw CliError(1, name_ + ":" + std::to_string(lines_ + 1) + ": line longer than " +
                        std::to_string(kMaxLineBytes >> 20) + " MiB");
}

bool LineReader::Fill() {
  if (begin_ > 0) {  // keep the partial line at the front
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) {  // a line longer than the buffer
    if (end_ > kMaxLineBytes) LineTooLong();
    buffer_.resize(buffer_.size() * 2);
  }
  ssize_t n;
  do {
    n = read(fd_, buffer_.data() + end_, buffer_.size() - end_);
  } while (n < 0 && errno == EINTR);
  if (n < 0) throw CliError(1, name_ + ": read failed: " + std::strerror(errno));
  end_ += static_cast<size_t>(n);
  eof_ = n == 0;
  return !eof_;
}

bool LineReader::Next(std::string* line) {
  for (;;) {
    const char* first = buffer_.data() + begin_;
    const char* newline = static_cast<const char*>(std::memchr(first, '\n', end_ - begin_));
    if (newline || (eof_ && begin_ < end_)) {
      const char* last = newline ? newline : buffer_.data() + end_;
      line->assign(first, last);
      if (!line->empty() && line->back() == '\r') line->pop_back();
      begin_ = newline ? static_cast<size_t>(newline - buffer_.data()) + 1 : end_;
      if (line->size() > kMaxLineBytes) LineTooLong();
      ++lines_;
      return true;
    }
    if (eof_ || !Fill()) {
      if (begin_ == end_) return false;
    }
  }
}

bool LineReader::Ready() {
  if (eof_ || std::memchr(buffer_.data() + begin_, '\n', end_ - begin_)) return true;
  pollfd p{fd_, POLLIN, 0};
  return poll(&p, 1, 0) > 0;
}

int64_t CountLines(const std::string& path) {
  struct stat st;
  if (path == "-" || stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return -1;
  LineReader reader(path);
  std::string line;
  int64_t n = 0;
  while (reader.Next(&line)) ++n;
  return n;
}

}  // namespace swe::cli
