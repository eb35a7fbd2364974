// The C API tests' shared fixture: a small random model loaded through the C API and through core.
#pragma once

#include "swe.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/test_models.h"
#include "swe/encoder.h"
#include "swe/model_file.h"

namespace swe_c_api_test {

inline const std::vector<std::string> kWords = {"the", "cat", "sat", "on", "mat", "dog", "ran", "in", "park",
                                         "stock", "market", "fell", "rain", "café", "new", "york"};
constexpr uint32_t kDims = 24;
inline const std::vector<std::string> kTexts = {"The cat sat on the mat.", "A dog ran in the park", "", "zzz qqq",
                                         "Stock market fell; rain in New York", "CAFÉ café Cafe"};

inline swe::ModelContents Contents(uint32_t seed = 7) {
  swe::ModelContents c = swe::testing::RandomContents(kWords, kDims, seed);
  c.provenance.name = "c-api-test";
  c.provenance.description = "a test model";
  c.provenance.teacher = "teacher-x";
  c.provenance.placeholder = true;
  c.provenance.scores.push_back({"sts-b", "spearman", 0.5});
  c.provenance.extra.push_back({"key", "value"});
  return c;
}

struct ModelDeleter {
  void operator()(swe_model* m) const { swe_model_free(m); }
};
using ModelPtr = std::unique_ptr<swe_model, ModelDeleter>;
struct IndexDeleter {
  void operator()(swe_index* i) const { swe_index_free(i); }
};
using IndexPtr = std::unique_ptr<swe_index, IndexDeleter>;

class CApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bytes_ = swe::testing::ModelBytes(Contents());
    swe_model* m = nullptr;
    ASSERT_EQ(swe_model_load_from_bytes(bytes_.data(), bytes_.size(), nullptr, &m), SWE_OK) << swe_last_error();
    model_.reset(m);
    ASSERT_TRUE(swe::ReadModel(bytes_.data(), bytes_.size(), &core_).ok());
  }

  std::vector<float> CoreEncode(const std::string& text, uint32_t dims = 0, uint32_t* n_words = nullptr) {
    swe::EncodeOptions options;
    options.dims = dims;
    swe::Encoder encoder(*core_, options);
    std::vector<float> v(encoder.dims());
    uint32_t n = encoder.Encode(text, v.data());
    if (n_words) *n_words = n;
    return v;
  }

  std::vector<float> Encode(const std::string& text, uint32_t dims = 0) {
    swe_encode_params params = swe_encode_default_params();
    params.dims = dims;
    std::vector<float> v(swe_model_get_encode_dims(model_.get(), &params));
    EXPECT_EQ(swe_model_encode_text(model_.get(), text.data(), text.size(), &params, v.data(), v.size(), nullptr), SWE_OK)
        << swe_last_error();
    return v;
  }

  IndexPtr MakeIndex(int32_t dtype) {
    swe_index* raw = nullptr;
    EXPECT_EQ(swe_index_create(kDims, dtype, &raw), SWE_OK) << swe_last_error();
    IndexPtr index(raw);
    std::vector<uint64_t> ids;
    std::vector<float> vectors;
    for (size_t i = 0; i < kTexts.size(); ++i) {
      if (kTexts[i].empty() || kTexts[i] == "zzz qqq") continue;
      ids.push_back(100 + i);
      std::vector<float> v = Encode(kTexts[i]);
      vectors.insert(vectors.end(), v.begin(), v.end());
    }
    EXPECT_EQ(swe_index_add(index.get(), ids.data(), vectors.data(), ids.size()), SWE_OK) << swe_last_error();
    return index;
  }

  std::vector<uint8_t> bytes_;
  ModelPtr model_;
  std::unique_ptr<swe::Model> core_;
};

inline bool BitEqual(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

inline std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("swe_c_api_" + std::to_string(getpid()) + "_" + name)).string();
}

inline void WriteBytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

}  // namespace swe_c_api_test
