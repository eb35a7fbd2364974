// Fuzz inputs reach the message checks too: a mutated file almost always fails the checksum, so an
// input whose first byte is 'M' is taken as a bare Cap'n Proto message (zero-padded to whole words)
// and sealed in a valid container first. make_fuzz_seeds writes seeds of both shapes.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "container.h"
#include "swe/index.h"
#include "swe/index_docs.h"

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
  for (const auto& [entry, doc] : docs.all()) {
    const IndexDoc* back = loaded_docs.Get(entry);
    if (!back || back->id != doc.id || back->text != doc.text || back->metadata != doc.metadata) std::abort();
  }
  if (!loaded->Save(&second, 1, &loaded_docs).ok() || first != second) std::abort();
}

}  // namespace swe::fuzz
