// The native half of bench/wasm_vs_native.mjs (which runs it): model load time and single-thread
// encode throughput through the C API, measured the way the JS half measures the wasm build.
//
//   wasm_vs_native MODEL.swe SENTENCES.txt [--repeats N] [--min-time SECONDS] [--warmup SECONDS]
//                  [--vectors OUT.f32] [--mode load | --mode query [--calls N]]
//
// SENTENCES.txt holds one sentence per line. Load: swe_model_load_from_bytes on the file's bytes
// (zstd or a copy + Cap'n Proto parse + validation + lookup table), median of --repeats; load_file:
// swe_model_load_from_file (the CLI's way: the read from the page cache included). --mode load
// measures the loads only (python3 bench/compare_builds.py takes this output too). Encode:
// swe_model_encode_batch over all sentences, repeated until --min-time passes, after --warmup seconds
// of the same (caches, CPU clocks); the median of --repeats such timings. --vectors writes the vectors (little-endian f32, row-major) for parity
// checks. --mode query: per-call latency of one text (each line of SENTENCES.txt a query), p50 and
// p90 in ns over --calls calls (default 50,000): a reused core Encoder and swe_model_encode_text, and
// the clock's own cost. Output: one JSON object on stdout.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <malloc.h>

#include "swe.h"
#include "swe/encoder.h"
#include "swe/model_file.h"
#include "swe/simd.h"

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "wasm_vs_native: %s\n", message.c_str());
  std::exit(1);
}

void Check(swe_status s, const char* what) {
  if (s != SWE_OK) Die(std::string(what) + ": " + swe_last_error());
}

std::vector<uint8_t> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Die("cannot read " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

double Seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

// Heap bytes in use (glibc's malloc: small blocks plus mmapped ones; 0 elsewhere): the difference
// around a load is what the model holds, whatever the allocator keeps resident from earlier loads.
double HeapBytesInUse() {
#if defined(__GLIBC__)
  const struct mallinfo2 m = mallinfo2();
  return double(m.uordblks) + double(m.hblkhd);
#else
  return 0;
#endif
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Nanoseconds of each of `calls` calls of `call(i)` (i cycling over `n` queries), timed one by one
// with steady_clock after `warmup` untimed calls; sorted.
template <typename Call>
std::vector<double> TimeEach(size_t n, size_t calls, size_t warmup, Call call) {
  for (size_t i = 0; i < warmup; ++i) call(i % n);
  std::vector<double> ns(calls);
  for (size_t i = 0; i < calls; ++i) {
    const Clock::time_point start = Clock::now();
    call(i % n);
    ns[i] = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
  }
  std::sort(ns.begin(), ns.end());
  return ns;
}

std::string Percentiles(const char* name, const std::vector<double>& ns) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "\"%s_p50_ns\":%.1f,\"%s_p90_ns\":%.1f", name, ns[ns.size() / 2], name,
                ns[ns.size() * 9 / 10]);
  return buf;
}

volatile float g_sink;  // keeps the vectors alive

