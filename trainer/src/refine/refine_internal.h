// The refinement internals shared by the torch-backed sources (refine.cpp, objectives.cpp,
// compress.cpp). The one header of src/ that includes torch: include it only from
// SWE_TRAINER_TORCH_SRCS, never from a header or a test.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "refine/refine.h"

namespace swe::trainer {

torch::Tensor Normalize(const torch::Tensor& m);  // rows to unit L2 norm
// Eq. 2-3: batch mean of KL(p_i || q_i) over the in-batch cosine similarities.
torch::Tensor KdLossTensor(const torch::Tensor& teacher, const torch::Tensor& student, double tau);
// InfoNCE of anchors x against candidates y (the positive y_i, the other y_j and, when `negatives` is
// defined, every hard negative n_j). symmetric: averaged with the y -> x direction (in-batch only).
torch::Tensor ContrastiveLossTensor(const torch::Tensor& x, const torch::Tensor& y, const torch::Tensor& negatives,
                                    double tau, bool symmetric);
// The table as the losses see it: its weights, and whether a lookup gives them a sparse gradient
// (lazy Adam's row-wise step needs one: Train sets it from RefineOptions::lazy_adam).
struct StudentTable {
  torch::Tensor weights;
  bool sparse_grad = false;
  torch::Tensor row_scale;  // optional: one learned scale per row (RefineOptions::word_weights)
};
// Student sentence vectors (the mean of their rows, as at inference; of row · row_scale when given) of
// sentences[idx[begin..end)].
torch::Tensor StudentVectors(const StudentTable& table, const std::vector<std::vector<uint32_t>>& sentences,
                             const std::vector<size_t>& idx, size_t begin, size_t end);
torch::Tensor Rows(const std::vector<size_t>& idx, size_t begin, size_t end, const torch::Device& device);
torch::Tensor ToTensor(const Matrix& m, const torch::Device& device);  // f32 copy
Status CheckSentences(const std::vector<std::vector<uint32_t>>& sentences, uint64_t rows);
// At least 4 examples (2 held out, 2 to train on) and a batch of at least 2.
Status CheckCommon(size_t n, const char* what, const RefineOptions& options);

// The loss of the examples idx[begin..end) (at least 2) for the table.
using BatchLoss = std::function<torch::Tensor(const StudentTable& table, const std::vector<size_t>& idx,
                                              size_t begin, size_t end)>;

// One term of the training loss: `n` examples (its own held-out split), weighted.
struct LossTerm {
  size_t n = 0;
  BatchLoss loss;
  double weight = 1;
};

// Parameters trained beside the table (e.g. an orthogonal map) and what keeps them valid after each
// optimiser step (e.g. re-orthogonalisation).
struct ExtraParams {
  std::vector<torch::Tensor> tensors;
  std::function<void()> after_step;
};

// One term's examples: its held-out split and its shuffled training examples with a read position.
struct TermSplit {
  std::vector<size_t> heldout, train;
  size_t pos = 0;
};

// Where Train is, all of it: what a checkpoint holds, so that a run resumed from one goes on exactly
// as the run that wrote it would have (the same table, bit for bit).
struct TrainState {
  uint32_t epoch = 1;       // the epoch under way
  uint64_t batch = 0;       // its batches done
  uint64_t step = 0;        // optimiser steps, all epochs
  double epoch_loss = 0;    // the sum of its batches' losses so far
  uint32_t since_best = 0;  // epochs without a better held-out loss
  bool done = false;        // training has ended (early stopping or the last epoch)
  std::mt19937_64 rng;      // shuffles the training examples
  std::vector<TermSplit> splits;
  RefineReport report;      // the losses so far and the best epoch's
  torch::Tensor table, best;         // the table trained and the best one so far
  torch::Tensor lazy_m, lazy_v;      // lazy Adam's moments (undefined with torch's Adam)
  std::vector<torch::Tensor> extra;       // ExtraParams::tensors
  std::vector<torch::Tensor> best_extra;  // their values at the best epoch
  std::string adam;                  // torch's Adam (moments, step counts) as its archive; "" = none
};

// refine_checkpoint.cpp: `state` written atomically to `path` under `key` (a digest of everything the
// training depends on), and read back over the fresh state of the same run: false with `why` when there
// is no file, it was made under another key, or it is damaged or does not fit (other shapes, other
// examples); then `state` is unchanged. Tensors are copied into the state's own (optimisers and losses
// hold them); the rest is replaced.
Status WriteTrainState(const std::string& path, const std::string& key, const TrainState& state);
bool ReadTrainState(const std::string& path, const std::string& key, TrainState* state, std::string* why);

// The training loop every objective shares: per term a seeded held-out split, Adam with gradient-norm
// clipping over shuffled batches (one batch of every term per step, the smaller terms cycling; an
// epoch is one pass over the largest term), the weighted held-out loss after every epoch, early
// stopping, and the best table copied back into `table` (the extra parameters set to their values at
// the best epoch too). Torch errors are thrown (callers catch them).
void Train(const std::vector<LossTerm>& terms, const RefineOptions& options, ExtraParams extra, Matrix* table,
           RefineReport* report);

}  // namespace swe::trainer
