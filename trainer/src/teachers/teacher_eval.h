// `swe-trainer eval`: scores a teacher (its pooled sentence vectors) with the same evaluation code
// that `swe eval` runs on .swe models (eval/), so teacher and student columns are comparable.
#pragma once

#include <string>

#include "swe/eval/suite.h"
#include "swe/status.h"
#include "teachers/teacher.h"

namespace swe::trainer {

struct TeacherEvalOptions {
  TeacherOptions teacher;
  std::string tasks = "all";   // as `swe eval --tasks`
  eval::SuiteOptions suite;
  uint32_t batch_size = 64;    // sentences per teacher forward pass
  std::string json_path;       // when set: one JSON object per task (JSON Lines), as `swe eval --json`
  std::string markdown_path;   // when set: the tables, as `swe eval --markdown`
  std::string name;            // the column name (default: the teacher's kind)
};

// Runs the tasks and writes the Markdown tables (main and details) to `markdown`.
Status EvaluateTeacher(const TeacherEvalOptions& options, std::string* markdown);

}  // namespace swe::trainer
