#include "teacher.h"

#include "bert_teacher.h"
#include "use_lite_teacher.h"

namespace swe::trainer {

Status LoadTeacher(const TeacherOptions& options, std::unique_ptr<Teacher>* out) {
  if (options.kind == "bert") return LoadBertTeacher(options, out);
  if (options.kind == "use-lite") return LoadUseLiteTeacher(options, out);
  return InvalidArgument("unknown teacher kind '" + options.kind + "' (known: bert, use-lite)");
}

}  // namespace swe::trainer
