// Reading a Hugging Face / sentence-transformers model directory, shared by the teachers that read one
// (bert_teacher.cpp, t5_teacher.cpp): JSON files and safetensors weights, with errors that name the
// file and the tensor. Torch-free.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "swe/formats/safetensors.h"
#include "swe/status.h"

namespace swe::trainer {

// A JSON file (config.json, modules.json, ...): an `io` error naming a missing file, `corrupt` when it
// is not a JSON object (or, when `array_ok`, an array).
Status ReadJsonFile(const std::string& path, nlohmann::json* out, bool array_ok = false);

// Memory-maps `dir`/model.safetensors; a missing file's error says when only pytorch_model.bin is there.
Status OpenSafetensors(const std::string& dir, std::unique_ptr<formats::SafeTensors>* out);

// Tensor `name` of `file` (opened as `st`) as f32 of `shape`; errors name the file and the tensor
// (missing, another shape, a non-float dtype, a non-finite value).
Status ReadFiniteF32(const formats::SafeTensors& st, const std::string& file, const std::string& name,
                     const std::vector<int64_t>& shape, std::vector<float>* out);

}  // namespace swe::trainer
