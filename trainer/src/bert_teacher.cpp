#include "bert_teacher.h"

#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "matrix_io.h"
#include "swe/util/strings.h"
#include "teacher_files.h"
#include "wordpiece.h"

namespace swe::trainer {
namespace {
using nlohmann::json;
namespace F = torch::nn::functional;
using formats::SafeTensors;

struct BertConfig {
  int64_t vocab = 0, hidden = 0, layers = 0, heads = 0, intermediate = 0, positions = 512, types = 2;
  double eps = 1e-12;
  std::string act = "gelu";
};

struct Layer {
  torch::Tensor wq, bq, wk, bk, wv, bv, wo, bo, ln1_g, ln1_b, wi, bi, wo2, bo2, ln2_g, ln2_b;
};

Status ParseConfig(const json& j, const std::string& path, BertConfig* c) {
  std::string type = j.value("model_type", "");
  if (type != "bert") return Unsupported(path + ": model_type '" + type + "' (only bert is supported)");
  auto need = [&](const char* key, int64_t* v) -> Status {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number_unsigned() || it->get<int64_t>() <= 0) {
      return Corrupt(path + ": needs a positive integer '" + key + "'");
    }
    *v = it->get<int64_t>();
    return Status::Ok();
  };
  SWE_RETURN_IF_ERROR(need("vocab_size", &c->vocab));
  SWE_RETURN_IF_ERROR(need("hidden_size", &c->hidden));
  SWE_RETURN_IF_ERROR(need("num_hidden_layers", &c->layers));
  SWE_RETURN_IF_ERROR(need("num_attention_heads", &c->heads));
  SWE_RETURN_IF_ERROR(need("intermediate_size", &c->intermediate));
  SWE_RETURN_IF_ERROR(need("max_position_embeddings", &c->positions));
  if (j.contains("type_vocab_size")) SWE_RETURN_IF_ERROR(need("type_vocab_size", &c->types));
  if (c->hidden % c->heads != 0) return Corrupt(path + ": hidden_size is not a multiple of num_attention_heads");
  if (j.contains("layer_norm_eps") && j["layer_norm_eps"].is_number()) c->eps = j["layer_norm_eps"].get<double>();
  c->act = j.value("hidden_act", std::string("gelu"));
  if (c->act != "gelu" && c->act != "gelu_new" && c->act != "gelu_pytorch_tanh" && c->act != "relu") {
    return Unsupported(path + ": hidden_act '" + c->act + "'");
  }
  if (j.value("position_embedding_type", std::string("absolute")) != "absolute") {
    return Unsupported(path + ": only absolute position embeddings are supported");
  }
  return Status::Ok();
}

class BertTeacher : public Teacher {
 public:
  uint32_t dims() const override { return static_cast<uint32_t>(cfg_.hidden); }
  std::string name() const override { return "bert:" + path_; }
  SubwordVocab subword_vocab() const override { return tokenizer_.ToSubwordVocab(); }
  Status Encode(const std::vector<std::string>& sentences, const std::vector<std::vector<WordSpan>>* spans,
                TeacherOutput* out) override;
  Status Load(const TeacherOptions& options);

 private:
  Status LoadWeights(const SafeTensors& st);
  Status LoadPooling();
  torch::Tensor Forward(const torch::Tensor& ids, const torch::Tensor& mask) const;

