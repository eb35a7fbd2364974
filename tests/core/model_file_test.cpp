// Model format: round trips for every dtype, and every rejection path of the reader.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "container.h"
#include "core/test_models.h"
#include "swe/model_file.h"

namespace swe {
namespace {

using testing::BuildModel;
using testing::ModelBytes;
using testing::RandomContents;

const std::vector<std::string> kWords = {"the", "cat", "sat", "on", "mat", "Straße", "日本", "naïve"};

ModelContents FullContents() {
  ModelContents c = RandomContents(kWords, 12, 7);
  c.weights = {0.5f, 1, 2, 3, 4, 5, 6, 0};
  c.normalize = false;
  c.tokenizer.fold_case = false;
  c.tokenizer.strip_accents = true;
  c.tokenizer.cjk = CjkMode::kNone;
  c.tokenizer.max_tokens = 77;
  c.tokenizer.subword.kind = SubwordKind::kUnigram;
  c.tokenizer.subword.pieces = {"\xE2\x96\x81" "the", "c", "at", "\xE2\x96\x81"};
  c.tokenizer.subword.scores = {-1.5f, -2, -3, -4};
  c.tokenizer.subword.lowercase = true;
  c.provenance.name = "full";
  c.provenance.description = "every field set";
  c.provenance.teacher = "teacher-x";
  c.provenance.corpus = "corpus-y";
  c.provenance.corpus_hash = "abc123";
  c.provenance.recipe = "{\"d\": 12}";
  c.provenance.created_by = "model_file_test";
  c.provenance.placeholder = true;
  c.provenance.scores = {{"sts-b-dev", "spearman", 77.5}};
  c.provenance.extra = {{"k", "v"}};
  return c;
}

TEST(ModelFile, RoundTripF32IsExact) {
  ModelContents c = FullContents();
  std::unique_ptr<Model> m = BuildModel(c, DType::kF32);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->dims(), 12u);
  EXPECT_EQ(m->vocab_size(), kWords.size());
  EXPECT_EQ(m->dtype(), DType::kF32);
  ModelContents back = m->ToContents();
  EXPECT_EQ(back.words, c.words);
  EXPECT_EQ(back.vectors, c.vectors);
  EXPECT_EQ(back.weights, c.weights);
  EXPECT_FALSE(back.normalize);
  EXPECT_FALSE(back.tokenizer.fold_case);
  EXPECT_TRUE(back.tokenizer.strip_accents);
  EXPECT_EQ(back.tokenizer.cjk, CjkMode::kNone);
  EXPECT_EQ(back.tokenizer.max_tokens, 77u);
  EXPECT_EQ(back.tokenizer.subword.kind, SubwordKind::kUnigram);
  EXPECT_EQ(back.tokenizer.subword.pieces, c.tokenizer.subword.pieces);
  EXPECT_EQ(back.tokenizer.subword.scores, c.tokenizer.subword.scores);
  EXPECT_TRUE(back.tokenizer.subword.lowercase);
  const Provenance& p = back.provenance;
  EXPECT_EQ(p.name, "full");
  EXPECT_EQ(p.description, "every field set");
  EXPECT_EQ(p.teacher, "teacher-x");
  EXPECT_EQ(p.corpus, "corpus-y");
  EXPECT_EQ(p.corpus_hash, "abc123");
  EXPECT_EQ(p.recipe, "{\"d\": 12}");
  EXPECT_EQ(p.created_by, "model_file_test");
  EXPECT_TRUE(p.placeholder);
  ASSERT_EQ(p.scores.size(), 1u);
  EXPECT_EQ(p.scores[0].task, "sts-b-dev");
  EXPECT_DOUBLE_EQ(p.scores[0].value, 77.5);
  ASSERT_EQ(p.extra.size(), 1u);
  EXPECT_EQ(p.extra[0].second, "v");
}

TEST(ModelFile, RoundTripsEveryCjkModeWithoutHeaderFlags) {
  for (CjkMode cjk : {CjkMode::kNone, CjkMode::kCharacters, CjkMode::kBigrams, CjkMode::kLongest}) {
    ModelContents c = RandomContents(kWords, 4);
    c.tokenizer.cjk = cjk;
    const std::vector<uint8_t> bytes = ModelBytes(c);
    uint32_t flags;
    std::memcpy(&flags, bytes.data() + 36, 4);
    EXPECT_EQ(flags & ~container::kSealFlags, 0u);  // every reader knows the field; one that predates a mode rejects its value
    std::unique_ptr<Model> m;
    ASSERT_TRUE(ReadModel(bytes.data(), bytes.size(), &m).ok());
    EXPECT_EQ(m->tokenizer_config().cjk, cjk) << cjk_mode_name(cjk);
  }
}

TEST(ModelFile, CjkModeNamesRoundTrip) {
  for (CjkMode cjk : {CjkMode::kNone, CjkMode::kCharacters, CjkMode::kSubwords, CjkMode::kBigrams, CjkMode::kLongest}) {
    CjkMode back = CjkMode::kNone;
    EXPECT_TRUE(ParseCjkMode(cjk_mode_name(cjk), &back)) << cjk_mode_name(cjk);
    EXPECT_EQ(back, cjk);
  }
  EXPECT_STREQ(cjk_mode_name(CjkMode::kBigrams), "bigrams");
  EXPECT_STREQ(cjk_mode_name(CjkMode::kLongest), "longest");
  EXPECT_STREQ(cjk_mode_name(static_cast<CjkMode>(9)), "unknown");
  CjkMode out = CjkMode::kNone;
  EXPECT_FALSE(ParseCjkMode("unknown", &out));
  EXPECT_FALSE(ParseCjkMode("Bigrams", &out));
  EXPECT_EQ(out, CjkMode::kNone);
}

TEST(ModelFile, RoundTripF16WithinHalfPrecision) {
  ModelContents c = RandomContents(kWords, 33);
  std::unique_ptr<Model> m = BuildModel(c, DType::kF16);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->dtype(), DType::kF16);
  ModelContents back = m->ToContents();
  for (size_t i = 0; i < c.vectors.size(); ++i) {
    EXPECT_NEAR(back.vectors[i], c.vectors[i], std::fabs(c.vectors[i]) * (1.0f / 1024) + 1e-7f) << i;
  }
}

