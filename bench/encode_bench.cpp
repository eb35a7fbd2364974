// Single-thread encode and search throughput.
//
//   encode_bench [--data DIR] [--model FILE.swe] [--text FILE] [--dtype NAME] [--repeats N]
//                [--min-time SECONDS] [--simd NAME] [--no-index] [--mode NAME]
//
// Sentences: the STS-B dev set (DIR/eval/sts/stsbenchmark/sts-dev.csv, columns s1 and s2; DIR
// defaults to ../shared/data next to the repository). Model: FILE if given (re-written as f32, f16
// and int8 tables), else a synthetic 50k x 256 model: the benchmark's own words (lower-cased) plus
// filler words, random vectors. Every kernel variant this CPU supports is measured in a child
// process (SWE_SIMD=<variant>, so the Model and Index pick it up like any program would); --simd
// NAME measures only that one, in this process.
//
// --text FILE (one text per line, e.g. from bench/text_corpus.sh): measured like the STS-B sentences,
// plus the unknown-word path: "unknown_cold" resolves each distinct unknown word of FILE once with
// the thread's cache of resolved unknown words emptied first (ns per unknown word), "unknown_repeat"
// a text of 10 of them over and over (that cache). --dtype NAME: only that table dtype.
//
// Modes: "tokenize" (Tokenizer::Encode only), "accumulate" (the rows of pre-tokenized ids summed
// with one Model::AccumulateRow call per word, then normalised), "gather" (the same with one
// Model::AccumulateRows call per text: the encoder's path), "encode" (Encoder::Encode: the whole
// thing, one text per call), "encode_batch" (Encoder::EncodeBatch on batches of 1,024 texts, as
// `swe encode`, swe_model_encode_batch and the JS encode(texts) do), "encode_per_call" (a new Encoder
// per text: what building one costs; the C API keeps one per thread, and builds one only for texts
// over 4 KB).
// Each number is the median of --repeats timings, each timing at least --min-time of this
// thread's CPU time (so that other work on a shared machine does not count). --mode NAME: only that
// mode of the STS-B and text runs (for a profiler: `perf record encode_bench ... --mode tokenize`).
// Output: one JSON object per line on stdout; a human summary on stderr.
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench_util.h"
#include "swe/encoder.h"
#include "swe/index.h"
#include "swe/model.h"
#include "swe/model_file.h"
#include "swe/simd.h"
#include "swe/tokenizer.h"
#include "swe/util/file.h"

extern char** environ;

namespace {

struct Options {
  std::string data = bench::BenchDataDir();
  std::string model;
  std::string simd;  // measure only this variant, in this process
  std::string text;  // a realistic-text corpus, one text per line
  std::string dtype;  // only this table dtype
  std::string mode;   // only this mode
  int repeats = 7;
  double min_time = 0.2;
  bool skip_index = false;
};

using bench::Check;
using bench::Die;
using bench::ThreadSeconds;

// Column 5 and 6 (s1, s2) of a tab-separated STS-B file, without quote handling.
std::vector<std::string> ReadSentences(const std::string& path) {
  std::ifstream in(path);
  if (!in) Die("cannot read " + path + " (pass --data DIR)");
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::vector<std::string> cols;
    std::stringstream ss(line);
    for (std::string col; std::getline(ss, col, '\t');) cols.push_back(col);
    if (cols.size() >= 7) {
      out.push_back(cols[5]);
      out.push_back(cols[6]);
    }
  }
  if (out.empty()) Die("no sentences in " + path);
  return out;
}

