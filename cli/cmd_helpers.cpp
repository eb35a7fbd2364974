// swe dedupe and swe cluster: near-duplicate groups and k-means clusters of a file's documents, by the
// C API's swe_vectors_near_duplicates and swe_vectors_kmeans (as the JS and Python packages' dedupe and
// cluster).
#include <cstdint>
#include <cstdio>
#include <string>

#include "commands.h"
#include "docs_input.h"
#include "swe/util/args.h"

namespace swe::cli {
namespace {

constexpr const char* kDedupeUsage =
    "usage: swe dedupe MODEL --docs FILE|- [--threshold T] [--dims N] [--json]\n"
    "\n"
    "Groups near-duplicate documents and prints the first of each group (the one kept), one per line.\n"
    "A document joins the first earlier group whose first document has cosine >= T with it, else it\n"
    "starts a group (greedy, like the JS package's dedupe). A document with no word the model knows is\n"
    "never a duplicate: it is a group of its own (stderr says so).\n"
    "\n"
    "options:\n"
    "  --docs FILE      the documents: the non-blank lines of a text file ('-': stdin), or a .jsonl file\n"
    "                   of {\"text\", \"id\", \"metadata\"} objects\n"
    "  --threshold T    the cosine in [-1, 1] at which documents count as duplicates (default 0.9)\n"
    "  --dims N         use only the first N dimensions\n"
    "  --json           one JSON object per group: {\"group\", \"id\", \"text\", \"duplicates\": [{\"id\",\n"
    "                   \"text\", \"score\"}]}, score being the cosine with the kept document\n";

constexpr const char* kClusterUsage =
    "usage: swe cluster MODEL --docs FILE|- -k K [--seed S] [--restarts R] [--dims N] [--json]\n"
    "\n"
    "Clusters the documents' vectors with k-means (k-means++ starts, Euclidean distance between unit\n"
    "vectors, which orders like cosine; the start of lowest inertia wins) and prints 'CLUSTER<tab>TEXT'\n"
    "per document, clusters numbered from 0. The same seed and restarts give the same clusters on\n"
    "every run, and as the JS package's cluster().\n"
    "A document with no word the model knows is in no cluster: '-' (JSON: null), left out of k-means.\n"
    "\n"
    "options:\n"
    "  --docs FILE      the documents: the non-blank lines of a text file ('-': stdin), or a .jsonl file\n"
    "                   of {\"text\", \"id\", \"metadata\"} objects\n"
    "  -k K             the number of clusters, at most the number of documents with a known word\n"
    "  --seed S         the k-means++ seed, 0 to 4294967295 (default 0)\n"
    "  --restarts R     k-means++ starts, 1 to 1000 (default 4)\n"
    "  --dims N         use only the first N dimensions\n"
    "  --json           one JSON object per document: {\"id\", \"text\", \"cluster\"}\n";

// The documents of --docs and their vectors.
struct Encoded {
  std::vector<DocInput> docs;
  std::vector<float> vectors;
  uint32_t dims = 0;
  std::vector<uint32_t> known;  // how many words of each document the model knows
};

Encoded ReadAndEncode(const util::ParsedArgs& parsed, const std::string& command) {
  if (parsed.positional.size() != 1) throw util::UsageError("expected MODEL", command);
  if (!parsed.has("docs")) throw util::UsageError("--docs FILE is required", command);
  ModelPtr model = LoadModel(parsed.positional[0]);
  Encoded e;
  e.dims = ResolveDims(model.get(), parsed.get("dims"), command);
  e.docs = ReadDocInputs(parsed.get("docs"));
  std::vector<std::string> texts;
  for (const DocInput& doc : e.docs) texts.push_back(doc.text);
  e.vectors = EncodeAll(model.get(), texts, e.dims, "encoding", &e.known);
  return e;
}

void ReportUnknown(const Encoded& e, const char* what) {
  for (size_t i = 0; i < e.docs.size(); ++i) {
    if (e.known[i] == 0) std::fprintf(stderr, "swe: document %s has no word the model knows: %s\n", e.docs[i].id.c_str(), what);
  }
}

}  // namespace

int RunDedupe(const Args& args) {
  const std::string command = "swe dedupe";
  util::ParsedArgs parsed = util::ParseArgs(
      args, {{"docs", 0, true}, {"threshold", 0, true}, {"dims", 0, true}, {"json", 0, false}}, command);
  if (parsed.help) {
    std::fputs(kDedupeUsage, stdout);
    return 0;
  }
  const double threshold = parsed.has("threshold") ? util::ParseNumber(parsed.get("threshold"), "--threshold", -1, 1) : 0.9;
  Encoded e = ReadAndEncode(parsed, command);
  ReportUnknown(e, "a group of its own");
  const size_t n = e.docs.size();
  std::vector<size_t> group_of(n);
  std::vector<float> scores(n);
  size_t n_groups = 0;
  Check(swe_vectors_near_duplicates(e.vectors.data(), n, e.dims, threshold, group_of.data(), scores.data(), &n_groups));
  std::vector<std::vector<size_t>> groups(n_groups);  // each group's documents, its first the one kept
  for (size_t i = 0; i < n; ++i) groups[group_of[i]].push_back(i);
  std::string out;
  for (size_t g = 0; g < groups.size(); ++g) {
    const DocInput& kept = e.docs[groups[g][0]];
    if (!parsed.has("json")) {
      out += kept.text + "\n";
      continue;
    }
    nlohmann::ordered_json duplicates = nlohmann::ordered_json::array();
    for (size_t m = 1; m < groups[g].size(); ++m) {
      const DocInput& doc = e.docs[groups[g][m]];
      duplicates.push_back({{"id", doc.id}, {"text", doc.text}, {"score", JsonFloat(scores[groups[g][m]])}});
    }
    out += JsonLine({{"group", g}, {"id", kept.id}, {"text", kept.text}, {"duplicates", std::move(duplicates)}});
  }
  PrintLine(out);
  std::fprintf(stderr, "swe: %zu documents, %zu groups\n", n, groups.size());
  return 0;
}

int RunCluster(const Args& args) {
  const std::string command = "swe cluster";
  util::ParsedArgs parsed = util::ParseArgs(
      args, {{"docs", 0, true}, {"k", 'k', true}, {"seed", 0, true}, {"restarts", 0, true}, {"dims", 0, true},
             {"json", 0, false}},
      command);
  if (parsed.help) {
    std::fputs(kClusterUsage, stdout);
    return 0;
  }
  if (!parsed.has("k")) throw util::UsageError("-k K is required", command);
  const uint64_t k = util::ParseCount(parsed.get("k"), "-k", 1, UINT32_MAX);
  swe_kmeans_params params = swe_kmeans_default_params();
  if (parsed.has("seed")) params.seed = static_cast<uint32_t>(util::ParseCount(parsed.get("seed"), "--seed", 0, UINT32_MAX));
  if (parsed.has("restarts")) {
    params.restarts = static_cast<uint32_t>(util::ParseCount(parsed.get("restarts"), "--restarts", 1, 1000));
  }
  Encoded e = ReadAndEncode(parsed, command);
  // The documents with a known word are clustered (swe_vectors_kmeans leaves zero vectors out).
  size_t clustered = 0;
  for (uint32_t known : e.known) clustered += known > 0;
  if (k > clustered) {
    throw util::UsageError("-k " + std::to_string(k) + " is more than the " + std::to_string(clustered) +
                               " documents with a known word",
                           command);
  }
  ReportUnknown(e, "in no cluster");
  std::vector<int32_t> labels(e.docs.size());
  double inertia = 0;
  uint32_t iterations = 0;
  Check(swe_vectors_kmeans(e.vectors.data(), e.docs.size(), e.dims, static_cast<uint32_t>(k), &params, labels.data(),
                           nullptr, &inertia, &iterations));
  std::string out;
  for (size_t i = 0; i < e.docs.size(); ++i) {
    if (parsed.has("json")) {
      nlohmann::ordered_json cluster = labels[i] < 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(labels[i]);
      out += JsonLine({{"id", e.docs[i].id}, {"text", e.docs[i].text}, {"cluster", cluster}});
    } else {
      out += (labels[i] < 0 ? std::string("-") : std::to_string(labels[i])) + "\t" + e.docs[i].text + "\n";
    }
  }
  PrintLine(out);
  std::fprintf(stderr, "swe: %zu documents in %llu clusters, inertia %.6g after %u iterations\n", clustered,
               static_cast<unsigned long long>(k), inertia, iterations);
  return 0;
}

}  // namespace swe::cli
