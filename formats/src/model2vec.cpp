// swe convert --from model2vec: a Model2Vec model folder (model.safetensors + tokenizer.json, with
// config.json or the sentence-transformers layout) to a .swe model with TokenUnits::kSubwordPieces:
// every vocabulary row is one token of the teacher's tokenizer, and a text is the mean of its tokens'
// rows, as Model2Vec encodes (docs/TOKENIZER.md, "Subword-piece models").
#include <sys/stat.h>

#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swe/formats/readers.h"
#include "swe/formats/safetensors.h"
#include "swe/util/json.h"

namespace swe::formats {
namespace {

using nlohmann::json;

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

json ReadJson(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FormatError(path + ": cannot open");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!util::JsonDepthWithin(text)) throw FormatError(path + ": " + util::JsonTooDeepMessage());
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) throw FormatError(path + ": not valid JSON");
  return j;
}

// The folder that holds model.safetensors and tokenizer.json: DIR itself, or DIR/0_StaticEmbedding
// (sentence-transformers' nested layout).
std::string ModelFolder(const std::string& dir) {
  for (const std::string& d : {dir, dir + "/0_StaticEmbedding"}) {
    if (Exists(d + "/model.safetensors") && Exists(d + "/tokenizer.json")) return d;
  }
  throw FormatError(dir + ": no model.safetensors with tokenizer.json (a Model2Vec model folder)");
}

// config.json's "normalize", else config_sentence_transformers.json's, else whether modules.json
// lists a Normalize module, else true (Model2Vec's default).
bool ReadNormalize(const std::string& dir, std::string* source) {
  for (const char* name : {"/config.json", "/config_sentence_transformers.json"}) {
    if (!Exists(dir + name)) continue;
    json j = ReadJson(dir + name);
    if (j.is_object() && j.contains("normalize") && j["normalize"].is_boolean()) {
      *source = std::string(name + 1);
      return j["normalize"].get<bool>();
    }
  }
  if (Exists(dir + "/modules.json")) {
    json j = ReadJson(dir + "/modules.json");
    *source = "modules.json";
    if (j.is_array()) {
      for (const json& m : j) {
        if (m.is_object() && m.value("type", "").find("Normalize") != std::string::npos) return true;
      }
    }
    return false;
  }
  *source = "default";
  return true;
}

// A 1-D tensor of floats (weights), widened to double.
std::vector<double> ReadVector(const SafeTensors& st, const std::string& name, const std::string& path) {
  std::vector<float> v;
  Status s = st.ReadF32(name, {}, &v);
  if (!s.ok()) throw FormatError(path + ": " + s.message());
  if (st.Find(name)->shape.size() != 1) throw FormatError(path + ": tensor '" + name + "' is not 1-D");
  return std::vector<double>(v.begin(), v.end());
}

// The token -> row mapping of a vocabulary-quantized model (I32 or I64).
std::vector<int64_t> ReadMapping(const StTensor& t, const std::string& path) {
  if (t.shape.size() != 1) throw FormatError(path + ": tensor 'mapping' is not 1-D");
  std::vector<int64_t> out(t.numel());
  for (size_t i = 0; i < out.size(); ++i) {
    if (t.dtype == StDType::kI32) {
      int32_t v;
      std::memcpy(&v, t.data + 4 * i, 4);
      out[i] = v;
    } else if (t.dtype == StDType::kI64) {
      std::memcpy(&out[i], t.data + 8 * i, 8);
    } else {
      throw FormatError(path + ": tensor 'mapping' has dtype " + StDTypeName(t.dtype) + ", expected I32/I64");
    }
  }
  return out;
}

// The embedding table as f32: F32/F16/BF16/F64 converted exactly (F64 rounded), I8 as its integer
// values (Model2Vec's int8 models are used unscaled).
std::vector<float> ReadTable(const SafeTensors& st, const std::string& name, const std::string& path) {
  const StTensor* t = st.Find(name);
  std::vector<float> out;
  if (t->dtype == StDType::kI8) {
    out.resize(t->numel());
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(static_cast<int8_t>(t->data[i]));
    return out;
  }
  Status s = st.ReadF32(name, {}, &out);
  if (!s.ok()) throw FormatError(path + ": " + s.message());
  for (float v : out) {
    if (!std::isfinite(v)) throw FormatError(path + ": tensor '" + name + "' has a non-finite value");
  }
  return out;
}

