// Small byte helpers shared by the hash tables of the model and the subword tokenizer, string lists
// as the model stores them, and whether this target prefetches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace swe {

// The n <= 8 bytes at p as a little-endian integer, zero-padded (n > 8 reads 8). Whole loads, not a
// byte-wise copy into memory read back as one word (that stalls store-to-load forwarding).
inline uint64_t LoadPartial(const char* p, size_t n) {
  if (n >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  if (n >= 4) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    return uint64_t{lo} | uint64_t{hi} << (8 * (n - 4));  // the overlap ORs equal bytes
  }
  if (n == 0) return 0;
  const auto b = [p](size_t i) { return uint64_t{static_cast<uint8_t>(p[i])} << (8 * i); };
  return b(0) | b(n / 2) | b(n - 1);
}

// The low n bytes of a 64-bit word set, the others clear (n <= 8).
inline uint64_t LowBytesMask(size_t n) { return n >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * n)) - 1; }

// LoadPartial(p, n) where at least `readable` bytes may be read at p: with 8 or more (a word inside
// its text, most of them), one load masked to n bytes instead of LoadPartial's branches on n.
inline uint64_t LoadHead(const char* p, size_t n, size_t readable) {
  if (readable < 8) return LoadPartial(p, n);
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v & LowBytesMask(n);
}

// `count` strings stored as one blob and count + 1 offsets (a model's vocabulary, a string list as
// the reader validated it).
struct StringsView {
  const uint8_t* bytes = nullptr;
  const uint32_t* offsets = nullptr;
  uint32_t count = 0;
  std::string_view at(uint32_t i) const {
    return std::string_view(reinterpret_cast<const char*>(bytes) + offsets[i], offsets[i + 1] - offsets[i]);
  }
};

// Whether __builtin_prefetch does anything. wasm has no prefetch instruction, but LLVM keeps the
// intrinsic (and the address arithmetic feeding it: a word's hash, its slot) until the backend drops
// it, so callers skip that work themselves there.
#if defined(__wasm__)
inline constexpr bool kHasPrefetch = false;
#else
inline constexpr bool kHasPrefetch = true;
#endif

// Marks a function (or lambda) on the per-word path that takes a small struct (a std::string_view, a
// Span) by value or copies one it is given by reference, so that wasm builds inline it. wasm32 passes
// such a struct through memory, and clang copies it with one 8-byte load of two 4-byte fields just
// stored: store-to-load forwarding fails, and the load waits for the stores to reach the cache.
// Inlining WordIndex::Find, Splitter::ScanWord and the tokenizer's per-word lambda made the wasm
// encode 1.2-1.3x faster (docs/BENCHMARKS.md). Native ABIs pass these in registers, and inline them.
#if defined(__wasm__)
#define SWE_INLINE_IN_WASM __attribute__((always_inline))
#else
#define SWE_INLINE_IN_WASM
#endif

// A hash-table key's inline part: its first 8 bytes and a tag of 24 hash bits and the length, so
// that a key of up to 8 bytes is compared without reading it from elsewhere.
inline uint32_t KeyTag(uint32_t hash, size_t size) {
  return (hash & 0xFFFFFF00u) | static_cast<uint32_t>(size < 255 ? size : 255);
}

}  // namespace swe
