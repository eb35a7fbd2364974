// CUDA: device selection everywhere; where libtorch has CUDA and the machine a GPU, the device paths
// of both teachers, of refinement and of the whole pipeline, checked against the CPU (and USE-lite
// against the original graph's golden vectors, as on the CPU). Without CUDA (Debian's libtorch is
// CPU-only) the device tests are skipped, or fail under SWE_REQUIRE_CUDA=1 (for runs on a GPU machine,
// so that a CPU-only libtorch found by mistake cannot pass them silently). docs/TRAINER.md, "CUDA".
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <random>

#include "teachers/extract.h"
#include "pipeline/pipeline.h"
#include "swe/util/progress.h"
#include "recipe/recipe.h"
#include "refine/refine.h"
#include "swe/model_file.h"
#include "teachers/teacher.h"
#include "test_util.h"
#include "teachers/use_lite_teacher.h"
#include "use_lite_test_util.h"
#include "test_paths.h"

namespace swe::trainer {
namespace {
using nlohmann::json;
using testing::TempDir;

bool CudaRequired() {
  const char* env = std::getenv("SWE_REQUIRE_CUDA");
  return env && std::string(env) == "1";
}

#define SWE_TEST_REQUIRE_CUDA()                                                          \
  do {                                                                                   \
    if (CudaDeviceCount() == 0) {                                                        \
      if (CudaRequired()) FAIL() << "SWE_REQUIRE_CUDA=1 but libtorch sees no CUDA device"; \
      GTEST_SKIP() << "no CUDA (CPU-only libtorch or no GPU)";                           \
    }                                                                                    \
  } while (0)

using testing::Cosine;

double MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) d = std::max(d, std::fabs(static_cast<double>(a[i]) - b[i]));
  return d;
}

TEST(TrainerDevice, ResolvesDeviceNames) {
  const int count = CudaDeviceCount();
  ASSERT_GE(count, 0);
  std::string d;
  ASSERT_TRUE(ResolveDevice("auto", &d).ok());
  EXPECT_EQ(d, count > 0 ? "cuda" : "cpu");
  ASSERT_TRUE(ResolveDevice("", &d).ok());
  EXPECT_EQ(d, count > 0 ? "cuda" : "cpu");
  ASSERT_TRUE(ResolveDevice("cpu", &d).ok());
  EXPECT_EQ(d, "cpu");
  for (const char* bad : {"gpu", "CPU", "tpu:0", "cuda:banana", "cuda:-1", "cuda:0:1"}) {
    EXPECT_EQ(ResolveDevice(bad, &d).code(), StatusCode::kInvalidArgument) << bad;
  }
  Status s = ResolveDevice("cuda:" + std::to_string(count), &d);  // one past the last device
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  if (count == 0) {
    s = ResolveDevice("cuda", &d);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("no CUDA"), std::string::npos) << s.message();
  } else {
    EXPECT_NE(s.message().find("CUDA device"), std::string::npos) << s.message();
    ASSERT_TRUE(ResolveDevice("cuda", &d).ok());
    EXPECT_EQ(d, "cuda");
    ASSERT_TRUE(ResolveDevice("cuda:0", &d).ok());
    EXPECT_EQ(d, "cuda:0");
  }
}

