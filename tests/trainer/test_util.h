// Helpers for the trainer suites: temporary directories, zstd files, safetensors writing and a tiny
// random BERT Sentence Transformer written to disk (config.json, model.safetensors, tokenizer.json,
// sentence-transformers modules), so tests need no downloaded weights.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "refine/refine.h"
#include "swe/model.h"
#include "swe/status.h"
#include "test_files.h"

namespace swe::trainer::testing {

// Shared with the other libraries' suites (tests/test_files.h).
using swe::test::ReadFile;
using swe::test::SafetensorsBytes;
using swe::test::TempDir;
using swe::test::TensorSpec;
using swe::test::WriteFile;

// The golden vectors that trainer/tools/*_golden.py write: float32s, little-endian, one array after
// another. Take(n) hands out the next n (a test failure, and zeros, past the end).
class GoldenFloats {
 public:
  explicit GoldenFloats(const std::string& path);
  std::vector<float> Take(size_t n);
  const std::vector<float>& all() const { return all_; }
  size_t left() const { return all_.size() - at_; }

 private:
  std::vector<float> all_;
  size_t at_ = 0;
};
// The .swe model at `path`, read with core's reader.
Status ReadModelFile(const std::string& path, std::unique_ptr<Model>* out);
// A model over TinyWords with a random (seeded, normal) table of `dims`, written to `path` in `dtype`;
// its contents returned (a student to start from, a base to adapt).
ModelContents WriteTinyModel(const std::string& path, uint32_t dims, uint32_t seed, DType dtype = DType::kF32);
// zstd-compresses `text` into one frame (two frames when `frames` = 2, split in the middle).
std::string Zstd(const std::string& text, int frames = 1);

struct TinyBertOptions {
  int hidden = 16, layers = 2, heads = 2, intermediate = 32, positions = 64;
  std::string dtype = "F32";
  bool cls_pooling = false, normalize = true, bert_prefix = false, lowercase = true;
  uint32_t seed = 7;
  std::vector<std::string> words;  // extra whole-word pieces; default: a small English list
};
// Writes the model directory; returns the tokenizer vocabulary (by id).
std::vector<std::string> WriteTinyBert(const std::string& dir, const TinyBertOptions& options);

// A KD problem a student can solve: `n` sentences of 3 random rows of `rows`, whose teacher vector is
// the mean of those rows of a hidden random table (rows x d); `initial` gets another random table.
RefineData SyntheticKdProblem(uint32_t rows, uint32_t d, uint32_t n, std::mt19937& rng, Matrix* initial);

// Cosine similarity in double precision; two zero vectors count as identical (1).
double Cosine(const float* a, const float* b, size_t n);

// The small English word list the tiny tokenizer knows (and a corpus can be generated from).
const std::vector<std::string>& TinyWords();
// `sentences` lines of 4 to 10 random TinyWords (the first capitalised) ending in '.'.
std::string TinyCorpus(int sentences, uint32_t seed);

}  // namespace swe::trainer::testing
