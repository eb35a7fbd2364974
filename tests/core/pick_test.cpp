// simd::PickByName, which SWE_SIMD (the kernel tables) goes through: the
// entry the variable names, else the best (the last), for entries held by value and by pointer.
#include "simd/pick.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

namespace {

struct Variant {
  const char* name;
  int rank;
};

constexpr char kVar[] = "SWE_PICK_TEST_VARIANT";

TEST(PickByName, TakesTheNamedEntryElseTheBest) {
  const std::vector<Variant> best_last = {{"portable", 0}, {"fast", 1}, {"fastest", 2}};
  ::unsetenv(kVar);
  EXPECT_EQ(swe::simd::PickByName(best_last, kVar).rank, 2);
  ::setenv(kVar, "fast", 1);
  EXPECT_EQ(swe::simd::PickByName(best_last, kVar).rank, 1);
  ::setenv(kVar, "portable", 1);
  EXPECT_EQ(swe::simd::PickByName(best_last, kVar).rank, 0);
  ::setenv(kVar, "avx1024", 1);  // not supported here: the best instead
  EXPECT_EQ(swe::simd::PickByName(best_last, kVar).rank, 2);
  ::setenv(kVar, "", 1);
  EXPECT_EQ(swe::simd::PickByName(best_last, kVar).rank, 2);
  ::unsetenv(kVar);
}

TEST(PickByName, WorksOnPointers) {
  const Variant a{"generic", 0}, b{"avx2", 1};
  const std::vector<const Variant*> best_last = {&a, &b};
  ::setenv(kVar, "generic", 1);
  EXPECT_EQ(swe::simd::PickByName(best_last, kVar), &a);
  ::unsetenv(kVar);
  EXPECT_EQ(swe::simd::PickByName(best_last, kVar), &b);
}

}  // namespace
