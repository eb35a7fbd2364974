// Buffered reading of a large input file with a progress bar over its bytes, plus an input iterator
// over its characters (what nlohmann::json::sax_parse takes to parse a stream).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include "swe/util/progress.h"

namespace swe::formats {

class ChunkedFile {
 public:
  // Opens `path` (throws FormatError); `label` names the progress bar.
  ChunkedFile(const std::string& path, const std::string& label);
  ~ChunkedFile();
  ChunkedFile(const ChunkedFile&) = delete;
  ChunkedFile& operator=(const ChunkedFile&) = delete;

  bool AtEnd() { return pos_ == len_ && !Refill(); }
  char Peek() const { return buffer_[pos_]; }
  void Advance() { ++pos_; }
  // Reads the next line without its "\n" / "\r\n"; false at the end of the file.
  bool ReadLine(std::string* line);
  // Ends the progress bar.
  void Finish() { progress_.Finish(); }

  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;

    Iterator() = default;  // the end
    explicit Iterator(ChunkedFile* file) : file_(file) {}
    reference operator*() const { return file_->buffer_[file_->pos_]; }
    Iterator& operator++() {
      file_->Advance();
      return *this;
    }
    bool operator==(const Iterator& other) const { return AtEnd() == other.AtEnd(); }
    bool operator!=(const Iterator& other) const { return !(*this == other); }

   private:
    bool AtEnd() const { return file_ == nullptr || file_->AtEnd(); }
    ChunkedFile* file_ = nullptr;
  };
  Iterator begin() { return Iterator(this); }
  Iterator end() { return Iterator(); }

 private:
  bool Refill();

  std::string path_;
  std::FILE* file_ = nullptr;
  std::vector<char> buffer_;
  size_t pos_ = 0, len_ = 0;
  uint64_t consumed_ = 0;
  util::Progress progress_;
};

}  // namespace swe::formats
