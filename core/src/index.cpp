// The flat exact cosine index in memory: add, remove, exact and binary search (its file: index_file.cpp).
#include "swe/index.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
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
using index_internal::kChunkRows;
using index_internal::TopK;

// The cosine of two int8 rows from their exact dot product and scales. Rounding each row to int8 can
// carry it past ±1 (1.00095 was seen): a cosine is clamped, as the f32 rows' never needs.
inline float Int8Score(int32_t dot, float query_scale, float row_scale) {
  return std::clamp(static_cast<float>(dot) * query_scale * row_scale, -1.0f, 1.0f);
}

}  // namespace

Index::Index(uint32_t dims, DType dtype) : dims_(dims), dtype_(dtype) {}

Index::Index(const Index& other)
    : dims_(other.dims_), dtype_(other.dtype_), size_(other.size_), chunks_(other.chunks_),
      position_(other.position_), center_(other.center_), codes_(other.codes_), centred_on_(other.centred_on_),
      next_id_(other.next_id_), next_id_stale_(other.next_id_stale_), model_name_(other.model_name_),
      model_checksum_(other.model_checksum_) {
  // The copy may read every row now: the writer appends in place only past them (WritableChunk). Every
  // chunk, not only the last: removals from the end can make a chunk that was full the last again.
  for (size_t c = 0; c < chunks_.size(); ++c) {
    chunks_[c]->sealed = std::max(chunks_[c]->sealed, RowsIn(c));
    if (center_ && codes_[c]) codes_[c]->sealed = std::max(codes_[c]->sealed, RowsIn(c));
  }
}

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

size_t Index::row_bytes() const { return dims_ * ElementSize(dtype_); }

size_t Index::RowsIn(size_t chunk) const { return std::min(kChunkRows, size_ - chunk * kChunkRows); }

uint64_t Index::IdAt(size_t pos) const { return chunks_[pos / kChunkRows]->ids[pos % kChunkRows]; }

const uint8_t* Index::RowAt(size_t pos) const {
  return reinterpret_cast<const uint8_t*>(chunks_[pos / kChunkRows]->data.get()) + (pos % kChunkRows) * row_bytes();
}

float Index::ScaleAt(size_t pos) const { return chunks_[pos / kChunkRows]->scales[pos % kChunkRows]; }

Index::Chunk& Index::WritableChunk(size_t c, size_t rows, bool appending) {
  std::shared_ptr<Chunk>& chunk = chunks_[c];
  // In place when no copy of the index holds the chunk, or when only an append past every row a copy
  // may read (a version reads its own count of rows) writes it.
  if (chunk && chunk->capacity >= rows && (chunk.use_count() == 1 || (appending && rows - 1 >= chunk->sealed))) {
    return *chunk;
  }
  // A copy: another index shares the chunk, or it is full. Capacity doubles up to a whole chunk.
  const size_t kept = chunk ? std::min(chunk->capacity, RowsIn(c)) : 0;
  const size_t capacity = std::min(kChunkRows, std::max({rows, size_t{8}, chunk ? 2 * chunk->capacity : 0}));
  auto copy = std::make_shared<Chunk>(std::max(capacity, rows), row_bytes(), dtype_ == DType::kInt8);
  if (kept > 0) {
    std::memcpy(copy->ids.get(), chunk->ids.get(), kept * 8);
    std::memcpy(copy->data.get(), chunk->data.get(), kept * row_bytes());
    if (copy->scales) std::memcpy(copy->scales.get(), chunk->scales.get(), kept * 4);
  }
  chunk = std::move(copy);
  return *chunk;
}

uint64_t* Index::WritableCodes(size_t pos, bool appending) {
  const size_t words = hamming::Words(dims_);
  std::shared_ptr<CodeChunk>& chunk = codes_[pos / kChunkRows];
  if (!chunk) {
    chunk = std::make_shared<CodeChunk>(words);
  } else if (chunk.use_count() > 1 && !(appending && pos % kChunkRows >= chunk->sealed)) {
    auto copy = std::make_shared<CodeChunk>(words);
    std::memcpy(copy->bits.get(), chunk->bits.get(), kChunkRows * words * 8);
    chunk = std::move(copy);
  }
  return chunk->bits.get() + (pos % kChunkRows) * words;
}

