// A SentencePiece-Unigram tokenizer read from a Hugging Face tokenizer.json (the format of T5's, mT5's
// and XLM-R's own), tokenising as Hugging Face `tokenizers` does (what sentence-transformers runs):
//   1. added tokens (<pad>, </s>, <unk>, <extra_id_N>, ...) written in the text are matched first:
//      those with normalized = false on the original text, then those with normalized = true on each
//      normalised stretch between them (leftmost-longest; lstrip, rstrip, single_word);
//   2. every stretch between them is normalised (hf_normalized.h: Precompiled charsmap, Replace,
//      Strip) and pre-tokenised (Metaspace, WhitespaceSplit);
//   3. each piece is split by the Unigram model: Viterbi over bytes stepping by characters (the best
//      total score; ties keep the shorter, earlier-found piece), a character no piece covers is <unk>
//      with score min_score - 10, and consecutive <unk>s are fused into one (HF's fuse_unk);
//   4. the post-processor (TemplateProcessing, e.g. "$A </s>") adds its special tokens; truncation
//      keeps the first max_tokens - #specials pieces, so </s> stays last.
// Every token keeps the byte range of the original text it came from, with HF's alignment rules (a
// prepended U+2581 takes its word's first character; special tokens of the post-processor: [0, 0)).
// Invalid UTF-8 bytes are read as U+FFFD each (HF takes only valid text). byte_fallback is rejected.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hf_normalized.h"
#include "swe/model.h"
#include "swe/status.h"
#include "teacher_token.h"

namespace swe::trainer {

class UnigramTokenizer {
 public:
  // Parses the text of a tokenizer.json.
  static Status FromJson(std::string_view json, UnigramTokenizer* out);
  static Status Load(const std::string& path, UnigramTokenizer* out);

  // Tokens of `text` without the post-processor's special tokens.
  void Tokenize(std::string_view text, std::vector<TeacherToken>* out) const;
  // The model's input: the post-processor's special tokens around Tokenize's, truncated to
  // `max_tokens` in all (0: no limit) as Hugging Face truncates.
  void Encode(std::string_view text, uint32_t max_tokens, std::vector<TeacherToken>* out) const;
  // The normalizers only, as UTF-8 (for tests and debugging).
  std::string Normalize(std::string_view text) const;

  const std::vector<std::string>& pieces() const { return pieces_; }  // by id
  const std::vector<double>& scores() const { return scores_; }
  int32_t unk_id() const { return unk_; }
  int32_t pad_id() const { return pad_; }
  // The largest id Encode can produce.
  int32_t max_id() const { return max_id_; }
  int32_t Find(std::string_view piece) const { return FindPiece(ids_, piece); }
  // The vocabulary as core's SubwordVocab (unigram, U+2581 word prefix), for out-of-vocabulary
  // fallback: the model's pieces without the added and special tokens.
  SubwordVocab ToSubwordVocab() const;

 private:
  struct Added {
    std::string content;  // as matched: original, or normalised when normalized = true
    int32_t id;
    bool single_word, lstrip, rstrip;
  };
  struct AddedSet {
    std::vector<Added> tokens;
    bool first_byte[256] = {};  // a token starts with this byte
  };
  struct Piece {  // a stretch of text: an added token's id, or -1 for text to normalise / tokenise
    HfText text;
    int32_t id;
  };
  static Status FromJsonObject(const nlohmann::json& j, UnigramTokenizer* out);  // may throw
  static void SplitAdded(const AddedSet& added, const HfText& text, std::vector<Piece>* out);
  // Unigram over one pre-tokenised piece; appends tokens with original byte ranges.
  void Model(const HfText& piece, std::vector<TeacherToken>* out) const;
  // The ids of the vocabulary pieces that prefix text[at, ...), shortest first, with their lengths.
  void PrefixMatches(std::string_view text, size_t at, std::vector<std::pair<int32_t, size_t>>* out) const;

  HfNormalizer normalizer_;
  HfPreTokenizer pre_tokenizer_;
  std::vector<std::string> pieces_;
  std::vector<double> scores_;
  std::unordered_map<std::string, int32_t> ids_;  // a duplicated piece: its last id, as HF
  std::vector<int32_t> trie_value_;                // node -> id of the piece ending there, or -1
  std::unordered_map<uint64_t, int32_t> trie_;     // (node << 8 | byte) -> node; node 0 is the root
  AddedSet added_raw_, added_normalized_;
  std::vector<int32_t> prefix_, suffix_;           // the post-processor's special tokens around $A
  double min_score_ = 0;
  int32_t unk_ = -1, pad_ = 0, max_id_ = 0;
};

}  // namespace swe::trainer
