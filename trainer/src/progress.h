// Progress with an ETA for long stages: one line on stderr, redrawn at most a few times a second,
// only when stderr is a terminal (quiet otherwise, and when disabled with Progress::SetEnabled).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace swe::trainer {

class Progress {
 public:
  // `total` in `unit`s (0 = unknown: no percentage or ETA, only the count and rate).
  Progress(std::string stage, uint64_t total, std::string unit = "items");
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void Update(uint64_t done);
  void SetTotal(uint64_t total) { total_ = total; }
  // Draws the final state and ends the line (called by the destructor if not called before).
  void Finish();

  // Overrides the terminal check (tests and --quiet turn it off; --progress forces it on).
  static void SetEnabled(bool enabled);

 private:
  void Draw(bool final);
  std::string stage_, unit_;
  uint64_t total_ = 0, done_ = 0;
  bool active_ = false, finished_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

// "1h02m", "3m05s", "12s".
std::string FormatDuration(double seconds);

}  // namespace swe::trainer
