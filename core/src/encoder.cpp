// Sentence vectors: weighted sum of the known words' rows, then mean or L2 normalisation.
#include "swe/encoder.h"

#include <algorithm>
#include <cmath>

#include "simd/kernels.h"
#include "swe/model.h"

namespace swe {

Encoder::Encoder(const Model& model, const EncodeOptions& options)
    : model_(model),
      tokenizer_(model, options.max_tokens),
      dims_(options.dims == 0 || options.dims > model.dims() ? model.dims() : options.dims),
      normalize_(options.normalization == Normalization::kModel ? model.normalize()
                                                                : options.normalization == Normalization::kUnit),
      max_tokens_(options.max_tokens) {}

uint32_t Encoder::Encode(std::string_view text, float* out) {
  ids_.clear();
  ids_.reserve(16);  // a short text's ids in one allocation (encoders made for one call are common)
  tokenizer_.Encode(text, &ids_);
  model_.PrefetchRows(ids_.data(), ids_.size());  // the rows' misses overlap, not one per word
  return Sum(ids_.data(), ids_.size(), out);
}

// A chunk of texts goes through the tokenizer at once (their lookups overlap across texts), then each
// text's rows are prefetched while the text before it is summed.
void Encoder::EncodeBatch(const std::string_view* texts, size_t n, float* out, uint32_t* n_words) {
  constexpr size_t kChunk = 64;
  for (size_t start = 0; start < n; start += kChunk) {
    const size_t count = std::min(kChunk, n - start);
    tokenizer_.EncodeBatch(texts + start, count, &ids_, &offsets_);
    const auto prefetch = [this](size_t text) {
      model_.PrefetchRows(ids_.data() + offsets_[text], offsets_[text + 1] - offsets_[text]);
    };
    prefetch(0);
    for (size_t i = 0; i < count; ++i) {
      if (i + 1 < count) prefetch(i + 1);
      const uint32_t used = Sum(ids_.data() + offsets_[i], offsets_[i + 1] - offsets_[i], out + (start + i) * dims_);
      if (n_words != nullptr) n_words[start + i] = used;
    }
  }
}

// A word contributes when it is known and its weight is not zero (a zero-weight word adds +-0,
// which leaves the sum's bits unchanged). With normalisation on, the division by the weight sum
// is skipped: it does not change the direction, and the normalised sum is the normalised mean.
uint32_t Encoder::Sum(const uint32_t* ids, size_t count, float* out) const {
  std::fill(out, out + dims_, 0.0f);
  float total = 0.0f;
  uint32_t used = 0;
  if (model_.has_weights()) {
    for (size_t j = 0; j < count; ++j) {
      const float w = model_.weight(ids[j]);
      total += w;
      used += (w != 0.0f);
    }
  } else {
    total = static_cast<float>(count);
    used = static_cast<uint32_t>(count);
  }
  if (used != 0) model_.AccumulateRows(ids, count, out, dims_);
  if (used == 0 || !(total > 0.0f)) {
    std::fill(out, out + dims_, 0.0f);
    return 0;
  }
  if (normalize_) {
    NormalizeL2(out, dims_);
  } else {
    for (uint32_t i = 0; i < dims_; ++i) out[i] /= total;
  }
  return used;
}

float Cosine(const float* a, const float* b, uint32_t n) {
  const simd::Kernels& k = simd::Active();
  const float na = std::sqrt(k.dot_f32(a, a, n));
  const float nb = std::sqrt(k.dot_f32(b, b, n));
  if (na == 0.0f || nb == 0.0f) return 0.0f;
  return k.dot_f32(a, b, n) / na / nb;
}

void NormalizeL2(float* x, uint32_t n) {
  const simd::Kernels& k = simd::Active();
  float norm2 = k.dot_f32(x, x, n);
  if (!(norm2 >= 0x1p-100f && norm2 <= 0x1p100f)) {
    // Zero, tiny (the squares underflow), huge (they overflow) or not finite: rescale by a power of
    // two first (exact), so that the norm is computed accurately.
    float largest = 0.0f;
    for (uint32_t i = 0; i < n; ++i) largest = std::max(largest, std::fabs(x[i]));
    if (largest == 0.0f || !std::isfinite(largest)) return;  // zero stays zero; inf/NaN left as is
    int exponent = 0;
    std::frexp(largest, &exponent);
    for (uint32_t i = 0; i < n; ++i) x[i] = std::ldexp(x[i], -exponent);
    norm2 = k.dot_f32(x, x, n);
  }
  k.scale_f32(x, 1.0f / std::sqrt(norm2), n);
}

}  // namespace swe
