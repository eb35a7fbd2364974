// swe search, swe index build, swe index query: rank the lines of a file by similarity to queries.
// Documents are the non-blank lines of --docs; an entry's id is its 0-based line number.
#include <cstdio>
#include <string>

#include "swe/util/args.h"
#include "commands.h"
#include "common.h"
#include "swe/model.h"

namespace swe::cli {
namespace {

constexpr const char* kSearchUsage =
    "usage: swe search MODEL --docs FILE [--index INDEX] [-k N] [--dims N] [QUERY...]\n"
    "\n"
    "Ranks the non-blank lines of FILE by cosine similarity to each QUERY (read one per line from stdin when\n"
    "none is given) and prints, per query, a line '> QUERY' and one line 'RANK<tab>SCORE<tab>TEXT' per hit.\n"
    "\n"
    "options:\n"
    "  --docs FILE     the documents, one per line (required)\n"
    "  --index INDEX   use this index of FILE (from 'swe index build') instead of encoding FILE now\n"
    "  -k N            hits per query (default 5)\n"
    "  --dims N        use only the first N dimensions (without --index)\n";

constexpr const char* kIndexUsage =
    "usage: swe index build MODEL --docs FILE -o INDEX [--dtype f32|int8] [--dims N]\n"
    "       swe index query MODEL INDEX --docs FILE [-k N] [QUERY...]\n"
    "\n"
    "build: encodes the non-blank lines of FILE and writes a search index (ids are line numbers).\n"
    "query: ranks the lines of FILE for each QUERY (stdin when none is given) with a saved index, printing\n"
    "       '> QUERY' and 'RANK<tab>SCORE<tab>TEXT' lines as 'swe search' does.\n"
    "\n"
    "options:\n"
    "  --docs FILE        the documents, one per line (required)\n"
    "  -o, --output INDEX where build writes the index\n"
    "  --dtype f32|int8   how build stores vectors (default f32; int8 is 4x smaller)\n"
    "  --dims N           build: keep only the first N dimensions\n"
    "  -k N               query: hits per query (default 5)\n";

struct Docs {
  std::string path;
  std::vector<std::string> lines;
  std::vector<uint64_t> ids;        // line numbers of the non-blank lines
  std::vector<std::string> texts;   // those lines
};

Docs ReadDocs(const util::ParsedArgs& parsed, const std::string& command) {
  if (!parsed.has("docs")) throw util::UsageError("--docs FILE is required", command);
  Docs docs;
  docs.path = parsed.get("docs");
  docs.lines = ReadLines(docs.path);
  for (size_t i = 0; i < docs.lines.size(); ++i) {
    if (IsBlank(docs.lines[i])) continue;
    docs.ids.push_back(i);
    docs.texts.push_back(docs.lines[i]);
  }
  return docs;
}

IndexPtr BuildIndex(const swe_model* model, const Docs& docs, uint32_t dims, int32_t dtype) {
  std::vector<float> vectors = EncodeAll(model, docs.texts, dims, "encoding docs");
  swe_index* raw = nullptr;
  Check(swe_index_create(dims, dtype, &raw));
  IndexPtr index(raw);
  Check(swe_index_set_model(index.get(), model));
  Check(swe_index_add(index.get(), docs.ids.data(), vectors.data(), docs.ids.size()));
  return index;
}

// Loads a saved index and checks it belongs to `model` and `docs`.
IndexPtr LoadMatchingIndex(const swe_model* model, const std::string& path, const Docs& docs) {
  IndexPtr index = LoadIndex(path);
  if (swe_index_check_model(index.get(), model) != SWE_OK) throw CliError(1, path + ": " + swe_last_error());
  if (swe_index_get_size(index.get()) != docs.ids.size()) {
    throw CliError(1, path + " holds " + std::to_string(swe_index_get_size(index.get())) + " documents but " +
                          docs.path + " has " + std::to_string(docs.ids.size()) +
                          " non-blank lines: rebuild it with 'swe index build'");
  }
  return index;
}

std::vector<std::string> Queries(const util::ParsedArgs& parsed, size_t first) {
  std::vector<std::string> queries(parsed.positional.begin() + first, parsed.positional.end());
  if (!queries.empty()) return queries;
  for (std::string& line : ReadLines("-")) {
    if (!IsBlank(line)) queries.push_back(std::move(line));
  }
  return queries;
}

size_t ParseK(const util::ParsedArgs& parsed, const std::string& command) {
  (void)command;
  return parsed.has("k") ? util::ParseCount(parsed.get("k"), "-k", 1, 1'000'000) : 5;
}

void PrintHits(const swe_model* model, const swe_index* index, const Docs& docs, const std::vector<std::string>& queries,
               size_t k) {
  uint32_t dims = swe_index_get_dims(index);
  std::vector<uint64_t> ids(k);
  std::vector<float> scores(k);
  for (size_t q = 0; q < queries.size(); ++q) {
    std::vector<float> query = EncodeOne(model, queries[q], dims);
    size_t n = 0;
    Check(swe_index_search(index, query.data(), dims, k, ids.data(), scores.data(), &n));
    if (q) std::printf("\n");
    std::printf("> %s\n", queries[q].c_str());
    for (size_t i = 0; i < n; ++i) {
      if (ids[i] >= docs.lines.size()) {
        throw CliError(1, "index entry " + std::to_string(ids[i]) + " is not a line of " + docs.path);
      }
      std::printf("%zu\t%.4f\t%s\n", i + 1, scores[i], docs.lines[ids[i]].c_str());
    }
  }
}

int32_t ParseDtype(const util::ParsedArgs& parsed, const std::string& command) {
  const std::string name = parsed.get("dtype", "f32");
  swe::DType dtype;
  if (!swe::ParseDType(name, &dtype) || dtype == swe::DType::kF16) {
    throw util::UsageError("--dtype must be f32 or int8, not '" + name + "'", command);
  }
  return static_cast<int32_t>(dtype);  // SWE_DTYPE_* has the values of swe::DType
}

int RunIndexBuild(const Args& args) {
  const std::string command = "swe index build";
  util::ParsedArgs parsed = util::ParseArgs(
      args, {{"docs", 0, true}, {"output", 'o', true}, {"dtype", 0, true}, {"dims", 0, true}}, command);
  if (parsed.help) {
    std::fputs(kIndexUsage, stdout);
    return 0;
  }
  if (parsed.positional.size() != 1) throw util::UsageError("expected one MODEL", command);
  if (!parsed.has("output")) throw util::UsageError("-o INDEX is required", command);
  int32_t dtype = ParseDtype(parsed, command);
  ModelPtr model = LoadModel(parsed.positional[0]);
  uint32_t dims = ResolveDims(model.get(), parsed.get("dims"), command);
  Docs docs = ReadDocs(parsed, command);
  IndexPtr index = BuildIndex(model.get(), docs, dims, dtype);
  Check(swe_index_save_to_file(index.get(), parsed.get("output").c_str()));
  return 0;
}

int RunIndexQuery(const Args& args) {
  const std::string command = "swe index query";
  util::ParsedArgs parsed = util::ParseArgs(args, {{"docs", 0, true}, {"k", 'k', true}}, command);
  if (parsed.help) {
    std::fputs(kIndexUsage, stdout);
    return 0;
  }
  if (parsed.positional.size() < 2) throw util::UsageError("expected MODEL INDEX", command);
  size_t k = ParseK(parsed, command);
  ModelPtr model = LoadModel(parsed.positional[0]);
  Docs docs = ReadDocs(parsed, command);
  IndexPtr index = LoadMatchingIndex(model.get(), parsed.positional[1], docs);
  PrintHits(model.get(), index.get(), docs, Queries(parsed, 2), k);
  return 0;
}

}  // namespace

int RunSearch(const Args& args) {
  const std::string command = "swe search";
  util::ParsedArgs parsed =
      util::ParseArgs(args, {{"docs", 0, true}, {"index", 0, true}, {"k", 'k', true}, {"dims", 0, true}}, command);
  if (parsed.help) {
    std::fputs(kSearchUsage, stdout);
    return 0;
  }
  if (parsed.positional.empty()) throw util::UsageError("expected MODEL", command);
  if (parsed.has("index") && parsed.has("dims")) throw util::UsageError("--dims cannot be used with --index", command);
  size_t k = ParseK(parsed, command);
  ModelPtr model = LoadModel(parsed.positional[0]);
  uint32_t dims = ResolveDims(model.get(), parsed.get("dims"), command);
  Docs docs = ReadDocs(parsed, command);
  IndexPtr index = parsed.has("index") ? LoadMatchingIndex(model.get(), parsed.get("index"), docs)
                                       : BuildIndex(model.get(), docs, dims, SWE_DTYPE_F32);
  PrintHits(model.get(), index.get(), docs, Queries(parsed, 1), k);
  return 0;
}

int RunIndex(const Args& args) {
  if (args.empty()) throw util::UsageError("expected 'build' or 'query'", "swe index");
  if (args[0] == "--help" || args[0] == "-h") {
    std::fputs(kIndexUsage, stdout);
    return 0;
  }
  Args rest(args.begin() + 1, args.end());
  if (args[0] == "build") return RunIndexBuild(rest);
  if (args[0] == "query") return RunIndexQuery(rest);
  throw util::UsageError("unknown index command '" + args[0] + "'", "swe index");
}

}  // namespace swe::cli
