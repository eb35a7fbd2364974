// Universal Sentence Encoder Lite's golden fixture (tests/trainer/fixtures/use_lite, written by
// trainer/tools/use_lite_golden.mjs); where the tests find the model itself, and
// SWE_TEST_REQUIRE_USE_LITE, are in tests/test_files.h.
#pragma once

#include <string>

#include "test_files.h"
#include "test_paths.h"

namespace swe::trainer::testing {

inline std::string UseLiteFixture(const std::string& name) {
  return std::string(swe::test::SourceDir()) + "/tests/trainer/fixtures/use_lite/" + name;
}

}  // namespace swe::trainer::testing
