// A one-line progress bar with an ETA on stderr, drawn only when stderr is a terminal (quiet when
// output goes to a file or a pipe), redrawn at most ten times a second.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace swe::util {

class Progress {
 public:
  // `total` items (or bytes when `bytes` is true, shown in MB).
  Progress(std::string label, uint64_t total, bool bytes = false);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void Update(uint64_t done);
  // Draws the final state and ends the line (once; the destructor calls it too).
  void Finish();

 private:
  void Draw(bool final);
  std::string Amount(uint64_t n) const;

  std::string label_;
  uint64_t total_, done_ = 0;
  bool bytes_, enabled_, finished_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace swe::util
