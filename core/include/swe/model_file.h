// Reading and writing .swe files (models and indexes share one container; see docs/FORMAT.md).
// Core's reader and writer are the only code that touches the format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "swe/model.h"
#include "swe/status.h"

namespace swe {

// What a reader accepts before it allocates. Defaults fit any realistic model; lower them for
// untrusted input in small heaps (e.g. the browser).
struct ReadLimits {
  uint64_t max_payload_bytes = 4ull << 30;   // decompressed message size
  uint32_t max_rows = 20'000'000;            // vocabulary words / index entries
  uint32_t max_dims = 16'384;
};

// The first 8 bytes of every .swe file (model or index): a reader of a stream checks them first.
constexpr std::string_view kFileMagic{"\x89SWE\r\n\x1a\n", 8};
// The most bytes a .swe file whose payload is within `limits` can have: the 40-byte header and a frame
// no larger than zstd's bound for the payload.
uint64_t MaxFileBytes(const ReadLimits& limits);

// Every float a model stores (table values, int8 scales, weights, subword scores) is finite and
// at most 2^40 in magnitude: then a weighted sum over even 2^32 words (2^40 · 2^40 · 127 · 2^32 <
// 2^128) cannot overflow, so no text encodes to infinity or NaN. Real embeddings are far smaller.
constexpr float kMaxStoredMagnitude = 0x1p40f;

// Decodes and validates a .swe model: header, checksum, every length and offset, UTF-8 of the
// vocabulary, rows x dims consistency, finite values. Never crashes on hostile bytes.
Status ReadModel(const uint8_t* data, size_t size, std::unique_ptr<Model>* out,
                 const ReadLimits& limits = ReadLimits());
// The same on a file's `size` bytes in a buffer that the model takes over (e.g. read straight from
// disk): a raw payload (docs/FORMAT.md) is then used where it is, without a copy.
Status ReadModel(std::unique_ptr<uint64_t[]> file, size_t size, std::unique_ptr<Model>* out,
                 const ReadLimits& limits = ReadLimits());

struct WriteOptions {
  DType dtype = DType::kF32;   // int8 uses one f32 scale per row (max |x| / 127)
  int zstd_level = 19;         // 0 stores the payload raw (no zstd frame; read in place)
};

// Validates `contents` and appends a complete .swe file to `out`.
Status WriteModel(const ModelContents& contents, const WriteOptions& options, std::vector<uint8_t>* out);

// Appends to `out` the same model, its message byte for byte (so every vector and token is the
// same), sealed anew at `zstd_level` (0: raw, read in place; see WriteOptions). Checks the model first.
Status ResealModel(const uint8_t* data, size_t size, int zstd_level, std::vector<uint8_t>* out);

}  // namespace swe
