// Golden parity of the `t5` teacher with Hugging Face: tiny random T5-encoder Sentence Transformers
// (tests/trainer/fixtures/t5_golden: model = gated-gelu f32, model_relu = relu, model_bf16 = model's
// weights stored as bfloat16; each T5 encoder + mean pooling + Dense 32 -> 24 + Normalize) and a real
// SentencePiece unigram tokenizer converted by transformers, with reference outputs computed by
// transformers / tokenizers in float32 on CPU by trainer/tools/t5_golden.py (golden.json: sentences,
// HF ids with </s>, truncated at max_seq_length, and byte offsets; golden.f32: pooled, final and
// last-layer token vectors). Checks identical ids and offsets for every sentence, and the vectors
// within tight bounds, printing the largest differences.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "swe/formats/safetensors.h"
#include "teachers/t5_teacher.h"
#include "teachers/teacher.h"
#include "test_util.h"
#include "unigram_tokenizer.h"
#include "test_paths.h"

namespace swe::trainer {
namespace {

std::string Fixture(const std::string& name) {
  return std::string(swe::test::SourceDir()) + "/tests/trainer/fixtures/t5_golden/" + name;
}

using testing::Cosine;

struct Golden {
  nlohmann::json meta;
  size_t d = 0, out = 0, sentences = 0, max_seq = 0;
  std::vector<std::string> models;
  // Per model: pooled [S x d], final [S x out], each sentence's tokens [n_i x d].
  std::vector<std::vector<float>> pooled, final;
  std::vector<std::vector<std::vector<float>>> tokens;
  std::vector<std::vector<int32_t>> ids;
};

const Golden& ReadGolden() {
  static const Golden golden = [] {
    Golden g;
    g.meta = nlohmann::json::parse(testing::ReadFile(Fixture("golden.json")));
    g.d = g.meta["config"]["d_model"].get<size_t>();
    g.out = g.meta["config"]["dense_out"].get<size_t>();
    g.max_seq = g.meta["config"]["max_seq_length"].get<size_t>();
    g.sentences = g.meta["sentences"].size();
    g.models = g.meta["models"].get<std::vector<std::string>>();
    for (const auto& ids : g.meta["ids"]) g.ids.push_back(ids.get<std::vector<int32_t>>());
    testing::GoldenFloats floats(Fixture("golden.f32"));
    for (size_t m = 0; m < g.models.size(); ++m) {
      g.pooled.push_back(floats.Take(g.sentences * g.d));
      g.final.push_back(floats.Take(g.sentences * g.out));
      g.tokens.emplace_back();
      for (size_t i = 0; i < g.sentences; ++i) g.tokens.back().push_back(floats.Take(g.ids[i].size() * g.d));
    }
    EXPECT_EQ(floats.left(), 0u);
    return g;
  }();
  return golden;
}

TEST(TrainerT5Golden, TokenIdsAndOffsetsMatchHuggingFace) {
  const Golden& g = ReadGolden();
  ASSERT_EQ(g.models.size(), 3u);
  for (const std::string& model : g.models) {
    UnigramTokenizer tok;
    Status s = UnigramTokenizer::Load(Fixture(model + "/tokenizer.json"), &tok);
    ASSERT_TRUE(s.ok()) << s.ToString();
    size_t ids_ok = 0, offsets_ok = 0;
    for (size_t i = 0; i < g.sentences; ++i) {
      std::string text = g.meta["sentences"][i].get<std::string>();
      std::vector<TeacherToken> tokens;
      tok.Encode(text, static_cast<uint32_t>(g.max_seq), &tokens);
      std::vector<int32_t> ids;
      std::vector<std::vector<uint32_t>> offsets;
      for (const auto& t : tokens) {
        ids.push_back(t.id);
        offsets.push_back({t.begin, t.end});
      }
      ids_ok += ids == g.ids[i];
      offsets_ok += offsets == g.meta["offsets"][i].get<std::vector<std::vector<uint32_t>>>();
      EXPECT_EQ(ids, g.ids[i]) << i << ": " << text;
      EXPECT_EQ(offsets, g.meta["offsets"][i].get<std::vector<std::vector<uint32_t>>>()) << i << ": " << text;
    }
    std::printf("%s: ids %zu/%zu sentences, offsets %zu/%zu\n", model.c_str(), ids_ok, g.sentences, offsets_ok, g.sentences);
  }
  // Where SentencePiece itself differs from Hugging Face (we follow HF: sentence-transformers runs it).
  for (const auto& i : g.meta["checks"]["spm_vs_hf_differ_on"]) {
    std::printf("spm differs from HF on %d: %s\n", i.get<int>(), g.meta["sentences"][i.get<int>()].dump().c_str());
  }
}

TEST(TrainerT5Golden, RealCharsmapNormalisesAsNfkc) {
  UnigramTokenizer tok;
  ASSERT_TRUE(UnigramTokenizer::Load(Fixture("model/tokenizer.json"), &tok).ok());
  EXPECT_EQ(tok.Normalize("\xEF\xAC\x81ne"), "fine");                         // U+FB01 ligature
  EXPECT_EQ(tok.Normalize("\xEF\xBC\xA1\xEF\xBC\xA2\xEF\xBC\x91"), "AB1");    // full-width
  EXPECT_EQ(tok.Normalize("x\xC2\xB2"), "x2");                                 // superscript two
  EXPECT_EQ(tok.Normalize("\xE2\x91\xA0"), "1");                               // circled one
}

// The encoder alone on the golden ids (every sentence in one padded batch): token and pooled vectors.
void CheckEncoder(size_t m) {
  const Golden& g = ReadGolden();
  std::vector<std::vector<float>> hidden;
  Status s = T5EncoderHidden(Fixture(g.models[m]), g.ids, &hidden);
  ASSERT_TRUE(s.ok()) << s.ToString();
  double max_token = 0, max_pooled = 0, min_cos = 1, largest = 0;
  for (size_t i = 0; i < g.sentences; ++i) {
    const size_t n = g.ids[i].size();
    ASSERT_EQ(hidden[i].size(), n * g.d);
    for (size_t t = 0; t < n; ++t) {
      const float* ours = hidden[i].data() + t * g.d;
      const float* ref = g.tokens[m][i].data() + t * g.d;
      min_cos = std::min(min_cos, Cosine(ours, ref, g.d));
      for (size_t k = 0; k < g.d; ++k) {
        max_token = std::max(max_token, std::fabs(double(ours[k]) - ref[k]));
        largest = std::max(largest, std::fabs(double(ref[k])));
      }
    }
    for (size_t k = 0; k < g.d; ++k) {
      double mean = 0;
      for (size_t t = 0; t < n; ++t) mean += hidden[i][t * g.d + k];
      max_pooled = std::max(max_pooled, std::fabs(mean / n - g.pooled[m][i * g.d + k]));
    }
  }
  std::printf("%s: tokens max |diff| %.2e (largest |value| %.2f), min cosine 1-%.1e; pooled max |diff| %.2e\n",
              g.models[m].c_str(), max_token, largest, 1 - min_cos, max_pooled);
  // Measured 2.2e-6 / 7.8e-7 (values up to 5.2): the bounds leave about 10x for other BLAS builds.
  EXPECT_LT(max_token, 2e-5);
  EXPECT_LT(max_pooled, 1e-5);
  EXPECT_GT(min_cos, 1 - 1e-9);
}

TEST(TrainerT5Golden, GatedGeluEncoderMatchesTransformers) { CheckEncoder(0); }
TEST(TrainerT5Golden, ReluEncoderMatchesTransformers) { CheckEncoder(1); }
TEST(TrainerT5Golden, Bfloat16WeightsMatchTransformers) { CheckEncoder(2); }

// Through the Teacher interface, as the pipeline runs it: the Sentence Transformer's output (Dense,
// Normalize) from the sentences' text, in one padded batch and in batches of 7, and word vectors (one
// span per token: the Dense projection of that token's reference vector).
TEST(TrainerT5Golden, SentenceTransformerOutputMatches) {
  const Golden& g = ReadGolden();
  for (size_t m = 0; m < g.models.size(); ++m) {
    const std::string dir = Fixture(g.models[m]);
    TeacherOptions o;
    o.kind = "t5";
    o.path = dir;
    o.device = "cpu";
    std::unique_ptr<Teacher> teacher;
    Status s = LoadTeacher(o, &teacher);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ(teacher->dims(), g.out);
    std::unique_ptr<formats::SafeTensors> st;
    ASSERT_TRUE(formats::SafeTensors::Open(dir + "/2_Dense/model.safetensors", &st).ok());
    std::vector<float> dense;
    ASSERT_TRUE(st->ReadF32("linear.weight", {int64_t(g.out), int64_t(g.d)}, &dense).ok());
    UnigramTokenizer tok;
    ASSERT_TRUE(UnigramTokenizer::Load(dir + "/tokenizer.json", &tok).ok());
    std::vector<std::string> sentences;
    std::vector<std::vector<WordSpan>> spans;
    std::vector<std::vector<TeacherToken>> tokens(g.sentences);
    for (size_t i = 0; i < g.sentences; ++i) {
      sentences.push_back(g.meta["sentences"][i].get<std::string>());
      tok.Encode(sentences.back(), static_cast<uint32_t>(g.max_seq), &tokens[i]);
      spans.emplace_back();
      for (const auto& t : tokens[i]) {
        if (t.begin < t.end) spans.back().push_back({t.begin, t.end});
      }
    }
    for (size_t batch : {g.sentences, size_t{7}}) {
      double max_final = 0, max_word = 0;
      size_t words = 0;
      for (size_t first = 0; first < g.sentences; first += batch) {
        const size_t n = std::min(batch, g.sentences - first);
        std::vector<std::string> bs(sentences.begin() + first, sentences.begin() + first + n);
        std::vector<std::vector<WordSpan>> bspans(spans.begin() + first, spans.begin() + first + n);
        TeacherOutput out;
        ASSERT_TRUE(teacher->Encode(bs, &bspans, &out).ok());
        size_t row = 0;
        for (size_t b = 0; b < n; ++b) {
          const size_t i = first + b;
          for (size_t k = 0; k < g.out; ++k) {
            max_final = std::max(max_final, std::fabs(double(out.sentence_vectors[b * g.out + k]) - g.final[m][i * g.out + k]));
          }
          for (const WordSpan& w : bspans[b]) {
            std::vector<double> expect(g.out, 0.0);
            int count = 0;
            for (size_t t = 0; t < tokens[i].size(); ++t) {
              const TeacherToken& tk = tokens[i][t];
              if (tk.begin >= tk.end || tk.begin >= w.end || tk.end <= w.begin) continue;
              const float* h = g.tokens[m][i].data() + t * g.d;
              for (size_t r = 0; r < g.out; ++r)
                for (size_t k = 0; k < g.d; ++k) expect[r] += double(dense[r * g.d + k]) * h[k];
              ++count;
            }
            ASSERT_EQ(out.found[row], 1);
            for (size_t r = 0; r < g.out; ++r) {
              max_word = std::max(max_word, std::fabs(out.word_vectors[row * g.out + r] - expect[r] / count));
            }
            ++row;
            ++words;
          }
        }
      }
      std::printf("%s, batches of %zu: final (Dense + Normalize) max |diff| %.2e; %zu word vectors max |diff| %.2e\n",
                  g.models[m].c_str(), batch, max_final, words, max_word);
      EXPECT_LT(max_final, 2e-6);  // measured 2.1e-7
      EXPECT_LT(max_word, 2e-5);   // measured 1.9e-6
    }
  }
}

}  // namespace
}  // namespace swe::trainer