  std::string path_;
  BertConfig cfg_;
  BertTokenizer tokenizer_;
  torch::Device device_ = torch::kCPU;
  uint32_t max_tokens_ = 512;
  bool cls_pooling_ = false, normalize_ = false;
  torch::Tensor word_emb_, pos_emb_, type_emb_, ln_g_, ln_b_;
  std::vector<Layer> layers_;
};

Status BertTeacher::Load(const TeacherOptions& options) {
  path_ = options.path;
  std::string dir = options.path.empty() ? "." : options.path;
  if (!FileExists(dir)) return IoError("teacher directory not found: " + dir);
  json config;
  SWE_RETURN_IF_ERROR(ReadJsonFile(dir + "/config.json", &config));
  SWE_RETURN_IF_ERROR(ParseConfig(config, dir + "/config.json", &cfg_));
  SWE_RETURN_IF_ERROR(BertTokenizer::Load(dir + "/tokenizer.json", &tokenizer_));
  if (static_cast<int64_t>(tokenizer_.max_id()) >= cfg_.vocab) {
    return Corrupt(dir + ": tokenizer.json has token ids past config.json's vocab_size");
  }
  std::string device;
  SWE_RETURN_IF_ERROR(ResolveDevice(options.device, &device));
  device_ = torch::Device(device);
  std::unique_ptr<SafeTensors> st;
  SWE_RETURN_IF_ERROR(OpenSafetensors(dir, &st));
  SWE_RETURN_IF_ERROR(LoadWeights(*st));
  max_tokens_ = static_cast<uint32_t>(std::min<int64_t>(cfg_.positions, 512));
  json sb;
  if (FileExists(dir + "/sentence_bert_config.json") && ReadJsonFile(dir + "/sentence_bert_config.json", &sb).ok() &&
      sb.contains("max_seq_length") && sb["max_seq_length"].is_number_unsigned()) {
    max_tokens_ = std::min<uint32_t>(max_tokens_, sb["max_seq_length"].get<uint32_t>());
  }
  if (options.max_tokens > 0) max_tokens_ = std::min(max_tokens_, options.max_tokens);
  if (max_tokens_ < 3) return InvalidArgument("teacher max_tokens must be at least 3");
  return LoadPooling();
}

Status BertTeacher::LoadPooling() {
  std::string dir = path_.empty() ? "." : path_;
  std::string pooling_dir = dir + "/1_Pooling";
  json modules;
  if (FileExists(dir + "/modules.json")) {
    std::string text;
    SWE_RETURN_IF_ERROR(ReadTextFile(dir + "/modules.json", &text));
    modules = json::parse(text, nullptr, false);
    if (!modules.is_array()) return Corrupt(dir + "/modules.json: not a JSON array");
    for (const json& m : modules) {
      std::string type = m.is_object() ? m.value("type", "") : "";
      if (type.find("Pooling") != std::string::npos) pooling_dir = dir + "/" + m.value("path", "1_Pooling");
      if (type.find("Normalize") != std::string::npos) normalize_ = true;
    }
  }
  if (FileExists(pooling_dir + "/config.json")) {
    json p;
    SWE_RETURN_IF_ERROR(ReadJsonFile(pooling_dir + "/config.json", &p));
    bool cls = p.value("pooling_mode_cls_token", false), mean = p.value("pooling_mode_mean_tokens", false);
    for (const char* other : {"pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens",
                              "pooling_mode_weightedmean_tokens", "pooling_mode_lasttoken"}) {
      if (p.value(other, false)) return Unsupported(pooling_dir + "/config.json: " + other + " is not supported");
    }
    if (cls == mean) return Unsupported(pooling_dir + "/config.json: exactly one of mean or CLS pooling is supported");
    cls_pooling_ = cls;
  }
  return Status::Ok();
}

Status BertTeacher::LoadWeights(const SafeTensors& st) {
  std::string prefix = st.Find("bert.embeddings.word_embeddings.weight") ? "bert." : "";
  const int64_t H = cfg_.hidden, I = cfg_.intermediate;
  auto get = [&](const std::string& name, std::vector<int64_t> shape, torch::Tensor* out) -> Status {
    std::string full = prefix + name;
    if (!st.Find(full) && name.size() > 7 && util::EndsWith(name, ".weight") &&
        name.find("LayerNorm") != std::string::npos) {
      full = prefix + name.substr(0, name.size() - 7) + ".gamma";  // TF-era names
    } else if (!st.Find(full) && name.find("LayerNorm.bias") != std::string::npos) {
      full = prefix + name.substr(0, name.size() - 5) + ".beta";
    }
    std::vector<float> v;
    SWE_RETURN_IF_ERROR(ReadFiniteF32(st, path_ + "/model.safetensors", full, shape, &v));
    *out = torch::from_blob(v.data(), shape, torch::kFloat32).clone().to(device_);
    return Status::Ok();
  };
  SWE_RETURN_IF_ERROR(get("embeddings.word_embeddings.weight", {cfg_.vocab, H}, &word_emb_));
  SWE_RETURN_IF_ERROR(get("embeddings.position_embeddings.weight", {cfg_.positions, H}, &pos_emb_));
  SWE_RETURN_IF_ERROR(get("embeddings.token_type_embeddings.weight", {cfg_.types, H}, &type_emb_));
  SWE_RETURN_IF_ERROR(get("embeddings.LayerNorm.weight", {H}, &ln_g_));
  SWE_RETURN_IF_ERROR(get("embeddings.LayerNorm.bias", {H}, &ln_b_));
  layers_.resize(cfg_.layers);
  for (int64_t i = 0; i < cfg_.layers; ++i) {
    std::string p = "encoder.layer." + std::to_string(i) + ".";
    Layer& l = layers_[i];
    SWE_RETURN_IF_ERROR(get(p + "attention.self.query.weight", {H, H}, &l.wq));
    SWE_RETURN_IF_ERROR(get(p + "attention.self.query.bias", {H}, &l.bq));
    SWE_RETURN_IF_ERROR(get(p + "attention.self.key.weight", {H, H}, &l.wk));
    SWE_RETURN_IF_ERROR(get(p + "attention.self.key.bias", {H}, &l.bk));
    SWE_RETURN_IF_ERROR(get(p + "attention.self.value.weight", {H, H}, &l.wv));
    SWE_RETURN_IF_ERROR(get(p + "attention.self.value.bias", {H}, &l.bv));
    SWE_RETURN_IF_ERROR(get(p + "attention.output.dense.weight", {H, H}, &l.wo));
    SWE_RETURN_IF_ERROR(get(p + "attention.output.dense.bias", {H}, &l.bo));
    SWE_RETURN_IF_ERROR(get(p + "attention.output.LayerNorm.weight", {H}, &l.ln1_g));
    SWE_RETURN_IF_ERROR(get(p + "attention.output.LayerNorm.bias", {H}, &l.ln1_b));
    SWE_RETURN_IF_ERROR(get(p + "intermediate.dense.weight", {I, H}, &l.wi));
    SWE_RETURN_IF_ERROR(get(p + "intermediate.dense.bias", {I}, &l.bi));
    SWE_RETURN_IF_ERROR(get(p + "output.dense.weight", {H, I}, &l.wo2));
    SWE_RETURN_IF_ERROR(get(p + "output.dense.bias", {H}, &l.bo2));
    SWE_RETURN_IF_ERROR(get(p + "output.LayerNorm.weight", {H}, &l.ln2_g));
    SWE_RETURN_IF_ERROR(get(p + "output.LayerNorm.bias", {H}, &l.ln2_b));
  }
  return Status::Ok();
}

torch::Tensor BertTeacher::Forward(const torch::Tensor& ids, const torch::Tensor& mask) const {
  const int64_t B = ids.size(0), L = ids.size(1), H = cfg_.hidden, nh = cfg_.heads, dh = H / nh;
  auto ln = [&](const torch::Tensor& x, const torch::Tensor& g, const torch::Tensor& b) {
    return torch::layer_norm(x, {H}, g, b, cfg_.eps);
  };
  torch::Tensor x = word_emb_.index_select(0, ids.reshape({-1})).view({B, L, H}) +
                    pos_emb_.narrow(0, 0, L).unsqueeze(0) + type_emb_[0];
  x = ln(x, ln_g_, ln_b_);
  torch::Tensor bias = (1.0 - mask).view({B, 1, 1, L}) * std::numeric_limits<float>::lowest();
  const double scale = 1.0 / std::sqrt(static_cast<double>(dh));
  for (const Layer& l : layers_) {
    auto heads = [&](const torch::Tensor& t) { return t.view({B, L, nh, dh}).transpose(1, 2); };
    torch::Tensor q = heads(torch::linear(x, l.wq, l.bq)), k = heads(torch::linear(x, l.wk, l.bk)),
                  v = heads(torch::linear(x, l.wv, l.bv));
    torch::Tensor probs = torch::softmax(torch::matmul(q, k.transpose(-1, -2)) * scale + bias, -1);
    torch::Tensor ctx = torch::matmul(probs, v).transpose(1, 2).reshape({B, L, H});
    x = ln(torch::linear(ctx, l.wo, l.bo) + x, l.ln1_g, l.ln1_b);
    torch::Tensor h = torch::linear(x, l.wi, l.bi);
    if (cfg_.act == "gelu") {
      h = torch::gelu(h);
    } else if (cfg_.act == "relu") {
      h = torch::relu(h);
    } else {
      h = torch::gelu(h, "tanh");
    }
    x = ln(torch::linear(h, l.wo2, l.bo2) + x, l.ln2_g, l.ln2_b);
  }
  return x;
}

Status BertTeacher::Encode(const std::vector<std::string>& sentences, const std::vector<std::vector<WordSpan>>* spans,
                           TeacherOutput* out) {
  if (spans && spans->size() != sentences.size()) return InvalidArgument("Encode: one span list per sentence");
  const int64_t B = static_cast<int64_t>(sentences.size()), H = cfg_.hidden;
  out->dims = static_cast<uint32_t>(H);
  out->word_vectors.clear();
  out->found.clear();
  out->sentence_vectors.clear();
  if (B == 0) return Status::Ok();
  std::vector<std::vector<TeacherToken>> tokens(B);
  int64_t L = 2;
  for (int64_t b = 0; b < B; ++b) {
    tokenizer_.Tokenize(sentences[b], &tokens[b]);
    if (tokens[b].size() > max_tokens_ - 2) tokens[b].resize(max_tokens_ - 2);
    L = std::max<int64_t>(L, static_cast<int64_t>(tokens[b].size()) + 2);
  }
  std::vector<int64_t> ids(B * L, tokenizer_.pad_id());
  std::vector<float> mask(B * L, 0.0f);
  for (int64_t b = 0; b < B; ++b) {
    const auto& t = tokens[b];
    int64_t n = static_cast<int64_t>(t.size());
    ids[b * L] = tokenizer_.cls_id();
    for (int64_t i = 0; i < n; ++i) ids[b * L + 1 + i] = t[i].id;
    ids[b * L + 1 + n] = tokenizer_.sep_id();
    std::fill(mask.begin() + b * L, mask.begin() + b * L + n + 2, 1.0f);
  }
  SpanAlignment align;  // the tokens sit after [CLS]
  if (spans) AlignSpans(tokens, *spans, L, 1, &align);
  out->found = align.found;
  try {
    torch::InferenceMode guard;
    torch::Tensor tid = torch::from_blob(ids.data(), {B, L}, torch::kInt64).to(device_);
    torch::Tensor tmask = torch::from_blob(mask.data(), {B, L}, torch::kFloat32).to(device_);
    torch::Tensor hidden = Forward(tid, tmask);
    torch::Tensor pooled;
    if (cls_pooling_) {
      pooled = hidden.select(1, 0);
    } else {
      pooled = (hidden * tmask.unsqueeze(-1)).sum(1) / tmask.sum(1, true).clamp_min(1e-9);
    }
    if (normalize_) pooled = F::normalize(pooled, F::NormalizeFuncOptions().p(2).dim(1));
    pooled = pooled.contiguous().to(torch::kCPU);
    out->sentence_vectors.assign(pooled.data_ptr<float>(), pooled.data_ptr<float>() + B * H);
    if (spans) out->word_vectors = SpanMeans(hidden.reshape({B * L, H}), &align);
  } catch (const std::exception& e) {
    return Internal(std::string("teacher forward pass failed: ") + e.what());
  }
  return Status::Ok();
}

}  // namespace

Status LoadBertTeacher(const TeacherOptions& options, std::unique_ptr<Teacher>* out) {
  auto t = std::make_unique<BertTeacher>();
  try {
    SWE_RETURN_IF_ERROR(t->Load(options));
  } catch (const std::exception& e) {
    return Corrupt("cannot load teacher " + options.path + ": " + e.what());
  }
  *out = std::move(t);
  return Status::Ok();
}

namespace {
Status BertSubwordVocab(const TeacherOptions& options, SubwordVocab* out) {
  BertTokenizer tok;
  SWE_RETURN_IF_ERROR(BertTokenizer::Load(options.path + "/tokenizer.json", &tok));
  *out = tok.ToSubwordVocab();
  return Status::Ok();
}
}  // namespace

extern const TeacherKind kBertTeacher = {"bert", LoadBertTeacher, BertSubwordVocab};

}  // namespace swe::trainer
