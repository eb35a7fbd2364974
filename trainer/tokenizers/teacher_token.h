// What every teacher tokenizer here produces (token ids with the byte ranges they came from), the
// one way they read their files, and the SentencePiece vocabulary they hand to core. Torch-free, as
// is all of trainer/tokenizers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "swe/model.h"
#include "swe/status.h"

namespace swe::trainer {

// A teacher's token: its id and the byte range of the original text it came from (begin == end:
// covers no byte, e.g. a special token the template added).
struct TeacherToken {
  int32_t id = 0;
  uint32_t begin = 0, end = 0;
};

// The tokenizer file at `path` (tokenizer.json, vocab.json) into *text; a missing file is an error
// naming it as the teacher's.
Status ReadTokenizerFile(const std::string& path, std::string* text);

// A SentencePiece Unigram vocabulary as core's SubwordVocab (U+2581 word prefix, cased, accents
// kept): the pieces and scores at `ids`, in that order.
SubwordVocab SentencePieceSubwordVocab(const std::vector<std::string>& pieces, const std::vector<double>& scores,
                                       const std::vector<size_t>& ids);

}  // namespace swe::trainer
