// The evaluation suite: runs named tasks on the sets under <data>/eval with any encoder, given as a
// callback that embeds a batch of texts, so the same code scores a .swe model (swe eval), a teacher
// (the trainer can wrap its teacher's forward pass) or anything else. Scores are x100.
//
//   swe::eval::Embedder e{"my-model", dims, [&](const std::vector<std::string>& texts, float* out) {
//     ... write texts.size() * dims floats ...; return swe::Status::Ok(); }};
//   swe::eval::TaskResult r;
//   swe::Status s = swe::eval::RunTask("stsb", e, swe::eval::SuiteOptions(), &r);
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "swe/eval/logreg.h"
#include "swe/status.h"

namespace swe::eval {

struct Embedder {
  std::string name;
  uint32_t dims = 0;
  // Writes texts.size() * dims floats to `out`, row-major. Called with batches of any size.
  std::function<Status(const std::vector<std::string>& texts, float* out)> embed;
};

struct TaskResult {
  std::string task;    // "stsb", "sts12", ..., "trec", "beir:DIR", "pairs:FILE"
  std::string metric;  // "spearman" (STS: Spearman of cosine vs gold), "accuracy" or "ndcg@10" (BEIR), x100
  double score = 0;
  size_t n = 0;        // scored pairs, retrieval pairs, BEIR queries, or classification examples
  double seconds = 0;  // wall time, embedding included
  std::vector<std::pair<std::string, double>> details;  // e.g. {"pearson", ...}, {"spearman/MSRpar", ...}
};

struct SuiteOptions {
  std::string data_dir = "../shared/data";  // the folder that holds eval/
  size_t limit = 0;                         // first N items of each file (0 = all): a quick subset
  ClassifyOptions classify;
};

// Every task, in report order.
const std::vector<std::string>& TaskNames();
// Comma-separated task names or groups ("all"; "sts" = stsb,sts12..sts15; "flores" = flores-de,
// flores-ja, flores-zh) to task names, in report order without repeats. "beir:DIR" names the test
// split of any BEIR directory (scored as scifact), "pairs:FILE" the first 1,000 pairs of any
// "en TAB xx" file (scored as flores-*: translation retrieval both ways, as tatoeba); these follow
// the named tasks in the given order. Unknown names are an invalid-argument error listing the known ones.
Status ExpandTasks(const std::string& list, std::vector<std::string>* tasks);
// Runs one task.
Status RunTask(const std::string& task, const Embedder& embedder, const SuiteOptions& options, TaskResult* out);

// Embeds `texts` in batches into a feature matrix.
Status Embed(const Embedder& embedder, const std::vector<std::string>& texts, Features* out);

}  // namespace swe::eval
