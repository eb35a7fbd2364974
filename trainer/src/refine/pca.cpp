#include "refine/pca.h"

#include <torch/torch.h>

#include <cmath>

namespace swe::trainer {

Status FitPca(const Matrix& x, const PcaOptions& options, PcaResult* out, const std::vector<double>* weights) {
  const int64_t n = static_cast<int64_t>(x.rows), d = static_cast<int64_t>(x.cols);
  if (n < 2 || d < 1) return InvalidArgument("PCA needs at least 2 rows (got " + std::to_string(n) + ")");
  int64_t r = options.remove < 0 ? d / 100 : options.remove;
  if (r >= d) return InvalidArgument("PCA: removing " + std::to_string(r) + " of " + std::to_string(d) + " dims");
  int64_t k = std::min<int64_t>(options.out_dims, d - r);
  if (k < 1) return InvalidArgument("PCA: output dims must be at least 1");
  double total = static_cast<double>(n);
  if (weights) {
    total = 0;
    bool valid = weights->size() == x.rows;
    for (double w : *weights) {
      valid = valid && w >= 0 && std::isfinite(w);
      total += w;
    }
    if (!valid || !(total > 0)) return InvalidArgument("PCA: weights must be one per row, finite, >= 0, not all 0");
  }
  try {
    torch::NoGradGuard guard;
    torch::Tensor X = torch::from_blob(const_cast<float*>(x.data.data()), {n, d}, torch::kFloat32).to(torch::kFloat64);
    torch::Tensor w = weights ? torch::tensor(*weights, torch::kFloat64).unsqueeze(1) : torch::ones({n, 1}, torch::kFloat64);
    torch::Tensor mean = (X * w).sum(0) / total;
    torch::Tensor Xc = X - mean;
    torch::Tensor cov = torch::matmul(Xc.t(), Xc * w) / total;
    auto [evals, evecs] = at::linalg_eigh(cov, "L");  // ascending (torch 2.11's torch.h: no torch::linalg)
    evals = evals.flip(0);
    evecs = evecs.flip(1);  // columns by decreasing variance
    // Deterministic sign: the largest-magnitude entry of each direction is positive.
    torch::Tensor idx = evecs.abs().argmax(0);
    torch::Tensor signs = evecs.gather(0, idx.unsqueeze(0)).sign();
    signs = torch::where(signs == 0, torch::ones_like(signs), signs);
    evecs = evecs * signs;
    torch::Tensor kept = evecs.narrow(1, r, k).t().contiguous().to(torch::kFloat32);  // k x d
    out->in_dims = static_cast<uint32_t>(d);
    out->out_dims = static_cast<uint32_t>(k);
    out->removed = static_cast<uint32_t>(r);
    torch::Tensor mean32 = mean.to(torch::kFloat32).contiguous();
    out->mean.assign(mean32.data_ptr<float>(), mean32.data_ptr<float>() + d);
    out->components.rows = k;
    out->components.cols = d;
    out->components.data.assign(kept.data_ptr<float>(), kept.data_ptr<float>() + k * d);
    torch::Tensor ev = evals.contiguous();
    const double* e = ev.data_ptr<double>();
    out->removed_variances.assign(e, e + r);
    out->variances.assign(e + r, e + r + k);
  } catch (const std::exception& e) {
    return Internal(std::string("PCA failed: ") + e.what());
  }
  return Status::Ok();
}

Status ApplyPca(const PcaResult& pca, const Matrix& in, Matrix* out) {
  if (in.cols != pca.in_dims) return InvalidArgument("ApplyPca: input has the wrong number of columns");
  const int64_t n = static_cast<int64_t>(in.rows), d = pca.in_dims, k = pca.out_dims;
  torch::NoGradGuard guard;
  torch::Tensor X = torch::from_blob(const_cast<float*>(in.data.data()), {n, d}, torch::kFloat32);
  torch::Tensor mean = torch::from_blob(const_cast<float*>(pca.mean.data()), {d}, torch::kFloat32);
  torch::Tensor W = torch::from_blob(const_cast<float*>(pca.components.data.data()), {k, d}, torch::kFloat32);
  torch::Tensor Y = torch::matmul(X - mean, W.t()).contiguous();
  out->rows = n;
  out->cols = k;
  out->data.assign(Y.data_ptr<float>(), Y.data_ptr<float>() + n * k);
  return Status::Ok();
}

}  // namespace swe::trainer
