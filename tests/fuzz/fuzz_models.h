// Small valid models for the fuzzers' seeds and the tokenizer fuzzer.
#pragma once

#include <string>
#include <vector>

#include "swe/model.h"

namespace swe::fuzz {

inline ModelContents SeedContents(SubwordKind kind) {
  ModelContents c;
  c.words = {"the", "cat", "Cat", "sat", "on", "mat", "straße", "café", "日", "本", "un", "aff", "😀"};
  c.dims = 8;
  for (size_t i = 0; i < c.words.size() * c.dims; ++i) c.vectors.push_back(float(int(i % 17) - 8) / 8.0f);
  c.tokenizer.strip_accents = true;
  c.tokenizer.subword.kind = kind;
  if (kind == SubwordKind::kWordPiece) {
    c.tokenizer.subword.pieces = {"un", "##aff", "##able", "ca", "##t", "c", "##a", "[UNK]"};
    c.tokenizer.subword.lowercase = true;
  } else if (kind == SubwordKind::kUnigram) {
    c.tokenizer.subword.pieces = {"\xE2\x96\x81", "\xE2\x96\x81" "un", "aff", "able", "c", "a", "t", "日本"};
    c.tokenizer.subword.scores = {-1, -2, -3, -3, -4, -4, -4, -2};
    c.tokenizer.cjk = CjkMode::kSubwords;
  }
  return c;
}

}  // namespace swe::fuzz