TEST(ModelFile, RoundTripInt8WithinOneStepPerRow) {
  ModelContents c = RandomContents(kWords, 40);
  for (uint32_t j = 0; j < c.dims; ++j) c.vectors[2 * c.dims + j] *= 1000;  // rows differ in scale
  for (uint32_t j = 0; j < c.dims; ++j) c.vectors[3 * c.dims + j] = 0;       // an all-zero row
  std::unique_ptr<Model> m = BuildModel(c, DType::kInt8);
  ASSERT_TRUE(m);
  ModelContents back = m->ToContents();
  for (size_t r = 0; r < kWords.size(); ++r) {
    float max_abs = 0;
    for (uint32_t j = 0; j < c.dims; ++j) max_abs = std::fmax(max_abs, std::fabs(c.vectors[r * c.dims + j]));
    for (uint32_t j = 0; j < c.dims; ++j) {
      const size_t i = r * c.dims + j;
      EXPECT_NEAR(back.vectors[i], c.vectors[i], max_abs / 127 * 0.5001f + 1e-9f) << r << "," << j;
    }
  }
}

TEST(ModelFile, StoredAndCompressedFramesReadTheSame) {
  ModelContents c = RandomContents(kWords, 16);
  for (size_t i = 0; i < c.vectors.size(); ++i) c.vectors[i] = static_cast<float>(i % 5) * 0.25f;  // compressible
  std::vector<uint8_t> stored = ModelBytes(c, DType::kF32, 0), packed = ModelBytes(c, DType::kF32, 19);
  ASSERT_LT(packed.size(), stored.size() * 3 / 4);  // really compressed
  std::unique_ptr<Model> a, b;
  ASSERT_TRUE(ReadModel(stored.data(), stored.size(), &a).ok());
  ASSERT_TRUE(ReadModel(packed.data(), packed.size(), &b).ok());
  EXPECT_EQ(a->ToContents().vectors, b->ToContents().vectors);
}

