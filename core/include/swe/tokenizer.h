// Text -> vocabulary rows, following the paper's inference rule (docs/FORMAT.md, "Tokenization"):
//  1. decode UTF-8 (invalid bytes become U+FFFD), split on Unicode whitespace and punctuation,
//     drop punctuation; non-ASCII symbols such as emoji are tokens of their own, and runs of CJK
//     characters become tokens per the model's CjkMode (characters, overlapping bigrams, subword
//     pieces, or the longest vocabulary words);
//  2. look each word up exactly, then case-folded, then folded and accent-stripped (per model);
//  3. if still unknown, split it with the teacher's subword tokenizer and drop the last piece until
//     the remaining prefix is a vocabulary word (looked up the same way); otherwise skip the word.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "swe/model.h"

namespace swe {

class SubwordTokenizer;

enum class Match : uint8_t {
  kExact = 0,     // the word as written
  kFolded = 1,    // its case-folded form
  kStripped = 2,  // folded and accent-stripped
  kPrefix = 3,    // a subword prefix of it (step 3)
  kUnknown = 4,   // skipped
};

struct Token {
  uint32_t begin = 0, end = 0;  // byte range of the word in the input text
  int32_t id = -1;              // vocabulary row, -1 when kUnknown
  Match match = Match::kUnknown;
};

// CjkMode::kLongest: a token holds at most this many CJK characters.
constexpr size_t kMaxLongestChars = 8;

// CjkMode::kLongest's lexicon: whether `word` (2 to kMaxLongestChars CJK characters, the original
// bytes of the text; asked longest first at each position of a run, single characters never) is a
// known word. The tokenizer answers with step 2 (exact, folded, stripped per the model's settings);
// a trainer passes its candidate lexicon.
using KnownWord = std::function<bool(std::string_view word)>;

// Splits `text` into words (step 1 only) and appends them, as they appear in the text (U+FFFD for
// invalid bytes), to `words`. `subword` is needed only for CjkMode::kSubwords (may be null otherwise);
// `known` only for CjkMode::kLongest (empty: no word is known, every CJK character is a word).
// The trainer counts its vocabulary with this, so training and inference see the same words.
void SplitWords(std::string_view text, const TokenizerConfig& config, const SubwordTokenizer* subword,
                std::vector<std::string>* words, const KnownWord& known = nullptr);

// The byte range [begin, end) in the text of each word SplitWords gives, in the same order (an
// invalid byte's range is that byte; its word is U+FFFD). Ranges overlap in CjkMode::kBigrams, so
// words cannot be found again by searching the text; these are where they are.
struct WordRange {
  uint32_t begin = 0, end = 0;
};
void SplitWordRanges(std::string_view text, const TokenizerConfig& config, const SubwordTokenizer* subword,
                     std::vector<WordRange>* ranges, const KnownWord& known = nullptr);

// Not thread-safe (it reuses scratch buffers); cheap to construct: use one per thread.
// The model must outlive it.
class Tokenizer {
 public:
  // max_tokens: words considered per text (known pieces, for a model of subword pieces); 0: the
  // model's own limit (TokenizerConfig::max_tokens; 0 there: every word).
  explicit Tokenizer(const Model& model, uint32_t max_tokens = 0);
  ~Tokenizer();

  // Appends the rows of the known words of `text`, in text order. Stops after max_tokens words.
  void Encode(std::string_view text, std::vector<uint32_t>* ids);
  // Encode for n texts at once, faster for short texts (their lookups overlap across texts): replaces
  // `ids` with every text's rows, text after text, and `offsets` with n + 1 positions in it: text i's
  // rows are ids[offsets[i] .. offsets[i + 1]).
  void EncodeBatch(const std::string_view* texts, size_t n, std::vector<uint32_t>* ids, std::vector<size_t>* offsets);
  // Appends every word with how it matched (known and skipped), for display and debugging.
  void Analyze(std::string_view text, std::vector<Token>* tokens);
  // Unknown words resolved by their subword prefix (step 3) are remembered per thread and model, across
  // tokenizers. This forgets them (benchmarks of the uncached path).
  static void ForgetUnknownWords();

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace swe
