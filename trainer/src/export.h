// Export (the last stage): the refined table, its words and the tokenizer settings to a .swe file,
// through core's writer (swe::WriteModel), then read back with core's reader as a check.
#pragma once

#include <string>
#include <vector>

#include "matrix_io.h"
#include "swe/model.h"
#include "swe/model_file.h"
#include "swe/status.h"

namespace swe::trainer {

struct ExportInputs {
  std::vector<std::string> words;  // one per table row
  Matrix table;
  std::vector<uint32_t> counts;    // optional: rows with count 0 (never seen by the teacher) are dropped
  TokenizerConfig tokenizer;
  Provenance provenance;
  bool normalize = true;
};

// Writes the model atomically to `path`; `bytes` (optional) receives the file size.
Status ExportModel(const ExportInputs& inputs, DType dtype, const std::string& path, size_t* bytes);

}  // namespace swe::trainer
