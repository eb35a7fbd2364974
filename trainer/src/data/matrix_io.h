// Stage outputs on disk: f32 matrices in a small self-describing file ("SWEMAT01", rows u64, cols u64,
// then rows x cols little-endian f32). Not a model format: only the trainer's work directory uses it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "swe/status.h"

namespace swe::trainer {

struct Matrix {
  uint64_t rows = 0, cols = 0;
  std::vector<float> data;  // row-major
  float* row(uint64_t r) { return data.data() + r * cols; }
  const float* row(uint64_t r) const { return data.data() + r * cols; }
};

// Writes atomically (to path + ".tmp", then rename).
Status WriteMatrix(const std::string& path, const Matrix& m);
// Validates the header against the file size; rejects non-finite values.
Status ReadMatrix(const std::string& path, Matrix* m);

// Writes `text` to `path` atomically.
Status WriteTextFile(const std::string& path, const std::string& text);
Status ReadTextFile(const std::string& path, std::string* text);
bool FileExists(const std::string& path);

}  // namespace swe::trainer
