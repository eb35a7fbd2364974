// swe search, and the query answering `swe index query` shares: rank documents by similarity to queries.
#include <cstdio>
#include <string>

#include "commands.h"
#include "docs_input.h"
#include "line_reader.h"
#include "search.h"
#include "swe/util/strings.h"

namespace swe::cli {
namespace {

constexpr const char* kSearchUsage =
    "usage: swe search MODEL (--docs FILE | --index INDEX) [-k N] [--min-score S] [--candidates N]\n"
    "                  [--dims N] [--json] [QUERY...]\n"
    "\n"
    "Ranks documents by cosine similarity to each QUERY (or to each line of stdin, answered as it arrives)\n"
    "and prints, per query, a line '> QUERY' and one line 'RANK<tab>SCORE<tab>TEXT' per hit. A query with\n"
    "no word the model knows has no hits (stderr says so).\n"
    "\n"
    "options:\n"
    "  --docs FILE     the documents: the non-blank lines of a text file, or a .jsonl file of\n"
    "                  {\"text\", \"id\", \"metadata\"} objects\n"
    "  --index INDEX   search a saved index (from 'swe index build') instead of encoding FILE now; --docs\n"
    "                  is needed only for an index that stores no texts (written by swe before 0.1.0)\n"
    "  -k N            hits per query (default 5)\n"
    "  --min-score S   only hits scoring at least S, a cosine in [-1, 1]\n"
    "  --candidates N  approximate search, much faster on large indexes (100,000+ documents) but it\n"
    "                  may miss hits: rank all documents by 1-bit codes, rescore the N best exactly (N >= k;\n"
    "                  on a million documents, N = 300 found 96% of the exact top 10, 7-25x faster;\n"
    "                  the first query builds the codes, about 0.5 s per million documents)\n"
    "  --dims N        use only the first N dimensions (without --index)\n"
    "  --json          one JSON object per query: {\"query\", \"known_words\", \"hits\": [{\"rank\", \"score\",\n"
    "                  \"id\", \"text\", \"metadata\"}]}\n";

// One query's hits as text lines or a JSON line.
void Answer(const swe_model* model, const swe_index* index, const std::vector<std::string>* lines,
            const QueryOptions& options, const std::string& query, bool first) {
  const uint32_t dims = swe_index_get_dims(index);
  uint32_t known = 0;
  std::vector<float> vector = EncodeOne(model, query, dims, &known);
  if (known == 0) std::fprintf(stderr, "swe: '%s' has no word the model knows: no hits\n", query.c_str());
  std::vector<uint64_t> ids(options.k);
  std::vector<float> scores(options.k);
  size_t n = 0;
  swe_search_params params = swe_search_default_params();
  params.candidates = options.candidates;
  Check(swe_index_search_batch(index, vector.data(), 1, dims, options.k, options.min_score, &params, ids.data(),
                               scores.data(), &n));
  nlohmann::ordered_json hits = nlohmann::ordered_json::array();
  std::string text_out = first ? "" : "\n";
  text_out += "> " + EscapeLine(query) + "\n";
  for (size_t i = 0; i < n; ++i) {
    nlohmann::ordered_json hit = {{"rank", i + 1}, {"score", JsonFloat(scores[i])}};
    swe_doc doc;
    if (swe_index_get_doc(index, ids[i], &doc) == SWE_OK) {
      hit["id"] = std::string(doc.id.data, doc.id.size);
      hit["text"] = std::string(doc.text.data, doc.text.size);
      AddStoredMetadata({doc.metadata.data, doc.metadata.size}, &hit);
    } else if (lines && ids[i] < lines->size()) {
      hit["id"] = std::to_string(ids[i] + 1);
      hit["text"] = (*lines)[ids[i]];
    } else {
      throw CliError(1, "index entry " + std::to_string(ids[i]) + " has no document and no line of --docs");
    }
    char score[32];
    std::snprintf(score, sizeof score, "%.4f", scores[i]);
    text_out += std::to_string(i + 1) + "\t" + score + "\t" + EscapeLine(hit["text"].get<std::string>()) + "\n";
    hits.push_back(std::move(hit));
  }
  if (!options.json) return PrintLine(text_out);
  PrintLine(JsonLine({{"query", query}, {"known_words", known}, {"hits", std::move(hits)}}));
}

}  // namespace

QueryOptions ParseQueryOptions(const util::ParsedArgs& parsed, const std::string& command) {
  QueryOptions options;
  if (parsed.has("k")) options.k = util::ParseCount(parsed.get("k"), "-k", 1, 1'000'000);
  if (parsed.has("candidates")) {
    options.candidates = util::ParseCount(parsed.get("candidates"), "--candidates", 1, SIZE_MAX);
    if (options.candidates < options.k) {
      throw util::UsageError("--candidates (" + std::to_string(options.candidates) + ") must be at least -k (" +
                             std::to_string(options.k) + ")", command);
    }
  }
  if (parsed.has("min-score")) options.min_score = static_cast<float>(util::ParseNumber(parsed.get("min-score"), "--min-score", -1, 1));
  options.json = parsed.has("json");
  return options;
}

void AnswerQueries(const swe_model* model, const swe_index* index, const std::vector<std::string>* lines,
                   const QueryOptions& options, const util::ParsedArgs& parsed, size_t first) {
  if (parsed.positional.size() > first) {
    for (size_t q = first; q < parsed.positional.size(); ++q) {
      Answer(model, index, lines, options, parsed.positional[q], q == first);
    }
    return;
  }
  LineReader in("-");
  std::string query;
  bool none_yet = true;
  while (in.Next(&query)) {
    if (util::IsBlank(query)) continue;
    Answer(model, index, lines, options, query, none_yet);
    none_yet = false;
  }
}

IndexPtr LoadIndexFor(const swe_model* model, const std::string& path) {
  IndexPtr index = LoadIndex(path);
  if (swe_index_check_model(index.get(), model) != SWE_OK) throw CliError(1, path + ": " + swe_last_error());
  return index;
}

std::vector<std::string> LinesForOldIndex(const swe_index* index, const std::string& index_path,
                                          const util::ParsedArgs& parsed, const std::string& command) {
  if (!parsed.has("docs")) {
    throw util::UsageError(index_path + " stores no texts (an index from before swe 0.1.0): give --docs FILE, the file it "
                     "was built from, or rebuild it with 'swe index build'", command);
  }
  const std::string docs = parsed.get("docs");
  std::vector<std::string> lines = ReadLines(docs);
  size_t non_blank = 0;
  for (const std::string& line : lines) non_blank += !util::IsBlank(line);
  if (swe_index_get_size(index) != non_blank) {
    throw CliError(1, index_path + " holds " + std::to_string(swe_index_get_size(index)) + " documents but " + docs +
                          " has " + std::to_string(non_blank) + " non-blank lines: rebuild it with 'swe index build'");
  }
  return lines;
}

int RunSearch(const Args& args) {
  const std::string command = "swe search";
  util::ParsedArgs parsed = util::ParseArgs(args,
                                {{"docs", 0, true}, {"index", 0, true}, {"k", 'k', true}, {"min-score", 0, true},
                                 {"candidates", 0, true}, {"dims", 0, true}, {"json", 0, false}},
                                command);
  if (parsed.help) {
    std::fputs(kSearchUsage, stdout);
    return 0;
  }
  if (parsed.positional.empty()) throw util::UsageError("expected MODEL", command);
  if (parsed.has("index") && parsed.has("dims")) throw util::UsageError("--dims cannot be used with --index", command);
  if (!parsed.has("index") && !parsed.has("docs")) throw util::UsageError("--docs FILE or --index INDEX is required", command);
  QueryOptions options = ParseQueryOptions(parsed, command);
  ModelPtr model = LoadModel(parsed.positional[0]);
  if (parsed.has("index")) {
    IndexPtr index = LoadIndexFor(model.get(), parsed.get("index"));
    if (swe_index_get_doc_count(index.get()) > 0) {
      AnswerQueries(model.get(), index.get(), nullptr, options, parsed, 1);
    } else {
      std::vector<std::string> lines = LinesForOldIndex(index.get(), parsed.get("index"), parsed, command);
      AnswerQueries(model.get(), index.get(), &lines, options, parsed, 1);
    }
    return 0;
  }
  uint32_t dims = ResolveDims(model.get(), parsed.get("dims"), command);
  swe_index* raw = nullptr;
  Check(swe_index_create(dims, SWE_DTYPE_F32, &raw));
  IndexPtr index(raw);
  AddDocs(model.get(), index.get(), ReadDocInputs(parsed.get("docs")));
  AnswerQueries(model.get(), index.get(), nullptr, options, parsed, 1);
  return 0;
}

}  // namespace swe::cli
