// The teacher's tokenizer, read from a Hugging Face tokenizer.json: BertNormalizer (clean_text,
// handle_chinese_chars, strip_accents, lowercase), BertPreTokenizer (split on whitespace, isolate
// punctuation) and WordPiece (greedy longest match, continuation prefix, max_input_chars_per_word,
// [UNK] for a word that cannot be split). Every token keeps the byte range of the original text it
// came from, so teacher tokens can be aligned with core's words.
// Added tokens (tokenizer.json's added_tokens: [CLS], [MASK], ...) written literally in the text are
// matched first, as Hugging Face's AddedVocabulary does: tokens with normalized = false on the original
// text, then those with normalized = true on the normalised text, leftmost-longest, with single_word,
// lstrip and rstrip; a match becomes that token's id.
// Not supported (an `unsupported` error at load): other normalizers / pre-tokenizers / models.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "swe/model.h"
#include "swe/status.h"
#include "teacher_token.h"

namespace swe::trainer {

struct BertTokenizerConfig {
  bool clean_text = true;
  bool handle_chinese_chars = true;
  bool strip_accents = true;  // resolved: tokenizer.json's null means "same as lowercase"
  bool lowercase = true;
  std::string continuation_prefix = "##";
  uint32_t max_input_chars_per_word = 100;
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
  // The largest id Tokenize can produce (added tokens may lie past the WordPiece vocabulary).
  int32_t max_id() const { return max_id_; }
  int32_t unk_id() const { return unk_; }
  int32_t Find(std::string_view piece) const { return FindPiece(ids_, piece); }
  // The teacher's vocabulary as core's SubwordVocab (WordPiece), for out-of-vocabulary fallback.
  SubwordVocab ToSubwordVocab() const;

 private:
  struct NormChar {
    char32_t c;
    uint32_t begin, end;
  };
  struct Added {
    std::u32string content;  // as matched: original, or normalised when `normalized`
    int32_t id;
    bool single_word, lstrip, rstrip;
  };
  // Added tokens of one kind, by their first character.
  using AddedSet = std::unordered_map<char32_t, std::vector<Added>>;
  static Status FromJsonObject(const nlohmann::json& j, BertTokenizer* out);  // may throw
  void NormalizeChars(std::string_view text, uint32_t base, std::vector<NormChar>* out) const;
  void WordPiece(const NormChar* chars, size_t n, std::vector<TeacherToken>* out) const;
  // Pre-tokenizer and WordPiece over chars[0, n).
  void PreTokenize(const NormChar* chars, size_t n, std::vector<TeacherToken>* out) const;
  // Splits chars[0, n) at the added tokens of `set` (Hugging Face's find_matches): pieces [begin, end)
  // of indices in order that cover everything, each an added token's id or -1 (text between them).
  struct Split {
    size_t begin, end;
    int32_t id;
  };
  static void SplitAdded(const AddedSet& set, const NormChar* chars, size_t n, std::vector<Split>* out);

  BertTokenizerConfig config_;
  std::vector<std::string> pieces_;
  std::unordered_map<std::string, int32_t> ids_;
  AddedSet added_raw_, added_normalized_;
  int32_t cls_ = -1, sep_ = -1, pad_ = 0, unk_ = -1, max_id_ = 0;
};

}  // namespace swe::trainer
