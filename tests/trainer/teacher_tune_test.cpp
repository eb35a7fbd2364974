// Teacher fine-tuning (teacher_tune.h, recipe section tune, tune_stage.h): USE-lite learns a synthetic
// contrastive problem, every weight is trained, the weights file round-trips bit for bit, and bad
// recipes and weights files are refused with messages that name the problem.
#include "refine/teacher_tune.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>

#include "recipe/recipe.h"
#include "swe/formats/safetensors.h"
#include "test_util.h"
#include "pipeline/tune_stage.h"
#include "teachers/use_lite_teacher.h"
#include "use_lite_test_util.h"

namespace swe::trainer {
namespace {
using nlohmann::json;
using testing::TempDir;

// `n` pairs "5 filler words + a topic word" <TAB> "5 other filler words + the same topic word": the
// pair is told apart from the batch's other pairs only by the topic word, which training must learn
// to weigh above the fillers.
std::string TopicPairs(int n, uint32_t seed) {
  const std::vector<std::string> topics = {"volcano", "violin",  "penguin", "tractor", "diamond", "glacier",
                                           "bakery",  "rocket",  "tiger",   "lantern", "harbor",  "cactus",
                                           "piano",   "dolphin", "castle",  "orchard", "comet",   "saddle"};
  const std::vector<std::string> fillers = {
      "the",   "a",     "old",   "new",   "small",  "large",  "quiet", "loud",   "red",   "blue",   "green",
      "near",  "under", "over",  "after", "before", "today",  "again", "slowly", "very",  "often",  "never",
      "man",   "woman", "child", "friend", "city",  "road",   "house", "table",  "door",  "window", "street",
      "walks", "sees",  "finds", "likes", "keeps",  "brings", "holds", "paints", "moves", "waits",  "runs"};
  std::mt19937 rng(seed);
  std::uniform_int_distribution<size_t> topic(0, topics.size() - 1), filler(0, fillers.size() - 1), at(0, 5);
  auto side = [&](const std::string& t) {
    std::vector<std::string> words;
    for (int i = 0; i < 5; ++i) words.push_back(fillers[filler(rng)]);
    words.insert(words.begin() + static_cast<std::ptrdiff_t>(at(rng)), t);
    std::string s;
    for (const std::string& w : words) s += (s.empty() ? "" : " ") + w;
    return s;
  };
  std::string text;
  for (int i = 0; i < n; ++i) {
    const std::string& t = topics[topic(rng)];
    text += side(t) + "\t" + side(t) + "\n";
  }
  return text;
}

ObjectiveSpec PairsObjective(const std::string& path) {
  ObjectiveSpec spec;
  spec.kind = ObjectiveKind::kContrastive;
  spec.tau = 0.05;
  spec.data = {{path}};
  return spec;
}

// The bytes of every tensor of a safetensors file, by name.
std::map<std::string, std::string> TensorBytes(const std::string& path) {
  std::unique_ptr<formats::SafeTensors> st;
  Status s = formats::SafeTensors::Open(path, &st);
  EXPECT_TRUE(s.ok()) << s.ToString();
  std::map<std::string, std::string> out;
  if (st) {
    for (const auto& [name, t] : st->tensors()) out[name] = std::string(reinterpret_cast<const char*>(t.data), t.bytes);
  }
  return out;
}

std::vector<float> Pooled(const UseLiteModel& model, const std::vector<std::string>& sentences) {
  UseLiteBatch out;
  Status s = model.Run(sentences, false, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out.pooled;
}

// One tuning of USE-lite on the topic pairs, shared by the tests that look at its result.
class TrainerTeacherTune : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    testing::WriteFile(dir_->file("pairs.tsv"), TopicPairs(240, 3));
    TuneOptions o;
    o.objectives = {PairsObjective(dir_->file("pairs.tsv"))};
    o.output = dir_->file("tuned.safetensors");
    o.batch_size = 16;
    o.lr = 3e-4;
    o.warmup = 0.1;
    o.max_epochs = 3;
    o.eval_steps = 10;
    o.patience = 10;
    o.heldout = 0.2;
    o.snapshots = true;
    TeacherOptions t;
    t.kind = "use-lite";
    t.path = swe::test::UseLiteDir();
    if (!swe::test::UseLiteFound(t.path)) return;  // each test skips (or fails, when required)
    ConfigureTorch(2, 1);
    status_ = new Status(TuneTeacher(t, o, &report_));
  }
  static void TearDownTestSuite() {
    delete status_;
    delete dir_;
  }
  void SetUp() override {
    SWE_TEST_REQUIRE_USE_LITE(&model_dir_);
    ASSERT_TRUE(status_ != nullptr && status_->ok()) << (status_ ? status_->ToString() : "not run");
  }
  std::string model_dir_;
  static TempDir* dir_;
  static Status* status_;
  static TuneReport report_;
};
TempDir* TrainerTeacherTune::dir_ = nullptr;
Status* TrainerTeacherTune::status_ = nullptr;
TuneReport TrainerTeacherTune::report_;

// The held-out loss falls well below the untuned teacher's, and the best weights are written.
TEST_F(TrainerTeacherTune, LearnsASyntheticProblem) {
  ASSERT_GE(report_.evaluations.size(), 3u);
  const double initial = report_.evaluations.front().heldout;
  double best = initial;
  for (const TuneEvaluation& e : report_.evaluations) best = std::min(best, e.heldout);
  std::printf("[ tune    ] held-out InfoNCE %.4f -> %.4f (step %llu of %llu)\n", initial, best,
              static_cast<unsigned long long>(report_.best_step), static_cast<unsigned long long>(report_.steps));
  EXPECT_GT(report_.best_step, 0u);
  EXPECT_LT(best, 0.6 * initial);
  EXPECT_EQ(report_.train_examples, std::vector<uint64_t>{192});
  EXPECT_EQ(report_.heldout_examples, std::vector<uint64_t>{48});
  EXPECT_EQ(report_.sentences, report_.steps * 32);
  EXPECT_TRUE(FileExists(dir_->file("tuned.step-10.safetensors")));
}

// Every weight gets a gradient: each tensor of the tuned file differs from the untuned graph's.
TEST_F(TrainerTeacherTune, EveryWeightIsTrained) {
  std::unique_ptr<UseLiteModel> untuned;
  ASSERT_TRUE(UseLiteModel::Load(model_dir_, "cpu", &untuned).ok());
  ASSERT_TRUE(untuned->SaveWeights(dir_->file("untuned.safetensors"), {}).ok());
  const auto before = TensorBytes(dir_->file("untuned.safetensors"));
  const auto after = TensorBytes(dir_->file("tuned.safetensors"));
  const std::vector<std::string> names = untuned->WeightNames();
  EXPECT_EQ(names.size(), 29u);  // the embeddings, 14 and 12 in the layers, the head's 2
  ASSERT_EQ(before.size(), names.size());
  ASSERT_EQ(after.size(), names.size());
  for (const std::string& name : names) {
    ASSERT_TRUE(before.count(name) && after.count(name)) << name;
    EXPECT_EQ(before.at(name).size(), after.at(name).size()) << name;
    EXPECT_NE(before.at(name), after.at(name)) << name << " was not trained";
  }
}

// The weights file read into a fresh model and written again gives the same bytes, and two models
// loaded with it give the same vectors bit for bit, other than the untuned teacher's.
TEST_F(TrainerTeacherTune, WeightsRoundTripBitForBit) {
  std::unique_ptr<UseLiteModel> a, b, untuned;
  ASSERT_TRUE(UseLiteModel::Load(model_dir_, "cpu", &a).ok());
  ASSERT_TRUE(UseLiteModel::Load(model_dir_, "cpu", &b).ok());
  ASSERT_TRUE(UseLiteModel::Load(model_dir_, "cpu", &untuned).ok());
  Status s = a->LoadWeights(dir_->file("tuned.safetensors"));
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(b->LoadWeights(dir_->file("tuned.safetensors")).ok());
  ASSERT_TRUE(a->SaveWeights(dir_->file("again.safetensors"), {}).ok());
  EXPECT_EQ(TensorBytes(dir_->file("again.safetensors")), TensorBytes(dir_->file("tuned.safetensors")));
  const std::vector<std::string> sentences = {"the old violin near the door", "A tiger walks slowly.", ""};
  const std::vector<float> va = Pooled(*a, sentences), vb = Pooled(*b, sentences), vu = Pooled(*untuned, sentences);
  ASSERT_EQ(va.size(), 3u * 512);
  EXPECT_EQ(std::memcmp(va.data(), vb.data(), va.size() * sizeof(float)), 0);
  EXPECT_NE(std::memcmp(va.data(), vu.data(), va.size() * sizeof(float)), 0);
  // The teacher a recipe loads (teacher.weights) is the same model.
  TeacherOptions t;
  t.kind = "use-lite";
  t.path = model_dir_;
  t.device = "cpu";
  t.weights = dir_->file("tuned.safetensors");
  std::unique_ptr<Teacher> teacher;
  s = LoadTeacher(t, &teacher);
  ASSERT_TRUE(s.ok()) << s.ToString();
  TeacherOutput out;
  ASSERT_TRUE(teacher->Encode(sentences, nullptr, &out).ok());
  EXPECT_EQ(out.sentence_vectors, va);
  EXPECT_NE(teacher->name().find("+" + t.weights), std::string::npos) << teacher->name();
}

// A weights file with another tensor, shape or a non-finite value is refused, naming it.
TEST(TrainerTeacherWeights, BadFilesAreRefused) {
  std::string dir;
  SWE_TEST_REQUIRE_USE_LITE(&dir);
  TempDir tmp;
  std::unique_ptr<UseLiteModel> model;
  ASSERT_TRUE(UseLiteModel::Load(dir, "cpu", &model).ok());
  auto refused = [&](const std::map<std::string, testing::TensorSpec>& tensors, const std::string& needle) {
    testing::WriteFile(tmp.file("w.safetensors"), testing::SafetensorsBytes(tensors));
    Status s = model->LoadWeights(tmp.file("w.safetensors"));
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(tmp.file("w.safetensors")), std::string::npos) << s.message();
  };
  refused({{"layer9.qkv.weight", {"F32", {2}, {1, 2}}}}, "'layer9.qkv.weight' is not a USE-lite weight");
  refused({{"head.bias", {"F32", {2}, {1, 2}}}}, "head.bias");
  std::vector<float> bias(512, 0.0f);
  bias[7] = std::nanf("");
  refused({{"head.bias", {"F32", {512}, bias}}}, "head.bias");
  Status s = model->LoadWeights(tmp.file("missing.safetensors"));
  EXPECT_NE(s.message().find("teacher weights not found"), std::string::npos) << s.message();
  // A file naming some weights sets only those (f16 accepted).
  std::vector<float> zeros(512, 0.0f);
  testing::WriteFile(tmp.file("w.safetensors"), testing::SafetensorsBytes({{"head.bias", {"F16", {512}, zeros}}}));
  s = model->LoadWeights(tmp.file("w.safetensors"));
  EXPECT_TRUE(s.ok()) << s.ToString();
  // Another kind of teacher does not read weights.
  TeacherOptions t;
  t.kind = "bert";
  t.path = tmp.path();
  t.weights = tmp.file("w.safetensors");
  std::unique_ptr<Teacher> teacher;
  s = LoadTeacher(t, &teacher);
  EXPECT_NE(s.message().find("are for a fine-tuned use-lite teacher, not bert"), std::string::npos) << s.message();
}

