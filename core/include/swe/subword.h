// The teacher's subword tokenizer over a stored SubwordVocab: WordPiece (greedy longest match,
// continuation prefix) or SentencePiece unigram (Viterbi over piece scores).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "swe/model.h"
#include "swe/status.h"

namespace swe {

class SubwordTokenizer {
 public:
  SubwordTokenizer();
  ~SubwordTokenizer();
  SubwordTokenizer(SubwordTokenizer&&) noexcept;
  SubwordTokenizer& operator=(SubwordTokenizer&&) noexcept;

  // Builds the piece lookup. Fails on duplicate or invalid pieces, or scores that do not match.
  static Status Create(const SubwordVocab& vocab, SubwordTokenizer* out);
  // The same over `vocab` in place, without a copy: `vocab` must outlive the tokenizer (a model
  // holds both).
  static Status CreateInPlace(const SubwordVocab& vocab, SubwordTokenizer* out);

  bool enabled() const;
  // The teacher's normalisation of a word before splitting (case folding / accent stripping per vocab).
  void Normalize(std::string_view word, std::string* out) const;
  // Splits a normalised word (no whitespace) into pieces. Appends the end byte offset of each piece
  // in `word` (so prefixes are word.substr(0, end)), and the piece ids when `ids` is non-null.
  // Returns false when the word cannot be split (WordPiece's [UNK] case, or an empty word).
  bool Split(std::string_view word, std::vector<uint32_t>* ends, std::vector<uint32_t>* ids = nullptr) const;

 private:
  struct Impl;
  Impl* impl_ = nullptr;
};

}  // namespace swe
