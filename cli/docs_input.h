// Documents for a search index, read from a file: the non-blank lines of a text file (id: the line
// number, from 1), or one JSON object per line of a .jsonl/.ndjson file:
//   {"text": "...", "id": "a string or a number (default: the line number)", "metadata": any JSON}
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common.h"
#include "doc_line.h"

namespace swe::cli {

// Each line as ParseDocLine reads it. Throws CliError naming FILE:LINE for what ParseDocLine refuses,
// a repeated id or a line longer than kMaxLineBytes. A document without an id gets
// `first_default_id` + its line number − 1 (the line number by default).
std::vector<DocInput> ReadDocInputs(const std::string& path, uint64_t first_default_id = 1);

// Encodes `docs` in batches (with a progress bar) and adds them to `index`: a document whose id is
// already there replaces it. The index's dims decide the vectors' dims.
void AddDocs(const swe_model* model, swe_index* index, const std::vector<DocInput>& docs);

}  // namespace swe::cli
