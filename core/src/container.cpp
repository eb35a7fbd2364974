// The .swe container: header, checksum, zstd frame (docs/FORMAT.md, "Container").
#include "container.h"

#include <zstd.h>

#include <array>
#include <cstring>
#include <new>
#include <string>

namespace swe::container {
namespace {

constexpr uint8_t kMagic[8] = {0x89, 'S', 'W', 'E', '\r', '\n', 0x1A, '\n'};
constexpr size_t kRawBlockMax = 128 * 1024;  // zstd's largest block

// CRC-32C (Castagnoli, reflected), slicing-by-8: table[k][b] is the CRC of byte b followed by k zero
// bytes, so eight input bytes take eight independent lookups. Portable (the wasm build uses it too)
// and about 5x faster than a byte at a time, which matters: the checksum is most of a model's load time.
using CrcTables = std::array<std::array<uint32_t, 256>, 8>;
constexpr CrcTables MakeCrcTables() {
  CrcTables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    t[0][i] = c;
  }
  for (size_t k = 1; k < 8; ++k) {
    for (uint32_t i = 0; i < 256; ++i) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFF];
  }
  return t;
}
constexpr CrcTables kCrc = MakeCrcTables();

uint32_t Load32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}
uint64_t Load64(const uint8_t* p) { return uint64_t{Load32(p)} | uint64_t{Load32(p + 4)} << 32; }
void Put32(std::vector<uint8_t>* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void Put64(std::vector<uint8_t>* out, uint64_t v) {
  Put32(out, static_cast<uint32_t>(v));
  Put32(out, static_cast<uint32_t>(v >> 32));
}

const char* KindName(uint32_t kind) {
  return kind == uint32_t(Kind::kModel) ? "model" : kind == uint32_t(Kind::kIndex) ? "index" : "unknown";
}

// A zstd frame of raw (stored) blocks: what level 0 writes, and what a build without zstd's
// compressor (the wasm decoder-only build) writes at any level.
void AppendStoredFrame(const uint8_t* data, size_t size, std::vector<uint8_t>* out) {
  Put32(out, 0xFD2FB528u);  // zstd frame magic
  out->push_back(0xE0);     // 8-byte content size, single segment, no checksum, no dictionary
  Put64(out, size);
  size_t pos = 0;
  do {
    size_t n = size - pos < kRawBlockMax ? size - pos : kRawBlockMax;
    uint32_t last = pos + n == size ? 1 : 0;
    uint32_t header = last | (0u << 1) | static_cast<uint32_t>(n) << 3;  // block type 0 = raw
    out->push_back(static_cast<uint8_t>(header));
    out->push_back(static_cast<uint8_t>(header >> 8));
    out->push_back(static_cast<uint8_t>(header >> 16));
    out->insert(out->end(), data + pos, data + pos + n);
    pos += n;
  } while (pos < size);
}

#if !defined(SWE_NO_ZSTD_COMPRESS)
Status AppendCompressedFrame(const uint8_t* data, size_t size, int level, std::vector<uint8_t>* out) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  if (!cctx) return Internal("zstd: cannot create a compression context");
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
  size_t start = out->size();
  out->resize(start + ZSTD_compressBound(size));
  size_t n = ZSTD_compress2(cctx, out->data() + start, out->size() - start, data, size);
  ZSTD_freeCCtx(cctx);
  if (ZSTD_isError(n)) {
    out->resize(start);
    return Internal(std::string("zstd: ") + ZSTD_getErrorName(n));
  }
  out->resize(start + n);
  return Status::Ok();
}
#endif

}  // namespace

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// The same CRC with SSE4.2's crc32 instruction, 8 bytes per instruction: about 5x the tables' speed,
// which is most of a model's load after decompression.
namespace {
__attribute__((target("sse4.2"))) uint32_t Crc32cSse42(const uint8_t* data, size_t size, uint32_t crc) {
  uint64_t c = ~crc;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) c = __builtin_ia32_crc32di(c, Load64(data + i));
  for (; i < size; ++i) c = __builtin_ia32_crc32qi(static_cast<uint32_t>(c), data[i]);
  return ~static_cast<uint32_t>(c);
}
bool HaveSse42() {
  static const bool have = (__builtin_cpu_init(), __builtin_cpu_supports("sse4.2"));
  return have;
}
}  // namespace
#endif

