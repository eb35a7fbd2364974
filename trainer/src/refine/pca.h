// Sentence-level PCA with ABTT (paper Sec. 3.2). Given a data matrix X (n x d): centre it (mean X̄),
// take the principal directions (eigenvectors of the covariance, by decreasing variance), drop the
// first r ("all-but-the-top", r = floor(d/100) by default) and keep the next d'. W = those d'
// directions (d x d'); every word vector is transformed Ê(w) = Wᵀ(E(w) − X̄).
// For the paper's method X is the sentence matrix (averages of word vectors over M sentences);
// word-level PCA (X = the word vectors) and r = 0 (no ABTT) are the ablations.
#pragma once

#include <cstdint>
#include <vector>

#include "data/matrix_io.h"
#include "swe/status.h"

namespace swe::trainer {

struct PcaOptions {
  uint32_t out_dims = 256;   // d' (clamped to d - r)
  int32_t remove = -1;       // r; -1 = floor(d / 100); 0 = no ABTT
};

struct PcaResult {
  uint32_t in_dims = 0, out_dims = 0, removed = 0;
  std::vector<float> mean;        // X̄, d
  Matrix components;              // d' x d: row k is the (r+k)-th principal direction
  std::vector<double> variances;  // eigenvalues of the kept directions
  std::vector<double> removed_variances;
};

// Fits on `x` (rows = samples). Needs at least 2 rows. Directions have a deterministic sign (the
// entry of largest magnitude is positive). `weights` (one per row, >= 0, not all 0): each row counts
// that often in the mean and covariance; null: once each.
Status FitPca(const Matrix& x, const PcaOptions& options, PcaResult* out, const std::vector<double>* weights = nullptr);
// out = rows of Wᵀ(in − X̄).
Status ApplyPca(const PcaResult& pca, const Matrix& in, Matrix* out);

}  // namespace swe::trainer
