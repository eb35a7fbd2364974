// Recipes with refinement objectives, init.model and compress: end to end from an existing .swe
// model with a tiny random teacher, and the recipe errors (each bad key named).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "data/matrix_io.h"
#include "pipeline/pipeline.h"
#include "swe/util/progress.h"
#include "recipe/recipe.h"
#include "swe/model_file.h"
#include "test_util.h"

namespace swe::trainer {
namespace {
using nlohmann::json;
using testing::TempDir;

// Triples of TinyCorpus sentences: anchor, the anchor with one word dropped, another sentence.
std::string Triples(int n, uint32_t seed) {
  std::string corpus = testing::TinyCorpus(2 * n, seed), out;
  std::vector<std::string> lines;
  for (size_t start = 0, end; (end = corpus.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(corpus.substr(start, end - start));
  }
  for (int i = 0; i < n; ++i) {
    const std::string& a = lines[2 * i];
    out += a + "\t" + a.substr(a.find(' ') + 1) + "\t" + lines[2 * i + 1] + "\n";
  }
  return out;
}

json InitRecipe(const TempDir& dir) {
  return {{"name", "tiny-init"},
          {"work_dir", dir.file("work")},
          {"init", {{"model", dir.file("init.swe")}}},
          {"corpus", {{"paths", {dir.file("corpus.txt")}}}},
          {"teacher", {{"kind", "bert"}, {"path", dir.file("teacher")}, {"batch_size", 32}}},
          {"refine", {{"objectives", {{{"kind", "kd"}, {"weight", 1}},
                                      {{"kind", "contrastive"}, {"weight", 0.5}, {"format", "triples"},
                                       {"data", {dir.file("triples.tsv"), {{"path", dir.file("triples.tsv")}, {"max", 50}}}}},
                                      {{"kind", "distance"}, {"weight", 0.5}, {"euclidean", 0.1}}}},
                      {"sentences", 600}, {"batch_size", 32}, {"max_epochs", 3}, {"heldout", 0.2}}},
          {"compress", {{"method", "mcr2"}, {"dims", 4}, {"clusters", 4}, {"sentences", 300}, {"steps", 20}}},
          {"export", {{"path", dir.file("out.swe")}, {"dtype", "f32"}}},
          {"device", "cpu"},
          {"threads", 2}};
}

TEST(TrainerObjectivesRecipe, RefinesAnExistingModelWithThreeObjectivesAndCompresses) {
  util::Progress::SetEnabled(false);
  TempDir dir;
  testing::WriteTinyBert(dir.file("teacher"), testing::TinyBertOptions());
  testing::WriteTinyModel(dir.file("init.swe"), 8, 3);
  testing::WriteFile(dir.file("corpus.txt"), testing::TinyCorpus(800, 5));
  testing::WriteFile(dir.file("triples.tsv"), Triples(300, 6));
  Recipe recipe;
  ASSERT_TRUE(ParseRecipe(InitRecipe(dir).dump(), &recipe).ok());
  std::vector<std::string> log;
  RunOptions o;
  o.log = [&log](const std::string& line) { log.push_back(line); };
  Status s = RunPipeline(recipe, o);
  ASSERT_TRUE(s.ok()) << s.ToString();
  int skipped = 0;
  for (const auto& l : log) {
    std::printf("  %s\n", l.c_str());
    skipped += l.find("skipped (init.model") != std::string::npos;
  }
  EXPECT_EQ(skipped, 4);  // vocab, sample, extract, pca
  std::unique_ptr<Model> model;
  ASSERT_TRUE(testing::ReadModelFile(dir.file("out.swe"), &model).ok());
  EXPECT_EQ(model->vocab_size(), testing::TinyWords().size());
  EXPECT_EQ(model->dims(), 4u);
  const Provenance& p = model->provenance();
  ASSERT_EQ(p.scores.size(), 6u);  // initial and best held-out loss of each objective
  EXPECT_EQ(p.scores[0].task, "kd-heldout");
  EXPECT_EQ(p.scores[2].task, "contrastive-heldout");
  EXPECT_EQ(p.scores[4].task, "distance-heldout");
  EXPECT_LE(p.scores[5].value, p.scores[4].value * 1.0001);
  EXPECT_NE(p.corpus.find("triples:"), std::string::npos);
  // Resuming: nothing re-runs.
  log.clear();
  ASSERT_TRUE(RunPipeline(recipe, o).ok());
  int up_to_date = 0;
  for (const auto& l : log) up_to_date += l.find("up to date") != std::string::npos;
  EXPECT_EQ(up_to_date, 2);  // refine, export
  // Re-exporting needs neither the corpus, the teacher nor the triples (refine does not run).
  for (const char* input : {"corpus.txt", "triples.tsv", "teacher"}) std::filesystem::remove_all(dir.file(input));
  json again = InitRecipe(dir);
  again["export"]["dtype"] = "f16";
  ASSERT_TRUE(ParseRecipe(again.dump(), &recipe).ok());
  s = RunPipeline(recipe, o);
  EXPECT_TRUE(s.ok()) << s.ToString();
  // Refining again reads them: a missing one is named with the stage (the triples before anything runs).
  again["refine"]["max_epochs"] = 2;
  ASSERT_TRUE(ParseRecipe(again.dump(), &recipe).ok());
  s = RunPipeline(recipe, o);
  EXPECT_NE(s.message().find("refine: file not found: " + dir.file("triples.tsv")), std::string::npos) << s.message();
  testing::WriteFile(dir.file("triples.tsv"), Triples(300, 6));
  s = RunPipeline(recipe, o);
  EXPECT_NE(s.message().find("refine: corpus file not found: " + dir.file("corpus.txt")), std::string::npos)
      << s.message();

  json bad = InitRecipe(dir);
  bad["init"]["model"] = dir.file("missing.swe");
  ASSERT_TRUE(ParseRecipe(bad.dump(), &recipe).ok());
  s = RunPipeline(recipe, o);
  EXPECT_NE(s.message().find("init.model not found: " + dir.file("missing.swe")), std::string::npos) << s.message();
}

// Contrastive only, with a decaying rate and abtt: the teacher is never needed (its directory is not
// there), the dims stay, and refine.json records what abtt removed.
TEST(TrainerObjectivesRecipe, ContrastiveWithDecayAndAbttNeedsNoTeacher) {
  util::Progress::SetEnabled(false);
  TempDir dir;
  testing::WriteTinyModel(dir.file("init.swe"), 8, 3);
  testing::WriteFile(dir.file("corpus.txt"), testing::TinyCorpus(800, 5));
  testing::WriteFile(dir.file("triples.tsv"), Triples(300, 6));
  json j = InitRecipe(dir);
  j["refine"]["objectives"] = json::array({j["refine"]["objectives"][1]});
  j["refine"]["lr_decay"] = "linear";
  j["compress"] = {{"method", "abtt"}, {"remove", 2}, {"sentences", 300}};
  Recipe recipe;
  ASSERT_TRUE(ParseRecipe(j.dump(), &recipe).ok());
  EXPECT_TRUE(recipe.refine_options.lr_decay);
  EXPECT_EQ(recipe.compress.method, CompressMethod::kAbtt);
  EXPECT_EQ(recipe.compress.remove, 2u);
  std::vector<std::string> log;
  RunOptions o;
  o.log = [&log](const std::string& line) { log.push_back(line); };
  Status s = RunPipeline(recipe, o);
  ASSERT_TRUE(s.ok()) << s.ToString();
  int abtt = 0;
  for (const auto& l : log) abtt += l.find("refine: abtt: removed the mean and the top 2 directions of 8") == 0;
  EXPECT_EQ(abtt, 1);
  std::unique_ptr<Model> model;
  ASSERT_TRUE(testing::ReadModelFile(dir.file("out.swe"), &model).ok());
  EXPECT_EQ(model->dims(), 8u);
  std::string text;
  ASSERT_TRUE(ReadTextFile(dir.file("work/refine.json"), &text).ok());
  const json stats = json::parse(text)["stats"]["compress"];
  EXPECT_EQ(stats["method"], "abtt");
  ASSERT_EQ(stats["removed_variances"].size(), 2u);
  EXPECT_GE(stats["removed_variances"][0].get<double>(), stats["removed_variances"][1].get<double>());
  j["compress"]["remove"] = 8;  // all the dims: refused when the table's dims are known
  ASSERT_TRUE(ParseRecipe(j.dump(), &recipe).ok());
  s = RunPipeline(recipe, o);
  EXPECT_NE(s.message().find("remove must be in 1..7 (got 8)"), std::string::npos) << s.message();
}

// Each bad recipe is rejected with a message naming what is wrong.
TEST(TrainerObjectivesRecipe, BadKeysAreNamed) {
  TempDir dir;
  const json good = InitRecipe(dir);
  Recipe r;
  ASSERT_TRUE(ParseRecipe(good.dump(), &r).ok());
  ASSERT_EQ(r.objectives.size(), 3u);
  EXPECT_EQ(r.objectives[1].kind, ObjectiveKind::kContrastive);
  EXPECT_TRUE(r.objectives[1].triples);
  ASSERT_EQ(r.objectives[1].data.size(), 2u);
  EXPECT_EQ(r.objectives[1].data[1].max, 50u);
  EXPECT_DOUBLE_EQ(r.objectives[2].euclidean, 0.1);
  EXPECT_EQ(r.compress.method, CompressMethod::kMcr2);
  auto error = [&](const std::function<void(json&)>& edit) {
    json j = good;
    edit(j);
    Status s = ParseRecipe(j.dump(), &r);
    EXPECT_FALSE(s.ok()) << j.dump();
    return s.message();
  };
  auto has = [](const std::string& message, const std::string& needle) {
    EXPECT_NE(message.find(needle), std::string::npos) << message;
  };
  has(error([](json& j) { j["refine"]["objectives"][0]["format"] = "pairs"; }),
      "unknown key 'refine.objectives[0] (kind kd).format'");
  has(error([](json& j) { j["refine"]["objectives"][2]["tau"] = 0.1; }),
      "unknown key 'refine.objectives[2] (kind distance).tau'");
  has(error([](json& j) { j["refine"]["objectives"][1]["euclidean"] = 1; }),
      "unknown key 'refine.objectives[1] (kind contrastive).euclidean'");
  has(error([](json& j) { j["refine"]["objectives"][1]["data"][1]["weight"] = 2; }),
      "unknown key 'refine.objectives[1].data[].weight'");
  has(error([](json& j) { j["refine"]["objectives"][0]["kind"] = "simcse"; }), "kind must be kd, contrastive or distance");
  has(error([](json& j) { j["refine"]["objectives"][0].erase("kind"); }), "'refine.objectives[0]' needs a 'kind'");
  has(error([](json& j) { j["refine"]["objectives"][1].erase("data"); }), "'refine.objectives[1].data' is required");
  has(error([](json& j) { j["refine"]["objectives"][1]["format"] = "quads"; }), "format must be pairs or triples");
  has(error([](json& j) { j["refine"]["objectives"][2]["map"] = "free"; }), "map must be orthogonal or identity");
  has(error([](json& j) { j["refine"]["objectives"][0]["weight"] = -1; }), "weight must be >= 0");
  has(error([](json& j) { j["refine"]["method"] = "kd"; }), "refine.method and refine.objectives exclude each other");
  has(error([](json& j) { j["refine"]["objectives"] = json::object(); }), "'refine.objectives' must be a list");
  has(error([](json& j) { j["init"]["path"] = "x"; }), "unknown key 'init.path'");
  has(error([](json& j) { j["init"] = json::object(); }), "'init.model' is required");
  has(error([](json& j) { j["vocab"] = {{"size", 10}}; }), "'vocab' does not apply with 'init.model'");
  has(error([](json& j) { j["compress"]["rank"] = 3; }), "unknown key 'compress.rank'");
  has(error([](json& j) { j["compress"]["method"] = "svd"; }), "compress.method must be pca, mcr2, abtt or none");
  has(error([](json& j) { j["compress"]["remove"] = 0; }), "compress.remove must be positive");
  has(error([](json& j) { j["refine"]["lr_decay"] = "cosine"; }), "refine.lr_decay must be none or linear");
  has(error([](json& j) { j["compress"]["dims"] = 0; }), "compress.dims must be positive");
  has(error([](json& j) { j["compress"]["clusters"] = 1000; }), "compress.clusters must be in 1..sentences");
  // A value of the wrong type names its key (nlohmann's own message named none).
  has(error([](json& j) { j["refine"]["max_epochs"] = "3"; }), "'refine.max_epochs' must be a non-negative integer (got \"3\")");
  has(error([](json& j) { j["refine"]["batch_size"] = -8; }), "'refine.batch_size' must be a non-negative integer");
  has(error([](json& j) { j["refine"]["lr"] = "fast"; }), "'refine.lr' must be a number");
  // Values of the right type that cannot train fail here, before any stage runs.
  has(error([](json& j) { j["refine"]["lr"] = -1; }), "refine.lr must be positive");
  has(error([](json& j) { j["refine"]["lr"] = 0; }), "refine.lr must be positive");
  has(error([](json& j) { j["refine"]["batch_size"] = 0; }), "refine.batch_size must be positive");
  has(error([](json& j) { j["refine"]["clip_norm"] = -0.5; }), "refine.clip_norm must be >= 0");
  has(error([](json& j) { j["compress"]["lr"] = -0.01; }), "compress.lr must be positive");
  has(error([](json& j) { j["teacher"]["path"] = 5; }), "'teacher.path' must be a string");
  has(error([](json& j) { j["corpus"]["paths"] = "corpus.txt"; }), "'corpus.paths' must be a list of strings");
  has(error([](json& j) { j["export"]["normalize"] = 1; }), "'export.normalize' must be true or false");
  has(error([](json& j) { j["refine"]["objectives"][1]["data"][1]["max"] = "50"; }),
      "'refine.objectives[1].data[].max' must be a non-negative integer");
  has(error([](json& j) { j["seed"] = 1.5; }), "'seed' must be a non-negative integer");
  has(error([](json& j) { j["colour"] = 1; }), "unknown key 'colour'");
  has(error([](json& j) { j["export"]["seal"] = "lz4"; }), "export.seal must be raw or zstd");
  has(error([](json& j) { j["refine"]["matryoshka"] = 64; }), "'refine.matryoshka' must be a non-empty list");
  has(error([](json& j) { j["refine"]["matryoshka"] = {0}; }), "refine.matryoshka needs dims of at least 1");
  has(error([](json& j) { j["refine"]["matryoshka"] = {-64}; }),
      "refine.matryoshka entries must be dims or {\"dims\", \"weight\"} (got -64)");
  has(error([](json& j) { j["refine"]["matryoshka"] = {{{"dims", 4}, {"w", 1}}}; }),
      "unknown key 'refine.matryoshka[].w'");
  has(error([](json& j) { j["refine"]["matryoshka"] = {{{"dims", 4}, {"weight", -1}}}; }),
      "refine.matryoshka weights must be >= 0");
  has(error([](json& j) { j["refine"] = {{"method", "kd"}, {"matryoshka", {4}}}; }),
      "refine.matryoshka and refine.word_weights need refine.objectives");
  // Matryoshka: every objective gets the prefixes (a bare number has weight 1).
  json nested = good;
  nested["refine"]["matryoshka"] = {2, {{"dims", 4}, {"weight", 0.5}}};
  ASSERT_TRUE(ParseRecipe(nested.dump(), &r).ok());
  for (const ObjectiveSpec& o : r.objectives) {
    ASSERT_EQ(o.matryoshka.size(), 2u);
    EXPECT_EQ(o.matryoshka[0].dims, 2u);
    EXPECT_DOUBLE_EQ(o.matryoshka[0].weight, 1);
    EXPECT_EQ(o.matryoshka[1].dims, 4u);
    EXPECT_DOUBLE_EQ(o.matryoshka[1].weight, 0.5);
  }
  nested["refine"]["word_weights"] = true;
  ASSERT_TRUE(ParseRecipe(nested.dump(), &r).ok());
  EXPECT_TRUE(r.refine_options.word_weights);
  has(error([](json& j) { j["refine"]["word_weights"] = 1; }), "'refine.word_weights' must be true or false");
  ASSERT_TRUE(ParseRecipe(good.dump(), &r).ok());
  EXPECT_TRUE(r.objectives[0].matryoshka.empty());
  EXPECT_FALSE(r.refine_options.word_weights);
  EXPECT_EQ(r.seal, "raw");  // as the shipped models: read in place
  // Invalid JSON: its line and column.
  std::string text = good.dump(2);
  text.insert(text.find("\"work_dir\""), "oops ");
  const size_t at = text.find("oops");
  const size_t line = 1 + std::count(text.begin(), text.begin() + at, '\n');
  const size_t column = at - text.rfind('\n', at);
  Status s = ParseRecipe(text, &r);
  has(s.message(), "invalid JSON at line " + std::to_string(line) + ", column " + std::to_string(column));
  // A number past a double's range is invalid JSON too (nlohmann throws out_of_range, not parse_error).
  text = good.dump();
  text.insert(text.rfind('}'), ", \"x\": 1e999");
  has(ParseRecipe(text, &r).message(), "invalid JSON: number overflow parsing '1e999'");
}

}  // namespace
}  // namespace swe::trainer
