#include "recipe.h"

#include <nlohmann/json.hpp>
#include <set>

#include "matrix_io.h"
#include "recipe_refine.h"

namespace swe::trainer {
namespace {
using nlohmann::json;

Status ParseUnchecked(std::string_view text, Recipe* r) {
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded()) return InvalidArgument("recipe: not valid JSON");
  SWE_RETURN_IF_ERROR(CheckRecipeKeys(j, "recipe", {"name", "description", "work_dir", "corpus", "vocab", "tokenizer",
                                              "sample", "teacher", "pca", "refine", "export", "device", "threads",
                                              "seed", "init", "compress"}));
  *r = Recipe();
  r->text = std::string(text);
  Get(j, "name", &r->name);
  Get(j, "description", &r->description);
  Get(j, "work_dir", &r->work_dir);
  Get(j, "device", &r->device);
  Get(j, "threads", &r->threads);
  Get(j, "seed", &r->seed);
  if (r->work_dir.empty()) return InvalidArgument("recipe: 'work_dir' is required");
  const json empty = json::object();
  const json& corpus = j.contains("corpus") ? j["corpus"] : empty;
  SWE_RETURN_IF_ERROR(CheckRecipeKeys(corpus, "corpus", {"paths", "split_sentences", "split_tabs", "max_sentences"}));
  Get(corpus, "paths", &r->corpus.paths);
  Get(corpus, "split_sentences", &r->corpus.split_sentences);
  Get(corpus, "split_tabs", &r->corpus.split_tabs);
  Get(corpus, "max_sentences", &r->corpus.max_sentences);
  if (r->corpus.paths.empty()) return InvalidArgument("recipe: 'corpus.paths' needs at least one file");

  const json& tok = j.contains("tokenizer") ? j["tokenizer"] : empty;
  SWE_RETURN_IF_ERROR(CheckRecipeKeys(tok, "tokenizer", {"fold_case", "strip_accents", "cjk", "max_tokens"}));
  Get(tok, "fold_case", &r->vocab.tokenizer.fold_case);
  Get(tok, "strip_accents", &r->vocab.tokenizer.strip_accents);
  Get(tok, "max_tokens", &r->vocab.tokenizer.max_tokens);
  const std::string cjk = tok.value("cjk", std::string("characters"));
  if (!ParseCjkMode(cjk, &r->vocab.tokenizer.cjk) || r->vocab.tokenizer.cjk == CjkMode::kSubwords) {
    return InvalidArgument("recipe: tokenizer.cjk must be 'none', 'characters', 'bigrams' or 'longest' "
                           "('subwords' is not trainable yet)");
  }

  const json& vocab = j.contains("vocab") ? j["vocab"] : empty;
  SWE_RETURN_IF_ERROR(CheckRecipeKeys(vocab, "vocab", {"size", "min_count", "fold_case"}));
  Get(vocab, "size", &r->vocab.size);
  Get(vocab, "min_count", &r->vocab.min_count);
  Get(vocab, "fold_case", &r->vocab.fold_case);
  if (r->vocab.fold_case && !r->vocab.tokenizer.fold_case) {
    return InvalidArgument("recipe: vocab.fold_case needs tokenizer.fold_case (inference must fold to find the words)");
  }
  if (r->vocab.size == 0) return InvalidArgument("recipe: vocab.size must be positive");

  const json& sample = j.contains("sample") ? j["sample"] : empty;
  SWE_RETURN_IF_ERROR(CheckRecipeKeys(sample, "sample", {"per_word", "sentences", "max_words", "seed"}));
  Get(sample, "per_word", &r->sample.per_word);
  Get(sample, "sentences", &r->sample.generic);
  Get(sample, "max_words", &r->sample.max_words);
  r->sample.seed = r->seed;
  Get(sample, "seed", &r->sample.seed);
  if (r->sample.per_word == 0) return InvalidArgument("recipe: sample.per_word must be positive");

