// The encoder against a brute-force reference: the (weighted) mean of the rows, computed here in
// double from the contents the model was written from.
#include "swe/encoder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/test_models.h"

namespace swe {
namespace {

using testing::BuildModel;
using testing::RandomContents;

const std::vector<std::string> kWords = {"alpha",   "beta", "gamma", "delta",
                                         "epsilon", "zeta", "eta",   "theta"};
constexpr uint32_t kDims = 19;  // odd: exercises the kernels' tails

// Rows of `words` (known ones) from `c`, weighted, summed in double; divided by the weight sum;
// then truncated to `dims` and normalised when `normalize`.
std::vector<double> Reference(const ModelContents& c, const std::vector<std::string>& words, uint32_t dims,
                              bool normalize) {
  std::map<std::string, size_t> row;
  for (size_t i = 0; i < c.words.size(); ++i) row[c.words[i]] = i;
  std::vector<double> sum(dims, 0.0);
  double total = 0;
  for (const std::string& w : words) {
    auto it = row.find(w);
    if (it == row.end()) continue;
    const double weight = c.weights.empty() ? 1.0 : c.weights[it->second];
    for (uint32_t d = 0; d < dims; ++d) sum[d] += weight * c.vectors[it->second * c.dims + d];
    total += weight;
  }
  if (total == 0) return std::vector<double>(dims, 0.0);
  for (double& v : sum) v /= total;
  if (normalize) {
    double norm = 0;
    for (double v : sum) norm += v * v;
    norm = std::sqrt(norm);
    if (norm > 0) {
      for (double& v : sum) v /= norm;
    }
  }
  return sum;
}

std::vector<std::string> Split(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

void ExpectNear(const std::vector<float>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "dim " << i;
}

void ExpectZero(const std::vector<float>& v) {
  for (float x : v) {
    EXPECT_EQ(x, 0.0f);
    EXPECT_FALSE(std::signbit(x));
  }
}

const char* const kTexts[] = {"alpha", "alpha beta gamma", "theta theta eta",
                              "delta epsilon zeta eta theta alpha beta", "gamma unknownword beta"};

// Tolerance per table type against the f32 contents: f16 keeps 11 bits, int8 about 7 per row.
double Tolerance(DType dtype) { return dtype == DType::kF32 ? 2e-6 : dtype == DType::kF16 ? 2e-3 : 2e-2; }

class EncoderDTypeTest : public ::testing::TestWithParam<DType> {};

TEST_P(EncoderDTypeTest, MeanMatchesReference) {
  ModelContents c = RandomContents(kWords, kDims, 7);
  c.normalize = false;
  auto model = BuildModel(c, GetParam());
  ASSERT_TRUE(model);
  Encoder encoder(*model);
  ASSERT_EQ(encoder.dims(), kDims);
  for (const char* text : kTexts) {
    SCOPED_TRACE(text);
    std::vector<float> out(kDims, 99.0f);
    const uint32_t used = encoder.Encode(text, out.data());
    std::vector<std::string> words = Split(text);
    uint32_t known = 0;
    for (const std::string& w : words) known += (w != "unknownword");
    EXPECT_EQ(used, known);
    ExpectNear(out, Reference(c, words, kDims, false), Tolerance(GetParam()));
  }
}

TEST_P(EncoderDTypeTest, NormalizedMeanMatchesReference) {
  ModelContents c = RandomContents(kWords, kDims, 8);
  auto model = BuildModel(c, GetParam());
  ASSERT_TRUE(model);
  ASSERT_TRUE(model->normalize());
  Encoder encoder(*model);
  for (const char* text : kTexts) {
    SCOPED_TRACE(text);
    std::vector<float> out(kDims);
    encoder.Encode(text, out.data());
    ExpectNear(out, Reference(c, Split(text), kDims, true), Tolerance(GetParam()));
    double norm = 0;
    for (float v : out) norm += double{v} * v;
    EXPECT_NEAR(norm, 1.0, 1e-6);
  }
}

TEST_P(EncoderDTypeTest, MatchesTheModelsOwnRowsTightly) {
  // Against the dequantised rows (CopyRow), the only error left is float summation, and for int8 the
  // fixed-point coefficients of its integer sums: half a unit, 2^-15 of the largest scale, per value.
  ModelContents c = RandomContents(kWords, kDims, 9);
  c.normalize = false;
  auto model = BuildModel(c, GetParam());
  ASSERT_TRUE(model);
  ModelContents decoded = model->ToContents();
  Encoder encoder(*model);
  for (const char* text : kTexts) {
    std::vector<float> out(kDims);
    encoder.Encode(text, out.data());
    double largest = 0;  // of the text's dequantised values
    for (const std::string& w : Split(text)) {
      const int64_t id = model->find(w);
      for (uint32_t i = 0; id >= 0 && i < kDims; ++i) largest = std::max(largest, std::fabs(double{decoded.vectors[id * kDims + i]}));
    }
    const double fixed_point = GetParam() == DType::kInt8 ? largest * 128.0 / 127.0 * std::ldexp(1.0, -15) : 0.0;
    ExpectNear(out, Reference(decoded, Split(text), kDims, false), 2e-6 + fixed_point);
  }
}

TEST_P(EncoderDTypeTest, BitIdenticalToOneAccumulateRowPerWord) {
  // The encoder's gather path (Model::AccumulateRows) against the per-word API, weighted or not. An
  // int8 table's gather sums in fixed point (kernels_impl.h's GatherI8), not as the per-word float
  // calls: the encoder must give exactly the gather's bits, and the gather stay within its bound.
  for (bool weighted : {false, true}) {
    ModelContents c = RandomContents(kWords, kDims, 16);
    if (weighted) c.weights = {0.5f, 2.0f, 0.0f, 1.0f, 3.25f, 0.125f, 1.0f, 0.75f};
    auto model = BuildModel(c, GetParam());
    ASSERT_TRUE(model);
    Encoder encoder(*model);
    Tokenizer tokenizer(*model);
    for (const char* text : kTexts) {
      std::vector<uint32_t> ids;
      tokenizer.Encode(text, &ids);
      const bool int8 = GetParam() == DType::kInt8;
      std::vector<float> want(kDims, 0.0f), got(kDims);
      if (int8) {
        model->AccumulateRows(ids.data(), ids.size(), want.data(), kDims);
      } else {
        for (uint32_t id : ids) {
          if (model->weight(id) != 0.0f) model->AccumulateRow(id, model->weight(id), want.data(), kDims);
        }
      }
      NormalizeL2(want.data(), kDims);
      encoder.Encode(text, got.data());
      EXPECT_EQ(std::memcmp(want.data(), got.data(), sizeof(float) * kDims), 0) << text << " " << weighted;
      std::vector<float> rows(kDims, 0.0f);
      model->AccumulateRows(ids.data(), ids.size(), rows.data(), kDims);
      std::vector<float> each(kDims, 0.0f);
      double bound = 0;  // int8: half a fixed-point unit per row and value
      for (uint32_t id : ids) {
        model->AccumulateRow(id, model->weight(id), each.data(), kDims);
        if (int8) bound += 128.0 * std::ldexp(1.0, -15);
      }
      if (!int8) {
        EXPECT_EQ(std::memcmp(rows.data(), each.data(), sizeof(float) * kDims), 0) << text << " " << weighted;
        continue;
      }
      double largest = 0;  // coefficient
      for (uint32_t id : ids) {
        std::vector<float> row(kDims);
        model->CopyRow(id, row.data());
        double m = 0;
        for (float v : row) m = std::max(m, std::fabs(double{v}));
        largest = std::max(largest, m / 127.0 * model->weight(id));
      }
      for (uint32_t i = 0; i < kDims; ++i) EXPECT_NEAR(rows[i], each[i], bound * largest + 1e-6) << text << " " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllTables, EncoderDTypeTest,
                         ::testing::Values(DType::kF32, DType::kF16, DType::kInt8),
                         [](const ::testing::TestParamInfo<DType>& info) { return dtype_name(info.param); });

TEST(Encoder, WeightedMean) {
  ModelContents c = RandomContents(kWords, kDims, 10);
  c.normalize = false;
  c.weights = {0.5f, 2.0f, 0.0f, 1.0f, 3.25f, 0.125f, 1.0f, 0.75f};
  auto model = BuildModel(c);
  ASSERT_TRUE(model);
  Encoder encoder(*model);
  for (const char* text : kTexts) {
    SCOPED_TRACE(text);
    std::vector<float> out(kDims);
    encoder.Encode(text, out.data());
    ExpectNear(out, Reference(c, Split(text), kDims, false), 2e-6);
  }
  // Only zero-weight words: nothing contributes, zero vector.
  std::vector<float> out(kDims, 5.0f);
  EXPECT_EQ(encoder.Encode("gamma gamma", out.data()), 0u);
  ExpectZero(out);
  // A zero-weight word does not count.
  EXPECT_EQ(encoder.Encode("gamma alpha", out.data()), 1u);
}

TEST(Encoder, TruncatesBeforeNormalising) {
  ModelContents c = RandomContents(kWords, kDims, 11);
  auto model = BuildModel(c);
  ASSERT_TRUE(model);
  for (uint32_t dims : {1u, 5u, 8u, 18u}) {
    EncodeOptions options;
    options.dims = dims;
    Encoder encoder(*model, options);
    ASSERT_EQ(encoder.dims(), dims);
    std::vector<float> out(dims + 1, 42.0f);
    encoder.Encode("alpha beta gamma", out.data());
    EXPECT_EQ(out[dims], 42.0f);  // writes exactly dims() floats
    out.pop_back();
    ExpectNear(out, Reference(c, {"alpha", "beta", "gamma"}, dims, true), 2e-6);
  }
  for (uint32_t dims : {0u, kDims, kDims + 1, 100000u}) {
    EncodeOptions options;
    options.dims = dims;
    EXPECT_EQ(Encoder(*model, options).dims(), kDims) << dims;
  }
}

TEST(Encoder, NoKnownWordGivesZeros) {
  for (bool normalize : {true, false}) {
    ModelContents c = RandomContents(kWords, kDims, 12);
    c.normalize = normalize;
    auto model = BuildModel(c, DType::kInt8);
    ASSERT_TRUE(model);
    Encoder encoder(*model);
    for (const char* text : {"", " ", "\t\n", "...!?", "unknown words only", "\xFF\xFE"}) {
      std::vector<float> out(kDims, 3.0f);
      EXPECT_EQ(encoder.Encode(text, out.data()), 0u) << text;
      ExpectZero(out);
    }
  }
}

TEST(Encoder, BatchEqualsSingle) {
  ModelContents c = RandomContents(kWords, kDims, 13);
  auto model = BuildModel(c, DType::kF16);
  ASSERT_TRUE(model);
  Encoder encoder(*model);
  std::vector<std::string_view> texts;  // more than a chunk of the batch (64 texts), empty ones among them
  for (int round = 0; round < 30; ++round) {
    texts.insert(texts.end(), std::begin(kTexts), std::end(kTexts));
    if (round % 4 == 0) texts.push_back("");
  }
  texts.push_back("alpha");
  std::vector<float> batch(texts.size() * kDims, 7.0f);
  std::vector<uint32_t> n_words(texts.size(), 99);
  encoder.EncodeBatch(texts.data(), texts.size(), batch.data(), n_words.data());
  std::vector<float> without_counts(batch.size());
  encoder.EncodeBatch(texts.data(), texts.size(), without_counts.data());
  EXPECT_EQ(without_counts, batch);
  Encoder other(*model);
  for (size_t i = 0; i < texts.size(); ++i) {
    std::vector<float> single(kDims);
    EXPECT_EQ(other.Encode(texts[i], single.data()), n_words[i]) << texts[i];
    EXPECT_EQ(std::memcmp(single.data(), batch.data() + i * kDims, kDims * sizeof(float)), 0) << texts[i];
  }
}

// int8 rows are summed exactly in integers: a text's words in any order give the same bits (up to
// 512 words, one chunk of the sum; the f32 and f16 sums follow the text's order).
TEST(Encoder, Int8SumIsIndependentOfWordOrder) {
  ModelContents c = RandomContents(kWords, 256, 15);
  c.weights = {0.5f, 2.0f, 0.0f, 1.0f, 3.25f, 0.125f, 1.0f, 0.75f};
  auto model = BuildModel(c, DType::kInt8);
  ASSERT_TRUE(model);
  Encoder encoder(*model);
  std::vector<std::string> words;
  for (int i = 0; i < 500; ++i) words.push_back(kWords[(i * 7 + i / 3) % kWords.size()]);
  std::mt19937 rng(16);
  std::vector<float> first(256), again(256);
  std::string text;
  for (const std::string& w : words) text += w + " ";
  encoder.Encode(text, first.data());
  for (int round = 0; round < 5; ++round) {
    std::shuffle(words.begin(), words.end(), rng);
    text.clear();
    for (const std::string& w : words) text += w + " ";
    encoder.Encode(text, again.data());
    EXPECT_EQ(std::memcmp(first.data(), again.data(), sizeof(float) * 256), 0) << "round " << round;
  }
}

TEST(Encoder, RepeatableAndIndependentOfHistory) {
  ModelContents c = RandomContents(kWords, kDims, 14);
  auto model = BuildModel(c);
  ASSERT_TRUE(model);
  Encoder encoder(*model);
  std::vector<float> first(kDims), second(kDims);
  encoder.Encode("beta gamma", first.data());
  encoder.Encode("delta epsilon zeta eta theta alpha beta delta", second.data());
  encoder.Encode("beta gamma", second.data());
  EXPECT_EQ(std::memcmp(first.data(), second.data(), sizeof(float) * kDims), 0);
}

TEST(Cosine, BasicCases) {
  const float a[] = {1, 0, 0, 0, 0, 0, 0, 0, 0};
  const float b[] = {0, 2, 0, 0, 0, 0, 0, 0, 0};
  const float c[] = {3, 0, 0, 0, 0, 0, 0, 0, 0};
  const float d[] = {-1, 1, 0, 0, 0, 0, 0, 0, 0};
  const float zero[9] = {};
  EXPECT_FLOAT_EQ(Cosine(a, c, 9), 1.0f);
  EXPECT_FLOAT_EQ(Cosine(a, b, 9), 0.0f);
  EXPECT_NEAR(Cosine(a, d, 9), -std::sqrt(0.5), 1e-7);
  EXPECT_EQ(Cosine(a, zero, 9), 0.0f);
  EXPECT_EQ(Cosine(zero, zero, 9), 0.0f);
  EXPECT_EQ(Cosine(a, b, 0), 0.0f);
}

TEST(Cosine, MatchesDoubleOnRandomVectors) {
  ModelContents c = RandomContents({"x", "y"}, 301, 15);
  const float* x = c.vectors.data();
  const float* y = x + 301;
  double xy = 0, xx = 0, yy = 0;
  for (int i = 0; i < 301; ++i) {
    xy += double{x[i]} * y[i];
    xx += double{x[i]} * x[i];
    yy += double{y[i]} * y[i];
  }
  EXPECT_NEAR(Cosine(x, y, 301), xy / std::sqrt(xx * yy), 1e-6);
}

TEST(NormalizeL2, UnitNormAndEdgeCases) {
  for (float magnitude : {1.0f, 1e-30f, 1e-42f, 1e30f, 5e37f}) {
    std::vector<float> v = {3 * magnitude, -4 * magnitude, 0.0f};
    NormalizeL2(v.data(), 3);
    EXPECT_NEAR(v[0], 0.6f, 1e-6) << magnitude;
    EXPECT_NEAR(v[1], -0.8f, 1e-6) << magnitude;
    EXPECT_EQ(v[2], 0.0f);
  }
  std::vector<float> zero(7, 0.0f);
  NormalizeL2(zero.data(), 7);
  ExpectZero(zero);
  NormalizeL2(nullptr, 0);  // nothing to do
}

}  // namespace
}  // namespace swe
