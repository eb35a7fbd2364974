// The `t5` teacher: the encoder of a T5-family model (T5 v1.0/v1.1, mT5, Sentence-T5, GTR) as a
// Sentence Transformer directory (or a plain Hugging Face T5 directory):
//   config.json       d_model, d_kv, d_ff, num_layers, num_heads, vocab_size, relative_attention_*,
//                     layer_norm_epsilon, feed_forward_proj (relu, gated-gelu = gelu_new, gated-silu,
//                     gelu, ... with or without "gated-")
//   model.safetensors f32, f16 or bf16 (computed in f32); HF's key names, any common prefix
//   tokenizer.json    SentencePiece Unigram (unigram_tokenizer.h)
//   modules.json, 1_Pooling (mean), 2_Dense (Identity activation: applied to every token vector, so
//                     that the mean of the tokens is the module's output), Normalize,
//                     sentence_bert_config.json (max_seq_length; else 512)
// The forward pass is HF's T5EncoderModel: shared embedding (unscaled); per layer RMS norm (weight
// only), self-attention without 1/sqrt(d_kv) scaling plus layer 0's bidirectional relative position
// bias (shared by all layers) and the padding mask, residual; RMS norm, feed-forward, residual; a final
// RMS norm. Sentence vector: the mean over every token (</s> included), then Dense, then Normalize.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "teachers/teacher.h"

namespace swe::trainer {

Status LoadT5Teacher(const TeacherOptions& options, std::unique_ptr<Teacher>* out);

// Building blocks, exposed for tests (implemented with libtorch, as the teacher runs them).
// HF's T5Attention._relative_position_bucket (bidirectional) of j - i for query i and key j of a
// sequence of `length`: length x length, row-major.
std::vector<int64_t> T5RelativeBuckets(int64_t length, int64_t num_buckets, int64_t max_distance);
// T5LayerNorm over rows of weight.size(): x * rsqrt(mean(x^2) + eps) * weight.
std::vector<float> T5RmsNorm(const std::vector<float>& x, const std::vector<float>& weight, double eps);
// The encoder's last-layer vectors (d_model each, before any Sentence-Transformers module) of every
// token of each id list, all lists run as one padded batch on the CPU.
Status T5EncoderHidden(const std::string& dir, const std::vector<std::vector<int32_t>>& ids,
                       std::vector<std::vector<float>>* hidden);

}  // namespace swe::trainer
