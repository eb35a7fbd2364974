// The recipe sections that start from an existing model: init (its rows, and the words of other
// languages or a domain added to them) and adapt (the domain shorthand for an init and a refine).
#include <nlohmann/json.hpp>

#include "recipe/section_reader.h"
#include "recipe/section_parsers.h"

namespace swe::trainer {
namespace {
using nlohmann::json;

const RecipeKeys<Recipe> kInitKeys = {
    {"model", "start from this .swe model (no vocab, sample, extract, pca)", &Recipe::init_model},
    RecipeKey<Recipe>::Choice("cjk", "the extended model's CJK mode (default: the model's)", TrainableCjkModes(),
                              &Recipe::init_vocab, &VocabExtension::cjk),
    {"lexicon_chars", "cjk longest: the learned lexicon's longest word", &Recipe::init_vocab,
     &VocabExtension::lexicon_chars},
    RecipeKey<Recipe>::Choice("new_rows", "an added word's first row: its subword fallback's mean, or noise",
                              {{"subword", NewRows::kSubword}, {"random", NewRows::kRandom}}, &Recipe::init_vocab,
                              &VocabExtension::new_rows),
};

const RecipeKeys<AddVocabSource> kAddVocabKeys = {
    {"column", "the 1-based column counted", &AddVocabSource::column},
    {"columns", "columns per line", &AddVocabSource::columns},
    {"size", "words added from this source at most", &AddVocabSource::size},
    {"min_count", "a word needs this many occurrences", &AddVocabSource::min_count},
};

struct AdaptSection {
  std::string model;
  uint32_t words = 5000;
  uint64_t min_count = 2;
};
const RecipeKeys<AdaptSection> kAdaptKeys = {
    {"model", "the base .swe model (required)", &AdaptSection::model},
    {"words", "the corpus's most frequent words the model lacks, added", &AdaptSection::words},
    {"min_count", "a word needs this many occurrences", &AdaptSection::min_count},
};

Status ParseAddVocab(const json& list, VocabExtension* ext) {
  if (!list.is_array() || list.empty()) return InvalidArgument("recipe: 'init.add_vocab' must be a non-empty list");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string where = "init.add_vocab[" + std::to_string(i) + "]";
    RecipeSection s(list[i], where);
    AddVocabSource src;
    const json& paths = s.Sub("paths");
    ReadKeys(kAddVocabKeys, &s, &src);
    SWE_RETURN_IF_ERROR(s.Done());
    if (paths.is_null()) return InvalidArgument("recipe: '" + where + ".paths' is required");
    SWE_RETURN_IF_ERROR(ParseDataFiles(paths, where + ".paths", &src.files));
    if (src.size == 0) return InvalidArgument("recipe: " + where + ".size must be positive");
    if (src.columns < 1 || src.column < 1 || src.column > src.columns) {
      return InvalidArgument("recipe: " + where + ".column must be in 1.." + std::to_string(src.columns));
    }
    ext->sources.push_back(src);
  }
  return Status::Ok();
}

}  // namespace

Status ParseInitSection(const json& init, Recipe* r) {
  RecipeSection s(init, "init");
  ReadKeys(kInitKeys, &s, r);
  const json& list = s.Sub("add_vocab");
  SWE_RETURN_IF_ERROR(s.Done());
  if (r->init_model.empty()) return InvalidArgument("recipe: 'init.model' is required in 'init'");
  VocabExtension& ext = r->init_vocab;
  ext.set_cjk = init.contains("cjk");
  if (ext.lexicon_chars < 2 || ext.lexicon_chars > kMaxLongestChars) {
    return InvalidArgument("recipe: init.lexicon_chars must be 2 to " + std::to_string(kMaxLongestChars));
  }
  return list.is_null() ? Status::Ok() : ParseAddVocab(list, &ext);
}

Status ExpandAdaptSection(json* j) {
  if (!j->is_object() || !j->contains("adapt")) return Status::Ok();
  RecipeSection s((*j)["adapt"], "adapt");
  AdaptSection adapt;
  ReadKeys(kAdaptKeys, &s, &adapt);
  const json pairs = s.Sub("pairs");
  SWE_RETURN_IF_ERROR(s.Done());
  if (adapt.model.empty()) return InvalidArgument("recipe: 'adapt.model' is required (the base .swe model)");
  if (adapt.words == 0) return InvalidArgument("recipe: adapt.words must be positive");
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
  (*j)["init"] = {{"model", adapt.model},
                  {"add_vocab", {{{"paths", corpus_paths}, {"column", 1}, {"columns", 1}, {"size", adapt.words},
                                  {"min_count", adapt.min_count}}}}};
  refine["train_rows"] = "new";
  refine["objectives"] = {{{"kind", "kd"}, {"weight", 1}}};
  if (!pairs.is_null()) refine["objectives"].push_back({{"kind", "contrastive"}, {"weight", 1}, {"data", pairs}});
  j->erase("adapt");
  return Status::Ok();
}

void DescribeInitKeys(std::vector<std::string>* out) {
  DescribeKeys("init", kInitKeys, out);
  DescribeKeys("init.add_vocab[]", kAddVocabKeys, out);
  DescribeKeys("adapt", kAdaptKeys, out);
}

}  // namespace swe::trainer
