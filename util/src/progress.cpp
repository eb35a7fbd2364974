#include "swe/util/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace swe::util {
namespace {

int g_enabled = -1;  // -1: decide by isatty(stderr)

bool Enabled() {
  if (g_enabled < 0) g_enabled = isatty(STDERR_FILENO) == 1 ? 1 : 0;
  return g_enabled == 1;
}

}  // namespace

void Progress::SetEnabled(bool enabled) { g_enabled = enabled ? 1 : 0; }

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
    : label_(std::move(label)), unit_(std::move(unit)), total_(total), enabled_(Enabled()) {
  start_ = last_draw_ = std::chrono::steady_clock::now();
}

Progress::~Progress() { Finish(); }

void Progress::Update(uint64_t done) {
  done_ = done;
  if (!enabled_ || finished_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  Draw(false);
}

void Progress::Finish() {
  if (finished_) return;
  finished_ = true;
  if (enabled_) Draw(true);
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
  const double rate = elapsed > 0 ? static_cast<double>(done_) / elapsed : 0;
  const std::string unit = unit_ == "bytes" ? " MB" : unit_.empty() ? "" : " " + unit_;
  const std::string time = final ? "done in " + FormatDuration(elapsed) : FormatDuration(elapsed);
  if (total_ == 0) {
    std::fprintf(stderr, "\r%s  %s%s  %.0f/s  %s\x1b[K", label_.c_str(), Amount(done_).c_str(), unit.c_str(), rate,
                 time.c_str());
  } else {
    constexpr int kWidth = 30;
    const double fraction = std::min(1.0, static_cast<double>(done_) / static_cast<double>(total_));
    const int filled = static_cast<int>(fraction * kWidth);
    std::string bar(filled, '=');
    if (filled < kWidth) bar += '>';
    bar.resize(kWidth, ' ');
    const std::string eta = final || rate <= 0 ? time : "ETA " + FormatDuration((total_ - std::min(done_, total_)) / rate);
    std::fprintf(stderr, "\r%s [%s] %3d%%  %s/%s%s  %.0f/s  %s\x1b[K", label_.c_str(), bar.c_str(),
                 static_cast<int>(fraction * 100), Amount(done_).c_str(), Amount(total_).c_str(), unit.c_str(), rate,
                 eta.c_str());
  }
  if (final) std::fputc('\n', stderr);
  std::fflush(stderr);
}

}  // namespace swe::util
