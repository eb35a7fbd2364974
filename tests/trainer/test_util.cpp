#include "test_util.h"

#include <ftw.h>
#include <zstd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <stdexcept>

#include "swe/half.h"
#include "swe/model_file.h"

namespace swe::trainer::testing {
using nlohmann::json;

GoldenFloats::GoldenFloats(const std::string& path) {
  const std::string bytes = ReadFile(path);
  EXPECT_EQ(bytes.size() % 4, 0u) << path << ": not a whole number of float32s";
  all_.resize(bytes.size() / 4);
  if (!all_.empty()) std::memcpy(all_.data(), bytes.data(), all_.size() * 4);
}

std::vector<float> GoldenFloats::Take(size_t n) {
  EXPECT_LE(n, left()) << "golden vectors: " << n << " floats wanted, " << left() << " left";
  std::vector<float> out(n, 0.0f);
  const size_t have = std::min(n, left());
  std::copy(all_.begin() + static_cast<std::ptrdiff_t>(at_), all_.begin() + static_cast<std::ptrdiff_t>(at_ + have),
            out.begin());
  at_ += have;
  return out;
}

Status ReadModelFile(const std::string& path, std::unique_ptr<Model>* out) {
  const std::string bytes = ReadFile(path);
  return ReadModel(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), out);
}

ModelContents WriteTinyModel(const std::string& path, uint32_t dims, uint32_t seed, DType dtype) {
  ModelContents c;
  c.words = TinyWords();
  c.dims = dims;
  std::mt19937 rng(seed);
  std::normal_distribution<float> g;
  for (size_t i = 0; i < c.words.size() * c.dims; ++i) c.vectors.push_back(g(rng));
  c.provenance.name = "init";
  std::vector<uint8_t> bytes;
  WriteOptions options;
  options.dtype = dtype;
  Status s = WriteModel(c, options, &bytes);
  EXPECT_TRUE(s.ok()) << s.ToString();
  WriteFile(path, std::string(bytes.begin(), bytes.end()));
  return c;
}

std::string Zstd(const std::string& text, int frames) {
  std::string out;
  size_t half = frames == 2 ? text.size() / 2 : text.size();
  for (auto [b, e] : {std::pair<size_t, size_t>{0, half}, {half, text.size()}}) {
    if (b == e && b != 0) continue;
    std::string frame(ZSTD_compressBound(e - b), '\0');
    size_t n = ZSTD_compress(frame.data(), frame.size(), text.data() + b, e - b, 3);
    if (ZSTD_isError(n)) throw std::runtime_error("ZSTD_compress failed");
    out.append(frame.data(), n);
    if (frames != 2) break;
  }
  return out;
}

std::string TinyCorpus(int sentences, uint32_t seed) {
  const auto& words = TinyWords();
  std::mt19937 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, words.size() - 1), len(4, 10);
  std::string text;
  for (int i = 0; i < sentences; ++i) {
    size_t n = len(rng);
    for (size_t k = 0; k < n; ++k) {
      std::string w = words[pick(rng)];
      if (k == 0) w[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(w[0])));
      text += (k ? " " : "") + w;
    }
    text += ".\n";
  }
  return text;
}

const std::vector<std::string>& TinyWords() {
  static const std::vector<std::string> words = {
      "the", "a", "cat", "dog", "sat", "on", "mat", "ran", "in", "park", "bird", "sang", "tree", "man", "woman",
      "child", "ate", "apple", "bread", "drank", "water", "milk", "red", "blue", "green", "big", "small", "happy",
      "sad", "house", "car", "road", "city", "river", "sun", "moon", "night", "day", "book", "read", "wrote",
      "letter", "friend", "walked", "slowly", "quickly", "and", "with", "under", "over", "music", "played"};
  return words;
}

