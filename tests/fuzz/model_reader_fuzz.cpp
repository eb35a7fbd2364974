// Any bytes: ReadModel must return a status, never crash, leak or read out of bounds; an accepted
// model must be fully usable (every word found at its own row, finite vectors).
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "fuzz_input.h"
#include "swe/encoder.h"
#include "swe/model_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::unique_ptr<swe::Model> model;
  swe::ReadLimits limits;
  limits.max_payload_bytes = 64 << 20;
  const std::vector<uint8_t> file = swe::fuzz::FileBytes(data, size, swe::container::Kind::kModel);
  // Both entry points: the copy from the caller's bytes, and the file buffer the model takes over (a
  // raw payload used in place). They must agree; the checks below run on the one taken over.
  std::unique_ptr<uint64_t[]> words(new uint64_t[file.size() / 8 + 1]);
  if (!file.empty()) std::memcpy(words.get(), file.data(), file.size());
  const swe::Status copied = swe::ReadModel(file.data(), file.size(), &model, limits);
  const swe::Status adopted = swe::ReadModel(std::move(words), file.size(), &model, limits);
  if (copied.code() != adopted.code()) std::abort();
  if (!adopted.ok()) return 0;
  for (uint32_t i = 0; i < model->vocab_size(); ++i) {
    if (model->find(model->word(i)) != int64_t(i)) std::abort();
  }
  swe::Encoder encoder(*model);
  std::vector<float> v(encoder.dims());
  for (uint32_t i = 0; i < model->vocab_size() && i < 64; ++i) {
    encoder.Encode(model->word(i), v.data());
    for (float x : v) {
      if (!std::isfinite(x)) std::abort();
    }
  }
  return 0;
}
