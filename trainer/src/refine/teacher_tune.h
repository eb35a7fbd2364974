// Fine-tuning the teacher (`swe-trainer tune`, a recipe's `tune` section): USE-lite's weights trained
// with autograd on the supervised contrastive objectives the student's refinement uses (objectives.h:
// InfoNCE with in-batch negatives, hard negatives from NLI triples, symmetric), Sentence-T5 style,
// over the teacher's pooled, normalised sentence vectors. Each step takes one batch of every
// objective and minimises the weighted sum; AdamW with a linear warm-up and linear decay to 0,
// gradient-norm clipping; each objective's own seeded held-out split is scored before training and
// every `eval_steps` steps, and the weights with the lowest weighted held-out loss are written as a
// safetensors file of every trainable tensor (UseLiteModel::SaveWeights), which `teacher.weights`
// (and `swe-trainer eval --teacher-weights`) reads over the TF.js shards. Torch-free header.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "refine/objectives.h"
#include "swe/status.h"
#include "teachers/teacher.h"

namespace swe::trainer {

struct TuneOptions {
  std::vector<ObjectiveSpec> objectives;  // contrastive only (pairs or triples)
  double tau = 0.05;          // the objectives' default temperature (the recipe's tune.tau)
  std::string output;         // the weights file written (default: work_dir/teacher.safetensors)
  uint32_t batch_size = 64;   // examples of each objective per step
  double lr = 2e-5;
  double weight_decay = 0.01; // AdamW's decoupled decay
  double warmup = 0.05;       // the fraction of the steps over which the rate rises from 0 to lr
  uint32_t max_epochs = 1;    // an epoch: one pass over the largest objective's training examples
  uint64_t max_steps = 0;     // stop after this many steps (0: max_epochs decides); sets the schedule's length
  uint32_t eval_steps = 0;    // the held-out loss every this many steps (0: at each epoch's end)
  uint32_t patience = 2;      // evaluations without a better held-out loss before stopping
  double heldout = 0.02;      // fraction of each objective's examples held out
  uint32_t heldout_max = 2000;  // at most this many held out per objective (0: no cap)
  double clip_norm = 1.0;     // 0 = no clipping
  bool snapshots = false;     // also write each evaluation's weights: OUTPUT without .safetensors + ".step-N.safetensors"
  uint64_t seed = 1;
  std::string device = "cpu";  // resolved device name
  std::function<void(const std::string&)> log;  // one line per evaluation
  std::function<bool()> stop;  // asked after each step: true = return without writing
};

struct TuneEvaluation {
  uint64_t step = 0;
  double heldout = 0;           // weighted sum
  std::vector<double> parts;    // each objective's (unweighted)
};

struct TuneReport {
  std::vector<TuneEvaluation> evaluations;  // the first: before training
  uint64_t best_step = 0;                   // 0: the weights as loaded were best
  uint64_t steps = 0, sentences = 0;        // steps done; sentences encoded forward and backward
  std::vector<uint64_t> train_examples, heldout_examples;  // per objective
  double seconds = 0;                       // training (evaluations included)
};

// Tunes `teacher` (kind use-lite; its weights file too when set) and writes the best weights to
// options.output. Fails before training on a bad option or data file; `stop` saying so ends
// it after the step without writing.
Status TuneTeacher(const TeacherOptions& teacher, const TuneOptions& options, TuneReport* report);

}  // namespace swe::trainer
