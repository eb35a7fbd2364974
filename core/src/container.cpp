// The .swe container: header, checksum, zstd frame (docs/FORMAT.md, "Container").
#include "container.h"

#include "simd/kernels.h"
#include "swe/util/memory.h"

#include <zstd.h>

#include <cstring>
#include <new>
#include <string>

namespace swe::container {
namespace {

const uint8_t* const kMagic = reinterpret_cast<const uint8_t*>(kFileMagic.data());
static_assert(kFileMagic.size() == 8);

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

void FrameHash::Add(const uint8_t* data, size_t size) {
  size_ += size;
  size_t i = 0;
  for (; i + 32 <= size; i += 32) {  // four independent chains: one multiply's latency covers 32 bytes
    for (size_t j = 0; j < 4; ++j) lanes_[j] = Step(lanes_[j], Load64(data + i + 8 * j));
  }
  // The last piece's tail: whole words to lanes 0, 1, 2, then the bytes left zero-padded to the next.
  size_t lane = 0;
  for (; i + 8 <= size; i += 8, ++lane) lanes_[lane] = Step(lanes_[lane], Load64(data + i));
  if (i < size) {
    uint64_t word = 0;
    for (size_t k = 0; i + k < size; ++k) word |= uint64_t{data[i + k]} << (8 * k);
    lanes_[lane] = Step(lanes_[lane], word);
  }
}

uint32_t FrameHash::Finish() const {
  uint64_t h = size_ * kMul;
  for (uint64_t lane : lanes_) h = Step(h, lane);
  return static_cast<uint32_t>(h ^ (h >> 32));
}

uint32_t FrameHash32(const uint8_t* data, size_t size) {
  FrameHash hash;
  hash.Add(data, size);
  return hash.Finish();
}

uint32_t Crc32c(const uint8_t* data, size_t size, uint32_t crc) {
  return simd::Active().crc32c(data, size, crc);
}

namespace {

struct Header {
  uint64_t payload_size = 0, frame_size = 0;
  uint32_t checksum = 0, flags = 0;
  bool raw() const { return (flags & kFlagRawPayload) != 0; }
};

// The header's checksum of a frame read in pieces: FrameHash (flag bit 3) or CRC-32C (files sealed
// before it).
class FrameChecksum {
 public:
  explicit FrameChecksum(const Header& h) : hashed_((h.flags & kFlagFrameHash) != 0) {}
  void Add(const uint8_t* data, size_t size) {
    if (hashed_) {
      hash_.Add(data, size);
    } else {
      crc_ = Crc32c(data, size, crc_);
    }
  }
  uint32_t Finish() const { return hashed_ ? hash_.Finish() : crc_; }

