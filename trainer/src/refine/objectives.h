// Multi-objective refinement: one run minimises a weighted sum of objectives, each on its own data
// with its own held-out split (refine.h has the training loop's rules). The objectives:
//
//  kd           knowledge distillation on corpus sentences and their teacher vectors (refine.h, Eq. 2-3).
//  contrastive  supervised contrastive learning (SimCSE / Sentence-T5) on pairs or triples of
//               sentences. For a batch of B anchors a_i, positives p_i and (triples) hard negatives
//               n_i, with c(u, v) = cos(u, v) / τ and candidates p_1..p_B (plus n_1..n_B):
//                 L→ = (1/B) Σ_i −log [ e^{c(a_i, p_i)} / (Σ_j e^{c(a_i, p_j)} + Σ_j e^{c(a_i, n_j)}) ]
//               symmetric: L = ½ (L→ + L←), L← the same from each p_i over the anchors a_j (no
//               negatives). Translation pairs (refine.h, Eq. 4-5) are the symmetric pairs case.
//  distance     distance minimisation (Gunel et al.): the student sentence vector s_i against the
//               teacher's t_i mapped into the student's space by W (dt x ds, orthonormal columns, or rows
//               when dt < ds):
//                 L = α (1/B) Σ_i ||s_i − t_i W||² + β (1/B) Σ_i (1 − cos(s_i, t_i W))
//               W starts at the Procrustes solution for the initial table and is trained with the
//               table, re-orthogonalised after every step (its polar factor U Vᵀ, from an SVD).
//
// Matryoshka (any kind): the loss is also taken on the first k dimensions of the vectors, each prefix
// normalised as `--dims k` does (Kusupati et al.), so a truncated model keeps working:
//   L_M = L(all dims) + Σ_k w_k L(first k dims)
// (the student's vectors and the mapped teacher's are cut; kd keeps the teacher's similarities whole).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/matrix_io.h"
#include "refine/refine.h"
#include "swe/status.h"

namespace swe::trainer {

enum class ObjectiveKind { kKd, kContrastive, kDistance };
const char* ObjectiveName(ObjectiveKind kind);  // "kd", "contrastive", "distance"

// One Matryoshka prefix: its loss on the first `dims` dimensions, times `weight`.
struct PrefixLoss {
  uint32_t dims = 0;
  double weight = 1;
};

// A contrastive data file and how many of its examples to use (a seeded random subset; 0 = all).
struct TupleFile {
  std::string path;
  uint64_t max = 0;
  bool skip_malformed = false;  // skip (and count) lines with a wrong number of tabs or an empty side
};

// An objective as the recipe gives it (docs/TRAINER.md, "Refinement objectives").
struct ObjectiveSpec {
  ObjectiveKind kind = ObjectiveKind::kKd;
  double weight = 1;
  double tau = 0.05;                // kd, contrastive
  std::vector<TupleFile> data;      // contrastive
  bool triples = false;             // contrastive: "anchor<TAB>positive<TAB>hard negative" lines
  bool symmetric = true;            // contrastive
  bool hard_negatives = true;       // contrastive, triples: the third column joins the candidates
  double euclidean = 1, cosine = 1; // distance: α and β
  bool orthogonal_map = true;       // distance: false = identity map (the dims must match)
  std::vector<PrefixLoss> matryoshka;  // every kind: prefixes of fewer dims than the table's
};

// Contrastive examples as table rows; `negative` is empty for pairs.
struct TupleData {
  std::vector<std::vector<uint32_t>> anchor, positive, negative;
};

struct Objective {
  ObjectiveSpec spec;
  const RefineData* sentences = nullptr;  // kd, distance
  const TupleData* tuples = nullptr;      // contrastive
};

// Trains `table` on the weighted sum of the objectives (report: weighted held-out loss, and each
// objective's in report->*_parts, in order).
Status RefineObjectives(const std::vector<Objective>& objectives, const RefineOptions& options, Matrix* table,
                        RefineReport* report);

// The losses above for one batch, in double precision (references for tests); row-major inputs.
// negative: n x d or null (no hard negatives).
// matryoshka: L_M above.
double SupervisedContrastiveLoss(const float* anchor, const float* positive, const float* negative, uint32_t n,
                                 uint32_t d, double tau, bool symmetric,
                                 const std::vector<PrefixLoss>& matryoshka = {});
// map: dt x ds (t_i W).
double DistanceLoss(const float* teacher, const float* student, const float* map, uint32_t n, uint32_t dt,
                    uint32_t ds, double euclidean, double cosine, const std::vector<PrefixLoss>& matryoshka = {});
// The dt x ds matrix with orthonormal columns (rows when dt < ds) minimising ||T W − S||_F
// (orthogonal Procrustes: W = U Vᵀ for Tᵀ S = U Σ Vᵀ; exact for square W, else the usual
// initialisation, exact when T is isotropic). teacher and student have the same rows.
Status ProcrustesMap(const Matrix& teacher, const Matrix& student, Matrix* map);

}  // namespace swe::trainer
