// libswe's C API (libswe/include/swe.h), linked as the shared library: every function, its error paths,
// and that its results equal core's.
#include "swe.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "c_api_fixture.h"

#include "core/test_models.h"
#include "swe/encoder.h"
#include "swe/model_file.h"
#include "swe/tokenizer.h"

namespace {

using namespace swe_c_api_test;

TEST(CApi, VersionAndNames) {
  EXPECT_STREQ(swe_version(), SWE_EXPECTED_VERSION);
  EXPECT_STREQ(swe_status_name(SWE_OK), "ok");
  EXPECT_STREQ(swe_status_name(SWE_ERR_CORRUPT), "corrupt");
  EXPECT_STREQ(swe_status_name(SWE_ERR_IO), "io");
  EXPECT_STREQ(swe_status_name(SWE_ERR_OUT_OF_MEMORY), "out of memory");
  EXPECT_STREQ(swe_status_name(99), "unknown");
  EXPECT_STREQ(swe_status_name(-1), "unknown");
  EXPECT_STREQ(swe_match_name(SWE_MATCH_EXACT), "exact");
  EXPECT_STREQ(swe_match_name(SWE_MATCH_FOLDED), "folded");
  EXPECT_STREQ(swe_match_name(SWE_MATCH_STRIPPED), "stripped");
  EXPECT_STREQ(swe_match_name(SWE_MATCH_PREFIX), "prefix");
  EXPECT_STREQ(swe_match_name(SWE_MATCH_UNKNOWN), "unknown");
  EXPECT_STREQ(swe_match_name(42), "invalid");
  EXPECT_STREQ(swe_dtype_name(SWE_DTYPE_F32), "f32");
  EXPECT_STREQ(swe_dtype_name(SWE_DTYPE_F16), "f16");
  EXPECT_STREQ(swe_dtype_name(SWE_DTYPE_INT8), "int8");
  EXPECT_STREQ(swe_dtype_name(3), "unknown");
  EXPECT_STREQ(swe_dtype_name(-1), "unknown");
  EXPECT_EQ(sizeof(swe_token), 16u);
  // The codes mirror core's.
  EXPECT_EQ(SWE_ERR_INVALID_ARGUMENT, static_cast<int>(swe::StatusCode::kInvalidArgument));
  EXPECT_EQ(SWE_ERR_CORRUPT, static_cast<int>(swe::StatusCode::kCorrupt));
  EXPECT_EQ(SWE_ERR_UNSUPPORTED, static_cast<int>(swe::StatusCode::kUnsupported));
  EXPECT_EQ(SWE_ERR_TOO_LARGE, static_cast<int>(swe::StatusCode::kTooLarge));
  EXPECT_EQ(SWE_ERR_IO, static_cast<int>(swe::StatusCode::kIo));
  EXPECT_EQ(SWE_ERR_NOT_FOUND, static_cast<int>(swe::StatusCode::kNotFound));
  EXPECT_EQ(SWE_ERR_INTERNAL, static_cast<int>(swe::StatusCode::kInternal));
  EXPECT_EQ(SWE_DTYPE_INT8, static_cast<int>(swe::DType::kInt8));
  EXPECT_EQ(SWE_MATCH_PREFIX, static_cast<int>(swe::Match::kPrefix));
}

TEST_F(CApiTest, ModelGetters) {
  EXPECT_EQ(swe_model_get_dims(model_.get()), kDims);
  EXPECT_EQ(swe_model_get_vocab_size(model_.get()), kWords.size());
  EXPECT_EQ(swe_model_get_dims(nullptr), 0u);
  EXPECT_EQ(swe_model_get_vocab_size(nullptr), 0u);
  EXPECT_EQ(swe_model_get_info_json(nullptr), nullptr);
  swe_model_free(nullptr);

  nlohmann::json info = nlohmann::json::parse(swe_model_get_info_json(model_.get()));
  EXPECT_EQ(info["name"], "c-api-test");
  EXPECT_EQ(info["description"], "a test model");
  EXPECT_EQ(info["teacher"], "teacher-x");
  EXPECT_EQ(info["placeholder"], true);
  EXPECT_EQ(info["dims"], kDims);
  EXPECT_EQ(info["vocab_size"], kWords.size());
  EXPECT_EQ(info["dtype"], "f32");
  EXPECT_EQ(info["file_size"], bytes_.size());
  EXPECT_EQ(info["normalize"], true);
  EXPECT_EQ(info["checksum"].get<std::string>().size(), 8u);
  ASSERT_EQ(info["scores"].size(), 1u);
  EXPECT_EQ(info["scores"][0]["task"], "sts-b");
  EXPECT_DOUBLE_EQ(info["scores"][0]["value"].get<double>(), 0.5);
  EXPECT_EQ(info["extra"]["key"], "value");
  EXPECT_EQ(info["tokenizer"]["fold_case"], true);

  for (uint32_t row = 0; row < kWords.size(); ++row) {
    const char* data = nullptr;
    size_t size = 0;
    ASSERT_EQ(swe_model_get_word(model_.get(), row, &data, &size), SWE_OK);
    EXPECT_EQ(std::string(data, size), std::string(core_->word(row)));
  }
  const char* data = nullptr;
  size_t size = 0;
  EXPECT_EQ(swe_model_get_word(model_.get(), static_cast<uint32_t>(kWords.size()), &data, &size),
            SWE_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(swe_last_error()).find("out of range"), std::string::npos);
  EXPECT_EQ(swe_model_get_word(nullptr, 0, &data, &size), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_model_get_word(model_.get(), 0, nullptr, &size), SWE_ERR_INVALID_ARGUMENT);
}

TEST_F(CApiTest, LoadRejectsBadArguments) {
  swe_model* m = reinterpret_cast<swe_model*>(0x1);
  EXPECT_EQ(swe_model_load_from_bytes(bytes_.data(), bytes_.size(), nullptr, nullptr), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(swe_last_error()).find("out is NULL"), std::string::npos);
  EXPECT_EQ(swe_model_load_from_bytes(nullptr, 10, nullptr, &m), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(m, nullptr);
  EXPECT_NE(swe_model_load_from_bytes(nullptr, 0, nullptr, &m), SWE_OK);
  EXPECT_EQ(m, nullptr);
  EXPECT_EQ(swe_model_load_from_file(nullptr, nullptr, &m), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_model_load_from_file("x", nullptr, nullptr), SWE_ERR_INVALID_ARGUMENT);
}

TEST_F(CApiTest, LoadRejectsCorruptBytes) {
  swe_model* m = nullptr;
  std::vector<uint8_t> garbage(1000, 0xAB);
  EXPECT_EQ(swe_model_load_from_bytes(garbage.data(), garbage.size(), nullptr, &m), SWE_ERR_CORRUPT);
  EXPECT_EQ(m, nullptr);
  EXPECT_STRNE(swe_last_error(), "");

  std::vector<uint8_t> damaged = bytes_;
  damaged[damaged.size() / 2] ^= 0x5A;
  EXPECT_EQ(swe_model_load_from_bytes(damaged.data(), damaged.size(), nullptr, &m), SWE_ERR_CORRUPT);
  EXPECT_EQ(m, nullptr);

  for (size_t cut : {size_t{0}, size_t{7}, size_t{20}, bytes_.size() / 2, bytes_.size() - 1}) {
    EXPECT_NE(swe_model_load_from_bytes(bytes_.data(), cut, nullptr, &m), SWE_OK) << cut;
    EXPECT_EQ(m, nullptr);
    EXPECT_STRNE(swe_last_error(), "");
  }
}

TEST_F(CApiTest, LoadAppliesLimits) {
  swe_load_params params = swe_load_default_params();
  swe::ReadLimits defaults;
  EXPECT_EQ(params.max_payload_bytes, defaults.max_payload_bytes);
  EXPECT_EQ(params.max_rows, defaults.max_rows);
  EXPECT_EQ(params.max_dims, defaults.max_dims);
  params.max_rows = 3;
  swe_model* m = nullptr;
  EXPECT_EQ(swe_model_load_from_bytes(bytes_.data(), bytes_.size(), &params, &m), SWE_ERR_TOO_LARGE);
  EXPECT_EQ(m, nullptr);
  params = swe_load_default_params();
  params.max_payload_bytes = 16;
  EXPECT_EQ(swe_model_load_from_bytes(bytes_.data(), bytes_.size(), &params, &m), SWE_ERR_TOO_LARGE);
  params = swe_load_default_params();
  params.max_dims = kDims - 1;  // a model wider than the limit is too large, not corrupt
  EXPECT_EQ(swe_model_load_from_bytes(bytes_.data(), bytes_.size(), &params, &m), SWE_ERR_TOO_LARGE);
  EXPECT_EQ(m, nullptr);
  params.max_dims = kDims;
  ASSERT_EQ(swe_model_load_from_bytes(bytes_.data(), bytes_.size(), &params, &m), SWE_OK) << swe_last_error();
  swe_model_free(m);
}

TEST_F(CApiTest, LoadFromFile) {
  std::string path = TempPath("model.swe");
  WriteBytes(path, bytes_);
  swe_model* m = nullptr;
  ASSERT_EQ(swe_model_load_from_file(path.c_str(), nullptr, &m), SWE_OK) << swe_last_error();
  EXPECT_STREQ(swe_model_get_info_json(m), swe_model_get_info_json(model_.get()));
  swe_model_free(m);

  std::string missing = TempPath("missing.swe");
  EXPECT_EQ(swe_model_load_from_file(missing.c_str(), nullptr, &m), SWE_ERR_IO);
  EXPECT_EQ(m, nullptr);
  EXPECT_NE(std::string(swe_last_error()).find(missing), std::string::npos);

  WriteBytes(path, std::vector<uint8_t>(100, 7));
  EXPECT_EQ(swe_model_load_from_file(path.c_str(), nullptr, &m), SWE_ERR_CORRUPT);
  EXPECT_EQ(std::string(swe_last_error()).rfind(path + ": ", 0), 0u) << swe_last_error();
  std::remove(path.c_str());
}

// swe_model_load_from_buffer (what JS loads through): the same model as from bytes, zstd or raw (used
// in place), and the buffer is the call's on every path (ASan's leak check sees a buffer left over).
TEST_F(CApiTest, LoadFromBufferTakesTheBufferOver) {
  for (const std::vector<uint8_t>& file : {bytes_, swe::testing::ModelBytes(Contents(), swe::DType::kF32, 0)}) {
    uint8_t* buffer = swe_model_buffer_new(file.size());
    ASSERT_NE(buffer, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer) % 8, 0u);
    std::memcpy(buffer, file.data(), file.size());
    swe_model* m = nullptr;
    ASSERT_EQ(swe_model_load_from_buffer(buffer, file.size(), nullptr, &m), SWE_OK) << swe_last_error();
    EXPECT_EQ(swe_model_get_vocab_size(m), swe_model_get_vocab_size(model_.get()));
    std::vector<float> v(kDims);
    ASSERT_EQ(swe_model_encode_text(m, kTexts[0].data(), kTexts[0].size(), nullptr, v.data(), v.size(), nullptr), SWE_OK);
    EXPECT_TRUE(BitEqual(v, CoreEncode(kTexts[0])));
    swe_model_free(m);
  }
  swe_model* m = reinterpret_cast<swe_model*>(0x1);
  uint8_t* garbage = swe_model_buffer_new(1000);
  ASSERT_NE(garbage, nullptr);
  std::memset(garbage, 0xAB, 1000);
  EXPECT_EQ(swe_model_load_from_buffer(garbage, 1000, nullptr, &m), SWE_ERR_CORRUPT);
  EXPECT_EQ(m, nullptr);
  EXPECT_EQ(swe_model_load_from_buffer(swe_model_buffer_new(10), 10, nullptr, nullptr), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_model_load_from_buffer(nullptr, 10, nullptr, &m), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(swe_last_error()).find("buffer is NULL"), std::string::npos);
  EXPECT_EQ(swe_model_buffer_new(SIZE_MAX), nullptr);
  swe_model_buffer_free(swe_model_buffer_new(0));
  swe_model_buffer_free(nullptr);
}

TEST_F(CApiTest, EncodeEqualsCore) {
  for (const std::string& text : kTexts) {
    uint32_t core_words = 0, c_words = 99;
    std::vector<float> expected = CoreEncode(text, 0, &core_words);
    std::vector<float> v(kDims);
    ASSERT_EQ(swe_model_encode_text(model_.get(), text.data(), text.size(), nullptr, v.data(), v.size(), &c_words),
              SWE_OK);
    EXPECT_TRUE(BitEqual(v, expected)) << text;
    EXPECT_EQ(c_words, core_words) << text;
  }
  // Truncated vectors, renormalised.
  for (uint32_t dims : {1u, 8u, kDims}) {
    EXPECT_TRUE(BitEqual(Encode(kTexts[0], dims), CoreEncode(kTexts[0], dims))) << dims;
  }
}

// The thread keeps an encoder between calls (libswe/src/swe_c.cpp, WithEncoder), for single texts and
// small batches alike: models used in turn, freed and loaded again (a new model may get the freed
// one's address), other dims and texts longer than what it keeps all give the vectors of an encoder
// made for the call. Under AddressSanitizer this also shows that a freed model's kept encoder is never
// used.
TEST_F(CApiTest, KeptEncoderFollowsModelsAndDims) {
  std::vector<uint8_t> other_bytes = swe::testing::ModelBytes(Contents(8));
  std::unique_ptr<swe::Model> other_core;
  ASSERT_TRUE(swe::ReadModel(other_bytes.data(), other_bytes.size(), &other_core).ok());
  const std::string long_text = [] {
    std::string t;
    while (t.size() <= 5000) t += "the cat sat on the mat in new york ";
    return t;
  }();
  auto expect = [&](const swe::Model& core, const std::string& text, uint32_t dims) {
    swe::EncodeOptions options;
    options.dims = dims;
    swe::Encoder encoder(core, options);
    std::vector<float> v(encoder.dims());
    encoder.Encode(text, v.data());
    return v;
  };
  for (int round = 0; round < 3; ++round) {
    swe_model* other = nullptr;
    ASSERT_EQ(swe_model_load_from_bytes(other_bytes.data(), other_bytes.size(), nullptr, &other), SWE_OK);
    for (uint32_t dims : {0u, 8u}) {
      swe_encode_params params = swe_encode_default_params();
      params.dims = dims;
      for (const std::string& text : {kTexts[0], kTexts[4], long_text}) {
        for (auto [handle, core] : {std::pair{model_.get(), core_.get()}, std::pair{other, other_core.get()}}) {
          std::vector<float> v(swe_model_get_encode_dims(handle, &params));
          ASSERT_EQ(swe_model_encode_text(handle, text.data(), text.size(), &params, v.data(), v.size(), nullptr), SWE_OK);
          EXPECT_TRUE(BitEqual(v, expect(*core, text, dims))) << round << " " << dims << " " << text.size();
          // A batch of two, sharing the kept encoder when small (not with the long text).
          const swe_text batch[2] = {{text.data(), text.size()}, {kTexts[1].data(), kTexts[1].size()}};
          std::vector<float> both(2 * v.size());
          ASSERT_EQ(swe_model_encode_batch(handle, batch, 2, &params, both.data(), both.size(), nullptr), SWE_OK);
          EXPECT_TRUE(BitEqual(std::vector<float>(both.begin(), both.begin() + v.size()), expect(*core, text, dims)));
          EXPECT_TRUE(BitEqual(std::vector<float>(both.begin() + v.size(), both.end()), expect(*core, kTexts[1], dims)));
        }
      }
    }
    swe_model_free(other);  // the thread's kept encoder may be for it now
  }
  for (uint32_t dims : {0u, 8u, 0u, 3u, 3u}) {  // one model, dims changing from call to call
    swe_encode_params params = swe_encode_default_params();
    params.dims = dims;
    std::vector<float> v(swe_model_get_encode_dims(model_.get(), &params));
    ASSERT_EQ(swe_model_encode_text(model_.get(), kTexts[0].data(), kTexts[0].size(), &params, v.data(), v.size(),
                                    nullptr), SWE_OK);
    EXPECT_TRUE(BitEqual(v, expect(*core_, kTexts[0], dims))) << dims;
  }
}

// swe_encode_params.normalize: the model's own scaling (unit for this model), unit length, or the plain
// mean of the word vectors (what a model saved with normalize = false gives), switching from call to
// call with the thread's kept encoder and with an swe_encoder.
TEST_F(CApiTest, NormalizeChoosesUnitOrMeanVectors) {
  swe::ModelContents mean_contents = Contents();
  mean_contents.normalize = false;
  std::vector<uint8_t> mean_bytes = swe::testing::ModelBytes(mean_contents);
  swe_model* raw = nullptr;
  ASSERT_EQ(swe_model_load_from_bytes(mean_bytes.data(), mean_bytes.size(), nullptr, &raw), SWE_OK);
  ModelPtr mean_model(raw);
  swe_encoder* encoder = nullptr;
  ASSERT_EQ(swe_encoder_new(model_.get(), &encoder), SWE_OK);
  auto encode = [&](const swe_model* model, swe_encoder* owned, int32_t normalize, uint32_t dims) {
    swe_encode_params params = swe_encode_default_params();
    params.normalize = normalize;
    params.dims = dims;
    std::vector<float> v(swe_model_get_encode_dims(model, &params));
    const std::string& text = kTexts[4];
    const swe_status s = owned ? swe_encoder_encode_text(owned, text.data(), text.size(), &params, v.data(), v.size(), nullptr)
                               : swe_model_encode_text(model, text.data(), text.size(), &params, v.data(), v.size(), nullptr);
    EXPECT_EQ(s, SWE_OK) << swe_last_error();
    return v;
  };
  auto norm = [](const std::vector<float>& v) {
    double sum = 0;
    for (float x : v) sum += double(x) * x;
    return std::sqrt(sum);
  };
  for (swe_encoder* owned : {static_cast<swe_encoder*>(nullptr), encoder}) {
    for (uint32_t dims : {0u, 8u}) {
      const std::vector<float> unit = encode(model_.get(), owned, SWE_NORMALIZE_MODEL, dims);
      const std::vector<float> mean = encode(model_.get(), owned, SWE_NORMALIZE_NONE, dims);
      EXPECT_TRUE(BitEqual(encode(model_.get(), owned, SWE_NORMALIZE_UNIT, dims), unit));
      EXPECT_NEAR(norm(unit), 1.0, 1e-6);
      EXPECT_GT(std::fabs(norm(mean) - 1.0), 1e-3);  // a mean of random rows is not of unit length
      // The plain mean is what a model saved without normalisation gives, and it points the same way.
      if (!owned) EXPECT_TRUE(BitEqual(mean, encode(mean_model.get(), nullptr, SWE_NORMALIZE_MODEL, dims)));
      for (size_t i = 0; i < mean.size(); ++i) EXPECT_NEAR(mean[i] / norm(mean), unit[i], 1e-6);
      EXPECT_TRUE(BitEqual(encode(mean_model.get(), nullptr, SWE_NORMALIZE_UNIT, dims), unit));
    }
  }
  swe_encoder_free(encoder);
  // The mean, by hand: the words of "the cat sat" are all known.
  swe_encode_params params = swe_encode_default_params();
  params.normalize = SWE_NORMALIZE_NONE;
  std::vector<float> v(kDims), rows(3 * kDims);
  ASSERT_EQ(swe_model_encode_text(model_.get(), "the cat sat", 11, &params, v.data(), v.size(), nullptr), SWE_OK);
  for (uint32_t r = 0; r < 3; ++r) {
    const int64_t row = core_->find(kWords[r]);  // the, cat, sat
    ASSERT_GE(row, 0);
    core_->CopyRow(static_cast<uint32_t>(row), rows.data() + r * kDims);
  }
  for (uint32_t j = 0; j < kDims; ++j) {
    EXPECT_NEAR(v[j], (rows[j] + rows[kDims + j] + rows[2 * kDims + j]) / 3, 1e-6);
  }
  params.normalize = 3;
  EXPECT_EQ(swe_model_encode_text(model_.get(), "a", 1, &params, v.data(), v.size(), nullptr), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(swe_last_error()).find("normalize"), std::string::npos);
  const swe_text one = {"a", 1};
  EXPECT_EQ(swe_model_encode_batch(model_.get(), &one, 1, &params, v.data(), v.size(), nullptr), SWE_ERR_INVALID_ARGUMENT);
}

// swe_encode_params.max_tokens: only a text's first words count; 0 keeps the model's own limit,
// UINT32_MAX lifts it. The kept encoder follows the limit from call to call.
TEST_F(CApiTest, MaxTokensCountsOnlyTheFirstWords) {
  swe::ModelContents limited = Contents();
  limited.tokenizer.max_tokens = 3;
  std::vector<uint8_t> limited_bytes = swe::testing::ModelBytes(limited);
  swe_model* raw = nullptr;
  ASSERT_EQ(swe_model_load_from_bytes(limited_bytes.data(), limited_bytes.size(), nullptr, &raw), SWE_OK);
  ModelPtr limited_model(raw);
  auto encode = [](const swe_model* model, const std::string& text, uint32_t max_tokens) {
    swe_encode_params params = swe_encode_default_params();
    params.max_tokens = max_tokens;
    std::vector<float> v(kDims);
    EXPECT_EQ(swe_model_encode_text(model, text.data(), text.size(), &params, v.data(), v.size(), nullptr), SWE_OK);
    return v;
  };
  const std::string text = "the cat sat on the mat in new york";
  for (int round = 0; round < 2; ++round) {
    EXPECT_TRUE(BitEqual(encode(model_.get(), text, 2), encode(model_.get(), "the cat", 0)));
    EXPECT_TRUE(BitEqual(encode(model_.get(), text, 0), encode(model_.get(), text, UINT32_MAX)));
    EXPECT_FALSE(BitEqual(encode(model_.get(), text, 0), encode(model_.get(), text, 2)));
    EXPECT_TRUE(BitEqual(encode(limited_model.get(), text, 0), encode(model_.get(), "the cat sat", 0)));
    EXPECT_TRUE(BitEqual(encode(limited_model.get(), text, UINT32_MAX), encode(model_.get(), text, 0)));
    EXPECT_TRUE(BitEqual(encode(limited_model.get(), text, 5), encode(model_.get(), text, 5)));
  }
  // A batch counts each text's words on its own.
  swe_encode_params params = swe_encode_default_params();
  params.max_tokens = 2;
  const swe_text batch[2] = {{text.data(), text.size()}, {"dog ran in the park", 19}};
  std::vector<float> both(2 * kDims);
  ASSERT_EQ(swe_model_encode_batch(model_.get(), batch, 2, &params, both.data(), both.size(), nullptr), SWE_OK);
  EXPECT_TRUE(BitEqual(std::vector<float>(both.begin(), both.begin() + kDims), encode(model_.get(), "the cat", 0)));
  EXPECT_TRUE(BitEqual(std::vector<float>(both.begin() + kDims, both.end()), encode(model_.get(), "dog ran", 0)));
}

// swe_model_get_rows: the table as floats (int8 rows times their scales), and each row's weight.
TEST_F(CApiTest, GetRowsGivesTheWordVectors) {
  for (swe::DType dtype : {swe::DType::kF32, swe::DType::kF16, swe::DType::kInt8}) {
    swe::ModelContents contents = Contents();
    contents.weights.assign(kWords.size(), 0.5f);
    contents.weights[1] = 2.0f;
    std::vector<uint8_t> bytes = swe::testing::ModelBytes(contents, dtype);
    swe_model* raw = nullptr;
    ASSERT_EQ(swe_model_load_from_bytes(bytes.data(), bytes.size(), nullptr, &raw), SWE_OK);
    ModelPtr model(raw);
    std::unique_ptr<swe::Model> core;
    ASSERT_TRUE(swe::ReadModel(bytes.data(), bytes.size(), &core).ok());
    const uint32_t n = static_cast<uint32_t>(kWords.size());
    std::vector<float> table(n * kDims), weights(n);
    ASSERT_EQ(swe_model_get_rows(model.get(), 0, n, table.data(), table.size(), weights.data()), SWE_OK);
    for (uint32_t r = 0; r < n; ++r) {
      std::vector<float> row(kDims);
      core->CopyRow(r, row.data());
      EXPECT_TRUE(BitEqual(row, std::vector<float>(table.begin() + r * kDims, table.begin() + (r + 1) * kDims)));
      for (uint32_t j = 0; j < kDims; ++j) {  // within a quantisation step of what was written
        EXPECT_NEAR(table[r * kDims + j], contents.vectors[r * kDims + j], dtype == swe::DType::kF32 ? 0 : 0.02);
      }
      EXPECT_EQ(weights[r], core->word(r) == kWords[1] ? 2.0f : 0.5f);
    }
    std::vector<float> part(2 * kDims);
    ASSERT_EQ(swe_model_get_rows(model.get(), n - 2, 2, part.data(), part.size(), nullptr), SWE_OK);
    EXPECT_TRUE(BitEqual(part, std::vector<float>(table.end() - 2 * kDims, table.end())));
    EXPECT_EQ(swe_model_get_rows(model.get(), n - 1, 2, part.data(), part.size(), nullptr), SWE_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(swe_model_get_rows(model.get(), 0, 3, part.data(), part.size(), nullptr), SWE_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(swe_model_get_rows(model.get(), UINT32_MAX, 2, part.data(), part.size(), nullptr), SWE_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(swe_model_get_rows(model.get(), n, 0, nullptr, 0, nullptr), SWE_OK);
    EXPECT_EQ(swe_model_get_rows(nullptr, 0, 1, part.data(), part.size(), nullptr), SWE_ERR_INVALID_ARGUMENT);
  }
  std::vector<float> weights(kWords.size());
  std::vector<float> table(kWords.size() * kDims);
  ASSERT_EQ(swe_model_get_rows(model_.get(), 0, kWords.size(), table.data(), table.size(), weights.data()), SWE_OK);
  EXPECT_EQ(weights, std::vector<float>(kWords.size(), 1.0f));  // no weights: 1
}

TEST_F(CApiTest, EncodeReadsOnlyTheGivenBytes) {
  std::string buffer = "cat sat dog ran";
  std::vector<float> v(kDims);
  ASSERT_EQ(swe_model_encode_text(model_.get(), buffer.data(), 7, nullptr, v.data(), v.size(), nullptr), SWE_OK);
  EXPECT_TRUE(BitEqual(v, CoreEncode("cat sat")));
  // NULL with length 0 is the empty text: the zero vector.
  ASSERT_EQ(swe_model_encode_text(model_.get(), nullptr, 0, nullptr, v.data(), v.size(), nullptr), SWE_OK);
  for (float x : v) EXPECT_EQ(x, 0.0f);
}

TEST_F(CApiTest, EncodeRejectsBadArguments) {
  std::vector<float> v(kDims);
  const std::string text = "cat";
  EXPECT_EQ(swe_model_encode_text(nullptr, text.data(), text.size(), nullptr, v.data(), v.size(), nullptr),
            SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_model_encode_text(model_.get(), nullptr, 3, nullptr, v.data(), v.size(), nullptr),
            SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_model_encode_text(model_.get(), text.data(), text.size(), nullptr, nullptr, v.size(), nullptr),
            SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_model_encode_text(model_.get(), text.data(), text.size(), nullptr, v.data(), kDims - 1, nullptr),
            SWE_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(swe_last_error()).find("too small"), std::string::npos);
  swe_encode_params params = swe_encode_default_params();
  EXPECT_EQ(params.dims, 0u);
  params.dims = kDims + 1;
  EXPECT_EQ(swe_model_get_encode_dims(model_.get(), &params), 0u);
  EXPECT_EQ(swe_model_encode_text(model_.get(), text.data(), text.size(), &params, v.data(), v.size(), nullptr),
            SWE_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(swe_last_error()).find("exceeds"), std::string::npos);
  params.dims = 5;
  EXPECT_EQ(swe_model_get_encode_dims(model_.get(), &params), 5u);
  EXPECT_EQ(swe_model_get_encode_dims(model_.get(), nullptr), kDims);
  EXPECT_EQ(swe_model_get_encode_dims(nullptr, nullptr), 0u);
}

TEST_F(CApiTest, BatchEqualsSingle) {
  std::vector<swe_text> texts;
  for (const std::string& t : kTexts) texts.push_back({t.data(), t.size()});
  for (uint32_t dims : {0u, 10u}) {
    swe_encode_params params = swe_encode_default_params();
    params.dims = dims;
    uint32_t d = swe_model_get_encode_dims(model_.get(), &params);
    std::vector<float> out(texts.size() * d);
    std::vector<uint32_t> n_words(texts.size(), 99);
    ASSERT_EQ(swe_model_encode_batch(model_.get(), texts.data(), texts.size(), &params, out.data(), out.size(),
                                     n_words.data()), SWE_OK)
        << swe_last_error();
    for (size_t i = 0; i < kTexts.size(); ++i) {
      std::vector<float> row(out.begin() + i * d, out.begin() + (i + 1) * d);
      EXPECT_TRUE(BitEqual(row, CoreEncode(kTexts[i], dims))) << i;
      // The known-word counts of the same pass: encode_text's, and 0 exactly for the zero rows.
      std::vector<float> single(d);
      uint32_t words = 99;
      ASSERT_EQ(swe_model_encode_text(model_.get(), kTexts[i].data(), kTexts[i].size(), &params, single.data(), d,
                                      &words), SWE_OK);
      EXPECT_EQ(n_words[i], words) << i;
      EXPECT_EQ(n_words[i] == 0, std::all_of(row.begin(), row.end(), [](float x) { return x == 0.0f; })) << i;
    }
    EXPECT_NE(std::count(n_words.begin(), n_words.end(), 0u), 0) << "no text without a known word";
    EXPECT_NE(std::count(n_words.begin(), n_words.end(), 0u), static_cast<ptrdiff_t>(n_words.size()));
    // Without the counts: the same vectors.
    std::vector<float> again(out.size());
    ASSERT_EQ(swe_model_encode_batch(model_.get(), texts.data(), texts.size(), &params, again.data(), again.size(),
                                     nullptr), SWE_OK);
    EXPECT_TRUE(BitEqual(again, out));
    EXPECT_EQ(swe_model_encode_batch(model_.get(), texts.data(), texts.size(), &params, out.data(), out.size() - 1,
                                     n_words.data()), SWE_ERR_INVALID_ARGUMENT);
  }
  EXPECT_EQ(swe_model_encode_batch(model_.get(), nullptr, 0, nullptr, nullptr, 0, nullptr), SWE_OK);
  EXPECT_EQ(swe_model_encode_batch(model_.get(), nullptr, 2, nullptr, nullptr, 0, nullptr), SWE_ERR_INVALID_ARGUMENT);
  std::vector<float> out(2 * kDims);
  swe_text bad[2] = {{"cat", 3}, {nullptr, 4}};
  EXPECT_EQ(swe_model_encode_batch(model_.get(), bad, 2, nullptr, out.data(), out.size(), nullptr),
            SWE_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(swe_last_error()).find("text 1"), std::string::npos);
}

TEST_F(CApiTest, Similarity) {
  for (const std::string& a : kTexts) {
    for (const std::string& b : kTexts) {
      float score = -5;
      ASSERT_EQ(swe_model_compute_similarity(model_.get(), a.data(), a.size(), b.data(), b.size(), nullptr, &score),
                SWE_OK);
      std::vector<float> va = CoreEncode(a), vb = CoreEncode(b);
      EXPECT_EQ(score, swe::Cosine(va.data(), vb.data(), kDims)) << a << " | " << b;
    }
  }
  float score = 0;
  const std::string t = "cat sat";
  ASSERT_EQ(swe_model_compute_similarity(model_.get(), t.data(), t.size(), t.data(), t.size(), nullptr, &score), SWE_OK);
  EXPECT_NEAR(score, 1.0f, 1e-5);
  EXPECT_EQ(swe_model_compute_similarity(model_.get(), t.data(), t.size(), "zzz", 3, nullptr, &score), SWE_OK);
  EXPECT_EQ(score, 0.0f);
  EXPECT_EQ(swe_model_compute_similarity(model_.get(), t.data(), t.size(), t.data(), t.size(), nullptr, nullptr),
            SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_model_compute_similarity(model_.get(), nullptr, 1, t.data(), t.size(), nullptr, &score),
            SWE_ERR_INVALID_ARGUMENT);
  swe_encode_params params = swe_encode_default_params();
  params.dims = 6;
  ASSERT_EQ(swe_model_compute_similarity(model_.get(), kTexts[0].data(), kTexts[0].size(), kTexts[1].data(),
                                         kTexts[1].size(), &params, &score),
            SWE_OK);
  std::vector<float> va = CoreEncode(kTexts[0], 6), vb = CoreEncode(kTexts[1], 6);
  EXPECT_EQ(score, swe::Cosine(va.data(), vb.data(), 6));
}

TEST_F(CApiTest, AnalyzeEqualsCore) {
  swe::Tokenizer tokenizer(*core_);
  for (const std::string& text : kTexts) {
    std::vector<swe::Token> expected;
    tokenizer.Analyze(text, &expected);
    size_t n = 99;
    ASSERT_EQ(swe_model_analyze_text(model_.get(), text.data(), text.size(), nullptr, 0, &n), SWE_OK);
    ASSERT_EQ(n, expected.size()) << text;
    std::vector<swe_token> tokens(n + 1);
    ASSERT_EQ(swe_model_analyze_text(model_.get(), text.data(), text.size(), tokens.data(), tokens.size(), &n), SWE_OK);
    ASSERT_EQ(n, expected.size());
    for (size_t i = 0; i < n; ++i) {
      EXPECT_EQ(tokens[i].begin, expected[i].begin);
      EXPECT_EQ(tokens[i].end, expected[i].end);
      EXPECT_EQ(tokens[i].row, expected[i].id);
      EXPECT_EQ(tokens[i].match, static_cast<int32_t>(expected[i].match));
    }
  }
  // Known and skipped words, and how they matched.
  const std::string text = "The zzz CAFÉ";
  std::vector<swe_token> tokens(3);
  size_t n = 0;
  ASSERT_EQ(swe_model_analyze_text(model_.get(), text.data(), text.size(), tokens.data(), 3, &n), SWE_OK);
  ASSERT_EQ(n, 3u);
  EXPECT_EQ(tokens[0].match, SWE_MATCH_FOLDED);
  EXPECT_EQ(tokens[0].row, core_->find("the"));
  EXPECT_EQ(tokens[1].match, SWE_MATCH_UNKNOWN);
  EXPECT_EQ(tokens[1].row, -1);
  EXPECT_EQ(text.substr(tokens[2].begin, tokens[2].end - tokens[2].begin), "CAFÉ");

  EXPECT_EQ(swe_model_analyze_text(model_.get(), text.data(), text.size(), tokens.data(), 2, &n),
            SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(n, 3u);  // the count needed, for a retry
  EXPECT_EQ(swe_model_analyze_text(model_.get(), text.data(), text.size(), tokens.data(), 3, nullptr),
            SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_model_analyze_text(nullptr, text.data(), text.size(), tokens.data(), 3, &n), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_model_analyze_text(model_.get(), nullptr, 5, tokens.data(), 3, &n), SWE_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(swe_model_analyze_text(model_.get(), nullptr, 0, nullptr, 0, &n), SWE_OK);
  EXPECT_EQ(n, 0u);
}

// swe_index_contains answers 1 or 0, never a status code (it once went through the status guard,
// whose failure value would have read as SWE_ERR_INTERNAL = 7).
TEST_F(CApiTest, IndexContainsAnswersOnlyOneOrZero) {
  IndexPtr index = MakeIndex(SWE_DTYPE_INT8);
  std::set<uint64_t> present;
  for (uint64_t id = 0; id < 200; ++id) {
    if (swe_index_contains(index.get(), id) == 1) present.insert(id);
    else EXPECT_EQ(swe_index_contains(index.get(), id), 0) << id;
  }
  EXPECT_EQ(present.size(), swe_index_get_size(index.get()));
  EXPECT_EQ(swe_index_contains(index.get(), UINT64_MAX), 0);
  EXPECT_EQ(swe_index_contains(nullptr, *present.begin()), 0);
  ASSERT_EQ(swe_index_remove(index.get(), *present.begin()), SWE_OK);
  EXPECT_EQ(swe_index_contains(index.get(), *present.begin()), 0);
}

TEST_F(CApiTest, IndexSearchRemoveContains) {
  for (int32_t dtype : {SWE_DTYPE_F32, SWE_DTYPE_INT8}) {
    IndexPtr index = MakeIndex(dtype);
    ASSERT_TRUE(index);
    EXPECT_EQ(swe_index_get_size(index.get()), 4u);
    EXPECT_EQ(swe_index_get_dims(index.get()), kDims);
    EXPECT_EQ(swe_index_get_dtype(index.get()), dtype);
    EXPECT_EQ(swe_index_contains(index.get(), 100), 1);
    EXPECT_EQ(swe_index_contains(index.get(), 102), 0);

    std::vector<float> query = Encode(kTexts[1]);
    uint64_t ids[8];
    float scores[8];
    size_t n = 0;
    ASSERT_EQ(swe_index_search(index.get(), query.data(), kDims, 8, nullptr, ids, scores, &n), SWE_OK) << swe_last_error();
    ASSERT_EQ(n, 4u);
    EXPECT_EQ(ids[0], 101u);
    EXPECT_NEAR(scores[0], 1.0f, dtype == SWE_DTYPE_INT8 ? 2e-2 : 1e-5);
    for (size_t i = 1; i < n; ++i) EXPECT_GE(scores[i - 1], scores[i]);
    ASSERT_EQ(swe_index_search(index.get(), query.data(), kDims, 2, nullptr, ids, scores, &n), SWE_OK);
    EXPECT_EQ(n, 2u);
    ASSERT_EQ(swe_index_search(index.get(), query.data(), kDims, 0, nullptr, nullptr, nullptr, &n), SWE_OK);
    EXPECT_EQ(n, 0u);

    EXPECT_EQ(swe_index_remove(index.get(), 101), SWE_OK);
    EXPECT_EQ(swe_index_get_size(index.get()), 3u);
    EXPECT_EQ(swe_index_contains(index.get(), 101), 0);
    EXPECT_EQ(swe_index_remove(index.get(), 101), SWE_ERR_NOT_FOUND);
    EXPECT_STRNE(swe_last_error(), "");
    ASSERT_EQ(swe_index_search(index.get(), query.data(), kDims, 8, nullptr, ids, scores, &n), SWE_OK);
    EXPECT_EQ(n, 3u);
    for (size_t i = 0; i < n; ++i) EXPECT_NE(ids[i], 101u);

    // Re-adding an id replaces its vector.
    uint64_t id = 100;
    ASSERT_EQ(swe_index_add(index.get(), &id, query.data(), 1), SWE_OK);
    EXPECT_EQ(swe_index_get_size(index.get()), 3u);
    ASSERT_EQ(swe_index_search(index.get(), query.data(), kDims, 1, nullptr, ids, scores, &n), SWE_OK);
    EXPECT_EQ(ids[0], 100u);
  }
}

TEST_F(CApiTest, IndexRejectsBadArguments) {
  swe_index* raw = reinterpret_cast<swe_index*>(0x1);
  EXPECT_EQ(swe_index_create(kDims, SWE_DTYPE_F16, &raw), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(raw, nullptr);
  EXPECT_EQ(swe_index_create(kDims, 77, &raw), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_index_create(0, SWE_DTYPE_F32, &raw), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_index_create(kDims, SWE_DTYPE_F32, nullptr), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_index_get_size(nullptr), 0u);
  EXPECT_EQ(swe_index_get_dims(nullptr), 0u);
  EXPECT_EQ(swe_index_get_dtype(nullptr), -1);
  EXPECT_EQ(swe_index_contains(nullptr, 1), 0);
  swe_index_free(nullptr);

  IndexPtr index = MakeIndex(SWE_DTYPE_F32);
  std::vector<float> v(kDims, 0.5f);
  uint64_t id = 1;
  EXPECT_EQ(swe_index_add(nullptr, &id, v.data(), 1), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_index_add(index.get(), nullptr, v.data(), 1), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_index_add(index.get(), &id, nullptr, 1), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_index_add(index.get(), nullptr, nullptr, 0), SWE_OK);
  v[3] = std::nanf("");
  EXPECT_EQ(swe_index_add(index.get(), &id, v.data(), 1), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(swe_last_error()).find("non-finite"), std::string::npos);
  EXPECT_EQ(swe_index_remove(nullptr, 1), SWE_ERR_INVALID_ARGUMENT);

  std::vector<float> query = Encode(kTexts[0]);
  uint64_t ids[4];
  float scores[4];
  size_t n = 9;
  EXPECT_EQ(swe_index_search(index.get(), query.data(), kDims - 1, 4, nullptr, ids, scores, &n), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(n, 0u);
  EXPECT_NE(std::string(swe_last_error()).find("dimensions"), std::string::npos);
  EXPECT_EQ(swe_index_search(index.get(), nullptr, kDims, 4, nullptr, ids, scores, &n), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_index_search(index.get(), query.data(), kDims, 4, nullptr, nullptr, scores, &n), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_index_search(index.get(), query.data(), kDims, 4, nullptr, ids, scores, nullptr), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_index_search(nullptr, query.data(), kDims, 4, nullptr, ids, scores, &n), SWE_ERR_INVALID_ARGUMENT);
  query[0] = INFINITY;
  EXPECT_EQ(swe_index_search(index.get(), query.data(), kDims, 4, nullptr, ids, scores, &n), SWE_ERR_INVALID_ARGUMENT);
  // A huge k on a small index writes only the hits there are, or fails cleanly: never throws or crashes.
  query = Encode(kTexts[0]);
  swe_status s = swe_index_search(index.get(), query.data(), kDims, SIZE_MAX, nullptr, ids, scores, &n);
  if (s == SWE_OK) {
    EXPECT_EQ(n, 4u);
  } else {
    EXPECT_TRUE(s == SWE_ERR_OUT_OF_MEMORY || s == SWE_ERR_INVALID_ARGUMENT || s == SWE_ERR_INTERNAL) << s;
  }
}

TEST_F(CApiTest, IndexSaveAndLoad) {
  IndexPtr index = MakeIndex(SWE_DTYPE_INT8);
  ASSERT_EQ(swe_index_set_model(index.get(), model_.get()), SWE_OK);
  uint8_t* data = nullptr;
  size_t size = 0;
  ASSERT_EQ(swe_index_save_to_bytes(index.get(), &data, &size), SWE_OK) << swe_last_error();
  ASSERT_NE(data, nullptr);
  ASSERT_GT(size, 0u);
  swe_index* raw = nullptr;
  ASSERT_EQ(swe_index_load_from_bytes(data, size, nullptr, &raw), SWE_OK) << swe_last_error();
  IndexPtr loaded(raw);
  EXPECT_EQ(swe_index_get_size(loaded.get()), 4u);
  EXPECT_EQ(swe_index_get_dtype(loaded.get()), SWE_DTYPE_INT8);
  EXPECT_EQ(swe_index_check_model(loaded.get(), model_.get()), SWE_OK) << swe_last_error();

  std::vector<float> query = Encode(kTexts[4]);
  uint64_t ids_a[4], ids_b[4];
  float scores_a[4], scores_b[4];
  size_t na = 0, nb = 0;
  ASSERT_EQ(swe_index_search(index.get(), query.data(), kDims, 4, nullptr, ids_a, scores_a, &na), SWE_OK);
  ASSERT_EQ(swe_index_search(loaded.get(), query.data(), kDims, 4, nullptr, ids_b, scores_b, &nb), SWE_OK);
  ASSERT_EQ(na, nb);
  for (size_t i = 0; i < na; ++i) {
    EXPECT_EQ(ids_a[i], ids_b[i]);
    EXPECT_EQ(scores_a[i], scores_b[i]);
  }

  // Corrupt and truncated bytes fail cleanly.
  std::vector<uint8_t> damaged(data, data + size);
  damaged[size / 2] ^= 0x33;
  EXPECT_EQ(swe_index_load_from_bytes(damaged.data(), damaged.size(), nullptr, &raw), SWE_ERR_CORRUPT);
  EXPECT_EQ(raw, nullptr);
  EXPECT_NE(swe_index_load_from_bytes(data, size / 2, nullptr, &raw), SWE_OK);
  EXPECT_EQ(swe_index_load_from_bytes(nullptr, 5, nullptr, &raw), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_index_load_from_bytes(data, size, nullptr, nullptr), SWE_ERR_INVALID_ARGUMENT);
  // A model file is not an index.
  EXPECT_NE(swe_index_load_from_bytes(bytes_.data(), bytes_.size(), nullptr, &raw), SWE_OK);
  EXPECT_EQ(raw, nullptr);
  swe_free_bytes(data);
  swe_free_bytes(nullptr);
  EXPECT_EQ(swe_index_save_to_bytes(nullptr, &data, &size), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_index_save_to_bytes(index.get(), nullptr, &size), SWE_ERR_INVALID_ARGUMENT);

  // Files.
  std::string path = TempPath("index.swe");
  ASSERT_EQ(swe_index_save_to_file(index.get(), path.c_str()), SWE_OK) << swe_last_error();
  ASSERT_EQ(swe_index_load_from_file(path.c_str(), nullptr, &raw), SWE_OK) << swe_last_error();
  EXPECT_EQ(swe_index_get_size(raw), 4u);
  swe_index_free(raw);
  std::remove(path.c_str());
  EXPECT_EQ(swe_index_load_from_file(path.c_str(), nullptr, &raw), SWE_ERR_IO);
  EXPECT_NE(std::string(swe_last_error()).find(path), std::string::npos);
  EXPECT_EQ(swe_index_save_to_file(index.get(), "/nonexistent-dir/x/index.swe"), SWE_ERR_IO);
  EXPECT_EQ(swe_index_save_to_file(index.get(), nullptr), SWE_ERR_INVALID_ARGUMENT);
}

TEST_F(CApiTest, IndexRemembersItsModel) {
  IndexPtr index = MakeIndex(SWE_DTYPE_F32);
  EXPECT_EQ(swe_index_check_model(index.get(), model_.get()), SWE_OK);  // no model recorded yet
  ASSERT_EQ(swe_index_set_model(index.get(), model_.get()), SWE_OK);
  EXPECT_EQ(swe_index_check_model(index.get(), model_.get()), SWE_OK);

  std::vector<uint8_t> other_bytes = swe::testing::ModelBytes(Contents(8));
  swe_model* other = nullptr;
  ASSERT_EQ(swe_model_load_from_bytes(other_bytes.data(), other_bytes.size(), nullptr, &other), SWE_OK);
  EXPECT_EQ(swe_index_check_model(index.get(), other), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(swe_last_error()).find("c-api-test"), std::string::npos);
  swe_model_free(other);
  EXPECT_EQ(swe_index_set_model(nullptr, model_.get()), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_index_check_model(index.get(), nullptr), SWE_ERR_INVALID_ARGUMENT);
}

TEST_F(CApiTest, ModelIsSharedAcrossThreads) {
  std::vector<std::vector<float>> expected;
  for (const std::string& text : kTexts) expected.push_back(CoreEncode(text));
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 200; ++round) {
        const size_t i = static_cast<size_t>(round + t) % kTexts.size();
        std::vector<float> v(kDims);
        if (swe_model_encode_text(model_.get(), kTexts[i].data(), kTexts[i].size(), nullptr, v.data(), v.size(),
                                  nullptr) != SWE_OK ||
            !BitEqual(v, expected[i])) {
          ++mismatches[t];
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

TEST_F(CApiTest, LastErrorIsPerThread) {
  swe_model* m = nullptr;
  ASSERT_EQ(swe_model_load_from_file(nullptr, nullptr, &m), SWE_ERR_INVALID_ARGUMENT);
  const std::string mine = swe_last_error();
  std::string theirs_before, theirs_after;
  std::thread([&] {
    theirs_before = swe_last_error();
    std::vector<uint8_t> garbage(64, 1);
    swe_model* x = nullptr;
    swe_model_load_from_bytes(garbage.data(), garbage.size(), nullptr, &x);
    theirs_after = swe_last_error();
  }).join();
  EXPECT_EQ(theirs_before, "");
  EXPECT_NE(theirs_after, "");
  EXPECT_EQ(std::string(swe_last_error()), mine);
  // Success does not clear it.
  std::vector<float> v(kDims);
  ASSERT_EQ(swe_model_encode_text(model_.get(), "cat", 3, nullptr, v.data(), v.size(), nullptr), SWE_OK);
  EXPECT_EQ(std::string(swe_last_error()), mine);
}

}  // namespace
