#include "teachers/bert_teacher.h"

#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "teachers/sentence_transformer.h"
#include "swe/util/strings.h"
#include "teachers/teacher_files.h"
#include "wordpiece.h"

namespace swe::trainer {
namespace {
using nlohmann::json;
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

class BertTeacher : public SentenceTransformer {
 public:
  std::string name() const override { return "bert:" + path_; }
  SubwordVocab subword_vocab() const override { return tokenizer_.ToSubwordVocab(); }
  torch::Tensor Forward(const torch::Tensor& ids, const torch::Tensor& mask) const override;

 private:
  Status ReadConfig(const json& config, const std::string& dir, EncoderShape* shape) override;
  Status LoadWeights(const SafeTensors& st) override;
  // [CLS], the text's tokens (truncated), [SEP].
  void Tokens(const std::string& sentence, std::vector<TeacherToken>* out) const override;
  int32_t pad_id() const override { return tokenizer_.pad_id(); }

  BertConfig cfg_;
  BertTokenizer tokenizer_;
  torch::Tensor word_emb_, pos_emb_, type_emb_, ln_g_, ln_b_;
  std::vector<Layer> layers_;
};

Status BertTeacher::ReadConfig(const json& config, const std::string& dir, EncoderShape* shape) {
  SWE_RETURN_IF_ERROR(ParseConfig(config, dir + "/config.json", &cfg_));
  SWE_RETURN_IF_ERROR(BertTokenizer::Load(dir + "/tokenizer.json", &tokenizer_));
  *shape = {cfg_.vocab, tokenizer_.max_id(), cfg_.hidden, static_cast<uint32_t>(std::min<int64_t>(cfg_.positions, 512)),
            /*min_tokens=*/3, /*cls_ok=*/true};
  return Status::Ok();
}

void BertTeacher::Tokens(const std::string& sentence, std::vector<TeacherToken>* out) const {
  std::vector<TeacherToken> text;
  tokenizer_.Tokenize(sentence, &text);
  if (text.size() > max_tokens_ - 2) text.resize(max_tokens_ - 2);
  out->clear();
  out->push_back({tokenizer_.cls_id(), 0, 0});
  out->insert(out->end(), text.begin(), text.end());
  out->push_back({tokenizer_.sep_id(), 0, 0});
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
    return ReadTensor(st, path_ + "/model.safetensors", full, shape, device_, out);
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

}  // namespace

Status LoadBertTeacher(const TeacherOptions& options, std::unique_ptr<Teacher>* out) {
  auto t = std::make_unique<BertTeacher>();
  SWE_RETURN_IF_ERROR(t->Load(options));
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
