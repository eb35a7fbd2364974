// The flat exact cosine index and its file (container Kind::kIndex, schema struct Index).
#include "swe/index.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "container.h"
#include "index_docs_io.h"
#include "hamming.h"
#include "quantize.h"
#include "simd/kernels.h"
#include "swe.capnp.h"
#include "swe/encoder.h"

namespace swe {

struct Index::Slots {
  std::unordered_map<uint64_t, size_t> position;
  // The binary codes: built once under the lock by the first SearchBinary (searches may run
  // concurrently), read without it after `codes_ready` is seen set (acquire/release).
  std::mutex codes_mutex;
  std::atomic<bool> codes_ready{false};
};

namespace {

constexpr size_t kScanBlock = 1024;                   // rows scored per kernel call
constexpr uint64_t kMaxBlobBytes = (1ull << 29) - 1;  // Cap'n Proto's largest Data

bool AllFinite(const float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i])) return false;
  }
  return true;
}

// Stored f32 rows are unit vectors (or zero rows, from zero inputs): a loaded file must say the same,
// so that scores stay cosines and finite.
bool RowsAreUnit(const float* rows, size_t count, uint32_t dims) {
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
bool ScalesFitUnitRows(const std::vector<float>& scales) {
  for (float s : scales) {
    if (!(s >= 0.0f && s <= 1.0f / 127 * 1.0001f)) return false;
  }
  return true;
}

// Best first: higher score, then lower id.
bool Better(const SearchHit& a, const SearchHit& b) {
  return a.score > b.score || (a.score == b.score && a.id < b.id);
}

// Keeps the k best hits seen so far; the worst of them on top of a heap.
class TopK {
 public:
  explicit TopK(size_t k) : k_(k) { heap_.reserve(k); }
  void Offer(uint64_t id, float score) {
    const SearchHit hit{id, score};
    if (heap_.size() < k_) {
      heap_.push_back(hit);
      std::push_heap(heap_.begin(), heap_.end(), Better);
    } else if (Better(hit, heap_.front())) {
      std::pop_heap(heap_.begin(), heap_.end(), Better);
      heap_.back() = hit;
      std::push_heap(heap_.begin(), heap_.end(), Better);
    }
  }
  // Lowest score that can still enter (only meaningful when full).
  bool Full() const { return heap_.size() == k_; }
  float Threshold() const { return heap_.front().score; }
  void Finish(std::vector<SearchHit>* out) {
    std::sort_heap(heap_.begin(), heap_.end(), Better);
    *out = std::move(heap_);
  }

 private:
  size_t k_;
  std::vector<SearchHit> heap_;
};

void PutU64(uint8_t* p, uint64_t v) {
  for (int b = 0; b < 8; ++b) p[b] = static_cast<uint8_t>(v >> (8 * b));
}
uint64_t GetU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int b = 0; b < 8; ++b) v |= uint64_t{p[b]} << (8 * b);
  return v;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "index files store floats little-endian; this target is big-endian"
#endif

schema::DType ToSchema(DType dtype) {
  return dtype == DType::kF32 ? schema::DType::F32 : schema::DType::INT8;
}

size_t ElementSize(DType dtype) { return dtype == DType::kF32 ? 4 : 1; }

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

