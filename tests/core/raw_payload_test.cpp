// Raw payloads (header flag 4, docs/FORMAT.md): written at level 0 and for barely compressible
// payloads, read by a copy or in place from an adopted buffer, the same model either way; older
// zstd-stored files still read; re-sealing keeps the message byte for byte; the checksum (FrameHash,
// flag 8, or older files' CRC-32C) and the vocabulary's UTF-8 are checked on every path.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "container.h"
#include "core/test_models.h"
#include "simd/kernels.h"
#include "swe/model_file.h"

namespace swe {
namespace {

using testing::ModelBytes;
using testing::RandomContents;

const std::vector<std::string> kWords = {"Q", "Z", "the", "cat", "sat", "Straße", "日本", "naïve"};

uint32_t Flags(const std::vector<uint8_t>& file) {
  uint32_t flags;
  std::memcpy(&flags, file.data() + 36, 4);
  return flags;
}

// The file in a word buffer that ReadModel takes over.
Status ReadAdopted(const std::vector<uint8_t>& file, std::unique_ptr<Model>* out) {
  std::unique_ptr<uint64_t[]> words(new uint64_t[file.size() / 8 + 1]);
  std::memcpy(words.get(), file.data(), file.size());
  return ReadModel(std::move(words), file.size(), out);
}

// The payload of a valid file (any sealing).
std::vector<uint64_t> Message(const std::vector<uint8_t>& file) {
  std::vector<uint64_t> message;
  uint32_t crc;
  EXPECT_TRUE(container::Open(file.data(), file.size(), container::Kind::kModel, ReadLimits(), &message, &crc, ~0u).ok());
  return message;
}

// What writers before raw payloads wrote at level 0: a zstd frame of raw blocks.
std::vector<uint8_t> ZstdStoredFile(const std::vector<uint8_t>& raw_file) {
  const std::vector<uint64_t> m = Message(raw_file);
  const uint8_t* p = reinterpret_cast<const uint8_t*>(m.data());
  const uint64_t n = m.size() * 8;
  std::vector<uint8_t> frame = {0x28, 0xB5, 0x2F, 0xFD, 0xE0};
  for (int i = 0; i < 8; ++i) frame.push_back(uint8_t(n >> (8 * i)));
  for (uint64_t pos = 0; pos < n;) {
    const uint64_t size = std::min<uint64_t>(n - pos, 128 * 1024);
    const uint32_t header = (pos + size == n ? 1 : 0) | uint32_t(size) << 3;
    for (int i = 0; i < 3; ++i) frame.push_back(uint8_t(header >> (8 * i)));
    frame.insert(frame.end(), p + pos, p + pos + size);
    pos += size;
  }
  std::vector<uint8_t> file(raw_file.begin(), raw_file.begin() + 40);
  const uint64_t frame_size = frame.size();
  const uint32_t crc = container::Crc32c(frame.data(), frame.size()), flags = Flags(raw_file) & ~container::kSealFlags;
  std::memcpy(file.data() + 24, &frame_size, 8);
  std::memcpy(file.data() + 32, &crc, 4);
  std::memcpy(file.data() + 36, &flags, 4);
  file.insert(file.end(), frame.begin(), frame.end());
  return file;
}

TEST(RawPayload, LevelZeroWritesTheMessageItselfAndEveryPathReadsTheSameModel) {
  ModelContents c = RandomContents(kWords, 16);
  for (size_t i = 0; i < c.vectors.size(); ++i) c.vectors[i] = static_cast<float>(i % 5) * 0.25f;  // compressible
  const std::vector<uint8_t> raw = ModelBytes(c, DType::kInt8, 0), packed = ModelBytes(c, DType::kInt8, 19);
  EXPECT_EQ(Flags(raw), container::kSealFlags);
  EXPECT_EQ(Flags(packed), container::kFlagFrameHash);
  EXPECT_EQ(raw.size(), 40 + Message(raw).size() * 8);  // frame = payload
  EXPECT_EQ(Message(raw), Message(packed));
  const std::vector<uint8_t> stored = ZstdStoredFile(raw);
  std::unique_ptr<Model> a, b, d, e;
  ASSERT_TRUE(ReadModel(raw.data(), raw.size(), &a).ok());
  ASSERT_TRUE(ReadAdopted(raw, &b).ok());
  ASSERT_TRUE(ReadModel(stored.data(), stored.size(), &d).ok()) << "files of older writers";
  ASSERT_TRUE(ReadAdopted(packed, &e).ok());
  for (const Model* m : {b.get(), d.get(), e.get()}) {
    EXPECT_EQ(m->ToContents().vectors, a->ToContents().vectors);
    for (uint32_t i = 0; i < m->vocab_size(); ++i) EXPECT_EQ(m->find(a->word(i)), int64_t(i));
  }
  EXPECT_EQ(b->checksum(), a->checksum());
}

TEST(RawPayload, ResealingKeepsTheMessageByteForByte) {
  ModelContents c = RandomContents(kWords, 16);
  for (size_t i = 0; i < c.vectors.size(); ++i) c.vectors[i] = static_cast<float>(i % 3) * 0.5f;  // compressible
  const std::vector<uint8_t> packed = ModelBytes(c, DType::kF16, 19);
  ASSERT_EQ(Flags(packed), container::kFlagFrameHash);
  std::vector<uint8_t> raw, again;
  ASSERT_TRUE(ResealModel(packed.data(), packed.size(), 0, &raw).ok());
  ASSERT_TRUE(ResealModel(raw.data(), raw.size(), 19, &again).ok());
  EXPECT_EQ(Flags(raw), container::kSealFlags);
  EXPECT_EQ(Message(raw), Message(packed));
  EXPECT_EQ(again, packed);  // zstd is deterministic: the same message at the same level, the same file
  std::vector<uint8_t> bad = raw;
  bad[bad.size() / 2] ^= 1;
  std::vector<uint8_t> out;
  EXPECT_EQ(ResealModel(bad.data(), bad.size(), 0, &out).code(), StatusCode::kCorrupt);
}

TEST(RawPayload, ADamagedOrMisSizedRawPayloadIsRefusedOnEveryPath) {
  const std::vector<uint8_t> raw = ModelBytes(RandomContents(kWords, 8), DType::kF32, 0);
  ASSERT_EQ(Flags(raw), container::kSealFlags);
  std::unique_ptr<Model> m;
  for (size_t at : {size_t{40}, raw.size() / 2, raw.size() - 1}) {
    std::vector<uint8_t> bad = raw;
    bad[at] ^= 0x20;
    Status s = ReadModel(bad.data(), bad.size(), &m);
    EXPECT_EQ(s.code(), StatusCode::kCorrupt);
    EXPECT_NE(s.message().find("checksum"), std::string::npos) << s.message();
    EXPECT_EQ(ReadAdopted(bad, &m).code(), StatusCode::kCorrupt);
    EXPECT_EQ(m, nullptr);
  }
  std::vector<uint8_t> short_payload = raw;  // the header's payload size 8 less than the frame
  uint64_t payload;
  std::memcpy(&payload, short_payload.data() + 16, 8);
  payload -= 8;
  std::memcpy(short_payload.data() + 16, &payload, 8);
  Status s = ReadAdopted(short_payload, &m);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_NE(s.message().find("raw payload"), std::string::npos) << s.message();
}

// Every entry must be valid UTF-8 on its own: "\xC3" and "\xA9" make a valid "é" together.
TEST(RawPayload, AVocabularyEntryThatSplitsACharacterIsRefused) {
  const std::vector<uint8_t> raw = ModelBytes(RandomContents(kWords, 4), DType::kF32, 0);
  std::vector<uint64_t> message = Message(raw);
  uint8_t* p = reinterpret_cast<uint8_t*>(message.data());
  const size_t n = message.size() * 8;
  size_t at = 0;
  while (at + 3 < n && std::memcmp(p + at, "QZth", 4) != 0) ++at;
  ASSERT_LT(at + 3, n) << "the vocabulary blob";
  p[at] = 0xC3;
  p[at + 1] = 0xA9;
  std::vector<uint8_t> file;
  ASSERT_TRUE(container::Seal(container::Kind::kModel, p, n, 0, &file).ok());
  std::unique_ptr<Model> m;
  Status s = ReadModel(file.data(), file.size(), &m);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_NE(s.message().find("vocabulary: entry 0 is not valid UTF-8"), std::string::npos) << s.message();
}

// Past 3 x 8 KB the SSE4.2 and ARMv8 CRCs run three interleaved chains and combine them; the tables
// (the generic and wasm variants') take 16 bytes a step. Every variant this CPU runs.
TEST(RawPayload, Crc32cOfLongInputsMatchesTheDefinition) {
  auto slow = [](const uint8_t* data, size_t size) {
    uint32_t crc = ~0u;
    for (size_t i = 0; i < size; ++i) {
      crc ^= data[i];
      for (int k = 0; k < 8; ++k) crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
    }
    return ~crc;
  };
  std::vector<uint8_t> bytes(200'000);
  std::mt19937 rng(5);
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
  for (size_t n : {size_t{0}, size_t{15}, size_t{16}, size_t{17}, size_t{24575}, size_t{24576}, size_t{24577},
                   size_t{49152 + 13}, size_t{199'997}}) {
    for (size_t offset : {0, 3}) {
      ASSERT_EQ(container::Crc32c(bytes.data() + offset, n), slow(bytes.data() + offset, n)) << n;
      for (const simd::Kernels* k : simd::Supported()) {
        ASSERT_EQ(k->crc32c(bytes.data() + offset, n, 0), slow(bytes.data() + offset, n)) << k->name << " " << n;
      }
    }
  }
  const uint32_t first = container::Crc32c(bytes.data(), 30'000);  // and continued from a CRC
  EXPECT_EQ(container::Crc32c(bytes.data() + 30'000, 100'000, first), slow(bytes.data(), 130'000));
  for (const simd::Kernels* k : simd::Supported()) {
    EXPECT_EQ(k->crc32c(bytes.data() + 30'000, 100'000, k->crc32c(bytes.data(), 30'000, 0)), slow(bytes.data(), 130'000))
        << k->name;
  }
}

// FrameHash as docs/FORMAT.md ("Checksum") defines it, word by word.
uint32_t FrameHashDefinition(const uint8_t* data, size_t size) {
  constexpr uint64_t k = 0x9E3779B97F4A7C15ull;
  const auto step = [](uint64_t lane, uint64_t word) {
    const uint64_t x = (lane ^ word) * k;
    return x ^ (x >> 29);
  };
  uint64_t lanes[4] = {k, 2 * k, 3 * k, 4 * k};
  for (size_t j = 0; 8 * j < size; ++j) {  // word j (the last one zero-padded) goes to lane j % 4
    uint64_t word = 0;
    for (size_t b = 0; b < 8 && 8 * j + b < size; ++b) word |= uint64_t{data[8 * j + b]} << (8 * b);
    lanes[j % 4] = step(lanes[j % 4], word);
  }
  uint64_t h = size * k;
  for (uint64_t lane : lanes) h = step(h, lane);
  return static_cast<uint32_t>(h ^ (h >> 32));
}

TEST(RawPayload, FrameHashMatchesTheDefinitionInAnyPieces) {
  std::vector<uint8_t> bytes(70'000);
  std::mt19937 rng(9);
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
  for (size_t n = 0; n <= 80; ++n) {
    ASSERT_EQ(container::FrameHash32(bytes.data() + 1, n), FrameHashDefinition(bytes.data() + 1, n)) << n;
  }
  for (size_t n : {size_t{65'536}, size_t{65'537}, size_t{69'999}}) {
    const uint32_t want = FrameHashDefinition(bytes.data(), n);
    EXPECT_EQ(container::FrameHash32(bytes.data(), n), want) << n;
    for (size_t piece : {size_t{32}, size_t{64 * 1024}, size_t{32 * 999}}) {  // pieces of 32-byte multiples
      container::FrameHash hash;
      for (size_t pos = 0; pos < n; pos += piece) hash.Add(bytes.data() + pos, std::min(piece, n - pos));
      EXPECT_EQ(hash.Finish(), want) << n << " in pieces of " << piece;
    }
  }
  // Pinned, so that the definition above and the code cannot drift together: files carry this value.
  const std::string check = "123456789";
  EXPECT_EQ(container::FrameHash32(reinterpret_cast<const uint8_t*>(check.data()), check.size()), 0x526D6589u);
  EXPECT_EQ(container::FrameHash32(nullptr, 0), FrameHashDefinition(nullptr, 0));
}

// A file sealed before flag 8 carries CRC-32C: it loads on every path, and its checksum is still the
// model's identity. With the flag set over a CRC, or the CRC damaged, it is refused.
TEST(RawPayload, FilesWithTheOlderCrcStillLoadOnEveryPath) {
  ModelContents c = RandomContents(kWords, 16);
  for (size_t i = 0; i < c.vectors.size(); ++i) c.vectors[i] = static_cast<float>(i % 5) * 0.25f;  // compressible
  for (int level : {0, 19}) {
    std::vector<uint8_t> file = ModelBytes(c, DType::kInt8, level);
    ASSERT_NE(Flags(file) & container::kFlagFrameHash, 0u);
    const uint32_t crc = container::Crc32c(file.data() + 40, file.size() - 40), flags = Flags(file) & ~container::kFlagFrameHash;
    std::memcpy(file.data() + 32, &crc, 4);
    std::memcpy(file.data() + 36, &flags, 4);
    std::unique_ptr<Model> copied, adopted;
    ASSERT_TRUE(ReadModel(file.data(), file.size(), &copied).ok()) << level;
    ASSERT_TRUE(ReadAdopted(file, &adopted).ok()) << level;
    EXPECT_EQ(copied->checksum(), crc);
    EXPECT_EQ(adopted->checksum(), crc);
    std::vector<uint8_t> bad = file;
    const uint32_t both = flags | container::kFlagFrameHash;
    std::memcpy(bad.data() + 36, &both, 4);
    EXPECT_EQ(ReadModel(bad.data(), bad.size(), &copied).code(), StatusCode::kCorrupt) << level;
    bad = file;
    bad[bad.size() - 3] ^= 4;
    EXPECT_EQ(ReadModel(bad.data(), bad.size(), &copied).code(), StatusCode::kCorrupt) << level;
    EXPECT_EQ(ReadAdopted(bad, &adopted).code(), StatusCode::kCorrupt) << level;
  }
}

}  // namespace
}  // namespace swe