json TuneRecipe(const TempDir& dir) {
  return {{"name", "tuned"},
          {"work_dir", dir.file("work")},
          {"teacher", {{"kind", "use-lite"}, {"path", swe::test::UseLiteDir()}}},
          {"tune",
           {{"objectives", {{{"kind", "contrastive"}, {"format", "triples"}, {"data", {dir.file("triples.tsv")}}}}},
            {"batch_size", 4},
            {"max_steps", 2},
            {"lr", 1e-4}}},
          {"threads", 2}};
}

// The tune section's keys, defaults and errors.
TEST(TrainerTeacherTuneRecipe, KeysAndErrors) {
  TempDir dir;
  Recipe r;
  const json good = TuneRecipe(dir);
  Status s = ParseRecipe(good.dump(), &r);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(r.has_tune);
  EXPECT_TRUE(r.tune_only);  // no export: a recipe for the teacher alone
  EXPECT_EQ(r.tune.output, dir.file("work") + "/teacher.safetensors");
  ASSERT_EQ(r.tune.objectives.size(), 1u);
  EXPECT_TRUE(r.tune.objectives[0].triples);
  EXPECT_DOUBLE_EQ(r.tune.objectives[0].tau, 0.05);
  EXPECT_EQ(r.tune.max_steps, 2u);
  auto error = [&](const std::function<void(json&)>& edit) {
    json j = good;
    edit(j);
    Status st = ParseRecipe(j.dump(), &r);
    EXPECT_FALSE(st.ok()) << j.dump();
    return st.message();
  };
  auto has = [](const std::string& message, const std::string& needle) {
    EXPECT_NE(message.find(needle), std::string::npos) << message;
  };
  has(error([](json& j) { j["tune"]["objectives"][0] = {{"kind", "kd"}}; }),
      "tune.objectives[0].kind must be contrastive");
  has(error([](json& j) { j["tune"]["objectives"] = json::array(); }), "'tune.objectives' must be a non-empty list");
  has(error([](json& j) { j["tune"].erase("objectives"); }), "'tune.objectives' must be a non-empty list");
  has(error([](json& j) { j["tune"]["objectives"][0].erase("data"); }), "'tune.objectives[0].data' is required");
  has(error([](json& j) { j["tune"]["lr"] = 0; }), "tune.lr must be positive");
  has(error([](json& j) { j["tune"]["lr"] = "fast"; }), "'tune.lr' must be a number");
  has(error([](json& j) { j["tune"]["warmup"] = 1; }), "tune.warmup must be in [0, 1)");
  has(error([](json& j) { j["tune"]["heldout"] = 0; }), "tune.heldout must be in (0, 1)");
  has(error([](json& j) { j["tune"]["batch_size"] = 1; }), "tune.batch_size must be at least 2");
  has(error([](json& j) { j["tune"]["epochs"] = 2; }), "unknown key 'tune.epochs'");
  has(error([](json& j) { j["teacher"]["kind"] = "bert"; }), "tune fine-tunes a use-lite teacher");
  has(error([](json& j) { j["teacher"]["weights"] = 3; }), "'teacher.weights' must be a string");
  // With an export, the recipe is a student's too.
  json student = good;
  student["export"] = {{"path", dir.file("m.swe")}};
  EXPECT_NE(ParseRecipe(student.dump(), &r).message().find("'corpus.paths' needs at least one file"), std::string::npos);
  student["corpus"] = {{"paths", {dir.file("corpus.txt")}}};
  ASSERT_TRUE(ParseRecipe(student.dump(), &r).ok());
  EXPECT_FALSE(r.tune_only);
}

