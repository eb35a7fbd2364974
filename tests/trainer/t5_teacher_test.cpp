// The t5 teacher on a tiny random T5 encoder written by the test: its libtorch forward pass against a
// plain-loop reference (relu, gated-gelu and gated-silu, f32 and bf16 weights, a key prefix), the relative
// position buckets and RMS norm against hand-computed values, the Sentence-Transformers modules
// (Dense, Normalize) and word alignment through the Teacher interface, padding, and bad model
// directories. Parity with Hugging Face itself: t5_golden_test.cpp.
#include "teachers/t5_teacher.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <set>

#include "pipeline/pipeline.h"
#include "recipe/recipe.h"
#include "swe/model_file.h"
#include "swe/util/progress.h"

#include "swe/formats/safetensors.h"
#include "t5_test_util.h"
#include "test_util.h"
#include "unigram_tokenizer.h"

namespace swe::trainer {
namespace {
using nlohmann::json;
using testing::TempDir;
using testing::TensorSpec;

constexpr int D = 12, DKV = 4, HEADS = 2, FF = 20, LAYERS = 2, BUCKETS = 8, MAX_DISTANCE = 16, DENSE = 6;

struct TinyT5 {
  std::string ff = "gated-gelu", dtype = "F32", prefix;
  bool dense = true, normalize = true;
};

// A few hand-scored pieces, then ▁word for the rest of the tiny corpus's words (testing::TinyWords).
const std::vector<std::pair<std::string, double>>& Pieces() {
  static const std::vector<std::pair<std::string, double>> pieces = [] {
    std::vector<std::pair<std::string, double>> p = {
        {"\xE2\x96\x81", -2.0}, {"\xE2\x96\x81the", -1.0}, {"\xE2\x96\x81" "cat", -1.5}, {"\xE2\x96\x81sat", -1.5},
        {"\xE2\x96\x81on", -1.2}, {"\xE2\x96\x81mat", -2.5}, {"s", -2.0}, {"\xE2\x96\x81" "dog", -1.7},
        {"\xE2\x96\x81ran", -2.2}, {".", -1.1}, {"a", -3.0}, {"t", -3.0}, {"\xE2\x96\x81" "far", -2.8}};
    std::set<std::string> seen;
    for (const auto& [piece, score] : p) seen.insert(piece);
    for (const std::string& w : testing::TinyWords()) {
      std::string piece = "\xE2\x96\x81" + w;
      if (seen.insert(piece).second) p.push_back({piece, -4.0 - 0.01 * static_cast<double>(p.size())});
    }
    return p;
  }();
  return pieces;
}

// Writes the model directory; returns the tensors (f32 values, before any bf16 rounding).
std::map<std::string, TensorSpec> WriteTinyT5(const std::string& dir, const TinyT5& o, uint32_t seed = 5) {
  json tok = testing::T5TokenizerJson(Pieces(), {{"\t", " "}});
  testing::WriteFile(dir + "/tokenizer.json", tok.dump());
  const int vocab = static_cast<int>(tok["model"]["vocab"].size()) + 3;  // padded, as T5's 32128
  json config = {{"model_type", "t5"}, {"vocab_size", vocab}, {"d_model", D}, {"d_kv", DKV}, {"d_ff", FF},
                 {"num_layers", LAYERS}, {"num_heads", HEADS}, {"relative_attention_num_buckets", BUCKETS},
                 {"relative_attention_max_distance", MAX_DISTANCE}, {"layer_norm_epsilon", 1e-6},
                 {"feed_forward_proj", o.ff}};
  testing::WriteFile(dir + "/config.json", config.dump());
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::map<std::string, TensorSpec> t;
  auto add = [&](const std::string& name, std::vector<int64_t> shape, float scale, float offset = 0.0f) {
    TensorSpec s{o.dtype, shape, {}};
    size_t n = 1;
    for (int64_t d : shape) n *= d;
    for (size_t i = 0; i < n; ++i) s.values.push_back(offset + scale * normal(rng));
    t[o.prefix + name] = s;
  };
  add("shared.weight", {vocab, D}, 1.0f);
  add("encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight", {BUCKETS, HEADS}, 2.0f);
  for (int l = 0; l < LAYERS; ++l) {
    std::string p = "encoder.block." + std::to_string(l) + ".layer.";
    for (const char* w : {"q", "k", "v"}) add(p + "0.SelfAttention." + w + ".weight", {HEADS * DKV, D}, 0.5f);
    add(p + "0.SelfAttention.o.weight", {D, HEADS * DKV}, 0.4f);
    add(p + "0.layer_norm.weight", {D}, 0.2f, 1.0f);
    if (o.ff.rfind("gated-", 0) == 0) {
      add(p + "1.DenseReluDense.wi_0.weight", {FF, D}, 0.3f);
      add(p + "1.DenseReluDense.wi_1.weight", {FF, D}, 0.3f);
    } else {
      add(p + "1.DenseReluDense.wi.weight", {FF, D}, 0.3f);
    }
    add(p + "1.DenseReluDense.wo.weight", {D, FF}, 0.25f);
    add(p + "1.layer_norm.weight", {D}, 0.2f, 1.0f);
  }
  add("encoder.final_layer_norm.weight", {D}, 0.2f, 1.0f);
  testing::WriteFile(dir + "/model.safetensors", testing::SafetensorsBytes(t));
  json modules = json::array({{{"idx", 0}, {"name", "0"}, {"path", ""}, {"type", "sentence_transformers.models.Transformer"}},
                              {{"idx", 1}, {"name", "1"}, {"path", "1_Pooling"}, {"type", "sentence_transformers.models.Pooling"}}});
  std::filesystem::create_directories(dir + "/1_Pooling");
  testing::WriteFile(dir + "/1_Pooling/config.json",
                     json({{"word_embedding_dimension", D}, {"pooling_mode_mean_tokens", true}, {"pooling_mode_cls_token", false}}).dump());
  if (o.dense) {
    modules.push_back({{"idx", 2}, {"name", "2"}, {"path", "2_Dense"}, {"type", "sentence_transformers.models.Dense"}});
    std::filesystem::create_directories(dir + "/2_Dense");
    testing::WriteFile(dir + "/2_Dense/config.json", json({{"in_features", D}, {"out_features", DENSE}, {"bias", false},
                                                           {"activation_function", "torch.nn.modules.linear.Identity"}}).dump());
    TensorSpec w{"F32", {DENSE, D}, {}};
    for (int i = 0; i < DENSE * D; ++i) w.values.push_back(normal(rng) / std::sqrt(float(D)));
    t["dense"] = w;
    testing::WriteFile(dir + "/2_Dense/model.safetensors", testing::SafetensorsBytes({{"linear.weight", w}}));
  }
  if (o.normalize) modules.push_back({{"idx", 3}, {"name", "3"}, {"path", "3_Normalize"}, {"type", "sentence_transformers.models.Normalize"}});
  testing::WriteFile(dir + "/modules.json", modules.dump());
  testing::WriteFile(dir + "/sentence_bert_config.json", json({{"max_seq_length", 10}}).dump());
  return t;
}

// HF's bucket in double precision, written from the paper's description.
int64_t Bucket(int64_t rel, int64_t buckets, int64_t max_distance) {
  int64_t half = buckets / 2, exact = half / 2, b = rel > 0 ? half : 0, d = std::llabs(rel);
  if (d < exact) return b + d;
  auto large = exact + static_cast<int64_t>(std::log(double(d) / exact) / std::log(double(max_distance) / exact) * (half - exact));
  return b + std::min(large, half - 1);
}

// A plain-loop T5 encoder (one sentence, no padding) in double precision.
std::vector<float> Reference(const std::map<std::string, TensorSpec>& t, const TinyT5& o, const std::vector<int32_t>& ids) {
  auto W = [&](const std::string& name) -> const std::vector<float>& { return t.at(o.prefix + name).values; };
  const int n = static_cast<int>(ids.size()), inner = HEADS * DKV;
  std::vector<double> x(n * D);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < D; ++k) x[i * D + k] = W("shared.weight")[ids[i] * D + k];
  auto rms = [&](const std::vector<double>& v, const std::vector<float>& w) {
    std::vector<double> y(v.size());
    for (int i = 0; i < n; ++i) {
      double ms = 0;
      for (int k = 0; k < D; ++k) ms += v[i * D + k] * v[i * D + k];
      ms = 1.0 / std::sqrt(ms / D + 1e-6);
      for (int k = 0; k < D; ++k) y[i * D + k] = w[k] * v[i * D + k] * ms;
    }
    return y;
  };
  auto linear = [&](const std::vector<double>& v, int in, const std::vector<float>& w, int out) {
    std::vector<double> y(n * out, 0.0);
    for (int i = 0; i < n; ++i)
      for (int r = 0; r < out; ++r)
        for (int k = 0; k < in; ++k) y[i * out + r] += v[i * in + k] * w[r * in + k];
    return y;
  };
  const auto& rel = W("encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight");
  for (int l = 0; l < LAYERS; ++l) {
    std::string p = "encoder.block." + std::to_string(l) + ".layer.";
    auto h = rms(x, W(p + "0.layer_norm.weight"));
    auto q = linear(h, D, W(p + "0.SelfAttention.q.weight"), inner), k = linear(h, D, W(p + "0.SelfAttention.k.weight"), inner),
         v = linear(h, D, W(p + "0.SelfAttention.v.weight"), inner);
    std::vector<double> ctx(n * inner, 0.0);
    for (int hd = 0; hd < HEADS; ++hd)
      for (int i = 0; i < n; ++i) {
        std::vector<double> s(n);
        double mx = -1e300, sum = 0;
        for (int j = 0; j < n; ++j) {
          double dot = rel[Bucket(j - i, BUCKETS, MAX_DISTANCE) * HEADS + hd];  // no 1/sqrt(d_kv)
          for (int c = 0; c < DKV; ++c) dot += q[i * inner + hd * DKV + c] * k[j * inner + hd * DKV + c];
          mx = std::max(mx, s[j] = dot);
        }
        for (double& e : s) sum += (e = std::exp(e - mx));
        for (int j = 0; j < n; ++j)
          for (int c = 0; c < DKV; ++c) ctx[i * inner + hd * DKV + c] += s[j] / sum * v[j * inner + hd * DKV + c];
      }
    auto a = linear(ctx, inner, W(p + "0.SelfAttention.o.weight"), D);
    for (int i = 0; i < n * D; ++i) x[i] += a[i];
    h = rms(x, W(p + "1.layer_norm.weight"));
    std::vector<double> f;
    if (o.ff == "relu") {
      f = linear(h, D, W(p + "1.DenseReluDense.wi.weight"), FF);
      for (double& e : f) e = std::max(e, 0.0);
    } else {  // gated-gelu: gelu_new(wi_0 h) * wi_1 h; gated-silu: silu(wi_0 h) * wi_1 h
      f = linear(h, D, W(p + "1.DenseReluDense.wi_0.weight"), FF);
      auto g = linear(h, D, W(p + "1.DenseReluDense.wi_1.weight"), FF);
      for (size_t i = 0; i < f.size(); ++i) {
        double e = f[i];
        f[i] = (o.ff == "gated-silu" ? e / (1 + std::exp(-e)) : 0.5 * e * (1 + std::tanh(std::sqrt(2 / M_PI) * (e + 0.044715 * e * e * e)))) * g[i];
      }
    }
    auto out = linear(f, FF, W(p + "1.DenseReluDense.wo.weight"), D);
    for (int i = 0; i < n * D; ++i) x[i] += out[i];
  }
  x = rms(x, W("encoder.final_layer_norm.weight"));
  return std::vector<float>(x.begin(), x.end());
}

float MaxDiff(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  float m = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

TEST(TrainerT5, RelativePositionBucketsMatchHandComputedValues) {
  // 32 buckets, max distance 128 (T5's): |d| < 8 exact; then 8 + floor(log(|d|/8) / log(16) * 8), at
  // most 15; keys after the query (d > 0) add 16. d = 12: log(1.5)/log(16)*8 = 1.17 -> 9.
  std::vector<int64_t> b = T5RelativeBuckets(130, 32, 128);
  auto at = [&](int i, int j) { return b[i * 130 + j]; };  // d = j - i
  EXPECT_EQ(at(0, 0), 0);
  EXPECT_EQ(at(5, 2), 3);
  EXPECT_EQ(at(2, 5), 19);
  EXPECT_EQ(at(12, 0), 9);
  EXPECT_EQ(at(0, 12), 25);
  EXPECT_EQ(at(16, 0), 10);   // log(2)/log(16)*8 = 2 exactly
  EXPECT_EQ(at(20, 0), 10);   // 2.64
  EXPECT_EQ(at(32, 0), 12);
  EXPECT_EQ(at(64, 0), 14);
  EXPECT_EQ(at(90, 0), 14);   // 6.98
  EXPECT_EQ(at(0, 100), 31);  // 7.29 -> 15, + 16
  EXPECT_EQ(at(129, 0), 15);  // capped
  for (int d = -129; d <= 129; ++d) {
    int i = d < 0 ? -d : 0, j = d < 0 ? 0 : d;
    EXPECT_EQ(at(i, j), Bucket(d, 32, 128)) << d;
  }
}

TEST(TrainerT5, RmsNormHasNoMeanSubtractionAndNoBias) {
  // rows (3, 4) and (1, 1): mean squares 12.5 and 1.
  std::vector<float> y = T5RmsNorm({3, 4, 1, 1}, {2, 0.5f}, 0.0);
  ASSERT_EQ(y.size(), 4u);
  EXPECT_NEAR(y[0], 2 * 3 / std::sqrt(12.5), 1e-6);
  EXPECT_NEAR(y[1], 0.5 * 4 / std::sqrt(12.5), 1e-6);
  EXPECT_NEAR(y[2], 2.0, 1e-6);
  EXPECT_NEAR(y[3], 0.5, 1e-6);
  EXPECT_NEAR(T5RmsNorm({0, 0}, {1, 1}, 1e-6)[0], 0.0, 1e-9);
}

TEST(TrainerT5, ForwardPassMatchesAPlainLoopEncoder) {
  const std::vector<std::vector<int32_t>> ids = {{4, 5, 6, 1}, {3, 7, 12, 2, 9, 10, 1}, {1}};
  for (TinyT5 o : {TinyT5{}, TinyT5{"relu"}, TinyT5{"gated-silu"}, TinyT5{"gated-gelu", "BF16", "encoder_model."}}) {
    TempDir dir;
    auto tensors = WriteTinyT5(dir.path(), o);
    if (o.dtype == "BF16") {  // the reference sees what the file stores: bf16-rounded weights
      std::unique_ptr<formats::SafeTensors> st;
      ASSERT_TRUE(formats::SafeTensors::Open(dir.file("model.safetensors"), &st).ok());
      for (auto& [name, spec] : tensors) {
        if (name != "dense") ASSERT_TRUE(st->ReadF32(name, {}, &spec.values).ok()) << name;
      }
    }
    std::vector<std::vector<float>> hidden;
    Status s = T5EncoderHidden(dir.path(), ids, &hidden);  // one padded batch
    ASSERT_TRUE(s.ok()) << s.message();
    for (size_t i = 0; i < ids.size(); ++i) {
      EXPECT_LT(MaxDiff(hidden[i], Reference(tensors, o, ids[i])), 2e-5) << o.ff << " " << o.dtype << " sentence " << i;
    }
  }
}

std::unique_ptr<Teacher> Load(const std::string& dir, Status* status) {
  TeacherOptions o;
  o.kind = "t5";
  o.path = dir;
  o.device = "cpu";
  std::unique_ptr<Teacher> t;
  *status = LoadTeacher(o, &t);
  return t;
}

TEST(TrainerT5, TeacherAppliesDenseAndNormalizeAndAlignsWords) {
  TempDir dir;
  TinyT5 o;
  auto tensors = WriteTinyT5(dir.path(), o);
  Status s;
  auto teacher = Load(dir.path(), &s);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(teacher->dims(), static_cast<uint32_t>(DENSE));
  EXPECT_EQ(teacher->name(), "t5:" + dir.path());
  EXPECT_EQ(teacher->subword_vocab().pieces.size(), Pieces().size());
  UnigramTokenizer tok;
  ASSERT_TRUE(UnigramTokenizer::Load(dir.file("tokenizer.json"), &tok).ok());
  // Sentence 1 is longer than max_seq_length (10): truncated, </s> kept last; its last word is cut.
  const std::vector<std::string> sentences = {"the cats sat.", "the dog ran far on the mat on the mat on the mat", ""};
  const std::vector<std::vector<WordSpan>> spans = {{{0, 3}, {4, 8}, {8, 12}}, {{4, 7}, {44, 47}}, {}};
  TeacherOutput out;
  ASSERT_TRUE(teacher->Encode(sentences, &spans, &out).ok());
  ASSERT_EQ(out.found, (std::vector<uint8_t>{1, 1, 1, 1, 0}));
  const auto& dense = tensors.at("dense").values;
  auto project = [&](const float* h) {
    std::vector<double> y(DENSE, 0.0);
    for (int r = 0; r < DENSE; ++r)
      for (int k = 0; k < D; ++k) y[r] += dense[r * D + k] * h[k];
    return y;
  };
  size_t row = 0;
  for (size_t b = 0; b < sentences.size(); ++b) {
    std::vector<TeacherToken> tokens;
    tok.Encode(sentences[b], 10, &tokens);
    std::vector<int32_t> ids;
    for (const auto& t : tokens) ids.push_back(t.id);
    std::vector<float> h = Reference(tensors, o, ids);
    std::vector<double> mean(DENSE, 0.0);
    for (size_t i = 0; i < ids.size(); ++i) {
      auto y = project(&h[i * D]);
      for (int r = 0; r < DENSE; ++r) mean[r] += y[r] / ids.size();
    }
    double norm = 0;
    for (double v : mean) norm += v * v;
    for (int r = 0; r < DENSE; ++r) EXPECT_NEAR(out.sentence_vectors[b * DENSE + r], mean[r] / std::sqrt(norm), 2e-5);
    for (const WordSpan& w : spans[b]) {
      std::vector<double> word(DENSE, 0.0);
      int k = 0;
      for (size_t i = 0; i < tokens.size(); ++i) {
        if (tokens[i].begin < tokens[i].end && tokens[i].begin < w.end && tokens[i].end > w.begin) {
          auto y = project(&h[i * D]);
          for (int r = 0; r < DENSE; ++r) word[r] += y[r];
          ++k;
        }
      }
      for (int r = 0; r < DENSE && k > 0; ++r) EXPECT_NEAR(out.word_vectors[row * DENSE + r], word[r] / k, 2e-5);
      ++row;
    }
  }
  // "cats" = ▁cat + s: two tokens; "sat." = ▁sat + "."; the empty sentence is </s> alone.
  std::vector<TeacherToken> tokens;
  tok.Encode("the cats sat.", 0, &tokens);
  EXPECT_EQ(tokens.size(), 6u);
}

TEST(TrainerT5, PlainHfDirectoryPoolsTheMeanWithoutModules) {
  TempDir dir;
  TinyT5 o;
  o.dense = false;
  o.normalize = false;
  auto tensors = WriteTinyT5(dir.path(), o);
  std::remove(dir.file("modules.json").c_str());
  Status s;
  auto teacher = Load(dir.path(), &s);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(teacher->dims(), static_cast<uint32_t>(D));
  TeacherOutput out;
  ASSERT_TRUE(teacher->Encode({"the dog"}, nullptr, &out).ok());
  std::vector<float> h = Reference(tensors, o, {4, 10, 1});  // ▁the ▁dog </s>
  for (int k = 0; k < D; ++k) EXPECT_NEAR(out.sentence_vectors[k], (h[k] + h[D + k] + h[2 * D + k]) / 3, 2e-5);
}

TEST(TrainerT5, ClearErrorsForBadModelDirectories) {
  auto error = [](const std::string& dir) {
    Status s;
    Load(dir, &s);
    return s.message();
  };
  TempDir dir;
  WriteTinyT5(dir.path(), TinyT5{});
  json config = json::parse(testing::ReadFile(dir.file("config.json")));
  json c = config;
  c["feed_forward_proj"] = "gated-swishy";
  testing::WriteFile(dir.file("config.json"), c.dump());
  EXPECT_NE(error(dir.path()).find("feed_forward_proj 'gated-swishy'"), std::string::npos) << error(dir.path());
  c = config;
  c["feed_forward_proj"] = "relu";  // the file has wi_0/wi_1, not wi
  testing::WriteFile(dir.file("config.json"), c.dump());
  EXPECT_NE(error(dir.path()).find("encoder.block.0.layer.1.DenseReluDense.wi.weight"), std::string::npos) << error(dir.path());
  c = config;
  c["d_ff"] = 21;
  testing::WriteFile(dir.file("config.json"), c.dump());
  EXPECT_NE(error(dir.path()).find("has shape [20, 12], expected [21, 12]"), std::string::npos) << error(dir.path());
  c = config;
  c["model_type"] = "bart";
  testing::WriteFile(dir.file("config.json"), c.dump());
  EXPECT_NE(error(dir.path()).find("model_type 'bart'"), std::string::npos) << error(dir.path());
  c = config;
  c.erase("d_kv");
  testing::WriteFile(dir.file("config.json"), c.dump());
  EXPECT_NE(error(dir.path()).find("'d_kv'"), std::string::npos) << error(dir.path());
  c = config;
  c["vocab_size"] = 5;  // the tokenizer's ids go past it
  testing::WriteFile(dir.file("config.json"), c.dump());
  EXPECT_NE(error(dir.path()).find("past config.json's vocab_size"), std::string::npos) << error(dir.path());
  testing::WriteFile(dir.file("config.json"), config.dump());

  testing::WriteFile(dir.file("2_Dense/config.json"), json({{"in_features", D}, {"out_features", DENSE}, {"bias", false},
                                                            {"activation_function", "torch.nn.modules.activation.Tanh"}}).dump());
  EXPECT_NE(error(dir.path()).find("activation_function 'torch.nn.modules.activation.Tanh'"), std::string::npos);
  WriteTinyT5(dir.path(), TinyT5{});
  testing::WriteFile(dir.file("1_Pooling/config.json"), json({{"pooling_mode_cls_token", true}}).dump());
  EXPECT_NE(error(dir.path()).find("pooling_mode_cls_token"), std::string::npos) << error(dir.path());
  WriteTinyT5(dir.path(), TinyT5{});
  testing::WriteFile(dir.file("model.safetensors"), testing::SafetensorsBytes({{"x", {"F32", {1}, {1.0f}}}}));
  EXPECT_NE(error(dir.path()).find("no tensor 'encoder.final_layer_norm.weight'"), std::string::npos) << error(dir.path());
  WriteTinyT5(dir.path(), TinyT5{});
  std::remove(dir.file("tokenizer.json").c_str());
  EXPECT_NE(error(dir.path()).find("teacher tokenizer not found"), std::string::npos) << error(dir.path());
  WriteTinyT5(dir.path(), TinyT5{});
  std::remove(dir.file("2_Dense/model.safetensors").c_str());
  EXPECT_NE(error(dir.path()).find("2_Dense/model.safetensors"), std::string::npos) << error(dir.path());
  EXPECT_NE(error(dir.file("nope")).find("teacher directory not found"), std::string::npos);
}

// A whole recipe with teacher.kind "t5": every stage runs and the exported model carries the teacher's
// Unigram pieces for unknown words.
TEST(TrainerT5, RecipeRunsEndToEnd) {
  util::Progress::SetEnabled(false);
  TempDir dir;
  WriteTinyT5(dir.file("teacher"), TinyT5{});
  testing::WriteFile(dir.file("corpus.txt.zst"), testing::Zstd(testing::TinyCorpus(800, 3)));
  json recipe = {{"name", "tiny-t5"},
                 {"work_dir", dir.file("work")},
                 {"corpus", {{"paths", {dir.file("corpus.txt.zst")}}}},
                 {"vocab", {{"size", 60}, {"min_count", 2}, {"fold_case", true}}},
                 {"sample", {{"per_word", 8}, {"sentences", 300}}},
                 {"teacher", {{"kind", "t5"}, {"path", dir.file("teacher")}, {"batch_size", 16}, {"max_tokens", 24}}},
                 {"pca", {{"mode", "sentence"}, {"dims", 4}, {"remove", 0}}},
                 {"refine", {{"method", "kd"}, {"batch_size", 32}, {"max_epochs", 2}, {"patience", 2}, {"heldout", 0.2}}},
                 {"export", {{"path", dir.file("out/tiny.swe")}, {"dtype", "f32"}}},
                 {"device", "cpu"},
                 {"threads", 2}};
  Recipe r;
  ASSERT_TRUE(ParseRecipe(recipe.dump(), &r).ok());
  RunOptions o;
  o.log = [](const std::string&) {};
  Status s = RunPipeline(r, o);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::string bytes = testing::ReadFile(dir.file("out/tiny.swe"));
  std::unique_ptr<Model> model;
  ASSERT_TRUE(ReadModel(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &model).ok());
  EXPECT_EQ(model->dims(), 4u);
  EXPECT_GE(model->find("cat"), 0);
  EXPECT_EQ(model->tokenizer_config().subword.kind, SubwordKind::kUnigram);
  EXPECT_NE(model->provenance().teacher.find("t5:"), std::string::npos);
}

}  // namespace
}  // namespace swe::trainer
