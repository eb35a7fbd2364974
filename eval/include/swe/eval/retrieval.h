// Retrieval: document ranking by exact cosine search (BEIR's nDCG@10 and recall@100), Tatoeba accuracy
// (nearest neighbour by cosine) and BUCC-style bitext mining F1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "swe/eval/logreg.h"  // Features

namespace swe::eval {

struct TatoebaResult {
  double a_to_b = 0, b_to_a = 0;  // accuracy (0..1) of each direction
  double accuracy = 0;            // their mean
};

// Row i of `a` and row i of `b` are translations. For each row of a, the nearest row of b by cosine
// must be row i (and the other way round); ties go to the lower row. Zero vectors score 0 with all.
// With the texts of the rows (`texts_a`, `texts_b`; empty = all rows distinct), repeated sentences are
// one candidate: identical texts get identical vectors, so only the first copy can ever be retrieved.
// A retrieved row then counts as right when its text and the query's text form a pair of the set
// (some row m with texts_a[m] == query and texts_b[m] == retrieved, or the other way round); with
// distinct texts that is row i alone, the rule above.
TatoebaResult TatoebaAccuracy(const Features& a, const Features& b, const std::vector<std::string>& texts_a = {},
                              const std::vector<std::string>& texts_b = {});

struct BuccResult {
  double f1 = 0, precision = 0, recall = 0;
  double threshold = 0;  // margin score above which pairs are kept (the one that maximises F1)
  size_t gold = 0, candidates = 0;
};

// BUCC-style mining: every source row's best target by the ratio margin of Artetxe & Schwenk (2019),
// cos(x, y) / (mean cos of x's k nearest targets / 2 + mean cos of y's k nearest sources / 2); the
// candidates sorted by margin and cut at the threshold that maximises F1 against `gold` (pairs of
// source and target row numbers), as the BUCC shared task's "optimal threshold" evaluation.
BuccResult BuccF1(const Features& source, const Features& target, const std::vector<std::pair<size_t, size_t>>& gold,
                  int k = 4);

// One query's judgements: (document row, graded relevance); relevance > 0 = relevant.
using Judgements = std::vector<std::pair<size_t, double>>;

// nDCG@k of a ranking (document rows, best first) as trec_eval computes it (BEIR scores with
// pytrec_eval): DCG = sum over ranks r = 1..k of relevance / log2(r + 1), divided by the DCG of the
// judgements sorted by relevance. 0 when nothing is relevant.
double NdcgAtK(const std::vector<size_t>& ranking, const Judgements& judged, size_t k);
// Share of the relevant documents (relevance > 0) in the first k of the ranking; 0 when none.
double RecallAtK(const std::vector<size_t>& ranking, const Judgements& judged, size_t k);

struct RankingResult {
  double ndcg_at_10 = 0, recall_at_100 = 0;  // means over the scored queries (0..1)
  size_t queries = 0;                         // queries with at least one relevant document
};

// Ranks every row of `docs` for each row of `queries` by cosine (exact search; ties go to the lower
// row) and averages nDCG@10 and recall@100 over the queries with a relevant document (trec_eval
// skips the others too). judged[i] belongs to query row i.
RankingResult RankByCosine(const Features& queries, const Features& docs, const std::vector<Judgements>& judged);

// Cosine matrix of the rows of a and b (a.n x b.n, row-major), in float.
std::vector<float> CosineMatrix(const Features& a, const Features& b);

}  // namespace swe::eval
