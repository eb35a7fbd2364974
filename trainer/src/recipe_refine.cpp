// The recipe's refinement sections: refine (objectives, or the one-method shorthand), init, compress,
// and adapt (which stands for an init and a refine section).
#include "recipe_refine.h"

#include <nlohmann/json.hpp>

#include "recipe_section.h"

namespace swe::trainer {
namespace {
using nlohmann::json;

// The data files at `where` (e.g. refine.objectives[1].data): paths or {"path", "max", "skip_malformed"}.
Status ParseData(const json& data, const std::string& where, std::vector<TupleFile>* out) {
  if (!data.is_array() || data.empty()) return InvalidArgument("recipe: '" + where + "' needs at least one file");
  for (const json& f : data) {
    TupleFile file;
    if (f.is_string()) {
      file.path = f.get<std::string>();
    } else {
      RecipeSection s(f, where + "[]");
      s.Get("path", &file.path);
      s.Get("max", &file.max);
      s.Get("skip_malformed", &file.skip_malformed);
      SWE_RETURN_IF_ERROR(s.Done());
    }
    if (file.path.empty()) return InvalidArgument("recipe: '" + where + "' has an entry without a path");
    out->push_back(file);
  }
  return Status::Ok();
}

Status ParseObjective(const json& j, const std::string& where, double tau, ObjectiveSpec* o) {
  if (!j.is_object() || !j.contains("kind")) return InvalidArgument("recipe: '" + where + "' needs a 'kind'");
  if (!j.at("kind").is_string()) return InvalidArgument("recipe: '" + where + ".kind' must be a string");
  const std::string kind = j.at("kind").get<std::string>();
  RecipeSection s(j, where + " (kind " + kind + ")");
  s.Sub("kind");
  o->tau = tau;
  s.Get("weight", &o->weight);
  if (kind == "kd") {
    o->kind = ObjectiveKind::kKd;
    s.Get("tau", &o->tau);
  } else if (kind == "contrastive") {
    o->kind = ObjectiveKind::kContrastive;
    s.Get("tau", &o->tau);
    s.GetChoice("format", {{"pairs", false}, {"triples", true}}, &o->triples);
    s.Get("symmetric", &o->symmetric);
    s.Get("hard_negatives", &o->hard_negatives);
    if (!j.contains("data")) return InvalidArgument("recipe: '" + where + ".data' is required (kind contrastive)");
    SWE_RETURN_IF_ERROR(ParseData(s.Sub("data"), where + ".data", &o->data));
  } else if (kind == "distance") {
    o->kind = ObjectiveKind::kDistance;
    s.Get("euclidean", &o->euclidean);
    s.Get("cosine", &o->cosine);
    s.GetChoice("map", {{"orthogonal", true}, {"identity", false}}, &o->orthogonal_map);
  } else {
    return InvalidArgument("recipe: " + where + ".kind must be kd, contrastive or distance (got '" + kind + "')");
  }
  SWE_RETURN_IF_ERROR(s.Done());
  if (!(o->weight >= 0)) return InvalidArgument("recipe: " + where + ".weight must be >= 0");
  if (!(o->tau > 0)) return InvalidArgument("recipe: " + where + ".tau must be positive");
  if (!(o->euclidean >= 0 && o->cosine >= 0)) {
    return InvalidArgument("recipe: " + where + ".euclidean and .cosine must be >= 0");
  }
  return Status::Ok();
}

// refine.matryoshka: a list of dims (weight 1) or {"dims", "weight"} entries; every objective gets it.
Status ParseMatryoshka(const json& list, std::vector<PrefixLoss>* out) {
  if (list.is_null()) return Status::Ok();
  if (!list.is_array() || list.empty()) return InvalidArgument("recipe: 'refine.matryoshka' must be a non-empty list");
  for (const json& e : list) {
    PrefixLoss p;
    if (e.is_number_unsigned()) {
      p.dims = e.get<uint32_t>();
    } else if (!e.is_object()) {
      return InvalidArgument("recipe: refine.matryoshka entries must be dims or {\"dims\", \"weight\"} (got " +
                             e.dump() + ")");
    } else {
      RecipeSection s(e, "refine.matryoshka[]");
      s.Get("dims", &p.dims);
      s.Get("weight", &p.weight);
      SWE_RETURN_IF_ERROR(s.Done());
    }
    if (p.dims == 0) {
      return InvalidArgument("recipe: refine.matryoshka needs dims of at least 1 (got " + e.dump() + ")");
    }
    if (!(p.weight >= 0)) return InvalidArgument("recipe: refine.matryoshka weights must be >= 0");
    out->push_back(p);
  }
  return Status::Ok();
}

// The one-method shorthand: method kd | contrastive (with pairs) | none.
Status ParseMethod(const std::string& method, const json& pairs, const json& refine, Recipe* r) {
  ObjectiveSpec o;
  o.tau = r->refine_options.tau;
  if (method == "kd") {
    if (!pairs.is_null()) return InvalidArgument("recipe: refine.pairs applies to method contrastive only");
    r->objectives = {o};
  } else if (method == "contrastive") {
    if (pairs.is_null() || pairs.empty()) {
      return InvalidArgument("recipe: refine.method contrastive needs 'refine.pairs' (parallel files, one "
                             "'sentence<TAB>translation' per line)");
    }
    if (refine.contains("sentences")) return InvalidArgument("recipe: refine.sentences applies to method kd only");
    o.kind = ObjectiveKind::kContrastive;
    SWE_RETURN_IF_ERROR(ParseData(pairs, "refine.pairs", &o.data));  // errors name refine.pairs
    r->objectives = {o};
  } else if (method == "none") {
    r->objectives.clear();
  } else {
    return InvalidArgument("recipe: refine.method must be kd, contrastive or none");
  }
  return Status::Ok();
}

}  // namespace

Status ParseRefineSection(const json& refine, Recipe* r) {
  RecipeSection s(refine, "refine");
  RefineOptions& ro = r->refine_options;
  ro.seed = r->seed;
  std::string method = "kd";
  s.Get("method", &method);
  s.Get("tau", &ro.tau);
  s.Get("batch_size", &ro.batch_size);
  s.Get("lr", &ro.lr);
  s.Get("max_epochs", &ro.max_epochs);
  s.Get("patience", &ro.patience);
  s.Get("clip_norm", &ro.clip_norm);
  s.Get("heldout", &ro.heldout);
  s.Get("seed", &ro.seed);
  s.Get("sentences", &r->refine_sentences);
  s.GetChoice("train_rows", {{"all", false}, {"new", true}}, &r->train_new_rows);
  s.GetChoice("optimizer", {{"adam", false}, {"lazy_adam", true}}, &ro.lazy_adam);
  s.Get("word_weights", &ro.word_weights);
  const json& pairs = s.Sub("pairs");
  const json& list = s.Sub("objectives");
  std::vector<PrefixLoss> matryoshka;
  SWE_RETURN_IF_ERROR(ParseMatryoshka(s.Sub("matryoshka"), &matryoshka));
  SWE_RETURN_IF_ERROR(s.Done());
  if (!(ro.tau > 0)) return InvalidArgument("recipe: refine.tau must be positive");
  if (!(ro.heldout > 0 && ro.heldout < 1)) return InvalidArgument("recipe: refine.heldout must be in (0, 1)");
  if (list.is_null() && (!matryoshka.empty() || ro.word_weights)) {
    return InvalidArgument("recipe: refine.matryoshka and refine.word_weights need refine.objectives");
  }
  if (list.is_null()) return ParseMethod(method, pairs, refine, r);
  for (const char* key : {"method", "pairs"}) {
    if (refine.contains(key)) {
      return InvalidArgument(std::string("recipe: refine.") + key + " and refine.objectives exclude each other");
    }
  }
  if (!list.is_array()) return InvalidArgument("recipe: 'refine.objectives' must be a list");
  r->objectives.clear();
  for (size_t i = 0; i < list.size(); ++i) {
    ObjectiveSpec o;
    SWE_RETURN_IF_ERROR(ParseObjective(list[i], "refine.objectives[" + std::to_string(i) + "]", ro.tau, &o));
    o.matryoshka = matryoshka;
    r->objectives.push_back(o);
  }
  return Status::Ok();
}

Status ParseInitSection(const json& init, Recipe* r) {
  RecipeSection s(init, "init");
  VocabExtension& ext = r->init_vocab;
  ext.seed = r->seed;
  std::string cjk, rows = "subword";
  s.Get("model", &r->init_model);
  s.Get("cjk", &cjk);
  s.Get("lexicon_chars", &ext.lexicon_chars);
  s.Get("new_rows", &rows);
  const json& list = s.Sub("add_vocab");
  SWE_RETURN_IF_ERROR(s.Done());
  if (r->init_model.empty()) return InvalidArgument("recipe: 'init.model' is required in 'init'");
  if (init.contains("cjk")) {
    ext.set_cjk = true;
    if (!ParseCjkMode(cjk, &ext.cjk) || ext.cjk == CjkMode::kSubwords) {
      return InvalidArgument("recipe: init.cjk must be 'none', 'characters', 'bigrams' or 'longest'");
    }
  }
  if (ext.lexicon_chars < 2 || ext.lexicon_chars > kMaxLongestChars) {
    return InvalidArgument("recipe: init.lexicon_chars must be 2 to " + std::to_string(kMaxLongestChars));
  }
  if (rows != "subword" && rows != "random") return InvalidArgument("recipe: init.new_rows must be subword or random");
  ext.new_rows = rows == "subword" ? NewRows::kSubword : NewRows::kRandom;
  if (list.is_null()) return Status::Ok();
  if (!list.is_array() || list.empty()) return InvalidArgument("recipe: 'init.add_vocab' must be a non-empty list");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string where = "init.add_vocab[" + std::to_string(i) + "]";
    RecipeSection source(list[i], where);
    AddVocabSource src;
    const json& paths = source.Sub("paths");
    source.Get("column", &src.column);
    source.Get("columns", &src.columns);
    source.Get("size", &src.size);
    source.Get("min_count", &src.min_count);
    SWE_RETURN_IF_ERROR(source.Done());
    if (paths.is_null()) return InvalidArgument("recipe: '" + where + ".paths' is required");
    SWE_RETURN_IF_ERROR(ParseData(paths, where + ".paths", &src.files));
    if (src.size == 0) return InvalidArgument("recipe: " + where + ".size must be positive");
    if (src.columns < 1 || src.column < 1 || src.column > src.columns) {
      return InvalidArgument("recipe: " + where + ".column must be in 1.." + std::to_string(src.columns));
    }
    ext.sources.push_back(src);
  }
  return Status::Ok();
}

