// The native half of bench/use_lite_bench.mjs: USE-lite sentence embedding throughput of swe-trainer's
// libtorch port (tokenizer + forward pass, pooled vectors only, as the refine stage uses it).
//
//   use_lite_bench --model DIR --sentences FILE [--batch 64] [--threads 2] [--passes 1] [--device cpu]
//
// Reads one sentence per line, loads the model, runs one warm-up batch, then times --passes passes
// over every sentence in batches of --batch. --device takes what swe-trainer's --device takes (auto,
// cpu, cuda, cuda:N); each batch's vectors are copied back to the host, so CUDA timings include the
// transfers, as in the trainer. Output: one JSON object on stdout.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "teachers/teacher.h"
#include "teachers/use_lite_teacher.h"

int main(int argc, char** argv) {
  using namespace swe::trainer;
  std::string model_dir, sentences_path, device = "cpu";
  int batch = 64, threads = 2, passes = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--model") model_dir = v;
    else if (a == "--sentences") sentences_path = v;
    else if (a == "--batch") batch = std::atoi(v.c_str());
    else if (a == "--threads") threads = std::atoi(v.c_str());
    else if (a == "--passes") passes = std::atoi(v.c_str());
    else if (a == "--device") device = v;
    else return std::fprintf(stderr, "use_lite_bench: unknown option %s\n", a.c_str()), 2;
  }
  if (model_dir.empty() || sentences_path.empty() || batch < 1 || threads < 1 || passes < 1) {
    std::fprintf(stderr, "usage: use_lite_bench --model DIR --sentences FILE [--batch N] [--threads N] [--passes N] [--device D]\n");
    return 2;
  }
  std::vector<std::string> sentences;
  std::ifstream f(sentences_path);
  for (std::string line; std::getline(f, line);) sentences.push_back(line);
  if (sentences.empty()) return std::fprintf(stderr, "use_lite_bench: no sentences in %s\n", sentences_path.c_str()), 1;
  ConfigureTorch(threads, 1);
  auto t0 = std::chrono::steady_clock::now();
  std::string resolved;
  swe::Status s = ResolveDevice(device, &resolved);
  if (!s.ok()) return std::fprintf(stderr, "use_lite_bench: %s\n", s.ToString().c_str()), 2;
  std::unique_ptr<UseLiteModel> model;
  s = UseLiteModel::Load(model_dir, resolved, &model);
  if (!s.ok()) return std::fprintf(stderr, "use_lite_bench: %s\n", s.ToString().c_str()), 1;
  double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  UseLiteBatch out;
  auto run = [&](size_t begin, size_t end) {
    std::vector<std::string> b(sentences.begin() + begin, sentences.begin() + end);
    swe::Status st = model->Run(b, false, &out);
    if (!st.ok()) std::fprintf(stderr, "use_lite_bench: %s\n", st.ToString().c_str()), std::exit(1);
  };
  run(0, std::min<size_t>(sentences.size(), batch));  // warm-up
  size_t pieces = 0;
  auto t1 = std::chrono::steady_clock::now();
  for (int p = 0; p < passes; ++p) {
    for (size_t i = 0; i < sentences.size(); i += batch) {
      run(i, std::min(sentences.size(), i + batch));
      for (const auto& t : out.tokens) pieces += t.size();
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  size_t n = sentences.size() * passes;
  std::printf("{\"impl\":\"libtorch\",\"device\":\"%s\",\"threads\":%d,\"batch\":%d,\"sentences\":%zu,\"pieces\":%zu,\"seconds\":%.4f,"
              "\"sentences_per_s\":%.1f,\"load_s\":%.3f}\n",
              resolved.c_str(), threads, batch, n, pieces, secs, n / secs, load_s);
  return 0;
}
