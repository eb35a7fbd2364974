// What the refine stage feeds the objectives (pipeline/refine_stage.cpp): the student it starts from (the PCA
// table, or an existing .swe model with `init.model`), sentences as table rows, contrastive tuples.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "data/matrix_io.h"
#include "refine/objectives.h"
#include "swe/model.h"
#include "swe/status.h"
#include "refine/vocab_extend.h"

namespace swe::trainer {

// A sentence's table rows; false when none of its words is known (the sentence is then skipped).
using RowsFn = std::function<bool(const std::string& sentence, std::vector<uint32_t>* rows)>;

// An existing model as a student: its table (f32), and its own tokenizer for the rows (the rows a
// sentence gets at inference, subword fallback included). With init.add_vocab, the extended model
// (vocab_extend.h): the base model's rows first (base_rows of them), then the added words.
struct InitModel {
  std::unique_ptr<Model> model;
  Matrix table;
  RowsFn rows;
  uint64_t base_rows = 0;
};
Status ReadInitModel(const std::string& path, std::unique_ptr<Model>* out);
Status LoadInitModel(const std::string& path, const VocabExtension& ext, const std::vector<WordCount>& added,
                     InitModel* out);

struct TupleStats {
  uint64_t read = 0, used = 0;  // used: after the caps, with a known word on every side
  uint64_t malformed = 0;       // lines skipped by skip_malformed
  uint64_t hash = 14695981039346656037ull;
};

// One data file's tuples: with file.max, a random subset of that many (shuffled by rng); `read`
// counts the file's well-formed lines, `malformed` the lines skip_malformed skipped.
Status ReadTupleFile(const TupleFile& file, size_t columns, std::mt19937_64* rng,
                     std::vector<std::vector<std::string>>* tuples, uint64_t* read, uint64_t* malformed);

// The contrastive objective's files: pairs or triples, each file capped to a seeded random subset
// of `max` lines, all mixed; a tuple with a side without a known word is skipped.
Status ReadContrastiveData(const ObjectiveSpec& spec, const RowsFn& rows, uint64_t seed, TupleData* out,
                           TupleStats* stats);

// Reads every data file of the contrastive objectives (so a bad one fails before hours of work).
Status CheckContrastiveFiles(const std::vector<ObjectiveSpec>& objectives);

// The mean of the table rows of each of the first n sentences (n x d): student sentence vectors.
Matrix SentenceMeans(const Matrix& table, const std::vector<std::vector<uint32_t>>& sentences, size_t n);

}  // namespace swe::trainer
