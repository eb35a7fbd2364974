#include "refine.h"

#include <torch/torch.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <random>

#include "swe/util/progress.h"

namespace swe::trainer {
namespace {
namespace F = torch::nn::functional;

torch::Tensor Normalize(const torch::Tensor& m) {
  return F::normalize(m, F::NormalizeFuncOptions().p(2).dim(1).eps(1e-12));
}

// Rows of a B x B matrix without its diagonal: B x (B - 1).
torch::Tensor OffDiagonal(const torch::Tensor& m) {
  const int64_t b = m.size(0);
  return m.flatten().narrow(0, 1, b * b - 1).view({b - 1, b + 1}).narrow(1, 0, b).reshape({b, b - 1});
}

// Eq. 2-3 (see refine.h): batch mean of KL(p_i || q_i) over the in-batch cosine similarities.
torch::Tensor KdLossTensor(const torch::Tensor& teacher, const torch::Tensor& student, double tau) {
  torch::Tensor t = Normalize(teacher), s = Normalize(student);
  torch::Tensor logp = torch::log_softmax(OffDiagonal(torch::matmul(t, t.t()) / tau), 1);
  torch::Tensor logq = torch::log_softmax(OffDiagonal(torch::matmul(s, s.t()) / tau), 1);
  return (logp.exp() * (logp - logq)).sum(1).mean();
}

// Eq. 4-5 (see refine.h): symmetric InfoNCE over the in-batch cosine similarities of x and y.
torch::Tensor ContrastiveLossTensor(const torch::Tensor& x, const torch::Tensor& y, double tau) {
  torch::Tensor sim = torch::matmul(Normalize(x), Normalize(y).t()) / tau;
  torch::Tensor labels = torch::arange(sim.size(0), torch::TensorOptions().dtype(torch::kInt64).device(sim.device()));
  return 0.5 * (F::cross_entropy(sim, labels) + F::cross_entropy(sim.t(), labels));
}

// Student sentence vectors (the mean of their rows, as at inference) of sentences[idx[begin..end)].
torch::Tensor StudentVectors(const torch::Tensor& table, const std::vector<std::vector<uint32_t>>& sentences,
                             const std::vector<size_t>& idx, size_t begin, size_t end) {
  std::vector<int64_t> ids, offsets;
  for (size_t i = begin; i < end; ++i) {
    offsets.push_back(static_cast<int64_t>(ids.size()));
    for (uint32_t r : sentences[idx[i]]) ids.push_back(r);
  }
  auto opts = torch::TensorOptions().dtype(torch::kInt64);
  return F::embedding_bag(torch::tensor(ids, opts).to(table.device()), table,
                          F::EmbeddingBagFuncOptions().offsets(torch::tensor(offsets, opts).to(table.device()))
                              .mode(torch::kMean));
}

torch::Tensor Rows(const std::vector<size_t>& idx, size_t begin, size_t end, const torch::Device& device) {
  std::vector<int64_t> rows(idx.begin() + static_cast<ptrdiff_t>(begin), idx.begin() + static_cast<ptrdiff_t>(end));
  return torch::tensor(rows, torch::TensorOptions().dtype(torch::kInt64)).to(device);
}

// The loss of the examples idx[begin..end) (at least 2) for the table.
using BatchLoss = std::function<torch::Tensor(const torch::Tensor& table, const std::vector<size_t>& idx,
                                              size_t begin, size_t end)>;

// Mean held-out loss over consecutive batches (a trailing batch of one example joins the previous).
double Evaluate(const BatchLoss& loss, const std::vector<size_t>& idx, const torch::Tensor& table, uint32_t batch) {
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

// The training loop both methods share: a seeded held-out split of the n examples, Adam with
// gradient-norm clipping over shuffled batches, the held-out loss after every epoch, early stopping,
// and the best table copied back into `table`. Torch errors are thrown (callers catch them).
void Train(size_t n, const BatchLoss& loss, const RefineOptions& options, Matrix* table, RefineReport* report) {
  *report = RefineReport();
  std::mt19937_64 rng(options.seed);
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  size_t held = std::max<size_t>(2, static_cast<size_t>(options.heldout * static_cast<double>(n) + 0.5));
  if (held > n - 2) held = n - 2;
  std::vector<size_t> heldout(order.begin(), order.begin() + held), train(order.begin() + held, order.end());
  report->train_sentences = train.size();
  report->heldout_sentences = heldout.size();
  torch::manual_seed(options.seed);
  const int64_t rows = static_cast<int64_t>(table->rows), d = static_cast<int64_t>(table->cols);
  torch::Tensor weights = torch::from_blob(table->data.data(), {rows, d}, torch::kFloat32)
                              .clone().to(torch::Device(options.device)).requires_grad_(true);
  torch::optim::Adam adam({weights}, torch::optim::AdamOptions(options.lr));
  report->initial_heldout = report->best_heldout = Evaluate(loss, heldout, weights, options.batch_size);
  torch::Tensor best = weights.detach().clone();
  uint32_t since_best = 0;
  const uint64_t steps_per_epoch = train.size() / options.batch_size + 1;
  util::Progress progress("refine", static_cast<uint64_t>(options.max_epochs) * steps_per_epoch, "steps");
  uint64_t step = 0;
  for (uint32_t epoch = 1; epoch <= options.max_epochs; ++epoch) {
    std::shuffle(train.begin(), train.end(), rng);
    double total = 0;
    int batches = 0;
    for (size_t start = 0; start + 2 <= train.size(); start += options.batch_size) {
      size_t end = std::min(train.size(), start + options.batch_size);
      adam.zero_grad();
      torch::Tensor l = loss(weights, train, start, end);
      l.backward();
      if (options.clip_norm > 0) torch::nn::utils::clip_grad_norm_(std::vector<torch::Tensor>{weights}, options.clip_norm);
      adam.step();
      total += l.item<double>();
      ++batches;
      progress.Update(++step);
    }
    double held_loss = Evaluate(loss, heldout, weights, options.batch_size);
    report->train_loss.push_back(batches ? total / batches : 0.0);
    report->heldout_loss.push_back(held_loss);
    if (held_loss < report->best_heldout) {
      report->best_heldout = held_loss;
      report->best_epoch = epoch;
      best = weights.detach().clone();
      since_best = 0;
    } else if (++since_best >= options.patience) {
      break;
    }
  }
  best = best.to(torch::kCPU).contiguous();
  std::copy(best.data_ptr<float>(), best.data_ptr<float>() + rows * d, table->data.begin());
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

Status CheckCommon(size_t n, const char* what, const RefineOptions& options) {
  if (n < 4) return InvalidArgument(std::string("refine: needs at least 4 ") + what + " (got " + std::to_string(n) + ")");
  if (options.batch_size < 2) return InvalidArgument("refine: batch size must be at least 2");
  return Status::Ok();
}

}  // namespace

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
  return ContrastiveLossTensor(a, b, tau).item<double>();
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
    auto loss = [&](const torch::Tensor& w, const std::vector<size_t>& idx, size_t begin, size_t end) {
      return KdLossTensor(teacher.index_select(0, Rows(idx, begin, end, device)),
                          StudentVectors(w, data.sentences, idx, begin, end), options.tau);
    };
    Train(n, loss, options, table, report);
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
    auto loss = [&](const torch::Tensor& w, const std::vector<size_t>& idx, size_t begin, size_t end) {
      return ContrastiveLossTensor(StudentVectors(w, data.source, idx, begin, end),
                                   StudentVectors(w, data.target, idx, begin, end), options.tau);
    };
    Train(n, loss, options, table, report);
  } catch (const std::exception& e) {
    return Internal(std::string("refine failed: ") + e.what());
  }
  return Status::Ok();
}

}  // namespace swe::trainer