// Normaliser settings from a BertNormalizer (possibly inside a Sequence). Other normalisers are
// accepted when they only pad ASCII punctuation or collapse/strip whitespace, which swe's splitting
// already does; anything else is refused rather than converted into a model that tokenizes differently.
void ReadNormalizer(const json& n, SubwordVocab* vocab, const std::string& path) {
  if (n.is_null()) return;
  const std::string type = n.value("type", "");
  if (type == "Sequence") {
    for (const json& part : n.value("normalizers", json::array())) ReadNormalizer(part, vocab, path);
    return;
  }
  if (type == "BertNormalizer") {
    vocab->lowercase = n.value("lowercase", true);
    const json& strip = n.contains("strip_accents") ? n["strip_accents"] : json();
    vocab->strip_accents = strip.is_boolean() ? strip.get<bool>() : vocab->lowercase;  // null: as lowercase
    return;
  }
  if (type == "Lowercase") {
    vocab->lowercase = true;
    return;
  }
  if (type == "StripAccents") {
    vocab->strip_accents = true;
    return;
  }
  if (type == "Strip") return;
  if (type == "Replace") {
    const json& pattern = n.value("pattern", json::object());
    const std::string content = n.value("content", "");
    if (pattern.contains("String")) {
      const std::string p = pattern["String"].get<std::string>();
      if (p.size() == 1 && std::ispunct(static_cast<unsigned char>(p[0])) && content == " " + p + " ") return;
    }
    if (pattern.contains("Regex") && pattern["Regex"] == "\\s+" && content == " ") return;
  }
  throw FormatError(path + ": unsupported normalizer " + n.dump().substr(0, 120));
}

// The teacher's tokenizer (WordPiece or Unigram) as a SubwordVocab whose pieces are the tokens in id
// order; `special` gets the ids of special tokens (never produced from text).
SubwordVocab ReadTokenizer(const std::string& path, std::set<int64_t>* special) {
  json j = ReadJson(path);
  const json& model = j.value("model", json::object());
  const std::string type = model.value("type", "");
  SubwordVocab vocab;
  ReadNormalizer(j.value("normalizer", json()), &vocab, path);
  for (const json& t : j.value("added_tokens", json::array())) {
    if (t.value("special", false)) special->insert(t.value("id", int64_t{-1}));
  }
  if (type == "WordPiece") {
    vocab.kind = SubwordKind::kWordPiece;
    vocab.continuation_prefix = model.value("continuing_subword_prefix", "##");
    const json& v = model.value("vocab", json::object());
    if (!v.is_object() || v.empty()) throw FormatError(path + ": WordPiece model without a vocab");
    vocab.pieces.assign(v.size(), std::string());
    std::vector<bool> seen(v.size(), false);
    for (auto it = v.begin(); it != v.end(); ++it) {
      const int64_t id = it.value().is_number_integer() ? it.value().get<int64_t>() : -1;
      if (id < 0 || static_cast<size_t>(id) >= v.size() || seen[id]) {
        throw FormatError(path + ": token ids are not 0..N-1 (token '" + it.key() + "')");
      }
      seen[id] = true;
      vocab.pieces[id] = it.key();
    }
    const std::string unk = model.value("unk_token", "[UNK]");
    if (v.contains(unk)) special->insert(v[unk].get<int64_t>());
  } else if (type == "Unigram") {
    vocab.kind = SubwordKind::kUnigram;
    for (const json& entry : model.value("vocab", json::array())) {
      if (!entry.is_array() || entry.size() != 2 || !entry[0].is_string() || !entry[1].is_number()) {
        throw FormatError(path + ": Unigram vocab entries must be [piece, score]");
      }
      vocab.pieces.push_back(entry[0].get<std::string>());
      vocab.scores.push_back(entry[1].get<float>());
    }
    if (vocab.pieces.empty()) throw FormatError(path + ": Unigram model without a vocab");
    if (model.contains("unk_id") && model["unk_id"].is_number_integer()) special->insert(model["unk_id"].get<int64_t>());
    const json& pre = j.value("pre_tokenizer", json());
    if (pre.is_object() && pre.value("type", "") == "Metaspace") vocab.word_prefix = pre.value("replacement", "\xE2\x96\x81");
  } else {
    throw FormatError(path + ": tokenizer model type '" + type + "' is not supported (WordPiece, Unigram)");
  }
  return vocab;
}

}  // namespace

