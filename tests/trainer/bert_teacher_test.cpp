#include "teachers/bert_teacher.h"

#include <gtest/gtest.h>

#include <cmath>

#include "swe/formats/safetensors.h"
#include "test_util.h"
#include "wordpiece.h"

namespace swe::trainer {
namespace {
using testing::TempDir;
using testing::TinyBertOptions;
using formats::SafeTensors;

// A plain-loop BERT forward pass (one sentence, no padding), independent of the libtorch code.
class ReferenceBert {
 public:
  ReferenceBert(const std::string& dir, const TinyBertOptions& o) : o_(o) {
    EXPECT_TRUE(SafeTensors::Open(dir + "/model.safetensors", &st_).ok());
  }
  std::vector<float> W(const std::string& name) const {
    std::vector<float> v;
    EXPECT_TRUE(st_->ReadF32((o_.bert_prefix ? "bert." : "") + name, {}, &v).ok()) << name;
    return v;
  }
  // x (n x in) times Wᵀ (W: out x in) + b.
  static std::vector<float> Linear(const std::vector<float>& x, int n, int in, const std::vector<float>& w,
                                   const std::vector<float>& b, int out) {
    std::vector<float> y(n * out);
    for (int i = 0; i < n; ++i)
      for (int o = 0; o < out; ++o) {
        double acc = b[o];
        for (int k = 0; k < in; ++k) acc += static_cast<double>(x[i * in + k]) * w[o * in + k];
        y[i * out + o] = static_cast<float>(acc);
      }
    return y;
  }
  static void LayerNorm(std::vector<float>* x, int n, int h, const std::vector<float>& g, const std::vector<float>& b) {
    for (int i = 0; i < n; ++i) {
      double mean = 0, var = 0;
      for (int k = 0; k < h; ++k) mean += (*x)[i * h + k];
      mean /= h;
      for (int k = 0; k < h; ++k) var += ((*x)[i * h + k] - mean) * ((*x)[i * h + k] - mean);
      var /= h;
      for (int k = 0; k < h; ++k)
        (*x)[i * h + k] = static_cast<float>(((*x)[i * h + k] - mean) / std::sqrt(var + 1e-12) * g[k] + b[k]);
    }
  }
  // Last-layer vectors (n x H) of ids.
  std::vector<float> Forward(const std::vector<int32_t>& ids) const {
    const int n = static_cast<int>(ids.size()), H = o_.hidden, I = o_.intermediate, nh = o_.heads, dh = H / nh;
    auto we = W("embeddings.word_embeddings.weight"), pe = W("embeddings.position_embeddings.weight"),
         te = W("embeddings.token_type_embeddings.weight");
    std::vector<float> x(n * H);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < H; ++k) x[i * H + k] = we[ids[i] * H + k] + pe[i * H + k] + te[k];
    LayerNorm(&x, n, H, W("embeddings.LayerNorm.weight"), W("embeddings.LayerNorm.bias"));
    for (int l = 0; l < o_.layers; ++l) {
      std::string p = "encoder.layer." + std::to_string(l) + ".";
      auto q = Linear(x, n, H, W(p + "attention.self.query.weight"), W(p + "attention.self.query.bias"), H);
      auto k = Linear(x, n, H, W(p + "attention.self.key.weight"), W(p + "attention.self.key.bias"), H);
      auto v = Linear(x, n, H, W(p + "attention.self.value.weight"), W(p + "attention.self.value.bias"), H);
      std::vector<float> ctx(n * H, 0.0f);
      for (int h = 0; h < nh; ++h)
        for (int i = 0; i < n; ++i) {
          std::vector<double> s(n);
          double mx = -1e300, sum = 0;
          for (int j = 0; j < n; ++j) {
            double dot = 0;
            for (int c = 0; c < dh; ++c) dot += q[i * H + h * dh + c] * k[j * H + h * dh + c];
            s[j] = dot / std::sqrt(static_cast<double>(dh));
            mx = std::max(mx, s[j]);
          }
          for (double& e : s) sum += (e = std::exp(e - mx));
          for (int j = 0; j < n; ++j)
            for (int c = 0; c < dh; ++c) ctx[i * H + h * dh + c] += static_cast<float>(s[j] / sum * v[j * H + h * dh + c]);
        }
      auto a = Linear(ctx, n, H, W(p + "attention.output.dense.weight"), W(p + "attention.output.dense.bias"), H);
      for (int i = 0; i < n * H; ++i) a[i] += x[i];
      LayerNorm(&a, n, H, W(p + "attention.output.LayerNorm.weight"), W(p + "attention.output.LayerNorm.bias"));
      auto m = Linear(a, n, H, W(p + "intermediate.dense.weight"), W(p + "intermediate.dense.bias"), I);
      for (float& e : m) e = static_cast<float>(0.5 * e * (1 + std::erf(e / std::sqrt(2.0))));
      auto o = Linear(m, n, I, W(p + "output.dense.weight"), W(p + "output.dense.bias"), H);
      for (int i = 0; i < n * H; ++i) o[i] += a[i];
      LayerNorm(&o, n, H, W(p + "output.LayerNorm.weight"), W(p + "output.LayerNorm.bias"));
      x = o;
    }
    return x;
  }