// A payload that zstd would shrink by less than 1/16 (random int8 rows) is stored at any level.
TEST(ModelFile, BarelyCompressiblePayloadsAreStored) {
  std::vector<std::string> words;
  for (int i = 0; i < 2000; ++i) words.push_back("w" + std::to_string(i));
  const ModelContents c = RandomContents(words, 256);
  EXPECT_EQ(ModelBytes(c, DType::kInt8, 19), ModelBytes(c, DType::kInt8, 0));
}

TEST(ModelFile, FindsEveryWordAndNothingElse) {
  std::vector<std::string> words;
  for (int i = 0; i < 5000; ++i) words.push_back("w" + std::to_string(i * 7919));
  std::unique_ptr<Model> m = BuildModel(RandomContents(words, 4));
  ASSERT_TRUE(m);
  for (size_t i = 0; i < words.size(); ++i) ASSERT_EQ(m->find(words[i]), int64_t(i));
  EXPECT_EQ(m->find(""), -1);
  EXPECT_EQ(m->find("w1"), -1);
  EXPECT_EQ(m->find(std::string("w0\0", 3)), -1);
}

// ---- writer rejections ----

Status Write(const ModelContents& c, DType dtype = DType::kF32) {
  std::vector<uint8_t> out;
  WriteOptions o;
  o.dtype = dtype;
  return WriteModel(c, o, &out);
}

TEST(ModelWriter, RejectsBadContents) {
  ModelContents c = RandomContents(kWords, 4);
  EXPECT_EQ(Write(ModelContents()).code(), StatusCode::kInvalidArgument);
  ModelContents dup = c;
  dup.words[1] = "the";
  EXPECT_NE(Write(dup).message().find("duplicate"), std::string::npos);
  ModelContents empty_word = c;
  empty_word.words[0] = "";
  EXPECT_FALSE(Write(empty_word).ok());
  ModelContents bad_utf8 = c;
  bad_utf8.words[0] = "\xC3";
  EXPECT_FALSE(Write(bad_utf8).ok());
  ModelContents short_vectors = c;
  short_vectors.vectors.pop_back();
  EXPECT_FALSE(Write(short_vectors).ok());
  ModelContents nan = c;
  nan.vectors[5] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(Write(nan).ok());
  ModelContents huge = c;
  huge.vectors[5] = 1e6f;
  EXPECT_FALSE(Write(huge, DType::kF16).ok());
  EXPECT_TRUE(Write(huge, DType::kInt8).ok());
  huge.vectors[5] = 1e13f;  // past 2^40: a sum of such rows could overflow (see kMaxStoredMagnitude)
  EXPECT_FALSE(Write(huge).ok());
  ModelContents heavy = c;
  heavy.weights.assign(c.words.size(), 1.0f);
  heavy.weights[2] = 1e13f;
  EXPECT_FALSE(Write(heavy).ok());
  ModelContents weights = c;
  weights.weights = {1, 2};
  EXPECT_FALSE(Write(weights).ok());
  ModelContents zero_dims = c;
  zero_dims.dims = 0;
  EXPECT_FALSE(Write(zero_dims).ok());
  ModelContents cjk = c;
  cjk.tokenizer.cjk = static_cast<CjkMode>(5);
  EXPECT_NE(Write(cjk).message().find("unknown CJK mode"), std::string::npos);
  cjk.tokenizer.cjk = CjkMode::kBigrams;  // subword-piece models split CJK only as none or characters
  cjk.tokenizer.units = TokenUnits::kSubwordPieces;
  cjk.tokenizer.subword.kind = SubwordKind::kWordPiece;
  cjk.tokenizer.subword.pieces = {"a"};
  EXPECT_NE(Write(cjk).message().find("none or characters"), std::string::npos);
  ModelContents unigram = c;
  unigram.tokenizer.subword.kind = SubwordKind::kUnigram;
  unigram.tokenizer.subword.pieces = {"a", "b"};
  EXPECT_FALSE(Write(unigram).ok());  // no scores
}