// The non-empty lines of `path`.
std::vector<std::string> ReadTexts(const std::string& path) {
  std::vector<std::string> lines, out;
  std::string error;
  if (!swe::util::ReadLines(path, &lines, &error)) Die(error + " (make it with bench/text_corpus.sh)");
  for (std::string& line : lines) {
    if (!line.empty()) out.push_back(std::move(line));
  }
  if (out.empty()) Die("no texts in " + path);
  return out;
}

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Die("cannot read " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void FillRandom(std::vector<float>* v, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  for (float& x : *v) x = uni(rng);
}

// The benchmark's words by frequency (lower-cased ASCII, as in an uncased vocabulary), the 50k most
// frequent, then filler words up to 50k rows; dims 256.
swe::ModelContents SyntheticContents(const std::vector<std::string>& sentences) {
  const size_t kRows = 50000;
  swe::ModelContents c;
  std::map<std::string, size_t> counts;
  std::vector<std::string> words;
  for (const std::string& s : sentences) {
    words.clear();
    swe::SplitWords(s, c.tokenizer, nullptr, &words);
    for (std::string& w : words) {
      for (char& ch : w) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      ++counts[w];
    }
  }
  std::vector<std::pair<size_t, std::string>> by_count;
  for (auto& [w, n] : counts) by_count.emplace_back(n, w);
  std::stable_sort(by_count.begin(), by_count.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = 0; i < by_count.size() && c.words.size() < kRows; ++i)
    c.words.push_back(by_count[i].second);
  for (size_t i = 0; c.words.size() < kRows; ++i) c.words.push_back("filler" + std::to_string(i));
  c.dims = 256;
  c.vectors.resize(c.words.size() * c.dims);
  FillRandom(&c.vectors, 1);
  c.provenance.name = "synthetic";
  return c;
}

std::unique_ptr<swe::Model> Build(const swe::ModelContents& c, swe::DType dtype) {
  std::vector<uint8_t> bytes;
  swe::WriteOptions options;
  options.dtype = dtype;
  options.zstd_level = 1;
  Check(swe::WriteModel(c, options, &bytes), "writing the model");
  std::unique_ptr<swe::Model> model;
  Check(swe::ReadModel(bytes.data(), bytes.size(), &model), "reading the model");
  return model;
}

// Median seconds per call of `pass`, each timing repeating it for at least min_time.
double MedianSeconds(const Options& o, const std::function<void()>& pass) {
  pass();  // warm up
  std::vector<double> times;
  for (int r = 0; r < o.repeats; ++r) {
    size_t calls = 0;
    const double start = ThreadSeconds();
    double elapsed = 0;
    do {
      pass();
      ++calls;
      elapsed = ThreadSeconds() - start;
    } while (elapsed < o.min_time);
    times.push_back(elapsed / calls);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::string Json(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out = "{";
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ", ";
    out += "\"" + fields[i].first + "\": " + fields[i].second;
  }
  return out + "}";
}
std::string Str(const std::string& s) { return "\"" + s + "\""; }
std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

volatile float g_sink;  // keeps results alive

void Report(const Options& o, const swe::Model& model, const std::string& model_name, const std::string& corpus,
            const std::string& mode, size_t texts, size_t words, double seconds) {
  const char* simd = swe::simd::ActiveName();
  const char* dtype = swe::dtype_name(model.dtype());
  const double sps = texts / seconds;
  const double wps = words / seconds;
  std::printf("%s\n", Json({{"bench", Str("encode")},
                            {"corpus", Str(corpus)},
                            {"mode", Str(mode)},
                            {"dtype", Str(dtype)},
                            {"simd", Str(simd)},
                            {"model", Str(model_name)},
                            {"dims", Num(model.dims())},
                            {"sentences", Num(texts)},
                            {"words", Num(words)},
                            {"seconds_per_pass", Num(seconds)},
                            {"sentences_per_s", Num(sps)},
                            {"words_per_s", Num(wps)},
                            {"ns_per_word", Num(1e9 / wps)},
                            {"repeats", Num(o.repeats)},
                            {"clock", Str("thread_cpu")}})
                          .c_str());
  std::fprintf(stderr, "  %-6s %-5s %-6s %-14s %10.0f texts/s %12.0f words/s %7.1f ns/word\n", simd, dtype,
               corpus.c_str(), mode.c_str(), sps, wps, 1e9 / wps);
}

// The unknown-word path on `texts`: its distinct words that step 2 does not find, resolved cold
// (the thread's cache of resolved unknown words emptied before each pass: every word takes the
// subword fallback) and repeated (10 of them in one text, encoded again and again: the cache answers).
void BenchUnknown(const Options& o, const std::string& model_name, const swe::Model& model,
                  const std::vector<std::string>& texts) {
  swe::Tokenizer tokenizer(model);
  std::vector<swe::Token> tokens;
  std::map<std::string, int> seen;
  std::vector<std::string> unknown;
  size_t total = 0, unknown_total = 0;
  for (const std::string& t : texts) {
    tokens.clear();
    tokenizer.Analyze(t, &tokens);
    total += tokens.size();
    for (const swe::Token& tok : tokens) {
      if (tok.match != swe::Match::kPrefix && tok.match != swe::Match::kUnknown) continue;
      ++unknown_total;
      std::string w = t.substr(tok.begin, tok.end - tok.begin);
      if (seen.emplace(w, 0).second) unknown.push_back(std::move(w));
    }
  }
  std::fprintf(stderr, "  unknown words: %zu of %zu (%.2f%%), %zu distinct\n", unknown_total, total,
               100.0 * unknown_total / std::max<size_t>(1, total), unknown.size());
  if (unknown.size() < 10) return;
  std::vector<uint32_t> ids;
  const auto wanted = [&o](const char* mode) { return o.mode.empty() || o.mode == mode; };
  if (wanted("unknown_cold")) {
    const double cold = MedianSeconds(o, [&] {
      swe::Tokenizer::ForgetUnknownWords();
      for (const std::string& w : unknown) {
        ids.clear();
        tokenizer.Encode(w, &ids);
      }
      g_sink = static_cast<float>(ids.size());
    });
    Report(o, model, model_name, "text", "unknown_cold", unknown.size(), unknown.size(), cold);
  }
  if (!wanted("unknown_repeat")) return;
  std::string ten;
  for (size_t i = 0; i < 10; ++i) ten += unknown[i * (unknown.size() / 10)] + " ";
  const double repeat = MedianSeconds(o, [&] {
    for (int r = 0; r < 100; ++r) {
      ids.clear();
      tokenizer.Encode(ten, &ids);
    }
    g_sink = static_cast<float>(ids.size());
  });
  Report(o, model, model_name, "text", "unknown_repeat", 100, 1000, repeat);
}

void BenchEncode(const Options& o, const std::string& model_name, const swe::Model& model,
                 const std::vector<std::string>& sentences, const std::string& corpus) {
  swe::Tokenizer tokenizer(model);
  std::vector<std::vector<uint32_t>> ids(sentences.size());
  size_t words = 0;
  for (size_t i = 0; i < sentences.size(); ++i) {
    tokenizer.Encode(sentences[i], &ids[i]);
    words += ids[i].size();
  }
  std::vector<uint32_t> scratch;
  std::vector<float> out(model.dims());
  swe::Encoder encoder(model);
  const std::vector<std::string_view> views(sentences.begin(), sentences.end());
  std::vector<float> batch_out;
  const std::vector<std::pair<std::string, std::function<void()>>> modes = {
      {"tokenize",
       [&] {
         for (const std::string& s : sentences) {
           scratch.clear();
           tokenizer.Encode(s, &scratch);
         }
         g_sink = static_cast<float>(scratch.size());
       }},
      {"accumulate",
       [&] {
         for (const std::vector<uint32_t>& sentence : ids) {
           std::fill(out.begin(), out.end(), 0.0f);
           for (uint32_t id : sentence) model.AccumulateRow(id, model.weight(id), out.data(), model.dims());
           swe::NormalizeL2(out.data(), model.dims());
         }
         g_sink = out[0];
       }},
      {"gather",
       [&] {
         for (const std::vector<uint32_t>& sentence : ids) {
           std::fill(out.begin(), out.end(), 0.0f);
           model.AccumulateRows(sentence.data(), sentence.size(), out.data(), model.dims());
           swe::NormalizeL2(out.data(), model.dims());
         }
         g_sink = out[0];
       }},
      {"encode",
       [&] {
         for (const std::string& s : sentences) encoder.Encode(s, out.data());
         g_sink = out[0];
       }},
      {"encode_batch",
       [&] {
         constexpr size_t kTexts = 1024;
         batch_out.resize(kTexts * model.dims());
         for (size_t start = 0; start < views.size(); start += kTexts) {
           encoder.EncodeBatch(views.data() + start, std::min(kTexts, views.size() - start), batch_out.data());
         }
         g_sink = batch_out[0];
       }},
      {"encode_per_call",
       [&] {
         for (const std::string& s : sentences) swe::Encoder(model).Encode(s, out.data());
         g_sink = out[0];
       }},
  };
  for (const auto& [mode, pass] : modes) {
    if (!o.mode.empty() && mode != o.mode) continue;
    Report(o, model, model_name, corpus, mode, sentences.size(), words, MedianSeconds(o, pass));
  }
  std::fflush(stdout);
}

void BenchIndex(const Options& o, uint32_t dims) {
  const char* simd = swe::simd::ActiveName();
  const size_t kQueries = 16;
  std::vector<float> queries(kQueries * dims);
  FillRandom(&queries, 7);
  for (size_t n : {size_t{10000}, size_t{100000}}) {
    std::vector<float> vectors(n * dims);
    FillRandom(&vectors, 3);
    std::vector<uint64_t> ids(n);
    for (size_t i = 0; i < n; ++i) ids[i] = i;
    for (swe::DType dtype : {swe::DType::kF32, swe::DType::kInt8}) {
      std::unique_ptr<swe::Index> index;
      Check(swe::Index::Create(dims, dtype, &index), "creating the index");
      Check(index->AddBatch(ids.data(), vectors.data(), n), "filling the index");
      std::vector<swe::SearchHit> hits;
      const double seconds = MedianSeconds(o, [&] {
        for (size_t q = 0; q < kQueries; ++q)
          Check(index->Search(queries.data() + q * dims, 10, &hits), "search");
      });
      const double qps = kQueries / seconds;
      std::printf("%s\n", Json({{"bench", Str("search")},
                                {"dtype", Str(swe::dtype_name(dtype))},
                                {"simd", Str(simd)},
                                {"vectors", Num(n)},
                                {"dims", Num(dims)},
                                {"k", "10"},
                                {"queries_per_s", Num(qps)},
                                {"vectors_per_s", Num(qps * n)},
                                {"repeats", Num(o.repeats)},
                                {"clock", Str("thread_cpu")}})
                              .c_str());
      std::fprintf(stderr, "  %-6s %-5s search %6zu x %u: %9.1f queries/s (%.2f G vectors/s)\n", simd,
                   swe::dtype_name(dtype), n, dims, qps, qps * n / 1e9);
    }
  }
  std::fflush(stdout);
}

void RunHere(const Options& o) {
  const std::vector<std::string> sentences = ReadSentences(o.data + "/eval/sts/stsbenchmark/sts-dev.csv");
  swe::ModelContents contents;
  std::string name;
  if (!o.model.empty()) {
    const std::vector<uint8_t> bytes = ReadFile(o.model);
    std::unique_ptr<swe::Model> model;
    Check(swe::ReadModel(bytes.data(), bytes.size(), &model), "reading " + o.model);
    contents = model->ToContents();
    name = o.model;
  } else {
    contents = SyntheticContents(sentences);
    name = "synthetic";
  }
  std::fprintf(stderr, "simd %s, model %s: %zu words x %u dims, %zu sentences\n", swe::simd::ActiveName(),
               name.c_str(), contents.words.size(), contents.dims, sentences.size());
  std::vector<std::string> texts;
  if (!o.text.empty()) texts = ReadTexts(o.text);
  for (swe::DType dtype : {swe::DType::kF32, swe::DType::kF16, swe::DType::kInt8}) {
    if (!o.dtype.empty() && o.dtype != swe::dtype_name(dtype)) continue;
    std::unique_ptr<swe::Model> model = Build(contents, dtype);
    BenchEncode(o, name, *model, sentences, "sts-b");
    if (!texts.empty()) {
      BenchEncode(o, name, *model, texts, "text");
      BenchUnknown(o, name, *model, texts);
    }
  }
  if (!o.skip_index) BenchIndex(o, contents.dims);
}

// Runs this program again with SWE_SIMD=<variant> and --simd <variant>, sharing stdout and stderr.
void RunChild(int argc, char** argv, const char* variant) {
  std::vector<std::string> args(argv, argv + argc);
  args.push_back("--simd");
  args.push_back(variant);
  std::vector<char*> cargs;
  for (std::string& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  setenv("SWE_SIMD", variant, 1);
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid;
  if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, cargs.data(), environ) != 0) Die("cannot spawn");
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) Die(std::string("variant ") + variant + " failed");
}

}  // namespace

int main(int argc, char** argv) {
  bench::g_program = "encode_bench";
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&] { return bench::ArgValue(argc, argv, &i); };
    if (a == "--data")
      o.data = value();
    else if (a == "--model")
      o.model = value();
    else if (a == "--simd")
      o.simd = value();
    else if (a == "--repeats")
      o.repeats = std::max(1, std::atoi(value().c_str()));
    else if (a == "--min-time")
      o.min_time = std::atof(value().c_str());
    else if (a == "--text")
      o.text = value();
    else if (a == "--dtype")
      o.dtype = value();
    else if (a == "--mode")
      o.mode = value();
    else if (a == "--no-index")
      o.skip_index = true;
    else
      Die("unknown argument " + a + " (see the comment at the top of bench/encode_bench.cpp)");
  }
  if (!o.simd.empty()) {
    setenv("SWE_SIMD", o.simd.c_str(), 1);  // before anything asks for the active kernels
    if (o.simd != swe::simd::ActiveName())
      Die("variant " + o.simd + " is not available (SWE_SIMD must name it)");
    RunHere(o);
    return 0;
  }
  for (const char* name : swe::simd::SupportedNames()) RunChild(argc, argv, name);
  return 0;
}