 private:
  TinyBertOptions o_;
  std::unique_ptr<SafeTensors> st_;
};

std::unique_ptr<Teacher> Load(const std::string& dir, Status* status = nullptr) {
  TeacherOptions o;
  o.path = dir;
  o.device = "cpu";
  std::unique_ptr<Teacher> t;
  Status s = LoadTeacher(o, &t);
  if (status) *status = s;
  else EXPECT_TRUE(s.ok()) << s.ToString();
  return t;
}

TEST(TrainerBertTeacher, MatchesAPlainLoopReferenceWithWordAlignment) {
  TempDir dir;
  TinyBertOptions o;
  o.normalize = false;
  testing::WriteTinyBert(dir.path(), o);
  auto teacher = Load(dir.path());
  ASSERT_TRUE(teacher);
  EXPECT_EQ(teacher->dims(), 16u);
  std::string text = "The cats sat.";
  BertTokenizer tok;
  ASSERT_TRUE(BertTokenizer::Load(dir.file("tokenizer.json"), &tok).ok());
  std::vector<TeacherToken> tokens;
  tok.Tokenize(text, &tokens);
  ASSERT_EQ(tokens.size(), 5u);  // the cat ##s sat .
  std::vector<int32_t> ids = {tok.cls_id()};
  for (const auto& t : tokens) ids.push_back(t.id);
  ids.push_back(tok.sep_id());
  auto ref = ReferenceBert(dir.path(), o).Forward(ids);
  // "cats" spans bytes 4..8: mean of the vectors of "cat" (position 2) and "##s" (position 3).
  std::vector<std::vector<WordSpan>> spans = {{{4, 8}, {0, 3}, {20, 25}}};
  TeacherOutput out;
  ASSERT_TRUE(teacher->Encode({text}, &spans, &out).ok());
  ASSERT_EQ(out.found, (std::vector<uint8_t>{1, 1, 0}));
  const int H = 16;
  for (int k = 0; k < H; ++k) {
    EXPECT_NEAR(out.word_vectors[k], (ref[2 * H + k] + ref[3 * H + k]) / 2, 1e-4) << k;
    EXPECT_NEAR(out.word_vectors[H + k], ref[1 * H + k], 1e-4) << k;
    double mean = 0;
    for (size_t i = 0; i < ids.size(); ++i) mean += ref[i * H + k];
    EXPECT_NEAR(out.sentence_vectors[k], mean / ids.size(), 1e-4) << k;  // mean pooling over all tokens
  }
}

TEST(TrainerBertTeacher, PaddingDoesNotChangeResultsAndPoolingIsNormalised) {
  TempDir dir;
  TinyBertOptions o;
  o.bert_prefix = true;
  testing::WriteTinyBert(dir.path(), o);
  auto teacher = Load(dir.path());
  ASSERT_TRUE(teacher);
  TeacherOutput alone, batch;
  std::vector<std::vector<WordSpan>> s1 = {{{0, 3}}}, s2 = {{{0, 3}}, {}};
  ASSERT_TRUE(teacher->Encode({"cat sat"}, &s1, &alone).ok());
  ASSERT_TRUE(teacher->Encode({"cat sat", "the big happy dog walked slowly over the green road"}, &s2, &batch).ok());
  for (int k = 0; k < 16; ++k) {
    EXPECT_NEAR(alone.sentence_vectors[k], batch.sentence_vectors[k], 1e-5);
    EXPECT_NEAR(alone.word_vectors[k], batch.word_vectors[k], 1e-5);
  }
  double norm = 0;
  for (int k = 0; k < 16; ++k) norm += batch.sentence_vectors[16 + k] * batch.sentence_vectors[16 + k];
  EXPECT_NEAR(norm, 1.0, 1e-5);
}

TEST(TrainerBertTeacher, HalfPrecisionWeightsAndClsPooling) {
  TempDir f32, f16, bf16;
  TinyBertOptions o;
  o.cls_pooling = true;
  testing::WriteTinyBert(f32.path(), o);
  o.dtype = "F16";
  testing::WriteTinyBert(f16.path(), o);
  o.dtype = "BF16";
  testing::WriteTinyBert(bf16.path(), o);
  TeacherOutput a, b, c;
  ASSERT_TRUE(Load(f32.path())->Encode({"a red car"}, nullptr, &a).ok());
  ASSERT_TRUE(Load(f16.path())->Encode({"a red car"}, nullptr, &b).ok());
  ASSERT_TRUE(Load(bf16.path())->Encode({"a red car"}, nullptr, &c).ok());
  double dot_ab = 0, dot_ac = 0;
  for (int k = 0; k < 16; ++k) {
    dot_ab += a.sentence_vectors[k] * b.sentence_vectors[k];
    dot_ac += a.sentence_vectors[k] * c.sentence_vectors[k];
  }
  EXPECT_GT(dot_ab, 0.999);  // rounding the weights barely moves the vector
  EXPECT_GT(dot_ac, 0.98);
}

TEST(TrainerBertTeacher, ClearErrorsForMissingAndCorruptFiles) {
  TempDir dir;
  testing::WriteTinyBert(dir.path(), TinyBertOptions());
  Status s;
  std::remove(dir.file("model.safetensors").c_str());
  Load(dir.path(), &s);
  EXPECT_EQ(s.code(), StatusCode::kIo);
  EXPECT_NE(s.message().find("teacher file not found"), std::string::npos) << s.message();
  testing::WriteFile(dir.file("model.safetensors"), std::string("\x10\0\0\0\0\0\0\0{\"a\":", 13));
  Load(dir.path(), &s);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt) << s.ToString();
  testing::WriteFile(dir.file("model.safetensors"), testing::SafetensorsBytes({{"x", {"F32", {1}, {1.0f}}}}));
  Load(dir.path(), &s);
  EXPECT_EQ(s.code(), StatusCode::kNotFound) << s.ToString();
  EXPECT_NE(s.message().find("embeddings.word_embeddings.weight"), std::string::npos);
  Load(dir.file("nope"), &s);
  EXPECT_EQ(s.code(), StatusCode::kIo);
  TeacherOptions o;
  o.path = dir.path();
  o.device = "cuda:banana";
  std::unique_ptr<Teacher> t;
  EXPECT_EQ(LoadTeacher(o, &t).code(), StatusCode::kInvalidArgument);
  o.kind = "gpt";
  EXPECT_EQ(LoadTeacher(o, &t).code(), StatusCode::kInvalidArgument);
}

// The registry (teacher.cpp) is how the pipeline reaches a teacher: by its recipe name only.
TEST(TrainerTeacherKinds, FindsEveryRegisteredKindByName) {
  const TeacherKind* kind = nullptr;
  for (const char* name : {"bert", "use-lite", "t5"}) {
    ASSERT_TRUE(FindTeacherKind(name, &kind).ok()) << name;
    EXPECT_STREQ(kind->name, name);
    EXPECT_NE(kind->load, nullptr);
    EXPECT_NE(kind->subword_vocab, nullptr);
  }
  Status s = FindTeacherKind("gpt", &kind);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("unknown teacher kind 'gpt' (known: bert, use-lite, t5)"), std::string::npos) << s.message();
  std::unique_ptr<Teacher> teacher;
  TeacherOptions options;
  options.kind = "gpt";
  EXPECT_EQ(LoadTeacher(options, &teacher).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace swe::trainer
