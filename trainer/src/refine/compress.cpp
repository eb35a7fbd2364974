#include "refine/compress.h"

#include <torch/torch.h>

#include <random>

#include "refine/refine_internal.h"

namespace swe::trainer {
namespace {

// −ΔR of z (unit rows taken inside) for the clusters' row indices `groups`.
torch::Tensor McrLossTensor(const torch::Tensor& z, const std::vector<torch::Tensor>& groups, double epsilon) {
  torch::Tensor zn = Normalize(z);
  const int64_t m = zn.size(0), k = zn.size(1);
  const double e2 = epsilon * epsilon;
  torch::Tensor eye = torch::eye(k, zn.options());
  auto rate = [&](const torch::Tensor& rows) {
    const double count = static_cast<double>(rows.size(0));
    return 0.5 * torch::logdet(eye + (static_cast<double>(k) / (count * e2)) * torch::matmul(rows.t(), rows));
  };
  torch::Tensor compressed = torch::zeros({}, zn.options());
  for (const torch::Tensor& g : groups) {
    if (g.numel() == 0) continue;
    compressed = compressed + (static_cast<double>(g.numel()) / static_cast<double>(m)) * rate(zn.index_select(0, g));
  }
  return compressed - rate(zn);
}

// The row indices of each of `classes` clusters.
std::vector<torch::Tensor> Groups(const std::vector<uint32_t>& labels, uint32_t classes, const torch::Device& device) {
  std::vector<std::vector<int64_t>> rows(classes);
  for (size_t i = 0; i < labels.size(); ++i) rows[labels[i]].push_back(static_cast<int64_t>(i));
  std::vector<torch::Tensor> out;
  for (const auto& r : rows) out.push_back(torch::tensor(r, torch::kInt64).to(device));
  return out;
}

}  // namespace

double McrLoss(const float* z, const uint32_t* labels, uint32_t m, uint32_t k, uint32_t classes, double epsilon) {
  torch::NoGradGuard guard;
  torch::Tensor zt = torch::from_blob(const_cast<float*>(z), {m, k}, torch::kFloat32).to(torch::kFloat64);
  return McrLossTensor(zt, Groups(std::vector<uint32_t>(labels, labels + m), classes, torch::kCPU), epsilon)
      .item<double>();
}

Status KMeans(const Matrix& x, uint32_t k, uint32_t iterations, uint64_t seed, std::vector<uint32_t>* labels) {
  if (k == 0 || x.rows < k) return InvalidArgument("k-means: needs at least as many rows as clusters");
  torch::NoGradGuard guard;
  torch::Tensor xn = Normalize(ToTensor(x, torch::kCPU));
  std::mt19937_64 rng(seed);
  std::vector<int64_t> picked = {static_cast<int64_t>(rng() % x.rows)};
  torch::Tensor nearest = 1 - torch::matmul(xn, xn[picked[0]]);  // cosine distance to the closest centre
  while (picked.size() < k) {  // k-means++: the next centre with probability ∝ distance²
    torch::Tensor p = nearest.clamp_min(0).pow(2).to(torch::kFloat64).contiguous();
    std::vector<double> w(p.data_ptr<double>(), p.data_ptr<double>() + p.numel());
    std::discrete_distribution<int64_t> pick(w.begin(), w.end());
    picked.push_back(pick(rng));
    nearest = torch::minimum(nearest, 1 - torch::matmul(xn, xn[picked.back()]));
  }
  torch::Tensor centres = xn.index_select(0, torch::tensor(picked, torch::kInt64));
  torch::Tensor assign;
  for (uint32_t it = 0; it < iterations; ++it) {
    assign = torch::matmul(xn, centres.t()).argmax(1);
    torch::Tensor sums = torch::zeros_like(centres).index_add_(0, assign, xn);
    torch::Tensor sizes = torch::bincount(assign, {}, k).unsqueeze(1);
    // An emptied cluster keeps its centre.
    centres = torch::where(sizes > 0, Normalize(sums), centres);
  }
  assign = torch::matmul(xn, centres.t()).argmax(1).contiguous();
  labels->assign(assign.data_ptr<int64_t>(), assign.data_ptr<int64_t>() + assign.numel());
  return Status::Ok();
}

Status FitAbtt(const Matrix& table, const std::vector<double>& counts, uint32_t remove, PcaResult* out) {
  const uint64_t d = table.cols;
  if (remove == 0 || remove >= d) {
    return InvalidArgument("compress: remove must be in 1.." + std::to_string(d - 1) + " (got " + std::to_string(remove) + ")");
  }
  PcaOptions po;
  po.out_dims = remove;
  po.remove = 0;
  PcaResult top;
  SWE_RETURN_IF_ERROR(FitPca(table, po, &top, &counts));
  *out = top;
  out->out_dims = static_cast<uint32_t>(d);
  out->components.rows = d;
  out->components.data.assign(d * d, 0.0f);
  for (uint64_t i = 0; i < d; ++i) {
    for (uint64_t j = 0; j < d; ++j) {
      double dot = 0;
      for (uint32_t k = 0; k < remove; ++k) dot += double{top.components.row(k)[i]} * top.components.row(k)[j];
      out->components.row(i)[j] = static_cast<float>((i == j ? 1.0 : 0.0) - dot);
    }
  }
  return Status::Ok();
}

Status FitCompression(const Matrix& x, const std::vector<uint32_t>* given, const CompressOptions& options,
                      PcaResult* out, CompressReport* report) {
  *report = CompressReport();
  if (options.method == CompressMethod::kAbtt) return InvalidArgument("compress: abtt is fitted by FitAbtt");
  if (options.dims == 0 || options.dims > x.cols) {
    return InvalidArgument("compress: dims must be in 1.." + std::to_string(x.cols) + " (got " +
                           std::to_string(options.dims) + ")");
  }
  PcaOptions po;
  po.out_dims = options.dims;
  po.remove = 0;
  SWE_RETURN_IF_ERROR(FitPca(x, po, out));
  if (options.method != CompressMethod::kMcr2) return Status::Ok();
  std::vector<uint32_t> labels;
  if (given) {
    labels = *given;
    if (labels.size() != x.rows) return InvalidArgument("compress: one label per sentence is needed");
  } else {
    SWE_RETURN_IF_ERROR(KMeans(x, options.clusters, 20, options.seed, &labels));
  }
  report->cluster_sizes.assign(options.clusters, 0);
  for (uint32_t l : labels) {
    if (l >= options.clusters) return InvalidArgument("compress: a label is not below the number of clusters");
    ++report->cluster_sizes[l];
  }
  try {
    torch::Device device(options.device);
    torch::manual_seed(options.seed);
    torch::Tensor mean = torch::tensor(out->mean).to(device);
    torch::Tensor centred = ToTensor(x, device) - mean;
    const std::vector<torch::Tensor> members = Groups(labels, options.clusters, device);
    torch::Tensor p = ToTensor(out->components, device).t().contiguous().requires_grad_(true);
    torch::optim::Adam adam({p}, torch::optim::AdamOptions(options.lr));
    {
      torch::NoGradGuard guard;
      report->initial_rate_reduction = -McrLossTensor(torch::matmul(centred, p), members, options.epsilon).item<double>();
    }
    for (uint32_t step = 0; step < options.steps; ++step) {
      adam.zero_grad();
      torch::Tensor loss = McrLossTensor(torch::matmul(centred, p), members, options.epsilon);
      loss.backward();
      adam.step();
    }
    {
      torch::NoGradGuard guard;
      report->final_rate_reduction = -McrLossTensor(torch::matmul(centred, p), members, options.epsilon).item<double>();
    }
    torch::Tensor components = p.detach().t().contiguous().to(torch::kCPU);
    out->components.data.assign(components.data_ptr<float>(), components.data_ptr<float>() + components.numel());
  } catch (const std::exception& e) {
    return Internal(std::string("compress failed: ") + e.what());
  }
  return Status::Ok();
}

}  // namespace swe::trainer
