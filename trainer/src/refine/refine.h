// Refinement by knowledge distillation (paper Sec. 3.3, Eq. 2-3). For a batch of B sentences with
// teacher vectors t_i and student vectors s_i (the mean of the student's word vectors), the
// teacher's and student's distributions over the other sentences of the batch are
//   p_ij = softmax_{j != i}(cos(t_i, t_j) / τ),   q_ij = softmax_{j != i}(cos(s_i, s_j) / τ)
// and the loss is the batch mean of KL(p_i || q_i) = Σ_{j≠i} p_ij (log p_ij − log q_ij). (The cross-
// entropy −Σ p log q has the same gradient; KL is 0 when the student matches, which makes held-out
// losses readable.) Adam, gradient-norm clipping, early stopping on the held-out loss, fixed seeds.
//
// Cross-lingual refinement by contrastive learning on translation pairs (Sec. 3.3, Eq. 4-5). For a
// batch of B pairs with student vectors x_i (a sentence) and y_i (its translation), s_ij =
// cos(x_i, y_j) / τ and the loss is the symmetric InfoNCE cross-entropy with the translation as the
// positive and the batch's other translations as negatives:
//   L = ½ · (1/B) Σ_i [ −log softmax_j(s_ij)[i] − log softmax_j(s_ji)[i] ]   (x→y and y→x averaged)
// Same optimiser, batching, held-out split, early stopping and best-table rule as KD.
// objectives.h combines these losses (and others) in one weighted run.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "data/matrix_io.h"
#include "swe/status.h"

namespace swe::trainer {

// The loss above for one batch, in double precision (reference for tests). teacher: n x dt,
// student: n x ds, row-major; n >= 2.
double KdLoss(const float* teacher, const float* student, uint32_t n, uint32_t dt, uint32_t ds, double tau);

// The contrastive loss above for one batch of n >= 2 pairs, in double precision (reference for
// tests). x, y: n x d, row-major; row i of y is the translation of row i of x.
double ContrastiveLoss(const float* x, const float* y, uint32_t n, uint32_t d, double tau);

struct RefineOptions {
  double tau = 0.05;
  uint32_t batch_size = 128;
  double lr = 1e-3;
  bool lr_decay = false;       // linear: the rate falls from lr to 0 over max_epochs' steps
  uint32_t max_epochs = 10;
  uint32_t patience = 2;       // epochs without a better held-out loss before stopping
  double clip_norm = 1.0;      // 0 = no clipping
  double heldout = 0.1;        // fraction of sentences held out for early stopping
  uint64_t seed = 1;
  std::string device = "cpu";  // resolved device name
  uint64_t frozen_rows = 0;    // table rows [0, frozen_rows) are never changed (bit-identical)
  // Lazy (sparse) Adam: each step updates only the table rows of its batch (their moments too, bias
  // correction by the global step, as TF's LazyAdam), from sparse gradients; clipping is unchanged.
  // The cost of a step then follows the batch, not the table (a dense step touches every row).
  bool lazy_adam = false;
  // Learned word weights (objectives only): a scale per row, starting at 1, trained with the table;
  // the best scales are folded into the rows at the end (row · scale: what the weighted mean of the
  // format's `weights` computes, as sentence vectors are normalised).
  bool word_weights = false;
  std::function<void(const std::string&)> log;  // optional: one line per epoch (held-out loss, seconds)
  // The checkpoint: the whole training state (table, optimiser moments and steps, the shuffling
  // generator and position, the losses, the best table and early stopping's count), written when `stop`
  // says so and at an epoch's end (skipped while writing would take over a tenth of the time). A run with the same checkpoint_key, options, data sizes and
  // initial table resumes from it and ends with the same table, bit for bit, as a run that was not
  // stopped; another one, or a damaged file, is ignored (with a log line). "" = none.
  std::string checkpoint;
  std::string checkpoint_key;  // the caller's digest of what the options do not show (the data)
  std::function<bool()> stop;  // asked after each batch: true = save the checkpoint and return
};

struct RefineData {
  std::vector<std::vector<uint32_t>> sentences;  // table rows of each sentence (non-empty)
  Matrix teacher;                                // one teacher vector per sentence
};

// Translation pairs as table rows: source[i] and target[i] (both non-empty) are translations.
struct PairData {
  std::vector<std::vector<uint32_t>> source, target;
};

struct RefineReport {
  std::vector<double> train_loss, heldout_loss;  // per epoch
  double initial_heldout = 0, best_heldout = 0;
  std::vector<double> initial_parts, best_parts; // held-out loss of each objective (unweighted)
  uint32_t best_epoch = 0;                       // 0 = the initial table was best
  uint64_t train_sentences = 0, heldout_sentences = 0;  // examples: sentences (KD) or pairs (contrastive)
  uint64_t steps = 0;        // optimiser steps done, by this run and the one it resumed
  uint64_t resumed_at = 0;   // steps done by the checkpoint this run resumed from (0 = none)
  bool interrupted = false;  // `stop` said so: the checkpoint holds the work so far, the table is unchanged
};

// Trains `table` (rows x d, in place) and leaves the best table (lowest held-out loss) in it.
Status RefineKd(const RefineData& data, const RefineOptions& options, Matrix* table, RefineReport* report);
// The same for the contrastive loss on translation pairs (batch_size = pairs per batch).
Status RefineContrastive(const PairData& data, const RefineOptions& options, Matrix* table, RefineReport* report);

}  // namespace swe::trainer