size_t Index::Slot(uint64_t id) {
  if (const uint64_t* found = position_.Find(id)) {
    WritableChunk(*found / kChunkRows, RowsIn(*found / kChunkRows), false);
    return *found;
  }
  const size_t pos = size_;
  const size_t c = pos / kChunkRows;
  if (c == chunks_.size()) {
    chunks_.emplace_back();
    if (center_) codes_.emplace_back();
  }
  WritableChunk(c, pos % kChunkRows + 1, true).ids[pos % kChunkRows] = id;  // its rows kept: those before pos
  ++size_;
  next_id_ = std::max(next_id_, id + 1);  // wraps to 0 for 2^64 - 1: no effect, as NextId() says
  position_.Set(id, pos);
  return pos;
}

void Index::Placed(size_t pos, bool appended) {
  if (!center_) return;
  // The center drifts as the index grows: re-centre when it has doubled (amortised O(1) per Add).
  if (size_ >= 2 * centred_on_) {
    BuildCodes();
  } else {
    CodeRow(pos, center_->data(), WritableCodes(pos, appended));
  }
}

size_t Index::MaxEntries() const {
  return static_cast<size_t>(std::min<uint64_t>({UINT32_MAX, index_internal::kMaxBlobBytes / 8, index_internal::kMaxBlobBytes / row_bytes()}));
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
  if (more > max - std::min(max, size_)) return Full(max, dims_, dtype_, size_ + more);
  position_.Reserve(size_ + more);
  return Status::Ok();
}

Status Index::CheckRoomFor(uint64_t id) const {
  if (size_ < MaxEntries() || Contains(id)) return Status::Ok();
  return Full(MaxEntries(), dims_, dtype_, size_ + 1);
}

Status Index::Add(uint64_t id, const float* vector) {
  if (vector == nullptr) return InvalidArgument("null vector");
  if (!AllFinite(vector, dims_)) return InvalidArgument("vector has a non-finite value");
  SWE_RETURN_IF_ERROR(CheckRoomFor(id));
  std::vector<float> unit(vector, vector + dims_);
  NormalizeL2(unit.data(), dims_);
  const size_t before = size_;
  const size_t pos = Slot(id);
  Chunk& chunk = *chunks_[pos / kChunkRows];
  const size_t r = pos % kChunkRows;
  if (dtype_ == DType::kF32) {
    std::memcpy(reinterpret_cast<float*>(chunk.data.get()) + r * dims_, unit.data(), dims_ * sizeof(float));
  } else {
    chunk.scales[r] = QuantizeRow(unit.data(), dims_, reinterpret_cast<int8_t*>(chunk.data.get()) + r * dims_);
  }
  Placed(pos, size_ > before);
  return Status::Ok();
}

bool Index::StoredRow(uint64_t id, uint8_t* row, float* scale) const {
  const uint64_t* pos = position_.Find(id);
  if (!pos) return false;
  std::memcpy(row, RowAt(*pos), row_bytes());
  *scale = dtype_ == DType::kInt8 ? ScaleAt(*pos) : 0.0f;
  return true;
}

Status Index::PutStored(uint64_t id, const uint8_t* row, float scale) {
  SWE_RETURN_IF_ERROR(CheckRoomFor(id));
  if (dtype_ == DType::kF32) {
    std::vector<float> values(dims_);
    std::memcpy(values.data(), row, row_bytes());
    if (!AllFinite(values.data(), dims_)) return Corrupt("index: non-finite vector value");
    if (!index_internal::RowsAreUnit(values.data(), 1, dims_)) return Corrupt("index: a stored vector is not unit length");
  } else {
    if (!index_internal::ScaleFitsUnitRow(scale)) return Corrupt("index: a scale is negative, non-finite or too large");
    if (std::memchr(row, 0x80, dims_) != nullptr) {
      return Corrupt("index: an int8 vector value is -128 (int8 vectors hold -127..127)");
    }
  }
  const size_t before = size_;
  const size_t pos = Slot(id);
  Chunk& chunk = *chunks_[pos / kChunkRows];
  const size_t r = pos % kChunkRows;
  std::memcpy(reinterpret_cast<uint8_t*>(chunk.data.get()) + r * row_bytes(), row, row_bytes());
  if (chunk.scales) chunk.scales[r] = scale;
  Placed(pos, size_ > before);
  return Status::Ok();
}

