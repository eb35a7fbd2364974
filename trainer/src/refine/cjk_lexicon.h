// init.cjk "longest": the CJK words of an extended model are learned from the corpus side of the
// pairs, since CjkMode::kLongest segments a run of CJK characters into the longest vocabulary words
// (docs/TOKENIZER.md, "Longest match") and a model counted with single characters has none.
//  1. candidates: every 2..max_chars-character substring of a CJK run, kept with >= min_count;
//  2. re-segment the sentences by longest match against the candidates (core's SplitWords, so the
//     segmentation is inference's) and keep the candidates used >= min_count times; repeat once more
//     on the survivors (a greedy match can strand a candidate that only ever loses to a longer one).
// The result counts the words of the last segmentation: lexicon words, single CJK characters and
// the other words of the text, as WordCounter would (case-folded per the tokenizer), sorted like it.
#pragma once

#include <string>
#include <vector>

#include "swe/tokenizer.h"
#include "data/vocab.h"

namespace swe::trainer {

constexpr int kLexiconRounds = 2;  // re-segmentations (step 2)

// `vocab.tokenizer.cjk` must be CjkMode::kLongest; `max_chars`: 2 to kMaxLongestChars; `also_known`
// (may be empty): words that inference will know anyway (the base model's), matched like candidates.
std::vector<WordCount> LearnCjkLexicon(const std::vector<std::string>& sentences, const VocabOptions& vocab,
                                       size_t max_chars, const KnownWord& also_known = nullptr);

}  // namespace swe::trainer