std::vector<std::string> WriteTinyBert(const std::string& dir, const TinyBertOptions& o) {
  std::vector<std::string> pieces = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ",", ".", "!", "?", "'"};
  for (const std::string& w : o.words.empty() ? TinyWords() : o.words) pieces.push_back(w);
  for (const char* p : {"un", "##s", "##ed", "##ing", "##ly", "##er", "##a", "##b", "##c", "e", "##e", "##t"}) {
    pieces.push_back(p);
  }
  for (char c = 'a'; c <= 'z'; ++c) {
    std::string s(1, c);
    if (std::find(pieces.begin(), pieces.end(), s) == pieces.end()) pieces.push_back(s);
    if (std::find(pieces.begin(), pieces.end(), "##" + s) == pieces.end()) pieces.push_back("##" + s);
  }
  const int64_t V = static_cast<int64_t>(pieces.size()), H = o.hidden, I = o.intermediate;
  json vocab = json::object();
  for (size_t i = 0; i < pieces.size(); ++i) vocab[pieces[i]] = i;
  json tok = {
      {"version", "1.0"},
      {"truncation", nullptr},
      {"padding", nullptr},
      {"added_tokens", json::array()},
      {"normalizer",
       {{"type", "BertNormalizer"}, {"clean_text", true}, {"handle_chinese_chars", true}, {"strip_accents", nullptr},
        {"lowercase", o.lowercase}}},
      {"pre_tokenizer", {{"type", "BertPreTokenizer"}}},
      {"post_processor",
       {{"type", "TemplateProcessing"},
        {"single", json::array({{{"SpecialToken", {{"id", "[CLS]"}, {"type_id", 0}}}},
                                {{"Sequence", {{"id", "A"}, {"type_id", 0}}}},
                                {{"SpecialToken", {{"id", "[SEP]"}, {"type_id", 0}}}}})},
        {"special_tokens",
         {{"[CLS]", {{"id", "[CLS]"}, {"ids", {2}}, {"tokens", {"[CLS]"}}}},
          {"[SEP]", {{"id", "[SEP]"}, {"ids", {3}}, {"tokens", {"[SEP]"}}}}}}}},
      {"decoder", {{"type", "WordPiece"}, {"prefix", "##"}, {"cleanup", true}}},
      {"model",
       {{"type", "WordPiece"}, {"unk_token", "[UNK]"}, {"continuing_subword_prefix", "##"},
        {"max_input_chars_per_word", 100}, {"vocab", vocab}}}};
  WriteFile(dir + "/tokenizer.json", tok.dump(1));
  json config = {{"architectures", {"BertModel"}}, {"model_type", "bert"}, {"hidden_size", H},
                 {"num_hidden_layers", o.layers}, {"num_attention_heads", o.heads}, {"intermediate_size", I},
                 {"max_position_embeddings", o.positions}, {"type_vocab_size", 2}, {"vocab_size", V},
                 {"layer_norm_eps", 1e-12}, {"hidden_act", "gelu"}, {"position_embedding_type", "absolute"}};
  WriteFile(dir + "/config.json", config.dump(1));
  json modules = json::array({{{"idx", 0}, {"name", "0"}, {"path", ""}, {"type", "sentence_transformers.models.Transformer"}},
                              {{"idx", 1}, {"name", "1"}, {"path", "1_Pooling"}, {"type", "sentence_transformers.models.Pooling"}}});
  if (o.normalize) {
    modules.push_back({{"idx", 2}, {"name", "2"}, {"path", "2_Normalize"}, {"type", "sentence_transformers.models.Normalize"}});
  }
  WriteFile(dir + "/modules.json", modules.dump(1));
  WriteFile(dir + "/1_Pooling/config.json",
            json({{"word_embedding_dimension", H}, {"pooling_mode_cls_token", o.cls_pooling},
                  {"pooling_mode_mean_tokens", !o.cls_pooling}}).dump(1));
  WriteFile(dir + "/sentence_bert_config.json", json({{"max_seq_length", o.positions}, {"do_lower_case", false}}).dump());

  std::mt19937 rng(o.seed);
  std::normal_distribution<float> normal(0.0f, 0.5f);
  std::map<std::string, TensorSpec> t;
  std::string prefix = o.bert_prefix ? "bert." : "";
  auto add = [&](const std::string& name, std::vector<int64_t> shape, float constant = NAN) {
    TensorSpec s;
    s.dtype = o.dtype;
    s.shape = shape;
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    for (int64_t i = 0; i < n; ++i) s.values.push_back(std::isnan(constant) ? normal(rng) : constant + 0.1f * normal(rng));
    t[prefix + name] = std::move(s);
  };
  add("embeddings.word_embeddings.weight", {V, H});
  add("embeddings.position_embeddings.weight", {o.positions, H});
  add("embeddings.token_type_embeddings.weight", {2, H});
  add("embeddings.LayerNorm.weight", {H}, 1.0f);
  add("embeddings.LayerNorm.bias", {H}, 0.0f);
  for (int l = 0; l < o.layers; ++l) {
    std::string p = "encoder.layer." + std::to_string(l) + ".";
    for (const char* m : {"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"}) {
      add(p + m + ".weight", {H, H});
      add(p + m + ".bias", {H});
    }
    add(p + "attention.output.LayerNorm.weight", {H}, 1.0f);
    add(p + "attention.output.LayerNorm.bias", {H}, 0.0f);
    add(p + "intermediate.dense.weight", {I, H});
    add(p + "intermediate.dense.bias", {I});
    add(p + "output.dense.weight", {H, I});
    add(p + "output.dense.bias", {H});
    add(p + "output.LayerNorm.weight", {H}, 1.0f);
    add(p + "output.LayerNorm.bias", {H}, 0.0f);
  }
  if (o.bert_prefix) add("pooler.dense.weight", {H, H});  // ignored by the teacher
  WriteFile(dir + "/model.safetensors", SafetensorsBytes(t));
  return pieces;
}

double Cosine(const float* a, const float* b, size_t n) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < n; ++i) {
    ab += static_cast<double>(a[i]) * b[i];
    aa += static_cast<double>(a[i]) * a[i];
    bb += static_cast<double>(b[i]) * b[i];
  }
  return aa == 0 && bb == 0 ? 1.0 : ab / std::sqrt(aa * bb);
}

RefineData SyntheticKdProblem(uint32_t rows, uint32_t d, uint32_t n, std::mt19937& rng, Matrix* initial) {
  std::normal_distribution<float> g;
  std::vector<float> target(rows * d);
  for (float& v : target) v = g(rng);
  RefineData data;
  data.teacher.cols = d;
  std::uniform_int_distribution<uint32_t> pick(0, rows - 1);
  for (uint32_t i = 0; i < n; ++i) {
    std::vector<uint32_t> s = {pick(rng), pick(rng), pick(rng)};
    std::vector<float> mean(d, 0.0f);
    for (uint32_t r : s) for (uint32_t k = 0; k < d; ++k) mean[k] += target[r * d + k] / 3;
    data.sentences.push_back(s);
    data.teacher.data.insert(data.teacher.data.end(), mean.begin(), mean.end());
    ++data.teacher.rows;
  }
  initial->rows = rows;
  initial->cols = d;
  initial->data.clear();
  for (uint32_t i = 0; i < rows * d; ++i) initial->data.push_back(g(rng));
  return data;
}

}  // namespace swe::trainer::testing
