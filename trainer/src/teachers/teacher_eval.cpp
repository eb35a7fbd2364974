#include "teachers/teacher_eval.h"

#include <cstdio>
#include <memory>
#include <vector>

#include "data/matrix_io.h"
#include "swe/eval/report.h"

namespace swe::trainer {

Status EvaluateTeacher(const TeacherEvalOptions& options, std::string* markdown) {
  std::vector<std::string> tasks;
  SWE_RETURN_IF_ERROR(eval::ExpandTasks(options.tasks, &tasks));
  std::unique_ptr<Teacher> teacher;
  SWE_RETURN_IF_ERROR(LoadTeacher(options.teacher, &teacher));
  eval::Embedder embedder;
  embedder.name = options.name.empty() ? options.teacher.kind : options.name;
  embedder.dims = teacher->dims();
  embedder.embed = [&](const std::vector<std::string>& texts, float* out) {
    return EncodeSentences(*teacher, texts, options.batch_size, "teacher eval", out);
  };
  std::vector<eval::TaskResult> results;
  std::string json;
  for (const std::string& task : tasks) {
    eval::TaskResult result;
    Status s = eval::RunTask(task, embedder, options.suite, &result);
    if (!s.ok()) return Status(s.code(), task + ": " + s.message());
    std::fprintf(stderr, "%s: %s %s %.1f (%.1f s)\n", embedder.name.c_str(), task.c_str(), result.metric.c_str(),
                 result.score, result.seconds);
    json += eval::ToJsonLine(embedder.name, result) + "\n";
    results.push_back(std::move(result));
  }
  *markdown = eval::MarkdownTables({embedder.name}, {results});
  if (!options.json_path.empty()) SWE_RETURN_IF_ERROR(WriteTextFile(options.json_path, json));
  if (!options.markdown_path.empty()) SWE_RETURN_IF_ERROR(WriteTextFile(options.markdown_path, *markdown));
  return Status::Ok();
}

}  // namespace swe::trainer
