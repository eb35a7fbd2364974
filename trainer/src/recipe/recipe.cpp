#include "recipe/recipe.h"

#include <nlohmann/json.hpp>

#include "data/matrix_io.h"
#include "recipe/section_reader.h"
#include "recipe/section_parsers.h"

namespace swe::trainer {
namespace {
using nlohmann::json;

const RecipeKeys<Recipe> kTopKeys = {
    {"name", "the model's name (provenance)", &Recipe::name},
    {"description", "provenance", &Recipe::description},
    {"work_dir", "stage outputs and markers (required)", &Recipe::work_dir},
    {"device", "auto (CUDA when libtorch has it), cpu, cuda or cuda:N", &Recipe::device},
    {"threads", "torch threads", &Recipe::threads},
    {"seed", "every stage's default seed", &Recipe::seed},
};

const RecipeKeys<Recipe> kExportKeys = {
    {"path", "the .swe written (required)", &Recipe::export_path},
    {"dtype", "f32, f16 or int8", &Recipe::dtype},
    {"normalize", "rows scaled to unit length", &Recipe::normalize},
    {"seal", "raw (read in place) or zstd", &Recipe::seal},
};

Status ParseExportSection(const json& j, Recipe* r) {
  SWE_RETURN_IF_ERROR(ReadSection(j, "export", kExportKeys, r));
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
  ReadKeys(kTopKeys, &top, r);
  const char* kSections[] = {"corpus", "tokenizer", "vocab", "sample", "teacher", "pca",
                             "refine", "init", "compress", "export"};
  for (const char* section : kSections) top.Sub(section);
  SWE_RETURN_IF_ERROR(top.Done());
  // Every stage's seed defaults to the recipe's (a section's own seed key overrides it).
  r->sample.seed = r->refine_options.seed = r->init_vocab.seed = r->compress.seed = r->seed;
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

std::vector<std::string> DescribeRecipeKeys() {
  std::vector<std::string> out;
  DescribeKeys("", kTopKeys, &out);
  DescribeTextKeys(&out);
  DescribeTeacherKeys(&out);
  DescribeRefineKeys(&out);
  DescribeInitKeys(&out);
  DescribeKeys("export", kExportKeys, &out);
  return out;
}

Status LoadRecipe(const std::string& path, Recipe* out) {
  std::string text;
  if (!FileExists(path)) return IoError("recipe not found: " + path);
  SWE_RETURN_IF_ERROR(ReadTextFile(path, &text));
  Status s = ParseRecipe(text, out);
  return s.ok() ? s : Status(s.code(), path + ": " + s.message());
}

}  // namespace swe::trainer
