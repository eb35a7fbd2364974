#include "refine.h"

#include <torch/torch.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "progress.h"

namespace swe::trainer {
namespace {
namespace F = torch::nn::functional;

// Rows of a B x B matrix without its diagonal: B x (B - 1).
torch::Tensor OffDiagonal(const torch::Tensor& m) {
  const int64_t b = m.size(0);
  return m.flatten().narrow(0, 1, b * b - 1).view({b - 1, b + 1}).narrow(1, 0, b).reshape({b, b - 1});
}

// Eq. 2-3 (see refine.h): batch mean of KL(p_i || q_i) over the in-batch cosine similarities.
torch::Tensor KdLossTensor(const torch::Tensor& teacher, const torch::Tensor& student, double tau) {
  auto norm = F::NormalizeFuncOptions().p(2).dim(1).eps(1e-12);
  torch::Tensor t = F::normalize(teacher, norm), s = F::normalize(student, norm);
  torch::Tensor logp = torch::log_softmax(OffDiagonal(torch::matmul(t, t.t()) / tau), 1);
  torch::Tensor logq = torch::log_softmax(OffDiagonal(torch::matmul(s, s.t()) / tau), 1);
  return (logp.exp() * (logp - logq)).sum(1).mean();
}

struct Batches {
  torch::Tensor ids, offsets, teacher_rows;
};

Batches MakeBatch(const RefineData& data, const std::vector<size_t>& idx, size_t begin, size_t end,
                  const torch::Device& device) {
  std::vector<int64_t> ids, offsets, rows;
  for (size_t i = begin; i < end; ++i) {
    offsets.push_back(static_cast<int64_t>(ids.size()));
    for (uint32_t r : data.sentences[idx[i]]) ids.push_back(r);
    rows.push_back(static_cast<int64_t>(idx[i]));
  }
  auto opts = torch::TensorOptions().dtype(torch::kInt64);
  return {torch::tensor(ids, opts).to(device), torch::tensor(offsets, opts).to(device),
          torch::tensor(rows, opts).to(device)};
}

torch::Tensor StudentVectors(const torch::Tensor& table, const Batches& b) {
  return F::embedding_bag(b.ids, table, F::EmbeddingBagFuncOptions().offsets(b.offsets).mode(torch::kMean));
}

// Mean held-out loss over consecutive batches (a trailing batch of one sentence joins the previous).
double Evaluate(const RefineData& data, const std::vector<size_t>& idx, const torch::Tensor& table,
                const torch::Tensor& teacher, uint32_t batch, double tau, const torch::Device& device) {
  torch::NoGradGuard guard;
  double total = 0;
  int batches = 0;
  for (size_t start = 0; start + 1 < idx.size(); start += batch) {
    size_t end = std::min(idx.size(), start + batch);
    if (idx.size() - end == 1) end = idx.size();
    Batches b = MakeBatch(data, idx, start, end, device);
    total += KdLossTensor(teacher.index_select(0, b.teacher_rows), StudentVectors(table, b), tau).item<double>();
    ++batches;
    if (end == idx.size()) break;
  }
  return batches ? total / batches : 0.0;
}

}  // namespace

double KdLoss(const float* teacher, const float* student, uint32_t n, uint32_t dt, uint32_t ds, double tau) {
  torch::NoGradGuard guard;
  auto t = torch::from_blob(const_cast<float*>(teacher), {n, dt}, torch::kFloat32).to(torch::kFloat64);
  auto s = torch::from_blob(const_cast<float*>(student), {n, ds}, torch::kFloat32).to(torch::kFloat64);
  return KdLossTensor(t, s, tau).item<double>();
}

Status RefineKd(const RefineData& data, const RefineOptions& options, Matrix* table, RefineReport* report) {
  const size_t n = data.sentences.size();
  if (data.teacher.rows != n) return InvalidArgument("refine: one teacher vector per sentence is needed");
  if (n < 4) return InvalidArgument("refine: needs at least 4 sentences (got " + std::to_string(n) + ")");
  if (options.batch_size < 2) return InvalidArgument("refine: batch size must be at least 2");
  for (const auto& s : data.sentences) {
    if (s.empty()) return InvalidArgument("refine: empty sentence");
    for (uint32_t r : s) {
      if (r >= table->rows) return InvalidArgument("refine: row out of range");
    }
  }
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
  try {
    torch::manual_seed(options.seed);
    torch::Device device(options.device);
    const int64_t rows = static_cast<int64_t>(table->rows), d = static_cast<int64_t>(table->cols);
    torch::Tensor weights =
        torch::from_blob(table->data.data(), {rows, d}, torch::kFloat32).clone().to(device).requires_grad_(true);
    torch::Tensor teacher = torch::from_blob(const_cast<float*>(data.teacher.data.data()),
                                             {static_cast<int64_t>(n), static_cast<int64_t>(data.teacher.cols)},
                                             torch::kFloat32).to(device);
    torch::optim::Adam adam({weights}, torch::optim::AdamOptions(options.lr));
    report->initial_heldout = report->best_heldout =
        Evaluate(data, heldout, weights, teacher, options.batch_size, options.tau, device);
    torch::Tensor best = weights.detach().clone();
    uint32_t since_best = 0;
    const uint64_t steps_per_epoch = train.size() / options.batch_size + 1;
    Progress progress("refine", static_cast<uint64_t>(options.max_epochs) * steps_per_epoch, "steps");
    uint64_t step = 0;
    for (uint32_t epoch = 1; epoch <= options.max_epochs; ++epoch) {
      std::shuffle(train.begin(), train.end(), rng);
      double total = 0;
      int batches = 0;
      for (size_t start = 0; start + 2 <= train.size(); start += options.batch_size) {
        size_t end = std::min(train.size(), start + options.batch_size);
        Batches b = MakeBatch(data, train, start, end, device);
        adam.zero_grad();
        torch::Tensor loss =
            KdLossTensor(teacher.index_select(0, b.teacher_rows), StudentVectors(weights, b), options.tau);
        loss.backward();
        if (options.clip_norm > 0) torch::nn::utils::clip_grad_norm_(std::vector<torch::Tensor>{weights}, options.clip_norm);
        adam.step();
        total += loss.item<double>();
        ++batches;
        progress.Update(++step);
      }
      double held_loss = Evaluate(data, heldout, weights, teacher, options.batch_size, options.tau, device);
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
  } catch (const std::exception& e) {
    return Internal(std::string("refine failed: ") + e.what());
  }
  return Status::Ok();
}

}  // namespace swe::trainer
