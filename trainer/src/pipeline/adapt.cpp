#include "pipeline/adapt.h"

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "refine/refine_data.h"

namespace swe::trainer {

Status AdaptRecipe(const AdaptOptions& o, std::string* recipe_json) {
  if (o.model.empty() || o.corpus.empty() || o.output.empty()) {
    return InvalidArgument("adapt needs --model BASE.swe, --corpus TEXT and -o OUT.swe");
  }
  std::unique_ptr<Model> base;
  SWE_RETURN_IF_ERROR(ReadInitModel(o.model, &base));
  const std::string name = std::filesystem::path(o.output).stem().string();
  nlohmann::json adapt = {{"model", o.model}, {"words", o.words}, {"min_count", o.min_count}};
  if (!o.pairs.empty()) adapt["pairs"] = {o.pairs};
  nlohmann::json recipe = {
      {"name", name.empty() ? "swe-adapted" : name},
      {"description", "adapted from " + o.model + " to the words of " + o.corpus},
      {"work_dir", o.work_dir.empty() ? o.output + ".work" : o.work_dir},
      {"corpus", {{"paths", {o.corpus}}, {"split_sentences", true}}},  // paragraphs: the teacher reads 128 pieces
      {"teacher", {{"kind", o.teacher_kind}, {"path", o.teacher_path}}},
      {"adapt", adapt},
      // Only the new rows move, from their subword start: a high rate (the default 0.001 leaves them).
      {"refine", {{"sentences", o.sentences}, {"max_epochs", o.max_epochs}, {"patience", 3}, {"lr", 0.05},
                  {"optimizer", "lazy_adam"}}},
      {"export", {{"path", o.output}, {"dtype", dtype_name(base->dtype())}, {"normalize", base->normalize()}}}};
  *recipe_json = recipe.dump(2) + "\n";
  return Status::Ok();
}

}  // namespace swe::trainer
