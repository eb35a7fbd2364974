// The swe program end to end: runs the built binary on models this test writes into a temp directory.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_fixture.h"
#include "core/test_models.h"
#include "swe/encoder.h"
#include "swe/model_file.h"
#include "test_paths.h"

namespace {

using namespace swe_cli_test;
namespace fs = std::filesystem;

TEST_F(CliTest, HelpAndVersion) {
  Result r = Run({"--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("usage: swe"), std::string::npos);
  EXPECT_EQ(r.err, "");
  for (const char* command : {"info", "encode", "similarity", "search", "index", "tokenize", "convert", "eval", "serve"}) {
    r = Run({command, "--help"});
    EXPECT_EQ(r.code, 0) << command;
    EXPECT_NE(r.out.find(std::string("usage: swe ") + command), std::string::npos) << command << ": " << r.out;
  }
  r = Run({"index", "build", "--help"});
  EXPECT_EQ(r.code, 0);
  // swe serve's options are checked before anything listens (its HTTP behaviour: tests/serve/run.sh).
  r = Run({"serve", P("model.swe"), "--port", "70000"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--port"), std::string::npos) << r.err;
  r = Run({"serve", P("model.swe"), "--threads", "4", "--connections", "2"});
  EXPECT_EQ(r.code, 2);
  r = Run({"serve", P("missing.swe")});
  EXPECT_EQ(r.code, 1);
  r = Run({"--version"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, std::string("swe ") + SWE_EXPECTED_VERSION + "\n");
}

TEST_F(CliTest, Info) {
  Result r = Run({"info", P("model.swe")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("cli-model"), std::string::npos);
  EXPECT_NE(r.out.find("16 words"), std::string::npos) << r.out;
  r = Run({"info", P("model.swe"), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["name"], "cli-model");
  EXPECT_EQ(j["dims"], kDims);
  EXPECT_EQ(j["vocab_size"], kWords.size());
  EXPECT_EQ(j["placeholder"], false);

  // A long recipe (a trained model's) is summarised; --json keeps it whole.
  swe::ModelContents trained = swe::testing::RandomContents(kWords, kDims, 5);
  trained.provenance.recipe = "{\n  \"name\": \"trained\",\n  \"vocab\": {\"size\": 16}\n}\n";
  std::vector<uint8_t> bytes = swe::testing::ModelBytes(trained);
  std::ofstream(P("trained.swe"), std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  r = Run({"info", P("trained.swe")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("recipe       49 bytes of JSON (swe info --json shows it)\n"), std::string::npos) << r.out;
  r = Run({"info", P("trained.swe"), "--json"});
  EXPECT_EQ(nlohmann::json::parse(r.out)["recipe"], trained.provenance.recipe);
}

TEST_F(CliTest, EncodeNpy) {
  Result r = Run({"encode", P("model.swe"), P("docs.txt"), "-o", P("out.npy")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  std::string npy = ReadFile(P("out.npy"));
  ASSERT_GT(npy.size(), 10u);
  EXPECT_EQ(npy.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  size_t header_len = static_cast<uint8_t>(npy[8]) | (static_cast<uint8_t>(npy[9]) << 8);
  EXPECT_EQ((10 + header_len) % 64, 0u);
  std::string header = npy.substr(10, header_len);
  EXPECT_NE(header.find("'descr': '<f4'"), std::string::npos) << header;
  EXPECT_NE(header.find("'fortran_order': False"), std::string::npos) << header;
  EXPECT_NE(header.find("'shape': (5, 16)"), std::string::npos) << header;
  EXPECT_EQ(header.back(), '\n');
  std::vector<std::string> lines = Lines(kDocs);
  ASSERT_EQ(npy.size(), 10 + header_len + lines.size() * kDims * 4);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::vector<float> expected = CoreEncode(lines[i]);
    EXPECT_EQ(std::memcmp(npy.data() + 10 + header_len + i * kDims * 4, expected.data(), kDims * 4), 0) << i;
  }
}

TEST_F(CliTest, EncodeJsonLines) {
  Result r = Run({"encode", P("model.swe")}, kDocs);  // stdin to stdout
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> out = Lines(r.out), lines = Lines(kDocs);
  ASSERT_EQ(out.size(), lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    std::vector<float> got = nlohmann::json::parse(out[i]).get<std::vector<float>>();
    EXPECT_EQ(got, CoreEncode(lines[i])) << i;  // shortest round-trip text: exact
  }
  r = Run({"encode", P("model.swe"), P("docs.txt"), "--dims", "4", "-o", P("out.jsonl")});
  ASSERT_EQ(r.code, 0) << r.err;
  out = Lines(ReadFile(P("out.jsonl")));
  ASSERT_EQ(out.size(), lines.size());
  EXPECT_EQ(nlohmann::json::parse(out[0]).get<std::vector<float>>(), CoreEncode(lines[0], 4));
  // The input file as the output: read whole before it is replaced (it used to be emptied first).
  WriteFile(P("inplace.jsonl"), kDocs);
  r = Run({"encode", P("model.swe"), P("inplace.jsonl"), "-o", P("inplace.jsonl")});
  ASSERT_EQ(r.code, 0) << r.err;
  out = Lines(ReadFile(P("inplace.jsonl")));
  ASSERT_EQ(out.size(), lines.size());
  EXPECT_EQ(nlohmann::json::parse(out[2]).get<std::vector<float>>(), CoreEncode(lines[2]));
  EXPECT_FALSE(fs::exists(P("inplace.jsonl.tmp")));
  // A device is written in place, never replaced by a renamed file.
  r = Run({"encode", P("model.swe"), P("docs.txt"), "-o", "/dev/null", "--format", "jsonl"});
  ASSERT_EQ(r.code, 0) << r.err;
  r = Run({"encode", P("model.swe"), "-", "--format", "jsonl"}, "cat\n");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Lines(r.out).size(), 1u);

  ExpectOneLineError(Run({"encode", P("model.swe"), P("docs.txt"), "-o", P("out.bin")}), 2, "--format");
  ExpectOneLineError(Run({"encode", P("model.swe"), P("docs.txt"), "--format", "csv"}), 2, "npy or jsonl");
  ExpectOneLineError(Run({"encode", P("model.swe"), P("docs.txt"), "--dims", "17"}), 2, "exceeds");
  ExpectOneLineError(Run({"encode", P("model.swe"), P("docs.txt"), "--dims", "x"}), 2, "--dims");
  ExpectOneLineError(Run({"encode", P("model.swe"), P("nope.txt")}), 1, "nope.txt");
}

TEST_F(CliTest, Similarity) {
  Result r = Run({"similarity", P("model.swe"), "the cat sat", "a dog ran"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<float> a = CoreEncode("the cat sat"), b = CoreEncode("a dog ran");
  EXPECT_NEAR(std::stod(r.out), swe::Cosine(a.data(), b.data(), kDims), 1e-6);
  r = Run({"similarity", P("model.swe"), "cat sat", "sat cat"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NEAR(std::stod(r.out), 1.0, 1e-5);
  ExpectOneLineError(Run({"similarity", P("model.swe"), "one"}), 2, "TEXT TEXT");
}

TEST_F(CliTest, SearchRanksTheRightDocFirst) {
  Result r = Run({"search", P("model.swe"), "--docs", P("docs.txt"), "-k", "2", "market fell price stock",
                  "the weather tomorrow: rain"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> out = Lines(r.out);
  ASSERT_EQ(out.size(), 7u) << r.out;
  EXPECT_EQ(out[0], "> market fell price stock");
  EXPECT_EQ(out[1].substr(0, 2), "1\t");
  EXPECT_NE(out[1].find("\tstock market price fell"), std::string::npos) << out[1];
  EXPECT_NE(out[1].find("1.0000"), std::string::npos) << out[1];
  EXPECT_EQ(out[2].substr(0, 2), "2\t");
  EXPECT_EQ(out[3], "");
  EXPECT_EQ(out[4], "> the weather tomorrow: rain");
  EXPECT_NE(out[5].find("\train weather tomorrow"), std::string::npos) << out[5];

  // Queries from stdin; -k larger than the documents.
  r = Run({"search", P("model.swe"), "--docs", P("docs.txt"), "-k", "10"}, "dog park\n\ncat mat\n");
  ASSERT_EQ(r.code, 0) << r.err;
  out = Lines(r.out);
  ASSERT_EQ(out.size(), 11u) << r.out;  // 2 x (query + 4 hits) + blank
  EXPECT_NE(out[1].find("a dog ran in the park"), std::string::npos);
  EXPECT_NE(out[7].find("the cat sat on the mat"), std::string::npos);

  ExpectOneLineError(Run({"search", P("model.swe"), "q"}), 2, "--docs");
  ExpectOneLineError(Run({"search", P("model.swe"), "--docs", P("docs.txt"), "-k", "0", "q"}), 2, "-k");
}

TEST_F(CliTest, IndexBuildAndQuery) {
  for (const char* dtype : {"f32", "int8"}) {
    Result r = Run({"index", "build", P("model.swe"), "--docs", P("docs.txt"), "-o", P("docs.idx"), "--dtype", dtype});
    ASSERT_EQ(r.code, 0) << r.err;
    r = Run({"index", "query", P("model.swe"), P("docs.idx"), "--docs", P("docs.txt"), "-k", "1", "stock market"});
    ASSERT_EQ(r.code, 0) << r.err;
    std::vector<std::string> out = Lines(r.out);
    ASSERT_EQ(out.size(), 2u) << r.out;
    EXPECT_NE(out[1].find("stock market price fell"), std::string::npos) << out[1];
    // search --index gives the same hits.
    Result s = Run({"search", P("model.swe"), "--docs", P("docs.txt"), "--index", P("docs.idx"), "-k", "1",
                    "stock market"});
    ASSERT_EQ(s.code, 0) << s.err;
    EXPECT_EQ(s.out, r.out);
  }
  // The index must match the model (cli_docs_test: an index without documents must match --docs).
  ExpectOneLineError(Run({"index", "query", P("other.swe"), P("docs.idx"), "--docs", P("docs.txt"), "cat"}), 1,
                     "cli-model");
  ExpectOneLineError(Run({"index", "build", P("model.swe"), "--docs", P("docs.txt")}), 2, "-o");
  ExpectOneLineError(Run({"index", "build", P("model.swe"), "--docs", P("docs.txt"), "-o", P("x.idx"), "--dtype",
                          "f16"}),
                     2, "--dtype");
  ExpectOneLineError(Run({"index", "frob"}), 2, "frob");
  ExpectOneLineError(Run({"index", "query", P("model.swe"), P("model.swe"), "--docs", P("docs.txt"), "cat"}), 1,
                     "model.swe");
}

TEST_F(CliTest, Tokenize) {
  Result r = Run({"tokenize", P("model.swe"), "The CAT", "zzz!"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> out = Lines(r.out);
  ASSERT_EQ(out.size(), 5u) << r.out;
  EXPECT_NE(out[1].find("folded"), std::string::npos) << out[1];
  EXPECT_NE(out[1].find("the"), std::string::npos) << out[1];
  EXPECT_NE(out[3].find("unknown"), std::string::npos) << out[3];
  EXPECT_EQ(out[4], "3 words: 2 known, 1 skipped");
}

TEST_F(CliTest, ConvertWord2Vec) {
  WriteFile(*dir_ / "vectors.txt",
            "6 3\n"
            "the 0.1 0.2 0.3 \n"
            ", 1 1 1\n"
            "cat -1.5 2 0.25\n"
            "the 9 9 9\n"
            "new-york 1 2 3\n"
            "dog 3 2 1\n");
  Result r = Run({"convert", "--from", "word2vec", P("vectors.txt"), "-o", P("w2v.swe"), "--top", "2", "--name", "tiny",
                  "--description", "tiny vectors", "--placeholder"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::unique_ptr<swe::Model> model = ReadModelFile(P("w2v.swe"));
  ASSERT_TRUE(model);
  ASSERT_EQ(model->vocab_size(), 2u);
  EXPECT_EQ(model->dims(), 3u);
  EXPECT_EQ(model->word(0), "the");
  EXPECT_EQ(model->word(1), "cat");
  std::vector<float> row(3);
  model->CopyRow(1, row.data());
  EXPECT_EQ(row, (std::vector<float>{-1.5f, 2.0f, 0.25f}));
  EXPECT_EQ(model->provenance().name, "tiny");
  EXPECT_EQ(model->provenance().description, "tiny vectors");
  EXPECT_TRUE(model->provenance().placeholder);
  EXPECT_EQ(model->provenance().created_by, std::string("swe convert ") + SWE_EXPECTED_VERSION);
  EXPECT_TRUE(model->normalize());

  // GloVe's headerless text, all words, f16, no normalisation; the name defaults to the file's stem.
  WriteFile(*dir_ / "glove.txt", "the 0.5 0.25\ncat 1 2\n. 3 3\ndog -1 -2\n");
  r = Run({"convert", "--from", "word2vec", P("glove.txt"), "-o", P("glove-small.swe"), "--dtype", "f16",
           "--no-normalize"});
  ASSERT_EQ(r.code, 0) << r.err;
  model = ReadModelFile(P("glove-small.swe"));
  ASSERT_TRUE(model);
  EXPECT_EQ(model->vocab_size(), 3u);
  EXPECT_EQ(model->dtype(), swe::DType::kF16);
  EXPECT_FALSE(model->normalize());
  EXPECT_EQ(model->provenance().name, "glove-small");
  EXPECT_FALSE(model->provenance().placeholder);
  EXPECT_EQ(model->word(2), "dog");

  // Bad rows are named by line.
  WriteFile(*dir_ / "short.txt", "the 1 2 3\ncat 1 2\n");
  ExpectOneLineError(Run({"convert", "--from", "word2vec", P("short.txt"), "-o", P("bad.swe")}), 1, "short.txt:2:");
  WriteFile(*dir_ / "nan.txt", "the 1 2 3\ncat 1 nan 3\n");
  ExpectOneLineError(Run({"convert", "--from", "word2vec", P("nan.txt"), "-o", P("bad.swe")}), 1, "nan.txt:2:");
  WriteFile(*dir_ / "huge.txt", "the 1 2 3\ncat 1 1e99 3\n");
  ExpectOneLineError(Run({"convert", "--from", "word2vec", P("huge.txt"), "-o", P("bad.swe")}), 1, "'cat'");
  WriteFile(*dir_ / "punct.txt", ", 1 2\n. 3 4\n");
  ExpectOneLineError(Run({"convert", "--from", "word2vec", P("punct.txt"), "-o", P("bad.swe")}), 1, "no usable words");
  EXPECT_FALSE(fs::exists(*dir_ / "bad.swe"));
}

// --from swe re-seals a model: raw (the default) and back to zstd, the message unchanged, so the
// same vectors; options that would change the model are refused.
TEST_F(CliTest, ConvertFromSweReseals) {
  Result r = Run({"convert", "--from", "swe", P("model.swe"), "-o", P("raw.swe")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("raw payload"), std::string::npos) << r.out;
  r = Run({"convert", "--from", "swe", P("raw.swe"), "-o", P("packed.swe"), "--zstd", "19"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::unique_ptr<swe::Model> a = ReadModelFile(P("model.swe")), b = ReadModelFile(P("raw.swe")),
                              c = ReadModelFile(P("packed.swe"));
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(b->ToContents().vectors, a->ToContents().vectors);
  EXPECT_EQ(c->ToContents().vectors, a->ToContents().vectors);
  EXPECT_EQ(b->provenance().name, a->provenance().name);
  ExpectOneLineError(Run({"convert", "--from", "swe", P("model.swe"), "-o", P("bad.swe"), "--dtype", "f16"}), 2,
                     "--dtype does not apply to --from swe");
  WriteFile(*dir_ / "not-a-model.swe", "hello");
  ExpectOneLineError(Run({"convert", "--from", "swe", P("not-a-model.swe"), "-o", P("bad.swe")}), 1, "bad magic");
  EXPECT_FALSE(fs::exists(*dir_ / "bad.swe"));
}

// tokenize --count counts each row over a corpus; convert --from swe --weights writes those word
// weights (f32 and int8 tables alike, the table unchanged, unlisted words kept at 1) and refuses a
// word the model lacks, a repeat or a bad weight.
TEST_F(CliTest, CountsWordsAndSetsWeights) {
  Result r = Run({"tokenize", P("model.swe"), "--count", "-"}, kDocs + "The THE cat zebra\n");
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> counts = Lines(r.out);
  ASSERT_EQ(counts.size(), kWords.size());
  EXPECT_EQ(counts[0], "the\t5");  // folded "The" and "THE" count as "the"; "in" and "zebra" are unknown
  EXPECT_EQ(counts[1], "cat\t2");
  EXPECT_EQ(counts[5], "stock\t1");
  EXPECT_NE(r.err.find("6 lines, 23 words, 21 known"), std::string::npos) << r.err;

  WriteFile(*dir_ / "weights.tsv", "the\t0\ncat\t2.5\n");
  swe::ModelContents contents = swe::testing::RandomContents(kWords, kDims, 3);
  std::vector<uint8_t> bytes = swe::testing::ModelBytes(contents, swe::DType::kInt8);
  std::ofstream(*dir_ / "int8.swe", std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  for (const std::string name : {"model", "int8"}) {
    r = Run({"convert", "--from", "swe", P(name + ".swe"), "-o", P(name + "-weighted.swe"), "--weights", P("weights.tsv")});
    ASSERT_EQ(r.code, 0) << r.err;
    std::unique_ptr<swe::Model> before = ReadModelFile(P(name + ".swe")), after = ReadModelFile(P(name + "-weighted.swe"));
    ASSERT_TRUE(before && after);
    EXPECT_FALSE(before->has_weights());
    ASSERT_TRUE(after->has_weights());
    EXPECT_EQ(after->dtype(), before->dtype());
    EXPECT_EQ(after->weight(0), 0.0f);
    EXPECT_EQ(after->weight(1), 2.5f);
    EXPECT_EQ(after->weight(2), 1.0f);
    EXPECT_EQ(after->ToContents().vectors, before->ToContents().vectors);
  }
  // The weighted mean: "the" (weight 0) no longer moves the sentence vector.
  r = Run({"similarity", P("model-weighted.swe"), "the cat sat", "cat sat"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NEAR(std::stod(r.out), 1.0, 1e-5);
  r = Run({"similarity", P("model.swe"), "the cat sat", "cat sat"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_LT(std::stod(r.out), 0.99);

  const std::vector<std::pair<std::string, std::string>> bad = {
      {"zebra\t1\n", "weights.bad:1: 'zebra' is not a word of the model"},
      {"cat\t1\ndog\t2\ncat\t3\n", "weights.bad:3: 'cat' is listed twice"},
      {"cat\t-1\n", "must be a number in [0, 2^40], not '-1'"},
      {"cat\tnan\n", "not 'nan'"},
      {"cat\t1e300\n", "not '1e300'"},
      {"cat\t\n", "not ''"},
      {"cat 1\n", "weights.bad:1: expected \"word<TAB>weight\""}};
  for (const auto& [text, error] : bad) {
    WriteFile(*dir_ / "weights.bad", text);
    ExpectOneLineError(Run({"convert", "--from", "swe", P("model.swe"), "-o", P("bad.swe"), "--weights", P("weights.bad")}), 1,
                       error);
  }
  EXPECT_FALSE(fs::exists(*dir_ / "bad.swe"));
  ExpectOneLineError(Run({"convert", "--from", "word2vec", P("model.swe"), "-o", P("bad.swe"), "--weights", P("weights.tsv")}),
                     2, "--weights applies to --from swe only");
  ExpectOneLineError(Run({"tokenize", P("model.swe"), "--count", "-", "the"}), 2, "--count FILE takes one MODEL");
}

// convert --from swe --top N keeps the first N words with their rows unchanged (int8 rows re-quantise to
// the same bytes), drops the rest (now unknown) and keeps the tokenizer; N past the vocabulary keeps all.
TEST_F(CliTest, KeepsTheFirstWordsOfAModel) {
  swe::ModelContents contents = swe::testing::RandomContents(kWords, kDims, 5);
  std::vector<uint8_t> bytes = swe::testing::ModelBytes(contents, swe::DType::kInt8);
  std::ofstream(*dir_ / "int8.swe", std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  for (const std::string name : {"model", "int8"}) {
    Result r = Run({"convert", "--from", "swe", P(name + ".swe"), "-o", P(name + "-top3.swe"), "--top", "3"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("its first 3 words"), std::string::npos) << r.out;
    std::unique_ptr<swe::Model> before = ReadModelFile(P(name + ".swe")), after = ReadModelFile(P(name + "-top3.swe"));
    ASSERT_TRUE(before && after);
    ASSERT_EQ(after->vocab_size(), 3u);
    EXPECT_EQ(after->dtype(), before->dtype());
    const std::vector<float> all = before->ToContents().vectors, kept = after->ToContents().vectors;
    EXPECT_EQ(kept, std::vector<float>(all.begin(), all.begin() + 3 * kDims));
    for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(after->word(i), before->word(i));
    EXPECT_EQ(after->find(kWords[3]), -1);
    r = Run({"similarity", P(name + "-top3.swe"), kWords[0] + " " + kWords[3], kWords[0]});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NEAR(std::stod(r.out), 1.0, 1e-5);  // the dropped word is unknown: it no longer moves the vector
  }
  Result r = Run({"convert", "--from", "swe", P("model.swe"), "-o", P("all.swe"), "--top", "1000"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::unique_ptr<swe::Model> all = ReadModelFile(P("all.swe"));
  ASSERT_TRUE(all);
  EXPECT_EQ(all->vocab_size(), kWords.size());
  // --name and --description replace the provenance only.
  r = Run({"convert", "--from", "swe", P("int8.swe"), "-o", P("renamed.swe"), "--name", "my-model", "--description", "mine"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::unique_ptr<swe::Model> before = ReadModelFile(P("int8.swe")), renamed = ReadModelFile(P("renamed.swe"));
  ASSERT_TRUE(before && renamed);
  EXPECT_EQ(renamed->provenance().name, "my-model");
  EXPECT_EQ(renamed->provenance().description, "mine");
  EXPECT_EQ(renamed->ToContents().vectors, before->ToContents().vectors);
  ExpectOneLineError(Run({"convert", "--from", "swe", P("model.swe"), "-o", P("bad.swe"), "--top", "0"}), 2, "--top");
  EXPECT_FALSE(fs::exists(*dir_ / "bad.swe"));
}

// --cjk sets the model's CJK mode and which CJK words can be kept: pairs with bigrams, words of up
// to 8 characters with longest; swe info and swe tokenize show the mode at work.
TEST_F(CliTest, ConvertWithCjkModes) {
  WriteFile(*dir_ / "cjk.txt",
            "東 1 0\n"
            "東京 0 1\n"
            "東京タワー 1 1\n"
            "一二三四五六七八九 2 2\n"
            "abc東京 3 3\n"
            "に 1 2\n");
  auto words = [](const swe::Model& m) {
    std::vector<std::string> out;
    for (uint32_t i = 0; i < m.vocab_size(); ++i) out.emplace_back(m.word(i));
    return out;
  };
  using Strings = std::vector<std::string>;
  Result r = Run({"convert", "--from", "word2vec", P("cjk.txt"), "-o", P("chars.swe")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(words(*ReadModelFile(P("chars.swe"))), (Strings{"東", "に"}));
  r = Run({"convert", "--from", "word2vec", P("cjk.txt"), "-o", P("bigrams.swe"), "--cjk", "bigrams"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::unique_ptr<swe::Model> m = ReadModelFile(P("bigrams.swe"));
  EXPECT_EQ(words(*m), (Strings{"東", "東京", "に"}));
  EXPECT_EQ(m->tokenizer_config().cjk, swe::CjkMode::kBigrams);
  EXPECT_NE(m->provenance().recipe.find("--cjk bigrams"), std::string::npos) << m->provenance().recipe;
  r = Run({"convert", "--from", "word2vec", P("cjk.txt"), "-o", P("longest.swe"), "--cjk", "longest"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(words(*ReadModelFile(P("longest.swe"))), (Strings{"東", "東京", "東京タワー", "に"}));
  r = Run({"convert", "--from", "word2vec", P("cjk.txt"), "-o", P("none.swe"), "--cjk", "none"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(words(*ReadModelFile(P("none.swe"))).size(), 6u);

  r = Run({"info", P("longest.swe")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(" cjk=longest "), std::string::npos) << r.out;
  r = Run({"info", P("bigrams.swe"), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["tokenizer"]["cjk"], "bigrams");
  r = Run({"tokenize", P("longest.swe"), "東京タワーに"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("東京タワー"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 words: 2 known, 0 skipped"), std::string::npos) << r.out;

  ExpectOneLineError(Run({"convert", "--from", "word2vec", P("cjk.txt"), "-o", P("x.swe"), "--cjk", "subwords"}), 2,
                     "--cjk must be characters, none, bigrams or longest, not 'subwords'");
  ExpectOneLineError(Run({"convert", "--from", "word2vec", P("cjk.txt"), "-o", P("x.swe"), "--cjk", "Bigrams"}), 2,
                     "not 'Bigrams'");
  EXPECT_FALSE(fs::exists(*dir_ / "x.swe"));
}

std::string WinkJson(bool words_first) {
  std::string words = "\"words\":[\"the\",\",\",\"cat\",\"the\",\"dog\",\"mat\"]";
  std::string vectors =
      "\"vectors\":{\"the\":[0.5,-0.25,1,1.2,0],\",\":[1,1,1,1.7,1],\"cat\":[1e-3,2,-3,3.6,2],"
      "\"dog\":[4,5,6,8.7,3],\"mat\":[7,8,9,13.9,4],\"unlisted\":[1,2,3,3.7,5]}";
  std::string head = "{\"precision\":8,\"l2NormIndex\":3,\"wordIndex\":4,\"size\":5,\"dimensions\":3,";
  return head + (words_first ? words + "," + vectors : vectors + "," + words) + ",\"unkVector\":[0,0,0,0,-1]}";
}

TEST_F(CliTest, ConvertGloveJson) {
  for (bool words_first : {true, false}) {
    WriteFile(*dir_ / "wink.json", WinkJson(words_first));
    Result r = Run({"convert", "--from", "glove-json", P("wink.json"), "-o", P("wink.swe"), "--top", "3", "--dtype",
                    "int8"});
    ASSERT_EQ(r.code, 0) << r.err;
    std::unique_ptr<swe::Model> model = ReadModelFile(P("wink.swe"));
    ASSERT_TRUE(model);
    ASSERT_EQ(model->vocab_size(), 3u);
    EXPECT_EQ(model->dims(), 3u);
    EXPECT_EQ(model->dtype(), swe::DType::kInt8);
    EXPECT_EQ(model->word(0), "the");
    EXPECT_EQ(model->word(1), "cat");
    EXPECT_EQ(model->word(2), "dog");
    std::vector<float> row(3);
    model->CopyRow(2, row.data());
    EXPECT_NEAR(row[0], 4, 0.05);
    EXPECT_NEAR(row[2], 6, 0.05);
  }
  // Without --top: every listed single word, in "words" order.
  WriteFile(*dir_ / "wink.json", WinkJson(true));
  ASSERT_EQ(Run({"convert", "--from", "glove-json", P("wink.json"), "-o", P("wink.swe")}).code, 0);
  EXPECT_EQ(ReadModelFile(P("wink.swe"))->vocab_size(), 4u);

  WriteFile(*dir_ / "short.json",
            "{\"dimensions\":3,\"l2NormIndex\":3,\"wordIndex\":4,\"words\":[\"a\",\"b\"],"
            "\"vectors\":{\"a\":[1,2,3,4,0],\"b\":[1,2,3,1]}}");
  ExpectOneLineError(Run({"convert", "--from", "glove-json", P("short.json"), "-o", P("bad.swe")}), 1, "'b'");
  WriteFile(*dir_ / "missing.json", "{\"dimensions\":2,\"words\":[\"a\",\"b\"],\"vectors\":{\"a\":[1,2]}}");
  ExpectOneLineError(Run({"convert", "--from", "glove-json", P("missing.json"), "-o", P("bad.swe")}), 1, "'b'");
  WriteFile(*dir_ / "huge.json", "{\"dimensions\":2,\"words\":[\"a\"],\"vectors\":{\"a\":[1,1e300]}}");
  ExpectOneLineError(Run({"convert", "--from", "glove-json", P("huge.json"), "-o", P("bad.swe")}), 1, "non-finite");
  WriteFile(*dir_ / "broken.json", "{\"dimensions\":2,\"words\":[\"a\"],\"vectors\":{\"a\":[1,");
  ExpectOneLineError(Run({"convert", "--from", "glove-json", P("broken.json"), "-o", P("bad.swe")}), 1, "broken.json");
  WriteFile(*dir_ / "array.json", "[1,2]");
  ExpectOneLineError(Run({"convert", "--from", "glove-json", P("array.json"), "-o", P("bad.swe")}), 1, "array");
  EXPECT_FALSE(fs::exists(*dir_ / "bad.swe"));
}

TEST_F(CliTest, ConvertUsageErrors) {
  ExpectOneLineError(Run({"convert", P("glove.txt"), "-o", P("x.swe")}), 2, "--from");
  ExpectOneLineError(Run({"convert", "--from", "fasttext", P("glove.txt"), "-o", P("x.swe")}), 2, "fasttext");
  ExpectOneLineError(Run({"convert", "--from", "word2vec", P("glove.txt")}), 2, "-o");
  ExpectOneLineError(Run({"convert", "--from", "word2vec", P("glove.txt"), "-o", P("x.swe"), "--top", "-3"}), 2,
                     "--top");
  ExpectOneLineError(Run({"convert", "--from", "word2vec", P("glove.txt"), "-o", P("x.swe"), "--dtype", "q4"}), 2,
                     "--dtype");
  ExpectOneLineError(Run({"convert", "--from", "word2vec", P("absent.txt"), "-o", P("x.swe")}), 1, "absent.txt");
}

TEST_F(CliTest, BadInputs) {
  ExpectOneLineError(Run({}), 2, "no command");
  ExpectOneLineError(Run({"frobnicate"}), 2, "unknown command 'frobnicate'");
  ExpectOneLineError(Run({"--frob"}), 2, "unknown option");
  ExpectOneLineError(Run({"info", P("model.swe"), "--frob"}), 2, "unknown option '--frob'");
  ExpectOneLineError(Run({"info", P("model.swe"), "--json=yes"}), 2, "takes no value");
  ExpectOneLineError(Run({"info"}), 2, "MODEL");
  ExpectOneLineError(Run({"search", P("model.swe"), "--docs"}), 2, "needs a value");
  ExpectOneLineError(Run({"info", P("absent.swe")}), 1, "absent.swe");
  WriteFile(*dir_ / "corrupt.swe", std::string(200, 'x'));
  Result r = Run({"info", P("corrupt.swe")});
  ExpectOneLineError(r, 1, "corrupt.swe: ");
  // The core's message, as libswe gives it.
  std::unique_ptr<swe::Model> model;
  std::string bytes(200, 'x');
  swe::Status s = swe::ReadModel(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &model);
  EXPECT_NE(r.err.find(s.message()), std::string::npos) << r.err << " vs " << s.message();
  std::string model_bytes = ReadFile(P("model.swe"));
  WriteFile(*dir_ / "truncated.swe", model_bytes.substr(0, model_bytes.size() - 5));
  ExpectOneLineError(Run({"encode", P("truncated.swe"), P("docs.txt")}), 1, "truncated.swe: ");
}

// swe eval end to end on the real evaluation sets (../shared/data/eval), a quick subset with --limit.
TEST_F(CliTest, EvalLimitedSubset) {
  const std::string data = swe::test::SharedData();
  Result r = Run({"eval", P("model.swe"), P("other.swe"), "--tasks", "stsb,sick,tatoeba,subj,trec", "--limit", "40",
                  "--data", data, "--threads", "2", "--json", P("eval.jsonl"), "--markdown", P("eval.md")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("| task | metric | n | model | other |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| stsb | spearman | 40 |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| sick | spearman | 80 |"), std::string::npos) << r.out;  // train + trial, 40 each
  EXPECT_NE(r.out.find("| subj | accuracy | 80 |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| tatoeba | accuracy/deu->eng |"), std::string::npos) << r.out;
  EXPECT_EQ(ReadFile(P("eval.md")), r.out);
  std::vector<std::string> lines = Lines(ReadFile(P("eval.jsonl")));
  ASSERT_EQ(lines.size(), 10u);  // 5 tasks x 2 models
  for (const std::string& line : lines) {
    nlohmann::json j = nlohmann::json::parse(line);
    EXPECT_TRUE(j["model"] == "model" || j["model"] == "other") << line;
    EXPECT_TRUE(std::isfinite(j["score"].get<double>())) << line;
    EXPECT_GE(j["score"].get<double>(), -100.0);
    EXPECT_LE(j["score"].get<double>(), 100.0);
  }
  // Deterministic: the same run gives the same records (seconds aside).
  Result again = Run({"eval", P("model.swe"), "--tasks", "subj", "--limit", "40", "--data", data, "--no-details"});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(again.out.find("| task | detail |"), std::string::npos);
  const nlohmann::json first = nlohmann::json::parse(lines[3]);  // model, subj
  EXPECT_EQ(first["task"], "subj");
  char expected[64];
  std::snprintf(expected, sizeof expected, "| subj | accuracy | 80 | %.1f |", first["score"].get<double>());
  EXPECT_NE(again.out.find(expected), std::string::npos) << again.out;
}

// The cross-lingual tasks end to end: FLORES pairs under DATA/train/parallel, STS17 es-en.
TEST_F(CliTest, EvalCrossLingualTasks) {
  Result r = Run({"eval", P("model.swe"), "--tasks", "flores-ja,sts17-es-en", "--limit", "40", "--data",
                  swe::test::SharedData()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("| flores-ja | accuracy | 40 |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| flores-ja | accuracy/en->ja |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| flores-ja | accuracy/ja->en |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| sts17-es-en | spearman | 40 |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| sts17-es-en | spearman/track4b.es-en |"), std::string::npos) << r.out;
  ExpectOneLineError(Run({"eval", P("model.swe"), "--tasks", "pairs:" + P("missing.tsv")}), 1, "missing.tsv: cannot open");
}

// BEIR retrieval: the scifact task on a subset, and --beir DIR alone (the same directory by path).
TEST_F(CliTest, EvalBeir) {
  const std::string data = swe::test::SharedData();
  Result r = Run({"eval", P("model.swe"), "--tasks", "scifact", "--limit", "10", "--data", data});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("| scifact | ndcg@10 | 10 |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| scifact | recall@100 |"), std::string::npos) << r.out;
  const std::string dir = data + "/eval/retrieval/scifact";
  Result b = Run({"eval", P("model.swe"), "--beir", dir, "--limit", "10", "--no-details"});
  ASSERT_EQ(b.code, 0) << b.err;
  const size_t start = r.out.find("| scifact |") + std::strlen("| scifact |");
  const std::string row = r.out.substr(start, r.out.find('\n', start) - start);  // " ndcg@10 | 10 | SCORE |"
  EXPECT_EQ(b.out, "| task | metric | n | model |\n|---|---|---:|---:|\n| beir:" + dir + " |" + row + "\n") << b.out;
  ExpectOneLineError(Run({"eval", P("model.swe"), "--beir", P("no-beir")}), 1, "no-beir/queries.jsonl: cannot open");
}

TEST_F(CliTest, EvalErrors) {
  ExpectOneLineError(Run({"eval", P("model.swe"), "--tasks", "stsb,nope"}), 2, "unknown task 'nope'");
  ExpectOneLineError(Run({"eval"}), 2, "expected at least one MODEL");
  ExpectOneLineError(Run({"eval", P("model.swe"), "--tasks", "stsb", "--data", P("no-data")}), 1, "stsb: io:");
  ExpectOneLineError(Run({"eval", P("missing.swe")}), 1, "missing.swe");
}

}  // namespace
