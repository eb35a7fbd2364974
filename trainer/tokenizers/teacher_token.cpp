#include "teacher_token.h"

#include <filesystem>

#include "swe/util/file.h"

namespace swe::trainer {

Status ReadTokenizerFile(const std::string& path, std::string* text) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return IoError("teacher tokenizer not found: " + path);
  std::string error;
  if (!util::ReadFile(path, text, &error)) return IoError(error);
  return Status::Ok();
}

}  // namespace swe::trainer
