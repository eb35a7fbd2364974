// Training recipes: one JSON file that drives every stage (see docs/TRAINER.md for the fields and
// recipes/ for examples). Unknown keys are errors, so a typo cannot silently fall back to a default.
// Relative paths are relative to the directory swe-trainer runs in.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "refine/compress.h"
#include "data/corpus.h"
#include "refine/objectives.h"
#include "refine/pca.h"
#include "refine/refine.h"
#include "data/sampler.h"
#include "swe/status.h"
#include "teachers/teacher.h"
#include "data/vocab.h"
#include "refine/vocab_extend.h"

namespace swe::trainer {

enum class PcaMode { kSentence, kWord, kNone };

struct Recipe {
  std::string name = "swe-model", description, work_dir;
  CorpusOptions corpus;
  VocabOptions vocab;        // vocab.tokenizer also goes into the exported model
  SampleOptions sample;
  TeacherOptions teacher;
  uint32_t teacher_batch = 64;
  PcaMode pca_mode = PcaMode::kSentence;
  PcaOptions pca;
  std::string init_model;         // init.model: start from this .swe (no vocab/sample/extract/pca)
  VocabExtension init_vocab;      // init.add_vocab, init.cjk, init.new_rows
  bool train_new_rows = false;    // refine.train_rows "new": the init model's rows stay as they are
  std::string refine_method = "kd";  // refine.method: the one-objective shorthand, read into `objectives`
  std::vector<ObjectiveSpec> objectives = {ObjectiveSpec()};  // refine (empty: no refinement)
  uint64_t refine_sentences = 0;  // kd, distance: sentences used (0 = all M, or the corpus with init)
  RefineOptions refine_options;
  CompressOptions compress;
  std::string export_path, dtype = "f32";
  std::string seal = "raw";       // export.seal: raw (read in place, as the shipped models) or zstd
  bool normalize = true;
  std::string device = "auto";
  int threads = 2;
  uint64_t seed = 1;
  std::string text;                              // the recipe as given (for provenance)
  std::map<std::string, std::string> sections;   // canonical JSON of each section given (stage keys)
};

Status ParseRecipe(std::string_view json, Recipe* out);
Status LoadRecipe(const std::string& path, Recipe* out);
// Replaces the recipe's teacher kind and path (swe-trainer --teacher KIND DIR); the teacher section's
// canonical JSON changes with them, so the stages from extract on are keyed by the new teacher.
void OverrideTeacher(const std::string& kind, const std::string& path, Recipe* recipe);
// Every recipe key, "section.key<TAB>type<TAB>default<TAB>doc", from the sections' key tables
// (`swe-trainer keys`).
std::vector<std::string> DescribeRecipeKeys();

}  // namespace swe::trainer
