#include "swe/util/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace swe::util {
namespace {

int g_enabled = -1;       // -1: decide by isatty(stderr)
bool g_lines = false;      // not a terminal: lines every g_line_seconds
double g_line_seconds = 30;
bool g_bar_drawn = false;  // a bar is on the terminal's current line

int Mode() {
  if (g_enabled < 0) g_enabled = isatty(STDERR_FILENO) == 1 ? 1 : 0;
  if (g_enabled == 1) return 1;
  return g_lines && isatty(STDERR_FILENO) != 1 ? 2 : 0;
}

}  // namespace

void Progress::SetEnabled(bool enabled) {
  g_enabled = enabled ? 1 : 0;
  if (!enabled) g_lines = false;
}

void Progress::SetLinesWhenNotTerminal(bool lines, double seconds) {
  g_lines = lines;
  g_line_seconds = seconds;
}

void Progress::ClearBar() {
  if (!g_bar_drawn) return;
  std::fputs("\r\x1b[K", stderr);
  g_bar_drawn = false;
}

std::string FormatDuration(double seconds) {
  if (!(seconds >= 0)) seconds = 0;
  const auto s = static_cast<unsigned long long>(seconds + 0.5);
  char text[32];
  if (s >= 3600) {
    std::snprintf(text, sizeof text, "%lluh%02llum", s / 3600, s % 3600 / 60);
  } else if (s >= 60) {
    std::snprintf(text, sizeof text, "%llum%02llus", s / 60, s % 60);
  } else {
    std::snprintf(text, sizeof text, "%llus", s);
  }
  return text;
}

Progress::Progress(std::string label, uint64_t total, std::string unit)
    : label_(std::move(label)), unit_(std::move(unit)), total_(total), mode_(Mode()) {
  start_ = last_draw_ = std::chrono::steady_clock::now();
}

Progress::~Progress() { Finish(); }

void Progress::SetStart(uint64_t done, double work_done) {
  start_done_ = done_ = done;
  start_work_ = work_ = work_done;
}

void Progress::Update(uint64_t done) { Update(done, -1); }

void Progress::Update(uint64_t done, double work_done) {
  done_ = done;
  work_ = work_done;
  if (mode_ == 0 || finished_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < (mode_ == 1 ? std::chrono::duration<double>(0.1) : std::chrono::duration<double>(g_line_seconds))) {
    return;
  }
  last_draw_ = now;
  Draw(false);
}

void Progress::Finish() {
  if (finished_) return;
  finished_ = true;
  if (mode_ != 0) Draw(true);
}

std::string Progress::Amount(uint64_t n) const {
  char text[32];
  if (unit_ == "bytes") {
    std::snprintf(text, sizeof text, "%.1f", n / 1e6);
  } else {
    std::snprintf(text, sizeof text, "%llu", static_cast<unsigned long long>(n));
  }
  return text;
}

void Progress::Draw(bool final) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(done_ - std::min(done_, start_done_)) / elapsed : 0;
  const std::string unit = unit_ == "bytes" ? " MB" : unit_.empty() ? "" : " " + unit_;
  const std::string time = final ? "done in " + FormatDuration(elapsed) : FormatDuration(elapsed);
  const char* start = mode_ == 1 ? "\r" : "";
  const char* end = mode_ == 1 ? "\x1b[K" : "\n";
  if (total_ == 0) {
    std::fprintf(stderr, "%s%s  %s%s  %.0f/s  %s%s", start, label_.c_str(), Amount(done_).c_str(), unit.c_str(), rate,
                 time.c_str(), end);
  } else {
    constexpr int kWidth = 30;
    auto share = [this](uint64_t done, double work) {
      return work >= 0 ? std::min(1.0, work) : std::min(1.0, static_cast<double>(done) / static_cast<double>(total_));
    };
    const double fraction = share(done_, work_), since = fraction - share(start_done_, start_work_);
    // The ETA: the time so far scaled by the work left (not by the units left), both since the start.
    const std::string eta = final || since <= 0 ? time : "ETA " + FormatDuration(elapsed * (1 - fraction) / since);
    std::string bar;
    if (mode_ == 1) {
      const int filled = static_cast<int>(fraction * kWidth);
      bar.assign(filled, '=');
      if (filled < kWidth) bar += '>';
      bar.resize(kWidth, ' ');
      bar = " [" + bar + "]";
    } else {
      bar = ":";
    }
    std::fprintf(stderr, "%s%s%s %3d%%  %s/%s%s  %.0f/s  %s%s", start, label_.c_str(), bar.c_str(),
                 static_cast<int>(fraction * 100), Amount(done_).c_str(), Amount(total_).c_str(), unit.c_str(), rate,
                 eta.c_str(), end);
  }
  if (mode_ == 1) {
    g_bar_drawn = !final;
    if (final) std::fputc('\n', stderr);
  }
  std::fflush(stderr);
}

}  // namespace swe::util
