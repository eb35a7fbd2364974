#include "progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace swe::trainer {
namespace {
int g_enabled = -1;  // -1: decide by isatty(stderr)

bool Enabled() {
  if (g_enabled < 0) g_enabled = isatty(STDERR_FILENO) ? 1 : 0;
  return g_enabled == 1;
}
}  // namespace

void Progress::SetEnabled(bool enabled) { g_enabled = enabled ? 1 : 0; }

std::string FormatDuration(double seconds) {
  if (!(seconds >= 0)) seconds = 0;
  auto s = static_cast<uint64_t>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%lluh%02llum", static_cast<unsigned long long>(s / 3600),
                  static_cast<unsigned long long>((s % 3600) / 60));
  } else if (s >= 60) {
    std::snprintf(buf, sizeof buf, "%llum%02llus", static_cast<unsigned long long>(s / 60),
                  static_cast<unsigned long long>(s % 60));
  } else {
    std::snprintf(buf, sizeof buf, "%llus", static_cast<unsigned long long>(s));
  }
  return buf;
}

Progress::Progress(std::string stage, uint64_t total, std::string unit)
    : stage_(std::move(stage)), unit_(std::move(unit)), total_(total), active_(Enabled()) {
  start_ = last_draw_ = std::chrono::steady_clock::now();
}

Progress::~Progress() { Finish(); }

void Progress::Update(uint64_t done) {
  done_ = done;
  if (!active_) return;
  auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(250)) return;
  last_draw_ = now;
  Draw(false);
}

void Progress::Finish() {
  if (finished_) return;
  finished_ = true;
  if (active_) Draw(true);
}

void Progress::Draw(bool final) {
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  double rate = elapsed > 0 ? static_cast<double>(done_) / elapsed : 0;
  char line[256];
  if (total_ > 0) {
    double frac = static_cast<double>(done_) / static_cast<double>(total_);
    if (frac > 1) frac = 1;
    std::string eta = final ? "done in " + FormatDuration(elapsed)
                            : "ETA " + (rate > 0 ? FormatDuration((total_ - std::min(done_, total_)) / rate) : "?");
    std::snprintf(line, sizeof line, "\r%-8s %5.1f%%  %llu/%llu %s  %.0f/s  %s\x1b[K", stage_.c_str(), 100 * frac,
                  static_cast<unsigned long long>(done_), static_cast<unsigned long long>(total_), unit_.c_str(),
                  rate, eta.c_str());
  } else {
    std::snprintf(line, sizeof line, "\r%-8s %llu %s  %.0f/s  %s\x1b[K", stage_.c_str(),
                  static_cast<unsigned long long>(done_), unit_.c_str(), rate,
                  (final ? "done in " + FormatDuration(elapsed) : FormatDuration(elapsed)).c_str());
  }
  std::fputs(line, stderr);
  if (final) std::fputc('\n', stderr);
  std::fflush(stderr);
}

}  // namespace swe::trainer
