// init.add_vocab: a model started from (init.model) gets the words of other languages appended to its
// vocabulary. Each source counts the words of one column of its parallel files (the non-English side),
// split with the model's own tokenizer settings (with the recipe's cjk mode) and case-folded as the
// model looks words up; its top `size` words that the model (or an earlier source) lacks are added.
// The base rows keep their ids, so `refine.train_rows: "new"` can freeze them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "refine/objectives.h"
#include "swe/model.h"
#include "swe/status.h"
#include "data/vocab.h"

namespace swe::trainer {

struct AddVocabSource {
  std::vector<TupleFile> files;  // tab-separated files (max: a seeded random subset of lines is counted)
  uint32_t column = 2;           // 1-based column counted
  uint32_t columns = 2;          // columns per line
  uint32_t size = 0;             // words added from this source at most
  uint64_t min_count = 2;
};

enum class NewRows { kSubword, kRandom };

struct VocabExtension {
  std::vector<AddVocabSource> sources;
  bool set_cjk = false;          // init.cjk given: the extended model's (and the counting's) CJK mode
  CjkMode cjk = CjkMode::kCharacters;
  uint32_t lexicon_chars = 4;    // cjk longest: the learned lexicon's longest word (cjk_lexicon.h)
  // subword: a new word's row starts as the mean of the rows the base model gives the word (its
  // subword-prefix fallback), small random noise when it gives none; random: noise for every word.
  NewRows new_rows = NewRows::kSubword;
  uint64_t seed = 1;
  bool empty() const { return sources.empty() && !set_cjk; }
};

// The model's tokenizer settings with the extension's cjk mode.
TokenizerConfig ExtendedTokenizer(const Model& base, const VocabExtension& ext);

// The words to add, in row order (counts from their source); `stats` (optional) gets per-source lines.
Status CountNewWords(const Model& base, const VocabExtension& ext, std::vector<WordCount>* added,
                     std::vector<std::string>* stats = nullptr);

// The base model's contents with `added` appended (words, table rows as NewRows says) and the
// tokenizer's cjk mode set. Fails on an added word the base model already has.
Status ExtendModel(const Model& base, const std::vector<WordCount>& added, const VocabExtension& ext,
                   ModelContents* out);

}  // namespace swe::trainer
