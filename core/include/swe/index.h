// A flat, exact cosine index: every query is scored against every stored vector. Deterministic:
// equal scores are ordered by ascending id. Vectors are L2-normalised when added; int8 indexes store
// each vector as int8 with one f32 scale (max |x| / 127) and score with exact integer dot products.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "swe/model.h"
#include "swe/model_file.h"
#include "swe/status.h"

namespace swe {

struct SearchHit {
  uint64_t id;
  float score;
};

class Index {
 public:
  // dtype: DType::kF32 or DType::kInt8.
  static Status Create(uint32_t dims, DType dtype, std::unique_ptr<Index>* out);
  // Reads an index file written by Save (validated like a model file).
  static Status Load(const uint8_t* data, size_t size, std::unique_ptr<Index>* out,
                     const ReadLimits& limits = ReadLimits());
  ~Index();

  uint32_t dims() const { return dims_; }
  DType dtype() const { return dtype_; }
  size_t size() const { return ids_.size(); }
  // Informative: the model the vectors came from (stored in the file, checked by callers).
  void set_model(std::string name, uint32_t checksum) { model_name_ = std::move(name); model_checksum_ = checksum; }
  const std::string& model_name() const { return model_name_; }
  uint32_t model_checksum() const { return model_checksum_; }

  // Adds (or replaces) the vector for `id`. Rejects non-finite values.
  Status Add(uint64_t id, const float* vector);
  Status AddBatch(const uint64_t* ids, const float* vectors, size_t n);
  Status Remove(uint64_t id);
  bool Contains(uint64_t id) const noexcept;  // noexcept: swe_index_contains returns only 1 or 0
  // The k best hits for `query` (dims() floats), best first; fewer when the index is smaller.
  Status Search(const float* query, size_t k, std::vector<SearchHit>* hits) const;
  // Appends a .swe index file to `out`.
  Status Save(std::vector<uint8_t>* out, int zstd_level = 3) const;

 private:
  Index(uint32_t dims, DType dtype);
  struct Slots;
  uint32_t dims_;
  DType dtype_;
  std::vector<uint64_t> ids_;
  std::vector<float> f32_;      // size() * dims
  std::vector<int8_t> i8_;      // size() * dims
  std::vector<float> scales_;   // int8: size()
  std::unique_ptr<Slots> slots_;  // id -> position
  std::string model_name_;
  uint32_t model_checksum_ = 0;
};

}  // namespace swe
