#include "refine/refine.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <algorithm>
#include <functional>
#include <numeric>
#include <random>
#include <sstream>

#include "data/corpus.h"
#include "refine/refine_internal.h"
#include "swe/util/progress.h"

namespace swe::trainer {
namespace F = torch::nn::functional;

torch::Tensor Normalize(const torch::Tensor& m) {
  return F::normalize(m, F::NormalizeFuncOptions().p(2).dim(1).eps(1e-12));
}

namespace {
// Rows of a B x B matrix without its diagonal: B x (B - 1).
torch::Tensor OffDiagonal(const torch::Tensor& m) {
  const int64_t b = m.size(0);
  return m.flatten().narrow(0, 1, b * b - 1).view({b - 1, b + 1}).narrow(1, 0, b).reshape({b, b - 1});
}

// Mean held-out loss over consecutive batches (a trailing batch of one example joins the previous).
double Evaluate(const BatchLoss& loss, const std::vector<size_t>& idx, const StudentTable& table, uint32_t batch) {
  torch::NoGradGuard guard;
  double total = 0;
  int batches = 0;
  for (size_t start = 0; start + 1 < idx.size(); start += batch) {
    size_t end = std::min(idx.size(), start + batch);
    if (idx.size() - end == 1) end = idx.size();
    total += loss(table, idx, start, end).item<double>();
    ++batches;
    if (end == idx.size()) break;
  }
  return batches ? total / batches : 0.0;
}

// The weighted held-out loss; `parts` receives each term's.
double EvaluateAll(const std::vector<LossTerm>& terms, const std::vector<TermSplit>& splits, const StudentTable& table,
                   uint32_t batch, std::vector<double>* parts) {
  double total = 0;
  parts->clear();
  for (size_t t = 0; t < terms.size(); ++t) {
    parts->push_back(Evaluate(terms[t].loss, splits[t].heldout, table, batch));
    total += terms[t].weight * parts->back();
  }
  return total;
}

// Adam's moments for the rows a lazy step touches (refine.h, RefineOptions::lazy_adam).
struct LazyAdam {
  torch::Tensor m, v;
  double lr, b1 = 0.9, b2 = 0.999, eps = 1e-8;
  // rows: the touched rows (unique), grad: their gradients; t: the global step (from 1).
  void Step(torch::Tensor& table, const torch::Tensor& rows, const torch::Tensor& grad, int64_t t) {
    torch::NoGradGuard guard;
    torch::Tensor m_rows = m.index_select(0, rows).mul_(b1).add_(grad, 1 - b1);
    torch::Tensor v_rows = v.index_select(0, rows).mul_(b2).addcmul_(grad, grad, 1 - b2);
    m.index_copy_(0, rows, m_rows);
    v.index_copy_(0, rows, v_rows);
    const double bc1 = 1 - std::pow(b1, static_cast<double>(t)), bc2 = 1 - std::pow(b2, static_cast<double>(t));
    torch::Tensor denom = (v_rows.sqrt() / std::sqrt(bc2)).add_(eps);
    table.index_add_(0, rows, m_rows.div(denom).mul_(-lr / bc1));
  }
};

// The table's gradient after backward as (unique rows, their gradients), rows below `frozen` dropped;
// dense gradients (plain Adam) get their frozen rows zeroed in place instead (Adam's moments of a row
// that never had a gradient stay 0, so its update is exactly 0 and the row keeps its bits).
void MaskFrozen(const torch::Tensor& weights, uint64_t frozen, torch::Tensor* rows, torch::Tensor* values) {
  torch::Tensor g = weights.grad();
  if (!g.defined()) return;
  if (!g.is_sparse()) {
    if (frozen > 0) g.narrow(0, 0, static_cast<int64_t>(frozen)).zero_();
    return;
  }
  g = g.coalesce();
  *rows = g.indices()[0];
  *values = g.values();
  if (frozen > 0) {
    torch::Tensor keep = (*rows >= static_cast<int64_t>(frozen)).nonzero().squeeze(1);
    *rows = rows->index_select(0, keep);
    *values = values->index_select(0, keep);
  }
}

// Gradient-norm clipping over the table's (sparse) row gradients and the dense parameters, as
// torch::nn::utils::clip_grad_norm_ computes it.
void ClipSparse(torch::Tensor& values, const std::vector<torch::Tensor>& dense, double max_norm) {
  torch::NoGradGuard guard;
  double sq = values.defined() ? values.pow(2).sum().item<double>() : 0.0;
  for (const torch::Tensor& p : dense) {
    if (p.grad().defined()) sq += p.grad().pow(2).sum().item<double>();
  }
  const double coef = max_norm / (std::sqrt(sq) + 1e-6);
  if (coef >= 1) return;
  if (values.defined()) values = values * coef;
  for (const torch::Tensor& p : dense) {
    if (p.grad().defined()) p.grad().mul_(coef);
  }
}

}  // namespace

torch::Tensor KdLossTensor(const torch::Tensor& teacher, const torch::Tensor& student, double tau) {
  torch::Tensor t = Normalize(teacher), s = Normalize(student);
  torch::Tensor logp = torch::log_softmax(OffDiagonal(torch::matmul(t, t.t()) / tau), 1);
  torch::Tensor logq = torch::log_softmax(OffDiagonal(torch::matmul(s, s.t()) / tau), 1);
  return (logp.exp() * (logp - logq)).sum(1).mean();
}

torch::Tensor ContrastiveLossTensor(const torch::Tensor& x, const torch::Tensor& y, const torch::Tensor& negatives,
                                    double tau, bool symmetric) {
  torch::Tensor xn = Normalize(x), yn = Normalize(y);
  torch::Tensor sim = torch::matmul(xn, yn.t()) / tau;
  torch::Tensor labels = torch::arange(sim.size(0), torch::TensorOptions().dtype(torch::kInt64).device(sim.device()));
  torch::Tensor forward = negatives.defined()
                              ? F::cross_entropy(torch::cat({sim, torch::matmul(xn, Normalize(negatives).t()) / tau}, 1), labels)
                              : F::cross_entropy(sim, labels);
  return symmetric ? 0.5 * (forward + F::cross_entropy(sim.t(), labels)) : forward;
}

torch::Tensor StudentVectors(const StudentTable& table, const std::vector<std::vector<uint32_t>>& sentences,
                             const std::vector<size_t>& idx, size_t begin, size_t end) {
  std::vector<int64_t> ids, offsets;
  for (size_t i = begin; i < end; ++i) {
    offsets.push_back(static_cast<int64_t>(ids.size()));
    for (uint32_t r : sentences[idx[i]]) ids.push_back(r);
  }
  auto opts = torch::TensorOptions().dtype(torch::kInt64);
  const torch::Device device = table.weights.device();
  const torch::Tensor rows = torch::tensor(ids, opts).to(device), starts = torch::tensor(offsets, opts).to(device);
  auto bag = F::EmbeddingBagFuncOptions().offsets(starts).sparse(table.sparse_grad);
  if (!table.row_scale.defined()) return F::embedding_bag(rows, table.weights, bag.mode(torch::kMean));
  offsets.push_back(static_cast<int64_t>(ids.size()));
  torch::Tensor bounds = torch::tensor(offsets, opts).to(device);
  torch::Tensor counts = (bounds.narrow(0, 1, bounds.size(0) - 1) - bounds.narrow(0, 0, bounds.size(0) - 1))
                             .to(table.weights.scalar_type()).unsqueeze(1);
  return F::embedding_bag(rows, table.weights,
                          bag.mode(torch::kSum).per_sample_weights(table.row_scale.index_select(0, rows))) /
         counts;
}

torch::Tensor Rows(const std::vector<size_t>& idx, size_t begin, size_t end, const torch::Device& device) {
  std::vector<int64_t> rows(idx.begin() + static_cast<ptrdiff_t>(begin), idx.begin() + static_cast<ptrdiff_t>(end));
  return torch::tensor(rows, torch::TensorOptions().dtype(torch::kInt64)).to(device);
}

torch::Tensor ToTensor(const Matrix& m, const torch::Device& device) {
  return torch::from_blob(const_cast<float*>(m.data.data()), {static_cast<int64_t>(m.rows), static_cast<int64_t>(m.cols)},
                          torch::kFloat32).clone().to(device);
}

namespace {

// What a checkpoint must have been made under: the caller's key, libtorch's version, every option that
// changes the training, each term's size and weight, and the initial table and extra parameters.
std::string CheckpointKey(const std::vector<LossTerm>& terms, const RefineOptions& o, const ExtraParams& extra,
                          const Matrix& table) {
  std::ostringstream k;
  k.precision(17);
  k << o.checkpoint_key << " torch " << TORCH_VERSION_MAJOR << "." << TORCH_VERSION_MINOR << " tau " << o.tau
    << " batch " << o.batch_size << " lr " << o.lr << " epochs " << o.max_epochs << " patience " << o.patience
    << " clip " << o.clip_norm << " heldout " << o.heldout << " seed " << o.seed << " frozen " << o.frozen_rows
    << " lazy " << o.lazy_adam << " word_weights " << o.word_weights << " lr_decay " << o.lr_decay << " table " << table.rows << "x" << table.cols;
  for (const LossTerm& t : terms) k << " term " << t.n << ":" << t.weight;
  uint64_t h = Fnv1a64(k.str());
  h = Fnv1a64(std::string_view(reinterpret_cast<const char*>(table.data.data()), table.data.size() * sizeof(float)), h);
  for (const torch::Tensor& e : extra.tensors) {
    const torch::Tensor c = e.detach().to(torch::kCPU).contiguous();
    h = Fnv1a64(std::string_view(static_cast<const char*>(c.data_ptr()), c.nbytes()), h);
  }
  return HexU64(h);
}

std::string SaveAdam(const torch::optim::Adam& adam) {
  torch::serialize::OutputArchive archive;
  adam.save(archive);
  std::string bytes;
  archive.save_to([&bytes](const void* data, size_t n) {
    bytes.append(static_cast<const char*>(data), n);
    return n;
  });
  return bytes;
}

void LoadAdam(const std::string& bytes, torch::optim::Adam* adam) {
  torch::serialize::InputArchive archive;
  archive.load_from(bytes.data(), bytes.size());
  adam->load(archive);
}

// Per term a seeded held-out split and the rest to train on.
void Split(const std::vector<LossTerm>& terms, const RefineOptions& options, TrainState* st) {
  st->splits.assign(terms.size(), TermSplit());
  for (size_t t = 0; t < terms.size(); ++t) {
    const size_t n = terms[t].n;
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), st->rng);
    size_t held = std::max<size_t>(2, static_cast<size_t>(options.heldout * static_cast<double>(n) + 0.5));
    if (held > n - 2) held = n - 2;
    st->splits[t].heldout.assign(order.begin(), order.begin() + held);
    st->splits[t].train.assign(order.begin() + held, order.end());
    st->report.train_sentences += st->splits[t].train.size();
    st->report.heldout_sentences += held;
  }
}


