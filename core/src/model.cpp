#include "swe/model.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "bytes.h"
#include "simd/kernels.h"
#include "swe/subword.h"
#include "word_index.h"

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

const char* cjk_mode_name(CjkMode mode) {
  switch (mode) {
    case CjkMode::kNone: return "none";
    case CjkMode::kCharacters: return "characters";
    case CjkMode::kSubwords: return "subwords";
    case CjkMode::kBigrams: return "bigrams";
    case CjkMode::kLongest: return "longest";
  }
  return "unknown";
}

bool ParseCjkMode(std::string_view name, CjkMode* out) {
  for (CjkMode m : {CjkMode::kNone, CjkMode::kCharacters, CjkMode::kSubwords, CjkMode::kBigrams, CjkMode::kLongest}) {
    if (name == cjk_mode_name(m)) {
      *out = m;
      return true;
    }
  }
  return false;
}

// The low half of HashWord64 with seed 0 (the tokenizer's cache of unknown words).
uint32_t HashWord(std::string_view word) { return static_cast<uint32_t>(HashWord64(word, 0)); }

Model::Model() : subword_(std::make_unique<SubwordTokenizer>()) {
  static std::atomic<uint64_t> next_serial{1};
  serial_ = next_serial.fetch_add(1, std::memory_order_relaxed);
}
Model::~Model() = default;

std::string_view Model::word(uint32_t id) const { return StringsView{word_bytes_, word_offsets_, rows_}.at(id); }

Status Model::BuildIndex() {
  // Every word of the blob is a vocabulary word: one scan for a capital instead of one per word.
  const uint8_t* bytes_end = word_bytes_ + word_offsets_[rows_];
  ascii_upper_words_ = std::any_of(word_bytes_, bytes_end, [](uint8_t c) { return c >= 'A' && c <= 'Z'; });
  index_ = std::make_unique<WordIndex>();
  return index_->Build(StringsView{word_bytes_, word_offsets_, rows_});
}

int64_t Model::find(std::string_view w) const { return index_->Find(w); }

void Model::PrefetchRows(const uint32_t* ids, size_t count) const {
  if (!kHasPrefetch) return;
  const size_t bytes = dims_ * (dtype_ == DType::kF32 ? 4 : dtype_ == DType::kF16 ? 2 : 1);
  for (size_t j = 0; j < count; ++j) {
    const uint8_t* row = table_ + size_t{ids[j]} * bytes;
    for (size_t b = 0; b < bytes; b += 64) __builtin_prefetch(row + b);
    __builtin_prefetch(row + bytes - 1);
    if (scales_) __builtin_prefetch(scales_ + ids[j]);
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
