// Text -> vocabulary rows, following the paper's inference rule (docs/FORMAT.md, "Tokenization"):
//  1. decode UTF-8 (invalid bytes become U+FFFD), split on Unicode whitespace and punctuation,
//     drop punctuation; CJK characters (and non-ASCII symbols such as emoji) are tokens of their own
//     (or, in CjkMode::kSubwords, CJK runs are segmented by the subword tokenizer);
//  2. look each word up exactly, then case-folded, then folded and accent-stripped (per model);
//  3. if still unknown, split it with the teacher's subword tokenizer and drop the last piece until
//     the remaining prefix is a vocabulary word (looked up the same way); otherwise skip the word.
#pragma once

#include <cstdint>
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

// Splits `text` into words (step 1 only) and appends them, as they appear in the text (U+FFFD for
// invalid bytes), to `words`. `subword` is needed only for CjkMode::kSubwords (may be null otherwise).
// The trainer counts its vocabulary with this, so training and inference see the same words.
void SplitWords(std::string_view text, const TokenizerConfig& config, const SubwordTokenizer* subword,
                std::vector<std::string>* words);

// Not thread-safe (it reuses scratch buffers); cheap to construct: use one per thread.
// The model must outlive it.
class Tokenizer {
 public:
  explicit Tokenizer(const Model& model);
  ~Tokenizer();

  // Appends the rows of the known words of `text`, in text order. Stops after max_tokens words.
  void Encode(std::string_view text, std::vector<uint32_t>* ids);
  // Appends every word with how it matched (known and skipped), for display and debugging.
  void Analyze(std::string_view text, std::vector<Token>* tokens);

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace swe
