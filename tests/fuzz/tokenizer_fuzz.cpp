// Any text (any bytes, invalid UTF-8 included) through the full tokenizer and encoder of models with
// each subword kind: no crash, no hang, no NaN.
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <vector>

#include "fuzz_models.h"
#include "swe/encoder.h"
#include "swe/model_file.h"

namespace {

std::unique_ptr<swe::Model> Load(swe::SubwordKind kind) {
  std::vector<uint8_t> bytes;
  if (!swe::WriteModel(swe::fuzz::SeedContents(kind), swe::WriteOptions(), &bytes).ok()) std::abort();
  std::unique_ptr<swe::Model> model;
  if (!swe::ReadModel(bytes.data(), bytes.size(), &model).ok()) std::abort();
  return model;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::unique_ptr<swe::Model> models[3] = {Load(swe::SubwordKind::kNone), Load(swe::SubwordKind::kWordPiece),
                                                   Load(swe::SubwordKind::kUnigram)};
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (auto& model : models) {
    swe::Encoder encoder(*model);
    std::vector<float> v(encoder.dims());
    encoder.Encode(text, v.data());
    for (float x : v) {
      if (!std::isfinite(x)) std::abort();
    }
    swe::Tokenizer tokenizer(*model);
    std::vector<swe::Token> tokens;
    tokenizer.Analyze(text, &tokens);
    for (const swe::Token& t : tokens) {
      if (t.begin > t.end || t.end > size) std::abort();
    }
  }
  return 0;
}
