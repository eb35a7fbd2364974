// The swe program: no junk hits, --min-score and --json, indexes that keep their documents (and old
// indexes that do not), and streaming: answers before stdin ends, bounded memory on large input.
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_fixture.h"
#include "swe/index.h"
#include "test_paths.h"

namespace {

using namespace swe_cli_test;
using nlohmann::json;

TEST_F(CliTest, QueryWithNoKnownWordHasNoHits) {
  Result r = Run({"search", P("model.swe"), "--docs", P("docs.txt"), "zzz qqq", "cat"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> out = Lines(r.out);
  ASSERT_GE(out.size(), 3u) << r.out;
  EXPECT_EQ(out[0], "> zzz qqq");
  EXPECT_EQ(out[1], "");  // no hit lines: the next query's separator
  EXPECT_EQ(out[2], "> cat");
  EXPECT_NE(r.err.find("'zzz qqq' has no word the model knows"), std::string::npos) << r.err;
  r = Run({"search", P("model.swe"), "--docs", P("docs.txt"), "--json", "zzz qqq"});
  ASSERT_EQ(r.code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["known_words"], 0);
  EXPECT_TRUE(j["hits"].empty());
  r = Run({"similarity", P("model.swe"), "--json", "the cat", "zzz"});
  ASSERT_EQ(r.code, 0) << r.err;
  j = json::parse(r.out);
  EXPECT_EQ(j["score"], 0.0);
  EXPECT_EQ(j["known_words"], json({2, 0}));
  EXPECT_NE(r.err.find("'zzz' has no word"), std::string::npos) << r.err;
}

TEST_F(CliTest, MinScoreAndJson) {
  Result text = Run({"search", P("model.swe"), "--docs", P("docs.txt"), "-k", "4", "market fell price stock"});
  Result r = Run({"search", P("model.swe"), "--docs", P("docs.txt"), "-k", "4", "--json", "market fell price stock"});
  ASSERT_EQ(r.code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["query"], "market fell price stock");
  EXPECT_EQ(j["known_words"], 4);
  ASSERT_EQ(j["hits"].size(), 4u);
  EXPECT_EQ(j["hits"][0]["id"], "2");  // line numbers from 1
  EXPECT_EQ(j["hits"][0]["text"], "stock market price fell");
  std::vector<std::string> lines = Lines(text.out);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(j["hits"][i]["rank"], i + 1);
    char score[32];
    std::snprintf(score, sizeof score, "%.4f", j["hits"][i]["score"].get<double>());
    EXPECT_EQ(lines[1 + i], std::to_string(i + 1) + "\t" + score + "\t" + j["hits"][i]["text"].get<std::string>());
  }
  // A floor between the best and the second score keeps one hit.
  const double floor = (j["hits"][0]["score"].get<double>() + j["hits"][1]["score"].get<double>()) / 2;
  r = Run({"search", P("model.swe"), "--docs", P("docs.txt"), "-k", "4", "--min-score", std::to_string(floor),
           "market fell price stock"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Lines(r.out).size(), 2u) << r.out;
  ExpectOneLineError(Run({"search", P("model.swe"), "--docs", P("docs.txt"), "--min-score", "2", "q"}), 2,
                     "--min-score");
  ExpectOneLineError(Run({"search", P("model.swe"), "--docs", P("docs.txt"), "--min-score", "x", "q"}), 2,
                     "--min-score");
  r = Run({"tokenize", P("model.swe"), "--json", "The zzz"});
  ASSERT_EQ(r.code, 0) << r.err;
  j = json::parse(r.out);
  EXPECT_EQ(j["known_words"], 1);
  ASSERT_EQ(j["tokens"].size(), 2u);
  EXPECT_EQ(j["tokens"][0]["vocabulary_word"], "the");
  EXPECT_EQ(j["tokens"][1]["match"], "unknown");
  EXPECT_EQ(j["tokens"][1]["row"], -1);
}

// --candidates N: approximate search. With every document a candidate it answers as exact search;
// with fewer, its hits are documents with their exact scores; fewer than -k is a usage error.
TEST_F(CliTest, CandidatesSearchApproximately) {
  std::string docs;
  for (size_t i = 0; i < 300; ++i) {  // 300 distinct texts of 3 to 5 of the model's words
    for (size_t w = 0, n = 3 + i % 3; w < n; ++w) docs += (w ? " " : "") + kWords[(i * (w + 3) + w * w * 7 + i / 16) % kWords.size()];
    docs += " " + std::to_string(i) + "\n";  // unknown to the model: keeps the lines distinct
  }
  WriteFile(*dir_ / "many.txt", docs);
  ASSERT_EQ(Run({"index", "build", P("model.swe"), "--docs", P("many.txt"), "--dtype", "int8", "-o", P("many.swi")}).code, 0);
  const std::string query = "stock market weather dog";
  auto hits = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"index", "query", P("model.swe"), P("many.swi"), "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(query);
    Result r = Run(args);
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? json::parse(r.out)["hits"] : json::array();
  };
  const json exact = hits({"-k", "10"});
  ASSERT_EQ(exact.size(), 10u);
  EXPECT_EQ(hits({"-k", "10", "--candidates", "300"}), exact);
  EXPECT_EQ(hits({"-k", "10", "--candidates", "100000"}), exact);
  std::map<std::string, double> all;  // id -> exact score
  for (const json& h : hits({"-k", "300"})) all[h["id"]] = h["score"];
  const json approx = hits({"-k", "10", "--candidates", "12"});
  ASSERT_EQ(approx.size(), 10u);
  for (const json& h : approx) EXPECT_EQ(h["score"].get<double>(), all.at(h["id"])) << h;
  // swe search takes it too, with --docs or --index.
  Result r = Run({"search", P("model.swe"), "--index", P("many.swi"), "-k", "10", "--candidates", "300", "--json", query});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["hits"], exact);
  r = Run({"search", P("model.swe"), "--docs", P("many.txt"), "-k", "3", "--candidates", "50", query});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Lines(r.out).size(), 4u) << r.out;
  ExpectOneLineError(Run({"index", "query", P("model.swe"), P("many.swi"), "-k", "10", "--candidates", "5", "q"}), 2,
                     "--candidates (5) must be at least -k (10)");
  ExpectOneLineError(Run({"search", P("model.swe"), "--docs", P("many.txt"), "--candidates", "x", "q"}), 2,
                     "--candidates");
  r = Run({"search", "--help"});
  EXPECT_NE(r.out.find("--candidates N"), std::string::npos);
}

