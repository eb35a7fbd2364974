#include "swe/eval/logreg.h"

#include <Eigen/Dense>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <deque>
#include <numeric>
#include <string>
#include <thread>

namespace swe::eval {
namespace {

using MatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using VectorD = Eigen::VectorXd;

// Runs fn(0..count-1) on up to `threads` threads; each call writes only its own outputs.
template <class Fn>
void ParallelFor(size_t count, int threads, Fn fn) {
  const size_t workers = std::min<size_t>(count, static_cast<size_t>(std::max(1, threads)));
  if (workers <= 1) {
    for (size_t i = 0; i < count; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (size_t t = 0; t < workers; ++t) {
    pool.emplace_back([&] {
      for (size_t i = next++; i < count; i = next++) fn(i);
    });
  }
  for (std::thread& t : pool) t.join();
}

// SplitMix64: a small generator with the same output everywhere.
struct Rng {
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

std::vector<size_t> AllRows(size_t n) {
  std::vector<size_t> rows(n);
  std::iota(rows.begin(), rows.end(), size_t{0});
  return rows;
}

// The objective on standardised rows: mean cross-entropy + lambda/2 |W|^2, and its gradient.
class Objective {
 public:
  Objective(const MatrixF& x, const std::vector<int>& y, int classes, double l2)
      : x_(x), y_(y), k_(classes), l2_(l2) {}

  double operator()(const VectorD& theta, VectorD* grad) const {
    const Eigen::Index d = x_.cols(), n = x_.rows();
    const Eigen::Map<const Eigen::MatrixXd> w(theta.data(), d, k_);
    const Eigen::MatrixXf wf = w.cast<float>();
    MatrixF z = x_ * wf;  // n x k
    double loss = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
      // Row i of z becomes P - Y (softmax probabilities minus the one-hot label).
      double m = -INFINITY;
      for (int c = 0; c < k_; ++c) m = std::max(m, static_cast<double>(z(i, c)) + theta[d * k_ + c]);
      double sum = 0, zy = 0;
      for (int c = 0; c < k_; ++c) {
        const double logit = static_cast<double>(z(i, c)) + theta[d * k_ + c];
        if (c == y_[i]) zy = logit;
        const double e = std::exp(logit - m);
        z(i, c) = static_cast<float>(e);
        sum += e;
      }
      loss += std::log(sum) + m - zy;
      for (int c = 0; c < k_; ++c) z(i, c) = static_cast<float>(z(i, c) / sum);
      z(i, y_[i]) -= 1.0f;
    }
    const double inv_n = 1.0 / static_cast<double>(n);
    grad->resize(theta.size());
    Eigen::Map<Eigen::MatrixXd> gw(grad->data(), d, k_);
    gw = (x_.transpose() * z).cast<double>() * inv_n + l2_ * w;
    for (int c = 0; c < k_; ++c) (*grad)[d * k_ + c] = z.col(c).cast<double>().sum() * inv_n;
    return loss * inv_n + 0.5 * l2_ * w.squaredNorm();
  }

 private:
  const MatrixF& x_;
  const std::vector<int>& y_;
  int k_;
  double l2_;
};

// L-BFGS (10 pairs) with a backtracking Armijo line search. Returns the iterations used.
int Minimize(const Objective& f, VectorD* theta, int max_iterations, double tolerance) {
  constexpr int kMemory = 10;
  std::deque<VectorD> s_list, y_list;
  std::deque<double> rho_list;
  VectorD g, g_new;
  double fx = f(*theta, &g);
  int iter = 0;
  for (; iter < max_iterations; ++iter) {
    if (g.lpNorm<Eigen::Infinity>() < tolerance) break;
    // Two-loop recursion: direction = -H g.
    VectorD q = g;
    std::vector<double> alpha(s_list.size());
    for (size_t j = s_list.size(); j-- > 0;) {
      alpha[j] = rho_list[j] * s_list[j].dot(q);
      q -= alpha[j] * y_list[j];
    }
    if (!s_list.empty()) q *= s_list.back().dot(y_list.back()) / y_list.back().squaredNorm();
    for (size_t j = 0; j < s_list.size(); ++j) {
      const double beta = rho_list[j] * y_list[j].dot(q);
      q += (alpha[j] - beta) * s_list[j];
    }
    VectorD dir = -q;
    double slope = g.dot(dir);
    if (!(slope < 0)) {  // not a descent direction: restart from steepest descent
      s_list.clear(), y_list.clear(), rho_list.clear();
      dir = -g;
      slope = -g.squaredNorm();
    }
    double step = s_list.empty() ? std::min(1.0, 1.0 / std::max(1e-12, g.norm())) : 1.0;
    VectorD next;
    double f_next = fx;
    bool moved = false;
    for (int tries = 0; tries < 40; ++tries, step *= 0.5) {
      next = *theta + step * dir;
      f_next = f(next, &g_new);
      if (f_next <= fx + 1e-4 * step * slope) {
        moved = true;
        break;
      }
    }
    if (!moved) break;  // no decrease possible at float precision: converged
    VectorD s = next - *theta, y = g_new - g;
    const double sy = s.dot(y);
    if (sy > 1e-12) {
      if (static_cast<int>(s_list.size()) == kMemory) s_list.pop_front(), y_list.pop_front(), rho_list.pop_front();
      s_list.push_back(std::move(s));
      y_list.push_back(std::move(y));
      rho_list.push_back(1.0 / sy);
    }
    const double decrease = fx - f_next;
    *theta = std::move(next);
    g.swap(g_new);
    fx = f_next;
    if (decrease <= 1e-13 * std::max(1.0, std::fabs(fx))) {
      ++iter;
      break;
    }
  }
  return iter;
}

// Lambda chosen by k-fold cross-validation over `rows`: the grid point with the most correct
// predictions summed over folds (ties: the stronger regularisation, tried first). Folds in parallel.
double ChooseL2(const Features& x, const std::vector<int>& labels, int classes, const std::vector<size_t>& rows,
                const ClassifyOptions& options, int threads, uint64_t seed, double* accuracy, Status* status) {
  const int k = std::max(2, options.inner_folds);
  const std::vector<int> fold = StratifiedFolds(labels, rows, k, seed);
  const size_t grid = options.l2_grid.size();
  std::vector<std::vector<double>> correct(k, std::vector<double>(grid, 0));
  std::vector<Status> statuses(k);
  ParallelFor(k, threads, [&](size_t f) {
    std::vector<size_t> train, test;
    for (size_t i = 0; i < rows.size(); ++i) (fold[i] == static_cast<int>(f) ? test : train).push_back(rows[i]);
    LogReg previous, model;
    for (size_t g = 0; g < grid; ++g) {
      LogRegOptions o;
      o.l2 = options.l2_grid[g];
      o.max_iterations = options.max_iterations;
      Status s = model.Fit(x, labels, classes, train, o, g == 0 ? nullptr : &previous);
      if (!s.ok()) {
        statuses[f] = s;
        return;
      }
      correct[f][g] = model.Accuracy(x, labels, test) * test.size();
      previous = model;
    }
  });
  for (const Status& s : statuses) {
    if (!s.ok()) {
      *status = s;
      return 0;
    }
  }
  size_t best = 0;
  double best_correct = -1;
  for (size_t g = 0; g < grid; ++g) {
    double sum = 0;
    for (int f = 0; f < k; ++f) sum += correct[f][g];
    if (sum > best_correct) best_correct = sum, best = g;
  }
  *accuracy = rows.empty() ? 0 : best_correct / rows.size();
  return options.l2_grid[best];
}

Status CheckInputs(const Features& x, const std::vector<int>& labels, int classes) {
  if (x.x.size() != x.n * size_t{x.d} || labels.size() != x.n) return InvalidArgument("features and labels differ in size");
  if (classes < 2) return InvalidArgument("classification needs at least two classes");
  for (int y : labels) {
    if (y < 0 || y >= classes) return InvalidArgument("label " + std::to_string(y) + " out of range");
  }
  return Status::Ok();
}

}  // namespace

std::vector<int> StratifiedFolds(const std::vector<int>& labels, const std::vector<size_t>& rows, int k, uint64_t seed) {
  std::vector<int> fold(rows.size(), 0);
  int max_label = -1;
  for (size_t r : rows) max_label = std::max(max_label, labels[r]);
  Rng rng{seed};
  int next_fold = 0;  // continues across classes so fold sizes differ by at most one
  for (int c = 0; c <= max_label; ++c) {
    std::vector<size_t> members;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (labels[rows[i]] == c) members.push_back(i);
    }
    for (size_t i = members.size(); i > 1; --i) std::swap(members[i - 1], members[rng.Next() % i]);  // Fisher-Yates
    for (size_t i : members) {
      fold[i] = next_fold;
      next_fold = (next_fold + 1) % k;
    }
  }
  return fold;
}

Status LogReg::Fit(const Features& x, const std::vector<int>& labels, int classes, const std::vector<size_t>& rows_in,
                   const LogRegOptions& options, const LogReg* warm) {
  SWE_RETURN_IF_ERROR(CheckInputs(x, labels, classes));
  const std::vector<size_t> rows = rows_in.empty() ? AllRows(x.n) : rows_in;
  if (rows.empty()) return InvalidArgument("no training rows");
  const uint32_t d = x.d;
  d_ = d;
  classes_ = classes;
  mean_.assign(d, 0);
  inv_std_.assign(d, 0);
  for (size_t r : rows) {
    for (uint32_t j = 0; j < d; ++j) mean_[j] += x.row(r)[j];
  }
  for (double& m : mean_) m /= rows.size();
  std::vector<double> var(d, 0);
  for (size_t r : rows) {
    for (uint32_t j = 0; j < d; ++j) {
      const double v = x.row(r)[j] - mean_[j];
      var[j] += v * v;
    }
  }
  for (uint32_t j = 0; j < d; ++j) {
    const double sd = std::sqrt(var[j] / rows.size());
    inv_std_[j] = sd > 1e-12 ? 1.0 / sd : 0.0;  // a constant feature carries nothing
  }
  MatrixF xs(rows.size(), d);
  std::vector<int> y(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const float* src = x.row(rows[i]);
    for (uint32_t j = 0; j < d; ++j) xs(i, j) = static_cast<float>((src[j] - mean_[j]) * inv_std_[j]);
    y[i] = labels[rows[i]];
  }
  VectorD theta = VectorD::Zero(static_cast<Eigen::Index>(d) * classes + classes);
  if (warm != nullptr && warm->d_ == d && warm->classes_ == classes) {
    theta = Eigen::Map<const VectorD>(warm->w_.data(), theta.size());
  }
  Objective objective(xs, y, classes, options.l2);
  iterations_ = Minimize(objective, &theta, options.max_iterations, options.gradient_tolerance);
  w_.assign(theta.data(), theta.data() + theta.size());
  for (double v : w_) {
    if (!std::isfinite(v)) return Internal("logistic regression diverged");
  }
  return Status::Ok();
}

int LogReg::Predict(const float* row) const {
  int best = 0;
  double best_score = 0;
  for (int c = 0; c < classes_; ++c) {
    double s = w_[size_t{d_} * classes_ + c];
    const double* w = w_.data() + size_t{d_} * c;
    for (uint32_t j = 0; j < d_; ++j) s += w[j] * ((row[j] - mean_[j]) * inv_std_[j]);
    if (c == 0 || s > best_score) best = c, best_score = s;
  }
  return best;
}

double LogReg::Accuracy(const Features& x, const std::vector<int>& labels, const std::vector<size_t>& rows_in) const {
  const std::vector<size_t> rows = rows_in.empty() ? AllRows(x.n) : rows_in;
  if (rows.empty()) return 0;
  size_t correct = 0;
  for (size_t r : rows) correct += Predict(x.row(r)) == labels[r];
  return static_cast<double>(correct) / rows.size();
}

Status CrossValidate(const Features& x, const std::vector<int>& labels, int classes, const ClassifyOptions& options,
                     ClassifyResult* out) {
  SWE_RETURN_IF_ERROR(CheckInputs(x, labels, classes));
  const int k = std::max(2, options.folds);
  const std::vector<size_t> all = AllRows(x.n);
  const std::vector<int> fold = StratifiedFolds(labels, all, k, options.seed);
  std::vector<double> test_acc(k), dev_acc(k), chosen(k);
  std::vector<Status> statuses(k);
  ParallelFor(k, options.threads, [&](size_t f) {
    std::vector<size_t> train, test;
    for (size_t i = 0; i < all.size(); ++i) (fold[i] == static_cast<int>(f) ? test : train).push_back(i);
    Status s;
    chosen[f] = ChooseL2(x, labels, classes, train, options, 1, options.seed + 1 + f, &dev_acc[f], &s);
    if (!s.ok()) {
      statuses[f] = s;
      return;
    }
    LogReg model;
    LogRegOptions o;
    o.l2 = chosen[f];
    o.max_iterations = options.max_iterations;
    statuses[f] = model.Fit(x, labels, classes, train, o);
    test_acc[f] = model.Accuracy(x, labels, test);
  });
  for (const Status& s : statuses) SWE_RETURN_IF_ERROR(s);
  *out = ClassifyResult();
  out->accuracy = std::accumulate(test_acc.begin(), test_acc.end(), 0.0) / k;
  out->dev_accuracy = std::accumulate(dev_acc.begin(), dev_acc.end(), 0.0) / k;
  out->chosen_l2 = chosen;
  out->train = x.n - x.n / k;
  out->test = x.n;
  return Status::Ok();
}

Status TrainDevTest(const Features& train, const std::vector<int>& train_labels, const Features& dev,
                    const std::vector<int>& dev_labels, const Features& test, const std::vector<int>& test_labels,
                    int classes, const ClassifyOptions& options, ClassifyResult* out) {
  SWE_RETURN_IF_ERROR(CheckInputs(train, train_labels, classes));
  SWE_RETURN_IF_ERROR(CheckInputs(dev, dev_labels, classes));
  SWE_RETURN_IF_ERROR(CheckInputs(test, test_labels, classes));
  if (dev.d != train.d || test.d != train.d) return InvalidArgument("train, dev and test differ in dimensions");
  // Two warm-started chains over alternate grid points when two threads are available.
  const size_t grid = options.l2_grid.size();
  const int chains = std::max(1, std::min<int>(options.threads, static_cast<int>(grid)));
  std::vector<LogReg> models(grid);
  std::vector<double> dev_acc(grid);
  std::vector<Status> statuses(grid);
  ParallelFor(chains, chains, [&](size_t chain) {
    const LogReg* warm = nullptr;
    for (size_t g = chain; g < grid; g += chains) {
      LogRegOptions o;
      o.l2 = options.l2_grid[g];
      o.max_iterations = options.max_iterations;
      statuses[g] = models[g].Fit(train, train_labels, classes, {}, o, warm);
      if (!statuses[g].ok()) return;
      dev_acc[g] = models[g].Accuracy(dev, dev_labels, {});
      warm = &models[g];
    }
  });
  for (const Status& s : statuses) SWE_RETURN_IF_ERROR(s);
  size_t best = 0;
  for (size_t g = 1; g < grid; ++g) {
    if (dev_acc[g] > dev_acc[best]) best = g;
  }
  *out = ClassifyResult();
  out->dev_accuracy = dev_acc[best];
  out->accuracy = models[best].Accuracy(test, test_labels, {});
  out->chosen_l2 = {options.l2_grid[best]};
  out->train = train.n;
  out->test = test.n;
  return Status::Ok();
}

Status TrainTest(const Features& train, const std::vector<int>& train_labels, const Features& test,
                 const std::vector<int>& test_labels, int classes, const ClassifyOptions& options,
                 ClassifyResult* out) {
  SWE_RETURN_IF_ERROR(CheckInputs(train, train_labels, classes));
  SWE_RETURN_IF_ERROR(CheckInputs(test, test_labels, classes));
  if (test.d != train.d) return InvalidArgument("train and test differ in dimensions");
  Status status;
  double dev = 0;
  const double l2 = ChooseL2(train, train_labels, classes, AllRows(train.n), options, options.threads,
                             options.seed, &dev, &status);
  SWE_RETURN_IF_ERROR(status);
  LogReg model;
  LogRegOptions o;
  o.l2 = l2;
  o.max_iterations = options.max_iterations;
  SWE_RETURN_IF_ERROR(model.Fit(train, train_labels, classes, {}, o));
  *out = ClassifyResult();
  out->dev_accuracy = dev;
  out->accuracy = model.Accuracy(test, test_labels, {});
  out->chosen_l2 = {l2};
  out->train = train.n;
  out->test = test.n;
  return Status::Ok();
}

}  // namespace swe::eval
