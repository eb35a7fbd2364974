// swe_vectors_rank (the bindings' rank / topk / filter) at scale: top-k against ranking every row, and
// against searching an f32 index of the same rows (whose rows are normalised once, when added).
//
//   rank_bench [--rows N] [--dims D] [--queries Q] [--k K] [--repeats R]
//
// Rows and queries are standard-normal floats (seeded), N = 100,000 × D = 256 by default. Per query,
// this thread's CPU time, median over R rounds of Q queries: swe_vectors_rank with k = K (partial
// selection: a heap of K), with k = N (every row ranked: a full sort), and swe_index_search (k = K) on
// an SWE_DTYPE_F32 index of the rows, which gives the same hits and scores. JSON lines on stdout, a
// summary on stderr.
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench_util.h"
#include "swe.h"

namespace {

using bench::ArgValue;
using bench::Die;
using bench::ThreadSeconds;

void Check(swe_status status, const char* what) {
  if (status != SWE_OK) Die(std::string(what) + ": " + swe_last_error());
}

// Median over `repeats` rounds of this thread's CPU milliseconds per call of query(q), q < queries.
template <typename Query>
double MillisecondsPerQuery(int repeats, size_t queries, Query query) {
  std::vector<double> rounds;
  for (int r = 0; r < repeats; ++r) {
    const double start = ThreadSeconds();
    for (size_t q = 0; q < queries; ++q) query(q);
    rounds.push_back((ThreadSeconds() - start) * 1e3 / queries);
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds[rounds.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  bench::g_program = "rank_bench";
  size_t n = 100000, queries = 20, k = 10;
  uint32_t dims = 256;
  int repeats = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--rows") n = std::stoul(ArgValue(argc, argv, &i));
    else if (arg == "--dims") dims = static_cast<uint32_t>(std::stoul(ArgValue(argc, argv, &i)));
    else if (arg == "--queries") queries = std::stoul(ArgValue(argc, argv, &i));
    else if (arg == "--k") k = std::stoul(ArgValue(argc, argv, &i));
    else if (arg == "--repeats") repeats = std::stoi(ArgValue(argc, argv, &i));
    else Die("unknown argument " + arg);
  }
  if (n == 0 || dims == 0 || queries == 0 || k == 0 || k > n || repeats < 1) Die("bad arguments");
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  std::vector<float> rows(n * dims), query_rows(queries * dims);
  for (float& v : rows) v = normal(rng);
  for (float& v : query_rows) v = normal(rng);

  std::vector<size_t> hit_rows(n);
  std::vector<float> scores(n);
  size_t found = 0;
  auto rank = [&](size_t q, size_t kk) {
    Check(swe_vectors_rank(query_rows.data() + q * dims, rows.data(), n, dims, kk, nullptr, hit_rows.data(),
                           scores.data(), &found), "swe_vectors_rank");
  };
  const double top_k = MillisecondsPerQuery(repeats, queries, [&](size_t q) { rank(q, k); });
  const double all = MillisecondsPerQuery(repeats, queries, [&](size_t q) { rank(q, n); });

  swe_index* index = nullptr;
  Check(swe_index_create(dims, SWE_DTYPE_F32, &index), "swe_index_create");
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = i;
  Check(swe_index_add(index, ids.data(), rows.data(), n), "swe_index_add");
  std::vector<uint64_t> hit_ids(k);
  const double search = MillisecondsPerQuery(repeats, queries, [&](size_t q) {
    Check(swe_index_search(index, query_rows.data() + q * dims, dims, k, nullptr, hit_ids.data(), scores.data(),
                           &found), "swe_index_search");
  });
  swe_index_free(index);

  std::printf("{\"bench\":\"rank\",\"rows\":%zu,\"dims\":%u,\"k\":%zu,\"queries\":%zu,\"repeats\":%d,"
              "\"topk_ms\":%.3f,\"rank_all_ms\":%.3f,\"index_search_ms\":%.3f}\n",
              n, dims, k, queries, repeats, top_k, all, search);
  std::fprintf(stderr,
               "rank_bench: %zu rows x %u dims, per query (thread CPU, median of %d): top-%zu %.2f ms, all rows %.2f "
               "ms (%.2fx), f32 index search %.2f ms (top-k %.2fx of it)\n",
               n, dims, repeats, k, top_k, all, all / top_k, search, top_k / search);
  return 0;
}
