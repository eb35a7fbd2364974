// The recipe sections of the teacher's stages: teacher (extraction, and KD's sentence vectors) and
// pca (Sec. 3.2: the reduction of the extracted word vectors).
#include "recipe/section_reader.h"
#include "recipe/section_parsers.h"

namespace swe::trainer {
namespace {
using nlohmann::json;

const RecipeKeys<Recipe> kTeacherKeys = {
    {"kind", "bert, use-lite or t5 (docs/TRAINER.md, Teachers)", &Recipe::teacher, &TeacherOptions::kind},
    {"path", "the teacher's directory (required)", &Recipe::teacher, &TeacherOptions::path},
    {"batch_size", "sentences per forward pass", &Recipe::teacher_batch},
    {"max_tokens", "tokens per sentence (0: the model's limit)", &Recipe::teacher, &TeacherOptions::max_tokens},
};

const RecipeKeys<Recipe> kPcaKeys = {
    RecipeKey<Recipe>::Choice("mode", "sentence: PCA of generic sentences (Sec. 3.2); word: of the word vectors",
                              {{"sentence", PcaMode::kSentence}, {"word", PcaMode::kWord}, {"none", PcaMode::kNone}},
                              &Recipe::pca_mode),
    {"dims", "d': the dimensions kept", &Recipe::pca, &PcaOptions::out_dims},
    {"remove", "ABTT: leading directions dropped (-1: floor(d / 100))", &Recipe::pca, &PcaOptions::remove},
};

}  // namespace

Status ParseTeacherSection(const json& j, Recipe* r) {
  SWE_RETURN_IF_ERROR(ReadSection(j, "teacher", kTeacherKeys, r));
  if (r->teacher.path.empty()) return InvalidArgument("recipe: 'teacher.path' is required");
  if (r->teacher_batch == 0) return InvalidArgument("recipe: teacher.batch_size must be positive");
  return Status::Ok();
}

Status ParsePcaSection(const json& j, Recipe* r) {
  return ReadSection(j, "pca", kPcaKeys, r);
}

void DescribeTeacherKeys(std::vector<std::string>* out) {
  DescribeKeys("teacher", kTeacherKeys, out);
  DescribeKeys("pca", kPcaKeys, out);
}

}  // namespace swe::trainer
