// The container shared by model and index files: a 40-byte header, then one zstd frame holding a
// Cap'n Proto message (docs/FORMAT.md). Internal to core.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "swe/model_file.h"
#include "swe/status.h"

namespace swe::container {

enum class Kind : uint32_t { kModel = 1, kIndex = 2 };
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kHeaderSize = 40;

// Validates the header and checksum, decompresses the payload into word-aligned memory.
Status Open(const uint8_t* data, size_t size, Kind expected, const ReadLimits& limits,
            std::vector<uint64_t>* message, uint32_t* checksum);
// Compresses `message` (zstd_level 0: stored) and appends header + frame to `out`.
Status Seal(Kind kind, const uint8_t* message, size_t size, int zstd_level, std::vector<uint8_t>* out);

uint32_t Crc32c(const uint8_t* data, size_t size, uint32_t crc = 0);

}  // namespace swe::container