TEST_F(CliTest, IndexKeepsItsDocuments) {
  Result r = Run({"index", "build", P("model.swe"), "--docs", P("docs.txt"), "-o", P("kept.swi")});
  ASSERT_EQ(r.code, 0) << r.err;
  fs::remove(P("docs.txt") + ".moved");
  r = Run({"index", "query", P("model.swe"), P("kept.swi"), "-k", "1", "stock market"});  // no --docs
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Lines(r.out).at(1).substr(0, 2), "1\t");
  EXPECT_NE(r.out.find("stock market price fell"), std::string::npos) << r.out;
  r = Run({"index", "ids", P("kept.swi")});
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> ids = Lines(r.out);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<std::string>{"1", "2", "4", "5"}));
  r = Run({"index", "get", P("kept.swi"), "4"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out), json({{"id", "4"}, {"text", "rain weather tomorrow"}}));
  ExpectOneLineError(Run({"index", "get", P("kept.swi"), "3"}), 1, "no document with id '3'");

  // Documents with string ids and metadata from JSON lines; add replaces by id; remove.
  WriteFile(*dir_ / "more.jsonl",
            "{\"id\": \"w\", \"text\": \"rain weather\", \"metadata\": {\"lang\": \"en\", \"n\": [1, 2]}}\n\n"
            "{\"id\": 4, \"text\": \"a dog ran\"}\n");
  r = Run({"index", "add", P("model.swe"), P("kept.swi"), "--docs", P("more.jsonl")});
  ASSERT_EQ(r.code, 0) << r.err;
  r = Run({"index", "query", P("model.swe"), P("kept.swi"), "-k", "1", "--json", "weather rain"});
  ASSERT_EQ(r.code, 0) << r.err;
  json hit = json::parse(r.out)["hits"][0];
  EXPECT_EQ(hit["id"], "w");
  EXPECT_EQ(hit["metadata"], json({{"lang", "en"}, {"n", {1, 2}}}));
  r = Run({"index", "get", P("kept.swi"), "4"});
  EXPECT_EQ(json::parse(r.out)["text"], "a dog ran");
  ASSERT_EQ(Run({"index", "remove", P("kept.swi"), "w", "1", "-o", P("fewer.swi")}).code, 0);
  r = Run({"index", "ids", P("fewer.swi")});
  EXPECT_EQ(Lines(r.out).size(), 3u) << r.out;
  EXPECT_EQ(Lines(Run({"index", "ids", P("kept.swi")}).out).size(), 5u);  // -o left it as it was
  ExpectOneLineError(Run({"index", "remove", P("kept.swi"), "nope"}), 1, "nope");

  // A text file added to an index appends: its lines are numbered after the largest numeric id (5).
  WriteFile(*dir_ / "extra.txt", "a cat sat\n\nthe market rose\n");
  r = Run({"index", "add", P("model.swe"), P("kept.swi"), "--docs", P("extra.txt")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("added 2 documents, replaced 0"), std::string::npos) << r.err;
  ids = Lines(Run({"index", "ids", P("kept.swi")}).out);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<std::string>{"1", "2", "4", "5", "6", "8", "w"}));
  EXPECT_EQ(json::parse(Run({"index", "get", P("kept.swi"), "4"}).out)["text"], "a dog ran");  // kept
  EXPECT_EQ(json::parse(Run({"index", "get", P("kept.swi"), "8"}).out)["text"], "the market rose");

  // Bad JSON lines are named by file and line.
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"{\"text\": \"a\", \"title\": \"x\"}\n", "unknown key \"title\""},
      {"{\"id\": \"a\"}\n", "no \"text\""},
      {"[1]\n", "not a JSON object"},
      {"{\"text\": \"\\ud800\"}\n", "not valid JSON at column 17: syntax error while parsing value - invalid string: surrogate U+D800..U+DBFF must be followed by U+DC00..U+DFFF"},
      {"{\"text\": \"a\", }\n", "not valid JSON at column"},
      {"{\"text\": \"a\", \"metadata\": 6666e666}\n", "not valid JSON: number overflow parsing '6666e666'"},
      {"{\"text\": \"a\", \"id\": \"x\"}\n{\"text\": \"b\", \"id\": \"x\"}\n", "used twice"},
      {"{\"text\": \"a\", \"id\": 1.5}\n", "\"id\""},
  };
  for (const auto& [content, needle] : bad) {
    WriteFile(*dir_ / "bad.jsonl", content);
    Result b = Run({"index", "build", P("model.swe"), "--docs", P("bad.jsonl"), "-o", P("bad.swi")});
    ExpectOneLineError(b, 1, needle);
    EXPECT_NE(b.err.find("bad.jsonl:"), std::string::npos) << b.err;
  }
}

