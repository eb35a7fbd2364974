// The teacher's tokenizer, read from a Hugging Face tokenizer.json: BertNormalizer (clean_text,
// handle_chinese_chars, strip_accents, lowercase), BertPreTokenizer (split on whitespace, isolate
// punctuation) and WordPiece (greedy longest match, continuation prefix, max_input_chars_per_word,
// [UNK] for a word that cannot be split). Every token keeps the byte range of the original text it
// came from, so teacher tokens can be aligned with core's words.
// Not supported (an `unsupported` error at load): other normalizers / pre-tokenizers / models.
// Added tokens written literally in the text ("[MASK]") are not matched specially.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "swe/model.h"
#include "swe/status.h"

namespace swe::trainer {

struct BertTokenizerConfig {
  bool clean_text = true;
  bool handle_chinese_chars = true;
  bool strip_accents = true;  // resolved: tokenizer.json's null means "same as lowercase"
  bool lowercase = true;
  std::string continuation_prefix = "##";
  uint32_t max_input_chars_per_word = 100;
};

struct TeacherToken {
  int32_t id = 0;
  uint32_t begin = 0, end = 0;  // byte range in the original text
};

class BertTokenizer {
 public:
  // Parses the text of a tokenizer.json.
  static Status FromJson(std::string_view json, BertTokenizer* out);
  static Status Load(const std::string& path, BertTokenizer* out);

  // Tokens of `text` without special tokens, in order.
  void Tokenize(std::string_view text, std::vector<TeacherToken>* out) const;
  // Applies the normaliser only (for tests and debugging), as UTF-8.
  std::string Normalize(std::string_view text) const;

  const BertTokenizerConfig& config() const { return config_; }
  const std::vector<std::string>& pieces() const { return pieces_; }  // by id
  int32_t cls_id() const { return cls_; }
  int32_t sep_id() const { return sep_; }
  int32_t pad_id() const { return pad_; }
  int32_t unk_id() const { return unk_; }
  int32_t Find(std::string_view piece) const;
  // The teacher's vocabulary as core's SubwordVocab (WordPiece), for out-of-vocabulary fallback.
  SubwordVocab ToSubwordVocab() const;

 private:
  struct NormChar {
    char32_t c;
    uint32_t begin, end;
  };
  static Status FromJsonUnchecked(std::string_view json, BertTokenizer* out);  // may throw
  void NormalizeChars(std::string_view text, std::vector<NormChar>* out) const;
  void WordPiece(const NormChar* chars, size_t n, std::vector<TeacherToken>* out) const;

  BertTokenizerConfig config_;
  std::vector<std::string> pieces_;
  std::unordered_map<std::string, int32_t> ids_;
  int32_t cls_ = -1, sep_ = -1, pad_ = 0, unk_ = -1;
};

}  // namespace swe::trainer