Model2VecModel ReadModel2Vec(const std::string& dir) {
  const std::string folder = ModelFolder(dir);
  const std::string st_path = folder + "/model.safetensors", tok_path = folder + "/tokenizer.json";
  std::unique_ptr<SafeTensors> st;
  Status s = SafeTensors::Open(st_path, &st);
  if (!s.ok()) throw FormatError(st_path + ": " + s.message());
  std::string name;
  for (const char* candidate : {"embeddings", "0", "embedding.weight"}) {
    if (st->Find(candidate) != nullptr) {
      name = candidate;
      break;
    }
  }
  if (name.empty()) throw FormatError(st_path + ": no 'embeddings' tensor");
  const StTensor& table = *st->Find(name);
  if (table.shape.size() != 2 || table.shape[0] < 1 || table.shape[1] < 1) {
    throw FormatError(st_path + ": tensor '" + name + "' is not a 2-D table");
  }
  const size_t rows = static_cast<size_t>(table.shape[0]), dims = static_cast<size_t>(table.shape[1]);
  const std::vector<float> values = ReadTable(*st, name, st_path);

  std::set<int64_t> special;
  Model2VecModel out;
  out.tokenizer.subword = ReadTokenizer(tok_path, &special);
  out.tokenizer.units = TokenUnits::kSubwordPieces;
  out.tokenizer.cjk = CjkMode::kCharacters;  // BERT's normaliser puts spaces around CJK ideographs
  out.tokenizer.max_tokens = 512;            // Model2Vec's encode(max_length=512)
  const std::vector<std::string>& pieces = out.tokenizer.subword.pieces;
  const size_t tokens = pieces.size();

  std::vector<int64_t> mapping;
  if (const StTensor* m = st->Find("mapping")) {
    mapping = ReadMapping(*m, st_path);
    if (mapping.size() != tokens) {
      throw FormatError(st_path + ": 'mapping' has " + std::to_string(mapping.size()) + " entries for " +
                            std::to_string(tokens) + " tokens");
    }
  } else if (rows != tokens) {
    throw FormatError(st_path + ": " + std::to_string(rows) + " embedding rows for " + std::to_string(tokens) +
                          " tokens in tokenizer.json");
  }
  std::vector<double> weights;
  if (st->Find("weights") != nullptr) {
    weights = ReadVector(*st, "weights", st_path);
    if (weights.size() != tokens) throw FormatError(st_path + ": 'weights' does not have one entry per token");
  }
  // One row per token that text can produce: weight[t] * embeddings[mapping[t]] (Model2Vec's pooling
  // scales each token's row by its weight and divides by the token count: the same as a plain mean
  // of pre-scaled rows).
  out.dims = static_cast<uint32_t>(dims);
  std::set<std::string> seen;
  for (size_t t = 0; t < tokens; ++t) {
    if (special.count(static_cast<int64_t>(t)) || pieces[t].empty()) continue;
    if (!seen.insert(pieces[t]).second) throw FormatError(tok_path + ": token '" + pieces[t] + "' appears twice");
    const int64_t row = mapping.empty() ? static_cast<int64_t>(t) : mapping[t];
    if (row < 0 || static_cast<size_t>(row) >= rows) throw FormatError(st_path + ": 'mapping' points past the table");
    const float w = weights.empty() ? 1.0f : static_cast<float>(weights[t]);
    if (!std::isfinite(w)) throw FormatError(st_path + ": non-finite weight");
    out.words.push_back(pieces[t]);
    for (size_t j = 0; j < dims; ++j) out.vectors.push_back(w * values[row * dims + j]);
  }
  out.normalize = ReadNormalize(dir, &out.normalize_source);
  if (out.normalize_source == "default" && folder != dir) out.normalize = ReadNormalize(folder, &out.normalize_source);
  out.tokens = tokens;
  out.table_dtype = StDTypeName(table.dtype);
  if (Exists(dir + "/config.json")) {
    json c = ReadJson(dir + "/config.json");
    if (c.is_object() && c.contains("tokenizer_name") && c["tokenizer_name"].is_string()) {
      out.base_model = c["tokenizer_name"].get<std::string>();
    }
  }
  return out;
}

}  // namespace swe::formats
