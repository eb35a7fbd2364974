// The in-process half of bench/serve_bench.sh: how many requests per second the C API alone answers
// for the same bodies the HTTP bench sends (one text, or 64 texts, encoded as `swe serve` encodes
// them: swe_model_encode_text per text). Prints {"texts_per_request", "requests_per_s"} lines.
// usage: serve_capi MODEL SECONDS
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "swe.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: serve_capi MODEL SECONDS\n");
    return 2;
  }
  swe_model* model = nullptr;
  if (swe_model_load_from_file(argv[1], nullptr, &model) != SWE_OK) {
    std::fprintf(stderr, "serve_capi: %s\n", swe_last_error());
    return 1;
  }
  const double seconds = std::atof(argv[2]);
  const uint32_t dims = swe_model_get_dims(model);
  std::vector<float> out(dims);
  for (int n : {1, 64}) {
    std::vector<std::string> texts;  // the bodies of bench/serve_bench.sh
    for (int i = 0; i < n; ++i) {
      texts.push_back(n == 1 ? "The quick brown fox jumps over the lazy dog near the river bank"
                             : "sentence " + std::to_string(i) + " about the weather and the markets");
    }
    const auto start = std::chrono::steady_clock::now();
    std::chrono::duration<double> took{};
    size_t requests = 0;
    for (; took.count() < seconds; took = std::chrono::steady_clock::now() - start) {
      for (const std::string& text : texts) {
        swe_model_encode_text(model, text.data(), text.size(), nullptr, out.data(), out.size(), nullptr);
      }
      ++requests;
    }
    std::printf("{\"texts_per_request\": %d, \"requests_per_s\": %.0f}\n", n, requests / took.count());
  }
  swe_model_free(model);
  return 0;
}
