// Progress where stderr is not a terminal (lines, when asked), its ETA and bar from the work done, and
// a bar cleared before a log line. stderr is redirected to a file for each test.
#include "swe/util/progress.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

namespace swe::util {
namespace {

// Runs `body` with stderr going to a temporary file; returns what was written.
template <typename Fn>
std::string CaptureStderr(Fn body) {
  std::fflush(stderr);
  const int saved = dup(STDERR_FILENO);
  FILE* tmp = std::tmpfile();
  dup2(fileno(tmp), STDERR_FILENO);
  body();
  std::fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  std::string out;
  std::rewind(tmp);
  char buf[256];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, tmp)) > 0) out.append(buf, n);
  std::fclose(tmp);
  return out;
}

TEST(Progress, WritesLinesWhenNotATerminalWithTheShareOfWorkDone) {
  std::string out = CaptureStderr([] {
    Progress::SetLinesWhenNotTerminal(true, 0);
    Progress p("extract", 100, "sentences");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    p.Update(90, 0.5);  // 90 short sentences of 100 are half of the text
    p.Finish();
    Progress::SetLinesWhenNotTerminal(false);
  });
  EXPECT_EQ(out.find('\r'), std::string::npos) << out;
  EXPECT_NE(out.find("extract:  50%  90/100 sentences"), std::string::npos) << out;  // not 90%
  EXPECT_NE(out.find("ETA "), std::string::npos) << out;
  EXPECT_NE(out.find("done in"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 2) << out;
}

// A run resumed at 1,000 of 2,000 steps: its rate and ETA count only the steps it did itself (counting
// the checkpoint's would make the rate high and the ETA short).
TEST(Progress, AResumedRunsRateAndEtaCountOnlyItsOwnWork) {
  std::string out = CaptureStderr([] {
    Progress::SetLinesWhenNotTerminal(true, 0);
    Progress p("refine", 2000, "steps");
    p.SetStart(1000);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    p.Update(1010);  // 10 steps in >= 50 ms: at most 200/s, and 990 left take >= 4.9 s
    Progress::SetLinesWhenNotTerminal(false);
  });
  const size_t at = out.find("refine:  50%  1010/2000 steps  ");
  ASSERT_NE(at, std::string::npos) << out;
  const double rate = std::stod(out.substr(at + 31));
  EXPECT_LE(rate, 200) << out;
  const size_t eta = out.find("ETA ", at);
  ASSERT_NE(eta, std::string::npos) << out;
  const std::string left = out.substr(eta + 4, out.find('\n', eta) - eta - 4);
  EXPECT_TRUE(left.find('m') != std::string::npos || std::stoi(left) >= 4) << out;
}

TEST(Progress, QuietWhenNotATerminalUnlessAsked) {
  std::string out = CaptureStderr([] {
    Progress p("extract", 10, "sentences");
    p.Update(5);
    p.Finish();
  });
  EXPECT_EQ(out, "");
}

TEST(Progress, ClearBarLeavesACleanLineForALogLine) {
  std::string out = CaptureStderr([] {
    Progress::SetEnabled(true);
    Progress p("refine", 10, "steps");
    std::this_thread::sleep_for(std::chrono::milliseconds(120));
    p.Update(5);
    Progress::ClearBar();
    std::fputs("epoch 1: loss 0.5\n", stderr);
    Progress::ClearBar();  // nothing drawn since: writes nothing
    p.Finish();
    Progress::SetEnabled(false);
  });
  const size_t log = out.find("epoch 1");
  ASSERT_NE(log, std::string::npos) << out;
  EXPECT_EQ(out.compare(log - 4, 4, "\r\x1b[K"), 0) << out;
  EXPECT_EQ(out.find("\r\x1b[K\r\x1b[K"), std::string::npos) << out;
}

}  // namespace
}  // namespace swe::util
