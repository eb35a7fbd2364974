// The container shared by model and index files: a 40-byte header, then one zstd frame holding a
// Cap'n Proto message (docs/FORMAT.md). Internal to core.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "swe/model_file.h"
#include "swe/status.h"

namespace swe::container {

enum class Kind : uint32_t { kModel = 1, kIndex = 2 };
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kHeaderSize = 40;
// Header flag bits. A reader rejects bits it does not know, so a flag marks a file that an older
// reader would misread.
constexpr uint32_t kFlagSubwordPieces = 1;  // model whose rows are subword pieces (TokenUnits::kSubwordPieces)
constexpr uint32_t kFlagIndexDocs = 2;      // index that stores documents (schema Index.docs)
// The frame is the payload itself, not a zstd frame: a reader uses it in place (or copies it once).
// Every reader of this version knows it (Open accepts it whatever `known_flags` says).
constexpr uint32_t kFlagRawPayload = 4;
// The checksum is FrameHash's, not CRC-32C: Seal writes it, every reader of this version knows it.
constexpr uint32_t kFlagFrameHash = 8;
// The flags that say how the frame is sealed (Seal's), not what the message is (the kind's).
constexpr uint32_t kSealFlags = kFlagRawPayload | kFlagFrameHash;
// A zstd frame may decode to at most kMaxExpansion times its size (or kExpansionFloor bytes): a reader
// refuses a larger declared payload before allocating it (a small frame can decode to gigabytes), and
// Seal stores a payload that would compress further raw, so every file it writes is read.
constexpr uint64_t kMaxExpansion = 64;
constexpr uint64_t kExpansionFloor = 16u << 20;
inline bool ExpansionAllowed(uint64_t frame_size, uint64_t payload_size) {
  return payload_size <= kExpansionFloor || payload_size / kMaxExpansion <= frame_size;
}

// A decoded payload: `words` (size_words of them, 8-byte aligned) inside `owner`: at its start, or
// kHeaderSize bytes in when a raw payload is used in place in an adopted file buffer.
struct Payload {
  std::unique_ptr<uint64_t[]> owner;
  const uint64_t* words = nullptr;
  size_t size_words = 0;
};

// Validates the header and checksum, decompresses (or copies) the payload into word-aligned memory.
// Flags outside `known_flags` (and kFlagRawPayload) are unsupported; the header's flags are stored in
// `*flags` (may be null).
Status Open(const uint8_t* data, size_t size, Kind expected, const ReadLimits& limits, Payload* payload,
            uint32_t* checksum, uint32_t known_flags = 0, uint32_t* flags = nullptr);
// The same on a file buffer that the payload takes over: a raw payload is used in place, no copy.
// `file` holds `size` bytes (its allocation rounded up to whole words).
Status Open(std::unique_ptr<uint64_t[]> file, size_t size, Kind expected, const ReadLimits& limits,
            Payload* payload, uint32_t* checksum, uint32_t known_flags = 0, uint32_t* flags = nullptr);
// The same, copied into a vector (tests and fuzz seeds take the payload apart).
Status Open(const uint8_t* data, size_t size, Kind expected, const ReadLimits& limits,
            std::vector<uint64_t>* message, uint32_t* checksum, uint32_t known_flags = 0, uint32_t* flags = nullptr);
// The bytes of the container at `data` as its header says (header + frame), at most `size`; `size` when
// there is no header to read. What follows it in an index file is the change log.
uint64_t ContainerSize(const uint8_t* data, size_t size);
// Compresses `message` with zstd at `zstd_level` and appends header + frame to `out`; level 0, a
// build without zstd's compressor, or a payload that zstd barely shrinks: a raw payload instead.
// `flags`: the kind's own; the container's (kFlagRawPayload, kFlagFrameHash) are Seal's to set.
Status Seal(Kind kind, const uint8_t* message, size_t size, int zstd_level, std::vector<uint8_t>* out,
            uint32_t flags = 0);

// The checksum of files sealed since flag bit 3 (docs/FORMAT.md, "Checksum"): four lanes of 64-bit
// multiply-xorshift over the frame's words, 7x CRC-32C's speed in wasm (which has no CRC instruction
// and ran a table CRC at 2.4 GB/s). Add bytes in pieces that are whole multiples of 32 bytes, but the
// last.
class FrameHash {
 public:
  void Add(const uint8_t* data, size_t size);
  uint32_t Finish() const;

 private:
  static constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
  static uint64_t Step(uint64_t lane, uint64_t word) {
    const uint64_t x = (lane ^ word) * kMul;
    return x ^ (x >> 29);
  }
  uint64_t lanes_[4] = {kMul, 2 * kMul, 3 * kMul, 4 * kMul};
  uint64_t size_ = 0;
};
uint32_t FrameHash32(const uint8_t* data, size_t size);

// CRC-32C by the active kernels (simd/kernels.h: tables, SSE4.2 or ARMv8 CRC instructions).
uint32_t Crc32c(const uint8_t* data, size_t size, uint32_t crc = 0);

}  // namespace swe::container
