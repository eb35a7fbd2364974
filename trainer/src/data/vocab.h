// Counting words with core's word splitter (swe::SplitWords, the same rule inference uses) and
// choosing the vocabulary: the top |V| words with at least `min_count` occurrences, as written
// (case-sensitive) or case-folded.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "swe/model.h"
#include "swe/status.h"
#include "swe/tokenizer.h"

namespace swe::trainer {

struct VocabOptions {
  uint32_t size = 50000;      // |V|
  uint64_t min_count = 5;
  bool fold_case = true;      // count (and later match) case-folded words
  TokenizerConfig tokenizer;  // word splitting (CJK mode); subword is not used here
};

struct WordCount {
  std::string word;
  uint64_t count = 0;
};

// Case folding of a word as core does it (Unicode full case folding, ß -> ss).
std::string FoldCase(std::string_view word);

// The key a word of running text is counted and matched under: the word, or its folded form.
inline std::string VocabKey(std::string_view word, bool fold_case) {
  return fold_case ? FoldCase(word) : std::string(word);
}

class WordCounter {
 public:
  explicit WordCounter(const VocabOptions& options) : options_(options) {}
  // `known`: CjkMode::kLongest's lexicon (SplitWords); empty: every CJK character is a word.
  void AddSentence(std::string_view sentence, const KnownWord& known = nullptr);
  uint64_t sentences() const { return sentences_; }
  uint64_t tokens() const { return tokens_; }
  size_t distinct() const { return counts_.size(); }
  // The vocabulary: by count descending, ties by bytes ascending (deterministic).
  std::vector<WordCount> Top() const;

 private:
  VocabOptions options_;
  std::unordered_map<std::string, uint64_t> counts_;
  std::vector<std::string> scratch_;
  uint64_t sentences_ = 0, tokens_ = 0;
};

// "word<TAB>count" lines. Reading validates: no empty, duplicate or tab-containing word.
Status WriteVocab(const std::string& path, const std::vector<WordCount>& vocab);
Status ReadVocab(const std::string& path, std::vector<WordCount>* vocab);

// Word -> row lookup over a vocabulary.
std::unordered_map<std::string, uint32_t> VocabIndex(const std::vector<WordCount>& vocab);

}  // namespace swe::trainer