Status Index::Add(uint64_t id, const float* vector) {
  if (vector == nullptr) return InvalidArgument("null vector");
  if (!AllFinite(vector, dims_)) return InvalidArgument("vector has a non-finite value");
  auto found = slots_->position.find(id);
  const size_t pos = found != slots_->position.end() ? found->second : ids_.size();
  if (pos == ids_.size()) {
    ids_.push_back(id);
    next_id_ = std::max(next_id_, id + 1);  // wraps to 0 for 2^64 - 1: no effect, as NextId() says
    if (dtype_ == DType::kF32) {
      f32_.resize(f32_.size() + dims_);
    } else {
      i8_.resize(i8_.size() + dims_);
      scales_.push_back(0.0f);
    }
    slots_->position.emplace(id, pos);
  }
  if (dtype_ == DType::kF32) {
    float* row = f32_.data() + pos * dims_;
    std::copy(vector, vector + dims_, row);
    NormalizeL2(row, dims_);
  } else {
    std::vector<float> unit(vector, vector + dims_);
    NormalizeL2(unit.data(), dims_);
    scales_[pos] = QuantizeRow(unit.data(), dims_, i8_.data() + pos * dims_);
  }
  if (binary_enabled()) {
    // The center drifts as the index grows: re-centre when it has doubled (amortised O(1) per Add).
    if (ids_.size() >= 2 * centred_on_) {
      BuildCodes();
    } else {
      SetBits(pos);
    }
  }
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
  if (dtype_ == DType::kF32) {
    std::vector<float> scores(block);
    for (size_t start = 0; start < count; start += block) {
      const size_t m = std::min(block, count - start);
      kernels.scan_f32(unit.data(), f32_.data() + start * dims_, dims_, m, scores.data());
      for (size_t j = 0; j < m; ++j) top.Offer(ids_[start + j], scores[j]);
    }
  } else {
    std::vector<int8_t> q(dims_);
    const float scale = QuantizeRow(unit.data(), dims_, q.data());
    std::vector<int32_t> dots(block);
    for (size_t start = 0; start < count; start += block) {
      const size_t m = std::min(block, count - start);
      kernels.scan_i8(q.data(), i8_.data() + start * dims_, dims_, m, dots.data());
      for (size_t j = 0; j < m; ++j) {
        top.Offer(ids_[start + j], static_cast<float>(dots[j]) * scale * scales_[start + j]);
      }
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
      top.Offer(ids_[pos], static_cast<float>(dot) * scale * scales_[pos]);
    }
  }
  top.Finish(hits);
  return Status::Ok();
}

Status Index::Save(std::vector<uint8_t>* out, int zstd_level, const IndexDocs* docs) const {
  const uint64_t count = ids_.size();
  const uint64_t data_bytes = count * dims_ * ElementSize(dtype_);
  if (count > UINT32_MAX || count * 8 > kMaxBlobBytes || data_bytes > kMaxBlobBytes) {
    return TooLarge("index of " + std::to_string(count) + " vectors is too large for one file");
  }
  try {
    capnp::MallocMessageBuilder message;
    schema::Index::Builder root = message.initRoot<schema::Index>();
    root.setDims(dims_);
    capnp::Data::Builder ids = root.initIds(static_cast<unsigned>(count * 8));
    for (size_t i = 0; i < count; ++i) PutU64(ids.begin() + 8 * i, ids_[i]);
    schema::Table::Builder table = root.initVectors();
    table.setDtype(ToSchema(dtype_));
    table.setRows(static_cast<uint32_t>(count));
    table.setDims(dims_);
    capnp::Data::Builder data = table.initData(static_cast<unsigned>(data_bytes));
    if (data_bytes > 0) {
      std::memcpy(data.begin(), dtype_ == DType::kF32 ? static_cast<const void*>(f32_.data()) : i8_.data(),
                  data_bytes);
    }
    if (dtype_ == DType::kInt8) {
      capnp::Data::Builder scales = table.initScales(static_cast<unsigned>(count * 4));
      if (count > 0) std::memcpy(scales.begin(), scales_.data(), count * 4);
    }
    root.setModelName(capnp::Text::Reader(model_name_.data(), model_name_.size()));
    root.setModelChecksum(model_checksum_);
    const bool with_docs = docs != nullptr && !docs->empty();
    if (with_docs) WriteIndexDocs(*docs, root.initDocs());
    kj::Array<capnp::word> words = capnp::messageToFlatArray(message);
    kj::ArrayPtr<const kj::byte> bytes = words.asBytes();
    return container::Seal(container::Kind::kIndex, bytes.begin(), bytes.size(), zstd_level, out,
                           with_docs ? container::kFlagIndexDocs : 0);
  } catch (const kj::Exception& e) {
    return Internal(std::string("writing the index message: ") + e.getDescription().cStr());
  } catch (const std::exception& e) {
    return Internal(std::string("writing the index message: ") + e.what());
  }
}