// ---- reader rejections: every path gives a status, never a crash ----

class ModelReaderTest : public ::testing::Test {
 protected:
  void SetUp() override { bytes_ = ModelBytes(RandomContents(kWords, 8), DType::kInt8); }
  Status Read(const std::vector<uint8_t>& b) {
    std::unique_ptr<Model> m;
    Status s = ReadModel(b.data(), b.size(), &m);
    EXPECT_EQ(s.ok(), m != nullptr);
    return s;
  }
  void Put32(size_t at, uint32_t v) { std::memcpy(bytes_.data() + at, &v, 4); }
  // The header's flags set to `kind_flags`, the sealing's own flags (raw, frame hash) kept.
  void PutKindFlags(uint32_t kind_flags) {
    uint32_t flags;
    std::memcpy(&flags, bytes_.data() + 36, 4);
    Put32(36, (flags & container::kSealFlags) | kind_flags);
  }
  void Put64(size_t at, uint64_t v) { std::memcpy(bytes_.data() + at, &v, 8); }
  // Replaces the payload with `message` (re-sealed, valid checksum), to reach the message checks.
  void Reseal(const std::vector<uint64_t>& message) {
    bytes_.clear();
    ASSERT_TRUE(container::Seal(container::Kind::kModel, reinterpret_cast<const uint8_t*>(message.data()),
                                message.size() * 8, 0, &bytes_).ok());
  }
  std::vector<uint64_t> Payload() {
    std::vector<uint64_t> message;
    uint32_t crc;
    EXPECT_TRUE(container::Open(bytes_.data(), bytes_.size(), container::Kind::kModel, ReadLimits(), &message, &crc).ok());
    return message;
  }
  std::vector<uint8_t> bytes_;
};

TEST_F(ModelReaderTest, AcceptsTheValidFile) { EXPECT_TRUE(Read(bytes_).ok()); }

TEST_F(ModelReaderTest, RejectsEmptyAndShortInput) {
  EXPECT_EQ(Read({}).code(), StatusCode::kCorrupt);
  EXPECT_EQ(Read(std::vector<uint8_t>(bytes_.begin(), bytes_.begin() + 20)).code(), StatusCode::kCorrupt);
  std::unique_ptr<Model> m;
  EXPECT_FALSE(ReadModel(nullptr, 10, &m).ok());
}

TEST_F(ModelReaderTest, RejectsBadMagic) {
  bytes_[1] = 'X';
  EXPECT_NE(Read(bytes_).message().find("magic"), std::string::npos);
}

TEST_F(ModelReaderTest, RejectsNewerVersion) {
  Put32(8, 2);
  EXPECT_EQ(Read(bytes_).code(), StatusCode::kUnsupported);
}

TEST_F(ModelReaderTest, RejectsAnIndexFileAsAModel) {
  Put32(12, uint32_t(container::Kind::kIndex));
  EXPECT_NE(Read(bytes_).message().find("index"), std::string::npos);
}

TEST_F(ModelReaderTest, RejectsUnknownFlags) {
  Put32(36, 2);
  EXPECT_EQ(Read(bytes_).code(), StatusCode::kUnsupported);
  Put32(36, 0x80000000u);
  EXPECT_EQ(Read(bytes_).code(), StatusCode::kUnsupported);
}

