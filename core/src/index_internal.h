// What the index's files share: index.cpp (the vectors in memory: add, remove, search),
// index_file.cpp (Save and Load, the index file) and rank.cpp (rows ranked as an index ranks them).
// Private to core.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "swe/index.h"

namespace swe {

namespace index_internal {
constexpr size_t kChunkRows = 1024;  // positions a chunk holds; also the rows scored per kernel call
}  // namespace index_internal

// Positions [c * kChunkRows, c * kChunkRows + capacity) of an index: never changed while two indexes
// (a version and its writer) share it; a write to a shared chunk writes a copy.
struct Index::Chunk {
  Chunk(size_t rows, size_t row_bytes, bool int8)
      : capacity(rows), ids(new uint64_t[rows]), data(new uint64_t[(rows * row_bytes + 7) / 8]),
        scales(int8 ? new float[rows] : nullptr) {}
  size_t capacity;
  std::unique_ptr<uint64_t[]> ids;
  std::unique_ptr<uint64_t[]> data;  // capacity rows of row_bytes: f32 or int8 values, word-aligned
  std::unique_ptr<float[]> scales;   // int8: one per row
  // Rows some copy of the index (a published version) may read: the writer appends in place past
  // them, and copies the chunk to write below them while it is shared. Set and read by the writer only.
  mutable size_t sealed = 0;
};

// The binary codes of one chunk's positions: kChunkRows codes of hamming::Words(dims) words.
struct Index::CodeChunk {
  explicit CodeChunk(size_t words) : bits(new uint64_t[index_internal::kChunkRows * words]) {}
  std::unique_ptr<uint64_t[]> bits;
  mutable size_t sealed = 0;  // as Chunk's
};

struct Index::Codes {
  std::shared_ptr<const std::vector<float>> center;
  std::vector<std::shared_ptr<CodeChunk>> chunks;
};

namespace index_internal {

constexpr uint64_t kMaxBlobBytes = (1ull << 29) - 1;  // Cap'n Proto's largest Data: one table's bytes

inline bool AllFinite(const float* x, size_t n) {
  // Inf and NaN have every exponent bit set. Integer tests and no early exit: the loop vectorises (a
  // check of 200k rows ran at memory speed instead of a few bytes a cycle).
  uint32_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, x + i, sizeof bits);
    bad |= (bits & 0x7f800000u) == 0x7f800000u;
  }
  return bad == 0;
}

// Stored f32 rows are unit vectors (or zero rows, from zero inputs): a loaded file must say the same,
// so that scores stay cosines and finite.
inline bool RowsAreUnit(const float* rows, size_t count, uint32_t dims) {
  for (size_t r = 0; r < count; ++r) {
    double s = 0;
    for (uint32_t j = 0; j < dims; ++j) {
      const double v = rows[r * dims + j];
      s += v * v;
    }
    if (s != 0 && !(s > 0.99 && s < 1.01)) return false;
  }
  return true;
}

// An int8 row of a unit vector has scale = max|x| / 127 <= 1/127, which keeps every score finite
// (|score| <= dims). Its norm is not checked: rounding may legitimately move it far from 1 when
// thousands of small values round to zero.
inline bool ScaleFitsUnitRow(float s) { return s >= 0.0f && s <= 1.0f / 127 * 1.0001f; }

// Bytes of one stored vector element.
inline size_t ElementSize(DType dtype) { return dtype == DType::kF32 ? 4 : 1; }

constexpr size_t kScanBlock = kChunkRows;  // rows scored per kernel call

// Best first: higher score, then lower id.
inline bool Better(const SearchHit& a, const SearchHit& b) {
  return a.score > b.score || (a.score == b.score && a.id < b.id);
}

// Keeps the k best hits seen so far scoring at least `floor`; the worst of them on top of a heap.
class TopK {
 public:
  explicit TopK(size_t k, float floor = -INFINITY) : k_(k), floor_(floor) { heap_.reserve(k); }
  void Offer(uint64_t id, float score) {
    const SearchHit hit{id, score};
    if (!(score >= floor_)) return;
    if (heap_.size() < k_) {
      heap_.push_back(hit);
      std::push_heap(heap_.begin(), heap_.end(), Better);
    } else if (Better(hit, heap_.front())) {
      std::pop_heap(heap_.begin(), heap_.end(), Better);
      heap_.back() = hit;
      std::push_heap(heap_.begin(), heap_.end(), Better);
    }
  }
  // Offers a block of rows, reading the id only of a row whose score may enter (a tie with the k-th
  // best may: the lower id wins): most rows of a large index fall below it, and their ids are a
  // stream of their own (8 bytes a row).
  void OfferBlock(const uint64_t* ids, const float* scores, size_t m) {
    for (size_t j = 0; j < m; ++j) {
      if (heap_.size() < k_ || scores[j] >= heap_.front().score) Offer(ids[j], scores[j]);
    }
  }
  void Finish(std::vector<SearchHit>* out) {
    std::sort_heap(heap_.begin(), heap_.end(), Better);
    *out = std::move(heap_);
  }

 private:
  size_t k_;
  float floor_;
  std::vector<SearchHit> heap_;
};

}  // namespace index_internal
}  // namespace swe
