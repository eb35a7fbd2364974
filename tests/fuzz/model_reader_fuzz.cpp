// Any bytes: ReadModel must return a status, never crash, leak or read out of bounds; an accepted
// model must be fully usable.
#include <cmath>
#include <cstdlib>
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
  if (!swe::ReadModel(file.data(), file.size(), &model, limits).ok()) return 0;
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
