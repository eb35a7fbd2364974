#include "teachers/teacher_files.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "data/matrix_io.h"

namespace swe::trainer {

Status ReadJsonFile(const std::string& path, nlohmann::json* out, bool array_ok) {
  std::string text;
  if (!FileExists(path)) return IoError("teacher file not found: " + path);
  SWE_RETURN_IF_ERROR(ReadTextFile(path, &text));
  *out = nlohmann::json::parse(text, nullptr, false);
  if (out->is_discarded() || !(out->is_object() || (array_ok && out->is_array()))) {
    return Corrupt(path + (array_ok ? ": not a JSON object or array" : ": not a JSON object"));
  }
  return Status::Ok();
}

Status OpenSafetensors(const std::string& dir, std::unique_ptr<formats::SafeTensors>* out) {
  std::string weights = dir + "/model.safetensors";
  if (!FileExists(weights)) {
    return IoError("teacher file not found: " + weights +
                   (FileExists(dir + "/pytorch_model.bin") ? " (pytorch_model.bin is not read: convert it to safetensors)" : ""));
  }
  return formats::SafeTensors::Open(weights, out);
}

Status ReadFiniteF32(const formats::SafeTensors& st, const std::string& file, const std::string& name,
                     const std::vector<int64_t>& shape, std::vector<float>* out) {
  Status s = st.ReadF32(name, shape, out);
  if (!s.ok()) return Status(s.code(), file + ": " + s.message());
  for (float x : *out) {
    if (!std::isfinite(x)) return Corrupt(file + ": non-finite value in " + name);
  }
  return Status::Ok();
}

}  // namespace swe::trainer
