// Readers of other word-vector formats for `swe convert`: GloVe JSON and word2vec text stream the input
// (with a progress bar) and keep only the vectors of the words they return; Model2Vec reads a folder.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "swe/model.h"

namespace swe::formats {

// What every reader throws on a missing, malformed or unsupported input; the message names the file.
class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct WordVectors {
  uint32_t dims = 0;
  std::vector<std::string> words;  // unique, in the source's order
  std::vector<float> vectors;      // words.size() * dims, finite
  uint64_t entries = 0;            // word entries the source listed
};

// True for words to keep (the others are skipped silently).
using WordFilter = std::function<bool(const std::string&)>;

// The wink-embeddings JSON layout: {"dimensions": D, "l2NormIndex": D, "wordIndex": D + 1,
// "words": [... frequency order ...], "vectors": {"word": [D floats, l2 norm, index], ...}, ...}.
// Takes words in the order of "words" (or of "vectors" when there is no "words"), keeps the first `top`
// that pass `keep` (0 = all), dropping repeats. Parsed with a SAX handler: no DOM of the file is built.
// Throws FormatError naming the word on rows of the wrong length, non-finite values or listed words
// without a vector.
WordVectors ReadGloveJson(const std::string& path, const WordFilter& keep, size_t top);

// word2vec's text format (an optional "ROWS DIMS" header line, then "word v1 ... vD" lines) and GloVe's
// headerless text. Keeps the first `top` words (0 = all) that pass `keep`, dropping repeats, and stops
// reading there. Throws FormatError naming the line on rows of the wrong length or bad values.
WordVectors ReadWord2VecText(const std::string& path, const WordFilter& keep, size_t top);

// A Model2Vec model read for conversion (model2vec.cpp): one row per token of the teacher's
// tokenizer (special tokens left out), weights and the vocabulary-quantization mapping applied.
struct Model2VecModel {
  uint32_t dims = 0;
  std::vector<std::string> words;  // the tokens' own text ("hello", "##ing", "\u2581play")
  std::vector<float> vectors;
  bool normalize = true;
  std::string normalize_source;    // where `normalize` came from: config.json, ..., "default"
  TokenizerConfig tokenizer;       // units = kSubwordPieces, the teacher's vocabulary as subword pieces
  size_t tokens = 0;               // tokens in tokenizer.json
  std::string table_dtype;         // the safetensors dtype of the embeddings
  std::string base_model;          // config.json's tokenizer_name, if any
};

// Reads DIR (or DIR/0_StaticEmbedding): model.safetensors (tensor "embeddings", "0" or
// "embedding.weight"; optional "weights" and "mapping"), tokenizer.json (WordPiece or Unigram), and
// normalize from config.json / config_sentence_transformers.json / modules.json. Throws FormatError naming
// the file on anything missing, malformed or unsupported.
Model2VecModel ReadModel2Vec(const std::string& dir);

}  // namespace swe::formats