 private:
  bool hashed_;
  FrameHash hash_;
  uint32_t crc_ = 0;
};

bool ChecksumMatches(const Header& h, const uint8_t* frame) {
  FrameChecksum sum(h);
  sum.Add(frame, h.frame_size);
  return sum.Finish() == h.checksum;
}

// Steps 1-3 of docs/FORMAT.md's reader checks: everything the header alone can tell.
Status CheckHeader(const uint8_t* data, size_t size, Kind expected, const ReadLimits& limits, uint32_t known_flags,
                   Header* h) {
  if (data == nullptr && size != 0) return InvalidArgument("null buffer");
  if (size < kHeaderSize || std::memcmp(data, kMagic, 8) != 0) {
    return Corrupt(size < kHeaderSize && size >= 8 && std::memcmp(data, kMagic, 8) == 0
                       ? "truncated header (" + std::to_string(size) + " bytes)"
                       : "not a .swe file (bad magic)");
  }
  const uint32_t version = Load32(data + 8), kind = Load32(data + 12);
  h->payload_size = Load64(data + 16);
  h->frame_size = Load64(data + 24);
  h->checksum = Load32(data + 32);
  h->flags = Load32(data + 36);
  if (version != kFormatVersion) {
    return Unsupported("format version " + std::to_string(version) + " (this reader knows version " +
                       std::to_string(kFormatVersion) + ")");
  }
  if (kind != uint32_t(expected)) {
    return InvalidArgument(std::string("this is a .swe ") + KindName(kind) + " file, not a " +
                           KindName(uint32_t(expected)) + " file");
  }
  known_flags |= kFlagRawPayload | kFlagFrameHash;
  if ((h->flags & ~known_flags) != 0) return Unsupported("unknown header flags " + std::to_string(h->flags & ~known_flags));
  if (h->frame_size != size - kHeaderSize) {
    return Corrupt("truncated or padded file: header says " + std::to_string(h->frame_size) +
                   " payload bytes, file has " + std::to_string(size - kHeaderSize));
  }
  if (h->payload_size % 8 != 0 || h->payload_size == 0) return Corrupt("payload size is not a whole number of words");
  if (h->payload_size > limits.max_payload_bytes) {
    return TooLarge("payload of " + std::to_string(h->payload_size) + " bytes exceeds the limit of " +
                    std::to_string(limits.max_payload_bytes));
  }
  if (h->raw() && h->frame_size != h->payload_size) return Corrupt("a raw payload's size differs from the frame's");
  if (!h->raw() && !ExpansionAllowed(h->frame_size, h->payload_size)) {
    return TooLarge("a zstd frame of " + std::to_string(h->frame_size) + " bytes declares a payload of " +
                    std::to_string(h->payload_size) + " bytes, more than " + std::to_string(kMaxExpansion) +
                    " times its size");
  }
  return Status::Ok();
}

Status ChecksumMismatch() { return Corrupt("checksum mismatch (the file is damaged)"); }

// Step 4 for a zstd frame, before anything is allocated for its payload: the checksum, and the frame's
// own sizes against the header's (a raw frame's size is the payload's, bounded by the file's size).
Status CheckZstdFrame(const Header& h, const uint8_t* frame) {
  if (h.raw()) return Status::Ok();
  if (!ChecksumMatches(h, frame)) return ChecksumMismatch();
  unsigned long long content = ZSTD_getFrameContentSize(frame, h.frame_size);
  if (content != h.payload_size) return Corrupt("zstd frame content size does not match the header");
  if (ZSTD_findFrameCompressedSize(frame, h.frame_size) != h.frame_size) {
    return Corrupt("the payload is not exactly one zstd frame");
  }
  return Status::Ok();
}

// Step 5 for a zstd frame that CheckZstdFrame passed: decompressed into `out` (payload_size bytes).
Status Decompress(const Header& h, const uint8_t* frame, uint8_t* out) {
  size_t n = ZSTD_decompress(out, h.payload_size, frame, h.frame_size);
  if (ZSTD_isError(n) || n != h.payload_size) {
    return Corrupt(std::string("zstd: ") + (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short payload"));
  }
  return Status::Ok();
}

// Step 4 for a raw payload copied out: checksum and copy in one pass over 64 KB pieces (each piece
// is copied while it is still in cache from the checksum).
Status CopyRaw(const Header& h, const uint8_t* frame, uint8_t* out) {
  constexpr size_t kPiece = 64 * 1024;  // a multiple of FrameHash's 32 bytes
  FrameChecksum sum(h);
  for (size_t pos = 0; pos < h.frame_size; pos += kPiece) {
    const size_t n = h.frame_size - pos < kPiece ? h.frame_size - pos : kPiece;
    sum.Add(frame + pos, n);
    std::memcpy(out + pos, frame + pos, n);
  }
  return sum.Finish() == h.checksum ? Status::Ok() : ChecksumMismatch();
}

// Uninitialised words (a zero fill would cost a pass over the payload that the decoder repeats).
Status Allocate(uint64_t bytes, std::unique_ptr<uint64_t[]>* out) {
  try {
    out->reset(new uint64_t[bytes / 8]);
  } catch (const std::bad_alloc&) {
    return TooLarge("cannot allocate " + std::to_string(bytes) + " bytes for the payload");
  }
  util::AdviseHugePages(out->get(), bytes);  // the table's rows are read at random
  return Status::Ok();
}

Status Fill(const Header& h, const uint8_t* frame, uint8_t* out) {
  return h.raw() ? CopyRaw(h, frame, out) : Decompress(h, frame, out);
}

}  // namespace

Status Open(const uint8_t* data, size_t size, Kind expected, const ReadLimits& limits, Payload* payload,
            uint32_t* checksum, uint32_t known_flags, uint32_t* flags_out) {
  Header h;
  SWE_RETURN_IF_ERROR(CheckHeader(data, size, expected, limits, known_flags, &h));
  SWE_RETURN_IF_ERROR(CheckZstdFrame(h, data + kHeaderSize));
  std::unique_ptr<uint64_t[]> owner;
  SWE_RETURN_IF_ERROR(Allocate(h.payload_size, &owner));
  SWE_RETURN_IF_ERROR(Fill(h, data + kHeaderSize, reinterpret_cast<uint8_t*>(owner.get())));
  payload->words = owner.get();
  payload->size_words = h.payload_size / 8;
  payload->owner = std::move(owner);
  *checksum = h.checksum;
  if (flags_out != nullptr) *flags_out = h.flags;
  return Status::Ok();
}

Status Open(std::unique_ptr<uint64_t[]> file, size_t size, Kind expected, const ReadLimits& limits, Payload* payload,
            uint32_t* checksum, uint32_t known_flags, uint32_t* flags_out) {
  const uint8_t* data = reinterpret_cast<const uint8_t*>(file.get());
  Header h;
  SWE_RETURN_IF_ERROR(CheckHeader(data, size, expected, limits, known_flags, &h));
  if (!h.raw()) return Open(data, size, expected, limits, payload, checksum, known_flags, flags_out);
  // In place: the header is 40 bytes, so the payload after it is word-aligned too.
  static_assert(kHeaderSize % 8 == 0, "the payload of an adopted buffer must stay word-aligned");
  if (!ChecksumMatches(h, data + kHeaderSize)) return ChecksumMismatch();
  payload->words = file.get() + kHeaderSize / 8;
  payload->size_words = h.payload_size / 8;
  payload->owner = std::move(file);
  *checksum = h.checksum;
  if (flags_out != nullptr) *flags_out = h.flags;
  return Status::Ok();
}

Status Open(const uint8_t* data, size_t size, Kind expected, const ReadLimits& limits,
            std::vector<uint64_t>* message, uint32_t* checksum, uint32_t known_flags, uint32_t* flags_out) {
  Payload payload;
  SWE_RETURN_IF_ERROR(Open(data, size, expected, limits, &payload, checksum, known_flags, flags_out));
  message->assign(payload.words, payload.words + payload.size_words);
  return Status::Ok();
}

uint64_t ContainerSize(const uint8_t* data, size_t size) {
  if (data == nullptr || size < kHeaderSize || std::memcmp(data, kMagic, 8) != 0) return size;
  const uint64_t frame = Load64(data + 24);
  return frame <= size - kHeaderSize ? kHeaderSize + frame : size;
}

Status Seal(Kind kind, const uint8_t* message, size_t size, int zstd_level, std::vector<uint8_t>* out,
            uint32_t flags) {
  if (size % 8 != 0 || size == 0) return Internal("message size is not a whole number of words");
  try {
    std::vector<uint8_t> frame;
    bool raw = true;
#if !defined(SWE_NO_ZSTD_COMPRESS)
    constexpr size_t kMinSavings = 16;  // compress only when it saves at least 1/16 of the payload
    if (zstd_level != 0) SWE_RETURN_IF_ERROR(AppendCompressedFrame(message, size, zstd_level, &frame));
    // A payload that zstd barely shrinks (an int8 table is close to noise) is stored raw instead:
    // decompressing it would cost most of every load to save a few percent of the file.
    raw = zstd_level == 0 || frame.size() > size - size / kMinSavings || !ExpansionAllowed(frame.size(), size);
#else
    (void)zstd_level;
#endif
    flags = (flags & ~kSealFlags) | kFlagFrameHash;
    if (raw) {
      frame.assign(message, message + size);
      flags |= kFlagRawPayload;
    }
    out->insert(out->end(), kMagic, kMagic + 8);
    Put32(out, kFormatVersion);
    Put32(out, uint32_t(kind));
    Put64(out, size);
    Put64(out, frame.size());
    Put32(out, FrameHash32(frame.data(), frame.size()));
    Put32(out, flags);
    out->insert(out->end(), frame.begin(), frame.end());
  } catch (const std::bad_alloc&) {
    return TooLarge("out of memory while writing");
  }
  return Status::Ok();
}

}  // namespace swe::container

namespace swe {

uint64_t MaxFileBytes(const ReadLimits& limits) {
  // zstd's worst case adds under 1/256 of the input and a few bytes per 128 KB block: 1/128 and 1 MiB cover it.
  const uint64_t payload = limits.max_payload_bytes;
  constexpr uint64_t kFixed = container::kHeaderSize + (1u << 20);
  if (payload > (UINT64_MAX - kFixed) / 2) return UINT64_MAX;  // no limit
  return kFixed + payload + payload / 128;
}

}  // namespace swe
