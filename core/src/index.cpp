// The flat exact cosine index in memory: add, remove, exact and binary search (its file: index_file.cpp).
#include "swe/index.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "hamming.h"
#include "index_internal.h"
#include "quantize.h"
#include "simd/kernels.h"
#include "swe/encoder.h"

namespace swe {

namespace {

using index_internal::AllFinite;
using index_internal::ElementSize;
using index_internal::kScanBlock;
using index_internal::TopK;

// The cosine of two int8 rows from their exact dot product and scales. Rounding each row to int8 can
// carry it past ±1 (1.00095 was seen): a cosine is clamped, as the f32 rows' never needs.
inline float Int8Score(int32_t dot, float query_scale, float row_scale) {
  return std::clamp(static_cast<float>(dot) * query_scale * row_scale, -1.0f, 1.0f);
}

}  // namespace

Index::Index(uint32_t dims, DType dtype) : dims_(dims), dtype_(dtype), slots_(new Slots) {}

Index::~Index() = default;

Status Index::Create(uint32_t dims, DType dtype, std::unique_ptr<Index>* out) {
  if (dims == 0 || dims > ReadLimits().max_dims) {
    return InvalidArgument("index dims must be 1.." + std::to_string(ReadLimits().max_dims));
  }
  if (dtype != DType::kF32 && dtype != DType::kInt8) {
    return InvalidArgument(std::string("index dtype must be f32 or int8, not ") + dtype_name(dtype));
  }
  out->reset(new Index(dims, dtype));
  return Status::Ok();
}

size_t Index::Slot(uint64_t id) {
  auto found = slots_->position.find(id);
  if (found != slots_->position.end()) return found->second;
  const size_t pos = ids_.size();
  ids_.push_back(id);
  next_id_ = std::max(next_id_, id + 1);  // wraps to 0 for 2^64 - 1: no effect, as NextId() says
  if (dtype_ == DType::kF32) {
    f32_.resize(f32_.size() + dims_);
  } else {
    i8_.resize(i8_.size() + dims_);
    scales_.push_back(0.0f);
  }
  slots_->position.emplace(id, pos);
  return pos;
}

void Index::Placed(size_t pos) {
  if (!binary_enabled()) return;
  // The center drifts as the index grows: re-centre when it has doubled (amortised O(1) per Add).
  if (ids_.size() >= 2 * centred_on_) {
    BuildCodes();
  } else {
    SetBits(pos);
  }
}

size_t Index::MaxEntries() const {
  return std::min<size_t>({UINT32_MAX, index_internal::kMaxBlobBytes / 8, index_internal::kMaxBlobBytes / row_bytes()});
}

namespace {
Status Full(size_t max, uint32_t dims, DType dtype, size_t wanted) {
  return TooLarge("one index file holds at most " + std::to_string(max) + " entries of " + std::to_string(dims) +
                  " " + dtype_name(dtype) + " dimensions, not " + std::to_string(wanted) +
                  (dtype == DType::kF32 ? " (int8 vectors take a quarter of the room)" : ""));
}
}  // namespace

Status Index::Reserve(size_t more) {
  const size_t max = MaxEntries();
  if (more > max - std::min(max, ids_.size())) return Full(max, dims_, dtype_, ids_.size() + more);
  ids_.reserve(ids_.size() + more);
  if (dtype_ == DType::kF32) {
    f32_.reserve(f32_.size() + more * dims_);
  } else {
    i8_.reserve(i8_.size() + more * dims_);
    scales_.reserve(scales_.size() + more);
  }
  return Status::Ok();
}

Status Index::CheckRoomFor(uint64_t id) const {
  if (ids_.size() < MaxEntries() || Contains(id)) return Status::Ok();
  return Full(MaxEntries(), dims_, dtype_, ids_.size() + 1);
}

Status Index::Add(uint64_t id, const float* vector) {
  if (vector == nullptr) return InvalidArgument("null vector");
  if (!AllFinite(vector, dims_)) return InvalidArgument("vector has a non-finite value");
  SWE_RETURN_IF_ERROR(CheckRoomFor(id));
  const size_t pos = Slot(id);
  if (dtype_ == DType::kF32) {
    float* row = f32_.data() + pos * dims_;
    std::copy(vector, vector + dims_, row);
    NormalizeL2(row, dims_);
  } else {
    std::vector<float> unit(vector, vector + dims_);
    NormalizeL2(unit.data(), dims_);
    scales_[pos] = QuantizeRow(unit.data(), dims_, i8_.data() + pos * dims_);
  }
  Placed(pos);
  return Status::Ok();
}

size_t Index::row_bytes() const { return dims_ * ElementSize(dtype_); }

bool Index::StoredRow(uint64_t id, uint8_t* row, float* scale) const {
  auto found = slots_->position.find(id);
  if (found == slots_->position.end()) return false;
  const size_t pos = found->second;
  if (dtype_ == DType::kF32) {
    std::memcpy(row, f32_.data() + pos * dims_, row_bytes());
    *scale = 0;
  } else {
    std::memcpy(row, i8_.data() + pos * dims_, row_bytes());
    *scale = scales_[pos];
  }
  return true;
}

Status Index::PutStored(uint64_t id, const uint8_t* row, float scale) {
  SWE_RETURN_IF_ERROR(CheckRoomFor(id));
  if (dtype_ == DType::kF32) {
    std::vector<float> values(dims_);
    std::memcpy(values.data(), row, row_bytes());
    if (!AllFinite(values.data(), dims_)) return Corrupt("index: non-finite vector value");
    if (!index_internal::RowsAreUnit(values.data(), 1, dims_)) return Corrupt("index: a stored vector is not unit length");
    const size_t pos = Slot(id);
    std::copy(values.begin(), values.end(), f32_.data() + pos * dims_);
    Placed(pos);
    return Status::Ok();
  }
  if (!index_internal::ScaleFitsUnitRow(scale)) return Corrupt("index: a scale is negative, non-finite or too large");
  if (std::memchr(row, 0x80, dims_) != nullptr) {
    return Corrupt("index: an int8 vector value is -128 (int8 vectors hold -127..127)");
  }
  const size_t pos = Slot(id);
  std::memcpy(i8_.data() + pos * dims_, row, dims_);
  scales_[pos] = scale;
  Placed(pos);
  return Status::Ok();
}

void Index::SetBits(size_t pos) const {
  const size_t words = hamming::Words(dims_);
  if (bits_.size() < (pos + 1) * words) bits_.resize((pos + 1) * words);
  const float* center = center_.empty() ? nullptr : center_.data();
  if (dtype_ == DType::kF32) {
    hamming::SignBits(f32_.data() + pos * dims_, center, dims_, bits_.data() + pos * words);
  } else {
    hamming::SignBits(i8_.data() + pos * dims_, scales_[pos], center, dims_, bits_.data() + pos * words);
  }
}

void Index::BuildCodes() const {
  const size_t count = ids_.size();
  std::vector<double> sum(dims_, 0.0);
  for (size_t pos = 0; pos < count; ++pos) {  // one loop per dtype: each vectorises
    if (dtype_ == DType::kF32) {
      const float* row = f32_.data() + pos * dims_;
      for (uint32_t j = 0; j < dims_; ++j) sum[j] += row[j];
    } else {
      const int8_t* row = i8_.data() + pos * dims_;
      const double scale = scales_[pos];
      for (uint32_t j = 0; j < dims_; ++j) sum[j] += row[j] * scale;
    }
  }
  center_.assign(dims_, 0.0f);
  for (uint32_t j = 0; count > 0 && j < dims_; ++j) center_[j] = static_cast<float>(sum[j] / count);
  bits_.assign(count * hamming::Words(dims_), 0);
  for (size_t pos = 0; pos < count; ++pos) SetBits(pos);
  centred_on_ = count;
}

void Index::EnableBinary() {
  BuildCodes();
  slots_->codes_ready.store(true, std::memory_order_release);
}

bool Index::binary_enabled() const { return slots_->codes_ready.load(std::memory_order_acquire); }

size_t Index::MemoryBytes() const {
  std::lock_guard<std::mutex> lock(slots_->codes_mutex);  // a first SearchBinary may be building codes
  return ids_.capacity() * sizeof(uint64_t) + f32_.capacity() * sizeof(float) + i8_.capacity() +
         scales_.capacity() * sizeof(float) + bits_.capacity() * sizeof(uint64_t) + center_.capacity() * sizeof(float);
}

uint64_t Index::NextId() {
  if (next_id_stale_) {
    next_id_ = 0;
    for (uint64_t id : ids_) next_id_ = std::max(next_id_, id + 1);
    next_id_stale_ = false;
  }
  return next_id_;
}

Status Index::AddBatch(const uint64_t* ids, const float* vectors, size_t n) {
  if (n == 0) return Status::Ok();
  if (ids == nullptr || vectors == nullptr) return InvalidArgument("null ids or vectors");
  if (!AllFinite(vectors, n * dims_)) return InvalidArgument("vectors have a non-finite value");
  for (size_t i = 0; i < n; ++i) SWE_RETURN_IF_ERROR(Add(ids[i], vectors + i * dims_));
  return Status::Ok();
}

Status Index::Remove(uint64_t id) {
  auto found = slots_->position.find(id);
  if (found == slots_->position.end()) return NotFound("id " + std::to_string(id) + " is not in the index");
  const size_t pos = found->second;
  const size_t last = ids_.size() - 1;
  slots_->position.erase(found);
  if (id + 1 == next_id_) next_id_stale_ = true;
  if (pos != last) {  // move the last entry into the hole
    ids_[pos] = ids_[last];
    slots_->position[ids_[pos]] = pos;
    if (dtype_ == DType::kF32) {
      std::copy_n(f32_.data() + last * dims_, dims_, f32_.data() + pos * dims_);
    } else {
      std::copy_n(i8_.data() + last * dims_, dims_, i8_.data() + pos * dims_);
      scales_[pos] = scales_[last];
    }
    if (binary_enabled()) {
      const size_t words = hamming::Words(dims_);
      std::copy_n(bits_.data() + last * words, words, bits_.data() + pos * words);
    }
  }
  ids_.pop_back();
  if (binary_enabled()) bits_.resize(last * hamming::Words(dims_));
  if (dtype_ == DType::kF32) {
    f32_.resize(last * dims_);
  } else {
    i8_.resize(last * dims_);
    scales_.pop_back();
  }
  return Status::Ok();
}

bool Index::Contains(uint64_t id) const noexcept { return slots_->position.count(id) != 0; }

Status Index::Search(const float* query, size_t k, std::vector<SearchHit>* hits) const {
  hits->clear();
  if (query == nullptr) return InvalidArgument("null query");
  if (!AllFinite(query, dims_)) return InvalidArgument("query has a non-finite value");
  const size_t count = ids_.size();
  k = std::min(k, count);
  if (k == 0) return Status::Ok();
  std::vector<float> unit(query, query + dims_);
  NormalizeL2(unit.data(), dims_);
  const simd::Kernels& kernels = simd::Active();
  TopK top(k);
  const size_t block = std::min(count, kScanBlock);
  std::vector<float> scores(block);  // a block's scores, offered together (TopK::OfferBlock)
  if (dtype_ == DType::kF32) {
    for (size_t start = 0; start < count; start += block) {
      const size_t m = std::min(block, count - start);
      kernels.scan_f32(unit.data(), f32_.data() + start * dims_, dims_, m, scores.data());
      top.OfferBlock(ids_.data() + start, scores.data(), m);
    }
  } else {
    std::vector<int8_t> q(dims_);
    const float scale = QuantizeRow(unit.data(), dims_, q.data());
    std::vector<int32_t> dots(block);
    for (size_t start = 0; start < count; start += block) {
      const size_t m = std::min(block, count - start);
      kernels.scan_i8(q.data(), i8_.data() + start * dims_, dims_, m, dots.data());
      const float* row_scales = scales_.data() + start;
      for (size_t j = 0; j < m; ++j) scores[j] = Int8Score(dots[j], scale, row_scales[j]);
      top.OfferBlock(ids_.data() + start, scores.data(), m);
    }
  }
  top.Finish(hits);
  return Status::Ok();
}

Status Index::SearchBinary(const float* query, size_t k, size_t candidates, std::vector<SearchHit>* hits) const {
  hits->clear();
  if (query == nullptr) return InvalidArgument("null query");
  if (!AllFinite(query, dims_)) return InvalidArgument("query has a non-finite value");
  if (candidates < k) return InvalidArgument("candidates must be at least k");
  const size_t count = ids_.size();
  k = std::min(k, count);
  if (k == 0) return Status::Ok();
  candidates = std::min(candidates, count);  // no allocation or selection past the index's size
  if (!binary_enabled()) {
    std::lock_guard<std::mutex> lock(slots_->codes_mutex);
    if (!slots_->codes_ready.load(std::memory_order_relaxed)) {
      BuildCodes();
      slots_->codes_ready.store(true, std::memory_order_release);
    }
  }
  std::vector<float> unit(query, query + dims_);
  NormalizeL2(unit.data(), dims_);
  const size_t words = hamming::Words(dims_);
  std::vector<uint64_t> code(words);
  hamming::SignBits(unit.data(), center_.data(), dims_, code.data());
  std::vector<int8_t> q;
  float scale = 0;
  if (dtype_ == DType::kInt8) {
    q.resize(dims_);
    scale = QuantizeRow(unit.data(), dims_, q.data());
  }
  std::vector<uint32_t> nearest;
  hamming::Nearest(code.data(), bits_.data(), words, count, candidates, &nearest);
  // Rescored exactly like Search scores them, so a hit's score does not depend on the method.
  const simd::Kernels& kernels = simd::Active();
  TopK top(k);
  const size_t row_bytes = dims_ * ElementSize(dtype_);
  const uint8_t* rows = dtype_ == DType::kF32 ? reinterpret_cast<const uint8_t*>(f32_.data())
                                              : reinterpret_cast<const uint8_t*>(i8_.data());
  for (size_t i = 0; i < nearest.size(); ++i) {
    if (i + 8 < nearest.size()) {  // random rows: their misses overlap instead of queueing
      const uint8_t* ahead = rows + size_t{nearest[i + 8]} * row_bytes;
      for (size_t b = 0; b < row_bytes; b += 64) __builtin_prefetch(ahead + b);
    }
    const uint32_t pos = nearest[i];
    if (dtype_ == DType::kF32) {
      float score;
      kernels.scan_f32(unit.data(), f32_.data() + size_t{pos} * dims_, dims_, 1, &score);
      top.Offer(ids_[pos], score);
    } else {
      int32_t dot;
      kernels.scan_i8(q.data(), i8_.data() + size_t{pos} * dims_, dims_, 1, &dot);
      top.Offer(ids_[pos], Int8Score(dot, scale, scales_[pos]));
    }
  }
  top.Finish(hits);
  return Status::Ok();
}

}  // namespace swe
