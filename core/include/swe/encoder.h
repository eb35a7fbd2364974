// Sentence vectors: the (optionally weighted) mean of the text's word vectors, L2-normalised when the
// model says so. Text with no known word gives the zero vector, never NaN.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "swe/model.h"
#include "swe/tokenizer.h"

namespace swe {

// How a sentence vector is scaled: as the model says (Model::normalize()), to unit length, or not at
// all (the weighted mean of its word vectors).
enum class Normalization : uint8_t { kModel, kUnit, kMean };

struct EncodeOptions {
  uint32_t dims = 0;  // keep only the first `dims` dimensions (0 = all); normalised after truncation
  Normalization normalization = Normalization::kModel;
  uint32_t max_tokens = 0;  // words considered per text; 0: the model's limit (Tokenizer)
};

// Not thread-safe (scratch buffers); cheap to construct: one per thread. The model must outlive it.
class Encoder {
 public:
  explicit Encoder(const Model& model, const EncodeOptions& options = EncodeOptions());

  uint32_t dims() const { return dims_; }
  bool normalize() const { return normalize_; }
  uint32_t max_tokens() const { return max_tokens_; }
  // Writes dims() floats to `out`; returns how many words contributed.
  uint32_t Encode(std::string_view text, float* out);
  // Writes n * dims() floats, row-major: the same as Encode on each text, faster for short texts.
  // `n_words` (may be null; else n counts) receives what Encode would return for each text.
  void EncodeBatch(const std::string_view* texts, size_t n, float* out, uint32_t* n_words = nullptr);

 private:
  // The sentence vector of rows ids[0..count) into out; returns how many words contributed.
  uint32_t Sum(const uint32_t* ids, size_t count, float* out) const;

  const Model& model_;
  Tokenizer tokenizer_;
  uint32_t dims_;
  bool normalize_;  // to unit length; else the mean
  uint32_t max_tokens_;
  std::vector<uint32_t> ids_;
  std::vector<size_t> offsets_;  // EncodeBatch: where each text's ids start in ids_ (Tokenizer::EncodeBatch)
};

// Cosine similarity of two vectors (0 when either is zero). Same kernels as the index.
float Cosine(const float* a, const float* b, uint32_t n);
// Scales x to unit L2 norm in place; leaves a zero vector as is.
void NormalizeL2(float* x, uint32_t n);

}  // namespace swe
