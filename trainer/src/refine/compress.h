// Compression of a trained table to fewer dimensions, folded into the table: a sentence vector is the
// mean of its rows, so projecting every row, (row − μ) P, projects every sentence mean the same way
// (export renormalises the rows after). P (d x k) and μ are fitted on student sentence vectors X:
//  pca   the top-k principal directions of X (plain PCA truncation, no ABTT);
//  mcr2  maximal coding-rate reduction (Yu et al., 2020): clusters of X from k-means, then P, started
//        at PCA's, maximises ΔR = R(Z) − Rc(Z) for Z = the rows of (X − μ) P scaled to unit length:
//          R(Z)  = ½ logdet(I + k/(m ε²) ZᵀZ)                      (m sentences, k dims)
//          Rc(Z) = Σ_j m_j/(2m) logdet(I + k/(m_j ε²) Z_jᵀZ_j)      (Z_j: the m_j rows of cluster j)
//        i.e. the whole set spans as much volume as it can while each cluster stays compact. Full-batch
//        Adam on −ΔR; P is unconstrained (it may scale directions; cosines ignore only a global scale).
//  abtt  all-but-the-top in place (Mu & Viswanath, 2018): P = I − UUᵀ for U the top `remove`
//        principal directions of X; the dims stay d and keep their order (Matryoshka prefixes too),
//        only the mean and the dominant shared directions leave every sentence vector.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/matrix_io.h"
#include "refine/pca.h"
#include "swe/status.h"

namespace swe::trainer {

enum class CompressMethod { kNone, kPca, kMcr2, kAbtt };

struct CompressOptions {
  CompressMethod method = CompressMethod::kNone;
  uint32_t dims = 128;        // k (pca, mcr2)
  uint32_t remove = 1;        // abtt: the top directions removed
  uint64_t sentences = 20000; // sentence vectors fitted on (the first refinement sentences)
  uint32_t clusters = 32;     // mcr2: k-means clusters
  double epsilon = 0.5;       // mcr2: ε² is the distortion the coding rate allows
  uint32_t steps = 200;       // mcr2: full-batch Adam steps
  double lr = 0.01;           // mcr2
  uint64_t seed = 1;
  std::string device = "cpu";
};

struct CompressReport {
  double initial_rate_reduction = 0, final_rate_reduction = 0;  // ΔR at PCA's P and at the end (mcr2)
  std::vector<uint32_t> cluster_sizes;
};

// Fits the projection on the sentence vectors x (m x d, m >= 2; k <= d) into `out` (mean μ and
// components Pᵀ, k x d; d x d for abtt): ApplyPca(out, table) folds it. mcr2: `labels` (one per row, < clusters)
// give the clusters; null = k-means.
Status FitCompression(const Matrix& x, const std::vector<uint32_t>* labels, const CompressOptions& options,
                      PcaResult* out, CompressReport* report);

// abtt: P = I − UUᵀ (d x d) and μ fitted on the rows of `table`, each counted `counts[row]` times
// (how often it occurs in the fitting sentences): μ is the expected token's row, so subtracting it from
// every row subtracts it from every sentence mean; U holds the top `remove` directions (1..d-1) of the
// rows' weighted covariance: the directions frequent words share.
Status FitAbtt(const Matrix& table, const std::vector<double>& counts, uint32_t remove, PcaResult* out);

// k-means (k-means++ seeding, Lloyd iterations) on the rows of x scaled to unit length (cosine
// clusters). labels: one per row, in [0, k).
Status KMeans(const Matrix& x, uint32_t k, uint32_t iterations, uint64_t seed, std::vector<uint32_t>* labels);

// −ΔR above for z (m x k, scaled to unit rows inside) and labels in [0, classes), in double precision
// (reference for tests).
double McrLoss(const float* z, const uint32_t* labels, uint32_t m, uint32_t k, uint32_t classes, double epsilon);

}  // namespace swe::trainer
