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
// Header flag bits. A reader rejects bits it does not know, so a flag marks a file that an older
// reader would misread.
constexpr uint32_t kFlagSubwordPieces = 1;  // model whose rows are subword pieces (TokenUnits::kSubwordPieces)
constexpr uint32_t kFlagIndexDocs = 2;      // index that stores documents (schema Index.docs)

// Validates the header and checksum, decompresses the payload into word-aligned memory. Flags outside
// `known_flags` are unsupported; the header's flags are stored in `*flags` (may be null).
Status Open(const uint8_t* data, size_t size, Kind expected, const ReadLimits& limits,
            std::vector<uint64_t>* message, uint32_t* checksum, uint32_t known_flags = 0, uint32_t* flags = nullptr);
// Compresses `message` (zstd_level 0: stored) and appends header + frame to `out`.
Status Seal(Kind kind, const uint8_t* message, size_t size, int zstd_level, std::vector<uint8_t>* out,
            uint32_t flags = 0);

uint32_t Crc32c(const uint8_t* data, size_t size, uint32_t crc = 0);

}  // namespace swe::container