// add and remove append their changes to the index file (the same file, a few hundred bytes more);
// compact rewrites it whole, smaller, with the same documents.
TEST_F(CliTest, IndexChangesAreAppendedAndCompacted) {
  ASSERT_EQ(Run({"index", "build", P("model.swe"), "--docs", P("docs.txt"), "-o", P("log.swi")}).code, 0);
  struct stat built;
  ASSERT_EQ(stat(P("log.swi").c_str(), &built), 0);
  WriteFile(*dir_ / "one.jsonl", "{\"id\": \"new\", \"text\": \"a cat sat on a mat\"}\n");
  Result r = Run({"index", "add", P("model.swe"), P("log.swi"), "--docs", P("one.jsonl")});
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(Run({"index", "remove", P("log.swi"), "2"}).code, 0);
  struct stat changed;
  ASSERT_EQ(stat(P("log.swi").c_str(), &changed), 0);
  EXPECT_EQ(changed.st_ino, built.st_ino);  // appended to, not replaced
  EXPECT_GT(changed.st_size, built.st_size);
  EXPECT_LT(changed.st_size - built.st_size, 1024);
  std::vector<std::string> ids = Lines(Run({"index", "ids", P("log.swi")}).out);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<std::string>{"1", "4", "5", "new"}));
  r = Run({"index", "compact", P("log.swi")});
  ASSERT_EQ(r.code, 0) << r.err;
  struct stat compacted;
  ASSERT_EQ(stat(P("log.swi").c_str(), &compacted), 0);
  EXPECT_NE(compacted.st_ino, built.st_ino);
  EXPECT_LT(compacted.st_size, changed.st_size);
  std::vector<std::string> after = Lines(Run({"index", "ids", P("log.swi")}).out);
  std::sort(after.begin(), after.end());
  EXPECT_EQ(after, ids);
  EXPECT_EQ(json::parse(Run({"index", "get", P("log.swi"), "new"}).out)["text"], "a cat sat on a mat");
  ExpectOneLineError(Run({"index", "compact", P("nope.swi")}), 1, "nope.swi");
  ExpectOneLineError(Run({"index", "compact"}), 2, "expected INDEX");
}

