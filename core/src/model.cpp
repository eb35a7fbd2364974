#include "swe/model.h"

#include <algorithm>
#include <cstring>

#include "bytes.h"
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
  if (n > 0) h = (h ^ LoadPartial(p, n)) * 0xBF58476D1CE4E5B9ull;
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

namespace {
// The slot's view of a word: its first 8 bytes (zero-padded) and a tag of hash and length.
struct Key {
  uint64_t head;
  uint32_t hash, tag;
};
Key MakeKey(std::string_view w) {
  const uint32_t hash = HashWord(w);
  return Key{LoadPartial(w.data(), w.size()), hash, KeyTag(hash, w.size())};
}
}  // namespace

Status Model::BuildIndex() {
  uint32_t capacity = 16;
  while (capacity < 2ull * rows_) capacity *= 2;
  slots_.assign(capacity, Slot{0, 0, 0});
  slot_mask_ = capacity - 1;
  // Every word of the blob is a vocabulary word: one scan for a capital instead of one per word.
  const uint8_t* bytes_end = word_bytes_ + word_offsets_[rows_];
  ascii_upper_words_ = std::any_of(word_bytes_, bytes_end, [](uint8_t c) { return c >= 'A' && c <= 'Z'; });
  // Inserting the rows in order would write the table at random: a cache miss per word, which only
  // prefetching hides (natively; wasm has none). Instead the keys are sorted by their home slot's
  // bucket (64 slots, 1 KB) with a counting sort and inserted in that order: the table is written
  // front to back. Any insertion order gives a valid table (linear probing finds a key wherever its
  // run put it), and a duplicate word still meets its twin on its probe path.
  struct Entry {
    Key key;
    uint32_t row;
  };
  constexpr uint32_t kBucketShift = 6;
  const uint32_t buckets = (capacity + (1u << kBucketShift) - 1) >> kBucketShift;  // at least one
  std::vector<uint32_t> start(buckets + 1, 0);
  std::vector<Key> keys(rows_);
  for (uint32_t row = 0; row < rows_; ++row) {
    keys[row] = MakeKey(word(row));
    ++start[((keys[row].hash & slot_mask_) >> kBucketShift) + 1];
  }
  for (size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  std::vector<Entry> sorted(rows_);
  for (uint32_t row = 0; row < rows_; ++row) {
    sorted[start[(keys[row].hash & slot_mask_) >> kBucketShift]++] = Entry{keys[row], row};
  }
  for (const Entry& e : sorted) {
    for (uint32_t i = e.key.hash & slot_mask_;; i = (i + 1) & slot_mask_) {
      Slot& slot = slots_[i];
      if (slot.row_plus_one == 0) {
        slot = Slot{e.key.head, e.key.tag, e.row + 1};
        break;
      }
      if (slot.tag == e.key.tag && slot.head == e.key.head && word(slot.row_plus_one - 1) == word(e.row)) {
        return Corrupt("duplicate vocabulary word '" + std::string(word(e.row)) + "'");
      }
    }
  }
  return Status::Ok();
}

// A word of up to 8 bytes matches when tag (so length) and head agree; a longer one compares the rest.
int64_t Model::find(std::string_view w) const {
  const Key k = MakeKey(w);
  for (uint32_t i = k.hash & slot_mask_;; i = (i + 1) & slot_mask_) {
    const Slot& slot = slots_[i];
    if (slot.row_plus_one == 0) return -1;
    if (slot.tag == k.tag && slot.head == k.head &&
        (w.size() <= 8 || word(slot.row_plus_one - 1).substr(8) == w.substr(8))) {
      return slot.row_plus_one - 1;
    }
  }
}

void Model::Prefetch(std::string_view w) const { __builtin_prefetch(&slots_[HashWord(w) & slot_mask_]); }

void Model::PrefetchRow(uint32_t id) const {
  const size_t bytes = dims_ * (dtype_ == DType::kF32 ? 4 : dtype_ == DType::kF16 ? 2 : 1);
  const uint8_t* row = table_ + id * bytes;
  for (size_t b = 0; b < bytes; b += 64) __builtin_prefetch(row + b);
  __builtin_prefetch(row + bytes - 1);
  if (scales_) __builtin_prefetch(scales_ + id);
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