// RunTune writes the weights and a marker; a second run is up to date; a changed data file runs it
// again; UseTunedTeacher points the stages at the weights, and refuses stale ones.
TEST(TrainerTeacherTuneRecipe, RunsOnceAndAgainWhenTheDataChange) {
  std::string model_dir;
  SWE_TEST_REQUIRE_USE_LITE(&model_dir);
  TempDir dir;
  std::string triples;
  for (int i = 0; i < 12; ++i) {
    triples += "A man plays the violin number " + std::to_string(i) + ".\tSomeone makes music.\tNobody is playing.\n";
  }
  testing::WriteFile(dir.file("triples.tsv"), triples);
  json j = TuneRecipe(dir);
  j["export"] = {{"path", dir.file("m.swe")}};
  j["corpus"] = {{"paths", {dir.file("corpus.txt")}}};
  Recipe r;
  ASSERT_TRUE(ParseRecipe(j.dump(), &r).ok());
  std::vector<std::string> lines;
  RunOptions o;
  o.log = [&lines](const std::string& line) { lines.push_back(line); };
  Recipe stale = r;
  Status s = UseTunedTeacher(&stale);
  EXPECT_NE(s.message().find("the tuned teacher is not up to date"), std::string::npos) << s.message();
  s = RunTune(r, o);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(FileExists(r.tune.output));
  const json marker = json::parse(testing::ReadFile(r.tune.output + ".json"));
  EXPECT_EQ(marker["stats"]["steps"], 2);
  EXPECT_EQ(marker["stats"]["evaluations"].size(), 2u);
  EXPECT_TRUE(marker["inputs"].contains(dir.file("triples.tsv")));
  lines.clear();
  ASSERT_TRUE(RunTune(r, o).ok());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("tune: up to date"), std::string::npos) << lines[0];
  Recipe used = r;
  ASSERT_TRUE(UseTunedTeacher(&used).ok());
  EXPECT_EQ(used.teacher.weights, r.tune.output);
  EXPECT_NE(used.sections.at("teacher"), r.sections.at("teacher"));  // the stages' keys follow it
  testing::WriteFile(dir.file("triples.tsv"), triples + "Two dogs run.\tAnimals move.\tThe dogs sleep.\n");
  lines.clear();
  ASSERT_TRUE(RunTune(r, o).ok());
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0].find("tune: up to date"), std::string::npos) << lines[0];
}

}  // namespace
}  // namespace swe::trainer