// One run of Train: its state (what a checkpoint holds), the optimisers, and the steps of an epoch.
class Training {
 public:
  // A fresh state (split, table on the device), or the checkpoint's when it was made under this run's key.
  Training(const std::vector<LossTerm>& terms, const RefineOptions& options, ExtraParams extra, const Matrix& table);
  // Epochs until training is done (early stopping or the last epoch): true; false when options.stop
  // stopped it (the checkpoint saved).
  bool Run();
  // The best epoch's table into *table, and the extra parameters set to their values at that epoch.
  void KeepBest(Matrix* table);
  void Report(bool interrupted, RefineReport* report) const;

 private:
  // One batch of every term (the smaller terms cycling): the weighted loss, its gradients, the step.
  double Step();
  // The held-out loss after an epoch, logged; the best table kept; early stopping.
  void EndEpoch(std::chrono::steady_clock::time_point epoch_started, std::chrono::steady_clock::time_point started);
  // The checkpoint, written unless the last one was written less than ten times its own writing time
  // ago, so that writing costs at most about a tenth of the time (a large table on a GPU takes longer to
  // write than an epoch); when `always` (stopping), written.
  void Save(bool always);

  const std::vector<LossTerm>& terms_;
  const RefineOptions& options_;
  ExtraParams extra_;
  TrainState st_;
  std::string key_;  // the checkpoint's
  bool resumed_ = false;
  StudentTable student_;
  std::vector<torch::Tensor> params_;  // torch's Adam's
  std::unique_ptr<torch::optim::Adam> adam_;
  LazyAdam lazy_;
  uint64_t steps_per_epoch_ = 0, planned_steps_ = 0, resumed_at_ = 0;
  std::chrono::steady_clock::time_point last_written_ = std::chrono::steady_clock::now();
  double writing_ = 0;  // seconds the last checkpoint took to write
};

