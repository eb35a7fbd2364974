// Multinomial logistic regression on frozen sentence vectors (SentEval's "nhid = 0" classifier) and
// the evaluation protocols around it: stratified k-fold cross-validation with the L2 strength chosen
// on inner folds, train/dev/test and train/test splits. Deterministic: folds come from a seeded
// generator of our own (not std::shuffle, whose algorithm differs between standard libraries), and
// the optimiser is plain L-BFGS in a fixed order. Features are standardised with the training part's
// mean and deviation, so one L2 grid fits every model's scale.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "swe/status.h"

namespace swe::eval {

// Row-major n x d feature matrix (n texts' vectors).
struct Features {
  size_t n = 0;
  uint32_t d = 0;
  std::vector<float> x;
  const float* row(size_t i) const { return x.data() + i * d; }
};

struct LogRegOptions {
  double l2 = 1e-3;            // lambda: loss = mean cross-entropy + lambda/2 * |W|^2 (bias not penalised)
  int max_iterations = 300;    // L-BFGS iterations
  double gradient_tolerance = 1e-5;  // stop when max |gradient| is below this
};

class LogReg {
 public:
  // Fits on the rows `rows` of `x` (all rows when empty) with labels in [0, classes). `warm` (same
  // shape, may be null) gives the starting point: fitting a decreasing lambda grid reuses solutions.
  Status Fit(const Features& x, const std::vector<int>& labels, int classes, const std::vector<size_t>& rows,
             const LogRegOptions& options, const LogReg* warm = nullptr);
  // The most probable class of row i of x (ties: the lower class).
  int Predict(const float* row) const;
  // Fraction of `rows` of x (all when empty) predicted as their label.
  double Accuracy(const Features& x, const std::vector<int>& labels, const std::vector<size_t>& rows) const;
  int iterations() const { return iterations_; }
  // The fitted parameters on standardised features: weight of feature j for class c at
  // [c * d + j], then one bias per class.
  const std::vector<double>& parameters() const { return w_; }

 private:
  uint32_t d_ = 0;
  int classes_ = 0;
  std::vector<double> mean_, inv_std_;  // standardisation of the training rows
  std::vector<double> w_;               // d x classes (column per class), then classes biases
  int iterations_ = 0;
};

// Stratified assignment of `rows` to k folds: each class's rows shuffled (seeded) and dealt out in
// turn. Returns the fold of each entry of `rows`.
std::vector<int> StratifiedFolds(const std::vector<int>& labels, const std::vector<size_t>& rows, int k, uint64_t seed);

struct ClassifyOptions {
  std::vector<double> l2_grid = {1, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5};  // tried strongest first (warm starts)
  int folds = 10;        // outer folds of CrossValidate
  int inner_folds = 5;   // folds that choose lambda inside each training part
  uint64_t seed = 1111;  // SentEval's seed
  int threads = 1;       // outer folds / grid points run in parallel on this many threads
  int max_iterations = 300;
};

struct ClassifyResult {
  double accuracy = 0;      // test accuracy (0..1): mean over outer folds for CrossValidate
  double dev_accuracy = 0;  // accuracy that chose lambda (dev set, or the inner folds' mean)
  std::vector<double> chosen_l2;  // per outer fold (one entry for split protocols)
  size_t train = 0, test = 0;
};

// SUBJ / MPQA: `folds`-fold stratified cross-validation over all rows; in each fold lambda is chosen by
// `inner_folds`-fold cross-validation on the training part, then refit on the whole training part.
Status CrossValidate(const Features& x, const std::vector<int>& labels, int classes, const ClassifyOptions& options,
                     ClassifyResult* out);
// SST: lambda chosen by dev accuracy of models fit on train; test accuracy of the chosen model.
Status TrainDevTest(const Features& train, const std::vector<int>& train_labels, const Features& dev,
                    const std::vector<int>& dev_labels, const Features& test, const std::vector<int>& test_labels,
                    int classes, const ClassifyOptions& options, ClassifyResult* out);
// TREC: lambda chosen by `inner_folds`-fold cross-validation on train, refit on train, tested on test.
Status TrainTest(const Features& train, const std::vector<int>& train_labels, const Features& test,
                 const std::vector<int>& test_labels, int classes, const ClassifyOptions& options,
                 ClassifyResult* out);

}  // namespace swe::eval