// Flag 1 marks subword-piece models; on a word model it contradicts the message.
TEST_F(ModelReaderTest, RejectsSubwordPiecesFlagOnWordModel) {
  PutKindFlags(1);
  Status s = Read(bytes_);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_NE(s.message().find("subword-pieces flag"), std::string::npos) << s.ToString();
}

// A CJK mode from a later writer: refused with a message (unsupported), never used.
TEST_F(ModelReaderTest, RejectsUnknownCjkMode) {
  // Two messages that differ only in the mode locate its field (stored XOR its default, as
  // Cap'n Proto stores enums); then write values no reader knows there.
  ModelContents c = RandomContents(kWords, 8);
  c.tokenizer.cjk = CjkMode::kNone;
  bytes_ = ModelBytes(c);
  const std::vector<uint64_t> none = Payload();
  c.tokenizer.cjk = CjkMode::kLongest;
  bytes_ = ModelBytes(c);
  const std::vector<uint64_t> longest = Payload();
  ASSERT_EQ(none.size(), longest.size());
  const auto* a = reinterpret_cast<const uint8_t*>(none.data());
  const auto* b = reinterpret_cast<const uint8_t*>(longest.data());
  std::vector<size_t> differ;
  for (size_t i = 0; i < none.size() * 8; ++i) {
    if (a[i] != b[i]) differ.push_back(i);
  }
  ASSERT_EQ(differ.size(), 1u);
  const size_t at = differ[0] & ~size_t(1);  // the 16-bit slot
  uint16_t stored_none;
  std::memcpy(&stored_none, a + at, 2);
  for (uint16_t mode : {uint16_t(5), uint16_t(0xFFFF)}) {
    std::vector<uint64_t> message = none;
    const uint16_t stored = mode ^ stored_none;  // none (0) is stored as the default itself
    std::memcpy(reinterpret_cast<uint8_t*>(message.data()) + at, &stored, 2);
    Reseal(message);
    const Status s = Read(bytes_);
    EXPECT_EQ(s.code(), StatusCode::kUnsupported) << s.ToString();
    EXPECT_NE(s.message().find("unknown CJK mode " + std::to_string(mode)), std::string::npos) << s.message();
  }
  // The located slot really is the mode: writing longest's value there reads back as longest.
  std::vector<uint64_t> message = none;
  const uint16_t stored = uint16_t(CjkMode::kLongest) ^ stored_none;
  std::memcpy(reinterpret_cast<uint8_t*>(message.data()) + at, &stored, 2);
  Reseal(message);
  std::unique_ptr<Model> m;
  ASSERT_TRUE(ReadModel(bytes_.data(), bytes_.size(), &m).ok());
  EXPECT_EQ(m->tokenizer_config().cjk, CjkMode::kLongest);
}

TEST_F(ModelReaderTest, RejectsTruncationAndPadding) {
  std::vector<uint8_t> cut(bytes_.begin(), bytes_.end() - 1);
  EXPECT_NE(Read(cut).message().find("truncated"), std::string::npos);
  std::vector<uint8_t> padded = bytes_;
  padded.push_back(0);
  EXPECT_EQ(Read(padded).code(), StatusCode::kCorrupt);
}

TEST_F(ModelReaderTest, RejectsChecksumMismatch) {
  bytes_[bytes_.size() / 2 + 20] ^= 0x40;
  EXPECT_NE(Read(bytes_).message().find("checksum"), std::string::npos);
}

TEST_F(ModelReaderTest, RejectsOversizedPayloadBeforeAllocating) {
  Put64(16, 1ull << 50);
  Status s = Read(bytes_);
  EXPECT_EQ(s.code(), StatusCode::kTooLarge) << s.ToString();
  std::unique_ptr<Model> m;
  ReadLimits small;
  small.max_payload_bytes = 64;
  EXPECT_EQ(ReadModel(bytes_.data(), bytes_.size(), &m, small).code(), StatusCode::kTooLarge);
}

