// The recipe runner: six stages, each writing its outputs to the recipe's work directory with a
// marker <stage>.json holding the stage's key (a hash of its settings and of every earlier stage's
// key) and its statistics. `train` runs the stages in order and skips those whose marker matches
// (resume); running one stage alone re-runs it and needs the earlier stages to be up to date. A stage
// reads its inputs (corpus, teacher, init.model) only when it runs.
//   vocab    vocab.tsv                                  corpus -> counted words -> top |V|
//   sample   samples.tsv, generic.txt                   coverage sample (N per word) + M generic sentences
//   extract  vectors.swm, counts.tsv, subword.json      teacher -> word vectors (Eq. 1); its subwords for export
//   pca      table_pca.swm, pca_mean.swm, pca_components.swm   sentence-level PCA + ABTT (Sec. 3.2)
//   refine   refined.swm, teacher_cache.swm             knowledge distillation (Eq. 2-3), or contrastive
//                                                       learning on translation pairs (Eq. 4-5)
//   export   the .swe file at export.path               core's writer
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "recipe/recipe.h"
#include "swe/status.h"

namespace swe::trainer {

enum class Stage { kVocab = 0, kSample, kExtract, kPca, kRefine, kExport };
constexpr int kStageCount = 6;
const char* StageName(Stage s);
Status ParseStage(const std::string& name, Stage* out);

struct RunOptions {
  std::vector<Stage> only;   // empty: every stage (resuming); else run exactly these (re-running them)
  bool force = false;        // re-run stages even when up to date
  std::string device;        // overrides the recipe's device when non-empty
  int threads = -1;          // overrides the recipe's threads when >= 0
  std::function<void(const std::string&)> log;  // one line per event (default: stderr)
};

Status RunPipeline(const Recipe& recipe, const RunOptions& options);

}  // namespace swe::trainer
