#include "teachers/teacher.h"

#include <algorithm>
#include <numeric>

#include "swe/util/progress.h"

// The teacher kinds, one line each; every kind's TeacherKind is defined in its own file.
#define SWE_TEACHER_KINDS(X) \
  X(kBertTeacher)            /* bert_teacher.cpp */ \
  X(kUseLiteTeacher)         /* use_lite_teacher.cpp */ \
  X(kT5Teacher)              /* t5_teacher.cpp */

namespace swe::trainer {

#define SWE_DECLARE_TEACHER_KIND(kind) extern const TeacherKind kind;
SWE_TEACHER_KINDS(SWE_DECLARE_TEACHER_KIND)

namespace {
#define SWE_TEACHER_KIND_ADDRESS(kind) &kind,
const TeacherKind* const kTeacherKinds[] = {SWE_TEACHER_KINDS(SWE_TEACHER_KIND_ADDRESS)};
}  // namespace

Status FindTeacherKind(const std::string& name, const TeacherKind** out) {
  std::string known;
  for (const TeacherKind* kind : kTeacherKinds) {
    if (name == kind->name) {
      *out = kind;
      return Status::Ok();
    }
    known += std::string(known.empty() ? "" : ", ") + kind->name;
  }
  return InvalidArgument("unknown teacher kind '" + name + "' (known: " + known + ")");
}

Status LoadTeacher(const TeacherOptions& options, std::unique_ptr<Teacher>* out) {
  const TeacherKind* kind = nullptr;
  SWE_RETURN_IF_ERROR(FindTeacherKind(options.kind, &kind));
  return kind->load(options, out);
}

void AlignSpans(const std::vector<std::vector<TeacherToken>>& tokens, const std::vector<std::vector<WordSpan>>& spans,
                int64_t L, int64_t first, SpanAlignment* out) {
  *out = SpanAlignment();
  for (size_t b = 0; b < tokens.size() && b < spans.size(); ++b) {
    const auto& t = tokens[b];
    for (const WordSpan& s : spans[b]) {
      size_t before = out->positions.size();
      for (size_t i = 0; i < t.size(); ++i) {
        if (t[i].begin < t[i].end && t[i].begin < s.end && t[i].end > s.begin) {
          out->positions.push_back(static_cast<int64_t>(b) * L + first + static_cast<int64_t>(i));
        }
      }
      size_t k = out->positions.size() - before;
      out->rows.insert(out->rows.end(), k, out->spans);
      out->weights.insert(out->weights.end(), k, 1.0f / static_cast<float>(std::max<size_t>(k, 1)));
      out->found.push_back(k > 0 ? 1 : 0);
      ++out->spans;
    }
  }
}

Status EncodeSentences(Teacher& teacher, const std::vector<std::string>& texts, uint32_t batch_size,
                       const std::string& label, float* out) {
  if (batch_size == 0) return InvalidArgument("the teacher's batch size must be at least 1");
  std::vector<size_t> order(texts.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return texts[a].size() < texts[b].size(); });
  const size_t dims = teacher.dims();
  util::Progress progress(label, texts.size(), "sentences");
  // The work is the text (a long sentence costs more than a short one; they come shortest first).
  double total_bytes = 0, done_bytes = 0;
  for (const std::string& t : texts) total_bytes += static_cast<double>(t.size());
  TeacherOutput result;
  std::vector<std::string> batch;
  for (size_t start = 0; start < order.size(); start += batch_size) {
    const size_t end = std::min(order.size(), start + batch_size);
    batch.clear();
    for (size_t i = start; i < end; ++i) batch.push_back(texts[order[i]]);
    SWE_RETURN_IF_ERROR(teacher.Encode(batch, nullptr, &result));
    if (result.dims != dims || result.sentence_vectors.size() != batch.size() * dims) {
      return Internal("the teacher returned sentence vectors of the wrong shape");
    }
    for (size_t i = start; i < end; ++i) {
      std::copy_n(result.sentence_vectors.begin() + (i - start) * dims, dims, out + order[i] * dims);
    }
    for (size_t i = start; i < end; ++i) done_bytes += static_cast<double>(texts[order[i]].size());
    progress.Update(end, total_bytes > 0 ? done_bytes / total_bytes : 1);
  }
  return Status::Ok();
}

}  // namespace swe::trainer
