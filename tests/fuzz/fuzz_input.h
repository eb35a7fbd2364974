// Fuzz inputs reach the message checks too: a mutated file almost always fails the checksum, so an
// input whose first byte is 'M' is taken as a bare Cap'n Proto message (zero-padded to whole words)
// and sealed in a valid container first. make_fuzz_seeds writes seeds of both shapes.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "container.h"
#include "swe/index.h"
#include "swe/index_docs.h"
#include "swe/index_log.h"

namespace swe::fuzz {

constexpr uint8_t kBareMessage = 'M';

// The bytes to hand to the reader for this fuzz input.
inline std::vector<uint8_t> FileBytes(const uint8_t* data, size_t size, container::Kind kind) {
  if (size == 0 || data[0] != kBareMessage) return std::vector<uint8_t>(data, data + size);
  std::vector<uint64_t> words((size - 1 + 7) / 8 + ((size - 1) == 0 ? 1 : 0), 0);
  if (size > 1) std::memcpy(words.data(), data + 1, size - 1);
  std::vector<uint8_t> file;
  (void)container::Seal(kind, reinterpret_cast<const uint8_t*>(words.data()), words.size() * 8, 0, &file);
  return file;
}

// A seed of the bare-message shape for a valid file.
inline std::vector<uint8_t> BareMessageSeed(const std::vector<uint8_t>& file, container::Kind kind) {
  std::vector<uint64_t> message;
  uint32_t crc = 0;
  std::vector<uint8_t> seed;
  if (!container::Open(file.data(), file.size(), kind, ReadLimits(), &message, &crc, ~0u).ok()) return seed;
  seed.push_back(kBareMessage);
  const uint8_t* bytes = reinterpret_cast<const uint8_t*>(message.data());
  seed.insert(seed.end(), bytes, bytes + message.size() * 8);
  return seed;
}

// The index writer's round trip: `index` (with `docs`) saved, loaded back and saved again gives the
// same bytes, and the same documents; aborts otherwise.
inline void CheckSaveRoundTrip(const Index& index, const IndexDocs& docs) {
  std::vector<uint8_t> first, second;
  if (!index.Save(&first, 1, &docs).ok()) std::abort();
  std::unique_ptr<Index> loaded;
  IndexDocs loaded_docs;
  if (!Index::Load(first.data(), first.size(), &loaded, ReadLimits(), &loaded_docs).ok()) std::abort();
  if (loaded->ids() != index.ids() || loaded_docs.size() != docs.size()) std::abort();
  docs.ForEach([&](uint64_t entry, const IndexDoc& doc) {
    const IndexDoc* back = loaded_docs.Get(entry);
    if (!back || back->id != doc.id || back->text != doc.text || back->metadata != doc.metadata) std::abort();
  });
  if (!loaded->Save(&second, 1, &loaded_docs).ok() || first != second) std::abort();
}

// The index of make_fuzz_seeds' index seeds: 4 dims, 5 entries, documents for two of them.
inline void SeedIndex(DType dtype, std::unique_ptr<Index>* index, IndexDocs* docs) {
  if (!Index::Create(4, dtype, index).ok()) std::abort();
  for (uint64_t id = 0; id < 5; ++id) {
    float v[4] = {float(id), 1, -float(id), 0.5f};
    if (!(*index)->Add(id * 3, v).ok()) std::abort();
  }
  *docs = IndexDocs();
  if (!docs->Put(0, {"first", "a text", ""}).ok() || !docs->Put(6, {"second", "", "{\"k\": 1}"}).ok()) std::abort();
}

// index_log_fuzz's input: byte 0 picks the base (bit 0: f32, int8 with documents) and the shape (bit 1);
// raw: the other bytes follow the base as they are; framed: they are chunks (a little-endian u16 length,
// then that many bytes) each framed as a valid record's body (zero-padded to whole words), and what is
// left, a chunk cut short included, follows raw (a torn tail).
constexpr uint8_t kFramedLog = 2;
inline std::vector<uint8_t> LogBytes(const uint8_t* data, size_t size) {
  static const auto bases = [] {
    std::vector<std::pair<std::vector<uint8_t>, IndexFileState>> out(2);
    for (int i = 0; i < 2; ++i) {
      std::unique_ptr<Index> index;
      IndexDocs docs;
      SeedIndex(i == 0 ? DType::kF32 : DType::kInt8, &index, &docs);
      if (!index->Save(&out[i].first, 0, &docs, &out[i].second).ok()) std::abort();
    }
    return out;
  }();
  const auto& [base, base_state] = bases[data[0] & 1];
  std::vector<uint8_t> file = base;
  size_t at = 1;
  if (data[0] & kFramedLog) {
    IndexFileState state = base_state;
    std::vector<uint8_t> record;
    while (at + 2 <= size) {
      const size_t n = data[at] | size_t{data[at + 1]} << 8;
      if (n == 0 || at + 2 + n > size) break;
      std::vector<uint64_t> body((n + 7) / 8, 0);
      std::memcpy(body.data(), data + at + 2, n);
      IndexFileState after;
      if (!FrameIndexRecord(reinterpret_cast<const uint8_t*>(body.data()), body.size() * 8, state, &record, &after).ok()) {
        std::abort();
      }
      file.insert(file.end(), record.begin(), record.end());
      state = after;
      at += 2 + n;
    }
  }
  file.insert(file.end(), data + at, data + size);
  return file;
}

}  // namespace swe::fuzz
