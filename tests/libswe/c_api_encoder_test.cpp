// swe_encoder (swe.h, "encoders"): the per-thread encoder state owned by the caller. Its vectors are
// bit for bit those of the swe_model_encode_* calls (and of core's Encoder), whatever dims, text
// lengths, models and threads it sees in turn; its bad arguments are refused with a message.
#include <string>
#include <thread>
#include <vector>

#include "libswe/c_api_fixture.h"

namespace swe_c_api_test {
namespace {

struct EncoderDeleter {
  void operator()(swe_encoder* e) const { swe_encoder_free(e); }
};
using EncoderPtr = std::unique_ptr<swe_encoder, EncoderDeleter>;

EncoderPtr NewEncoder(const swe_model* model) {
  swe_encoder* raw = nullptr;
  EXPECT_EQ(swe_encoder_new(model, &raw), SWE_OK) << swe_last_error();
  return EncoderPtr(raw);
}

std::string LongText() {  // longer than what the thread's kept encoder serves (4 KB)
  std::string t;
  while (t.size() <= 5000) t += "the cat sat on the mat in new york ";
  return t;
}

// The vector of `text` from swe_encoder_encode_text() and from swe_model_encode_text(); false on failure.
bool EncodeBoth(swe_encoder* encoder, const swe_model* model, const std::string& text, uint32_t dims,
                std::vector<float>* mine, std::vector<float>* model_calls) {
  swe_encode_params params = swe_encode_default_params();
  params.dims = dims;
  const uint32_t d = swe_model_get_encode_dims(model, &params);
  mine->assign(d, -1.0f);
  model_calls->assign(d, -2.0f);
  uint32_t words_a = 0, words_b = 1;
  return swe_encoder_encode_text(encoder, text.data(), text.size(), &params, mine->data(), d, &words_a) == SWE_OK &&
         swe_model_encode_text(model, text.data(), text.size(), &params, model_calls->data(), d, &words_b) == SWE_OK &&
         words_a == words_b;
}

TEST_F(CApiTest, EncoderEqualsModelCalls) {
  EncoderPtr encoder = NewEncoder(model_.get());
  std::vector<std::string> texts = kTexts;
  texts.push_back(LongText());
  for (uint32_t dims : {0u, 8u, 0u, 3u, kDims, 3u}) {  // dims changing from call to call
    for (const std::string& text : texts) {
      std::vector<float> mine, expected;
      ASSERT_TRUE(EncodeBoth(encoder.get(), model_.get(), text, dims, &mine, &expected)) << swe_last_error();
      EXPECT_TRUE(BitEqual(mine, expected)) << dims << " " << text.size();
      EXPECT_TRUE(BitEqual(mine, CoreEncode(text, dims))) << dims << " " << text.size();
    }
    std::vector<swe_text> batch;
    for (const std::string& t : texts) batch.push_back({t.data(), t.size()});
    swe_encode_params params = swe_encode_default_params();
    params.dims = dims;
    const uint32_t d = swe_model_get_encode_dims(model_.get(), &params);
    std::vector<float> mine(batch.size() * d), expected(batch.size() * d);
    std::vector<uint32_t> my_words(batch.size()), expected_words(batch.size());
    ASSERT_EQ(swe_encoder_encode_batch(encoder.get(), batch.data(), batch.size(), &params, mine.data(), mine.size(),
                                       my_words.data()), SWE_OK) << swe_last_error();
    ASSERT_EQ(swe_model_encode_batch(model_.get(), batch.data(), batch.size(), &params, expected.data(),
                                     expected.size(), expected_words.data()), SWE_OK);
    EXPECT_TRUE(BitEqual(mine, expected)) << dims;
    EXPECT_EQ(my_words, expected_words) << dims;
  }
}

TEST_F(CApiTest, EncodersOfTwoModelsInTurn) {
  std::vector<uint8_t> other_bytes = swe::testing::ModelBytes(Contents(8));
  swe_model* raw = nullptr;
  ASSERT_EQ(swe_model_load_from_bytes(other_bytes.data(), other_bytes.size(), nullptr, &raw), SWE_OK);
  ModelPtr other(raw);
  EncoderPtr a = NewEncoder(model_.get());
  EncoderPtr b = NewEncoder(other.get());
  for (int round = 0; round < 3; ++round) {
    for (const std::string& text : kTexts) {
      std::vector<float> va, ea, vb, eb;
      ASSERT_TRUE(EncodeBoth(a.get(), model_.get(), text, 0, &va, &ea));
      ASSERT_TRUE(EncodeBoth(b.get(), other.get(), text, 0, &vb, &eb));
      EXPECT_TRUE(BitEqual(va, ea)) << text;
      EXPECT_TRUE(BitEqual(vb, eb)) << text;
      if (!text.empty() && text != "zzz qqq") EXPECT_FALSE(BitEqual(va, vb)) << text;  // two different models
    }
  }
}

// One thread at a time: an encoder handed from thread to thread keeps giving the same vectors.
TEST_F(CApiTest, EncoderMovesBetweenThreads) {
  EncoderPtr encoder = NewEncoder(model_.get());
  for (int t = 0; t < 4; ++t) {
    bool same = false;
    std::thread([&] {
      std::vector<float> mine, expected;
      same = EncodeBoth(encoder.get(), model_.get(), kTexts[t % kTexts.size()], t % 2 ? 8 : 0, &mine, &expected) &&
             BitEqual(mine, expected);
    }).join();
    EXPECT_TRUE(same) << t;
  }
}

TEST_F(CApiTest, EncoderRejectsBadArguments) {
  swe_encoder* raw = reinterpret_cast<swe_encoder*>(1);
  EXPECT_EQ(swe_encoder_new(nullptr, &raw), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(raw, nullptr);
  EXPECT_NE(std::string(swe_last_error()).find("model is NULL"), std::string::npos);
  EXPECT_EQ(swe_encoder_new(model_.get(), nullptr), SWE_ERR_INVALID_ARGUMENT);
  swe_encoder_free(nullptr);

  EncoderPtr encoder = NewEncoder(model_.get());
  std::vector<float> v(kDims);
  const std::string text = "cat";
  EXPECT_EQ(swe_encoder_encode_text(nullptr, text.data(), text.size(), nullptr, v.data(), v.size(), nullptr),
            SWE_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(swe_last_error()).find("swe_encoder_encode_text"), std::string::npos);
  EXPECT_EQ(swe_encoder_encode_text(encoder.get(), nullptr, 3, nullptr, v.data(), v.size(), nullptr),
            SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_encoder_encode_text(encoder.get(), text.data(), text.size(), nullptr, nullptr, v.size(), nullptr),
            SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_encoder_encode_text(encoder.get(), text.data(), text.size(), nullptr, v.data(), kDims - 1, nullptr),
            SWE_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(swe_last_error()).find("too small"), std::string::npos);
  swe_encode_params params = swe_encode_default_params();
  params.dims = kDims + 1;
  EXPECT_EQ(swe_encoder_encode_text(encoder.get(), text.data(), text.size(), &params, v.data(), v.size(), nullptr),
            SWE_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(swe_last_error()).find("exceeds"), std::string::npos);

  EXPECT_EQ(swe_encoder_encode_batch(nullptr, nullptr, 0, nullptr, nullptr, 0, nullptr), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_encoder_encode_batch(encoder.get(), nullptr, 0, nullptr, nullptr, 0, nullptr), SWE_OK);
  EXPECT_EQ(swe_encoder_encode_batch(encoder.get(), nullptr, 2, nullptr, nullptr, 0, nullptr), SWE_ERR_INVALID_ARGUMENT);
  std::vector<float> out(2 * kDims);
  swe_text bad[2] = {{"cat", 3}, {nullptr, 4}};
  EXPECT_EQ(swe_encoder_encode_batch(encoder.get(), bad, 2, nullptr, out.data(), out.size(), nullptr), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(swe_last_error()).find("swe_encoder_encode_batch: text 1"), std::string::npos);
  EXPECT_EQ(swe_encoder_encode_batch(encoder.get(), bad, 1, nullptr, out.data(), kDims - 1, nullptr), SWE_ERR_INVALID_ARGUMENT);

  // After the refusals it still encodes as the model does.
  std::vector<float> mine, expected;
  ASSERT_TRUE(EncodeBoth(encoder.get(), model_.get(), kTexts[0], 0, &mine, &expected));
  EXPECT_TRUE(BitEqual(mine, expected));
}

}  // namespace
}  // namespace swe_c_api_test
