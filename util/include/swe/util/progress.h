// A one-line progress report with an ETA on stderr for long work (training stages, bulk encoding,
// reading large files). On a terminal it is a bar redrawn at most ten times a second:
//   label [=========>          ]  45%  1234/5000 sentences  812/s  ETA 3m05s
// Elsewhere (a file, a pipe, CI) it is quiet, unless a program asks for lines (SetLinesWhenNotTerminal):
// then one plain line at least every 30 s and one when done, so a log shows the work moving.
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
  // `work_done` (0..1): the fraction of the work done when `done` units are not equal work (e.g.
  // sentences processed shortest first): the bar and the ETA follow it, the count shows `done`.
  void Update(uint64_t done, double work_done);
  void SetTotal(uint64_t total) { total_ = total; }
  // What was done before this Progress began (a run resumed from a checkpoint): `done` units, and
  // `work_done` (as in Update; < 0: done / total). The rate and the ETA count only the work since.
  void SetStart(uint64_t done, double work_done = -1);
  // Draws the final state and ends the line (once; the destructor calls it too).
  void Finish();

  // Overrides the terminal check for every later Progress (tests and --quiet turn it off).
  static void SetEnabled(bool enabled);
  // Where stderr is not a terminal, write a line every `seconds` (and when done) instead of nothing.
  static void SetLinesWhenNotTerminal(bool lines, double seconds = 30);
  // Clears a bar drawn on the terminal, so that a log line written next starts on a clean line (the
  // bar is drawn again at the next update).
  static void ClearBar();

 private:
  void Draw(bool final);
  std::string Amount(uint64_t n) const;

  std::string label_, unit_;
  uint64_t total_, done_ = 0;
  double work_ = -1;  // < 0: done_ / total_
  uint64_t start_done_ = 0;
  double start_work_ = -1;  // < 0: start_done_ / total_
  int mode_;          // 0 off, 1 bar, 2 lines
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

// "1h02m", "3m05s", "12s".
std::string FormatDuration(double seconds);

}  // namespace swe::util