void Index::CodeRow(size_t pos, const float* center, uint64_t* out) const {
  if (dtype_ == DType::kF32) {
    hamming::SignBits(reinterpret_cast<const float*>(RowAt(pos)), center, dims_, out);
  } else {
    hamming::SignBits(reinterpret_cast<const int8_t*>(RowAt(pos)), ScaleAt(pos), center, dims_, out);
  }
}

namespace {

// The mean of an index's rows (the codes' center), from a function giving row `pos` as floats.
template <typename Row>
std::vector<float> Mean(size_t count, uint32_t dims, Row row) {
  std::vector<double> sum(dims, 0.0);
  std::vector<float> values(dims);
  for (size_t pos = 0; pos < count; ++pos) {
    row(pos, values.data());
    for (uint32_t j = 0; j < dims; ++j) sum[j] += values[j];
  }
  std::vector<float> center(dims, 0.0f);
  for (uint32_t j = 0; count > 0 && j < dims; ++j) center[j] = static_cast<float>(sum[j] / count);
  return center;
}

}  // namespace

Index::Codes Index::TemporaryCodes() const {
  Codes codes;
  auto center = std::make_shared<std::vector<float>>(Mean(size_, dims_, [&](size_t pos, float* out) {
    if (dtype_ == DType::kF32) {
      std::memcpy(out, RowAt(pos), dims_ * sizeof(float));
    } else {
      const int8_t* row = reinterpret_cast<const int8_t*>(RowAt(pos));
      const double scale = ScaleAt(pos);
      for (uint32_t j = 0; j < dims_; ++j) out[j] = static_cast<float>(row[j] * scale);
    }
  }));
  const size_t words = hamming::Words(dims_);
  for (size_t c = 0; c < chunks_.size(); ++c) {
    auto chunk = std::make_shared<CodeChunk>(words);
    for (size_t r = 0; r < RowsIn(c); ++r) CodeRow(c * kChunkRows + r, center->data(), chunk->bits.get() + r * words);
    codes.chunks.push_back(std::move(chunk));
  }
  codes.center = std::move(center);
  return codes;
}

void Index::BuildCodes() {
  Codes codes = TemporaryCodes();  // new chunks: versions that share the old codes keep them
  center_ = std::move(codes.center);
  codes_ = std::move(codes.chunks);
  centred_on_ = size_;
}

void Index::EnableBinary() { BuildCodes(); }

size_t Index::MemoryBytes() const {
  size_t bytes = 0;
  for (const auto& chunk : chunks_) bytes += chunk->capacity * (8 + row_bytes() + (chunk->scales ? 4 : 0));
  bytes += codes_.size() * kChunkRows * hamming::Words(dims_) * 8;
  return bytes + (center_ ? center_->size() * sizeof(float) : 0);
}

std::vector<uint64_t> Index::ids() const {
  std::vector<uint64_t> out;
  out.reserve(size_);
  for (size_t c = 0; c < chunks_.size(); ++c) out.insert(out.end(), chunks_[c]->ids.get(), chunks_[c]->ids.get() + RowsIn(c));
  return out;
}

