#include "teachers/sentence_transformer.h"

#include <nlohmann/json.hpp>

#include "data/matrix_io.h"
#include "teachers/teacher_files.h"

namespace swe::trainer {
namespace {
using nlohmann::json;
namespace F = torch::nn::functional;
}  // namespace

Status ReadTensor(const formats::SafeTensors& st, const std::string& file, const std::string& name,
                  const std::vector<int64_t>& shape, const torch::Device& device, torch::Tensor* out) {
  std::vector<float> v;
  SWE_RETURN_IF_ERROR(ReadFiniteF32(st, file, name, shape, &v));
  *out = torch::from_blob(v.data(), shape, torch::kFloat32).clone().to(device);
  return Status::Ok();
}

Status SentenceTransformer::Load(const TeacherOptions& options) {
  try {
    return LoadSteps(options);
  } catch (const std::exception& e) {
    return Corrupt("cannot load teacher " + options.path + ": " + e.what());
  }
}

Status SentenceTransformer::LoadSteps(const TeacherOptions& options) {
  std::string dir;
  SWE_RETURN_IF_ERROR(Open(options, &dir));
  json config;
  SWE_RETURN_IF_ERROR(ReadJsonFile(dir + "/config.json", &config));
  EncoderShape shape;
  SWE_RETURN_IF_ERROR(ReadConfig(config, dir, &shape));
  if (shape.max_token_id >= shape.vocab) {
    return Corrupt(dir + ": tokenizer.json has token ids past config.json's vocab_size");
  }
  std::unique_ptr<formats::SafeTensors> st;
  SWE_RETURN_IF_ERROR(OpenSafetensors(dir, &st));
  SWE_RETURN_IF_ERROR(LoadWeights(*st));
  out_dims_ = shape.hidden;
  SWE_RETURN_IF_ERROR(ReadMaxTokens(dir, shape.model_limit, options, shape.min_tokens));
  return LoadModules(dir, shape.cls_ok);
}

Status SentenceTransformer::Open(const TeacherOptions& options, std::string* dir) {
  path_ = options.path;
  *dir = options.path.empty() ? "." : options.path;
  if (!FileExists(*dir)) return IoError("teacher directory not found: " + *dir);
  std::string device;
  SWE_RETURN_IF_ERROR(ResolveDevice(options.device, &device));
  device_ = torch::Device(device);
  return Status::Ok();
}

Status SentenceTransformer::ReadMaxTokens(const std::string& dir, uint32_t model_limit, const TeacherOptions& options,
                                          uint32_t min_tokens) {
  max_tokens_ = model_limit;
  if (FileExists(dir + "/sentence_bert_config.json")) {
    json sb;
    SWE_RETURN_IF_ERROR(ReadJsonFile(dir + "/sentence_bert_config.json", &sb));
    if (sb.contains("max_seq_length") && sb["max_seq_length"].is_number_unsigned()) {
      max_tokens_ = std::min(max_tokens_, sb["max_seq_length"].get<uint32_t>());
    }
  }
  if (options.max_tokens > 0) max_tokens_ = std::min(max_tokens_, options.max_tokens);
  if (max_tokens_ < min_tokens) return InvalidArgument("teacher max_tokens must be at least " + std::to_string(min_tokens));
  return Status::Ok();
}

Status SentenceTransformer::LoadModules(const std::string& dir, bool cls_ok) {
  if (!FileExists(dir + "/modules.json")) {  // a plain HF directory: 1_Pooling when there is one, else the mean
    return FileExists(dir + "/1_Pooling/config.json") ? LoadPooling(dir + "/1_Pooling", cls_ok) : Status::Ok();
  }
  json modules;
  SWE_RETURN_IF_ERROR(ReadJsonFile(dir + "/modules.json", &modules, true));
  if (!modules.is_array()) return Corrupt(dir + "/modules.json: not a JSON array");
  for (const json& m : modules) {
    std::string type = m.is_object() ? m.value("type", "") : "";
    std::string sub = dir + "/" + (m.is_object() ? m.value("path", "") : "");
    std::string kind = type.substr(type.rfind('.') + 1);
    if (kind == "Transformer" || kind == "T5") continue;
    if (kind == "Normalize") {
      normalize_ = true;
    } else if (kind == "Dense") {
      if (normalize_) return Unsupported(dir + "/modules.json: a Dense module after Normalize");
      SWE_RETURN_IF_ERROR(LoadDense(sub));
    } else if (kind == "Pooling") {
      SWE_RETURN_IF_ERROR(LoadPooling(sub, cls_ok));
    } else {
      return Unsupported(dir + "/modules.json: module type '" + type + "'");
    }
  }
  return Status::Ok();
}

Status SentenceTransformer::LoadPooling(const std::string& dir, bool cls_ok) {
  json p;
  SWE_RETURN_IF_ERROR(ReadJsonFile(dir + "/config.json", &p));
  for (const char* mode : {"pooling_mode_cls_token", "pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens",
                           "pooling_mode_weightedmean_tokens", "pooling_mode_lasttoken"}) {
    if (cls_ok && std::string(mode) == "pooling_mode_cls_token") continue;
    if (p.value(mode, false)) return Unsupported(dir + "/config.json: " + mode + " is not supported");
  }
  const bool cls = p.value("pooling_mode_cls_token", false), mean = p.value("pooling_mode_mean_tokens", false);
  if (cls == mean) return Unsupported(dir + "/config.json: exactly one of mean or CLS pooling is supported");
  cls_pooling_ = cls;
  return Status::Ok();
}

Status SentenceTransformer::LoadDense(const std::string& dir) {
  json c;
  SWE_RETURN_IF_ERROR(ReadJsonFile(dir + "/config.json", &c));
  std::string act = c.value("activation_function", std::string("torch.nn.modules.linear.Identity"));
  if (act != "torch.nn.modules.linear.Identity" && act != "torch.nn.Identity") {
    // Linear layers commute with the mean; a non-linear one would have to follow the pooling.
    return Unsupported(dir + "/config.json: Dense activation_function '" + act + "' (only Identity)");
  }
  if (!c.contains("in_features") || !c["in_features"].is_number_unsigned() || !c.contains("out_features") ||
      !c["out_features"].is_number_unsigned() || c["out_features"].get<int64_t>() <= 0) {
    return Corrupt(dir + "/config.json: needs positive integers in_features and out_features");
  }
  const int64_t in = c["in_features"].get<int64_t>(), out = c["out_features"].get<int64_t>();
  if (in != out_dims_) {
    return Corrupt(dir + "/config.json: in_features " + std::to_string(in) + " but the vectors have " + std::to_string(out_dims_));
  }
  std::unique_ptr<formats::SafeTensors> st;
  SWE_RETURN_IF_ERROR(OpenSafetensors(dir, &st));
  torch::Tensor w, b;
  SWE_RETURN_IF_ERROR(ReadTensor(*st, dir + "/model.safetensors", "linear.weight", {out, in}, device_, &w));
  if (c.value("bias", true)) SWE_RETURN_IF_ERROR(ReadTensor(*st, dir + "/model.safetensors", "linear.bias", {out}, device_, &b));
  dense_.push_back({w, b});
  out_dims_ = out;
  return Status::Ok();
}

Status SentenceTransformer::Encode(const std::vector<std::string>& sentences,
                                   const std::vector<std::vector<WordSpan>>* spans, TeacherOutput* out) {
  if (spans && spans->size() != sentences.size()) return InvalidArgument("Encode: one span list per sentence");
  const int64_t B = static_cast<int64_t>(sentences.size()), H = out_dims_;
  out->dims = static_cast<uint32_t>(H);
  out->word_vectors.clear();
  out->found.clear();
  out->sentence_vectors.clear();
  if (B == 0) return Status::Ok();
  std::vector<std::vector<TeacherToken>> tokens(B);
  int64_t L = 1;
  for (int64_t b = 0; b < B; ++b) {
    Tokens(sentences[b], &tokens[b]);
    L = std::max<int64_t>(L, static_cast<int64_t>(tokens[b].size()));
  }
  std::vector<int64_t> ids(B * L, pad_id());
  std::vector<float> mask(B * L, 0.0f);
  for (int64_t b = 0; b < B; ++b) {
    const auto n = static_cast<int64_t>(tokens[b].size());
    for (int64_t i = 0; i < n; ++i) ids[b * L + i] = tokens[b][i].id;
    std::fill(mask.begin() + b * L, mask.begin() + b * L + n, 1.0f);
  }
  SpanAlignment align;  // special tokens cover no byte, so they belong to no word
  if (spans) AlignSpans(tokens, *spans, L, 0, &align);
  out->found = align.found;
  try {
    torch::InferenceMode guard;
    torch::Tensor tid = torch::from_blob(ids.data(), {B, L}, torch::kInt64).to(device_);
    torch::Tensor tmask = torch::from_blob(mask.data(), {B, L}, torch::kFloat32).to(device_);
    torch::Tensor hidden = Forward(tid, tmask);
    for (const auto& [w, b] : dense_) hidden = b.defined() ? torch::linear(hidden, w, b) : torch::linear(hidden, w);
    torch::Tensor pooled = cls_pooling_ ? hidden.select(1, 0)
                                        : (hidden * tmask.unsqueeze(-1)).sum(1) / tmask.sum(1, true).clamp_min(1e-9);
    if (normalize_) pooled = F::normalize(pooled, F::NormalizeFuncOptions().p(2).dim(1));
    pooled = pooled.contiguous().to(torch::kCPU);
    out->sentence_vectors.assign(pooled.data_ptr<float>(), pooled.data_ptr<float>() + B * H);
    if (spans) out->word_vectors = SpanMeans(hidden.reshape({B * L, H}), &align);
  } catch (const std::exception& e) {
    return Internal(std::string("teacher forward pass failed: ") + e.what());
  }
  return Status::Ok();
}

}  // namespace swe::trainer
