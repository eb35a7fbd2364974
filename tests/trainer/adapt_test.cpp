// swe-trainer adapt, end to end through the program: a base model's missing corpus words are added and
// only their rows trained (KD with the tiny teacher, contrastive on pairs), the base rows keep their
// bits, and the model card says what was added. Also the recipe's adapt section and its errors.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "recipe/recipe.h"
#include "swe/model_file.h"
#include "test_paths.h"
#include "test_util.h"

namespace swe::trainer {
namespace {
using nlohmann::json;
using testing::TempDir;

const std::vector<std::string> kNewWords = {"zorblax", "quintor", "mervane", "pallisk", "drovient"};

// Runs swe-trainer with `args`; its exit status into *rc, stdout and stderr returned.
std::string RunTrainer(const std::string& args, int* rc) {
  FILE* f = popen((std::string(swe::test::TrainerPath()) + " " + args + " 2>&1").c_str(), "r");
  if (f == nullptr) return "popen failed";
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, f)) out += buf;
  *rc = pclose(f);
  return out;
}

// TinyCorpus with the new words mixed in: each occurs in about a hundred sentences.
std::string DomainCorpus() {
  std::string base = testing::TinyCorpus(400, 11), out;
  std::mt19937 rng(5);
  size_t line = 0;
  for (size_t start = 0, end; (end = base.find('\n', start)) != std::string::npos; start = end + 1, ++line) {
    std::string s = base.substr(start, end - start);
    if (line % 2 == 0) s.insert(s.size() - 1, " " + kNewWords[rng() % kNewWords.size()]);
    out += s + "\n";
  }
  return out;
}

TEST(TrainerAdapt, AddsTheCorpusWordsAndTrainsOnlyTheirRows) {
  TempDir dir;
  testing::TinyBertOptions teacher;
  teacher.words = testing::TinyWords();
  teacher.words.insert(teacher.words.end(), kNewWords.begin(), kNewWords.end());
  testing::WriteTinyBert(dir.file("teacher"), teacher);
  // An int8 base: the adapted model is int8 too, and its base rows must quantise to the same bytes.
  testing::WriteTinyModel(dir.file("base.swe"), 8, 3, DType::kInt8);
  std::unique_ptr<Model> base_model;
  ASSERT_TRUE(testing::ReadModelFile(dir.file("base.swe"), &base_model).ok());
  const ModelContents base = base_model->ToContents();
  const std::string corpus = DomainCorpus();
  testing::WriteFile(dir.file("domain.txt"), corpus);
  std::string pairs;  // a sentence and the same sentence without its first word
  for (size_t start = 0, end; (end = corpus.find('\n', start)) != std::string::npos; start = end + 1) {
    std::string s = corpus.substr(start, end - start);
    pairs += s + "\t" + s.substr(s.find(' ') + 1) + "\n";
  }
  testing::WriteFile(dir.file("pairs.tsv"), pairs);

  const std::string args = "adapt --quiet --model " + dir.file("base.swe") + " --corpus " + dir.file("domain.txt") +
                           " --pairs " + dir.file("pairs.tsv") + " --words 100 --max-epochs 4 --teacher bert " +
                           dir.file("teacher") + " -o " + dir.file("adapted.swe");
  int rc = 0;
  std::string out = RunTrainer(args, &rc);
  ASSERT_EQ(rc, 0) << out;

  std::unique_ptr<Model> model;
  ASSERT_TRUE(testing::ReadModelFile(dir.file("adapted.swe"), &model).ok());
  EXPECT_EQ(model->dtype(), DType::kInt8);
  ModelContents got = model->ToContents();
  ASSERT_EQ(got.words.size(), base.words.size() + kNewWords.size());
  ASSERT_EQ(got.dims, base.dims);
  for (size_t i = 0; i < base.words.size(); ++i) {  // the base rows: same words, same bits
    ASSERT_EQ(got.words[i], base.words[i]);
    ASSERT_EQ(std::memcmp(&got.vectors[i * base.dims], &base.vectors[i * base.dims], base.dims * sizeof(float)), 0)
        << "base row " << i << " (" << base.words[i] << ") changed";
  }
  std::set<std::string> added(got.words.begin() + base.words.size(), got.words.end());
  EXPECT_EQ(added, std::set<std::string>(kNewWords.begin(), kNewWords.end()));

  // The new rows were trained: the held-out loss (KD's, and the total) fell; the pairs' held-out loss is
  // reported beside it (the work directory's record).
  json refine = json::parse(testing::ReadFile(dir.file("adapted.swe.work/refine.json")));
  const json& stats = refine["stats"];
  EXPECT_LT(stats["best_heldout_loss"].get<double>(), stats["initial_heldout_loss"].get<double>()) << stats.dump();
  ASSERT_EQ(stats["objectives"].size(), 2u) << stats.dump();
  EXPECT_EQ(stats["objectives"][0]["kind"], "kd");
  EXPECT_LT(stats["objectives"][0]["best_heldout_loss"].get<double>(),
            stats["objectives"][0]["initial_heldout_loss"].get<double>()) << stats.dump();
  EXPECT_EQ(stats["objectives"][1]["kind"], "contrastive");
  EXPECT_GT(stats["objectives"][1]["initial_heldout_loss"].get<double>(), 0) << stats.dump();
  EXPECT_EQ(stats["frozen_rows"].get<uint64_t>(), base.words.size());

  // The model card records what was added, and the held-out scores of both objectives.
  std::map<std::string, std::string> extra(got.provenance.extra.begin(), got.provenance.extra.end());
  EXPECT_EQ(extra["added_words"], "5");
  for (const std::string& w : kNewWords) EXPECT_NE(extra["added_word_list"].find(w), std::string::npos) << w;
  EXPECT_EQ(extra["init_model"], dir.file("base.swe"));
  bool contrastive = false;
  for (const Score& s : got.provenance.scores) contrastive = contrastive || s.task == "contrastive-heldout";
  EXPECT_TRUE(contrastive);

  // Rerun: every stage is up to date.
  out = RunTrainer(args.substr(0, args.find(" --quiet")) + args.substr(args.find(" --quiet") + 8), &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("refine: up to date"), std::string::npos) << out;
  EXPECT_NE(out.find("export: up to date"), std::string::npos) << out;
  // The pairs edited in place (same size): refine and export run again.
  std::string edited = testing::ReadFile(dir.file("pairs.tsv"));
  edited[edited.find("zorblax")] = 'Z';
  testing::WriteFile(dir.file("pairs.tsv"), edited);
  out = RunTrainer(args, &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find(dir.file("pairs.tsv") + " changed since the stage ran"), std::string::npos) << out;
  EXPECT_EQ(out.find("refine: up to date"), std::string::npos) << out;
  EXPECT_NE(out.find("done in"), std::string::npos) << out;  // the summary of the stages that ran
  // A teacher file edited in place (other weights): refine, which used the teacher, runs again, with
  // its teacher vectors computed afresh.
  teacher.seed = 9;
  testing::WriteTinyBert(dir.file("teacher"), teacher);
  out = RunTrainer(args, &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find(dir.file("teacher") + "/model.safetensors changed since the stage ran"), std::string::npos) << out;
  EXPECT_EQ(out.find("refine: up to date"), std::string::npos) << out;
  EXPECT_EQ(out.find("cached teacher vectors"), std::string::npos) << out;
}

