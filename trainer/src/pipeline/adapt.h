// swe-trainer adapt: a base .swe model gets the frequent words of a domain corpus that it lacks, and
// only their rows are trained (KD against the teacher; contrastive on the user's pairs too when given);
// the base rows stay bit for bit. It writes a recipe with an `adapt` section (recipe/init_sections.cpp) and runs
// it like any other, so a recipe can do the same.
#pragma once

#include <cstdint>
#include <string>

#include "swe/status.h"

namespace swe::trainer {

struct AdaptOptions {
  std::string model, corpus, pairs, output;  // base .swe, domain text, optional pairs TSV, the new .swe
  std::string work_dir;                      // default: OUTPUT.work
  std::string teacher_kind = "use-lite", teacher_path;
  uint32_t words = 5000;                     // new words at most
  uint64_t min_count = 2;                    // times a word must occur in the corpus
  uint64_t sentences = 5000;                 // corpus sentences for KD (0 = all)
  uint32_t max_epochs = 30;                  // SciFact: nDCG@10 25.7 -> 30.3 at 30 (lr 0.05), unchanged at 10 (lr 0.001)
};

// The recipe that `options` stands for, as JSON text; the export's dtype is the base model's.
Status AdaptRecipe(const AdaptOptions& options, std::string* recipe_json);

}  // namespace swe::trainer
