// Fuzz inputs reach the message checks too: a mutated file almost always fails the checksum, so an
// input whose first byte is 'M' is taken as a bare Cap'n Proto message (zero-padded to whole words)
// and sealed in a valid container first. make_fuzz_seeds writes seeds of both shapes.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "container.h"

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

}  // namespace swe::fuzz
