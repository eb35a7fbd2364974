#include "teachers/t5_teacher.h"

#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "teachers/sentence_transformer.h"
#include "teachers/teacher_files.h"
#include "unigram_tokenizer.h"

namespace swe::trainer {
namespace {
using nlohmann::json;
using formats::SafeTensors;

struct T5Config {
  int64_t vocab = 0, d_model = 0, d_kv = 0, d_ff = 0, layers = 0, heads = 0, buckets = 32, max_distance = 128;
  double eps = 1e-6;
  std::string act = "relu";  // of the feed-forward: relu | gelu | gelu_new | gelu_pytorch_tanh | silu
  bool gated = false;
};

struct Layer {
  torch::Tensor q, k, v, o, ln0, wi, wi1, wo, ln1;  // wi = wi_0 when gated
};

Status ParseConfig(const json& j, const std::string& path, T5Config* c) {
  std::string type = j.value("model_type", "");
  if (type != "t5" && type != "mt5") return Unsupported(path + ": model_type '" + type + "' (the t5 teacher reads t5 and mt5)");
  auto need = [&](const char* key, int64_t* v, bool required) -> Status {
    auto it = j.find(key);
    if (it == j.end() && !required) return Status::Ok();
    if (it == j.end() || !it->is_number_unsigned() || it->get<int64_t>() <= 0) {
      return Corrupt(path + ": needs a positive integer '" + key + "'");
    }
    *v = it->get<int64_t>();
    return Status::Ok();
  };
  SWE_RETURN_IF_ERROR(need("vocab_size", &c->vocab, true));
  SWE_RETURN_IF_ERROR(need("d_model", &c->d_model, true));
  SWE_RETURN_IF_ERROR(need("d_kv", &c->d_kv, true));
  SWE_RETURN_IF_ERROR(need("d_ff", &c->d_ff, true));
  SWE_RETURN_IF_ERROR(need("num_layers", &c->layers, true));
  SWE_RETURN_IF_ERROR(need("num_heads", &c->heads, true));
  SWE_RETURN_IF_ERROR(need("relative_attention_num_buckets", &c->buckets, false));
  SWE_RETURN_IF_ERROR(need("relative_attention_max_distance", &c->max_distance, false));
  if (c->buckets < 4) return Corrupt(path + ": relative_attention_num_buckets must be at least 4");
  if (j.contains("layer_norm_epsilon")) {
    if (!j["layer_norm_epsilon"].is_number() || !(j["layer_norm_epsilon"].get<double>() > 0)) {
      return Corrupt(path + ": layer_norm_epsilon must be a positive number");
    }
    c->eps = j["layer_norm_epsilon"].get<double>();
  }
  // HF's T5Config: "gated-ACT" or "ACT"; "gated-gelu" means gelu_new.
  std::string ff = j.value("feed_forward_proj", std::string("relu"));
  c->gated = ff.rfind("gated-", 0) == 0;
  c->act = c->gated ? ff.substr(6) : ff;
  if (ff == "gated-gelu") c->act = "gelu_new";
  if (c->act != "relu" && c->act != "gelu" && c->act != "gelu_new" && c->act != "gelu_pytorch_tanh" && c->act != "silu") {
    return Unsupported(path + ": feed_forward_proj '" + ff + "' (supported: relu, gelu, gelu_new, gelu_pytorch_tanh, silu, each optionally gated-)");
  }
  return Status::Ok();
}

// HF's _relative_position_bucket, bidirectional, with the same tensor operations (float32 log).
torch::Tensor RelativeBuckets(const torch::Tensor& relative, int64_t num_buckets, int64_t max_distance) {
  const int64_t half = num_buckets / 2, max_exact = half / 2;
  torch::Tensor buckets = (relative > 0).to(torch::kLong) * half;
  torch::Tensor distance = relative.abs();
  torch::Tensor large = max_exact + (torch::log(distance.to(torch::kFloat) / max_exact) /
                                     std::log(static_cast<double>(max_distance) / static_cast<double>(max_exact)) *
                                     (half - max_exact)).to(torch::kLong);
  large = torch::min(large, torch::full_like(large, half - 1));
  return buckets + torch::where(distance < max_exact, distance, large);
}

torch::Tensor RmsNorm(const torch::Tensor& x, const torch::Tensor& weight, double eps) {
  torch::Tensor variance = x.pow(2).mean(-1, true);
  return weight * (x * torch::rsqrt(variance + eps));
}

torch::Tensor Activation(const torch::Tensor& h, const std::string& act) {
  if (act == "relu") return torch::relu(h);
  if (act == "gelu") return torch::gelu(h);
  if (act == "gelu_pytorch_tanh") return torch::gelu(h, "tanh");
  if (act == "silu") return torch::silu(h);
  // gelu_new as HF's NewGELUActivation writes it.
  return 0.5 * h * (1.0 + torch::tanh(std::sqrt(2.0 / M_PI) * (h + 0.044715 * torch::pow(h, 3.0))));
}

class T5Teacher : public SentenceTransformer {
 public:
  std::string name() const override { return "t5:" + path_; }
  SubwordVocab subword_vocab() const override { return tokenizer_.ToSubwordVocab(); }
  torch::Tensor Forward(const torch::Tensor& ids, const torch::Tensor& mask) const override;