Status Index::Load(const uint8_t* data, size_t size, std::unique_ptr<Index>* out, const ReadLimits& limits,
                   IndexDocs* docs) {
  out->reset();
  if (docs) *docs = IndexDocs();
  std::vector<uint64_t> message;
  uint32_t checksum = 0;
  uint32_t flags = 0;
  SWE_RETURN_IF_ERROR(container::Open(data, size, container::Kind::kIndex, limits, &message, &checksum,
                                      container::kFlagIndexDocs, &flags));
  std::unique_ptr<Index> index;
  // Decodes and validates the message into `index` (a lambda: it may use Index's private parts).
  auto decode = [&]() -> Status {
    const kj::ArrayPtr<const capnp::word> words(reinterpret_cast<const capnp::word*>(message.data()),
                                                message.size());
    capnp::ReaderOptions options;
    options.traversalLimitInWords = message.size() + 8;  // every object is read once
    capnp::FlatArrayMessageReader reader(words, options);
    if (reader.getEnd() != words.end()) return Corrupt("index: bytes after the message");
    const schema::Index::Reader root = reader.getRoot<schema::Index>();
    const uint32_t dims = root.getDims();
    if (dims == 0) return Corrupt("index: dims is 0");
    if (dims > limits.max_dims) return TooLarge("index: dims " + std::to_string(dims) + " over the limit");
    if (!root.hasVectors()) return Corrupt("index: no vectors");
    const schema::Table::Reader table = root.getVectors();
    DType dtype;
    switch (table.getDtype()) {
      case schema::DType::F32:
        dtype = DType::kF32;
        break;
      case schema::DType::INT8:
        dtype = DType::kInt8;
        break;
      case schema::DType::F16:
        return Unsupported("index: f16 vectors are not supported");
      default:
        return Corrupt("index: unknown vector dtype");
    }
    if (table.getDims() != dims) return Corrupt("index: table dims differ from index dims");
    const uint64_t count = table.getRows();
    if (count > limits.max_rows) return TooLarge("index: " + std::to_string(count) + " rows over the limit");
    const capnp::Data::Reader ids = root.getIds();
    const capnp::Data::Reader values = table.getData();
    const capnp::Data::Reader scales = table.getScales();
    if (ids.size() != count * 8) return Corrupt("index: ids blob is not 8 * count bytes");
    if (values.size() != count * dims * ElementSize(dtype))
      return Corrupt("index: vectors blob has the wrong size");
    if (scales.size() != (dtype == DType::kInt8 ? count * 4 : 0))
      return Corrupt("index: scales blob has the wrong size");
    index.reset(new Index(dims, dtype));
    index->ids_.resize(count);
    index->next_id_stale_ = true;  // computed on first use: loading stays one pass over the ids
    index->slots_->position.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      index->ids_[i] = GetU64(ids.begin() + 8 * i);
      if (!index->slots_->position.emplace(index->ids_[i], i).second) {
        return Corrupt("index: duplicate id " + std::to_string(index->ids_[i]));
      }
    }
    if (dtype == DType::kF32) {
      index->f32_.resize(count * dims);
      if (count > 0) std::memcpy(index->f32_.data(), values.begin(), values.size());
      if (!AllFinite(index->f32_.data(), index->f32_.size()))
        return Corrupt("index: non-finite vector value");
      if (!RowsAreUnit(index->f32_.data(), count, dims)) return Corrupt("index: a stored vector is not unit length");
    } else {
      index->i8_.resize(count * dims);
      index->scales_.resize(count);
      if (count > 0) {
        std::memcpy(index->i8_.data(), values.begin(), values.size());
        std::memcpy(index->scales_.data(), scales.begin(), scales.size());
      }
      if (!ScalesFitUnitRows(index->scales_)) return Corrupt("index: a scale is negative, non-finite or too large");
    }
    const capnp::Text::Reader name = root.getModelName();
    index->model_name_.assign(name.begin(), name.size());
    index->model_checksum_ = root.getModelChecksum();
    // The flag makes readers that predate documents refuse such files, so it must say the truth.
    if (((flags & container::kFlagIndexDocs) != 0) != root.hasDocs()) {
      return Corrupt("index: the header's documents flag and the message's documents disagree");
    }
    if (docs && root.hasDocs()) {
      const Index& ix = *index;
      return ReadIndexDocs(root.getDocs(), limits, [&ix](uint64_t id) { return ix.Contains(id); }, docs);
    }
    return Status::Ok();
  };
  Status status;
  try {
    status = decode();
  } catch (const kj::Exception& e) {
    status = Corrupt(std::string("index: ") + e.getDescription().cStr());
  } catch (const std::bad_alloc&) {
    status = TooLarge("index: out of memory");
  } catch (const std::exception& e) {
    status = Corrupt(std::string("index: ") + e.what());
  }
  if (status.ok()) *out = std::move(index);
  return status;
}

}  // namespace swe