uint32_t Crc32c(const uint8_t* data, size_t size, uint32_t crc) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (HaveSse42()) return Crc32cSse42(data, size, crc);
#endif
  crc = ~crc;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    const uint32_t lo = Load32(data + i) ^ crc, hi = Load32(data + i + 4);
    crc = kCrc[7][lo & 0xFF] ^ kCrc[6][(lo >> 8) & 0xFF] ^ kCrc[5][(lo >> 16) & 0xFF] ^ kCrc[4][lo >> 24] ^
          kCrc[3][hi & 0xFF] ^ kCrc[2][(hi >> 8) & 0xFF] ^ kCrc[1][(hi >> 16) & 0xFF] ^ kCrc[0][hi >> 24];
  }
  for (; i < size; ++i) crc = kCrc[0][(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

Status Open(const uint8_t* data, size_t size, Kind expected, const ReadLimits& limits,
            std::vector<uint64_t>* message, uint32_t* checksum, uint32_t known_flags, uint32_t* flags_out) {
  if (data == nullptr && size != 0) return InvalidArgument("null buffer");
  if (size < kHeaderSize || std::memcmp(data, kMagic, sizeof kMagic) != 0) {
    return Corrupt(size < kHeaderSize && size >= 8 && std::memcmp(data, kMagic, 8) == 0
                       ? "truncated header (" + std::to_string(size) + " bytes)"
                       : "not a .swe file (bad magic)");
  }
  const uint32_t version = Load32(data + 8), kind = Load32(data + 12);
  const uint64_t payload_size = Load64(data + 16), frame_size = Load64(data + 24);
  const uint32_t crc = Load32(data + 32), flags = Load32(data + 36);
  if (version != kFormatVersion) {
    return Unsupported("format version " + std::to_string(version) + " (this reader knows version " +
                       std::to_string(kFormatVersion) + ")");
  }
  if (kind != uint32_t(expected)) {
    return InvalidArgument(std::string("this is a .swe ") + KindName(kind) + " file, not a " +
                           KindName(uint32_t(expected)) + " file");
  }
  if ((flags & ~known_flags) != 0) return Unsupported("unknown header flags " + std::to_string(flags & ~known_flags));
  if (frame_size != size - kHeaderSize) {
    return Corrupt("truncated or padded file: header says " + std::to_string(frame_size) +
                   " payload bytes, file has " + std::to_string(size - kHeaderSize));
  }
  if (payload_size % 8 != 0 || payload_size == 0) return Corrupt("payload size is not a whole number of words");
  if (payload_size > limits.max_payload_bytes) {
    return TooLarge("payload of " + std::to_string(payload_size) + " bytes exceeds the limit of " +
                    std::to_string(limits.max_payload_bytes));
  }
  const uint8_t* frame = data + kHeaderSize;
  if (Crc32c(frame, frame_size) != crc) return Corrupt("checksum mismatch (the file is damaged)");
  unsigned long long content = ZSTD_getFrameContentSize(frame, frame_size);
  if (content != payload_size) return Corrupt("zstd frame content size does not match the header");
  if (ZSTD_findFrameCompressedSize(frame, frame_size) != frame_size) {
    return Corrupt("the payload is not exactly one zstd frame");
  }
  try {
    message->assign(payload_size / 8, 0);
  } catch (const std::bad_alloc&) {
    return TooLarge("cannot allocate " + std::to_string(payload_size) + " bytes for the payload");
  }
  size_t n = ZSTD_decompress(message->data(), payload_size, frame, frame_size);
  if (ZSTD_isError(n) || n != payload_size) {
    message->clear();
    return Corrupt(std::string("zstd: ") + (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short payload"));
  }
  *checksum = crc;
  if (flags_out != nullptr) *flags_out = flags;
  return Status::Ok();
}

Status Seal(Kind kind, const uint8_t* message, size_t size, int zstd_level, std::vector<uint8_t>* out,
            uint32_t flags) {
  if (size % 8 != 0 || size == 0) return Internal("message size is not a whole number of words");
  try {
    std::vector<uint8_t> frame;
#if !defined(SWE_NO_ZSTD_COMPRESS)
    constexpr size_t kMinSavings = 16;  // compress only when it saves at least 1/16 of the payload
    if (zstd_level != 0) SWE_RETURN_IF_ERROR(AppendCompressedFrame(message, size, zstd_level, &frame));
    // A payload that zstd barely shrinks (an int8 table is close to noise) is stored instead:
    // decompressing it would cost most of every load to save a few percent of the file.
    if (zstd_level == 0 || frame.size() > size - size / kMinSavings) {
      frame.clear();
      AppendStoredFrame(message, size, &frame);
    }
#else
    (void)zstd_level;
    AppendStoredFrame(message, size, &frame);
#endif
    out->insert(out->end(), kMagic, kMagic + sizeof kMagic);
    Put32(out, kFormatVersion);
    Put32(out, uint32_t(kind));
    Put64(out, size);
    Put64(out, frame.size());
    Put32(out, Crc32c(frame.data(), frame.size()));
    Put32(out, flags);
    out->insert(out->end(), frame.begin(), frame.end());
  } catch (const std::bad_alloc&) {
    return TooLarge("out of memory while writing");
  }
  return Status::Ok();
}

}  // namespace swe::container