Training::Training(const std::vector<LossTerm>& terms, const RefineOptions& options, ExtraParams extra,
                   const Matrix& table)
    : terms_(terms), options_(options), extra_(std::move(extra)) {
  st_.rng.seed(options.seed);
  Split(terms, options, &st_);
  size_t largest = 0;
  for (size_t t = 0; t < terms.size(); ++t) {
    if (st_.splits[t].train.size() > st_.splits[largest].train.size()) largest = t;
  }
  torch::manual_seed(options.seed);
  st_.table = ToTensor(table, torch::Device(options.device)).requires_grad_(true);
  if (options.lazy_adam) {
    st_.lazy_m = torch::zeros_like(st_.table).detach();
    st_.lazy_v = torch::zeros_like(st_.table).detach();
  }
  st_.extra = extra_.tensors;
  key_ = options.checkpoint.empty() ? "" : CheckpointKey(terms, options, extra_, table);
  std::string why;
  resumed_ = !options.checkpoint.empty() && ReadTrainState(options.checkpoint, key_, &st_, &why);
  if (!why.empty() && options.log) options.log("refine: " + options.checkpoint + " ignored: " + why);
  // Lazy Adam: the table gets sparse gradients and its own row-wise Adam; torch's Adam keeps the rest.
  student_.weights = st_.table;
  student_.sparse_grad = options.lazy_adam;
  params_ = extra_.tensors;
  if (!options.lazy_adam) params_.insert(params_.begin(), st_.table);
  if (!params_.empty()) adam_ = std::make_unique<torch::optim::Adam>(params_, torch::optim::AdamOptions(options.lr));
  if (resumed_ && adam_ && !st_.adam.empty()) LoadAdam(st_.adam, adam_.get());
  lazy_ = LazyAdam{st_.lazy_m, st_.lazy_v, options.lr};
  steps_per_epoch_ = (st_.splits[largest].train.size() - 2) / options.batch_size + 1;
  if (!resumed_) {
    st_.report.initial_heldout = st_.report.best_heldout =
        EvaluateAll(terms, st_.splits, student_, options.batch_size, &st_.report.initial_parts);
    st_.report.best_parts = st_.report.initial_parts;
    st_.best = st_.table.detach().clone();
    for (const torch::Tensor& e : st_.extra) st_.best_extra.push_back(e.detach().clone());
    st_.done = options.max_epochs == 0;  // scoring only: the held-out loss of the table as it is
  } else if (options.log) {
    options.log(st_.done ? "refine: resumed from the checkpoint: training had finished (" +
                               std::to_string(st_.report.heldout_loss.size()) + " epochs)"
                         : "refine: resumed from the checkpoint at epoch " + std::to_string(st_.epoch) + ", step " +
                               std::to_string(st_.batch) + " of " + std::to_string(steps_per_epoch_));
  }
  resumed_at_ = resumed_ ? st_.step : 0;
  planned_steps_ = static_cast<uint64_t>(options.max_epochs) * steps_per_epoch_;
}