  const json& teacher = j.contains("teacher") ? j["teacher"] : empty;
  SWE_RETURN_IF_ERROR(CheckRecipeKeys(teacher, "teacher", {"kind", "path", "batch_size", "max_tokens"}));
  Get(teacher, "kind", &r->teacher.kind);
  Get(teacher, "path", &r->teacher.path);
  Get(teacher, "batch_size", &r->teacher_batch);
  Get(teacher, "max_tokens", &r->teacher.max_tokens);
  if (r->teacher.path.empty()) return InvalidArgument("recipe: 'teacher.path' is required");
  if (r->teacher_batch == 0) return InvalidArgument("recipe: teacher.batch_size must be positive");

  const json& pca = j.contains("pca") ? j["pca"] : empty;
  SWE_RETURN_IF_ERROR(CheckRecipeKeys(pca, "pca", {"mode", "dims", "remove"}));
  std::string mode = pca.value("mode", std::string("sentence"));
  if (mode == "sentence") r->pca_mode = PcaMode::kSentence;
  else if (mode == "word") r->pca_mode = PcaMode::kWord;
  else if (mode == "none") r->pca_mode = PcaMode::kNone;
  else return InvalidArgument("recipe: pca.mode must be sentence, word or none");
  Get(pca, "dims", &r->pca.out_dims);
  Get(pca, "remove", &r->pca.remove);

  SWE_RETURN_IF_ERROR(ParseRefineSection(j.contains("refine") ? j["refine"] : empty, r));
  if (j.contains("init")) {
    SWE_RETURN_IF_ERROR(ParseInitSection(j["init"], r));
    for (const char* s : {"tokenizer", "vocab", "sample", "pca"}) {
      if (j.contains(s)) return InvalidArgument(std::string("recipe: '") + s + "' does not apply with 'init.model'");
    }
  }
  if (r->train_new_rows && r->init_vocab.sources.empty()) {
    return InvalidArgument("recipe: refine.train_rows 'new' needs init.add_vocab (the new rows to train)");
  }
  if (j.contains("compress")) SWE_RETURN_IF_ERROR(ParseCompressSection(j["compress"], r));
  if (r->train_new_rows && r->compress.method != CompressMethod::kNone) {
    return InvalidArgument("recipe: compress changes every row: it excludes refine.train_rows 'new'");
  }

  const json& exp = j.contains("export") ? j["export"] : empty;
  SWE_RETURN_IF_ERROR(CheckRecipeKeys(exp, "export", {"path", "dtype", "normalize"}));
  Get(exp, "path", &r->export_path);
  Get(exp, "dtype", &r->dtype);
  Get(exp, "normalize", &r->normalize);
  if (r->export_path.empty()) return InvalidArgument("recipe: 'export.path' is required");
  DType dtype;
  if (!ParseDType(r->dtype, &dtype)) {
    return InvalidArgument("recipe: export.dtype must be f32, f16 or int8");
  }
  for (const char* s : {"corpus", "tokenizer", "vocab", "sample", "teacher", "pca", "refine", "export"}) {
    r->sections[s] = j.contains(s) ? j[s].dump() : "{}";
  }
  for (const char* s : {"init", "compress"}) {  // optional: absent ones leave the stage keys as before
    if (j.contains(s)) r->sections[s] = j[s].dump();
  }
  r->sections["seed"] = std::to_string(r->seed);
  return Status::Ok();
}

}  // namespace

Status ParseRecipe(std::string_view text, Recipe* out) {
  try {
    return ParseUnchecked(text, out);
  } catch (const json::exception& e) {
    return InvalidArgument(std::string("recipe: ") + e.what());
  }
}

void OverrideTeacher(const std::string& kind, const std::string& path, Recipe* r) {
  r->teacher.kind = kind;
  r->teacher.path = path;
  json t = json::parse(r->sections["teacher"], nullptr, false);
  if (!t.is_object()) t = json::object();
  t["kind"] = kind;
  t["path"] = path;
  r->sections["teacher"] = t.dump();
}

Status LoadRecipe(const std::string& path, Recipe* out) {
  std::string text;
  if (!FileExists(path)) return IoError("recipe not found: " + path);
  SWE_RETURN_IF_ERROR(ReadTextFile(path, &text));
  Status s = ParseRecipe(text, out);
  return s.ok() ? s : Status(s.code(), path + ": " + s.message());
}

}  // namespace swe::trainer
