// swe: the command-line program over libswe. Dispatches to one subcommand; every failure ends as one
// line "swe: error: ..." on stderr with exit code 2 (usage) or 1 (anything else).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "commands.h"
#include "common.h"
#include "swe/util/args.h"
#include "swe.h"

namespace {

constexpr const char* kUsage =
    "usage: swe <command> [options]\n"
    "\n"
    "Static word embeddings for sentence semantics: encode, compare and search text with a .swe model.\n"
    "\n"
    "commands:\n"
    "  info MODEL [--json]                 describe a model\n"
    "  encode MODEL [FILE|-] [-o OUT]      encode one text per line to .npy or JSON lines\n"
    "  similarity MODEL TEXT TEXT          cosine similarity of two texts\n"
    "  search MODEL --docs FILE [QUERY...] rank documents for each query (stdin: one by one)\n"
    "  index SUBCOMMAND ...                an index file that keeps its documents\n"
    "  dedupe MODEL --docs FILE            near-duplicate groups: print the first of each\n"
    "  cluster MODEL --docs FILE -k K      k-means clusters of the documents (seeded, deterministic)\n"
    "  tokenize MODEL TEXT                 show each word and how it matched the vocabulary\n"
    "  convert --from FORMAT IN -o OUT.swe convert word vectors (glove-json, word2vec) to a model\n"
    "  eval MODEL... [--tasks LIST]        score models on STS, retrieval and classification sets\n"
    "  serve MODEL [--index FILE]          embeddings (OpenAI and TEI APIs) and search over HTTP\n"
    "\n"
    "options:\n"
    "  -h, --help     show help (also after a command: swe encode --help)\n"
    "  --version      show the version\n";

struct Command {
  const char* name;
  int (*run)(const swe::cli::Args&);
};

constexpr Command kCommands[] = {
    {"info", swe::cli::RunInfo},         {"encode", swe::cli::RunEncode}, {"similarity", swe::cli::RunSimilarity},
    {"search", swe::cli::RunSearch},     {"index", swe::cli::RunIndex},   {"tokenize", swe::cli::RunTokenize},
    {"dedupe", swe::cli::RunDedupe},     {"cluster", swe::cli::RunCluster},
    {"convert", swe::cli::RunConvert},   {"eval", swe::cli::RunEval},     {"serve", swe::cli::RunServe},
};

int Run(int argc, char** argv) {
  if (argc < 2) throw swe::util::UsageError("no command given", "swe");
  std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (name == "--version" || name == "version") {
    std::printf("swe %s\n", swe_version());
    return 0;
  }
  for (const Command& command : kCommands) {
    if (name == command.name) return command.run(swe::cli::Args(argv + 2, argv + argc));
  }
  if (!name.empty() && name[0] == '-') throw swe::util::UsageError("unknown option '" + name + "'", "swe");
  throw swe::util::UsageError("unknown command '" + name + "'", "swe");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    int code = Run(argc, argv);
    if (std::fflush(stdout) != 0) throw swe::cli::CliError(1, std::string("stdout: write failed: ") + std::strerror(errno));
    return code;
  } catch (const swe::util::UsageError& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "swe: error: %s\n", e.what());
    return 2;
  } catch (const swe::cli::CliError& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "swe: error: %s\n", e.what());
    return e.exit_code();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "swe: error: out of memory\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "swe: error: %s\n", e.what());
  }
  return 1;
}