uint64_t Index::NextId() {
  if (next_id_stale_) {
    next_id_ = 0;
    for (size_t pos = 0; pos < size_; ++pos) next_id_ = std::max(next_id_, IdAt(pos) + 1);
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
  const uint64_t* found = position_.Find(id);
  if (!found) return NotFound("id " + std::to_string(id) + " is not in the index");
  const size_t pos = *found;
  const size_t last = size_ - 1;
  if (id + 1 == next_id_) next_id_stale_ = true;
  if (pos != last) {  // move the last entry into the hole
    const uint64_t moved = IdAt(last);
    Chunk& hole = WritableChunk(pos / kChunkRows, RowsIn(pos / kChunkRows), false);
    const size_t r = pos % kChunkRows;
    hole.ids[r] = moved;
    std::memcpy(reinterpret_cast<uint8_t*>(hole.data.get()) + r * row_bytes(), RowAt(last), row_bytes());
    if (hole.scales) hole.scales[r] = ScaleAt(last);
    if (center_) {
      const size_t words = hamming::Words(dims_);
      const uint64_t* from = codes_[last / kChunkRows]->bits.get() + (last % kChunkRows) * words;
      std::vector<uint64_t> code(from, from + words);  // the source may be the chunk WritableCodes copies
      std::memcpy(WritableCodes(pos, false), code.data(), words * 8);
    }
    position_.Set(moved, pos);
  }
  position_.Erase(id);
  --size_;
  if (size_ == (chunks_.size() - 1) * kChunkRows) {  // the last chunk is empty
    chunks_.pop_back();
    if (center_) codes_.pop_back();
  }
  return Status::Ok();
}

bool Index::Contains(uint64_t id) const noexcept { return position_.Find(id) != nullptr; }

Status Index::Search(const float* query, size_t k, std::vector<SearchHit>* hits) const {
  hits->clear();
  if (query == nullptr) return InvalidArgument("null query");
  if (!AllFinite(query, dims_)) return InvalidArgument("query has a non-finite value");
  k = std::min(k, size_);
  if (k == 0) return Status::Ok();
  std::vector<float> unit(query, query + dims_);
  NormalizeL2(unit.data(), dims_);
  const simd::Kernels& kernels = simd::Active();
  TopK top(k);
  std::vector<float> scores(std::min(size_, kChunkRows));  // a chunk's scores, offered together (TopK::OfferBlock)
  std::vector<int8_t> q;
  std::vector<int32_t> dots;
  float scale = 0;
  if (dtype_ == DType::kInt8) {
    q.resize(dims_);
    scale = QuantizeRow(unit.data(), dims_, q.data());
    dots.resize(scores.size());
  }
  for (size_t c = 0; c < chunks_.size(); ++c) {
    const Chunk& chunk = *chunks_[c];
    const size_t m = RowsIn(c);
    if (dtype_ == DType::kF32) {
      kernels.scan_f32(unit.data(), reinterpret_cast<const float*>(chunk.data.get()), dims_, m, scores.data());
    } else {
      kernels.scan_i8(q.data(), reinterpret_cast<const int8_t*>(chunk.data.get()), dims_, m, dots.data());
      for (size_t j = 0; j < m; ++j) scores[j] = Int8Score(dots[j], scale, chunk.scales[j]);
    }
    top.OfferBlock(chunk.ids.get(), scores.data(), m);
  }
  top.Finish(hits);
  return Status::Ok();
}

Status Index::SearchBinary(const float* query, size_t k, size_t candidates, std::vector<SearchHit>* hits) const {
  hits->clear();
  if (query == nullptr) return InvalidArgument("null query");
  if (!AllFinite(query, dims_)) return InvalidArgument("query has a non-finite value");
  if (candidates < k) return InvalidArgument("candidates must be at least k");
  k = std::min(k, size_);
  if (k == 0) return Status::Ok();
  candidates = std::min(candidates, size_);  // no allocation or selection past the index's size
  Codes temporary;
  if (!center_) temporary = TemporaryCodes();
  const std::vector<float>& center = center_ ? *center_ : *temporary.center;
  const std::vector<std::shared_ptr<CodeChunk>>& code_chunks = center_ ? codes_ : temporary.chunks;
  std::vector<float> unit(query, query + dims_);
  NormalizeL2(unit.data(), dims_);
  const size_t words = hamming::Words(dims_);
  std::vector<uint64_t> code(words);
  hamming::SignBits(unit.data(), center.data(), dims_, code.data());
  std::vector<const uint64_t*> bits(code_chunks.size());
  for (size_t c = 0; c < bits.size(); ++c) bits[c] = code_chunks[c]->bits.get();
  std::vector<uint32_t> nearest;
  hamming::Nearest(code.data(), bits.data(), kChunkRows, words, size_, candidates, &nearest);
  return Rescore(unit.data(), k, nearest, hits);
}

// The k best of `nearest` (positions), scored exactly as Search scores them, so that a hit's score
// does not depend on the method.
Status Index::Rescore(const float* unit, size_t k, const std::vector<uint32_t>& nearest,
                      std::vector<SearchHit>* hits) const {
  const simd::Kernels& kernels = simd::Active();
  std::vector<int8_t> q;
  float scale = 0;
  if (dtype_ == DType::kInt8) {
    q.resize(dims_);
    scale = QuantizeRow(unit, dims_, q.data());
  }
  TopK top(k);
  for (size_t i = 0; i < nearest.size(); ++i) {
    if (i + 8 < nearest.size()) {  // random rows: their misses overlap instead of queueing
      const uint8_t* ahead = RowAt(nearest[i + 8]);
      for (size_t b = 0; b < row_bytes(); b += 64) __builtin_prefetch(ahead + b);
    }
    const uint32_t pos = nearest[i];
    if (dtype_ == DType::kF32) {
      float score;
      kernels.scan_f32(unit, reinterpret_cast<const float*>(RowAt(pos)), dims_, 1, &score);
      top.Offer(IdAt(pos), score);
    } else {
      int32_t dot;
      kernels.scan_i8(q.data(), reinterpret_cast<const int8_t*>(RowAt(pos)), dims_, 1, &dot);
      top.Offer(IdAt(pos), Int8Score(dot, scale, ScaleAt(pos)));
    }
  }
  top.Finish(hits);
  return Status::Ok();
}

Status Index::FillFromBlobs(const uint8_t* ids, const uint8_t* values, const uint8_t* scales, size_t count) {
  position_.Reserve(count);
  next_id_stale_ = true;  // computed on first use: loading stays one pass over the ids
  for (size_t start = 0; start < count; start += kChunkRows) {
    const size_t m = std::min(kChunkRows, count - start);
    auto chunk = std::make_shared<Chunk>(m, row_bytes(), dtype_ == DType::kInt8);
    std::memcpy(chunk->ids.get(), ids + start * 8, m * 8);
    std::memcpy(chunk->data.get(), values + start * row_bytes(), m * row_bytes());
    if (dtype_ == DType::kF32) {
      const float* rows = reinterpret_cast<const float*>(chunk->data.get());
      if (!AllFinite(rows, m * dims_)) return Corrupt("index: non-finite vector value");
      if (!index_internal::RowsAreUnit(rows, m, dims_)) return Corrupt("index: a stored vector is not unit length");
    } else {
      std::memcpy(chunk->scales.get(), scales + start * 4, m * 4);
      if (!std::all_of(chunk->scales.get(), chunk->scales.get() + m, index_internal::ScaleFitsUnitRow)) {
        return Corrupt("index: a scale is negative, non-finite or too large");
      }
      // The scan kernels take [-127, 127] (simd/kernels.h); the writer never stores -128.
      if (std::memchr(chunk->data.get(), 0x80, m * row_bytes()) != nullptr) {
        return Corrupt("index: an int8 vector value is -128 (int8 vectors hold -127..127)");
      }
    }
    for (size_t r = 0; r < m; ++r) {
      const uint64_t id = chunk->ids[r];
      if (position_.Find(id)) return Corrupt("index: duplicate id " + std::to_string(id));
      position_.Set(id, start + r);
    }
    chunks_.push_back(std::move(chunk));
    size_ += m;
  }
  return Status::Ok();
}

}  // namespace swe