bool Training::Run() {
  util::Progress progress("refine", planned_steps_, "steps");
  progress.SetStart(st_.step);  // a resumed run: its ETA from the steps left
  const auto started = std::chrono::steady_clock::now();
  while (!st_.done) {
    const auto epoch_started = std::chrono::steady_clock::now();
    if (st_.batch == 0) {
      for (TermSplit& s : st_.splits) s.pos = s.train.size();  // reshuffled at their first batch
    }
    while (st_.batch < steps_per_epoch_) {
      st_.epoch_loss += Step();
      ++st_.batch;
      progress.Update(++st_.step);
      if (st_.batch < steps_per_epoch_ && options_.stop && options_.stop()) {  // (at the epoch's end: below)
        Save(true);
        return false;
      }
    }
    EndEpoch(epoch_started, started);
    const bool stop = !st_.done && options_.stop && options_.stop();
    Save(stop);
    if (stop) return false;
  }
  return true;
}

double Training::Step() {
  if (adam_) adam_->zero_grad();
  st_.table.mutable_grad() = torch::Tensor();
  torch::Tensor l;
  for (size_t t = 0; t < terms_.size(); ++t) {
    TermSplit& s = st_.splits[t];
    if (s.pos + 2 > s.train.size()) {
      std::shuffle(s.train.begin(), s.train.end(), st_.rng);
      s.pos = 0;
    }
    const size_t begin = s.pos, end = std::min(s.train.size(), begin + options_.batch_size);
    s.pos = end;
    torch::Tensor term = terms_[t].weight * terms_[t].loss(student_, s.train, begin, end);
    l = l.defined() ? l + term : term;
  }
  l.backward();
  if (options_.lr_decay) {  // a function of the step alone, so a resumed run takes the same rates
    const double rate = options_.lr * (1.0 - static_cast<double>(st_.step) / static_cast<double>(planned_steps_));
    lazy_.lr = rate;
    if (adam_) {
      for (auto& group : adam_->param_groups()) static_cast<torch::optim::AdamOptions&>(group.options()).lr(rate);
    }
  }
  torch::Tensor touched, grads;
  MaskFrozen(st_.table, options_.frozen_rows, &touched, &grads);
  if (options_.lazy_adam) {
    if (options_.clip_norm > 0) ClipSparse(grads, extra_.tensors, options_.clip_norm);
    if (touched.defined() && touched.numel() > 0) lazy_.Step(st_.table, touched, grads, static_cast<int64_t>(st_.step + 1));
  } else if (options_.clip_norm > 0) {
    torch::nn::utils::clip_grad_norm_(params_, options_.clip_norm);
  }
  if (adam_) adam_->step();
  if (extra_.after_step) extra_.after_step();
  return l.item<double>();
}