 private:
  Status ReadConfig(const json& config, const std::string& dir, EncoderShape* shape) override;
  Status LoadWeights(const SafeTensors& st) override;
  // The text's pieces (truncated) and </s>.
  void Tokens(const std::string& sentence, std::vector<TeacherToken>* out) const override {
    tokenizer_.Encode(sentence, max_tokens_, out);
  }
  int32_t pad_id() const override { return tokenizer_.pad_id(); }

  T5Config cfg_;
  UnigramTokenizer tokenizer_;
  torch::Tensor embed_, rel_bias_, final_ln_;
  std::vector<Layer> layers_;
};

Status T5Teacher::ReadConfig(const json& config, const std::string& dir, EncoderShape* shape) {
  SWE_RETURN_IF_ERROR(ParseConfig(config, dir + "/config.json", &cfg_));
  SWE_RETURN_IF_ERROR(UnigramTokenizer::Load(dir + "/tokenizer.json", &tokenizer_));
  *shape = {cfg_.vocab, tokenizer_.max_id(), cfg_.d_model, 512, /*min_tokens=*/2, /*cls_ok=*/false};
  return Status::Ok();
}

Status T5Teacher::LoadWeights(const SafeTensors& st) {
  // Any prefix ("", "encoder-only" exports, "model.", a wrapper's name) before HF's own key names.
  const std::string anchor = "encoder.final_layer_norm.weight";
  std::string prefix;
  bool found = false;
  for (const auto& [name, tensor] : st.tensors()) {
    if (name.size() >= anchor.size() && name.compare(name.size() - anchor.size(), anchor.size(), anchor) == 0) {
      prefix = name.substr(0, name.size() - anchor.size());
      found = true;
      break;
    }
  }
  if (!found) return NotFound(path_ + "/model.safetensors: no tensor '" + anchor + "' (not a T5 encoder)");
  const int64_t D = cfg_.d_model, inner = cfg_.heads * cfg_.d_kv, ff = cfg_.d_ff;
  auto get = [&](const std::string& name, std::vector<int64_t> shape, torch::Tensor* out) {
    return ReadTensor(st, path_ + "/model.safetensors", prefix + name, shape, device_, out);
  };
  SWE_RETURN_IF_ERROR(get(st.Find(prefix + "shared.weight") ? "shared.weight" : "encoder.embed_tokens.weight",
                          {cfg_.vocab, D}, &embed_));
  SWE_RETURN_IF_ERROR(get("encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
                          {cfg_.buckets, cfg_.heads}, &rel_bias_));
  SWE_RETURN_IF_ERROR(get(anchor, {D}, &final_ln_));
  layers_.resize(cfg_.layers);
  for (int64_t i = 0; i < cfg_.layers; ++i) {
    std::string p = "encoder.block." + std::to_string(i) + ".layer.";
    Layer& l = layers_[i];
    SWE_RETURN_IF_ERROR(get(p + "0.SelfAttention.q.weight", {inner, D}, &l.q));
    SWE_RETURN_IF_ERROR(get(p + "0.SelfAttention.k.weight", {inner, D}, &l.k));
    SWE_RETURN_IF_ERROR(get(p + "0.SelfAttention.v.weight", {inner, D}, &l.v));
    SWE_RETURN_IF_ERROR(get(p + "0.SelfAttention.o.weight", {D, inner}, &l.o));
    SWE_RETURN_IF_ERROR(get(p + "0.layer_norm.weight", {D}, &l.ln0));
    if (cfg_.gated) {
      SWE_RETURN_IF_ERROR(get(p + "1.DenseReluDense.wi_0.weight", {ff, D}, &l.wi));
      SWE_RETURN_IF_ERROR(get(p + "1.DenseReluDense.wi_1.weight", {ff, D}, &l.wi1));
    } else {
      SWE_RETURN_IF_ERROR(get(p + "1.DenseReluDense.wi.weight", {ff, D}, &l.wi));
    }
    SWE_RETURN_IF_ERROR(get(p + "1.DenseReluDense.wo.weight", {D, ff}, &l.wo));
    SWE_RETURN_IF_ERROR(get(p + "1.layer_norm.weight", {D}, &l.ln1));
  }
  return Status::Ok();
}

torch::Tensor T5Teacher::Forward(const torch::Tensor& ids, const torch::Tensor& mask) const {
  const int64_t B = ids.size(0), L = ids.size(1), D = cfg_.d_model, H = cfg_.heads, dk = cfg_.d_kv;
  torch::Tensor x = embed_.index_select(0, ids.reshape({-1})).view({B, L, D});
  torch::Tensor positions = torch::arange(L, torch::TensorOptions().dtype(torch::kLong).device(device_));
  torch::Tensor buckets = RelativeBuckets(positions.unsqueeze(0) - positions.unsqueeze(1), cfg_.buckets, cfg_.max_distance);
  torch::Tensor bias = rel_bias_.index_select(0, buckets.reshape({-1})).view({L, L, H}).permute({2, 0, 1}).unsqueeze(0);
  bias = bias + (1.0 - mask).view({B, 1, 1, L}) * std::numeric_limits<float>::lowest();
  for (const Layer& l : layers_) {
    torch::Tensor h = RmsNorm(x, l.ln0, cfg_.eps);
    auto heads = [&](const torch::Tensor& t) { return t.view({B, L, H, dk}).transpose(1, 2); };
    torch::Tensor q = heads(torch::linear(h, l.q)), k = heads(torch::linear(h, l.k)), v = heads(torch::linear(h, l.v));
    torch::Tensor probs = torch::softmax(torch::matmul(q, k.transpose(-1, -2)) + bias, -1);
    x = x + torch::linear(torch::matmul(probs, v).transpose(1, 2).reshape({B, L, H * dk}), l.o);
    h = RmsNorm(x, l.ln1, cfg_.eps);
    torch::Tensor f = Activation(torch::linear(h, l.wi), cfg_.act);
    if (cfg_.gated) f = f * torch::linear(h, l.wi1);
    x = x + torch::linear(f, l.wo);
  }
  return RmsNorm(x, final_ln_, cfg_.eps);
}

Status LoadT5(const TeacherOptions& options, std::unique_ptr<T5Teacher>* out) {
  auto t = std::make_unique<T5Teacher>();
  SWE_RETURN_IF_ERROR(t->Load(options));
  *out = std::move(t);
  return Status::Ok();
}

Status T5SubwordVocab(const TeacherOptions& options, SubwordVocab* out) {
  UnigramTokenizer tok;
  SWE_RETURN_IF_ERROR(UnigramTokenizer::Load(options.path + "/tokenizer.json", &tok));
  *out = tok.ToSubwordVocab();
  return Status::Ok();
}

}  // namespace

Status LoadT5Teacher(const TeacherOptions& options, std::unique_ptr<Teacher>* out) {
  std::unique_ptr<T5Teacher> t;
  SWE_RETURN_IF_ERROR(LoadT5(options, &t));
  *out = std::move(t);
  return Status::Ok();
}

std::vector<int64_t> T5RelativeBuckets(int64_t length, int64_t num_buckets, int64_t max_distance) {
  torch::Tensor positions = torch::arange(length, torch::kLong);
  torch::Tensor b = RelativeBuckets(positions.unsqueeze(0) - positions.unsqueeze(1), num_buckets, max_distance).contiguous();
  return std::vector<int64_t>(b.data_ptr<int64_t>(), b.data_ptr<int64_t>() + b.numel());
}

std::vector<float> T5RmsNorm(const std::vector<float>& x, const std::vector<float>& weight, double eps) {
  const auto d = static_cast<int64_t>(weight.size()), rows = static_cast<int64_t>(x.size()) / d;
  torch::Tensor tx = torch::from_blob(const_cast<float*>(x.data()), {rows, d}, torch::kFloat32);
  torch::Tensor tw = torch::from_blob(const_cast<float*>(weight.data()), {d}, torch::kFloat32);
  torch::Tensor y = RmsNorm(tx, tw, eps).contiguous();
  return std::vector<float>(y.data_ptr<float>(), y.data_ptr<float>() + y.numel());
}

Status T5EncoderHidden(const std::string& dir, const std::vector<std::vector<int32_t>>& ids,
                       std::vector<std::vector<float>>* hidden) {
  TeacherOptions options;
  options.kind = "t5";
  options.path = dir;
  options.device = "cpu";
  std::unique_ptr<T5Teacher> t;
  SWE_RETURN_IF_ERROR(LoadT5(options, &t));
  const auto B = static_cast<int64_t>(ids.size());
  int64_t L = 1;
  for (const auto& s : ids) L = std::max<int64_t>(L, static_cast<int64_t>(s.size()));
  std::vector<int64_t> flat(B * L, 0);
  std::vector<float> mask(B * L, 0.0f);
  for (int64_t b = 0; b < B; ++b) {
    for (size_t i = 0; i < ids[b].size(); ++i) {
      flat[b * L + i] = ids[b][i];
      mask[b * L + i] = 1.0f;
    }
  }
  try {
    torch::InferenceMode guard;
    torch::Tensor h = t->Forward(torch::from_blob(flat.data(), {B, L}, torch::kInt64),
                                 torch::from_blob(mask.data(), {B, L}, torch::kFloat32)).contiguous();
    const int64_t D = h.size(2);
    hidden->assign(B, {});
    for (int64_t b = 0; b < B; ++b) {
      const float* p = h.data_ptr<float>() + b * L * D;
      (*hidden)[b].assign(p, p + static_cast<int64_t>(ids[b].size()) * D);
    }
  } catch (const std::exception& e) {
    return InvalidArgument(std::string("T5 encoder: ") + e.what());
  }
  return Status::Ok();
}

extern const TeacherKind kT5Teacher = {"t5", LoadT5Teacher, T5SubwordVocab};

}  // namespace swe::trainer