// The teachers' outputs for the same sentences and word spans on the CPU and on `device`.
void EncodeBoth(TeacherOptions o, const std::vector<std::string>& sentences, TeacherOutput* cpu, TeacherOutput* cuda) {
  std::vector<std::vector<WordSpan>> spans(sentences.size());
  std::vector<std::string> words;
  TokenizerConfig config;
  for (size_t i = 0; i < sentences.size(); ++i) SplitWithSpans(sentences[i], config, &words, &spans[i]);
  for (TeacherOutput* out : {cpu, cuda}) {
    o.device = out == cpu ? "cpu" : "cuda";
    std::unique_ptr<Teacher> teacher;
    Status s = LoadTeacher(o, &teacher);
    ASSERT_TRUE(s.ok()) << s.ToString();
    s = teacher->Encode(sentences, &spans, out);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  ASSERT_EQ(cpu->dims, cuda->dims);
  ASSERT_EQ(cpu->found, cuda->found);
  ASSERT_EQ(cpu->word_vectors.size(), cuda->word_vectors.size());
  ASSERT_EQ(cpu->sentence_vectors.size(), cuda->sentence_vectors.size());
}

void ExpectRowsClose(const std::vector<float>& a, const std::vector<float>& b, size_t dims, double min_cos,
                     const char* what) {
  double worst = 1;
  for (size_t r = 0; r * dims < a.size(); ++r) worst = std::min(worst, Cosine(a.data() + r * dims, b.data() + r * dims, dims));
  EXPECT_GE(worst, min_cos) << what;
  std::printf("[ cuda    ] %s: %zu rows, min cosine 1 - %.3g, max |diff| %.3g\n", what, a.size() / dims, 1 - worst,
              MaxAbsDiff(a, b));
}

TEST(TrainerCuda, BertTeacherMatchesTheCpu) {
  SWE_TEST_REQUIRE_CUDA();
  TempDir dir;
  testing::WriteTinyBert(dir.path(), testing::TinyBertOptions());
  TeacherOptions o;
  o.path = dir.path();
  TeacherOutput cpu, cuda;
  EncodeBoth(o, {"The cats sat on the mat.", "A dog.", "", "the the the cat dog mat sat on a"}, &cpu, &cuda);
  if (HasFatalFailure()) return;
  ExpectRowsClose(cpu.sentence_vectors, cuda.sentence_vectors, cpu.dims, 0.99999, "bert sentence vectors");
  ExpectRowsClose(cpu.word_vectors, cuda.word_vectors, cpu.dims, 0.99999, "bert word vectors");
  EXPECT_LE(MaxAbsDiff(cpu.word_vectors, cuda.word_vectors), 1e-4);
}

// The t5 teacher on the golden fixture's gated-gelu model (relative position bias, padding mask, Dense,
// Normalize) and its 30 sentences, in one padded batch.
TEST(TrainerCuda, T5TeacherMatchesTheCpu) {
  SWE_TEST_REQUIRE_CUDA();
  const std::string fixture = std::string(swe::test::SourceDir()) + "/tests/trainer/fixtures/t5_golden/";
  json golden = json::parse(testing::ReadFile(fixture + "golden.json"));
  TeacherOptions o;
  o.kind = "t5";
  o.path = fixture + "model";
  TeacherOutput cpu, cuda;
  EncodeBoth(o, golden["sentences"].get<std::vector<std::string>>(), &cpu, &cuda);
  if (HasFatalFailure()) return;
  ExpectRowsClose(cpu.sentence_vectors, cuda.sentence_vectors, cpu.dims, 0.99999, "t5 sentence vectors");
  ExpectRowsClose(cpu.word_vectors, cuda.word_vectors, cpu.dims, 0.99999, "t5 word vectors");
  EXPECT_LE(MaxAbsDiff(cpu.word_vectors, cuda.word_vectors), 1e-4);
}

TEST(TrainerCuda, UseLiteMatchesTheOriginalAndTheCpu) {
  SWE_TEST_REQUIRE_CUDA();
  std::string dir;
  SWE_TEST_REQUIRE_USE_LITE(&dir);
  json golden = json::parse(testing::ReadFile(testing::UseLiteFixture("golden.json")));
  const std::vector<float> want = testing::GoldenFloats(testing::UseLiteFixture("golden.f32")).all();
  const auto sentences = golden["sentences"].get<std::vector<std::string>>();
  const size_t D = 512, N = sentences.size();
  ASSERT_GE(want.size(), N * D);
  std::unique_ptr<UseLiteModel> model;
  Status s = UseLiteModel::Load(dir, "cuda", &model);
  ASSERT_TRUE(s.ok()) << s.ToString();
  // Pooled vectors against the original graph, batched by 10 as the golden script did.
  std::vector<float> pooled;
  for (size_t start = 0; start < N; start += 10) {
    std::vector<std::string> batch(sentences.begin() + start, sentences.begin() + std::min(N, start + 10));
    UseLiteBatch out;
    ASSERT_TRUE(model->Run(batch, false, &out).ok());
    pooled.insert(pooled.end(), out.pooled.begin(), out.pooled.end());
  }
  ExpectRowsClose(pooled, std::vector<float>(want.begin(), want.begin() + N * D), D, 0.9999, "use-lite pooled vs original");
  // Last-layer token vectors of the golden token sentences, one batch, against the original.
  std::vector<std::string> batch;
  for (size_t i : golden["token_sentences"].get<std::vector<size_t>>()) batch.push_back(sentences[i]);
  UseLiteBatch out;
  ASSERT_TRUE(model->Run(batch, true, &out).ok());
  ASSERT_EQ(out.token_vectors.size(), want.size() - N * D);
  ExpectRowsClose(out.token_vectors, std::vector<float>(want.begin() + N * D, want.end()), D, 0.9999,
                  "use-lite token vectors vs original");
  // The Teacher interface (word vectors through byte-offset alignment) against the CPU.
  TeacherOptions o;
  o.kind = "use-lite";
  o.path = dir;
  TeacherOutput cpu, cuda;
  EncodeBoth(o, std::vector<std::string>(sentences.begin(), sentences.begin() + 40), &cpu, &cuda);
  if (HasFatalFailure()) return;
  ExpectRowsClose(cpu.sentence_vectors, cuda.sentence_vectors, D, 0.99999, "use-lite sentence vectors, cuda vs cpu");
  ExpectRowsClose(cpu.word_vectors, cuda.word_vectors, D, 0.99999, "use-lite word vectors, cuda vs cpu");
}

// Refinement from the same data and seed on both devices: the same split, the same batches, losses
// equal up to float rounding (atomics make CUDA's embedding-bag gradients order-dependent).
TEST(TrainerCuda, RefineMatchesTheCpu) {
  SWE_TEST_REQUIRE_CUDA();
  util::Progress::SetEnabled(false);
  const uint32_t rows = 40, d = 8, n = 600;
  std::mt19937 rng(5);
  Matrix initial;
  const RefineData data = testing::SyntheticKdProblem(rows, d, n, rng, &initial);
  RefineOptions o;
  o.batch_size = 32;
  o.lr = 0.05;
  o.max_epochs = 4;
  o.patience = 4;
  o.tau = 0.1;
  Matrix on_cpu = initial, on_cuda = initial;
  RefineReport cpu, cuda;
  ASSERT_TRUE(RefineKd(data, o, &on_cpu, &cpu).ok());
  o.device = "cuda";
  Status s = RefineKd(data, o, &on_cuda, &cuda);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(cuda.heldout_sentences, cpu.heldout_sentences);
  EXPECT_NEAR(cuda.initial_heldout, cpu.initial_heldout, 1e-5 * cpu.initial_heldout);
  ASSERT_EQ(cuda.heldout_loss.size(), cpu.heldout_loss.size());
  for (size_t e = 0; e < cpu.heldout_loss.size(); ++e) {
    EXPECT_NEAR(cuda.heldout_loss[e], cpu.heldout_loss[e], 1e-3 * cpu.heldout_loss[e]) << "epoch " << e + 1;
  }
  EXPECT_LT(cuda.best_heldout, 0.8 * cuda.initial_heldout);
  EXPECT_LE(MaxAbsDiff(on_cpu.data, on_cuda.data), 1e-2);
}

// Every stage with a tiny random teacher on the GPU: the model exports, core reads it, and it has the
// CPU run's vocabulary and a held-out KD loss close to the CPU run's.
TEST(TrainerCuda, PipelineTrainsOnCuda) {
  SWE_TEST_REQUIRE_CUDA();
  util::Progress::SetEnabled(false);
  TempDir dir;
  testing::WriteTinyBert(dir.file("teacher"), testing::TinyBertOptions());
  testing::WriteFile(dir.file("corpus.txt.zst"), testing::Zstd(testing::TinyCorpus(1500, 11)));
  std::unique_ptr<Model> models[2];
  for (int i = 0; i < 2; ++i) {
    const std::string device = i == 0 ? "cpu" : "cuda";
    json r = {{"name", "tiny-" + device},
              {"work_dir", dir.file("work-" + device)},
              {"corpus", {{"paths", {dir.file("corpus.txt.zst")}}}},
              {"vocab", {{"size", 60}, {"min_count", 2}}},
              {"sample", {{"per_word", 10}, {"sentences", 400}}},
              {"teacher", {{"kind", "bert"}, {"path", dir.file("teacher")}, {"batch_size", 32}}},
              {"pca", {{"dims", 8}, {"remove", 1}}},
              {"refine", {{"batch_size", 32}, {"max_epochs", 3}, {"heldout", 0.2}}},
              {"export", {{"path", dir.file(device + ".swe")}}},
              {"device", device},
              {"threads", 2}};
    Recipe recipe;
    ASSERT_TRUE(ParseRecipe(r.dump(), &recipe).ok());
    RunOptions o;
    o.log = [](const std::string&) {};
    Status s = RunPipeline(recipe, o);
    ASSERT_TRUE(s.ok()) << device << ": " << s.ToString();
    std::string bytes = testing::ReadFile(dir.file(device + ".swe"));
    ASSERT_TRUE(ReadModel(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &models[i]).ok());
  }
  ASSERT_EQ(models[1]->vocab_size(), models[0]->vocab_size());
  for (uint32_t w = 0; w < models[0]->vocab_size(); ++w) EXPECT_EQ(models[1]->word(w), models[0]->word(w));
  const auto& cpu = models[0]->provenance().scores;
  const auto& cuda = models[1]->provenance().scores;
  ASSERT_EQ(cuda.size(), 2u);
  ASSERT_EQ(cpu.size(), 2u);
  EXPECT_NEAR(cuda[0].value, cpu[0].value, 1e-3 * cpu[0].value);  // initial held-out KL: extraction + PCA agree
  EXPECT_NEAR(cuda[1].value, cpu[1].value, 0.05 * cpu[1].value);   // after refinement
}

}  // namespace
}  // namespace swe::trainer
