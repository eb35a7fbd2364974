#include "teacher.h"

#include "bert_teacher.h"

namespace swe::trainer {

Status LoadTeacher(const TeacherOptions& options, std::unique_ptr<Teacher>* out) {
  if (options.kind == "bert") return LoadBertTeacher(options, out);
  return InvalidArgument("unknown teacher kind '" + options.kind + "' (known: bert)");
}

}  // namespace swe::trainer