// Texts in the tab-separated output of `index query` and `search` are escaped as `index ids` escapes ids:
// a newline in a text once printed fake hit lines, and escape sequences reached the terminal.
TEST_F(CliTest, QueryOutputEscapesTexts) {
  WriteFile(*dir_ / "nasty.jsonl",
            "{\"id\": \"n\", \"text\": \"a cat\\n2\\t0.9999\\tfake hit\\u001b[31m red\\\\x\"}\n"
            "{\"id\": \"m\", \"text\": \"a dog\"}\n");
  ASSERT_EQ(Run({"index", "build", P("model.swe"), "--docs", P("nasty.jsonl"), "-o", P("nasty.swi")}).code, 0);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"index", "query", P("model.swe"), P("nasty.swi"), "-k", "2", "cat"},
        std::vector<std::string>{"search", P("model.swe"), "--index", P("nasty.swi"), "-k", "2", "cat"}}) {
    Result r = Run(args);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::vector<std::string> lines = Lines(r.out);
    ASSERT_EQ(lines.size(), 3u) << r.out;  // "> cat" and two hits
    EXPECT_EQ(lines[1].substr(lines[1].rfind('\t') + 1), "a cat\\n2\\t0.9999\\tfake hit\\x1b[31m red\\\\x");
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
  }
  Result q = Run({"search", P("model.swe"), "--index", P("nasty.swi"), "a\tcat\x1b"});
  EXPECT_EQ(Lines(q.out).at(0), "> a\\tcat\\x1b");
}

// `swe index lock INDEX -- COMMAND` holds the lock the writers take while COMMAND runs (a Node program
// saving changes), and exits with its status.
TEST_F(CliTest, IndexLockHoldsTheWritersLockForACommand) {
  ASSERT_EQ(Run({"index", "build", P("model.swe"), "--docs", P("docs.txt"), "-o", P("locked.swi")}).code, 0);
  EXPECT_EQ(Run({"index", "lock", P("locked.swi"), "--", "sh", "-c", "exit 3"}).code, 3);
  EXPECT_EQ(Run({"index", "lock", P("locked.swi"), "--", "/nonexistent/program"}).code, 127);
  ExpectOneLineError(Run({"index", "lock", P("locked.swi")}), 2, "COMMAND");
  std::thread holder([&] { Run({"index", "lock", P("locked.swi"), "--", "sleep", "1"}); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto start = std::chrono::steady_clock::now();
  Result r = Run({"index", "remove", P("locked.swi"), "2"});
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  holder.join();
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_GT(waited, 0.5) << "remove did not wait for the lock";
}

// An index written before documents existed: vectors with line-number ids only.
TEST_F(CliTest, OldIndexWithoutDocumentsStillWorks) {
  std::unique_ptr<swe::Index> index;
  ASSERT_TRUE(swe::Index::Create(kDims, swe::DType::kF32, &index).ok());
  std::vector<std::string> lines = Lines(kDocs);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!lines[i].empty()) ASSERT_TRUE(index->Add(i, CoreEncode(lines[i]).data()).ok());
  }
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(index->Save(&bytes).ok());
  WriteFile(*dir_ / "old.swi", std::string(bytes.begin(), bytes.end()));
  Result r = Run({"index", "query", P("model.swe"), P("old.swi"), "--docs", P("docs.txt"), "-k", "1", "--json",
                  "dog park"});
  ASSERT_EQ(r.code, 0) << r.err;
  json hit = json::parse(r.out)["hits"][0];
  EXPECT_EQ(hit["text"], "a dog ran in the park");
  EXPECT_EQ(hit["id"], "5");
  ExpectOneLineError(Run({"index", "query", P("model.swe"), P("old.swi"), "cat"}), 2, "--docs");
  WriteFile(*dir_ / "fewer.txt", "the cat sat on the mat\n");
  ExpectOneLineError(Run({"index", "query", P("model.swe"), P("old.swi"), "--docs", P("fewer.txt"), "cat"}), 1,
                     "rebuild");
  ExpectOneLineError(Run({"search", P("model.swe"), "--docs", P("fewer.txt"), "--index", P("old.swi"), "cat"}), 1,
                     "rebuild");
  ExpectOneLineError(Run({"index", "ids", P("old.swi")}), 1, "stores no documents");
}

