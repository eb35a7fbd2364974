// What the index's two files share: index.cpp (the vectors in memory: add, remove, search) and
// index_file.cpp (Save and Load, the index file). Private to core.
#pragma once

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>

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
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i])) return false;
  }
  return true;
}

// Bytes of one stored vector element.
inline size_t ElementSize(DType dtype) { return dtype == DType::kF32 ? 4 : 1; }

}  // namespace index_internal
}  // namespace swe
