#include "teacher_eval.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <numeric>
#include <vector>

#include "matrix_io.h"
#include "progress.h"
#include "report.h"

namespace swe::trainer {
namespace {

// Encodes texts in teacher batches, shortest first (less padding), and writes rows in input order.
Status EncodeSorted(Teacher& teacher, uint32_t batch_size, const std::vector<std::string>& texts, float* out) {
  std::vector<size_t> order(texts.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return texts[a].size() < texts[b].size(); });
  const uint32_t dims = teacher.dims();
  Progress progress("teacher eval", texts.size(), "sentences");
  TeacherOutput result;
  for (size_t start = 0; start < order.size(); start += batch_size) {
    const size_t end = std::min(order.size(), start + batch_size);
    std::vector<std::string> batch;
    for (size_t i = start; i < end; ++i) batch.push_back(texts[order[i]]);
    SWE_RETURN_IF_ERROR(teacher.Encode(batch, nullptr, &result));
    if (result.dims != dims || result.sentence_vectors.size() != batch.size() * size_t{dims}) {
      return Internal("the teacher returned vectors of the wrong shape");
    }
    for (size_t i = start; i < end; ++i) {
      std::copy_n(result.sentence_vectors.begin() + (i - start) * dims, dims, out + order[i] * size_t{dims});
    }
    progress.Update(end);
  }
  return Status::Ok();
}

}  // namespace

Status EvaluateTeacher(const TeacherEvalOptions& options, std::string* markdown) {
  if (options.batch_size == 0) return InvalidArgument("the batch size must be at least 1");
  std::vector<std::string> tasks;
  SWE_RETURN_IF_ERROR(eval::ExpandTasks(options.tasks, &tasks));
  std::unique_ptr<Teacher> teacher;
  SWE_RETURN_IF_ERROR(LoadTeacher(options.teacher, &teacher));
  eval::Embedder embedder;
  embedder.name = options.name.empty() ? options.teacher.kind : options.name;
  embedder.dims = teacher->dims();
  embedder.embed = [&](const std::vector<std::string>& texts, float* out) {
    return EncodeSorted(*teacher, options.batch_size, texts, out);
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
