#include "chunked_file.h"
#include "swe/formats/readers.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>


namespace swe::formats {
namespace {

uint64_t FileSize(std::FILE* f) {
  struct stat st;
  return fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) ? static_cast<uint64_t>(st.st_size) : 0;
}

std::FILE* Open(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw FormatError(path + ": " + std::strerror(errno));
  return f;
}

}  // namespace

ChunkedFile::ChunkedFile(const std::string& path, const std::string& label)
    : path_(path),
      file_(Open(path)),
      buffer_(1 << 20),
      progress_(label, FileSize(file_), "bytes") {}

ChunkedFile::~ChunkedFile() { std::fclose(file_); }

bool ChunkedFile::Refill() {
  consumed_ += len_;
  pos_ = len_ = 0;
  len_ = std::fread(buffer_.data(), 1, buffer_.size(), file_);
  if (len_ == 0 && std::ferror(file_)) throw FormatError(path_ + ": read failed: " + std::strerror(errno));
  progress_.Update(consumed_ + len_);
  return len_ > 0;
}

bool ChunkedFile::ReadLine(std::string* line) {
  line->clear();
  if (AtEnd()) return false;
  while (!AtEnd()) {
    const char* start = buffer_.data() + pos_;
    const void* newline = std::memchr(start, '\n', len_ - pos_);
    if (newline) {
      size_t n = static_cast<const char*>(newline) - start;
      line->append(start, n);
      pos_ += n + 1;
      break;
    }
    line->append(start, len_ - pos_);
    pos_ = len_;
  }
  if (!line->empty() && line->back() == '\r') line->pop_back();
  return true;
}

}  // namespace swe::formats
