// The refinement internals shared by the torch-backed sources (refine.cpp, objectives.cpp,
// compress.cpp). The one header of src/ that includes torch: include it only from
// SWE_TRAINER_TORCH_SRCS, never from a header or a test.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

#include "refine.h"

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
  std::function<void()> on_best;  // called when the held-out loss reaches a new best (keep a copy)
};

// The training loop every objective shares: per term a seeded held-out split, Adam with gradient-norm
// clipping over shuffled batches (one batch of every term per step, the smaller terms cycling; an
// epoch is one pass over the largest term), the weighted held-out loss after every epoch, early
// stopping, and the best table copied back into `table`. Torch errors are thrown (callers catch them).
void Train(const std::vector<LossTerm>& terms, const RefineOptions& options, ExtraParams extra, Matrix* table,
           RefineReport* report);

}  // namespace swe::trainer
