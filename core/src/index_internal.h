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

constexpr uint64_t kMaxBlobBytes = (1ull << 29) - 1;  // Cap'n Proto's largest Data: one table's bytes

inline bool AllFinite(const float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i])) return false;
  }
  return true;
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

}  // namespace index_internal
}  // namespace swe
