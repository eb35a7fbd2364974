// The in-memory model: vocabulary, embedding table, tokenizer settings and provenance.
// `ModelContents` is what a writer is given (plain vectors, f32 table); `Model` is what a reader
// returns (the decoded file kept in one buffer, the table used in place, a hash index over the words).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "swe/status.h"

namespace swe {
namespace simd {
struct Kernels;
}

class SubwordTokenizer;
class WordIndex;

enum class DType : uint8_t { kF32 = 0, kF16 = 1, kInt8 = 2 };
const char* dtype_name(DType dtype);  // "f32", "f16", "int8"
// The inverse of dtype_name: false (and *out untouched) for any other name.
bool ParseDType(std::string_view name, DType* out);

// How runs of CJK characters (docs/TOKENIZER.md) become tokens. Values are the file's (append only).
enum class CjkMode : uint8_t { kNone = 0, kCharacters = 1, kSubwords = 2, kBigrams = 3, kLongest = 4 };
// "none", "characters", "subwords", "bigrams", "longest": the names of recipes, `swe convert --cjk`
// and the C API's model info.
const char* cjk_mode_name(CjkMode mode);
// The inverse of cjk_mode_name: false (and *out untouched) for any other name.
bool ParseCjkMode(std::string_view name, CjkMode* out);
enum class SubwordKind : uint8_t { kNone = 0, kWordPiece = 1, kUnigram = 2 };
// What a vocabulary row stands for: a whole word (the paper's rule), or a subword piece of the
// teacher's tokenizer with every word split into pieces (Model2Vec-style token embeddings).
enum class TokenUnits : uint8_t { kWords = 0, kSubwordPieces = 1 };

// The teacher's subword vocabulary, used to split unknown words (and CJK runs in kSubwords mode).
struct SubwordVocab {
  SubwordKind kind = SubwordKind::kNone;
  std::vector<std::string> pieces;
  std::vector<float> scores;                   // kUnigram: one log-probability per piece
  std::string continuation_prefix = "##";      // kWordPiece
  std::string word_prefix = "\xE2\x96\x81";    // kUnigram: U+2581 marks a word start
  bool lowercase = false;                      // the teacher folds case before splitting
  bool strip_accents = false;                  // the teacher strips accents before splitting
  uint32_t max_piece_bytes = 0;                // kWordPiece: 0 = no limit
};

struct TokenizerConfig {
  bool fold_case = true;        // unknown word: try its case-folded form
  bool strip_accents = false;   // then the folded, accent-stripped form
  CjkMode cjk = CjkMode::kCharacters;
  uint32_t max_tokens = 0;      // words considered per text, 0 = no limit (kSubwordPieces: known pieces)
  SubwordVocab subword;
  TokenUnits units = TokenUnits::kWords;  // kSubwordPieces needs a subword vocabulary, cjk none or characters
};

struct Score {
  std::string task, metric;
  double value = 0;
};

struct Provenance {
  std::string name, description, teacher, corpus, corpus_hash, recipe, created_by;
  bool placeholder = false;
  std::vector<Score> scores;
  std::vector<std::pair<std::string, std::string>> extra;
};

// Everything a .swe file holds, in plain containers. Writers fill this in.
struct ModelContents {
  std::vector<std::string> words;  // unique, valid UTF-8, non-empty
  uint32_t dims = 0;
  std::vector<float> vectors;      // words.size() * dims, row-major, finite
  std::vector<float> weights;      // empty, or one finite weight >= 0 per word
  bool normalize = true;
  TokenizerConfig tokenizer;
  Provenance provenance;
};

class Model {
 public:
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  uint32_t dims() const { return dims_; }
  uint32_t vocab_size() const { return rows_; }
  DType dtype() const { return dtype_; }
  bool normalize() const { return normalize_; }
  const TokenizerConfig& tokenizer_config() const { return tokenizer_; }
  const Provenance& provenance() const { return provenance_; }
  // The teacher's subword tokenizer built from tokenizer_config().subword (may be disabled).
  const SubwordTokenizer& subword() const { return *subword_; }
  // CRC-32C of the file's payload, as in its header: identifies the model cheaply.
  uint32_t checksum() const { return checksum_; }
  // Size in bytes of the file the model was read from.
  size_t file_size() const { return file_size_; }
  // A number no other Model of this process has had: tells models apart where an address can be
  // reused (the tokenizer's per-thread cache of unknown words keys its entries by it).
  uint64_t serial() const { return serial_; }

