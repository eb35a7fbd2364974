#include "swe/model.h"

#include <cstring>

#include "simd/kernels.h"
#include "swe/subword.h"

namespace swe {

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kF32: return "f32";
    case DType::kF16: return "f16";
    case DType::kInt8: return "int8";
  }
  return "unknown";
}

bool ParseDType(std::string_view name, DType* out) {
  for (DType d : {DType::kF32, DType::kF16, DType::kInt8}) {
    if (name == dtype_name(d)) {
      *out = d;
      return true;
    }
  }
  return false;
}

// 8 bytes at a time, multiply-xorshift mixing: fast on short words, good enough spread for probing.
uint32_t HashWord(std::string_view word) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (word.size() * 0xFF51AFD7ED558CCDull);
  const char* p = word.data();
  size_t n = word.size();
  while (n >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    h = (h ^ v) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    uint64_t v = 0;
    std::memcpy(&v, p, n);
    h = (h ^ v) * 0xBF58476D1CE4E5B9ull;
  }
  h ^= h >> 29;
  h *= 0x94D049BB133111EBull;
  h ^= h >> 32;
  return static_cast<uint32_t>(h);
}

Model::Model() : subword_(std::make_unique<SubwordTokenizer>()) {}
Model::~Model() = default;

std::string_view Model::word(uint32_t id) const {
  const uint32_t begin = word_offsets_[id], end = word_offsets_[id + 1];
  return std::string_view(reinterpret_cast<const char*>(word_bytes_) + begin, end - begin);
}

Status Model::BuildIndex() {
  uint32_t capacity = 16;
  while (capacity < 2ull * rows_) capacity *= 2;
  slots_.assign(capacity, Slot{0, 0});
  slot_mask_ = capacity - 1;
  for (uint32_t row = 0; row < rows_; ++row) {
    const std::string_view w = word(row);
    const uint32_t h = HashWord(w);
    for (uint32_t i = h & slot_mask_;; i = (i + 1) & slot_mask_) {
      Slot& slot = slots_[i];
      if (slot.row_plus_one == 0) {
        slot = Slot{h, row + 1};
        break;
      }
      if (slot.hash == h && word(slot.row_plus_one - 1) == w) {
        return Corrupt("duplicate vocabulary word '" + std::string(w) + "'");
      }
    }
  }
  return Status::Ok();
}

int64_t Model::find(std::string_view w) const {
  const uint32_t h = HashWord(w);
  for (uint32_t i = h & slot_mask_;; i = (i + 1) & slot_mask_) {
    const Slot& slot = slots_[i];
    if (slot.row_plus_one == 0) return -1;
    if (slot.hash == h && word(slot.row_plus_one - 1) == w) return slot.row_plus_one - 1;
  }
}

void Model::AccumulateRow(uint32_t id, float w, float* acc, uint32_t n) const {
  const size_t offset = size_t{id} * dims_;
  switch (dtype_) {
    case DType::kF32:
      kernels_->axpy_f32(acc, reinterpret_cast<const float*>(table_) + offset, w, n);
      break;
    case DType::kF16:
      kernels_->axpy_f16(acc, reinterpret_cast<const uint16_t*>(table_) + offset, w, n);
      break;
    case DType::kInt8:
      kernels_->axpy_i8(acc, reinterpret_cast<const int8_t*>(table_) + offset, w * scales_[id], n);
      break;
  }
}

void Model::AccumulateRows(const uint32_t* ids, size_t count, float* acc, uint32_t n) const {
  switch (dtype_) {
    case DType::kF32:
      kernels_->gather_f32(acc, reinterpret_cast<const float*>(table_), dims_, ids, count, weights_, n);
      break;
    case DType::kF16:
      kernels_->gather_f16(acc, reinterpret_cast<const uint16_t*>(table_), dims_, ids, count, weights_, n);
      break;
    case DType::kInt8:
      kernels_->gather_i8(acc, reinterpret_cast<const int8_t*>(table_), dims_, ids, count, weights_, scales_,
                          n);
      break;
  }
}

void Model::CopyRow(uint32_t id, float* out) const {
  std::memset(out, 0, sizeof(float) * dims_);
  AccumulateRow(id, 1.0f, out, dims_);
}

ModelContents Model::ToContents() const {
  ModelContents c;
  c.dims = dims_;
  c.words.reserve(rows_);
  for (uint32_t i = 0; i < rows_; ++i) c.words.emplace_back(word(i));
  c.vectors.resize(size_t{rows_} * dims_);
  for (uint32_t i = 0; i < rows_; ++i) CopyRow(i, c.vectors.data() + size_t{i} * dims_);
  if (weights_) c.weights.assign(weights_, weights_ + rows_);
  c.normalize = normalize_;
  c.tokenizer = tokenizer_;
  c.provenance = provenance_;
  return c;
}

}  // namespace swe
