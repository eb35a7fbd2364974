// Writing results: one JSON object per task (JSON Lines) and Markdown tables with a column per model.
#pragma once

#include <string>
#include <vector>

#include "swe/eval/suite.h"

namespace swe::eval {

// {"model": ..., "task": ..., "metric": ..., "score": ..., "n": ..., "seconds": ..., "details": {...}}
std::string ToJsonLine(const std::string& model, const TaskResult& result);

// The results of several models (results[m] for models[m], tasks in the same order or missing):
// a main table (task, metric, n, one score column per model) and a details table (per-subset scores,
// Pearson, both retrieval directions, dev accuracy) with one column per model; scores to one decimal.
std::string MarkdownTables(const std::vector<std::string>& models, const std::vector<std::vector<TaskResult>>& results,
                           bool details = true);

}  // namespace swe::eval
