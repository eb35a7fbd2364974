#include "swe/util/progress.h"

#include <unistd.h>

#include <cstdio>

namespace swe::util {
namespace {

std::string Duration(double seconds) {
  if (seconds < 0) seconds = 0;
  auto s = static_cast<uint64_t>(seconds + 0.5);
  char text[32];
  if (s >= 3600) {
    std::snprintf(text, sizeof text, "%llu:%02llu:%02llu", static_cast<unsigned long long>(s / 3600),
                  static_cast<unsigned long long>(s / 60 % 60), static_cast<unsigned long long>(s % 60));
  } else {
    std::snprintf(text, sizeof text, "%llu:%02llu", static_cast<unsigned long long>(s / 60),
                  static_cast<unsigned long long>(s % 60));
  }
  return text;
}

}  // namespace

Progress::Progress(std::string label, uint64_t total, bool bytes)
    : label_(std::move(label)), total_(total), bytes_(bytes), enabled_(isatty(STDERR_FILENO) == 1) {
  start_ = last_draw_ = std::chrono::steady_clock::now();
}

Progress::~Progress() { Finish(); }

void Progress::Update(uint64_t done) {
  done_ = done;
  if (!enabled_ || finished_) return;
  auto now = std::chrono::steady_clock::now();
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
  if (bytes_) {
    std::snprintf(text, sizeof text, "%.1f MB", n / 1e6);
  } else {
    std::snprintf(text, sizeof text, "%llu", static_cast<unsigned long long>(n));
  }
  return text;
}

void Progress::Draw(bool final) {
  constexpr int kWidth = 30;
  double fraction = total_ == 0 ? 1.0 : static_cast<double>(done_) / static_cast<double>(total_);
  if (fraction > 1) fraction = 1;
  int filled = static_cast<int>(fraction * kWidth);
  std::string bar(filled, '=');
  if (filled < kWidth) bar += '>';
  bar.resize(kWidth, ' ');
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string timing = final || fraction <= 0 ? Duration(elapsed)
                                               : "ETA " + Duration(elapsed / fraction * (1 - fraction));
  std::fprintf(stderr, "\r%s [%s] %3d%% %s/%s %s\x1b[K", label_.c_str(), bar.c_str(), static_cast<int>(fraction * 100),
               Amount(done_).c_str(), Amount(total_).c_str(), timing.c_str());
  if (final) std::fputc('\n', stderr);
  std::fflush(stderr);
}

}  // namespace swe::util
