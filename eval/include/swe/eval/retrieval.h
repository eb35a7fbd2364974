// Translation retrieval: Tatoeba accuracy (nearest neighbour by cosine) and BUCC-style bitext mining F1.
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
TatoebaResult TatoebaAccuracy(const Features& a, const Features& b);

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

// Cosine matrix of the rows of a and b (a.n x b.n, row-major), in float.
std::vector<float> CosineMatrix(const Features& a, const Features& b);

}  // namespace swe::eval
