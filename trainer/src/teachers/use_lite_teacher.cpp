#include "teachers/use_lite_teacher.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "data/matrix_io.h"
#include "swe/formats/tfjs_model.h"

namespace swe::trainer {
namespace {
using formats::TfjsGraphModel;
using formats::TfjsNode;
using formats::TfjsTensor;

const std::string kEnc = "module_apply_default/Encoder_en/KonaTransformer/Encode/";
const std::string kStack = kEnc + "TransformerStack/";
const std::string kVars = "module/Encoder_en/KonaTransformer/Encode/";

struct Layer {
  int64_t in = 0, heads = 0;
  double scale = 0;
  torch::Tensor ln1_g, ln1_b, w_qkv, b_qkv, w_out, b_out, w_res, b_res, ln2_g, ln2_b, w1, b1, w2, b2;
};

// The graph must be the USE-lite one this file implements: the ops that carry computation, in
// these numbers, and the nodes whose wiring the port relies on.
Status CheckGraph(const TfjsGraphModel& g) {
  std::map<std::string, int> ops;
  for (const TfjsNode& n : g.nodes()) ++ops[n.op];
  const std::map<std::string, int> expected = {{"Placeholder", 2}, {"Conv2D", 4}, {"BatchMatMul", 4}, {"Softmax", 2},
                                               {"Relu", 2},        {"Tanh", 1},   {"Sin", 1},         {"Cos", 1},
                                               {"MatMul", 6},      {"Rsqrt", 5},  {"SparseToDense", 1}};
  for (const auto& [op, count] : expected) {
    if (ops[op] != count) {
      return Unsupported("not the Universal Sentence Encoder Lite graph: " + std::to_string(ops[op]) + " " + op +
                         " nodes, expected " + std::to_string(count));
    }
  }
  auto wired = [&](const std::string& node, const std::string& op, const std::vector<std::string>& inputs) -> Status {
    const TfjsNode* n = g.FindNode(node);
    if (!n || n->op != op || n->inputs != inputs) {
      return Unsupported("not the Universal Sentence Encoder Lite graph: node " + node + " differs");
    }
    return Status::Ok();
  };
  const std::string k = "module_apply_default/Encoder_en/KonaTransformer/";
  if (!g.FindNode("indices") || !g.FindNode("values")) return Unsupported("the graph has no 'indices'/'values' inputs");
  // x0 = scatter(E[id]) + scatter(E[id] + timing): the embeddings count twice.
  SWE_RETURN_IF_ERROR(wired(kStack + "Layer_0/add", "Add",
                            {kEnc + "Scatter/ScatterNd", kStack + "Layer_0/AddTimingSignal/Scatter/ScatterNd"}));
  SWE_RETURN_IF_ERROR(wired(kStack + "Layer_0/TransformerLayer/layer_postprocess/add", "Add",
                            {kStack + "Layer_0/TransformerLayer/MultiheadAttention/Squeeze_1",
                             kStack + "Layer_0/TransformerLayer/AdjustResidualInput/Scatter/ScatterNd"}));
  SWE_RETURN_IF_ERROR(wired(kStack + "Layer_1/TransformerLayer/layer_postprocess/add", "Add",
                            {kStack + "Layer_1/TransformerLayer/MultiheadAttention/Squeeze_1",
                             kStack + "Layer_0/TransformerLayer/FFN/layer_postprocess/add"}));
  SWE_RETURN_IF_ERROR(wired(k + "mul", "Mul", {kStack + "Layer_1/TransformerLayer/FFN/layer_postprocess/add", k + "ExpandDims"}));
  return wired("module_apply_default/Encoder_en/hidden_layers/tanh_layer_0/MatMul", "MatMul",
               {k + "div", "module/Encoder_en/hidden_layers/tanh_layer_0/weights"});
}

class Weights {
 public:
  Weights(const TfjsGraphModel& g, torch::Device device) : g_(g), device_(device) {}
  Status Get(const std::string& name, std::vector<int64_t> shape, torch::Tensor* out, std::vector<int64_t> view = {}) {
    const std::vector<float>* v = nullptr;
    SWE_RETURN_IF_ERROR(g_.GetF32(name, shape, &v));
    if (view.empty()) view = shape;
    *out = torch::from_blob(const_cast<float*>(v->data()), view, torch::kFloat32).clone().to(device_);
    return Status::Ok();
  }
  Status Scalar(const std::string& name, double* out) { return g_.GetScalar(name, out); }

