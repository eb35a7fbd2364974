// Any text (any bytes, invalid UTF-8 included) through the full tokenizer and encoder of models with
// each subword kind: no crash, no hang, no NaN. The first byte also picks one model with a CJK mode
// of bigrams or longest (and a subword kind), whose tokens must be in text order (longest: without
// overlap) and give the ids Encode gives; and seeds a pseudo-random lexicon for SplitWords in longest
// mode (the trainer's API).
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_models.h"
#include "swe/encoder.h"
#include "swe/model_file.h"

namespace {

std::unique_ptr<swe::Model> Load(swe::SubwordKind kind, swe::CjkMode cjk) {
  swe::ModelContents c = swe::fuzz::SeedContents(kind);
  if (cjk == swe::CjkMode::kBigrams || cjk == swe::CjkMode::kLongest) {
    c.tokenizer.cjk = cjk;
    for (const char* word : {"日本", "日本語", "東京", "東京タワー", "学习", "中文"}) {  // pairs and longer words
      c.words.push_back(word);
      for (uint32_t d = 0; d < c.dims; ++d) c.vectors.push_back(float(int(c.words.size() + d) % 5 - 2) / 4.0f);
    }
  }
  std::vector<uint8_t> bytes;
  if (!swe::WriteModel(c, swe::WriteOptions(), &bytes).ok()) std::abort();
  std::unique_ptr<swe::Model> model;
  if (!swe::ReadModel(bytes.data(), bytes.size(), &model).ok()) std::abort();
  return model;
}

// Encodes and analyzes `text`; returns the tokens.
std::vector<swe::Token> Check(const swe::Model& model, std::string_view text) {
  swe::Encoder encoder(model);
  std::vector<float> v(encoder.dims());
  encoder.Encode(text, v.data());
  for (float x : v) {
    if (!std::isfinite(x)) std::abort();
  }
  swe::Tokenizer tokenizer(model);
  std::vector<swe::Token> tokens;
  tokenizer.Analyze(text, &tokens);
  for (const swe::Token& t : tokens) {
    if (t.begin > t.end || t.end > text.size()) std::abort();
  }
  return tokens;
}

// Bigrams: tokens start in text order; longest: tokens follow each other without overlap. Both: the
// known tokens of Analyze are the ids of Encode.
void CheckCjk(const swe::Model& model, std::string_view text) {
  const std::vector<swe::Token> tokens = Check(model, text);
  std::vector<uint32_t> ids, known;
  swe::Tokenizer(model).Encode(text, &ids);
  const bool longest = model.tokenizer_config().cjk == swe::CjkMode::kLongest;
  uint32_t begin = 0, end = 0;
  for (const swe::Token& t : tokens) {
    if (t.begin < begin || (longest && t.begin < end)) std::abort();
    begin = t.begin;
    end = t.end;
    if (t.id >= 0) known.push_back(static_cast<uint32_t>(t.id));
  }
  if (ids != known) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using swe::CjkMode;
  using swe::SubwordKind;
  static std::unique_ptr<swe::Model> models[3] = {Load(SubwordKind::kNone, CjkMode::kCharacters),
                                                   Load(SubwordKind::kWordPiece, CjkMode::kCharacters),
                                                   Load(SubwordKind::kUnigram, CjkMode::kSubwords)};
  static std::unique_ptr<swe::Model> cjk_models[6] = {
      Load(SubwordKind::kNone, CjkMode::kBigrams),    Load(SubwordKind::kWordPiece, CjkMode::kBigrams),
      Load(SubwordKind::kUnigram, CjkMode::kBigrams), Load(SubwordKind::kNone, CjkMode::kLongest),
      Load(SubwordKind::kWordPiece, CjkMode::kLongest), Load(SubwordKind::kUnigram, CjkMode::kLongest)};
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (auto& model : models) Check(*model, text);
  if (size == 0) return 0;
  CheckCjk(*cjk_models[data[0] % 6], text);

  // SplitWords in longest mode against a lexicon that knows a pseudo-random half of all words.
  swe::TokenizerConfig config;
  config.cjk = CjkMode::kLongest;
  config.max_tokens = data[0] & 0x80 ? 0 : 64;
  std::vector<std::string> words;
  swe::SplitWords(text, config, nullptr, &words, [seed = data[0]](std::string_view word) {
    uint32_t h = 2166136261u ^ seed;
    for (char ch : word) h = (h ^ static_cast<uint8_t>(ch)) * 16777619u;
    return (h & 1) != 0;
  });
  for (const std::string& word : words) {
    if (word.empty() || word.size() > text.size() + 2) std::abort();  // U+FFFD is 3 bytes for 1
  }
  if (config.max_tokens != 0 && words.size() > config.max_tokens) std::abort();
  return 0;
}
