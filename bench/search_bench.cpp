// Index search at scale, against the memory-bandwidth bound measured in the same run.
//
//   search_bench --text FILE [--model FILE.swe] [--vectors N] [--queries FILE] [--threads T]
//                [--repeats R] [--candidates C,C,...]
//
// Vectors: the first N (default 1,000,000) lines of FILE (bench/text_corpus.sh FILE 964000 writes the
// web demo's 36,402 passages and 964,000 corpus sentences) encoded by the model (default: the shipped
// one) into an int8 Index. Queries: 200 STS-B dev sentences (--queries: one per line). Measured, one
// thread, median of R: a plain read of as many bytes as the int8 rows and scales ("bandwidth"), exact
// search (Index::Search, k = 10), and SearchBinary with each number of candidates, with its recall@10
// against the exact hits; the index's memory before and after its binary codes exist (built by the
// first SearchBinary, timed). Then the same comparison as users reach it, through the C API
// (swe_index_search_batch, exact vs swe_search_params.candidates), on an index built with
// swe_index_add. With T threads: encode and exact search throughput on 1..T threads (wall clock; the
// queries or texts split between threads). JSON lines on stdout, a summary on stderr.
#include <time.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.h"
#include "swe.h"
#include "swe/encoder.h"
#include "swe/index.h"
#include "swe/model_file.h"