Status ParseCompressSection(const json& c, Recipe* r) {
  RecipeSection s(c, "compress");
  CompressOptions& o = r->compress;
  o.seed = r->seed;
  s.GetChoice("method", {{"pca", CompressMethod::kPca}, {"mcr2", CompressMethod::kMcr2}, {"none", CompressMethod::kNone}},
              &o.method);
  s.Get("dims", &o.dims);
  s.Get("sentences", &o.sentences);
  s.Get("clusters", &o.clusters);
  s.Get("epsilon", &o.epsilon);
  s.Get("steps", &o.steps);
  s.Get("lr", &o.lr);
  SWE_RETURN_IF_ERROR(s.Done());
  if (o.dims == 0) return InvalidArgument("recipe: compress.dims must be positive");
  if (o.sentences < 2) return InvalidArgument("recipe: compress.sentences must be at least 2");
  if (o.clusters < 1 || o.clusters > o.sentences) return InvalidArgument("recipe: compress.clusters must be in 1..sentences");
  if (!(o.epsilon > 0)) return InvalidArgument("recipe: compress.epsilon must be positive");
  return Status::Ok();
}

Status ExpandAdaptSection(json* j) {
  if (!j->is_object() || !j->contains("adapt")) return Status::Ok();
  RecipeSection s((*j)["adapt"], "adapt");
  std::string model;
  uint32_t words = 5000;
  uint64_t min_count = 2;
  s.Get("model", &model);
  s.Get("words", &words);
  s.Get("min_count", &min_count);
  const json pairs = s.Sub("pairs");
  SWE_RETURN_IF_ERROR(s.Done());
  if (model.empty()) return InvalidArgument("recipe: 'adapt.model' is required (the base .swe model)");
  if (words == 0) return InvalidArgument("recipe: adapt.words must be positive");
  if (j->contains("init")) return InvalidArgument("recipe: 'adapt' and 'init' exclude each other (adapt sets init)");
  json& refine = (*j)["refine"];
  if (refine.is_null()) refine = json::object();
  if (!refine.is_object()) return InvalidArgument("recipe: 'refine' must be an object");
  for (const char* key : {"method", "pairs", "objectives", "train_rows"}) {
    if (refine.contains(key)) return InvalidArgument(std::string("recipe: adapt sets refine.") + key + ": remove it");
  }
  const json corpus_paths = j->contains("corpus") && (*j)["corpus"].is_object() ? (*j)["corpus"].value("paths", json())
                                                                                   : json();
  if (!corpus_paths.is_array() || corpus_paths.empty()) {
    return InvalidArgument("recipe: adapt needs 'corpus.paths' (the domain text whose words are added)");
  }
  (*j)["init"] = {{"model", model},
                  {"add_vocab", {{{"paths", corpus_paths}, {"column", 1}, {"columns", 1}, {"size", words},
                                  {"min_count", min_count}}}}};
  refine["train_rows"] = "new";
  refine["objectives"] = {{{"kind", "kd"}, {"weight", 1}}};
  if (!pairs.is_null()) refine["objectives"].push_back({{"kind", "contrastive"}, {"weight", 1}, {"data", pairs}});
  j->erase("adapt");
  return Status::Ok();
}

}  // namespace swe::trainer
