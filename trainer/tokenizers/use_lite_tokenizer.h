// The tokenizer of Universal Sentence Encoder Lite: a SentencePiece unigram model given as
// vocab.json ([[piece, score], ...], 8000 pieces, the first 6 reserved; 7 pieces such as ":" and "://"
// have a null score, which the JS arithmetic reads as 0), tokenised exactly as the
// original JS does (@energetic-ai/embeddings 0.2.0 lib/tokenizer.ts, a copy of tfjs-models'
// universal-sentence-encoder tokenizer), quirks included:
//   1. text -> NFKC (ICU); when non-empty, prepend U+2581 and replace every U+0020 by U+2581
//      (other whitespace stays, e.g. a tab is an unknown character);
//   2. lattice over code points: at each position every non-reserved piece that starts there (a
//      trie; a duplicated piece keeps its last id), or, when none does, the one character as id 0;
//   3. Viterbi in doubles, ends in increasing order, starts in increasing order within an end; a
//      candidate (score + best[start]) replaces best[end] when best[end] is exactly 0 (also "unset")
//      or the candidate is >= it (ties go to the later start);
//   4. backtrack from the end, stepping back by the piece's length (UTF-16 units of its text, so id
//      0 steps one character); consecutive id-0 tokens are merged into one.
// Every token keeps the byte range of the original text it came from (NFKC is applied per
// normalisation segment, so each output character maps to the bytes of its segment; a U+2581 added
// in front covers no bytes, one that replaced a space covers that space), so tokens can be aligned
// with core's words. Invalid UTF-8 bytes are read as U+FFFD each (JS would have decoded them with
// TextDecoder's maximal-subpart rule: only invalid input can differ).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "swe/model.h"
#include "swe/status.h"

namespace swe::trainer {

struct UseLiteToken {
  int32_t id = 0;
  uint32_t begin = 0, end = 0;  // byte range in the original text (begin == end: covers no byte)
};

class UseLiteTokenizer {
 public:
  static constexpr int32_t kReserved = 6;  // <unk>-like U+FFFD, <s>, </s>, extra_token_id_1..3

  // Parses the text of vocab.json.
  static Status FromJson(std::string_view json, UseLiteTokenizer* out);
  static Status Load(const std::string& path, UseLiteTokenizer* out);

  // Tokens of `text`, in order, as the original tokenizer's encode() gives them.
  void Tokenize(std::string_view text, std::vector<UseLiteToken>* out) const;
  // The ids only.
  std::vector<int32_t> Encode(std::string_view text) const;
  // Step 1 only (NFKC and the U+2581 rules), as UTF-8.
  std::string Normalize(std::string_view text) const;

  const std::vector<std::string>& pieces() const { return pieces_; }
  const std::vector<double>& scores() const { return scores_; }
  // The vocabulary as core's SubwordVocab (unigram, U+2581 word prefix, cased), for OOV fallback:
  // the pieces the tokenizer can produce (no reserved pieces; a duplicated piece once, last score).
  SubwordVocab ToSubwordVocab() const;

 private:
  struct Char {
    char32_t c;
    uint32_t begin, end;
  };
  struct Node {
    bool end = false;
    double score = 0;
    int32_t id = 0;
  };
  void NormalizeChars(std::string_view text, std::vector<Char>* out) const;
  int32_t Child(int32_t node, char32_t c) const;

  std::vector<std::string> pieces_;
  std::vector<double> scores_;
  std::vector<uint32_t> utf16_length_;
  std::vector<Node> nodes_;                              // trie; node 0 is the root
  std::unordered_map<uint64_t, int32_t> children_;       // (node << 21 | code point) -> node
};

}  // namespace swe::trainer