namespace {

struct Options {
  std::string model = std::string(bench::BenchModelsDir()) + "/swe-en-use-lite-large-para.swe", text,
              queries = std::string(bench::BenchDataDir()) + "/eval/sts/stsbenchmark/sts-dev.csv";
  size_t vectors = 1000000, threads = 2;
  int repeats = 5;
  std::vector<size_t> candidates = {100, 200, 500, 1000, 2000};
};

using bench::Check;
using bench::Die;
using bench::ThreadSeconds;

// Lines of a text file (an STS-B .csv: its two sentence columns), at most `limit`.
std::vector<std::string> ReadTexts(const std::string& path, size_t limit) {
  std::ifstream in(path);
  if (!in) Die("cannot read " + path);
  const bool sts = path.size() > 4 && path.substr(path.size() - 4) == ".csv";
  std::vector<std::string> out;
  for (std::string line; out.size() < limit && std::getline(in, line);) {
    if (!sts) {
      if (!line.empty()) out.push_back(line);
      continue;
    }
    std::vector<std::string> cols;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, '\t');) cols.push_back(c);
    if (cols.size() >= 7) out.push_back(cols[5]);
  }
  if (out.empty()) Die("no texts in " + path);
  return out;
}

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double Median(const Options& o, const std::function<void()>& f, double (*clock)() = ThreadSeconds) {
  f();
  std::vector<double> t;
  for (int r = 0; r < o.repeats; ++r) {
    const double start = clock();
    f();
    t.push_back(clock() - start);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
// Runs f(i) for i < n on `threads` threads, each a contiguous share.
void Parallel(size_t n, size_t threads, const std::function<void(size_t, size_t)>& f) {
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t) pool.emplace_back(f, n * t / threads, n * (t + 1) / threads);
  for (std::thread& th : pool) th.join();
}

volatile uint64_t g_sink;

void Print(const char* what, const std::string& fields, const char* summary) {
  std::printf("{\"bench\": \"search\", \"what\": \"%s\", %s}\n", what, fields.c_str());
  std::fprintf(stderr, "  %s\n", summary);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  bench::g_program = "search_bench";
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&] { return bench::ArgValue(argc, argv, &i); };
    if (a == "--model") o.model = value();
    else if (a == "--text") o.text = value();
    else if (a == "--queries") o.queries = value();
    else if (a == "--vectors") o.vectors = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--threads") o.threads = std::max<size_t>(1, std::strtoull(value().c_str(), nullptr, 10));
    else if (a == "--repeats") o.repeats = std::max(1, std::atoi(value().c_str()));
    else if (a == "--candidates") {
      o.candidates.clear();
      std::stringstream ss(value());
      for (std::string c; std::getline(ss, c, ',');) o.candidates.push_back(std::strtoull(c.c_str(), nullptr, 10));
    } else Die("unknown argument " + a + " (see the comment at the top of bench/search_bench.cpp)");
  }
  if (o.text.empty()) Die("--text FILE is required (bash bench/text_corpus.sh FILE 964000)");
  std::ifstream model_in(o.model, std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(model_in)), {});
  std::unique_ptr<swe::Model> model;
  Check(swe::ReadModel(bytes.data(), bytes.size(), &model), "reading " + o.model);
  const uint32_t dims = model->dims();
  const std::vector<std::string> texts = ReadTexts(o.text, o.vectors);
  const std::vector<std::string> query_texts = ReadTexts(o.queries, 200);
  const size_t n = texts.size(), nq = query_texts.size();
  char line[512];

  // Encode throughput on 1..T threads (wall clock), the vectors kept from the last run.
  std::vector<float> vectors(n * dims);
  for (size_t t = 1; t <= o.threads; ++t) {
    const double start = WallSeconds();
    Parallel(n, t, [&](size_t begin, size_t end) {
      swe::Encoder encoder(*model);
      for (size_t i = begin; i < end; ++i) encoder.Encode(texts[i], vectors.data() + i * dims);
    });
    const double s = WallSeconds() - start;
    std::snprintf(line, sizeof line, "encode %zu texts on %zu thread(s): %.0f texts/s", n, t, n / s);
    Print("encode", "\"threads\": " + std::to_string(t) + ", \"texts\": " + std::to_string(n) +
                        ", \"texts_per_s\": " + std::to_string(n / s), line);
  }
  std::unique_ptr<swe::Index> index;
  Check(swe::Index::Create(dims, swe::DType::kInt8, &index), "index");
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = i;
  Check(index->AddBatch(ids.data(), vectors.data(), n), "adding");
  std::vector<float> queries(nq * dims);
  swe::Encoder encoder(*model);
  for (size_t i = 0; i < nq; ++i) encoder.Encode(query_texts[i], queries.data() + i * dims);
  std::fprintf(stderr, "search_bench: %zu x %u int8 vectors (%.0f MB), %zu queries, k = 10\n", n, dims,
               n * (dims + 4.0) / 1e6, nq);

  // The bound: reading as many bytes as the rows and scales, summed 8 bytes at a time.
  std::vector<uint64_t> plain((n * (dims + 4) + 7) / 8, 0x0101010101010101ull);
  const double read = Median(o, [&] {
    uint64_t sum = 0;
    for (uint64_t v : plain) sum += v;
    g_sink = sum;
  });
  const double gbps = plain.size() * 8 / read / 1e9;
  std::snprintf(line, sizeof line, "bandwidth: plain read of %.0f MB: %.2f ms (%.1f GB/s)", plain.size() * 8 / 1e6,
                read * 1e3, gbps);
  Print("bandwidth", "\"ms\": " + std::to_string(read * 1e3) + ", \"gb_per_s\": " + std::to_string(gbps), line);

  std::vector<std::vector<swe::SearchHit>> exact(nq);
  const double exact_s = Median(o, [&] {
    for (size_t q = 0; q < nq; ++q) Check(index->Search(queries.data() + q * dims, 10, &exact[q]), "search");
  }) / nq;
  std::snprintf(line, sizeof line, "exact int8: %.2f ms/query, %.2fx the plain read", exact_s * 1e3, exact_s / read);
  Print("exact", "\"ms_per_query\": " + std::to_string(exact_s * 1e3) + ", \"over_read\": " +
                     std::to_string(exact_s / read), line);

  // Memory: an index that never searched approximately has no codes; the first SearchBinary builds them.
  const size_t without_codes = index->MemoryBytes();
  {
    std::vector<swe::SearchHit> hits;
    const double start = WallSeconds();
    Check(index->SearchBinary(queries.data(), 10, 10, &hits), "first binary search");
    const double build = WallSeconds() - start;
    const size_t with_codes = index->MemoryBytes();
    std::snprintf(line, sizeof line,
                  "index memory: %.1f MB without codes, %.1f MB with (+%.1f%%); the first binary search built them "
                  "in %.0f ms", without_codes / 1e6, with_codes / 1e6, 100.0 * (with_codes - without_codes) / without_codes,
                  build * 1e3);
    Print("memory", "\"bytes_without_codes\": " + std::to_string(without_codes) + ", \"bytes_with_codes\": " +
                        std::to_string(with_codes) + ", \"first_binary_search_ms\": " + std::to_string(build * 1e3),
          line);
  }

  for (size_t c : o.candidates) {
    std::vector<std::vector<swe::SearchHit>> approx(nq);
    const double s = Median(o, [&] {
      for (size_t q = 0; q < nq; ++q) Check(index->SearchBinary(queries.data() + q * dims, 10, c, &approx[q]), "binary");
    }) / nq;
    size_t found = 0, total = 0;
    for (size_t q = 0; q < nq; ++q) {
      std::set<uint64_t> truth;
      for (const swe::SearchHit& h : exact[q]) truth.insert(h.id);
      for (const swe::SearchHit& h : approx[q]) found += truth.count(h.id);
      total += truth.size();
    }
    const double recall = double(found) / total;
    std::snprintf(line, sizeof line, "binary + int8 rescoring of %zu: %.3f ms/query, %.1fx faster than exact, recall@10 %.3f",
                  c, s * 1e3, exact_s / s, recall);
    Print("binary", "\"candidates\": " + std::to_string(c) + ", \"ms_per_query\": " + std::to_string(s * 1e3) +
                        ", \"speedup\": " + std::to_string(exact_s / s) + ", \"recall_at_10\": " + std::to_string(recall),
          line);
  }

  for (size_t t = 1; t <= o.threads; ++t) {
    const double s = Median(o, [&] {
      Parallel(nq, t, [&](size_t begin, size_t end) {
        std::vector<swe::SearchHit> hits;
        for (size_t q = begin; q < end; ++q) Check(index->Search(queries.data() + q * dims, 10, &hits), "search");
      });
    }, WallSeconds);
    std::snprintf(line, sizeof line, "exact search on %zu thread(s): %.1f queries/s", t, nq / s);
    Print("threads", "\"threads\": " + std::to_string(t) + ", \"queries_per_s\": " + std::to_string(nq / s), line);
  }
  // The public path: the C API on its own index of the same vectors (the core one freed first).
  index.reset();
  {
    swe_index* handle = nullptr;
    auto check = [](swe_status s, const char* what) {
      if (s != SWE_OK) Die(std::string(what) + ": " + swe_last_error());
    };
    check(swe_index_create(dims, SWE_DTYPE_INT8, &handle), "swe_index_create");
    check(swe_index_add(handle, ids.data(), vectors.data(), n), "swe_index_add");
    const size_t k = 10;
    std::vector<uint64_t> exact_ids(nq * k), got_ids(nq * k);
    std::vector<float> scores(nq * k);
    std::vector<size_t> exact_counts(nq), got_counts(nq);
    auto run = [&](size_t candidates, std::vector<uint64_t>* out_ids, std::vector<size_t>* counts) {
      swe_search_params params = swe_search_default_params();
      params.candidates = candidates;
      check(swe_index_search_batch(handle, queries.data(), nq, dims, k, -INFINITY, &params, out_ids->data(),
                                   scores.data(), counts->data()), "swe_index_search_batch");
    };
    const double api_exact = Median(o, [&] { run(0, &exact_ids, &exact_counts); }) / nq;
    std::snprintf(line, sizeof line, "C API exact: %.2f ms/query", api_exact * 1e3);
    Print("api_exact", "\"ms_per_query\": " + std::to_string(api_exact * 1e3), line);
    for (size_t c : o.candidates) {
      const double s = Median(o, [&] { run(c, &got_ids, &got_counts); }) / nq;
      size_t found = 0, total = 0;
      for (size_t q = 0; q < nq; ++q) {
        const std::set<uint64_t> truth(exact_ids.begin() + q * k, exact_ids.begin() + q * k + exact_counts[q]);
        for (size_t i = 0; i < got_counts[q]; ++i) found += truth.count(got_ids[q * k + i]);
        total += truth.size();
      }
      const double recall = double(found) / total;
      std::snprintf(line, sizeof line, "C API candidates = %zu: %.3f ms/query, %.1fx faster than exact, recall@10 %.3f", c,
                    s * 1e3, api_exact / s, recall);
      Print("api_binary", "\"candidates\": " + std::to_string(c) + ", \"ms_per_query\": " + std::to_string(s * 1e3) +
                              ", \"speedup\": " + std::to_string(api_exact / s) + ", \"recall_at_10\": " +
                              std::to_string(recall), line);
    }
    swe_index_free(handle);
  }
  return 0;
}
