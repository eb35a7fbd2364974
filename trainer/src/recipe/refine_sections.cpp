// The recipe sections of the refine stage: refine (a list of weighted objectives, or the one-method
// shorthand) and compress (a learned projection to fewer dims, fitted after refinement).
#include <nlohmann/json.hpp>

#include "recipe/section_reader.h"
#include "recipe/section_parsers.h"

namespace swe::trainer {
namespace {
using nlohmann::json;

const RecipeKeys<Recipe> kRefineKeys = {
    {"method", "the one-objective shorthand: kd, contrastive (on refine.pairs) or none", &Recipe::refine_method},
    {"tau", "temperature: the objectives' default", &Recipe::refine_options, &RefineOptions::tau},
    {"batch_size", "examples of each objective per step", &Recipe::refine_options, &RefineOptions::batch_size},
    {"lr", "learning rate", &Recipe::refine_options, &RefineOptions::lr},
    RecipeKey<Recipe>::Choice("lr_decay", "linear: the rate falls from lr to 0 over max_epochs",
                              {{"none", false}, {"linear", true}}, &Recipe::refine_options, &RefineOptions::lr_decay),
    {"max_epochs", "epochs at most", &Recipe::refine_options, &RefineOptions::max_epochs},
    {"patience", "epochs without a better held-out loss before stopping", &Recipe::refine_options,
     &RefineOptions::patience},
    {"clip_norm", "gradient-norm clipping (0: none)", &Recipe::refine_options, &RefineOptions::clip_norm},
    {"heldout", "fraction of each objective's examples held out", &Recipe::refine_options, &RefineOptions::heldout},
    {"seed", "the split's and the batches' seed (default: the recipe's seed)", &Recipe::refine_options,
     &RefineOptions::seed},
    {"sentences", "kd, distance: sentences used (0: all M, or the corpus with init.model)", &Recipe::refine_sentences},
    RecipeKey<Recipe>::Choice("train_rows", "new: only the rows init.add_vocab added are trained",
                              {{"all", false}, {"new", true}}, &Recipe::train_new_rows),
    RecipeKey<Recipe>::Choice("optimizer", "lazy_adam: Adam on the rows of each batch only",
                              {{"adam", false}, {"lazy_adam", true}}, &Recipe::refine_options, &RefineOptions::lazy_adam),
    {"word_weights", "a scale per word learned with the table, folded into its row at the end", &Recipe::refine_options,
     &RefineOptions::word_weights},
};

// refine.matryoshka entries written as objects (a bare number is {"dims": N}).
const RecipeKeys<PrefixLoss> kPrefixKeys = {
    {"dims", "each objective's loss also on the first dims (normalised prefix)", &PrefixLoss::dims},
    {"weight", "that loss's weight", &PrefixLoss::weight},
};

const RecipeKey<ObjectiveSpec> kWeight{"weight", "the objective's weight in the sum", &ObjectiveSpec::weight};
const RecipeKey<ObjectiveSpec> kTau{"tau", "temperature (default: refine.tau)", &ObjectiveSpec::tau};
const RecipeKeys<ObjectiveSpec> kKdKeys = {kWeight, kTau};
const RecipeKeys<ObjectiveSpec> kContrastiveKeys = {
    kWeight,
    kTau,
    RecipeKey<ObjectiveSpec>::Choice("format", "pairs: a<TAB>b; triples: anchor<TAB>positive<TAB>hard negative",
                                     {{"pairs", false}, {"triples", true}}, &ObjectiveSpec::triples),
    {"symmetric", "both directions of InfoNCE", &ObjectiveSpec::symmetric},
    {"hard_negatives", "triples: the third column joins the candidates", &ObjectiveSpec::hard_negatives},
};
const RecipeKeys<ObjectiveSpec> kDistanceKeys = {
    kWeight,
    {"euclidean", "alpha: weight of the squared distance", &ObjectiveSpec::euclidean},
    {"cosine", "beta: weight of 1 - cosine", &ObjectiveSpec::cosine},
    RecipeKey<ObjectiveSpec>::Choice("map", "the teacher-to-student map (identity needs equal dims)",
                                     {{"orthogonal", true}, {"identity", false}}, &ObjectiveSpec::orthogonal_map),
};
struct ObjectiveKindKeys {
  const char* name;
  ObjectiveKind kind;
  const RecipeKeys<ObjectiveSpec>* keys;
};
const ObjectiveKindKeys kObjectiveKinds[] = {{"kd", ObjectiveKind::kKd, &kKdKeys},
                                             {"contrastive", ObjectiveKind::kContrastive, &kContrastiveKeys},
                                             {"distance", ObjectiveKind::kDistance, &kDistanceKeys}};

const RecipeKeys<TupleFile> kDataFileKeys = {
    {"path", "the file", &TupleFile::path},
    {"max", "a seeded random subset of this many lines (0: all)", &TupleFile::max},
    {"skip_malformed", "skip (and count) lines with a wrong number of tabs or an empty side",
     &TupleFile::skip_malformed},
};

const RecipeKeys<CompressOptions> kCompressKeys = {
    RecipeKey<CompressOptions>::Choice(
        "method", "after refinement, a projection folded into the table: to fewer dims (pca, mcr2) or abtt",
        {{"pca", CompressMethod::kPca},
         {"mcr2", CompressMethod::kMcr2},
         {"abtt", CompressMethod::kAbtt},
         {"none", CompressMethod::kNone}},
        &CompressOptions::method),
    {"dims", "pca, mcr2: k, the dimensions kept", &CompressOptions::dims},
    {"remove", "abtt: the top principal directions removed (the dims stay)", &CompressOptions::remove},
    {"sentences", "student sentence vectors fitted on (the first refinement sentences)", &CompressOptions::sentences},
    {"clusters", "mcr2: k-means clusters", &CompressOptions::clusters},
    {"epsilon", "mcr2: the distortion the coding rate allows", &CompressOptions::epsilon},
    {"steps", "mcr2: full-batch Adam steps", &CompressOptions::steps},
    {"lr", "mcr2: learning rate", &CompressOptions::lr},
};

}  // namespace

Status ParseDataFiles(const json& data, const std::string& where, std::vector<TupleFile>* out) {
  if (!data.is_array() || data.empty()) return InvalidArgument("recipe: '" + where + "' needs at least one file");
  for (const json& f : data) {
    TupleFile file;
    if (f.is_string()) {
      file.path = f.get<std::string>();
    } else {
      RecipeSection s(f, where + "[]");
      ReadKeys(kDataFileKeys, &s, &file);
      SWE_RETURN_IF_ERROR(s.Done());
    }
    if (file.path.empty()) return InvalidArgument("recipe: '" + where + "' has an entry without a path");
    out->push_back(file);
  }
  return Status::Ok();
}

namespace {

Status ParseObjective(const json& j, const std::string& where, double tau, ObjectiveSpec* o) {
  if (!j.is_object() || !j.contains("kind")) return InvalidArgument("recipe: '" + where + "' needs a 'kind'");
  if (!j.at("kind").is_string()) return InvalidArgument("recipe: '" + where + ".kind' must be a string");
  const std::string kind = j.at("kind").get<std::string>();
  const ObjectiveKindKeys* spec = nullptr;
  for (const ObjectiveKindKeys& k : kObjectiveKinds) {
    if (kind == k.name) spec = &k;
  }
  if (spec == nullptr) {
    return InvalidArgument("recipe: " + where + ".kind must be kd, contrastive or distance (got '" + kind + "')");
  }
  RecipeSection s(j, where + " (kind " + kind + ")");
  s.Sub("kind");
  o->kind = spec->kind;
  o->tau = tau;
  ReadKeys(*spec->keys, &s, o);
  if (o->kind == ObjectiveKind::kContrastive) {
    if (!j.contains("data")) return InvalidArgument("recipe: '" + where + ".data' is required (kind contrastive)");
    SWE_RETURN_IF_ERROR(ParseDataFiles(s.Sub("data"), where + ".data", &o->data));
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
      ReadKeys(kPrefixKeys, &s, &p);
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
Status ParseMethod(const json& pairs, const json& refine, Recipe* r) {
  ObjectiveSpec o;
  o.tau = r->refine_options.tau;
  if (r->refine_method == "kd") {
    if (!pairs.is_null()) return InvalidArgument("recipe: refine.pairs applies to method contrastive only");
    r->objectives = {o};
  } else if (r->refine_method == "contrastive") {
    if (pairs.is_null() || pairs.empty()) {
      return InvalidArgument("recipe: refine.method contrastive needs 'refine.pairs' (parallel files, one "
                             "'sentence<TAB>translation' per line)");
    }
    if (refine.contains("sentences")) return InvalidArgument("recipe: refine.sentences applies to method kd only");
    o.kind = ObjectiveKind::kContrastive;
    SWE_RETURN_IF_ERROR(ParseDataFiles(pairs, "refine.pairs", &o.data));  // errors name refine.pairs
    r->objectives = {o};
  } else if (r->refine_method == "none") {
    r->objectives.clear();
  } else {
    return InvalidArgument("recipe: refine.method must be kd, contrastive or none");
  }
  return Status::Ok();
}

}  // namespace

Status ParseRefineSection(const json& refine, Recipe* r) {
  RecipeSection s(refine, "refine");
  ReadKeys(kRefineKeys, &s, r);
  const json& pairs = s.Sub("pairs");
  const json& list = s.Sub("objectives");
  std::vector<PrefixLoss> matryoshka;
  SWE_RETURN_IF_ERROR(ParseMatryoshka(s.Sub("matryoshka"), &matryoshka));
  SWE_RETURN_IF_ERROR(s.Done());
  const RefineOptions& ro = r->refine_options;
  if (!(ro.tau > 0)) return InvalidArgument("recipe: refine.tau must be positive");
  if (!(ro.heldout > 0 && ro.heldout < 1)) return InvalidArgument("recipe: refine.heldout must be in (0, 1)");
  if (list.is_null() && (!matryoshka.empty() || ro.word_weights)) {
    return InvalidArgument("recipe: refine.matryoshka and refine.word_weights need refine.objectives");
  }
  if (list.is_null()) return ParseMethod(pairs, refine, r);
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

Status ParseCompressSection(const json& c, Recipe* r) {
  CompressOptions& o = r->compress;
  SWE_RETURN_IF_ERROR(ReadSection(c, "compress", kCompressKeys, &o));
  if (o.dims == 0) return InvalidArgument("recipe: compress.dims must be positive");
  if (o.remove == 0) return InvalidArgument("recipe: compress.remove must be positive");
  if (o.sentences < 2) return InvalidArgument("recipe: compress.sentences must be at least 2");
  if (o.clusters < 1 || o.clusters > o.sentences) return InvalidArgument("recipe: compress.clusters must be in 1..sentences");
  if (!(o.epsilon > 0)) return InvalidArgument("recipe: compress.epsilon must be positive");
  return Status::Ok();
}

void DescribeRefineKeys(std::vector<std::string>* out) {
  DescribeKeys("refine", kRefineKeys, out);
  DescribeKeys("refine.matryoshka[]", kPrefixKeys, out);
  for (const ObjectiveKindKeys& k : kObjectiveKinds) {
    DescribeKeys(std::string("refine.objectives[] (kind ") + k.name + ")", *k.keys, out);
  }
  DescribeKeys("refine.objectives[].data[]", kDataFileKeys, out);
  DescribeKeys("compress", kCompressKeys, out);
}

}  // namespace swe::trainer
