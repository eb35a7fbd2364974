// One document from one line of a documents file: the line itself (a text file) or a JSON object
// (a .jsonl file); what `swe search --docs` and `swe index build/add` read, and tests/fuzz fuzzes.
#pragma once

#include <string>

#include "common.h"

namespace swe::cli {

struct DocInput {
  std::string id;        // empty: the caller numbers it
  std::string text;
  std::string metadata;  // JSON text, or empty
};

// Invalid UTF-8 is read as everywhere else (swe encode, the C API's encoder): each invalid byte as
// U+FFFD, in the stored text too. A JSON line is {"text": "...", "id": "..." or a whole number,
// "metadata": any JSON}; throws CliError "WHERE: ..." for anything else, JSON nested deeper than
// util::kMaxJsonDepth included.
DocInput ParseDocLine(std::string line, bool json, const std::string& where);

}  // namespace swe::cli
