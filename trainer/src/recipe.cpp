#include "recipe.h"

#include <nlohmann/json.hpp>

#include "matrix_io.h"
#include "recipe_refine.h"
#include "recipe_section.h"

namespace swe::trainer {
namespace {
using nlohmann::json;

// Each stage's section, read through its key table (recipe_section.h).
Status ParseCorpusSection(const json& j, Recipe* r) {
  RecipeSection s(j, "corpus");
  s.Get("paths", &r->corpus.paths);
  s.Get("split_sentences", &r->corpus.split_sentences);
  s.Get("split_tabs", &r->corpus.split_tabs);
  s.Get("skip_sentences", &r->corpus.skip_sentences);
  s.Get("max_sentences", &r->corpus.max_sentences);
  SWE_RETURN_IF_ERROR(s.Done());
  if (r->corpus.paths.empty()) return InvalidArgument("recipe: 'corpus.paths' needs at least one file");
  return Status::Ok();
}

Status ParseTokenizerSection(const json& j, Recipe* r) {
  RecipeSection s(j, "tokenizer");
  s.Get("fold_case", &r->vocab.tokenizer.fold_case);
  s.Get("strip_accents", &r->vocab.tokenizer.strip_accents);
  s.Get("max_tokens", &r->vocab.tokenizer.max_tokens);
  std::string cjk = "characters";
  s.Get("cjk", &cjk);
  SWE_RETURN_IF_ERROR(s.Done());
  if (!ParseCjkMode(cjk, &r->vocab.tokenizer.cjk) || r->vocab.tokenizer.cjk == CjkMode::kSubwords) {
    return InvalidArgument("recipe: tokenizer.cjk must be 'none', 'characters', 'bigrams' or 'longest' "
                           "('subwords' is not trainable yet)");
  }
  return Status::Ok();
}

Status ParseVocabSection(const json& j, Recipe* r) {
  RecipeSection s(j, "vocab");
  s.Get("size", &r->vocab.size);
  s.Get("min_count", &r->vocab.min_count);
  s.Get("fold_case", &r->vocab.fold_case);
  SWE_RETURN_IF_ERROR(s.Done());
  if (r->vocab.fold_case && !r->vocab.tokenizer.fold_case) {
    return InvalidArgument("recipe: vocab.fold_case needs tokenizer.fold_case (inference must fold to find the words)");
  }
  if (r->vocab.size == 0) return InvalidArgument("recipe: vocab.size must be positive");
  return Status::Ok();
}

Status ParseSampleSection(const json& j, Recipe* r) {
  RecipeSection s(j, "sample");
  r->sample.seed = r->seed;
  s.Get("per_word", &r->sample.per_word);
  s.Get("sentences", &r->sample.generic);
  s.Get("max_words", &r->sample.max_words);
  s.Get("seed", &r->sample.seed);
  SWE_RETURN_IF_ERROR(s.Done());
  if (r->sample.per_word == 0) return InvalidArgument("recipe: sample.per_word must be positive");
  return Status::Ok();
}

Status ParseTeacherSection(const json& j, Recipe* r) {
  RecipeSection s(j, "teacher");
  s.Get("kind", &r->teacher.kind);
  s.Get("path", &r->teacher.path);
  s.Get("batch_size", &r->teacher_batch);
  s.Get("max_tokens", &r->teacher.max_tokens);
  SWE_RETURN_IF_ERROR(s.Done());
  if (r->teacher.path.empty()) return InvalidArgument("recipe: 'teacher.path' is required");
  if (r->teacher_batch == 0) return InvalidArgument("recipe: teacher.batch_size must be positive");
  return Status::Ok();
}

Status ParsePcaSection(const json& j, Recipe* r) {
  RecipeSection s(j, "pca");
  std::string mode = "sentence";
  s.Get("mode", &mode);
  s.Get("dims", &r->pca.out_dims);
  s.Get("remove", &r->pca.remove);
  SWE_RETURN_IF_ERROR(s.Done());
  if (mode == "sentence") r->pca_mode = PcaMode::kSentence;
  else if (mode == "word") r->pca_mode = PcaMode::kWord;
  else if (mode == "none") r->pca_mode = PcaMode::kNone;
  else return InvalidArgument("recipe: pca.mode must be sentence, word or none");
  return Status::Ok();
}

Status ParseExportSection(const json& j, Recipe* r) {
  RecipeSection s(j, "export");
  s.Get("path", &r->export_path);
  s.Get("dtype", &r->dtype);
  s.Get("normalize", &r->normalize);
  s.Get("seal", &r->seal);
  SWE_RETURN_IF_ERROR(s.Done());
  if (r->export_path.empty()) return InvalidArgument("recipe: 'export.path' is required");
  if (r->seal != "raw" && r->seal != "zstd") return InvalidArgument("recipe: export.seal must be raw or zstd");
  DType dtype;
  if (!ParseDType(r->dtype, &dtype)) return InvalidArgument("recipe: export.dtype must be f32, f16 or int8");
  return Status::Ok();
}

Status ParseUnchecked(std::string_view text, Recipe* r) {
  json j;
  SWE_RETURN_IF_ERROR(ParseRecipeJson(text, &j));
  SWE_RETURN_IF_ERROR(ExpandAdaptSection(&j));
  *r = Recipe();
  r->text = std::string(text);
  RecipeSection top(j, "");
  top.Get("name", &r->name);
  top.Get("description", &r->description);
  top.Get("work_dir", &r->work_dir);
  top.Get("device", &r->device);
  top.Get("threads", &r->threads);
  top.Get("seed", &r->seed);
  const char* kSections[] = {"corpus", "tokenizer", "vocab", "sample", "teacher", "pca",
                             "refine", "init", "compress", "export"};
  for (const char* section : kSections) top.Sub(section);
  SWE_RETURN_IF_ERROR(top.Done());
  if (r->work_dir.empty()) return InvalidArgument("recipe: 'work_dir' is required");
  static const json kAbsent;  // null: an absent section reads as empty
  auto section = [&](const char* key) -> const json& { return j.contains(key) ? j[key] : kAbsent; };
  SWE_RETURN_IF_ERROR(ParseCorpusSection(section("corpus"), r));
  SWE_RETURN_IF_ERROR(ParseTokenizerSection(section("tokenizer"), r));
  SWE_RETURN_IF_ERROR(ParseVocabSection(section("vocab"), r));
  SWE_RETURN_IF_ERROR(ParseSampleSection(section("sample"), r));
  SWE_RETURN_IF_ERROR(ParseTeacherSection(section("teacher"), r));
  SWE_RETURN_IF_ERROR(ParsePcaSection(section("pca"), r));
  SWE_RETURN_IF_ERROR(ParseRefineSection(section("refine"), r));
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
  SWE_RETURN_IF_ERROR(ParseExportSection(section("export"), r));
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
