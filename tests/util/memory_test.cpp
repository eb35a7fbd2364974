// swe::util::AdviseHugePages: harmless on any range, and where Linux's transparent huge pages are in
// `madvise` mode (as on Debian and Ubuntu), a large buffer advised before its first write is backed
// by 2 MB pages (read back from /proc/self/smaps).
#include "swe/util/memory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace {

TEST(AdviseHugePages, ToleratesAnyRangeAndKeepsContents) {
  swe::util::AdviseHugePages(nullptr, 0);
  swe::util::AdviseHugePages(nullptr, size_t{1} << 30);
  uint8_t small[100];
  std::memset(small, 7, sizeof small);
  swe::util::AdviseHugePages(small + 3, sizeof small - 3);  // no whole 2 MB page inside: nothing asked
  for (uint8_t b : small) ASSERT_EQ(b, 7);
  const size_t n = size_t{5} << 20;
  std::unique_ptr<uint8_t[]> big(new uint8_t[n]);
  std::memset(big.get(), 3, n);
  swe::util::AdviseHugePages(big.get() + 1, n - 1);  // after the writes: allowed, contents unchanged
  for (size_t i = 0; i < n; i += 4093) ASSERT_EQ(big[i], 3);
}

// AnonHugePages (kB) of the mapping that holds `address`, or -1 when /proc/self/smaps has none.
long AnonHugeKb(uintptr_t address) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t start = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> start >> dash >> end && dash == '-') {
      inside = start <= address && address < end;
    } else if (inside && line.rfind("AnonHugePages:", 0) == 0) {
      return std::stol(line.substr(14));
    }
  }
  return -1;
}

TEST(AdviseHugePages, BacksALargeBufferWithHugePagesInMadviseMode) {
  std::ifstream mode_file("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode;
  std::getline(mode_file, mode);
  if (mode.find("[madvise]") == std::string::npos) {
    GTEST_SKIP() << "transparent huge pages are not in madvise mode here (\"" << mode
                 << "\"): the hint is not what decides";
  }
  const size_t n = size_t{12} << 20;
  std::unique_ptr<uint64_t[]> words(new uint64_t[n / 8]);  // glibc maps it fresh: nothing touched yet
  swe::util::AdviseHugePages(words.get(), n);
  std::memset(words.get(), 1, n);
  const uintptr_t huge = uintptr_t{2} << 20;
  const uintptr_t first_whole = (reinterpret_cast<uintptr_t>(words.get()) + huge - 1) & ~(huge - 1);
  EXPECT_GE(AnonHugeKb(first_whole), 2048) << "no 2 MB page under the advised range";
}

}  // namespace
