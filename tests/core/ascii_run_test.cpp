// The tokenizer's block scan (the kernels' ascii_alnum_run), every variant this CPU runs, against a
// byte-at-a-time reference.
#include "simd/kernels.h"

#include <gtest/gtest.h>

#include <cctype>
#include <memory>
#include <random>
#include <string>

namespace swe {
namespace {

TEST(AsciiAlnumRun, MatchesAByteLoop) {
  // Letters and digits at the ends of their ranges, the bytes just outside them, separators, high bytes.
  const std::string alphabet = "aAzZ09m/:@[`{ ,.-_\x7F\x80\xC3\xE0\xFF\t";
  std::mt19937 rng(11);
  for (int trial = 0; trial < 20000; ++trial) {
    const size_t n = rng() % 70;
    std::string s;
    for (size_t i = 0; i < n; ++i) {
      // Mostly letters, so that runs cross the 16-byte blocks.
      s.push_back(rng() % 4 != 0 ? static_cast<char>('a' + rng() % 26 - (rng() % 5 == 0 ? 32 : 0))
                                 : alphabet[rng() % alphabet.size()]);
    }
    size_t want = 0;
    bool want_upper = false;
    while (want < n && (std::isalnum(static_cast<unsigned char>(s[want])) && static_cast<unsigned char>(s[want]) < 0x80)) {
      want_upper |= s[want] >= 'A' && s[want] <= 'Z';
      ++want;
    }
    // An exact-size buffer, so that AddressSanitizer sees any read past n.
    std::unique_ptr<char[]> copy(new char[n == 0 ? 1 : n]);
    std::copy(s.begin(), s.end(), copy.get());
    for (const simd::Kernels* k : simd::Supported()) {
      bool upper = false;
      ASSERT_EQ(k->ascii_alnum_run(copy.get(), n, &upper), want) << k->name << " " << s;
      ASSERT_EQ(upper, want_upper) << k->name << " " << s;
    }
  }
  for (const simd::Kernels* k : simd::Supported()) {
    bool upper = true;  // left as is when the run has no capital
    EXPECT_EQ(k->ascii_alnum_run("abc", 3, &upper), 3u) << k->name;
    EXPECT_TRUE(upper) << k->name;
    // A capital after the run's end (within the same 16-byte block) is not the run's.
    upper = false;
    EXPECT_EQ(k->ascii_alnum_run("abcdefgh ABCDEFGHIJ", 19, &upper), 8u) << k->name;
    EXPECT_FALSE(upper) << k->name;
  }
}

}  // namespace
}  // namespace swe
