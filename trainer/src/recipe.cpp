#include "recipe.h"

#include <nlohmann/json.hpp>
#include <set>

#include "matrix_io.h"

namespace swe::trainer {
namespace {
using nlohmann::json;

Status CheckKeys(const json& j, const std::string& where, std::set<std::string> allowed) {
  if (!j.is_object()) return InvalidArgument("recipe: '" + where + "' must be an object");
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!allowed.count(it.key())) return InvalidArgument("recipe: unknown key '" + where + "." + it.key() + "'");
  }
  return Status::Ok();
}

template <typename T>
void Get(const json& j, const char* key, T* v) {
  if (j.contains(key)) *v = j.at(key).get<T>();
}

Status ParseUnchecked(std::string_view text, Recipe* r) {
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded()) return InvalidArgument("recipe: not valid JSON");
  SWE_RETURN_IF_ERROR(CheckKeys(j, "recipe", {"name", "description", "work_dir", "corpus", "vocab", "tokenizer",
                                              "sample", "teacher", "pca", "refine", "export", "device", "threads",
                                              "seed"}));
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
  SWE_RETURN_IF_ERROR(CheckKeys(corpus, "corpus", {"paths", "split_sentences", "split_tabs", "max_sentences"}));
  Get(corpus, "paths", &r->corpus.paths);
  Get(corpus, "split_sentences", &r->corpus.split_sentences);
  Get(corpus, "split_tabs", &r->corpus.split_tabs);
  Get(corpus, "max_sentences", &r->corpus.max_sentences);
  if (r->corpus.paths.empty()) return InvalidArgument("recipe: 'corpus.paths' needs at least one file");

  const json& tok = j.contains("tokenizer") ? j["tokenizer"] : empty;
  SWE_RETURN_IF_ERROR(CheckKeys(tok, "tokenizer", {"fold_case", "strip_accents", "cjk", "max_tokens"}));
  Get(tok, "fold_case", &r->vocab.tokenizer.fold_case);
  Get(tok, "strip_accents", &r->vocab.tokenizer.strip_accents);
  Get(tok, "max_tokens", &r->vocab.tokenizer.max_tokens);
  std::string cjk = tok.value("cjk", std::string("characters"));
  if (cjk == "none") r->vocab.tokenizer.cjk = CjkMode::kNone;
  else if (cjk == "characters") r->vocab.tokenizer.cjk = CjkMode::kCharacters;
  else return InvalidArgument("recipe: tokenizer.cjk must be 'none' or 'characters' ('subwords' is not trainable yet)");

  const json& vocab = j.contains("vocab") ? j["vocab"] : empty;
  SWE_RETURN_IF_ERROR(CheckKeys(vocab, "vocab", {"size", "min_count", "fold_case"}));
  Get(vocab, "size", &r->vocab.size);
  Get(vocab, "min_count", &r->vocab.min_count);
  Get(vocab, "fold_case", &r->vocab.fold_case);
  if (r->vocab.fold_case && !r->vocab.tokenizer.fold_case) {
    return InvalidArgument("recipe: vocab.fold_case needs tokenizer.fold_case (inference must fold to find the words)");
  }
  if (r->vocab.size == 0) return InvalidArgument("recipe: vocab.size must be positive");

  const json& sample = j.contains("sample") ? j["sample"] : empty;
  SWE_RETURN_IF_ERROR(CheckKeys(sample, "sample", {"per_word", "sentences", "max_words", "seed"}));
  Get(sample, "per_word", &r->sample.per_word);
  Get(sample, "sentences", &r->sample.generic);
  Get(sample, "max_words", &r->sample.max_words);
  r->sample.seed = r->seed;
  Get(sample, "seed", &r->sample.seed);
  if (r->sample.per_word == 0) return InvalidArgument("recipe: sample.per_word must be positive");

  const json& teacher = j.contains("teacher") ? j["teacher"] : empty;
  SWE_RETURN_IF_ERROR(CheckKeys(teacher, "teacher", {"kind", "path", "batch_size", "max_tokens"}));
  Get(teacher, "kind", &r->teacher.kind);
  Get(teacher, "path", &r->teacher.path);
  Get(teacher, "batch_size", &r->teacher_batch);
  Get(teacher, "max_tokens", &r->teacher.max_tokens);
  if (r->teacher.path.empty()) return InvalidArgument("recipe: 'teacher.path' is required");
  if (r->teacher_batch == 0) return InvalidArgument("recipe: teacher.batch_size must be positive");

  const json& pca = j.contains("pca") ? j["pca"] : empty;
  SWE_RETURN_IF_ERROR(CheckKeys(pca, "pca", {"mode", "dims", "remove"}));
  std::string mode = pca.value("mode", std::string("sentence"));
  if (mode == "sentence") r->pca_mode = PcaMode::kSentence;
  else if (mode == "word") r->pca_mode = PcaMode::kWord;
  else if (mode == "none") r->pca_mode = PcaMode::kNone;
  else return InvalidArgument("recipe: pca.mode must be sentence, word or none");
  Get(pca, "dims", &r->pca.out_dims);
  Get(pca, "remove", &r->pca.remove);

  const json& refine = j.contains("refine") ? j["refine"] : empty;
  SWE_RETURN_IF_ERROR(CheckKeys(refine, "refine", {"method", "sentences", "tau", "batch_size", "lr", "max_epochs",
                                                   "patience", "clip_norm", "heldout", "seed", "pairs"}));
  std::string method = refine.value("method", std::string("kd"));
  if (method == "kd") r->refine = RefineMethod::kKd;
  else if (method == "contrastive") r->refine = RefineMethod::kContrastive;
  else if (method == "none") r->refine = RefineMethod::kNone;
  else return InvalidArgument("recipe: refine.method must be kd, contrastive or none");
  Get(refine, "sentences", &r->refine_sentences);
  Get(refine, "pairs", &r->refine_pairs);
  if (r->refine == RefineMethod::kContrastive) {
    if (r->refine_pairs.empty()) {
      return InvalidArgument("recipe: refine.method contrastive needs 'refine.pairs' (parallel files, one "
                             "'sentence<TAB>translation' per line)");
    }
    if (refine.contains("sentences")) return InvalidArgument("recipe: refine.sentences applies to method kd only");
  } else if (refine.contains("pairs")) {
    return InvalidArgument("recipe: refine.pairs applies to method contrastive only");
  }
  Get(refine, "tau", &r->refine_options.tau);
  Get(refine, "batch_size", &r->refine_options.batch_size);
  Get(refine, "lr", &r->refine_options.lr);
  Get(refine, "max_epochs", &r->refine_options.max_epochs);
  Get(refine, "patience", &r->refine_options.patience);
  Get(refine, "clip_norm", &r->refine_options.clip_norm);
  Get(refine, "heldout", &r->refine_options.heldout);
  r->refine_options.seed = r->seed;
  Get(refine, "seed", &r->refine_options.seed);
  if (!(r->refine_options.tau > 0)) return InvalidArgument("recipe: refine.tau must be positive");
  if (!(r->refine_options.heldout > 0 && r->refine_options.heldout < 1)) {
    return InvalidArgument("recipe: refine.heldout must be in (0, 1)");
  }

  const json& exp = j.contains("export") ? j["export"] : empty;
  SWE_RETURN_IF_ERROR(CheckKeys(exp, "export", {"path", "dtype", "normalize"}));
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
