// swe convert --from model2vec on the model2vec-rs fixtures (../shared/data/fixtures/model2vec-rs):
// the converted models must reproduce the reference embeddings (embeddings_*.json, computed by the
// Python model2vec package; compared with model2vec-rs's own tolerance) and, for the f16 and int8
// variants, an independent computation from the raw safetensors bytes. Plus the converter's errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swe/encoder.h"
#include "swe/tokenizer.h"
#include "swe/model_file.h"
#include "test_paths.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kFixtures = fs::path(swe::test::SharedData()) / "fixtures/model2vec-rs/fixtures";

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class Model2VecTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("swe_m2v_test_" + std::to_string(getpid())));
    fs::create_directories(*dir_);
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(*dir_, ec);
    delete dir_;
  }

  // Runs swe with `args`; returns the exit code, stderr in *err.
  static int Swe(const std::vector<std::string>& args, std::string* err = nullptr) {
    std::string cmd = std::string("'") + swe::test::CliPath() + "'";
    for (const std::string& a : args) cmd += " '" + a + "'";
    cmd += " >'" + (*dir_ / "out").string() + "' 2>'" + (*dir_ / "err").string() + "'";
    const int status = std::system(cmd.c_str());
    if (err) *err = ReadFile(*dir_ / "err");
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  // Converts fixture `variant` and reads the model back.
  static std::unique_ptr<swe::Model> Convert(const std::string& variant) {
    const fs::path out = *dir_ / (variant + ".swe");
    std::string err;
    EXPECT_EQ(Swe({"convert", "--from", "model2vec", (kFixtures / ("test-model-" + variant)).string(), "-o", out.string()}, &err), 0)
        << err;
    const std::string bytes = ReadFile(out);
    std::unique_ptr<swe::Model> model;
    swe::Status s = swe::ReadModel(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &model);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return model;
  }

  static std::vector<float> Encode(const swe::Model& model, const std::string& text) {
    swe::Encoder encoder(model);
    std::vector<float> v(encoder.dims());
    encoder.Encode(text, v.data());
    return v;
  }

  static fs::path* dir_;
};

fs::path* Model2VecTest::dir_ = nullptr;

std::vector<float> Expected(const std::string& file) {
  json j = json::parse(ReadFile(kFixtures / file));
  return j.at(0).get<std::vector<float>>();
}

// model2vec-rs's check: |a - e| <= 1e-5 * max(|a|, |e|) for every component.
void ExpectMatches(const std::vector<float>& got, const std::vector<float>& want, double relative) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_LE(std::fabs(got[i] - want[i]), relative * std::max(std::fabs(got[i]), std::fabs(want[i])))
        << i << ": " << got[i] << " vs " << want[i];
  }
}

const std::string kLong = [] {
  std::string s = "hello";
  for (int i = 1; i < 1000; ++i) s += " hello";
  return s;
}();

TEST_F(Model2VecTest, Float32AndSentenceTransformersLayoutReproduceTheReference) {
  for (const char* variant : {"float32", "sentence-transformers"}) {
    SCOPED_TRACE(variant);
    auto model = Convert(variant);
    ASSERT_TRUE(model);
    EXPECT_EQ(model->tokenizer_config().units, swe::TokenUnits::kSubwordPieces);
    EXPECT_EQ(model->tokenizer_config().subword.kind, swe::SubwordKind::kWordPiece);
    EXPECT_TRUE(model->normalize());
    EXPECT_EQ(model->vocab_size(), 29528u - 5);  // [PAD] [UNK] [CLS] [SEP] [MASK] are never produced
    ExpectMatches(Encode(*model, "hello world"), Expected("embeddings_short.json"), 1e-5);
    ExpectMatches(Encode(*model, kLong), Expected("embeddings_long.json"), 1e-5);
  }
}

TEST_F(Model2VecTest, VocabularyQuantizedReproducesTheReference) {
  auto model = Convert("vocab-quantized");
  ASSERT_TRUE(model);
  EXPECT_EQ(model->tokenizer_config().subword.kind, swe::SubwordKind::kUnigram);
  EXPECT_EQ(model->dims(), 64u);
  ExpectMatches(Encode(*model, kLong), Expected("embeddings_vocab_quantized.json"), 1e-5);
}

// The rows of "hello" and "world" straight from the safetensors bytes, for an f16 or int8 table of
// 29528 x 2; the expected vector is their normalised mean.
std::vector<float> FromRawBytes(const std::string& variant) {
  const fs::path dir = kFixtures / ("test-model-" + variant);
  const json vocab = json::parse(ReadFile(dir / "tokenizer.json"))["model"]["vocab"];
  const std::string st = ReadFile(dir / "model.safetensors");
  uint64_t header_len;
  std::memcpy(&header_len, st.data(), 8);
  const json header = json::parse(st.substr(8, header_len));
  const std::string dtype = header["embeddings"]["dtype"];
  const size_t base = 8 + header_len + header["embeddings"]["data_offsets"][0].get<size_t>();
  double sum[2] = {0, 0};
  for (const char* word : {"hello", "world"}) {
    const size_t id = vocab[word].get<size_t>();
    for (int j = 0; j < 2; ++j) {
      const size_t k = id * 2 + j;
      if (dtype == "I8") {
        sum[j] += static_cast<int8_t>(st[base + k]);
      } else {
        uint16_t h;
        std::memcpy(&h, st.data() + base + 2 * k, 2);
        const int e = (h >> 10) & 31, m = h & 1023;
        const double mag = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
        sum[j] += (h & 0x8000) ? -mag : mag;
      }
    }
  }
  const double norm = std::sqrt(sum[0] * sum[0] + sum[1] * sum[1]);
  return {static_cast<float>(sum[0] / norm), static_cast<float>(sum[1] / norm)};
}