void Training::EndEpoch(std::chrono::steady_clock::time_point epoch_started,
                        std::chrono::steady_clock::time_point started) {
  std::vector<double> parts;
  const double held_loss = EvaluateAll(terms_, st_.splits, student_, options_.batch_size, &parts);
  RefineReport& r = st_.report;
  r.train_loss.push_back(st_.epoch_loss / static_cast<double>(steps_per_epoch_));
  r.heldout_loss.push_back(held_loss);
  if (options_.log) {
    const auto now = std::chrono::steady_clock::now();
    char line[192];  // the epoch's own time (held-out evaluation included), then the time since refine began
    std::snprintf(line, sizeof line, "refine: epoch %u: train loss %.5f, held-out loss %.5f (epoch %.1f s, total %.1f s)",
                  st_.epoch, r.train_loss.back(), held_loss,
                  std::chrono::duration<double>(now - epoch_started).count(),
                  std::chrono::duration<double>(now - started).count());
    options_.log(line);
  }
  if (held_loss < r.best_heldout) {
    r.best_heldout = held_loss;
    r.best_parts = parts;
    r.best_epoch = st_.epoch;
    st_.best = st_.table.detach().clone();
    for (size_t i = 0; i < st_.extra.size(); ++i) st_.best_extra[i] = st_.extra[i].detach().clone();
    st_.since_best = 0;
  } else if (++st_.since_best >= options_.patience) {
    st_.done = true;
  }
  st_.done = st_.done || st_.epoch == options_.max_epochs;
  ++st_.epoch;
  st_.batch = 0;
  st_.epoch_loss = 0;
}

void Training::Save(bool always) {
  auto now = std::chrono::steady_clock::now();
  if (options_.checkpoint.empty() ||
      (!always && std::chrono::duration<double>(now - last_written_).count() < 10 * writing_)) {
    return;
  }
  if (adam_) st_.adam = SaveAdam(*adam_);
  const Status s = WriteTrainState(options_.checkpoint, key_, st_);
  if (!s.ok()) throw std::runtime_error("cannot save the checkpoint: " + s.message());
  last_written_ = std::chrono::steady_clock::now();
  writing_ = std::chrono::duration<double>(last_written_ - now).count();
}

void Training::KeepBest(Matrix* table) {
  const torch::Tensor best = st_.best.to(torch::kCPU).contiguous();
  std::copy(best.data_ptr<float>(), best.data_ptr<float>() + best.numel(), table->data.begin());
  torch::NoGradGuard guard;
  for (size_t i = 0; i < st_.extra.size(); ++i) st_.extra[i].copy_(st_.best_extra[i]);
}

void Training::Report(bool interrupted, RefineReport* report) const {
  *report = st_.report;
  report->steps = st_.step;
  report->resumed_at = resumed_at_;
  report->interrupted = interrupted;
}

}  // namespace

