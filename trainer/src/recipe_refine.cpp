// The recipe's refinement sections: refine (objectives, or the one-method shorthand), init, compress.
#include "recipe_refine.h"

#include <nlohmann/json.hpp>

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
      SWE_RETURN_IF_ERROR(CheckRecipeKeys(f, where + "[]", {"path", "max", "skip_malformed"}));
      Get(f, "path", &file.path);
      Get(f, "max", &file.max);
      Get(f, "skip_malformed", &file.skip_malformed);
    }
    if (file.path.empty()) return InvalidArgument("recipe: '" + where + "' has an entry without a path");
    out->push_back(file);
  }
  return Status::Ok();
}

Status ParseObjective(const json& j, const std::string& where, double tau, ObjectiveSpec* o) {
  if (!j.is_object() || !j.contains("kind")) return InvalidArgument("recipe: '" + where + "' needs a 'kind'");
  const std::string kind = j.at("kind").get<std::string>();
  std::set<std::string> keys = {"kind", "weight"};
  if (kind == "kd") {
    o->kind = ObjectiveKind::kKd;
    keys.insert("tau");
  } else if (kind == "contrastive") {
    o->kind = ObjectiveKind::kContrastive;
    keys.insert({"tau", "data", "format", "symmetric", "hard_negatives"});
  } else if (kind == "distance") {
    o->kind = ObjectiveKind::kDistance;
    keys.insert({"euclidean", "cosine", "map"});
  } else {
    return InvalidArgument("recipe: " + where + ".kind must be kd, contrastive or distance (got '" + kind + "')");
  }
  SWE_RETURN_IF_ERROR(CheckRecipeKeys(j, where + " (kind " + kind + ")", keys));
  o->tau = tau;
  Get(j, "weight", &o->weight);
  Get(j, "tau", &o->tau);
  Get(j, "symmetric", &o->symmetric);
  Get(j, "hard_negatives", &o->hard_negatives);
  Get(j, "euclidean", &o->euclidean);
  Get(j, "cosine", &o->cosine);
  if (!(o->weight >= 0)) return InvalidArgument("recipe: " + where + ".weight must be >= 0");
  if (!(o->tau > 0)) return InvalidArgument("recipe: " + where + ".tau must be positive");
  if (!(o->euclidean >= 0 && o->cosine >= 0)) {
    return InvalidArgument("recipe: " + where + ".euclidean and .cosine must be >= 0");
  }
  const std::string map = j.value("map", std::string("orthogonal"));
  if (map != "orthogonal" && map != "identity") return InvalidArgument("recipe: " + where + ".map must be orthogonal or identity");
  o->orthogonal_map = map == "orthogonal";
  if (o->kind == ObjectiveKind::kContrastive) {
    const std::string format = j.value("format", std::string("pairs"));
    if (format != "pairs" && format != "triples") return InvalidArgument("recipe: " + where + ".format must be pairs or triples");
    o->triples = format == "triples";
    if (!j.contains("data")) return InvalidArgument("recipe: '" + where + ".data' is required (kind contrastive)");
    SWE_RETURN_IF_ERROR(ParseData(j.at("data"), where + ".data", &o->data));
  }
  return Status::Ok();
}

// The one-method shorthand: method kd | contrastive (with pairs) | none.
Status ParseMethod(const json& refine, Recipe* r) {
  const std::string method = refine.value("method", std::string("kd"));
  ObjectiveSpec o;
  o.tau = r->refine_options.tau;
  if (method == "kd") {
    if (refine.contains("pairs")) return InvalidArgument("recipe: refine.pairs applies to method contrastive only");
    r->objectives = {o};
  } else if (method == "contrastive") {
    if (!refine.contains("pairs") || refine.at("pairs").empty()) {
      return InvalidArgument("recipe: refine.method contrastive needs 'refine.pairs' (parallel files, one "
                             "'sentence<TAB>translation' per line)");
    }
    if (refine.contains("sentences")) return InvalidArgument("recipe: refine.sentences applies to method kd only");
    o.kind = ObjectiveKind::kContrastive;
    SWE_RETURN_IF_ERROR(ParseData(refine.at("pairs"), "refine.pairs", &o.data));  // errors name refine.pairs
    r->objectives = {o};
  } else if (method == "none") {
    r->objectives.clear();
  } else {
    return InvalidArgument("recipe: refine.method must be kd, contrastive or none");
  }
  return Status::Ok();
}

}  // namespace

Status CheckRecipeKeys(const json& j, const std::string& where, const std::set<std::string>& allowed) {
  if (!j.is_object()) return InvalidArgument("recipe: '" + where + "' must be an object");
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!allowed.count(it.key())) return InvalidArgument("recipe: unknown key '" + where + "." + it.key() + "'");
  }
  return Status::Ok();
}

