// What `swe search` and `swe index query` share: options, and answering queries with an index.
#pragma once

#include <string>
#include <vector>

#include "swe/util/args.h"
#include "common.h"

namespace swe::cli {

struct QueryOptions {
  size_t k = 5;
  float min_score = -1;  // every cosine is >= -1
  size_t candidates = 0;  // 0: exact search; else approximate, rescoring this many (swe_search_params)
  bool json = false;
};

// -k, --min-score, --candidates and --json as `command` got them.
QueryOptions ParseQueryOptions(const util::ParsedArgs& parsed, const std::string& command);

// Answers the queries given as parsed.positional[first..], or else each non-blank line of stdin as it
// arrives (flushing each answer). An index with documents shows their texts; one without (written
// before documents existed) needs `lines`, the --docs file its entry ids are line numbers of.
void AnswerQueries(const swe_model* model, const swe_index* index, const std::vector<std::string>* lines,
                   const QueryOptions& options, const util::ParsedArgs& parsed, size_t first);

// Loads an index and checks it was built with `model`.
IndexPtr LoadIndexFor(const swe_model* model, const std::string& path);

// For an index without documents: the lines of --docs, checked against the index's size.
std::vector<std::string> LinesForOldIndex(const swe_index* index, const std::string& index_path,
                                          const util::ParsedArgs& parsed, const std::string& command);

}  // namespace swe::cli