  // Word `id` (id < vocab_size()).
  std::string_view word(uint32_t id) const;
  // Row of `word` (exact bytes), or -1.
  int64_t find(std::string_view word) const;
  // The word -> row lookup behind find (core/src/word_index.h): the tokenizer hashes a word once
  // and prefetches its slot a batch ahead of the lookup.
  const WordIndex& word_index() const { return *index_; }
  // Starts loading the rows of ids[0..count), for AccumulateRows (one call per text, not per row).
  void PrefetchRows(const uint32_t* ids, size_t count) const;
  // False when no vocabulary word contains an ASCII capital: then a word with one is never found
  // as written (the tokenizer goes straight to its case-folded form).
  bool has_ascii_upper_words() const { return ascii_upper_words_; }
  // Weight of word `id` for the weighted mean (1 when the model has no weights).
  float weight(uint32_t id) const { return weights_ ? weights_[id] : 1.0f; }
  bool has_weights() const { return weights_ != nullptr; }

  // acc[0..n) += w * row(id)[0..n), n <= dims() (one row: the dequantised values, in floats).
  void AccumulateRow(uint32_t id, float w, float* acc, uint32_t n) const;
  // acc[0..n) += weight(id) * row(id)[0..n) for each of the `count` ids, in one kernel call per text:
  // the encoder's inner loop. f32 and f16 tables: the same bits as AccumulateRow(id, weight(id), ...)
  // per id in order; int8 tables: the rows summed exactly in integers with fixed-point coefficients
  // (docs/FORMAT.md, "Determinism"), within about 1e-5 of those calls; the order of the ids matters
  // only past 512 of them.
  void AccumulateRows(const uint32_t* ids, size_t count, float* acc, uint32_t n) const;
  // out[0..dims) = row(id), dequantized.
  void CopyRow(uint32_t id, float* out) const;

  // Exports everything back to plain containers (the table as f32), e.g. to re-write in another dtype.
  ModelContents ToContents() const;

 private:
  friend class ModelReader;
  Model();

  std::unique_ptr<uint64_t[]> storage_;  // holds the decoded message (or the whole file, read in place)
  const uint64_t* message_ = nullptr;    // the message, word-aligned, in storage_; the views below point into it
  size_t message_words_ = 0;
  const uint8_t* word_bytes_ = nullptr;
  const uint32_t* word_offsets_ = nullptr;  // rows_ + 1
  const uint8_t* table_ = nullptr;
  const float* scales_ = nullptr;           // int8 only
  const float* weights_ = nullptr;
  uint32_t rows_ = 0, dims_ = 0;
  DType dtype_ = DType::kF32;
  bool normalize_ = true;
  uint32_t checksum_ = 0;
  size_t file_size_ = 0;
  uint64_t serial_ = 0;
  TokenizerConfig tokenizer_;
  Provenance provenance_;
  std::unique_ptr<SubwordTokenizer> subword_;  // reads tokenizer_.subword in place: declared after it
  const simd::Kernels* kernels_ = nullptr;
  std::unique_ptr<WordIndex> index_;  // word -> row (core/src/word_index.h)
  bool ascii_upper_words_ = false;  // some vocabulary word has a byte in A-Z
  // Fails on a duplicate word.
  Status BuildIndex();
};

// The low 32 bits of the word index's hash (core/src/word_index.h HashWord64, seed 0).
uint32_t HashWord(std::string_view word);

}  // namespace swe