 private:
  const TfjsGraphModel& g_;
  torch::Device device_;
};

}  // namespace

struct UseLiteModel::Impl {
  UseLiteTokenizer tokenizer;
  torch::Device device = torch::kCPU;
  int64_t model_dims = 512, emb_dims = 256, vocab = 0;
  uint32_t graph_max_tokens = 128, max_tokens = 128;
  double eps = 1e-6, pad_bias = -1e9, l2_eps = 1e-12;
  torch::Tensor emb, inv_timescales, w_head, b_head;
  Layer layers[2];

  Status LoadLayer(Weights& w, int l, int64_t in);
  torch::Tensor Attention(const Layer& l, const torch::Tensor& x, const torch::Tensor& bias, int64_t B, int64_t L) const;
  torch::Tensor Forward(const torch::Tensor& ids, const torch::Tensor& mask, torch::Tensor* pooled) const;
};

Status UseLiteModel::Impl::LoadLayer(Weights& w, int li, int64_t in) {
  Layer& l = layers[li];
  const std::string p = "Layer_" + std::to_string(li) + "/TransformerLayer/";
  const std::string mha = p + "MultiheadAttention/", ffn = p + "FFN/";
  const std::string ln = "layer_prepostprocess/layer_norm/layer_norm_";
  const int64_t H = model_dims;
  l.in = in;
  SWE_RETURN_IF_ERROR(w.Get(kEnc + p + ln + "scale/ConcatPartitions/concat", {in}, &l.ln1_g));
  SWE_RETURN_IF_ERROR(w.Get(kEnc + p + ln + "bias/ConcatPartitions/concat", {in}, &l.ln1_b));
  SWE_RETURN_IF_ERROR(w.Get(kVars + mha + "qkv_transform_single/kernel/part_0", {1, 1, in, 3 * in}, &l.w_qkv, {in, 3 * in}));
  SWE_RETURN_IF_ERROR(w.Get(kEnc + mha + "qkv_transform_single/bias/ConcatPartitions/concat", {3 * in}, &l.b_qkv));
  SWE_RETURN_IF_ERROR(w.Get(kVars + mha + "output_transform_single/kernel/part_0", {1, 1, in, H}, &l.w_out, {in, H}));
  SWE_RETURN_IF_ERROR(w.Get(kEnc + mha + "output_transform_single/bias/ConcatPartitions/concat", {H}, &l.b_out));
  SWE_RETURN_IF_ERROR(w.Get(kEnc + ffn + ln + "scale/ConcatPartitions/concat", {H}, &l.ln2_g));
  SWE_RETURN_IF_ERROR(w.Get(kEnc + ffn + ln + "bias/ConcatPartitions/concat", {H}, &l.ln2_b));
  SWE_RETURN_IF_ERROR(w.Get(kStack + ffn + "conv1/Tensordot/Reshape_1", {H, 3 * H}, &l.w1));
  SWE_RETURN_IF_ERROR(w.Get(kEnc + ffn + "conv1/bias/ConcatPartitions/concat", {3 * H}, &l.b1));
  SWE_RETURN_IF_ERROR(w.Get(kStack + ffn + "conv2/Tensordot/Reshape_1", {3 * H, H}, &l.w2));
  SWE_RETURN_IF_ERROR(w.Get(kEnc + ffn + "conv2/bias/ConcatPartitions/concat", {H}, &l.b2));
  if (in != H) {  // the residual is projected to the model width
    SWE_RETURN_IF_ERROR(w.Get(kEnc + p + "dense/kernel/ConcatPartitions/concat", {in, H}, &l.w_res));
    SWE_RETURN_IF_ERROR(w.Get(kEnc + p + "dense/bias/ConcatPartitions/concat", {H}, &l.b_res));
  }
  double head_dims = 0;
  SWE_RETURN_IF_ERROR(w.Scalar(kStack + mha + "split_heads/split_last_dimension/Reshape/shape/3", &head_dims));
  SWE_RETURN_IF_ERROR(w.Scalar(kStack + mha + "mul/y", &l.scale));
  if (head_dims <= 0 || std::fmod(static_cast<double>(in), head_dims) != 0) return Corrupt("bad attention head size");
  l.heads = in / static_cast<int64_t>(head_dims);
  if (std::fabs(l.scale - 1.0 / std::sqrt(head_dims)) > 1e-6) return Unsupported("unexpected attention scale");
  return Status::Ok();
}

torch::Tensor UseLiteModel::Impl::Attention(const Layer& l, const torch::Tensor& x, const torch::Tensor& bias,
                                            int64_t B, int64_t L) const {
  const int64_t d = l.in, dh = d / l.heads;
  torch::Tensor qkv = torch::addmm(l.b_qkv, x, l.w_qkv);  // [B*L, 3d]
  auto heads = [&](int64_t i) { return qkv.narrow(1, i * d, d).view({B, L, l.heads, dh}).transpose(1, 2); };
  torch::Tensor q = heads(0) * l.scale, k = heads(1), v = heads(2);
  torch::Tensor probs = torch::softmax(torch::matmul(q, k.transpose(-1, -2)) + bias, -1);
  torch::Tensor ctx = torch::matmul(probs, v).transpose(1, 2).reshape({B * L, d});
  return torch::addmm(l.b_out, ctx, l.w_out);
}

torch::Tensor UseLiteModel::Impl::Forward(const torch::Tensor& ids, const torch::Tensor& mask, torch::Tensor* pooled) const {
  const int64_t B = ids.size(0), L = ids.size(1), H = model_dims;
  torch::Tensor pos = torch::arange(L, torch::TensorOptions().dtype(torch::kFloat32).device(device)).unsqueeze(1);
  torch::Tensor angles = pos * inv_timescales;  // [L, 128]
  torch::Tensor timing = torch::cat({torch::sin(angles), torch::cos(angles)}, 1);
  torch::Tensor m = mask.view({B * L, 1});
  torch::Tensor x = (emb.index_select(0, ids.reshape({-1})).view({B, L, emb_dims}) * 2 + timing).view({B * L, emb_dims}) * m;
  torch::Tensor bias = ((1 - mask) * pad_bias).view({B, 1, 1, L});
  torch::Tensor real = mask.reshape({-1}).nonzero().squeeze(1);  // flat positions of the real pieces
  const bool packed = real.size(0) < B * L;
  torch::Tensor h = x;
  for (const Layer& l : layers) {
    torch::Tensor a = torch::layer_norm(h, {l.in}, l.ln1_g, l.ln1_b, eps);
    // Layer 0's residual is projected to the model width (on real pieces only, zero elsewhere).
    torch::Tensor residual = l.w_res.defined() ? torch::addmm(l.b_res, h, l.w_res) * m : h;
    h = Attention(l, a, bias, B, L) + residual;
    // The graph runs the FFN on the real pieces only (gathered, then scattered back): so does this.
    torch::Tensor f = torch::layer_norm(packed ? h.index_select(0, real) : h, {H}, l.ln2_g, l.ln2_b, eps);
    f = torch::addmm(l.b2, torch::relu(torch::addmm(l.b1, f, l.w1)), l.w2);
    h = packed ? h.index_add(0, real, f) : h + f;
  }
  torch::Tensor lengths = mask.sum(1, true);
  torch::Tensor mean = (h.view({B, L, H}) * mask.unsqueeze(-1)).sum(1) / lengths.clamp_min(1);
  torch::Tensor out = torch::tanh(torch::addmm(b_head, mean, w_head));
  *pooled = out * torch::rsqrt(out.square().sum(1, true).clamp_min(l2_eps));
  return h.view({B, L, H});
}

UseLiteModel::UseLiteModel() : impl_(std::make_unique<Impl>()) {}
UseLiteModel::~UseLiteModel() = default;

Status ResolveUseLiteDir(const std::string& path, std::string* dir) {
  std::string p = path.empty() ? "." : path;
  if (FileExists(p + "/model.json")) {
    *dir = p;
  } else if (FileExists(p + "/dist/model.json")) {
    *dir = p + "/dist";
  } else {
    return IoError("no USE-lite model.json in " + p + " or " + p + "/dist (fetch it: bash scripts/fetch-use-lite.sh)");
  }
  if (!FileExists(*dir + "/vocab.json")) return IoError("teacher file not found: " + *dir + "/vocab.json");
  return Status::Ok();
}

Status UseLiteModel::Load(const std::string& path, const std::string& device, std::unique_ptr<UseLiteModel>* out) {
  std::string dir;
  SWE_RETURN_IF_ERROR(ResolveUseLiteDir(path, &dir));
  std::unique_ptr<UseLiteModel> m(new UseLiteModel());
  Impl& s = *m->impl_;
  try {
    s.device = torch::Device(device);
    SWE_RETURN_IF_ERROR(UseLiteTokenizer::Load(dir + "/vocab.json", &s.tokenizer));
    TfjsGraphModel g;
    SWE_RETURN_IF_ERROR(TfjsGraphModel::Load(dir + "/model.json", &g));
    Status st = CheckGraph(g);
    if (!st.ok()) return Status(st.code(), dir + "/model.json: " + st.message());
    Weights w(g, s.device);
    const TfjsTensor* e = g.Find("module/Embeddings_en");
    if (!e || e->shape.size() != 2) return Corrupt(dir + "/model.json: no 2-d embedding table");
    s.vocab = e->shape[0];
    s.emb_dims = e->shape[1];
    if (static_cast<int64_t>(s.tokenizer.pieces().size()) > s.vocab) {
      return Corrupt(dir + ": vocab.json has more pieces than the embedding table has rows");
    }
    if (s.emb_dims % 2 != 0) return Corrupt(dir + "/model.json: odd embedding width");
    SWE_RETURN_IF_ERROR(w.Get("module/Embeddings_en", {s.vocab, s.emb_dims}, &s.emb));
    SWE_RETURN_IF_ERROR(w.Get(kStack + "Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1", {1, s.emb_dims / 2},
                              &s.inv_timescales));
    SWE_RETURN_IF_ERROR(w.Get("module/Encoder_en/hidden_layers/tanh_layer_0/weights", {s.model_dims, s.model_dims},
                              &s.w_head));
    SWE_RETURN_IF_ERROR(w.Get("module/Encoder_en/hidden_layers/tanh_layer_0/bias", {s.model_dims}, &s.b_head));
    SWE_RETURN_IF_ERROR(s.LoadLayer(w, 0, s.emb_dims));
    SWE_RETURN_IF_ERROR(s.LoadLayer(w, 1, s.model_dims));
    double max_len = 0;
    SWE_RETURN_IF_ERROR(w.Scalar(kStack + "Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x", &s.eps));
    SWE_RETURN_IF_ERROR(w.Scalar(
        kStack + "Layer_1/TransformerLayer/MultiheadAttention/DotProductAttention/attention_bias_ignore_padding/mul/y",
        &s.pad_bias));
    SWE_RETURN_IF_ERROR(w.Scalar("module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y", &s.l2_eps));
    SWE_RETURN_IF_ERROR(w.Scalar("module_apply_default/Encoder_en/KonaTransformer/ClipToMaxLength/Less/y", &max_len));
    if (max_len < 1 || max_len > 65536) return Corrupt(dir + "/model.json: bad maximum length");
    s.graph_max_tokens = s.max_tokens = static_cast<uint32_t>(max_len);
  } catch (const std::exception& e) {
    return Corrupt("cannot load USE-lite from " + dir + ": " + e.what());
  }
  *out = std::move(m);
  return Status::Ok();
}

const UseLiteTokenizer& UseLiteModel::tokenizer() const { return impl_->tokenizer; }
uint32_t UseLiteModel::dims() const { return static_cast<uint32_t>(impl_->model_dims); }
uint32_t UseLiteModel::max_tokens() const { return impl_->max_tokens; }
void UseLiteModel::set_max_tokens(uint32_t n) {
  impl_->max_tokens = n == 0 ? impl_->graph_max_tokens : std::min(n, impl_->graph_max_tokens);
}

Status UseLiteModel::Run(const std::vector<std::string>& sentences, bool token_vectors, UseLiteBatch* out) const {
  const Impl& s = *impl_;
  const int64_t B = static_cast<int64_t>(sentences.size()), H = s.model_dims;
  out->dims = static_cast<uint32_t>(H);
  out->tokens.assign(B, {});
  out->token_vectors.clear();
  out->pooled.clear();
  if (B == 0) return Status::Ok();
  int64_t L = 1, total = 0;
  for (int64_t b = 0; b < B; ++b) {
    s.tokenizer.Tokenize(sentences[b], &out->tokens[b]);
    if (out->tokens[b].size() > s.max_tokens) out->tokens[b].resize(s.max_tokens);
    L = std::max<int64_t>(L, static_cast<int64_t>(out->tokens[b].size()));
    total += static_cast<int64_t>(out->tokens[b].size());
  }
  std::vector<int64_t> ids(B * L, 0), rows;
  std::vector<float> mask(B * L, 0.0f);
  for (int64_t b = 0; b < B; ++b) {
    for (size_t i = 0; i < out->tokens[b].size(); ++i) {
      ids[b * L + i] = out->tokens[b][i].id;
      mask[b * L + i] = 1.0f;
      rows.push_back(b * L + static_cast<int64_t>(i));
    }
  }
  try {
    torch::InferenceMode guard;
    torch::Tensor tid = torch::from_blob(ids.data(), {B, L}, torch::kInt64).to(s.device);
    torch::Tensor tmask = torch::from_blob(mask.data(), {B, L}, torch::kFloat32).to(s.device);
    torch::Tensor pooled;
    torch::Tensor hidden = s.Forward(tid, tmask, &pooled);
    pooled = pooled.contiguous().to(torch::kCPU);
    out->pooled.assign(pooled.data_ptr<float>(), pooled.data_ptr<float>() + B * H);
    if (token_vectors && total > 0) {
      torch::Tensor r = torch::from_blob(rows.data(), {total}, torch::kInt64).to(s.device);
      torch::Tensor t = hidden.reshape({B * L, H}).index_select(0, r).contiguous().to(torch::kCPU);
      out->token_vectors.assign(t.data_ptr<float>(), t.data_ptr<float>() + total * H);
    }
  } catch (const std::exception& e) {
    return Internal(std::string("USE-lite forward pass failed: ") + e.what());
  }
  return Status::Ok();
}

namespace {

class UseLiteTeacher : public Teacher {
 public:
  UseLiteTeacher(std::unique_ptr<UseLiteModel> m, std::string path) : model_(std::move(m)), path_(std::move(path)) {}
  uint32_t dims() const override { return model_->dims(); }
  std::string name() const override { return "use-lite:" + path_; }
  SubwordVocab subword_vocab() const override { return model_->tokenizer().ToSubwordVocab(); }
  Status Encode(const std::vector<std::string>& sentences, const std::vector<std::vector<WordSpan>>* spans,
                TeacherOutput* out) override;

