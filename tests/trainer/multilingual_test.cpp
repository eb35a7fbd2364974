// A multilingual student from an existing model: init.add_vocab (the words of other languages appended
// to init.model's vocabulary), refine.train_rows "new" (the model's own rows frozen, bit for bit),
// lazy Adam, skip_malformed data lines, and a bilingual problem solved with the English side fixed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>

#include "refine/objectives.h"
#include "pipeline/pipeline.h"
#include "recipe/recipe.h"
#include "refine/refine_data.h"
#include "swe/model_file.h"
#include "swe/util/progress.h"
#include "test_util.h"
#include "refine/vocab_extend.h"

namespace swe::trainer {
namespace {
using nlohmann::json;
using testing::TempDir;

std::unique_ptr<Model> MakeModel(const std::vector<std::string>& words, uint32_t d, uint32_t seed) {
  ModelContents c;
  c.words = words;
  c.dims = d;
  std::mt19937 rng(seed);
  std::normal_distribution<float> g;
  for (size_t i = 0; i < words.size() * d; ++i) c.vectors.push_back(g(rng));
  std::vector<uint8_t> bytes;
  EXPECT_TRUE(WriteModel(c, WriteOptions(), &bytes).ok());
  std::unique_ptr<Model> m;
  EXPECT_TRUE(ReadModel(bytes.data(), bytes.size(), &m).ok());
  return m;
}

TEST(TrainerMultilingual, VocabularyExtensionAddsTheRightWords) {
  TempDir dir;
  // Counts on the second column (case-folded, as the model looks words up): hund 4, katze 3, dog 3
  // (in the model), maus 2, der (in the model), die and vogel 1; a malformed line (two tabs) is skipped
  // and counted.
  testing::WriteFile(dir.file("de.tsv"),
                     "the dog\tHund Katze\n"
                     "a dog\tder Hund, die Katze.\n"
                     "dog\tdog hund maus\n"
                     "x\ty\tz\n"
                     "cat\thund Katze MAUS vogel dog dog\n");
  testing::WriteFile(dir.file("ja.tsv"), "dog\t犬 犬 hund\ncat\t猫 犬\n");
  auto base = MakeModel({"the", "a", "dog", "cat", "der"}, 4, 1);
  VocabExtension ext;
  AddVocabSource de;
  de.files = {{dir.file("de.tsv"), 0, true}};
  de.size = 3;
  de.min_count = 2;
  AddVocabSource ja;
  ja.files = {{dir.file("ja.tsv"), 0, false}};
  ja.size = 5;
  ja.min_count = 1;
  ext.sources = {de, ja};
  std::vector<WordCount> added;
  std::vector<std::string> stats;
  ASSERT_TRUE(CountNewWords(*base, ext, &added, &stats).ok());
  std::vector<std::string> words;
  for (const auto& w : added) words.push_back(w.word);
  // de: hund (4), katze (3), maus (2); not dog (the model's) nor die, vogel (under min_count).
  // ja: 犬 (3), 猫 (1); hund already added by the first source.
  EXPECT_EQ(words, (std::vector<std::string>{"hund", "katze", "maus", "犬", "猫"}));
  EXPECT_EQ(added[0].count, 4u);
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_NE(stats[0].find("1 malformed lines skipped"), std::string::npos) << stats[0];
  // Without skip_malformed the bad line is an error naming the file and line.
  ext.sources[0].files[0].skip_malformed = false;
  Status s = CountNewWords(*base, ext, &added);
  EXPECT_NE(s.message().find("de.tsv:4"), std::string::npos) << s.message();
  ext.sources[0].files[0].skip_malformed = true;
  ASSERT_TRUE(CountNewWords(*base, ext, &added).ok());

  // The extended model: base rows first and unchanged, new words after them, found by the tokenizer.
  ModelContents c;
  ASSERT_TRUE(ExtendModel(*base, added, ext, &c).ok());
  ASSERT_EQ(c.words.size(), 10u);
  ModelContents b = base->ToContents();
  EXPECT_EQ(std::vector<float>(c.vectors.begin(), c.vectors.begin() + 20), b.vectors);
  InitModel init;
  const std::string path = dir.file("base.swe");
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(WriteModel(b, WriteOptions(), &bytes).ok());
  testing::WriteFile(path, std::string(bytes.begin(), bytes.end()));
  ASSERT_TRUE(LoadInitModel(path, ext, added, &init).ok());
  EXPECT_EQ(init.base_rows, 5u);
  EXPECT_EQ(init.table.rows, 10u);
  std::vector<uint32_t> rows;
  ASSERT_TRUE(init.rows("Der Hund und die KATZE, Maus 犬猫", &rows));
  EXPECT_EQ(rows, (std::vector<uint32_t>{4, 5, 6, 7, 8, 9}));  // der, hund, katze, maus, 犬, 猫 (und, die: unknown)
  // A word the model has is refused.
  added.push_back({"dog", 1});
  EXPECT_FALSE(ExtendModel(*base, added, ext, &c).ok());
}

// 20 "English" words with fixed rows and 20 "German" ones starting from noise; pairs are 3 random
// English words and their translations (reversed). With the English rows frozen, only the German rows
// move, they must land on their translations, and the English rows keep their bits.
void SolveWithFrozenEnglish(bool lazy) {
  util::Progress::SetEnabled(false);
  const uint32_t words = 20, d = 8, n = 600;
  std::mt19937 rng(9);
  std::normal_distribution<float> g;
  std::uniform_int_distribution<uint32_t> pick(0, words - 1);
  TupleData data;
  for (uint32_t i = 0; i < n; ++i) {
    std::vector<uint32_t> s = {pick(rng), pick(rng), pick(rng)}, t;
    for (auto it = s.rbegin(); it != s.rend(); ++it) t.push_back(*it + words);
    data.anchor.push_back(s);
    data.positive.push_back(t);
  }
  Matrix table;
  table.rows = 2 * words;
  table.cols = d;
  for (uint32_t i = 0; i < table.rows * d; ++i) table.data.push_back(g(rng));
  const Matrix initial = table;
  auto aligned = [&](const Matrix& m) {
    int hits = 0;
    for (uint32_t w = words; w < 2 * words; ++w) {  // each German row's nearest English row
      uint32_t best = 0;
      double best_cos = -2;
      for (uint32_t v = 0; v < words; ++v) {
        double c = testing::Cosine(m.row(w), m.row(v), d);
        if (c > best_cos) best_cos = c, best = v;
      }
      hits += best + words == w;
    }
    return hits;
  };
  ObjectiveSpec spec;
  spec.kind = ObjectiveKind::kContrastive;
  spec.tau = 0.1;
  RefineOptions o;
  o.batch_size = 32;
  o.lr = 0.05;
  o.max_epochs = 15;
  o.patience = 3;
  o.frozen_rows = words;
  o.lazy_adam = lazy;
  RefineReport report;
  ASSERT_TRUE(RefineObjectives({{spec, nullptr, &data}}, o, &table, &report).ok());
  std::printf("  %s: held-out loss %.4f -> %.4f (epoch %u); German rows on their translation %d -> %d of %u\n",
              lazy ? "lazy Adam" : "Adam", report.initial_heldout, report.best_heldout, report.best_epoch,
              aligned(initial), aligned(table), words);
  EXPECT_EQ(std::memcmp(table.data.data(), initial.data.data(), words * d * sizeof(float)), 0);
  EXPECT_NE(std::memcmp(table.row(words), initial.row(words), words * d * sizeof(float)), 0);
  EXPECT_LT(report.best_heldout, 0.5 * report.initial_heldout);
  EXPECT_GE(aligned(table), 18);
}

TEST(TrainerMultilingual, BilingualProblemSolvedWithFrozenEnglishLazyAdam) { SolveWithFrozenEnglish(true); }
TEST(TrainerMultilingual, BilingualProblemSolvedWithFrozenEnglishAdam) { SolveWithFrozenEnglish(false); }

// Lazy Adam on every row (nothing frozen) matches dense Adam on a problem whose batches touch every
// row: the first step is Adam's exactly, later ones differ only for rows a batch misses.
TEST(TrainerMultilingual, LazyAdamFirstStepIsAdams) {
  util::Progress::SetEnabled(false);
  const uint32_t d = 4;
  TupleData data;
  for (uint32_t i = 0; i < 8; ++i) {
    data.anchor.push_back({0, 1, 2});
    data.positive.push_back({3, 4, 5});
  }
  for (uint32_t i = 0; i < 8; ++i) data.anchor[i][0] = i % 3, data.positive[i][0] = 3 + i % 3;
  Matrix table;
  table.rows = 6;
  table.cols = d;
  std::mt19937 rng(2);
  std::normal_distribution<float> g;
  for (uint32_t i = 0; i < table.rows * d; ++i) table.data.push_back(g(rng));
  ObjectiveSpec spec;
  spec.kind = ObjectiveKind::kContrastive;
  RefineOptions o;
  o.batch_size = 8;
  o.max_epochs = 1;
  o.heldout = 0.2;
  Matrix dense = table, lazy = table;
  RefineReport r1, r2;
  ASSERT_TRUE(RefineObjectives({{spec, nullptr, &data}}, o, &dense, &r1).ok());
  o.lazy_adam = true;
  ASSERT_TRUE(RefineObjectives({{spec, nullptr, &data}}, o, &lazy, &r2).ok());
  ASSERT_EQ(r1.heldout_loss.size(), 1u);
  EXPECT_NEAR(r1.heldout_loss[0], r2.heldout_loss[0], 1e-5);
  for (size_t i = 0; i < dense.data.size(); ++i) EXPECT_NEAR(dense.data[i], lazy.data[i], 1e-6) << i;
  EXPECT_NE(dense.data, table.data);
}

// A made-up "German": each TinyWords word with "ung" appended, sentences reversed.
std::string Translate(const std::string& sentence) {
  std::vector<std::string> words;
  std::string w;
  for (char c : sentence) {
    if (std::isalpha(static_cast<unsigned char>(c))) {
      w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!w.empty()) {
      words.push_back(w + "ung");
      w.clear();
    }
  }
  if (!w.empty()) words.push_back(w + "ung");
  std::string out;
  for (auto it = words.rbegin(); it != words.rend(); ++it) out += (out.empty() ? "" : " ") + *it;
  return out;
}

json MultiRecipe(const TempDir& dir) {
  return {{"name", "tiny-multi"},
          {"work_dir", dir.file("work")},
          {"init", {{"model", dir.file("init.swe")}, {"cjk", "characters"}, {"new_rows", "random"},
                    {"add_vocab", {{{"paths", {{{"path", dir.file("pairs.tsv")}, {"skip_malformed", true}}}},
                                    {"column", 2}, {"size", 1000}, {"min_count", 1}}}}}},
          {"corpus", {{"paths", {dir.file("pairs.tsv")}}}},
          {"teacher", {{"kind", "bert"}, {"path", dir.file("teacher")}}},
          {"refine", {{"objectives", {{{"kind", "contrastive"},
                                       {"data", {{{"path", dir.file("pairs.tsv")}, {"skip_malformed", true}}}}}}},
                      {"train_rows", "new"}, {"optimizer", "lazy_adam"}, {"tau", 0.1}, {"lr", 0.05},
                      {"batch_size", 32}, {"max_epochs", 8}, {"patience", 3}, {"heldout", 0.1}}},
          {"export", {{"path", dir.file("out.swe")}, {"dtype", "f32"}}},
          {"device", "cpu"},
          {"threads", 1}};
}

TEST(TrainerMultilingual, RecipeExtendsFreezesAndExports) {
  util::Progress::SetEnabled(false);
  TempDir dir;
  std::vector<std::string> english = testing::TinyWords();
  ModelContents c;
  c.words = english;
  c.dims = 8;
  std::mt19937 rng(3);
  std::normal_distribution<float> g;
  for (size_t i = 0; i < c.words.size() * c.dims; ++i) c.vectors.push_back(g(rng));
  std::vector<uint8_t> bytes;
  WriteOptions int8;
  int8.dtype = DType::kInt8;  // as the shipped model: its rows must come out with the same codes and scales
  ASSERT_TRUE(WriteModel(c, int8, &bytes).ok());
  testing::WriteFile(dir.file("init.swe"), std::string(bytes.begin(), bytes.end()));
  std::unique_ptr<Model> init;
  ASSERT_TRUE(ReadModel(bytes.data(), bytes.size(), &init).ok());
  c.vectors = init->ToContents().vectors;  // dequantised
  std::string corpus = testing::TinyCorpus(1500, 5), pairs;
  for (size_t start = 0, end; (end = corpus.find('\n', start)) != std::string::npos; start = end + 1) {
    std::string s = corpus.substr(start, end - start);
    pairs += s + "\t" + Translate(s) + "\n";
  }
  pairs += "a\tstray\ttab\n";
  testing::WriteFile(dir.file("pairs.tsv"), pairs);
  Recipe recipe;
  json j = MultiRecipe(dir);
  j["export"]["dtype"] = "int8";
  Status s = ParseRecipe(j.dump(), &recipe);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::vector<std::string> log;
  RunOptions o;
  o.log = [&log](const std::string& line) { log.push_back(line); };
  s = RunPipeline(recipe, o);
  ASSERT_TRUE(s.ok()) << s.ToString();
  bool malformed = false;
  for (const auto& l : log) {
    std::printf("  %s\n", l.c_str());
    malformed = malformed || l.find("1 malformed lines skipped") != std::string::npos;
  }
  EXPECT_TRUE(malformed);
  std::unique_ptr<Model> model;
  ASSERT_TRUE(testing::ReadModelFile(dir.file("out.swe"), &model).ok());
  EXPECT_EQ(model->vocab_size(), 2 * english.size());  // every English word occurs translated
  ModelContents m = model->ToContents();
  EXPECT_EQ(std::vector<float>(m.vectors.begin(), m.vectors.begin() + c.vectors.size()), c.vectors);
  EXPECT_EQ(m.tokenizer.cjk, CjkMode::kCharacters);
  // Every German word's nearest English row is its translation (or nearly every).
  int hits = 0;
  for (uint32_t w = 0; w < english.size(); ++w) {
    const int64_t de = model->find(english[w] + "ung");
    ASSERT_GE(de, 0) << english[w];
    uint32_t best = 0;
    double best_cos = -2;
    for (uint32_t v = 0; v < english.size(); ++v) {
      double cos = testing::Cosine(&m.vectors[de * 8], &m.vectors[v * 8], 8);
      if (cos > best_cos) best_cos = cos, best = v;
    }
    hits += best == w;
  }
  std::printf("  German words nearest to their translation: %d of %zu\n", hits, english.size());
  EXPECT_GE(hits, static_cast<int>(english.size() * 8 / 10));
}

TEST(TrainerMultilingual, BadKeysAreNamed) {
  TempDir dir;
  const json good = MultiRecipe(dir);
  Recipe r;
  ASSERT_TRUE(ParseRecipe(good.dump(), &r).ok());
  EXPECT_TRUE(r.train_new_rows);
  EXPECT_TRUE(r.refine_options.lazy_adam);
  ASSERT_EQ(r.init_vocab.sources.size(), 1u);
  EXPECT_TRUE(r.init_vocab.sources[0].files[0].skip_malformed);
  EXPECT_TRUE(r.objectives[0].data[0].skip_malformed);
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
  has(error([](json& j) { j["init"]["add_vocab"][0]["colour"] = 2; }), "unknown key 'init.add_vocab[0].colour'");
  has(error([](json& j) { j["init"]["add_vocab"][0]["column"] = 3; }), "init.add_vocab[0].column must be in 1..2");
  has(error([](json& j) { j["init"]["add_vocab"][0]["size"] = 0; }), "init.add_vocab[0].size must be positive");
  has(error([](json& j) { j["init"]["add_vocab"][0].erase("paths"); }), "'init.add_vocab[0].paths' is required");
  has(error([](json& j) { j["init"]["add_vocab"] = json::array(); }), "'init.add_vocab' must be a non-empty list");
  has(error([](json& j) { j["init"]["cjk"] = "words"; }), "init.cjk must be");
  has(error([](json& j) { j["init"]["cjk"] = "subwords"; }), "init.cjk must be");
  has(error([](json& j) { j["init"]["lexicon_chars"] = 9; }), "init.lexicon_chars must be 2 to 8");
  has(error([](json& j) { j["init"]["new_rows"] = "zero"; }), "init.new_rows must be subword or random");
  has(error([](json& j) { j["refine"]["train_rows"] = "english"; }), "refine.train_rows must be all or new");
  has(error([](json& j) { j["refine"]["optimizer"] = "sgd"; }), "refine.optimizer must be adam or lazy_adam");
  has(error([](json& j) { j["init"].erase("add_vocab"); }), "refine.train_rows 'new' needs init.add_vocab");
  has(error([](json& j) { j["compress"] = {{"method", "pca"}}; }), "excludes refine.train_rows 'new'");
  has(error([](json& j) { j["refine"]["objectives"][0]["data"][0]["skip"] = true; }),
      "unknown key 'refine.objectives[0].data[].skip'");
  has(error([](json& j) { j["init"]["add_vocab"][0]["paths"][0]["max_lines"] = 5; }),
      "unknown key 'init.add_vocab[0].paths[].max_lines'");
  has(error([](json& j) { j["init"]["add_vocab"][0]["paths"] = json::array(); }),
      "'init.add_vocab[0].paths' needs at least one file");
}

}  // namespace
}  // namespace swe::trainer
