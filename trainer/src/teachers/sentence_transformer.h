// The half that the bert and t5 teachers share: a Sentence Transformer directory around a transformer
// encoder. It reads the directory's Sentence-Transformers modules (modules.json: Pooling mean or CLS,
// Identity Dense layers, Normalize; sentence_bert_config.json's max_seq_length), and encodes a batch:
// tokens (the subclass's, special tokens included) -> padded ids -> the subclass's Forward -> Dense ->
// pooled and normalised sentence vectors, and each word span's mean of its token vectors.
// Includes torch: include it only from SWE_TRAINER_TORCH_SRCS, never from a header or a test.
#pragma once

#include <torch/torch.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "teachers/teacher.h"
#include "teachers/teacher_files.h"

namespace swe::trainer {

class SentenceTransformer : public Teacher {
 public:
  uint32_t dims() const override { return static_cast<uint32_t>(out_dims_); }
  Status Encode(const std::vector<std::string>& sentences, const std::vector<std::vector<WordSpan>>* spans,
                TeacherOutput* out) override;
  // Last-layer vectors [B, L, hidden] of padded ids [B, L] with mask [B, L] (1 = token).
  virtual torch::Tensor Forward(const torch::Tensor& ids, const torch::Tensor& mask) const = 0;
  // Loading, every step in this order: the directory (path_, device_), config.json and tokenizer.json
  // (the subclass's ReadConfig; every token id must lie below the config's vocab_size), the safetensors
  // weights (LoadWeights), max_seq_length, then the Sentence-Transformers modules. An exception
  // (torch's) is a corrupt teacher.
  Status Load(const TeacherOptions& options);

 protected:
  // What ReadConfig tells Load about the encoder.
  struct EncoderShape {
    int64_t vocab = 0;           // config.json's vocab_size
    int64_t max_token_id = 0;    // the tokenizer's largest id
    int64_t hidden = 0;          // the last layer's width
    uint32_t model_limit = 512;  // the most tokens the encoder reads
    uint32_t min_tokens = 1;     // the special tokens of every sentence and one more
    bool cls_ok = false;         // whether CLS pooling applies
  };
  // The subclass's config.json (`config`, read from `dir`) and its tokenizer from `dir`.
  virtual Status ReadConfig(const nlohmann::json& config, const std::string& dir, EncoderShape* shape) = 0;
  virtual Status LoadWeights(const formats::SafeTensors& st) = 0;
  // The sentence as the encoder reads it: every token, special ones included (they cover no byte),
  // at most max_tokens_.
  virtual void Tokens(const std::string& sentence, std::vector<TeacherToken>* out) const = 0;
  virtual int32_t pad_id() const = 0;

  std::string path_;
  torch::Device device_ = torch::kCPU;
  uint32_t max_tokens_ = 512;

 private:
  Status LoadSteps(const TeacherOptions& options);
  // The directory exists; path_ and device_ are set.
  Status Open(const TeacherOptions& options, std::string* dir);
  // max_tokens_ = the least of `model_limit`, sentence_bert_config.json's max_seq_length and the
  // recipe's teacher.max_tokens; below `min_tokens` is an error.
  Status ReadMaxTokens(const std::string& dir, uint32_t model_limit, const TeacherOptions& options, uint32_t min_tokens);
  // modules.json (when there is one; else 1_Pooling/config.json when there is one): pooling, Dense
  // layers, Normalize. out_dims_ must hold the encoder's width first. CLS pooling only when `cls_ok`.
  Status LoadModules(const std::string& dir, bool cls_ok);
  Status LoadPooling(const std::string& dir, bool cls_ok);
  Status LoadDense(const std::string& dir);

  int64_t out_dims_ = 0;
  bool cls_pooling_ = false, normalize_ = false;
  std::vector<std::pair<torch::Tensor, torch::Tensor>> dense_;  // Identity Dense modules: weight, bias (may be undefined)
};

// A float tensor of `shape` from safetensors `file` (opened as `st`), as f32 on `device`.
Status ReadTensor(const formats::SafeTensors& st, const std::string& file, const std::string& name,
                  const std::vector<int64_t>& shape, const torch::Device& device, torch::Tensor* out);

}  // namespace swe::trainer