TEST(TrainerAdapt, CommandErrorsNameWhatIsMissing) {
  int rc = 0;
  std::string out = RunTrainer("adapt --corpus x.txt -o y.swe", &rc);
  EXPECT_NE(rc, 0);
  EXPECT_NE(out.find("adapt needs --model BASE.swe"), std::string::npos) << out;
  out = RunTrainer("adapt --model /nonexistent/base.swe --corpus x.txt -o y.swe", &rc);
  EXPECT_NE(rc, 0);
  EXPECT_NE(out.find("/nonexistent/base.swe"), std::string::npos) << out;
  out = RunTrainer("trian --recipe r.json", &rc);
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  for (const char* command : {"train", "adapt", "eval", "vocab", "export"}) {
    EXPECT_NE(out.find(command), std::string::npos) << command << ": " << out;
  }
  out = RunTrainer("--help", &rc);
  for (const char* command : {"train", "adapt", "eval", "vocab", "sample", "extract", "pca", "refine", "export"}) {
    EXPECT_NE(out.find(command), std::string::npos) << command;
  }
}

json AdaptRecipeJson() {
  return {{"name", "a"}, {"work_dir", "w"}, {"corpus", {{"paths", {"domain.txt"}}}},
          {"teacher", {{"kind", "use-lite"}, {"path", "t"}}},
          {"adapt", {{"model", "base.swe"}, {"words", 300}, {"pairs", {"pairs.tsv"}}}},
          {"export", {{"path", "out.swe"}}}};
}

TEST(TrainerAdapt, RecipeSectionStandsForInitAndRefine) {
  Recipe r;
  Status s = ParseRecipe(AdaptRecipeJson().dump(), &r);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(r.init_model, "base.swe");
  ASSERT_EQ(r.init_vocab.sources.size(), 1u);
  EXPECT_EQ(r.init_vocab.sources[0].size, 300u);
  EXPECT_EQ(r.init_vocab.sources[0].columns, 1u);
  EXPECT_EQ(r.init_vocab.sources[0].files[0].path, "domain.txt");
  EXPECT_TRUE(r.train_new_rows);
  ASSERT_EQ(r.objectives.size(), 2u);
  EXPECT_EQ(r.objectives[0].kind, ObjectiveKind::kKd);
  EXPECT_EQ(r.objectives[1].kind, ObjectiveKind::kContrastive);
  EXPECT_EQ(r.objectives[1].data[0].path, "pairs.tsv");
  auto error = [](const std::function<void(json&)>& edit) {
    json j = AdaptRecipeJson();
    edit(j);
    Recipe r;
    Status s = ParseRecipe(j.dump(), &r);
    EXPECT_FALSE(s.ok()) << j.dump();
    return s.message();
  };
  auto has = [](const std::string& message, const std::string& needle) {
    EXPECT_NE(message.find(needle), std::string::npos) << message;
  };
  has(error([](json& j) { j["adapt"].erase("model"); }), "'adapt.model' is required");
  has(error([](json& j) { j["adapt"]["word"] = 3; }), "unknown key 'adapt.word'");
  has(error([](json& j) { j["adapt"]["words"] = "300"; }), "'adapt.words' must be a non-negative integer");
  has(error([](json& j) { j["init"] = {{"model", "x.swe"}}; }), "'adapt' and 'init' exclude each other");
  has(error([](json& j) { j["refine"] = {{"method", "kd"}}; }), "adapt sets refine.method");
  has(error([](json& j) { j.erase("corpus"); }), "adapt needs 'corpus.paths'");
}

}  // namespace
}  // namespace swe::trainer
