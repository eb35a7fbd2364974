// Any text (any bytes, invalid UTF-8 included) through the full tokenizer and encoder of models with
// each subword kind: no crash, no hang, no NaN. The first byte also picks one model with a CJK mode
// of bigrams or longest (and a subword kind), whose tokens must be in text order (longest: without
// overlap) and give the ids Encode gives; and seeds a pseudo-random lexicon for SplitWords in longest
// mode (the trainer's API).
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
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

// A model with its encoder and tokenizers, kept for the whole run: making them per input was over
// a third of the time under ASan (docs in tests/fuzz/README.md), and reusing them also runs each
// input against the unknown-word caches that earlier inputs filled, as a long-lived user's would.
struct Subject {
  explicit Subject(std::unique_ptr<swe::Model> m)
      : model(std::move(m)), encoder(*model), tokenizer(*model), ids_tokenizer(*model) {}
  std::unique_ptr<swe::Model> model;
  swe::Encoder encoder;
  swe::Tokenizer tokenizer;      // Analyze
  swe::Tokenizer ids_tokenizer;  // Encode, for CheckCjk: a tokenizer of its own, as the encoder has
};

std::unique_ptr<Subject> Make(swe::SubwordKind kind, swe::CjkMode cjk) {
  return std::make_unique<Subject>(Load(kind, cjk));
}

// Encodes and analyzes `text`; returns the tokens.
std::vector<swe::Token> Check(Subject& s, std::string_view text) {
  std::vector<float> v(s.encoder.dims());
  s.encoder.Encode(text, v.data());
  for (float x : v) {
    if (!std::isfinite(x)) std::abort();
  }
  std::vector<swe::Token> tokens;
  s.tokenizer.Analyze(text, &tokens);
  for (const swe::Token& t : tokens) {
    if (t.begin > t.end || t.end > text.size()) std::abort();
  }
  return tokens;
}

// Bigrams: tokens start in text order; longest: tokens follow each other without overlap. Both: the
// known tokens of Analyze are the ids of Encode.
void CheckCjk(Subject& s, std::string_view text) {
  const std::vector<swe::Token> tokens = Check(s, text);
  std::vector<uint32_t> ids, known;
  s.ids_tokenizer.Encode(text, &ids);
  const bool longest = s.model->tokenizer_config().cjk == swe::CjkMode::kLongest;
  uint32_t begin = 0, end = 0;
  for (const swe::Token& t : tokens) {
    if (t.begin < begin || (longest && t.begin < end)) std::abort();
    begin = t.begin;
    end = t.end;
    if (t.id >= 0) known.push_back(static_cast<uint32_t>(t.id));
  }
  if (ids != known) std::abort();
}

// The input's lines as a batch: EncodeBatch gives each line's Encode, ids and vectors alike.
void CheckBatch(Subject& s, std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t start = 0;;) {
    const size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  std::vector<uint32_t> ids, one, want;
  std::vector<size_t> offsets;
  s.ids_tokenizer.EncodeBatch(lines.data(), lines.size(), &ids, &offsets);
  const size_t dims = s.encoder.dims();
  std::vector<float> batch(lines.size() * dims), single(dims);
  s.encoder.EncodeBatch(lines.data(), lines.size(), batch.data());
  if (offsets.size() != lines.size() + 1 || offsets[0] != 0) std::abort();
  for (size_t i = 0; i < lines.size(); ++i) {
    one.clear();
    s.ids_tokenizer.Encode(lines[i], &one);
    want.insert(want.end(), one.begin(), one.end());
    if (offsets[i + 1] != want.size()) std::abort();
    s.encoder.Encode(lines[i], single.data());
    if (std::memcmp(single.data(), batch.data() + i * dims, dims * sizeof(float)) != 0) std::abort();
  }
  if (ids != want) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using swe::CjkMode;
  using swe::SubwordKind;
  static std::unique_ptr<Subject> models[3] = {Make(SubwordKind::kNone, CjkMode::kCharacters),
                                                Make(SubwordKind::kWordPiece, CjkMode::kCharacters),
                                                Make(SubwordKind::kUnigram, CjkMode::kSubwords)};
  static std::unique_ptr<Subject> cjk_models[6] = {
      Make(SubwordKind::kNone, CjkMode::kBigrams),    Make(SubwordKind::kWordPiece, CjkMode::kBigrams),
      Make(SubwordKind::kUnigram, CjkMode::kBigrams), Make(SubwordKind::kNone, CjkMode::kLongest),
      Make(SubwordKind::kWordPiece, CjkMode::kLongest), Make(SubwordKind::kUnigram, CjkMode::kLongest)};
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (auto& model : models) {
    Check(*model, text);
    CheckBatch(*model, text);
  }
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
