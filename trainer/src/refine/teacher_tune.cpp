#include "refine/teacher_tune.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
#include <random>

#include "refine/refine_data.h"
#include "refine/refine_internal.h"
#include "swe/util/progress.h"
#include "teachers/use_lite_teacher.h"

namespace swe::trainer {
namespace {

// One objective's sentences (anchor, positive[, negative] per example) and its split.
struct TuneTerm {
  ObjectiveSpec spec;
  std::vector<std::vector<std::string>> tuples;
  std::vector<size_t> heldout, train;
  size_t pos = 0;
  std::mt19937_64 rng;
};

Status ReadTerm(const ObjectiveSpec& spec, const TuneOptions& o, size_t index, TuneTerm* term) {
  const std::string where = "tune.objectives[" + std::to_string(index) + "]";
  if (spec.kind != ObjectiveKind::kContrastive) return InvalidArgument(where + ": only contrastive objectives tune a teacher");
  term->spec = spec;
  std::mt19937_64 rng(o.seed + index);
  uint64_t read = 0, malformed = 0;
  for (const TupleFile& file : spec.data) {
    std::vector<std::vector<std::string>> tuples;
    SWE_RETURN_IF_ERROR(ReadTupleFile(file, spec.triples ? 3 : 2, &rng, &tuples, &read, &malformed));
    term->tuples.insert(term->tuples.end(), std::make_move_iterator(tuples.begin()), std::make_move_iterator(tuples.end()));
  }
  const size_t n = term->tuples.size();
  size_t held = static_cast<size_t>(std::ceil(o.heldout * static_cast<double>(n)));
  if (o.heldout_max > 0) held = std::min<size_t>(held, o.heldout_max);
  held = std::max<size_t>(held, 2);
  if (n < held + 2) {
    return InvalidArgument(where + ": " + std::to_string(n) + " examples: at least 2 to train on and 2 held out are needed");
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  term->heldout.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(held));
  term->train.assign(order.begin() + static_cast<std::ptrdiff_t>(held), order.end());
  term->rng = rng;
  return Status::Ok();
}

// The contrastive loss of examples idx[begin, end) of `term`, all sides in one forward pass.
torch::Tensor TermLoss(const UseLiteModel& model, const TuneTerm& term, const std::vector<size_t>& idx, size_t begin,
                       size_t end, uint64_t* sentences) {
  const bool negatives = term.spec.triples && term.spec.hard_negatives;
  const size_t sides = negatives ? 3 : 2;
  const int64_t b = static_cast<int64_t>(end - begin);
  std::vector<std::string> batch;
  for (size_t side = 0; side < sides; ++side) {
    for (size_t i = begin; i < end; ++i) batch.push_back(term.tuples[idx[i]][side]);
  }
  *sentences += batch.size();
  torch::Tensor pooled = model.PooledForTraining(batch);
  torch::Tensor neg = negatives ? pooled.narrow(0, 2 * b, b) : torch::Tensor();
  return ContrastiveLossTensor(pooled.narrow(0, 0, b), pooled.narrow(0, b, b), neg, term.spec.tau, term.spec.symmetric);
}

// Each objective's mean held-out loss (batches of batch_size in a fixed order; a last batch of one
// example joins the one before it) and their weighted sum.
TuneEvaluation Evaluate(const UseLiteModel& model, const std::vector<TuneTerm>& terms, uint32_t batch_size, uint64_t step) {
  torch::NoGradGuard guard;
  TuneEvaluation e;
  e.step = step;
  uint64_t ignored = 0;
  for (const TuneTerm& t : terms) {
    double sum = 0;
    const size_t n = t.heldout.size();
    for (size_t begin = 0; begin < n;) {
      size_t end = std::min(n, begin + batch_size);
      if (n - end == 1) end = n;
      sum += TermLoss(model, t, t.heldout, begin, end, &ignored).item<double>() * static_cast<double>(end - begin);
      begin = end;
    }
    e.parts.push_back(sum / static_cast<double>(n));
    e.heldout += t.spec.weight * e.parts.back();
  }
  return e;
}

std::string Describe(const TuneEvaluation& e) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4f (", e.heldout);
  std::string s = buf;
  for (size_t i = 0; i < e.parts.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s%.4f", i ? " + " : "", e.parts[i]);
    s += buf;
  }
  return s + ")";
}

std::string SnapshotPath(const std::string& output, uint64_t step) {
  const std::string ext = ".safetensors";
  const bool has_ext = output.size() > ext.size() && output.compare(output.size() - ext.size(), ext.size(), ext) == 0;
  return (has_ext ? output.substr(0, output.size() - ext.size()) : output) + ".step-" + std::to_string(step) + ext;
}

}  // namespace

Status TuneTeacher(const TeacherOptions& teacher, const TuneOptions& o, TuneReport* report) {
  *report = TuneReport();
  if (teacher.kind != "use-lite") return InvalidArgument("tune: only the use-lite teacher can be tuned (not " + teacher.kind + ")");
  if (o.objectives.empty()) return InvalidArgument("tune: no objective");
  if (o.output.empty()) return InvalidArgument("tune: no output file");
  if (o.batch_size < 2) return InvalidArgument("tune: batch_size must be at least 2");
  if (!(o.lr > 0) || !(o.weight_decay >= 0) || !(o.warmup >= 0 && o.warmup < 1) || !(o.clip_norm >= 0)) {
    return InvalidArgument("tune: lr must be positive, weight_decay and clip_norm >= 0, warmup in [0, 1)");
  }
  if (!(o.heldout > 0 && o.heldout < 1)) return InvalidArgument("tune: heldout must be in (0, 1)");
  if (o.max_epochs == 0) return InvalidArgument("tune: max_epochs must be positive");
  auto log = [&](const std::string& line) {
    if (o.log) o.log(line);
  };
  std::vector<TuneTerm> terms(o.objectives.size());
  for (size_t i = 0; i < terms.size(); ++i) SWE_RETURN_IF_ERROR(ReadTerm(o.objectives[i], o, i, &terms[i]));
  std::unique_ptr<UseLiteModel> model;
  SWE_RETURN_IF_ERROR(UseLiteModel::Load(teacher.path, o.device, &model));
  if (!teacher.weights.empty()) SWE_RETURN_IF_ERROR(model->LoadWeights(teacher.weights));
  model->set_max_tokens(teacher.max_tokens);
  size_t largest = 0;
  for (const TuneTerm& t : terms) {
    largest = std::max(largest, t.train.size());
    report->train_examples.push_back(t.train.size());
    report->heldout_examples.push_back(t.heldout.size());
  }
  const uint64_t per_epoch = (largest + o.batch_size - 1) / o.batch_size;
  const uint64_t total = o.max_steps > 0 ? std::min<uint64_t>(o.max_steps, per_epoch * o.max_epochs) : per_epoch * o.max_epochs;
  const uint64_t eval_every = o.eval_steps > 0 ? o.eval_steps : per_epoch;
  const uint64_t warmup = static_cast<uint64_t>(o.warmup * static_cast<double>(total));
  const auto t0 = std::chrono::steady_clock::now();
  try {
    std::vector<torch::Tensor> params = model->Parameters();
    for (torch::Tensor& p : params) p.requires_grad_(true);
    torch::optim::AdamW adam(params, torch::optim::AdamWOptions(o.lr).weight_decay(o.weight_decay));
    std::vector<torch::Tensor> best;
    for (const torch::Tensor& p : params) best.push_back(p.detach().clone());
    report->evaluations.push_back(Evaluate(*model, terms, o.batch_size, 0));
    double best_loss = report->evaluations.back().heldout;
    log("tune: " + std::to_string(total) + " steps (" + std::to_string(per_epoch) + " an epoch) of " +
        std::to_string(o.batch_size) + " examples of each objective; held-out loss before: " +
        Describe(report->evaluations.back()));
    util::Progress progress("tune", total, "steps");
    uint32_t since_best = 0;
    uint64_t sentences_at_eval = 0;
    auto eval_t = std::chrono::steady_clock::now();
    for (uint64_t step = 1; step <= total; ++step) {
      const double rate = step <= warmup ? o.lr * static_cast<double>(step) / static_cast<double>(warmup + 1)
                                         : o.lr * static_cast<double>(total - step + 1) / static_cast<double>(total - warmup);
      for (auto& group : adam.param_groups()) static_cast<torch::optim::AdamWOptions&>(group.options()).lr(rate);
      adam.zero_grad();
      torch::Tensor loss;
      for (TuneTerm& t : terms) {
        if (t.pos + o.batch_size > t.train.size()) {  // the epoch of this objective is over: a new order
          std::shuffle(t.train.begin(), t.train.end(), t.rng);
          t.pos = 0;
        }
        torch::Tensor l = t.spec.weight * TermLoss(*model, t, t.train, t.pos, t.pos + o.batch_size, &report->sentences);
        loss = loss.defined() ? loss + l : l;
        t.pos += o.batch_size;
      }
      loss.backward();
      if (o.clip_norm > 0) torch::nn::utils::clip_grad_norm_(params, o.clip_norm);
      adam.step();
      report->steps = step;
      progress.Update(step);
      if (o.stop && o.stop()) return IoError("tune: interrupted at step " + std::to_string(step) + "; nothing written");
      if (step % eval_every != 0 && step != total) continue;
      report->evaluations.push_back(Evaluate(*model, terms, o.batch_size, step));
      const TuneEvaluation& e = report->evaluations.back();
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - eval_t).count();
      char rate_text[96];
      std::snprintf(rate_text, sizeof rate_text, "; %.0f sentences/s forward and backward, lr %.3g",
                    static_cast<double>(report->sentences - sentences_at_eval) / std::max(secs, 1e-9), rate);
      const bool better = e.heldout < best_loss;
      log("tune: step " + std::to_string(step) + "/" + std::to_string(total) + " held-out " + Describe(e) +
          (better ? " (best)" : "") + rate_text);
      if (o.snapshots) {
        SWE_RETURN_IF_ERROR(model->SaveWeights(SnapshotPath(o.output, step), {{"step", std::to_string(step)}}));
      }
      if (better) {
        best_loss = e.heldout;
        report->best_step = step;
        since_best = 0;
        torch::NoGradGuard guard;
        for (size_t i = 0; i < params.size(); ++i) best[i].copy_(params[i]);
      } else if (++since_best >= o.patience) {
        log("tune: no better held-out loss in " + std::to_string(o.patience) + " evaluations: stopping");
        break;
      }
      sentences_at_eval = report->sentences;
      eval_t = std::chrono::steady_clock::now();
    }
    torch::NoGradGuard guard;
    for (size_t i = 0; i < params.size(); ++i) {
      params[i].copy_(best[i]);
      params[i].requires_grad_(false);
    }
  } catch (const std::exception& e) {
    return Internal(std::string("tune failed: ") + e.what());
  }
  report->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return model->SaveWeights(o.output, {{"best_step", std::to_string(report->best_step)},
                                       {"steps", std::to_string(report->steps)}});
}

}  // namespace swe::trainer
