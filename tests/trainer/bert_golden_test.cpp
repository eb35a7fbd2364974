// Golden parity of the `bert` teacher with Hugging Face transformers: a tiny random BERT Sentence
// Transformer (tests/trainer/fixtures/bert_golden/model, and model_f16 with float16 weights) and its
// reference outputs, computed by transformers in float32 on CPU by trainer/tools/bert_golden.py
// (golden.json: sentences, HF token ids and byte offsets; golden.f32: pooled and last-layer token
// vectors). Checks identical ids and offsets, and cosine >= 0.9999 per sentence and per token.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "teachers/teacher.h"
#include "test_util.h"
#include "wordpiece.h"
#include "test_paths.h"

namespace swe::trainer {
namespace {

std::string Fixture(const std::string& name) {
  return std::string(swe::test::SourceDir()) + "/tests/trainer/fixtures/bert_golden/" + name;
}

using testing::Cosine;

struct Golden {
  nlohmann::json meta;
  size_t hidden = 0, sentences = 0;
  // Per model (0: f32 weights, 1: f16 weights): pooled [S x H] and each sentence's tokens [n_i x H].
  std::vector<float> pooled[2];
  std::vector<std::vector<float>> tokens[2];
};

Golden ReadGolden() {
  Golden g;
  g.meta = nlohmann::json::parse(testing::ReadFile(Fixture("golden.json")));
  g.hidden = g.meta["config"]["hidden"].get<size_t>();
  g.sentences = g.meta["sentences"].size();
  testing::GoldenFloats floats(Fixture("golden.f32"));
  const size_t H = g.hidden;
  for (int m = 0; m < 2; ++m) {
    g.pooled[m] = floats.Take(g.sentences * H);
    g.tokens[m].resize(g.sentences);
    for (size_t i = 0; i < g.sentences; ++i) g.tokens[m][i] = floats.Take(g.meta["ids"][i].size() * H);
  }
  EXPECT_EQ(floats.left(), 0u);
  return g;
}

TEST(TrainerBertGolden, TokenIdsAndOffsetsMatchHuggingFace) {
  Golden g = ReadGolden();
  const size_t max_seq = g.meta["config"]["max_seq_length"].get<size_t>();
  for (const char* model : {"model", "model_f16"}) {
    BertTokenizer tok;
    Status s = BertTokenizer::Load(Fixture(std::string(model) + "/tokenizer.json"), &tok);
    ASSERT_TRUE(s.ok()) << s.ToString();
    for (size_t i = 0; i < g.sentences; ++i) {
      std::string text = g.meta["sentences"][i].get<std::string>();
      std::vector<TeacherToken> tokens;
      tok.Tokenize(text, &tokens);
      if (tokens.size() > max_seq - 2) tokens.resize(max_seq - 2);  // the teacher's truncation
      std::vector<int32_t> ids = {tok.cls_id()};
      std::vector<std::vector<uint32_t>> offsets = {{0, 0}};
      for (const auto& t : tokens) {
        ids.push_back(t.id);
        offsets.push_back({t.begin, t.end});
      }
      ids.push_back(tok.sep_id());
      offsets.push_back({0, 0});
      EXPECT_EQ(ids, g.meta["ids"][i].get<std::vector<int32_t>>()) << i << ": " << text;
      EXPECT_EQ(offsets, g.meta["offsets"][i].get<std::vector<std::vector<uint32_t>>>()) << i << ": " << text;
    }
  }
}

// Runs the teacher on every sentence (one padded batch, and in batches of 5) with one span per token
// (its byte range), so each word vector is one token's last-layer vector (the mean of the tokens
// sharing that range, when several do), and the pooled vector is the sentence's.
void CheckModel(const Golden& g, int m, const std::string& dir, const std::vector<float>* pooled_other,
                double other_bound) {
  TeacherOptions o;
  o.path = dir;
  o.device = "cpu";
  std::unique_ptr<Teacher> teacher;
  Status s = LoadTeacher(o, &teacher);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(teacher->dims(), g.hidden);
  BertTokenizer tok;
  ASSERT_TRUE(BertTokenizer::Load(dir + "/tokenizer.json", &tok).ok());
  const size_t H = g.hidden, max_seq = g.meta["config"]["max_seq_length"].get<size_t>();
  std::vector<std::string> sentences;
  std::vector<std::vector<WordSpan>> spans;
  std::vector<std::vector<TeacherToken>> tokens(g.sentences);
  for (size_t i = 0; i < g.sentences; ++i) {
    sentences.push_back(g.meta["sentences"][i].get<std::string>());
    tok.Tokenize(sentences.back(), &tokens[i]);
    if (tokens[i].size() > max_seq - 2) tokens[i].resize(max_seq - 2);
    spans.emplace_back();
    for (const auto& t : tokens[i]) spans.back().push_back({t.begin, t.end});
  }
  for (size_t batch : {g.sentences, size_t{5}}) {
    double min_pooled = 1, min_token = 1, max_diff = 0, min_other = 1;
    size_t checked = 0;
    for (size_t first = 0; first < g.sentences; first += batch) {
      size_t n = std::min(batch, g.sentences - first);
      std::vector<std::string> bs(sentences.begin() + first, sentences.begin() + first + n);
      std::vector<std::vector<WordSpan>> bspans(spans.begin() + first, spans.begin() + first + n);
      TeacherOutput out;
      s = teacher->Encode(bs, &bspans, &out);
      ASSERT_TRUE(s.ok()) << s.ToString();
      ASSERT_EQ(out.sentence_vectors.size(), n * H);
      size_t row = 0;
      for (size_t b = 0; b < n; ++b) {
        size_t i = first + b;
        const float* ours = out.sentence_vectors.data() + b * H;
        const float* ref = g.pooled[m].data() + i * H;
        double cos = Cosine(ours, ref, H);
        min_pooled = std::min(min_pooled, cos);
        EXPECT_GE(cos, 0.9999) << "pooled, sentence " << i << ": " << sentences[i];
        for (size_t k = 0; k < H; ++k) max_diff = std::max(max_diff, std::fabs(double(ours[k]) - ref[k]));
        if (pooled_other) {
          double c = Cosine(ours, pooled_other->data() + i * H, H);
          min_other = std::min(min_other, c);
          EXPECT_GE(c, other_bound) << "pooled vs the f32 reference, sentence " << i;
        }
        // Tokens: reference rows 1..n (row 0 is [CLS]); a span's expected vector is the mean of the
        // reference rows of the tokens whose range overlaps it (as the teacher aligns them).
        const auto& t = tokens[i];
        for (size_t w = 0; w < t.size(); ++w, ++row) {
          ASSERT_EQ(out.found[row], 1);
          std::vector<double> expect(H, 0.0);
          int count = 0;
          for (size_t j = 0; j < t.size(); ++j) {
            if (t[j].begin < t[w].end && t[j].end > t[w].begin) {
              for (size_t k = 0; k < H; ++k) expect[k] += g.tokens[m][i][(j + 1) * H + k];
              ++count;
            }
          }
          std::vector<float> e(H);
          for (size_t k = 0; k < H; ++k) e[k] = static_cast<float>(expect[k] / count);
          const float* got = out.word_vectors.data() + row * H;
          double c = Cosine(got, e.data(), H);
          min_token = std::min(min_token, c);
          EXPECT_GE(c, 0.9999) << "token " << w << " of sentence " << i << ": " << sentences[i];
          for (size_t k = 0; k < H; ++k) max_diff = std::max(max_diff, std::fabs(double(got[k]) - e[k]));
          ++checked;
        }
      }
    }
    std::printf("%s, batches of %zu: %zu sentences, %zu tokens: min cosine pooled 1-%.2e, tokens 1-%.2e; "
                "max |diff| %.2e", dir.substr(dir.rfind('/') + 1).c_str(), batch, g.sentences, checked,
                1 - min_pooled, 1 - min_token, max_diff);
    if (pooled_other) std::printf("; pooled vs the f32-weight reference: min cosine 1-%.2e", 1 - min_other);
    std::printf("\n");
  }
}

TEST(TrainerBertGolden, Float32WeightsMatchTransformers) {
  Golden g = ReadGolden();
  CheckModel(g, 0, Fixture("model"), nullptr, 0);
}

// The same model saved by transformers with float16 weights: the teacher widens them to f32, exactly
// as transformers does with .float(), so it matches the f16-weight reference as tightly; against the
// f32-weight reference the rounding of the weights costs a little (measured 1 - 6e-7 by the script).
TEST(TrainerBertGolden, Float16WeightsMatchTransformers) {
  Golden g = ReadGolden();
  CheckModel(g, 1, Fixture("model_f16"), &g.pooled[0], 0.999);
}

}  // namespace
}  // namespace swe::trainer
