// What every teacher tokenizer here produces (token ids with the byte ranges they came from), the
// one way they read their files, and the SentencePiece vocabulary they hand to core. Torch-free, as
// is all of trainer/tokenizers.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
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

// The tokenizer file at `path` (tokenizer.json, vocab.json) read whole and handed to `parse` (the
// tokenizer's FromJson): every tokenizer's Load. Its errors name the file; a missing file is the
// teacher's.
Status LoadTokenizerFile(const std::string& path, const std::function<Status(std::string_view)>& parse);

// A tokenizer.json's text, parsed, handed to `read`: text that is not a JSON object, or a value of
// the wrong type that `read` meets (nlohmann's exception), is Corrupt.
Status ReadTokenizerJson(std::string_view text, const std::function<Status(const nlohmann::json&)>& read);

// The id of `piece` in a tokenizer's vocabulary `ids`; -1 when it has none.
int32_t FindPiece(const std::unordered_map<std::string, int32_t>& ids, std::string_view piece);

// A SentencePiece Unigram vocabulary as core's SubwordVocab (U+2581 word prefix, cased, accents
// kept): the pieces and scores at `ids`, in that order.
SubwordVocab SentencePieceSubwordVocab(const std::vector<std::string>& pieces, const std::vector<double>& scores,
                                       const std::vector<size_t>& ids);

}  // namespace swe::trainer
