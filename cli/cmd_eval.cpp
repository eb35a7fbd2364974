// swe eval: scores models on the evaluation sets (STS, retrieval, SentEval classification) with the
// torch-free evaluation library in eval/, and prints a Markdown table.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "swe/util/args.h"
#include "commands.h"
#include "common.h"
#include "swe/eval/report.h"
#include "swe/eval/suite.h"

namespace swe::cli {
namespace {

constexpr const char* kEvalUsage =
    "usage: swe eval MODEL [MODEL...] [options]\n"
    "\n"
    "Scores .swe models on the evaluation sets under DATA/eval and prints a Markdown table (one column per\n"
    "model). STS: Spearman x100 of cosine vs gold (SemEval years pooled over subsets, as MTEB does; each\n"
    "subset and Pearson in the details). Tatoeba deu-eng and translation retrieval (flores-*, pairs:FILE:\n"
    "the first 1,000 pairs of an \"en TAB xx\" file): nearest-neighbour accuracy x100, both directions\n"
    "averaged, a repeated sentence counted as one candidate. scifact (BEIR SciFact, 300 test queries over\n"
    "5,183 abstracts): nDCG@10 x100 of exact cosine search, documents embedded as title + \" \" + text (as\n"
    "BEIR and MTEB do); recall@100 in the details.\n"
    "Classification: accuracy x100 of L2 logistic regression on the frozen vectors (SentEval's\n"
    "protocols: 10-fold cross-validation for SUBJ/MPQA, train/dev/test for SST, train/test for TREC, the\n"
    "L2 strength chosen on dev or inner folds).\n"
    "\n"
    "tasks: stsb (dev), sts12, sts13, sts14, sts15, sick (train+trial), sts17 (en-en; es-en in details),\n"
    "       sts17-es-en (cross-lingual STS: track 4a; 4b in details), tatoeba, flores-de, flores-ja,\n"
    "       flores-zh (FLORES-200 devtest pairs under DATA/train/parallel), scifact, sst2, sst5, subj, mpqa,\n"
    "       trec, beir:DIR (any BEIR directory: corpus.jsonl, queries.jsonl, qrels/test.tsv), pairs:FILE\n"
    "       (any \"en TAB xx\" file); groups: all, sts (stsb + sts12..sts15), flores, beir (scifact)\n"
    "\n"
    "options:\n"
    "  --tasks LIST      comma-separated tasks or groups (default: all)\n"
    "  --data DIR        the folder that holds eval/ (default: $SWE_DATA, else ../shared/data)\n"
    "  --beir DIR        score the BEIR directory DIR too (as beir:DIR; alone when --tasks is not given)\n"
    "  --limit N         only the first N items of each file: a quick subset (BEIR: the first N judged\n"
    "                    queries, the first N documents and every document those queries judge)\n"
    "  --json OUT        also write one JSON object per model and task (JSON Lines)\n"
    "  --markdown OUT    also write the tables to OUT\n"
    "  --dims N          evaluate the first N dimensions only (normalised after truncation)\n"
    "  --threads N       threads for the classifiers (default: the number of cores)\n"
    "  --folds N         cross-validation folds for SUBJ/MPQA (default 10)\n"
    "  --no-details      print only the main table\n";

std::string Stem(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const size_t dot = base.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

// An Embedder over a loaded model (through the C API, like the other commands).
eval::Embedder ModelEmbedder(const swe_model* model, uint32_t dims, const std::string& name) {
  eval::Embedder e;
  e.name = name;
  e.dims = dims;
  e.embed = [model, dims](const std::vector<std::string>& texts, float* out) {
    std::vector<swe_text> batch(texts.size());
    for (size_t i = 0; i < texts.size(); ++i) batch[i] = {texts[i].data(), texts[i].size()};
    swe_encode_params params = swe_encode_default_params();
    params.dims = dims;
    if (swe_model_encode_batch(model, batch.data(), batch.size(), &params, out, texts.size() * size_t{dims}, nullptr) !=
        SWE_OK) {
      return Status(StatusCode::kInternal, swe_last_error());
    }
    return Status::Ok();
  };
  return e;
}

}  // namespace

int RunEval(const Args& args) {
  const std::string command = "swe eval";
  util::ParsedArgs parsed = util::ParseArgs(args,
                                {{"tasks", 0, true},
                                 {"data", 0, true},
                                 {"beir", 0, true},
                                 {"limit", 0, true},
                                 {"json", 0, true},
                                 {"markdown", 0, true},
                                 {"dims", 0, true},
                                 {"threads", 0, true},
                                 {"folds", 0, true},
                                 {"no-details", 0, false}},
                                command);
  if (parsed.help) {
    std::fputs(kEvalUsage, stdout);
    return 0;
  }
  if (parsed.positional.empty()) throw util::UsageError("expected at least one MODEL", command);
  std::vector<std::string> tasks;
  std::string task_list = parsed.get("tasks", parsed.has("beir") ? "" : "all");
  if (parsed.has("beir")) task_list += ",beir:" + parsed.get("beir");
  Status status = eval::ExpandTasks(task_list, &tasks);
  if (!status.ok()) throw util::UsageError(status.message(), command);
  eval::SuiteOptions options;
  const char* env_data = std::getenv("SWE_DATA");
  options.data_dir = parsed.get("data", env_data != nullptr && *env_data ? env_data : "../shared/data");
  if (parsed.has("limit")) options.limit = util::ParseCount(parsed.get("limit"), "--limit", 1, 100'000'000);
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  options.classify.threads =
      static_cast<int>(parsed.has("threads") ? util::ParseCount(parsed.get("threads"), "--threads", 1, 256) : cores);
  if (parsed.has("folds")) options.classify.folds = static_cast<int>(util::ParseCount(parsed.get("folds"), "--folds", 2, 100));

  std::vector<ModelPtr> models;
  std::vector<std::string> names;
  std::vector<uint32_t> dims;
  for (const std::string& path : parsed.positional) {
    models.push_back(LoadModel(path));
    names.push_back(Stem(path));
    dims.push_back(ResolveDims(models.back().get(), parsed.get("dims"), command));
  }
  std::unique_ptr<Output> json;
  if (parsed.has("json")) json = std::make_unique<Output>(parsed.get("json"));
  const bool verbose = isatty(STDERR_FILENO) == 1;
  std::vector<std::vector<eval::TaskResult>> results(models.size());
  for (size_t m = 0; m < models.size(); ++m) {
    const eval::Embedder embedder = ModelEmbedder(models[m].get(), dims[m], names[m]);
    for (const std::string& task : tasks) {
      if (verbose) std::fprintf(stderr, "%s: %s ...", names[m].c_str(), task.c_str());
      eval::TaskResult result;
      status = eval::RunTask(task, embedder, options, &result);
      if (!status.ok()) throw CliError(1, task + ": " + status.ToString());
      if (verbose) std::fprintf(stderr, " %s %.1f (%.1f s)\n", result.metric.c_str(), result.score, result.seconds);
      if (json) {
        const std::string line = eval::ToJsonLine(names[m], result) + "\n";
        json->Write(line.data(), line.size());
      }
      results[m].push_back(std::move(result));
    }
  }
  if (json) json->Close();
  const std::string table = eval::MarkdownTables(names, results, !parsed.has("no-details"));
  std::fputs(table.c_str(), stdout);
  if (parsed.has("markdown")) {
    Output md(parsed.get("markdown"));
    md.Write(table.data(), table.size());
    md.Close();
  }
  return 0;
}

}  // namespace swe::cli