// swe with pipes for stdin and stdout, to talk to it line by line.
class Conversation {
 public:
  explicit Conversation(const std::vector<std::string>& args) {
    int in[2], out[2];
    EXPECT_EQ(pipe(in), 0);
    EXPECT_EQ(pipe(out), 0);
    pid_ = fork();
    EXPECT_GT(pid_, -1);
    if (pid_ == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      close(in[1]);
      close(out[0]);
      std::vector<char*> argv = {const_cast<char*>(swe::test::CliPath())};
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(swe::test::CliPath(), argv.data());
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    to_ = in[1];
    from_ = out[0];
  }
  ~Conversation() {
    if (to_ >= 0) close(to_);
    close(from_);
    if (pid_ > 0) {  // never kill(-1, ...): that signals every process
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  void Say(const std::string& line) { ASSERT_EQ(write(to_, line.data(), line.size()), ssize_t(line.size())); }
  // The next line of output, waiting at most 10 s; "<timeout>" when none came (stdin stays open).
  std::string Hear() {
    for (;;) {
      size_t nl = heard_.find('\n');
      if (nl != std::string::npos) {
        std::string line = heard_.substr(0, nl);
        heard_.erase(0, nl + 1);
        return line;
      }
      pollfd p{from_, POLLIN, 0};
      if (poll(&p, 1, 10000) <= 0) return "<timeout>";
      char buffer[4096];
      ssize_t n = read(from_, buffer, sizeof buffer);
      if (n <= 0) return "<eof>";
      heard_.append(buffer, n);
    }
  }
  int End() {
    if (pid_ <= 0) return -1;
    close(to_);
    to_ = -1;
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::string heard_;
};

TEST_F(CliTest, EncodeAndSearchAnswerEachLineAsItArrives) {
  Conversation encode({"encode", P("model.swe")});
  encode.Say("the cat\n");
  EXPECT_EQ(json::parse(encode.Hear()).get<std::vector<float>>(), CoreEncode("the cat"));
  encode.Say("stock market\n");
  EXPECT_EQ(json::parse(encode.Hear()).get<std::vector<float>>(), CoreEncode("stock market"));
  EXPECT_EQ(encode.End(), 0);

  Conversation search({"search", P("model.swe"), "--docs", P("docs.txt"), "-k", "1", "--json"});
  search.Say("dog park\n");
  EXPECT_EQ(json::parse(search.Hear())["hits"][0]["text"], "a dog ran in the park");
  search.Say("\nrain\n");
  EXPECT_EQ(json::parse(search.Hear())["hits"][0]["text"], "rain weather tomorrow");
  EXPECT_EQ(search.End(), 0);
}

TEST_F(CliTest, EncodeNpyFromAStreamEqualsFromAFile) {
  ASSERT_EQ(Run({"encode", P("model.swe"), P("docs.txt"), "-o", P("file.npy")}).code, 0);
  Result r = Run({"encode", P("model.swe"), "-", "-o", P("stream.npy")}, kDocs);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ReadFile(P("stream.npy")), ReadFile(P("file.npy")));
  // Lines longer than the reader's buffer, CRLF ends and a last line without an end.
  const std::string long_line = [] {
    std::string s;
    while (s.size() < 200'000) s += "the cat sat on the mat ";
    return s;
  }();
  r = Run({"encode", P("model.swe")}, long_line + "\r\nstock\r\n" + long_line);
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> out = Lines(r.out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(json::parse(out[0]).get<std::vector<float>>(), CoreEncode(long_line));
  EXPECT_EQ(json::parse(out[1]).get<std::vector<float>>(), CoreEncode("stock"));
  EXPECT_EQ(out[2], out[0]);
  r = Run({"encode", P("model.swe"), "-", "--format", "npy"}, "");  // no lines: shape (0, 16)
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("'shape': (0, 16)"), std::string::npos);
}

// Peak memory of swe (kB) encoding `lines` lines of text from a file into `format` on /dev/null.
long PeakKb(const std::string& model, const std::string& input, const std::string& format) {
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 2);
    execl(swe::test::CliPath(), swe::test::CliPath(), "encode", model.c_str(), input.c_str(), "-o", "/dev/null", "--format",
          format.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return usage.ru_maxrss;
}

TEST_F(CliTest, EncodeMemoryDoesNotGrowWithTheInput) {
#if defined(__SANITIZE_ADDRESS__)
  // ASan's quarantine holds freed memory back, so peak RSS grows with the work done, not with what is
  // kept; the native (unsanitized) run of this test is the one that measures.
  GTEST_SKIP() << "peak memory is not meaningful under AddressSanitizer";
#endif
  const std::string line = "the cat sat on the mat and a dog ran in the park\n";
  std::string small, large;
  for (int i = 0; i < 10'000; ++i) small += line;
  for (int i = 0; i < 50; ++i) large += small;  // 500k lines, 25 MB
  WriteFile(*dir_ / "small.txt", small);
  WriteFile(*dir_ / "large.txt", large);
  for (const char* format : {"jsonl", "npy"}) {
    const long a = PeakKb(P("model.swe"), P("small.txt"), format), b = PeakKb(P("model.swe"), P("large.txt"), format);
    // Holding the input alone would add 25 MB; the vectors another 32 MB.
    EXPECT_LT(b - a, 4 * 1024) << format << ": " << a << " kB for 10k lines, " << b << " kB for 500k";
  }
}

}  // namespace