void Train(const std::vector<LossTerm>& terms, const RefineOptions& options, ExtraParams extra, Matrix* table,
           RefineReport* report) {
  Training training(terms, options, std::move(extra), *table);
  const bool finished = training.Run();
  if (finished) training.KeepBest(table);
  training.Report(!finished, report);
}

Status CheckCommon(size_t n, const char* what, const RefineOptions& options) {
  if (n < 4) return InvalidArgument(std::string("refine: needs at least 4 ") + what + " (got " + std::to_string(n) + ")");
  if (options.batch_size < 2) return InvalidArgument("refine: batch size must be at least 2");
  return Status::Ok();
}

Status CheckSentences(const std::vector<std::vector<uint32_t>>& sentences, uint64_t rows) {
  for (const auto& s : sentences) {
    if (s.empty()) return InvalidArgument("refine: empty sentence");
    for (uint32_t r : s) {
      if (r >= rows) return InvalidArgument("refine: row out of range");
    }
  }
  return Status::Ok();
}


double KdLoss(const float* teacher, const float* student, uint32_t n, uint32_t dt, uint32_t ds, double tau) {
  torch::NoGradGuard guard;
  auto t = torch::from_blob(const_cast<float*>(teacher), {n, dt}, torch::kFloat32).to(torch::kFloat64);
  auto s = torch::from_blob(const_cast<float*>(student), {n, ds}, torch::kFloat32).to(torch::kFloat64);
  return KdLossTensor(t, s, tau).item<double>();
}

double ContrastiveLoss(const float* x, const float* y, uint32_t n, uint32_t d, double tau) {
  torch::NoGradGuard guard;
  auto a = torch::from_blob(const_cast<float*>(x), {n, d}, torch::kFloat32).to(torch::kFloat64);
  auto b = torch::from_blob(const_cast<float*>(y), {n, d}, torch::kFloat32).to(torch::kFloat64);
  return ContrastiveLossTensor(a, b, torch::Tensor(), tau, true).item<double>();
}

Status RefineKd(const RefineData& data, const RefineOptions& options, Matrix* table, RefineReport* report) {
  const size_t n = data.sentences.size();
  if (data.teacher.rows != n) return InvalidArgument("refine: one teacher vector per sentence is needed");
  SWE_RETURN_IF_ERROR(CheckCommon(n, "sentences", options));
  SWE_RETURN_IF_ERROR(CheckSentences(data.sentences, table->rows));
  try {
    torch::Device device(options.device);
    torch::Tensor teacher = torch::from_blob(const_cast<float*>(data.teacher.data.data()),
                                             {static_cast<int64_t>(n), static_cast<int64_t>(data.teacher.cols)},
                                             torch::kFloat32).to(device);
    auto loss = [&](const StudentTable& w, const std::vector<size_t>& idx, size_t begin, size_t end) {
      return KdLossTensor(teacher.index_select(0, Rows(idx, begin, end, device)),
                          StudentVectors(w, data.sentences, idx, begin, end), options.tau);
    };
    Train({{n, loss, 1.0}}, options, {}, table, report);
  } catch (const std::exception& e) {
    return Internal(std::string("refine failed: ") + e.what());
  }
  return Status::Ok();
}

Status RefineContrastive(const PairData& data, const RefineOptions& options, Matrix* table, RefineReport* report) {
  const size_t n = data.source.size();
  if (data.target.size() != n) return InvalidArgument("refine: one target sentence per source sentence is needed");
  SWE_RETURN_IF_ERROR(CheckCommon(n, "translation pairs", options));
  SWE_RETURN_IF_ERROR(CheckSentences(data.source, table->rows));
  SWE_RETURN_IF_ERROR(CheckSentences(data.target, table->rows));
  try {
    auto loss = [&](const StudentTable& w, const std::vector<size_t>& idx, size_t begin, size_t end) {
      return ContrastiveLossTensor(StudentVectors(w, data.source, idx, begin, end),
                                   StudentVectors(w, data.target, idx, begin, end), torch::Tensor(), options.tau, true);
    };
    Train({{n, loss, 1.0}}, options, {}, table, report);
  } catch (const std::exception& e) {
    return Internal(std::string("refine failed: ") + e.what());
  }
  return Status::Ok();
}

}  // namespace swe::trainer
