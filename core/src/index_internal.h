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
#include <mutex>
#include <unordered_map>
#include <vector>

#include "swe/index.h"

namespace swe {

struct Index::Slots {
  std::unordered_map<uint64_t, size_t> position;
  // The binary codes: built once under the lock by the first SearchBinary (searches may run
  // concurrently), read without it after `codes_ready` is seen set (acquire/release).
  std::mutex codes_mutex;
  std::atomic<bool> codes_ready{false};
};

namespace index_internal {

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

// Bytes of one stored vector element.
inline size_t ElementSize(DType dtype) { return dtype == DType::kF32 ? 4 : 1; }

constexpr size_t kScanBlock = 1024;  // rows scored per kernel call

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