TEST_F(ModelReaderTest, RejectsPayloadSizeThatDisagreesWithTheFrame) {
  Put64(16, 8);
  EXPECT_EQ(Read(bytes_).code(), StatusCode::kCorrupt);
}

TEST_F(ModelReaderTest, RejectsGarbageMessage) {
  std::vector<uint64_t> message = Payload();
  for (size_t i = 0; i < message.size(); ++i) message[i] = 0xDEADBEEFCAFEF00Dull * (i + 1);
  Reseal(message);
  EXPECT_EQ(Read(bytes_).code(), StatusCode::kCorrupt);
}

TEST_F(ModelReaderTest, RejectsTruncatedMessage) {
  std::vector<uint64_t> message = Payload();
  message.resize(message.size() / 2);
  Reseal(message);
  EXPECT_FALSE(Read(bytes_).ok());
}

TEST_F(ModelReaderTest, RejectsHugeTableValues) {
  // Finite but huge values would let a sum of rows overflow to infinity: the reader refuses them.
  ModelContents c = RandomContents(kWords, 8);
  bytes_ = ModelBytes(c, DType::kF32);
  std::vector<uint64_t> message = Payload();
  uint8_t* raw = reinterpret_cast<uint8_t*>(message.data());
  const size_t n = message.size() * 8;
  size_t at = n;
  for (size_t i = 0; i + 4 <= n && at == n; i += 4) {
    if (std::memcmp(raw + i, &c.vectors[3], 4) == 0) at = i;
  }
  ASSERT_LT(at, n);
  const float huge = 3e38f;
  std::memcpy(raw + at, &huge, 4);
  Reseal(message);
  const Status s = Read(bytes_);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_NE(s.message().find("table: invalid value at 3"), std::string::npos) << s.message();
}

TEST_F(ModelReaderTest, RejectsEveryFlippedByteWithoutCrashing) {
  // Re-sealed after each flip, so the checksum passes and the message checks do the work.
  const std::vector<uint64_t> message = Payload();
  const uint8_t* raw = reinterpret_cast<const uint8_t*>(message.data());
  size_t accepted = 0;
  for (size_t i = 0; i < message.size() * 8; ++i) {
    std::vector<uint64_t> copy = message;
    reinterpret_cast<uint8_t*>(copy.data())[i] = raw[i] ^ 0xFF;
    Reseal(copy);
    std::unique_ptr<Model> m;
    if (ReadModel(bytes_.data(), bytes_.size(), &m).ok()) {
      ++accepted;  // a flip inside the table or a text can still be a valid model; it must be usable
      std::vector<float> row(m->dims());
      for (uint32_t r = 0; r < m->vocab_size(); ++r) {
        m->CopyRow(r, row.data());
        for (float v : row) ASSERT_TRUE(std::isfinite(v));
      }
    }
  }
  EXPECT_LT(accepted, message.size() * 8);
}

}  // namespace
}  // namespace swe

namespace swe {
namespace {

// Bitwise CRC-32C, the definition itself.
uint32_t SlowCrc32c(const uint8_t* data, size_t size) {
  uint32_t crc = ~0u;
  for (size_t i = 0; i < size; ++i) {
    crc ^= data[i];
    for (int k = 0; k < 8; ++k) crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
  }
  return ~crc;
}

TEST(Container, Crc32cMatchesTheStandardCheckValueAndTheDefinition) {
  const std::string check = "123456789";
  EXPECT_EQ(container::Crc32c(reinterpret_cast<const uint8_t*>(check.data()), check.size()), 0xE3069283u);
  std::vector<uint8_t> bytes(1000);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 131 + (i >> 3));
  for (size_t offset : {0, 1, 3}) {
    for (size_t n = 0; n + offset <= bytes.size(); n += 37) {
      ASSERT_EQ(container::Crc32c(bytes.data() + offset, n), SlowCrc32c(bytes.data() + offset, n)) << n;
    }
  }
}

}  // namespace
}  // namespace swe
