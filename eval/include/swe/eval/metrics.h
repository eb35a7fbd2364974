// Correlation metrics for STS-style evaluation. Both return values in [-1, 1] (callers scale x100),
// and 0 when either input is constant or has fewer than two items (never NaN).
#pragma once

#include <vector>

namespace swe::eval {

// Pearson's r of x and y (same length), computed in double around the means.
double Pearson(const std::vector<double>& x, const std::vector<double>& y);

// Spearman's rho: Pearson's r of the ranks, ties given their average rank (as scipy.stats.spearmanr).
double Spearman(const std::vector<double>& x, const std::vector<double>& y);

// Ranks 1..n of x, tied values sharing the mean of the ranks they span ("fractional" ranking).
std::vector<double> AverageRanks(const std::vector<double>& x);

}  // namespace swe::eval
