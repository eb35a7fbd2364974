// swe-trainer: distils static word embeddings from a Sentence Transformer (see docs/TRAINER.md).
//   swe-trainer train --recipe FILE.json [--force] [--device auto|cpu|cuda] [--threads N] [--quiet]
//                     [--teacher KIND DIR]
//   swe-trainer STAGE --recipe FILE.json [...]     STAGE: vocab sample extract pca refine export
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "pipeline.h"
#include "progress.h"
#include "recipe.h"

#ifndef SWE_TRAINER_VERSION
#define SWE_TRAINER_VERSION "dev"
#endif

namespace {

const char kUsage[] =
    "usage: swe-trainer COMMAND --recipe FILE.json [options]\n"
    "commands:\n"
    "  train     run every stage in order, skipping those already done for this recipe (resume)\n"
    "  vocab | sample | extract | pca | refine | export\n"
    "            (re-)run one stage; the stages before it must be done\n"
    "options:\n"
    "  --recipe FILE     the training recipe (JSON; see docs/TRAINER.md)\n"
    "  --force           train: re-run every stage\n"
    "  --device DEV      auto | cpu | cuda | cuda:N (overrides the recipe)\n"
    "  --threads N       libtorch threads (overrides the recipe)\n"
    "  --teacher KIND DIR  the teacher (overrides the recipe's teacher.kind and .path):\n"
    "                    bert DIR (a Sentence Transformer) | use-lite DIR (Universal Sentence Encoder\n"
    "                    Lite: bash scripts/fetch-use-lite.sh prints its DIR)\n"
    "  --quiet           no progress lines\n"
    "  --version, --help\n";

int Fail(const std::string& message) {
  std::fprintf(stderr, "swe-trainer: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace swe::trainer;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::string command, recipe_path, teacher_kind, teacher_path;
  RunOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= args.size()) return false;
      *out = args[++i];
      return true;
    };
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (a == "--version") {
      std::printf("swe-trainer %s\n", SWE_TRAINER_VERSION);
      return 0;
    } else if (a == "--recipe") {
      if (!value(&recipe_path)) return Fail("--recipe needs a file");
    } else if (a == "--device") {
      if (!value(&options.device)) return Fail("--device needs a value");
    } else if (a == "--threads") {
      std::string v;
      if (!value(&v)) return Fail("--threads needs a number");
      char* end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (!end || *end || n < 0 || n > 1024) return Fail("bad --threads " + v);
      options.threads = static_cast<int>(n);
    } else if (a == "--teacher") {
      if (!value(&teacher_kind) || !value(&teacher_path)) return Fail("--teacher needs a kind and a directory");
    } else if (a == "--force") {
      options.force = true;
    } else if (a == "--quiet") {
      Progress::SetEnabled(false);
    } else if (!a.empty() && a[0] == '-') {
      return Fail("unknown option " + a + "\n" + kUsage);
    } else if (command.empty()) {
      command = a;
    } else {
      return Fail("unexpected argument " + a);
    }
  }
  if (command.empty()) return Fail("no command\n" + std::string(kUsage));
  if (command != "train") {
    Stage stage;
    swe::Status s = ParseStage(command, &stage);
    if (!s.ok()) return Fail(s.message());
    options.only.push_back(stage);
  }
  if (recipe_path.empty()) return Fail("--recipe FILE.json is required");
  Recipe recipe;
  swe::Status s = LoadRecipe(recipe_path, &recipe);
  if (!s.ok()) return Fail(s.ToString());
  if (!teacher_kind.empty()) OverrideTeacher(teacher_kind, teacher_path, &recipe);
  s = RunPipeline(recipe, options);
  if (!s.ok()) return Fail(s.ToString());
  return 0;
}