Status ParseRefineSection(const json& refine, Recipe* r) {
  SWE_RETURN_IF_ERROR(CheckRecipeKeys(refine, "refine", {"method", "objectives", "sentences", "tau", "batch_size", "lr",
                                                         "max_epochs", "patience", "clip_norm", "heldout", "seed",
                                                         "pairs", "train_rows", "optimizer"}));
  RefineOptions& ro = r->refine_options;
  Get(refine, "tau", &ro.tau);
  Get(refine, "batch_size", &ro.batch_size);
  Get(refine, "lr", &ro.lr);
  Get(refine, "max_epochs", &ro.max_epochs);
  Get(refine, "patience", &ro.patience);
  Get(refine, "clip_norm", &ro.clip_norm);
  Get(refine, "heldout", &ro.heldout);
  ro.seed = r->seed;
  Get(refine, "seed", &ro.seed);
  Get(refine, "sentences", &r->refine_sentences);
  const std::string train_rows = refine.value("train_rows", std::string("all"));
  if (train_rows != "all" && train_rows != "new") return InvalidArgument("recipe: refine.train_rows must be all or new");
  r->train_new_rows = train_rows == "new";
  const std::string optimizer = refine.value("optimizer", std::string("adam"));
  if (optimizer != "adam" && optimizer != "lazy_adam") {
    return InvalidArgument("recipe: refine.optimizer must be adam or lazy_adam");
  }
  ro.lazy_adam = optimizer == "lazy_adam";
  if (!(ro.tau > 0)) return InvalidArgument("recipe: refine.tau must be positive");
  if (!(ro.heldout > 0 && ro.heldout < 1)) return InvalidArgument("recipe: refine.heldout must be in (0, 1)");
  if (!refine.contains("objectives")) return ParseMethod(refine, r);
  for (const char* key : {"method", "pairs"}) {
    if (refine.contains(key)) {
      return InvalidArgument(std::string("recipe: refine.") + key + " and refine.objectives exclude each other");
    }
  }
  const json& list = refine.at("objectives");
  if (!list.is_array()) return InvalidArgument("recipe: 'refine.objectives' must be a list");
  r->objectives.clear();
  for (size_t i = 0; i < list.size(); ++i) {
    ObjectiveSpec o;
    SWE_RETURN_IF_ERROR(ParseObjective(list[i], "refine.objectives[" + std::to_string(i) + "]", ro.tau, &o));
    r->objectives.push_back(o);
  }
  return Status::Ok();
}

Status ParseInitSection(const json& init, Recipe* r) {
  SWE_RETURN_IF_ERROR(CheckRecipeKeys(init, "init", {"model", "add_vocab", "cjk", "lexicon_chars", "new_rows"}));
  Get(init, "model", &r->init_model);
  if (r->init_model.empty()) return InvalidArgument("recipe: 'init.model' is required in 'init'");
  VocabExtension& ext = r->init_vocab;
  ext.seed = r->seed;
  if (init.contains("cjk")) {
    const std::string cjk = init.at("cjk").get<std::string>();
    ext.set_cjk = true;
    if (!ParseCjkMode(cjk, &ext.cjk) || ext.cjk == CjkMode::kSubwords) {
      return InvalidArgument("recipe: init.cjk must be 'none', 'characters', 'bigrams' or 'longest'");
    }
  }
  Get(init, "lexicon_chars", &ext.lexicon_chars);
  if (ext.lexicon_chars < 2 || ext.lexicon_chars > kMaxLongestChars) {
    return InvalidArgument("recipe: init.lexicon_chars must be 2 to " + std::to_string(kMaxLongestChars));
  }
  const std::string rows = init.value("new_rows", std::string("subword"));
  if (rows != "subword" && rows != "random") return InvalidArgument("recipe: init.new_rows must be subword or random");
  ext.new_rows = rows == "subword" ? NewRows::kSubword : NewRows::kRandom;
  if (!init.contains("add_vocab")) return Status::Ok();
  const json& list = init.at("add_vocab");
  if (!list.is_array() || list.empty()) return InvalidArgument("recipe: 'init.add_vocab' must be a non-empty list");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string where = "init.add_vocab[" + std::to_string(i) + "]";
    SWE_RETURN_IF_ERROR(CheckRecipeKeys(list[i], where, {"paths", "column", "columns", "size", "min_count"}));
    AddVocabSource src;
    if (!list[i].contains("paths")) return InvalidArgument("recipe: '" + where + ".paths' is required");
    SWE_RETURN_IF_ERROR(ParseData(list[i].at("paths"), where + ".paths", &src.files));
    Get(list[i], "column", &src.column);
    Get(list[i], "columns", &src.columns);
    Get(list[i], "size", &src.size);
    Get(list[i], "min_count", &src.min_count);
    if (src.size == 0) return InvalidArgument("recipe: " + where + ".size must be positive");
    if (src.columns < 1 || src.column < 1 || src.column > src.columns) {
      return InvalidArgument("recipe: " + where + ".column must be in 1.." + std::to_string(src.columns));
    }
    ext.sources.push_back(src);
  }
  return Status::Ok();
}

Status ParseCompressSection(const json& c, Recipe* r) {
  SWE_RETURN_IF_ERROR(CheckRecipeKeys(c, "compress", {"method", "dims", "sentences", "clusters", "epsilon", "steps", "lr"}));
  CompressOptions& o = r->compress;
  const std::string method = c.value("method", std::string("none"));
  if (method == "none") o.method = CompressMethod::kNone;
  else if (method == "pca") o.method = CompressMethod::kPca;
  else if (method == "mcr2") o.method = CompressMethod::kMcr2;
  else return InvalidArgument("recipe: compress.method must be pca, mcr2 or none");
  Get(c, "dims", &o.dims);
  Get(c, "sentences", &o.sentences);
  Get(c, "clusters", &o.clusters);
  Get(c, "epsilon", &o.epsilon);
  Get(c, "steps", &o.steps);
  Get(c, "lr", &o.lr);
  o.seed = r->seed;
  if (o.dims == 0) return InvalidArgument("recipe: compress.dims must be positive");
  if (o.sentences < 2) return InvalidArgument("recipe: compress.sentences must be at least 2");
  if (o.clusters < 1 || o.clusters > o.sentences) return InvalidArgument("recipe: compress.clusters must be in 1..sentences");
  if (!(o.epsilon > 0)) return InvalidArgument("recipe: compress.epsilon must be positive");
  return Status::Ok();
}

}  // namespace swe::trainer