TEST_F(Model2VecTest, Float16AndInt8MatchTheirOwnTablesAndTheReference) {
  for (const char* variant : {"float16", "int8"}) {
    SCOPED_TRACE(variant);
    auto model = Convert(variant);
    ASSERT_TRUE(model);
    const std::vector<float> got = Encode(*model, "hello world");
    ExpectMatches(got, FromRawBytes(variant), 1e-6);
    ExpectMatches(got, Expected("embeddings_short.json"), 1e-1);  // model2vec-rs's quantisation tolerance
  }
}

TEST_F(Model2VecTest, StoredDtypesAndTokenization) {
  const fs::path out = *dir_ / "int8.swe";
  ASSERT_EQ(Swe({"convert", "--from", "model2vec", (kFixtures / "test-model-vocab-quantized").string(), "-o",
                 out.string(), "--dtype", "int8"}),
            0);
  const std::string bytes = ReadFile(out);
  std::unique_ptr<swe::Model> model;
  ASSERT_TRUE(swe::ReadModel(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &model).ok());
  EXPECT_EQ(model->dtype(), swe::DType::kInt8);
  // int8 rows: each value within half a step (max|row| / 254) before normalisation.
  const std::vector<float> got = Encode(*model, kLong), want = Expected("embeddings_vocab_quantized.json");
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 3e-3) << i;
  // Punctuation is a token of its own (BERT's pre-tokenizer); words split into WordPiece tokens.
  auto f32 = Convert("float32");
  ASSERT_TRUE(f32);
  swe::Tokenizer tokenizer(*f32);
  std::vector<uint32_t> ids;
  tokenizer.Encode("Hello, world!", &ids);
  ASSERT_EQ(ids.size(), 4u);
  EXPECT_EQ(f32->word(ids[0]), "hello");
  EXPECT_EQ(f32->word(ids[1]), ",");
  EXPECT_EQ(f32->word(ids[3]), "!");
}

TEST_F(Model2VecTest, Errors) {
  const fs::path bad = *dir_ / "bad";
  fs::create_directories(bad);
  std::string err;
  const std::string out = (*dir_ / "x.swe").string();
  // Missing folder / missing tokenizer.json.
  EXPECT_EQ(Swe({"convert", "--from", "model2vec", (bad / "none").string(), "-o", out}, &err), 1);
  EXPECT_NE(err.find("no model.safetensors with tokenizer.json"), std::string::npos) << err;
  fs::copy_file(kFixtures / "test-model-float32/model.safetensors", bad / "model.safetensors");
  EXPECT_EQ(Swe({"convert", "--from", "model2vec", bad.string(), "-o", out}, &err), 1);
  EXPECT_NE(err.find("no model.safetensors with tokenizer.json"), std::string::npos) << err;
  // Tokenizer with another vocabulary size than the table.
  fs::copy_file(kFixtures / "test-model-vocab-quantized/tokenizer.json", bad / "tokenizer.json");
  EXPECT_EQ(Swe({"convert", "--from", "model2vec", bad.string(), "-o", out}, &err), 1);
  EXPECT_NE(err.find("29528 embedding rows for 29524 tokens"), std::string::npos) << err;
  // Corrupt safetensors headers: a length past the file, then JSON that is not a header.
  fs::copy_file(kFixtures / "test-model-float32/tokenizer.json", bad / "tokenizer.json",
                fs::copy_options::overwrite_existing);
  std::string st = ReadFile(kFixtures / "test-model-float32/model.safetensors");
  const uint64_t huge = uint64_t{1} << 40;
  std::memcpy(&st[0], &huge, 8);
  std::ofstream(bad / "model.safetensors", std::ios::binary | std::ios::trunc) << st;
  EXPECT_EQ(Swe({"convert", "--from", "model2vec", bad.string(), "-o", out}, &err), 1);
  EXPECT_NE(err.find("model.safetensors"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  std::string garbage = std::string("\x10\0\0\0\0\0\0\0", 8) + "{\"embeddings\": 1";
  std::ofstream(bad / "model.safetensors", std::ios::binary | std::ios::trunc) << garbage;
  EXPECT_EQ(Swe({"convert", "--from", "model2vec", bad.string(), "-o", out}, &err), 1);
  EXPECT_NE(err.find("model.safetensors"), std::string::npos) << err;
  // An unsupported tokenizer model.
  fs::copy_file(kFixtures / "test-model-float32/model.safetensors", bad / "model.safetensors",
                fs::copy_options::overwrite_existing);
  std::ofstream(bad / "tokenizer.json", std::ios::trunc) << R"({"model": {"type": "BPE", "vocab": {}}})";
  EXPECT_EQ(Swe({"convert", "--from", "model2vec", bad.string(), "-o", out}, &err), 1);
  EXPECT_NE(err.find("'BPE' is not supported"), std::string::npos) << err;
  // --top does not apply.
  EXPECT_EQ(Swe({"convert", "--from", "model2vec", (kFixtures / "test-model-float32").string(), "-o", out, "--top", "5"},
                &err),
            2);
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
