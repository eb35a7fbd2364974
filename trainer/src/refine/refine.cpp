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

}  // namespace

void Train(const std::vector<LossTerm>& terms, const RefineOptions& options, ExtraParams extra, Matrix* table,
           RefineReport* report) {
  TrainState st;
  st.rng.seed(options.seed);
  Split(terms, options, &st);
  size_t largest = 0;
  for (size_t t = 0; t < terms.size(); ++t) {
    if (st.splits[t].train.size() > st.splits[largest].train.size()) largest = t;
  }
  torch::manual_seed(options.seed);
  const int64_t rows = static_cast<int64_t>(table->rows), d = static_cast<int64_t>(table->cols);
  st.table = ToTensor(*table, torch::Device(options.device)).requires_grad_(true);
  if (options.lazy_adam) {
    st.lazy_m = torch::zeros_like(st.table).detach();
    st.lazy_v = torch::zeros_like(st.table).detach();
  }
  st.extra = extra.tensors;
  const std::string key = options.checkpoint.empty() ? "" : CheckpointKey(terms, options, extra, *table);
  std::string why;
  const bool resumed = !options.checkpoint.empty() && ReadTrainState(options.checkpoint, key, &st, &why);
  if (!why.empty() && options.log) options.log("refine: " + options.checkpoint + " ignored: " + why);
  // Lazy Adam: the table gets sparse gradients and its own row-wise Adam; torch's Adam keeps the rest.
  const StudentTable student{st.table, options.lazy_adam};
  std::vector<torch::Tensor> params = extra.tensors;
  if (!options.lazy_adam) params.insert(params.begin(), st.table);
  std::unique_ptr<torch::optim::Adam> adam;
  if (!params.empty()) adam = std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(options.lr));
  if (resumed && adam && !st.adam.empty()) LoadAdam(st.adam, adam.get());
  LazyAdam lazy{st.lazy_m, st.lazy_v, options.lr};
  const uint64_t steps_per_epoch = (st.splits[largest].train.size() - 2) / options.batch_size + 1;
  if (!resumed) {
    st.report.initial_heldout = st.report.best_heldout =
        EvaluateAll(terms, st.splits, student, options.batch_size, &st.report.initial_parts);
    st.report.best_parts = st.report.initial_parts;
    st.best = st.table.detach().clone();
    for (const torch::Tensor& e : st.extra) st.best_extra.push_back(e.detach().clone());
    st.done = options.max_epochs == 0;  // scoring only: the held-out loss of the table as it is
  } else if (options.log) {
    options.log(st.done ? "refine: resumed from the checkpoint: training had finished (" +
                              std::to_string(st.report.heldout_loss.size()) + " epochs)"
                        : "refine: resumed from the checkpoint at epoch " + std::to_string(st.epoch) + ", step " +
                              std::to_string(st.batch) + " of " + std::to_string(steps_per_epoch));
  }
  const uint64_t resumed_at = resumed ? st.step : 0;
  auto finish = [&](bool interrupted) {
    *report = st.report;
    report->steps = st.step;
    report->resumed_at = resumed_at;
    report->interrupted = interrupted;
  };
  // At an epoch's end the checkpoint is written unless the last one was written less than ten times its
  // own writing time ago, so that writing costs at most about a tenth of the time (a large table on a
  // GPU takes longer to write than an epoch); when stopping, always.
  auto last_written = std::chrono::steady_clock::now();
  double writing = 0;  // seconds the last write took
  auto save = [&](bool always) {
    auto now = std::chrono::steady_clock::now();
    if (options.checkpoint.empty() || (!always && std::chrono::duration<double>(now - last_written).count() < 10 * writing)) {
      return;
    }
    if (adam) st.adam = SaveAdam(*adam);
    const Status s = WriteTrainState(options.checkpoint, key, st);
    if (!s.ok()) throw std::runtime_error("cannot save the checkpoint: " + s.message());
    last_written = std::chrono::steady_clock::now();
    writing = std::chrono::duration<double>(last_written - now).count();
  };
  const uint64_t planned_steps = static_cast<uint64_t>(options.max_epochs) * steps_per_epoch;
  util::Progress progress("refine", planned_steps, "steps");
  progress.SetStart(st.step);  // a resumed run: its ETA from the steps left
  const auto started = std::chrono::steady_clock::now();
  while (!st.done) {
    const auto epoch_started = std::chrono::steady_clock::now();
    if (st.batch == 0) {
      for (TermSplit& s : st.splits) s.pos = s.train.size();  // reshuffled at their first batch
    }
    while (st.batch < steps_per_epoch) {
      if (adam) adam->zero_grad();
      st.table.mutable_grad() = torch::Tensor();
      torch::Tensor l;
      for (size_t t = 0; t < terms.size(); ++t) {
        TermSplit& s = st.splits[t];
        if (s.pos + 2 > s.train.size()) {
          std::shuffle(s.train.begin(), s.train.end(), st.rng);
          s.pos = 0;
        }
        const size_t begin = s.pos, end = std::min(s.train.size(), begin + options.batch_size);
        s.pos = end;
        torch::Tensor term = terms[t].weight * terms[t].loss(student, s.train, begin, end);
        l = l.defined() ? l + term : term;
      }
      l.backward();
      if (options.lr_decay) {  // a function of the step alone, so a resumed run takes the same rates
        const double rate = options.lr * (1.0 - static_cast<double>(st.step) / static_cast<double>(planned_steps));
        lazy.lr = rate;
        if (adam) {
          for (auto& group : adam->param_groups()) static_cast<torch::optim::AdamOptions&>(group.options()).lr(rate);
        }
      }
      torch::Tensor touched, grads;
      MaskFrozen(st.table, options.frozen_rows, &touched, &grads);
      if (options.lazy_adam) {
        if (options.clip_norm > 0) ClipSparse(grads, extra.tensors, options.clip_norm);
        if (touched.defined() && touched.numel() > 0) lazy.Step(st.table, touched, grads, static_cast<int64_t>(st.step + 1));
      } else if (options.clip_norm > 0) {
        torch::nn::utils::clip_grad_norm_(params, options.clip_norm);
      }
      if (adam) adam->step();
      if (extra.after_step) extra.after_step();
      st.epoch_loss += l.item<double>();
      ++st.batch;
      progress.Update(++st.step);
      if (st.batch < steps_per_epoch && options.stop && options.stop()) {  // (at the epoch's end: below)
        save(true);
        return finish(true);
      }
    }
    std::vector<double> parts;
    const double held_loss = EvaluateAll(terms, st.splits, student, options.batch_size, &parts);
    RefineReport& r = st.report;
    r.train_loss.push_back(st.epoch_loss / static_cast<double>(steps_per_epoch));
    r.heldout_loss.push_back(held_loss);
    if (options.log) {
      const auto now = std::chrono::steady_clock::now();
      char line[192];  // the epoch's own time (held-out evaluation included), then the time since refine began
      std::snprintf(line, sizeof line, "refine: epoch %u: train loss %.5f, held-out loss %.5f (epoch %.1f s, total %.1f s)",
                    st.epoch, r.train_loss.back(), held_loss,
                    std::chrono::duration<double>(now - epoch_started).count(),
                    std::chrono::duration<double>(now - started).count());
      options.log(line);
    }
    if (held_loss < r.best_heldout) {
      r.best_heldout = held_loss;
      r.best_parts = parts;
      r.best_epoch = st.epoch;
      st.best = st.table.detach().clone();
      for (size_t i = 0; i < st.extra.size(); ++i) st.best_extra[i] = st.extra[i].detach().clone();
      st.since_best = 0;
    } else if (++st.since_best >= options.patience) {
      st.done = true;
    }
    st.done = st.done || st.epoch == options.max_epochs;
    ++st.epoch;
    st.batch = 0;
    st.epoch_loss = 0;
    const bool stop = !st.done && options.stop && options.stop();
    save(stop);
    if (stop) return finish(true);
  }
  const torch::Tensor best = st.best.to(torch::kCPU).contiguous();
  std::copy(best.data_ptr<float>(), best.data_ptr<float>() + rows * d, table->data.begin());
  torch::NoGradGuard guard;
  for (size_t i = 0; i < st.extra.size(); ++i) st.extra[i].copy_(st.best_extra[i]);
  finish(false);
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
