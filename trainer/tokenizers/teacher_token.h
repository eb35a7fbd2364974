// What every teacher tokenizer here produces (token ids with the byte ranges they came from), and
// the one way they read their files. Torch-free, as is all of trainer/tokenizers.
#pragma once

#include <cstdint>
#include <string>

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

}  // namespace swe::trainer