// --mode query: the latency of one short text, as a search-as-you-type user pays it: a reused
// swe::Encoder (the core), and swe_model_encode_text (the C API call, which makes an Encoder per call),
// each call timed alone; "clock" is an empty timed call (steady_clock's own cost, included in the others).
void QueryLatency(const std::vector<uint8_t>& file, swe_model* model, const std::vector<std::string>& queries,
                  size_t calls) {
  std::unique_ptr<swe::Model> core;
  if (!swe::ReadModel(file.data(), file.size(), &core).ok()) Die("core: cannot read the model");
  swe::Encoder encoder(*core);
  const uint32_t dims = swe_model_get_dims(model);
  std::vector<float> out(dims);
  const size_t n = queries.size(), warmup = calls / 5;
  const std::vector<double> clock = TimeEach(n, calls, warmup, [](size_t) {});
  const std::vector<double> core_ns = TimeEach(n, calls, warmup, [&](size_t i) { encoder.Encode(queries[i], out.data()); });
  g_sink = out[0];
  const std::vector<double> capi_ns = TimeEach(n, calls, warmup, [&](size_t i) {
    Check(swe_model_encode_text(model, queries[i].data(), queries[i].size(), nullptr, out.data(), dims, nullptr),
          "encode");
  });
  g_sink = out[0];
  std::printf("{\"impl\":\"native\",\"kernels\":\"%s\",\"queries\":%zu,\"calls\":%zu,%s,%s,%s}\n",
              swe::simd::ActiveName(), n, calls, Percentiles("clock", clock).c_str(),
              Percentiles("core", core_ns).c_str(), Percentiles("capi", capi_ns).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) Die("usage: wasm_vs_native MODEL.swe SENTENCES.txt [--repeats N] [--min-time S] [--vectors OUT]");
  const std::string model_path = argv[1], sentences_path = argv[2];
  int repeats = 7;
  double min_time = 0.3;
  double warmup = 0.2;
  std::string vectors_path;
  bool load_only = false, query = false;
  size_t calls = 50000;
  for (int i = 3; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--repeats")) repeats = std::max(1, std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--min-time")) min_time = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--warmup")) warmup = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--vectors")) vectors_path = argv[i + 1];
    else if (!std::strcmp(argv[i], "--mode") && !std::strcmp(argv[i + 1], "load")) load_only = true;
    else if (!std::strcmp(argv[i], "--mode") && !std::strcmp(argv[i + 1], "query")) query = true;
    else if (!std::strcmp(argv[i], "--calls")) calls = std::max(10, std::atoi(argv[i + 1]));
    else Die(std::string("unknown option ") + argv[i]);
  }

  swe_model* model = nullptr;
  const double heap_before = HeapBytesInUse();
  Check(swe_model_load_from_file(model_path.c_str(), nullptr, &model), "load from file");
  const double model_heap = HeapBytesInUse() - heap_before;  // what a loaded model costs
  const std::vector<uint8_t> file = ReadBytes(model_path);
  std::vector<double> load_ms;
  for (int r = 0; r < repeats; ++r) {
    swe_model_free(model);
    model = nullptr;
    const Clock::time_point start = Clock::now();
    Check(swe_model_load_from_bytes(file.data(), file.size(), nullptr, &model), "load");
    load_ms.push_back(1e3 * Seconds(start));
  }
  std::vector<double> load_file_ms;
  for (int r = 0; r < repeats; ++r) {
    swe_model_free(model);
    model = nullptr;
    const Clock::time_point start = Clock::now();
    Check(swe_model_load_from_file(model_path.c_str(), nullptr, &model), "load from file");
    load_file_ms.push_back(1e3 * Seconds(start));
  }
  // The embedding table's bytes (int8: values and row scales): what memory_ratio divides by.
  const std::string info = swe_model_get_info_json(model);
  const double rows = swe_model_get_vocab_size(model), cols = swe_model_get_dims(model);
  const double table_bytes = info.find("\"dtype\":\"int8\"") != std::string::npos  ? rows * cols + 4 * rows
                             : info.find("\"dtype\":\"f16\"") != std::string::npos ? rows * cols * 2
                                                                                     : rows * cols * 4;
  if (load_only) {
    std::printf("{\"impl\":\"native\",\"model_bytes\":%zu,\"load_ms\":%.3f,\"load_file_ms\":%.3f,"
                "\"model_heap_mb\":%.3f,\"table_mb\":%.3f,\"memory_ratio\":%.3f}\n",
                file.size(), Median(load_ms), Median(load_file_ms), model_heap / 1e6, table_bytes / 1e6,
                model_heap / table_bytes);
    swe_model_free(model);
    return 0;
  }

  std::vector<std::string> sentences;
  std::ifstream in(sentences_path);
  if (!in) Die("cannot read " + sentences_path);
  size_t text_bytes = 0;
  for (std::string line; std::getline(in, line);) {
    text_bytes += line.size();
    sentences.push_back(std::move(line));
  }
  if (sentences.empty()) Die("no sentences in " + sentences_path);
  if (query) {
    QueryLatency(file, model, sentences, calls);
    swe_model_free(model);
    return 0;
  }
  std::vector<swe_text> texts;
  for (const std::string& s : sentences) texts.push_back({s.data(), s.size()});
  const uint32_t dims = swe_model_get_dims(model);
  std::vector<float> out(texts.size() * dims);

  for (const Clock::time_point start = Clock::now(); Seconds(start) < warmup;) {
    Check(swe_model_encode_batch(model, texts.data(), texts.size(), nullptr, out.data(), out.size(), nullptr), "encode");
  }
  std::vector<double> rates;
  for (int r = 0; r < repeats; ++r) {
    size_t encoded = 0;
    const Clock::time_point start = Clock::now();
    do {
      Check(swe_model_encode_batch(model, texts.data(), texts.size(), nullptr, out.data(), out.size(), nullptr), "encode");
      encoded += texts.size();
    } while (Seconds(start) < min_time);
    rates.push_back(encoded / Seconds(start));
  }
  if (!vectors_path.empty()) {
    std::FILE* f = std::fopen(vectors_path.c_str(), "wb");
    if (!f || std::fwrite(out.data(), sizeof(float), out.size(), f) != out.size() || std::fclose(f) != 0) {
      Die("cannot write " + vectors_path);
    }
  }
  const double rate = Median(rates);
  std::printf("{\"impl\":\"native\",\"kernels\":\"%s\",\"model_bytes\":%zu,\"load_ms\":%.3f,\"load_file_ms\":%.3f,"
              "\"sentences\":%zu,"
              "\"text_bytes\":%zu,\"dims\":%u,\"encode_sentences_per_s\":%.1f,\"encode_mb_per_s\":%.3f}\n",
              swe::simd::ActiveName(), file.size(), Median(load_ms), Median(load_file_ms), texts.size(), text_bytes, dims, rate,
              rate * text_bytes / texts.size() / 1e6);
  swe_model_free(model);
  return 0;
}