 private:
  std::unique_ptr<UseLiteModel> model_;
  std::string path_;
  UseLiteBatch batch_;
};

// Eq. 1's inner mean: a word's vector is the mean of the last-layer vectors of the pieces whose byte
// ranges overlap the word's (pieces that cover no byte, like a lone leading U+2581, overlap nothing).
Status UseLiteTeacher::Encode(const std::vector<std::string>& sentences, const std::vector<std::vector<WordSpan>>* spans,
                              TeacherOutput* out) {
  if (spans && spans->size() != sentences.size()) return InvalidArgument("Encode: one span list per sentence");
  SWE_RETURN_IF_ERROR(model_->Run(sentences, spans != nullptr, &batch_));
  const size_t H = batch_.dims;
  out->dims = batch_.dims;
  out->sentence_vectors = batch_.pooled;
  out->word_vectors.clear();
  out->found.clear();
  if (!spans) return Status::Ok();
  size_t first_row = 0;
  for (size_t b = 0; b < sentences.size(); ++b) {
    const std::vector<UseLiteToken>& t = batch_.tokens[b];
    for (const WordSpan& s : (*spans)[b]) {
      size_t at = out->word_vectors.size(), k = 0;
      out->word_vectors.resize(at + H, 0.0f);
      for (size_t i = 0; i < t.size(); ++i) {
        if (t[i].begin == t[i].end || t[i].begin >= s.end || t[i].end <= s.begin) continue;
        const float* row = batch_.token_vectors.data() + (first_row + i) * H;
        for (size_t d = 0; d < H; ++d) out->word_vectors[at + d] += row[d];
        ++k;
      }
      for (size_t d = 0; d < H && k > 1; ++d) out->word_vectors[at + d] /= static_cast<float>(k);
      out->found.push_back(k > 0 ? 1 : 0);
    }
    first_row += t.size();
  }
  return Status::Ok();
}

}  // namespace

Status LoadUseLiteTeacher(const TeacherOptions& options, std::unique_ptr<Teacher>* out) {
  std::string device;
  SWE_RETURN_IF_ERROR(ResolveDevice(options.device, &device));
  std::unique_ptr<UseLiteModel> m;
  SWE_RETURN_IF_ERROR(UseLiteModel::Load(options.path, device, &m));
  m->set_max_tokens(options.max_tokens);
  *out = std::make_unique<UseLiteTeacher>(std::move(m), options.path);
  return Status::Ok();
}

namespace {
Status UseLiteSubwordVocab(const TeacherOptions& options, SubwordVocab* out) {
  std::string dir;
  UseLiteTokenizer tok;
  SWE_RETURN_IF_ERROR(ResolveUseLiteDir(options.path, &dir));
  SWE_RETURN_IF_ERROR(UseLiteTokenizer::Load(dir + "/vocab.json", &tok));
  *out = tok.ToSubwordVocab();
  return Status::Ok();
}
}  // namespace

extern const TeacherKind kUseLiteTeacher = {"use-lite", LoadUseLiteTeacher, UseLiteSubwordVocab};

}  // namespace swe::trainer
