// swe-trainer: distils static word embeddings from a Sentence Transformer (see docs/TRAINER.md).
//   swe-trainer train --recipe FILE.json [--force] [--device auto|cpu|cuda] [--threads N] [--quiet]
//                     [--teacher KIND DIR]
//   swe-trainer STAGE --recipe FILE.json [...]     STAGE: vocab sample extract pca refine export
//   swe-trainer eval --teacher KIND DIR [--tasks LIST] [--limit N] [--json OUT] [--markdown OUT]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "pipeline.h"
#include "progress.h"
#include "recipe.h"
#include "teacher_eval.h"

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
    "  eval      score a teacher (--teacher KIND DIR) with the code of `swe eval` (no recipe)\n"
    "options:\n"
    "  --recipe FILE     the training recipe (JSON; see docs/TRAINER.md)\n"
    "  --force           train: re-run every stage\n"
    "  --device DEV      auto | cpu | cuda | cuda:N (overrides the recipe)\n"
    "  --threads N       libtorch threads (overrides the recipe)\n"
    "  --teacher KIND DIR  the teacher (overrides the recipe's teacher.kind and .path):\n"
    "                    bert DIR (a Sentence Transformer) | use-lite DIR (Universal Sentence Encoder\n"
    "                    Lite: bash scripts/fetch-use-lite.sh prints its DIR)\n"
    "  --quiet           no progress lines\n"
    "eval options (as `swe eval`): --tasks LIST (default all; beir:DIR for any BEIR directory), --limit N,\n"
    "  --data DIR (the folder that holds eval/; default $SWE_DATA, else ../shared/data), --json OUT,\n"
    "  --markdown OUT, --batch N (sentences per teacher pass, default 64), --device, --threads\n"
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
  TeacherEvalOptions eval_options;
  const char* env_data = std::getenv("SWE_DATA");
  if (env_data != nullptr && *env_data) eval_options.suite.data_dir = env_data;
  eval_options.suite.classify.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  auto number = [](const std::string& v, long min, long max, long* out) {
    char* end = nullptr;
    *out = std::strtol(v.c_str(), &end, 10);
    return !v.empty() && end && !*end && *out >= min && *out <= max;
  };
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
      long n = 0;
      if (!value(&v)) return Fail("--threads needs a number");
      if (!number(v, 0, 1024, &n)) return Fail("bad --threads " + v);
      options.threads = static_cast<int>(n);
    } else if (a == "--teacher") {
      if (!value(&teacher_kind) || !value(&teacher_path)) return Fail("--teacher needs a kind and a directory");
    } else if (a == "--tasks") {
      if (!value(&eval_options.tasks)) return Fail("--tasks needs a list");
    } else if (a == "--data") {
      if (!value(&eval_options.suite.data_dir)) return Fail("--data needs a directory");
    } else if (a == "--json") {
      if (!value(&eval_options.json_path)) return Fail("--json needs a file");
    } else if (a == "--markdown") {
      if (!value(&eval_options.markdown_path)) return Fail("--markdown needs a file");
    } else if (a == "--limit" || a == "--batch") {
      std::string v;
      long n = 0;
      if (!value(&v) || !number(v, 1, 100'000'000, &n)) return Fail(a + " needs a number >= 1");
      if (a == "--limit") eval_options.suite.limit = static_cast<size_t>(n);
      else eval_options.batch_size = static_cast<uint32_t>(std::min(n, 100'000L));
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
  if (command == "eval") {
    if (teacher_kind.empty()) return Fail("eval needs --teacher KIND DIR");
    eval_options.teacher.kind = teacher_kind;
    eval_options.teacher.path = teacher_path;
    eval_options.teacher.device = options.device.empty() ? "auto" : options.device;
    ConfigureTorch(options.threads >= 0 ? options.threads : 2, 1);
    std::string markdown;
    swe::Status s = EvaluateTeacher(eval_options, &markdown);
    if (!s.ok()) return Fail(s.ToString());
    std::fputs(markdown.c_str(), stdout);
    return 0;
  }
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
