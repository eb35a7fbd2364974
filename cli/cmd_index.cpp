// swe index build | add | query | get | ids | remove | compact | lock: a search index kept in a file,
// with its documents.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "commands.h"
#include "swe/model.h"
#include "docs_input.h"
#include "search.h"
#include "swe/util/file.h"

namespace swe::cli {
namespace {

constexpr const char* kIndexUsage =
    "usage: swe index build MODEL --docs FILE -o INDEX [--dtype f32|int8] [--dims N]\n"
    "       swe index add MODEL INDEX --docs FILE [-o OUT]\n"
    "       swe index query MODEL INDEX [-k N] [--min-score S] [--candidates N] [--json] [QUERY...]\n"
    "       swe index get INDEX ID...\n"
    "       swe index ids INDEX\n"
    "       swe index remove INDEX ID... [-o OUT]\n"
    "       swe index compact INDEX\n"
    "       swe index lock INDEX -- COMMAND [ARG...]\n"
    "\n"
    "build:  encodes the documents of FILE and writes an index that stores them: their ids, texts and\n"
    "        metadata. FILE: the non-blank lines of a text file (id: the line number, from 1), or a .jsonl\n"
    "        file of {\"text\": \"...\", \"id\": \"...\", \"metadata\": {...}} objects (id and metadata optional).\n"
    "add:    adds the documents of FILE to INDEX (replacing those with the same id) and saves it; lines\n"
    "        without an id are numbered after the largest whole-number id in INDEX.\n"
    "query:  answers each QUERY (or each line of stdin, as it arrives) as 'swe search' does; --docs FILE\n"
    "        is needed only for an index that stores no texts (written by swe before 0.1.0).\n"
    "get:    prints each document as a JSON object {\"id\", \"text\", \"metadata\"}.\n"
    "ids:    prints the documents' ids, one per line (backslash and control characters as C escapes:\n"
    "        \\\\, \\n, \\r, \\t, \\xHH).\n"
    "remove: removes the documents and saves the index.\n"
    "compact: rewrites INDEX whole, without the change records that add and remove append (they cost what\n"
    "        they change; the index is compacted by itself once they pass half its size).\n"
    "lock:   runs COMMAND holding INDEX's lock, as add and remove hold it, for other programs that write\n"
    "        it (a Node program saving index.saveChanges()); exits with COMMAND's status.\n"
    "add, remove and compact lock INDEX (flock) from reading it to saving it, so concurrent writers lose\n"
    "nothing.\n"
    "Invalid UTF-8 in FILE is read as U+FFFD (each invalid byte), as 'swe encode' reads it.\n"
    "\n"
    "options:\n"
    "  --docs FILE        the documents\n"
    "  -o, --output OUT   where build writes the index; add and remove write INDEX itself unless given\n"
    "  --dtype f32|int8   how build stores vectors (default f32; int8 is 4x smaller)\n"
    "  --dims N           build: keep only the first N dimensions\n"
    "  -k N, --min-score S, --candidates N, --json   query: as for 'swe search'\n";

int32_t ParseDtype(const util::ParsedArgs& parsed, const std::string& command) {
  const std::string name = parsed.get("dtype", "f32");
  swe::DType dtype;
  if (!swe::ParseDType(name, &dtype) || dtype == swe::DType::kF16) {
    throw util::UsageError("--dtype must be f32 or int8, not '" + name + "'", command);
  }
  return static_cast<int32_t>(dtype);  // SWE_DTYPE_* has the values of swe::DType
}

util::ParsedArgs Parse(const Args& args, const std::vector<util::OptionSpec>& spec, const std::string& command) {
  util::ParsedArgs parsed = util::ParseArgs(args, spec, command);
  if (parsed.help) std::fputs(kIndexUsage, stdout);
  return parsed;
}

std::string RequireDocs(const util::ParsedArgs& parsed, const std::string& command) {
  if (!parsed.has("docs")) throw util::UsageError("--docs FILE is required", command);
  return parsed.get("docs");
}

int RunBuild(const Args& args) {
  const std::string command = "swe index build";
  util::ParsedArgs parsed = Parse(args, {{"docs", 0, true}, {"output", 'o', true}, {"dtype", 0, true}, {"dims", 0, true}}, command);
  if (parsed.help) return 0;
  if (parsed.positional.size() != 1) throw util::UsageError("expected one MODEL", command);
  if (!parsed.has("output")) throw util::UsageError("-o INDEX is required", command);
  const std::string docs = RequireDocs(parsed, command);
  int32_t dtype = ParseDtype(parsed, command);
  ModelPtr model = LoadModel(parsed.positional[0]);
  uint32_t dims = ResolveDims(model.get(), parsed.get("dims"), command);
  swe_index* raw = nullptr;
  Check(swe_index_create(dims, dtype, &raw));
  IndexPtr index(raw);
  Check(swe_index_set_model(index.get(), model.get()));
  AddDocs(model.get(), index.get(), ReadDocInputs(docs));
  Check(swe_index_save_to_file(index.get(), parsed.get("output").c_str()));
  return 0;
}

// An index that stores documents: the commands that edit or list them need one.
IndexPtr LoadDocIndex(const std::string& path) {
  IndexPtr index = LoadIndex(path);
  if (swe_index_get_size(index.get()) > 0 && swe_index_get_doc_count(index.get()) == 0) {
    throw CliError(1, path + " stores no documents (an index from before swe 0.1.0): rebuild it with 'swe index build'");
  }
  return index;
}

// Holds `lock` on INDEX from before it is read until it is saved: the other writers of the file
// (another `swe index add` or `remove`, swe serve) wait, so that none of their changes is lost.
void LockIndex(const std::string& path, util::FileLock* lock) {
  std::string error;
  if (!lock->Lock(path, &error)) throw CliError(1, error);
}

// The largest id that is a whole decimal number (0 when none is).
uint64_t LargestNumericId(const swe_index* index) {
  size_t n = 0;
  Check(swe_index_get_ids(index, nullptr, 0, &n));
  std::vector<uint64_t> entries(n);
  Check(swe_index_get_ids(index, entries.data(), entries.size(), &n));
  uint64_t largest = 0;
  for (uint64_t entry : entries) {
    swe_doc doc;
    if (swe_index_get_doc(index, entry, &doc) != SWE_OK || doc.id.size == 0 || doc.id.size > 19) continue;
    uint64_t value = 0;
    bool digits = true;
    for (size_t i = 0; i < doc.id.size && digits; ++i) {
      const char c = doc.id.data[i];
      digits = c >= '0' && c <= '9';
      value = value * 10 + static_cast<uint64_t>(c - '0');
    }
    if (digits) largest = std::max(largest, value);
  }
  return largest;
}

int RunAdd(const Args& args) {
  const std::string command = "swe index add";
  util::ParsedArgs parsed = Parse(args, {{"docs", 0, true}, {"output", 'o', true}}, command);
  if (parsed.help) return 0;
  if (parsed.positional.size() != 2) throw util::UsageError("expected MODEL INDEX", command);
  const std::string docs = RequireDocs(parsed, command);
  ModelPtr model = LoadModel(parsed.positional[0]);
  util::FileLock lock;
  LockIndex(parsed.positional[1], &lock);
  IndexPtr index = LoadDocIndex(parsed.positional[1]);
  if (swe_index_check_model(index.get(), model.get()) != SWE_OK) {
    throw CliError(1, parsed.positional[1] + ": " + swe_last_error());
  }
  // Documents without an id are numbered after the largest whole-number id already there, so that
  // adding a second text file appends its lines instead of replacing documents "1", "2", ...
  const std::vector<DocInput> inputs = ReadDocInputs(docs, LargestNumericId(index.get()) + 1);
  size_t replaced = 0;
  for (const DocInput& d : inputs) {
    uint64_t entry = 0;
    replaced += swe_index_find_doc(index.get(), d.id.data(), d.id.size(), &entry) == SWE_OK;
  }
  AddDocs(model.get(), index.get(), inputs);
  Check(swe_index_save_to_file(index.get(), parsed.get("output", parsed.positional[1]).c_str()));
  std::fprintf(stderr, "swe: added %zu documents, replaced %zu with the same id\n", inputs.size() - replaced,
               replaced);
  return 0;
}

int RunQuery(const Args& args) {
  const std::string command = "swe index query";
  util::ParsedArgs parsed = Parse(
      args, {{"docs", 0, true}, {"k", 'k', true}, {"min-score", 0, true}, {"candidates", 0, true},
             {"json", 0, false}}, command);
  if (parsed.help) return 0;
  if (parsed.positional.size() < 2) throw util::UsageError("expected MODEL INDEX", command);
  QueryOptions options = ParseQueryOptions(parsed, command);
  ModelPtr model = LoadModel(parsed.positional[0]);
  IndexPtr index = LoadIndexFor(model.get(), parsed.positional[1]);
  if (swe_index_get_doc_count(index.get()) > 0) {
    AnswerQueries(model.get(), index.get(), nullptr, options, parsed, 2);
  } else {
    std::vector<std::string> lines = LinesForOldIndex(index.get(), parsed.positional[1], parsed, command);
    AnswerQueries(model.get(), index.get(), &lines, options, parsed, 2);
  }
  return 0;
}

uint64_t FindDoc(const swe_index* index, const std::string& path, const std::string& id) {
  uint64_t entry = 0;
  if (swe_index_find_doc(index, id.data(), id.size(), &entry) != SWE_OK) {
    throw CliError(1, path + ": no document with id '" + id + "'");
  }
  return entry;
}

int RunGet(const Args& args) {
  const std::string command = "swe index get";
  util::ParsedArgs parsed = Parse(args, {}, command);
  if (parsed.help) return 0;
  if (parsed.positional.size() < 2) throw util::UsageError("expected INDEX ID...", command);
  const std::string& path = parsed.positional[0];
  IndexPtr index = LoadDocIndex(path);
  for (size_t i = 1; i < parsed.positional.size(); ++i) {
    swe_doc doc;
    Check(swe_index_get_doc(index.get(), FindDoc(index.get(), path, parsed.positional[i]), &doc));
    nlohmann::ordered_json j = {{"id", std::string(doc.id.data, doc.id.size)}, {"text", std::string(doc.text.data, doc.text.size)}};
    AddStoredMetadata({doc.metadata.data, doc.metadata.size}, &j);
    PrintLine(JsonLine(j));
  }
  return 0;
}

int RunIds(const Args& args) {
  const std::string command = "swe index ids";
  util::ParsedArgs parsed = Parse(args, {}, command);
  if (parsed.help) return 0;
  if (parsed.positional.size() != 1) throw util::UsageError("expected INDEX", command);
  IndexPtr index = LoadDocIndex(parsed.positional[0]);
  size_t n = 0;
  Check(swe_index_get_ids(index.get(), nullptr, 0, &n));
  std::vector<uint64_t> entries(n);
  Check(swe_index_get_ids(index.get(), entries.data(), entries.size(), &n));
  std::string out;
  for (uint64_t entry : entries) {
    swe_doc doc;
    if (swe_index_get_doc(index.get(), entry, &doc) == SWE_OK) out += EscapeLine({doc.id.data, doc.id.size}) + "\n";
  }
  PrintLine(out);
  return 0;
}

int RunRemove(const Args& args) {
  const std::string command = "swe index remove";
  util::ParsedArgs parsed = Parse(args, {{"output", 'o', true}}, command);
  if (parsed.help) return 0;
  if (parsed.positional.size() < 2) throw util::UsageError("expected INDEX ID...", command);
  const std::string& path = parsed.positional[0];
  util::FileLock lock;
  LockIndex(path, &lock);
  IndexPtr index = LoadDocIndex(path);
  for (size_t i = 1; i < parsed.positional.size(); ++i) {
    Check(swe_index_remove(index.get(), FindDoc(index.get(), path, parsed.positional[i])));
  }
  Check(swe_index_save_to_file(index.get(), parsed.get("output", path).c_str()));
  return 0;
}

int RunCompact(const Args& args) {
  const std::string command = "swe index compact";
  util::ParsedArgs parsed = Parse(args, {}, command);
  if (parsed.help) return 0;
  if (parsed.positional.size() != 1) throw util::UsageError("expected INDEX", command);
  const std::string& path = parsed.positional[0];
  util::FileLock lock;
  LockIndex(path, &lock);
  IndexPtr index = LoadIndex(path);
  Check(swe_index_compact_to_file(index.get(), path.c_str()));
  return 0;
}

int RunLock(const Args& args) {
  const std::string command = "swe index lock";
  util::ParsedArgs parsed = Parse(args, {}, command);
  if (parsed.help) return 0;
  if (parsed.positional.size() < 2) throw util::UsageError("expected INDEX -- COMMAND [ARG...]", command);
  util::FileLock lock;
  LockIndex(parsed.positional[0], &lock);
  std::vector<char*> argv;
  for (size_t i = 1; i < parsed.positional.size(); ++i) argv.push_back(const_cast<char*>(parsed.positional[i].c_str()));
  argv.push_back(nullptr);
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child < 0) throw CliError(1, std::string("cannot start ") + argv[0] + ": " + std::strerror(errno));
  if (child == 0) {  // the lock's descriptor is close-on-exec: only this process holds it
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "swe: error: cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

int RunIndex(const Args& args) {
  if (args.empty()) throw util::UsageError("expected build, add, query, get, ids, remove, compact or lock", "swe index");
  if (args[0] == "--help" || args[0] == "-h") {
    std::fputs(kIndexUsage, stdout);
    return 0;
  }
  const Args rest(args.begin() + 1, args.end());
  if (args[0] == "build") return RunBuild(rest);
  if (args[0] == "add") return RunAdd(rest);
  if (args[0] == "query") return RunQuery(rest);
  if (args[0] == "get") return RunGet(rest);
  if (args[0] == "ids") return RunIds(rest);
  if (args[0] == "remove") return RunRemove(rest);
  if (args[0] == "compact") return RunCompact(rest);
  if (args[0] == "lock") return RunLock(rest);
  throw util::UsageError("unknown index command '" + args[0] + "'", "swe index");
}

}  // namespace swe::cli
