// A one-line progress report with an ETA on stderr for long work (training stages, bulk encoding,
// reading large files), redrawn at most ten times a second, drawn only when stderr is a terminal
// (quiet when output goes to a file or a pipe) unless SetEnabled overrides that.
//   label [=========>          ]  45%  1234/5000 sentences  812/s  ETA 3m05s
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace swe::util {

class Progress {
 public:
  // `total` in `unit`s; 0 = unknown: no bar, percentage or ETA, only the count, rate and time.
  // The unit "bytes" is shown in MB.
  Progress(std::string label, uint64_t total, std::string unit = "");
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void Update(uint64_t done);
  void SetTotal(uint64_t total) { total_ = total; }
  // Draws the final state and ends the line (once; the destructor calls it too).
  void Finish();

  // Overrides the terminal check for every later Progress (tests and --quiet turn it off).
  static void SetEnabled(bool enabled);

 private:
  void Draw(bool final);
  std::string Amount(uint64_t n) const;

  std::string label_, unit_;
  uint64_t total_, done_ = 0;
  bool enabled_, finished_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

// "1h02m", "3m05s", "12s".
std::string FormatDuration(double seconds);

}  // namespace swe::util
