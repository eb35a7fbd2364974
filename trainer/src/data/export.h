// Export (the last stage): the refined table, its words and the tokenizer settings to a .swe file,
// through core's writer (swe::WriteModel), then read back with core's reader as a check.
#pragma once

#include <string>
#include <vector>

#include "data/matrix_io.h"
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
  int zstd_level = 0;              // 0: raw, read in place (the shipped models' seal); else zstd at this level
};

// Writes the model atomically to `path`; `bytes` (optional) receives the file size.
Status ExportModel(const ExportInputs& inputs, DType dtype, const std::string& path, size_t* bytes);

// The teacher's subword vocabulary as JSON (subword.json in the work directory, written by extract),
// so that export needs no teacher files: a run can be finished where the teacher is not.
Status WriteSubwordVocab(const std::string& path, const SubwordVocab& vocab);
Status ReadSubwordVocab(const std::string& path, SubwordVocab* vocab);

}  // namespace swe::trainer
