// Device selection, global torch settings and the teachers' word-span means (the only torch code
// outside the models and optimisers).
#include <torch/torch.h>

#include "teachers/teacher.h"

namespace swe::trainer {

Status ResolveDevice(const std::string& requested, std::string* resolved) {
  bool cuda = torch::cuda::is_available();
  if (requested.empty() || requested == "auto") {
    *resolved = cuda ? "cuda" : "cpu";
    return Status::Ok();
  }
  if (requested == "cpu") {
    *resolved = "cpu";
    return Status::Ok();
  }
  if (requested.rfind("cuda", 0) == 0) {
    if (!cuda) {
      return InvalidArgument("--device " + requested +
                             ": this libtorch build or machine has no CUDA (use --device cpu or auto)");
    }
    int index = -1;
    try {
      torch::Device d(requested);
      if (!d.is_cuda()) throw std::invalid_argument(requested);
      index = d.has_index() ? d.index() : -1;
    } catch (const std::exception&) {
      return InvalidArgument("bad device '" + requested + "' (auto, cpu, cuda or cuda:N)");
    }
    const int count = CudaDeviceCount();
    if (index >= count) {
      return InvalidArgument("--device " + requested + ": this machine has " + std::to_string(count) +
                             " CUDA device" + (count == 1 ? "" : "s") + " (cuda:0 to cuda:" + std::to_string(count - 1) + ")");
    }
    *resolved = requested;
    return Status::Ok();
  }
  return InvalidArgument("bad device '" + requested + "' (auto, cpu, cuda or cuda:N)");
}

int CudaDeviceCount() { return torch::cuda::is_available() ? static_cast<int>(torch::cuda::device_count()) : 0; }

void ConfigureTorch(int threads, uint64_t seed) {
  if (threads > 0) torch::set_num_threads(threads);
  torch::manual_seed(seed);
}

std::vector<float> SpanMeans(const at::Tensor& flat_tokens, SpanAlignment* align) {
  const int64_t D = flat_tokens.size(1);
  torch::Tensor words = torch::zeros({align->spans, D}, flat_tokens.options());
  if (!align->rows.empty()) {
    auto n = static_cast<int64_t>(align->rows.size());
    const torch::Device device = flat_tokens.device();
    torch::Tensor r = torch::from_blob(align->rows.data(), {n}, torch::kInt64).to(device);
    torch::Tensor p = torch::from_blob(align->positions.data(), {n}, torch::kInt64).to(device);
    torch::Tensor w = torch::from_blob(align->weights.data(), {n, 1}, torch::kFloat32).to(device);
    words.index_add_(0, r, flat_tokens.index_select(0, p) * w);
  }
  words = words.contiguous().to(torch::kCPU);
  return std::vector<float>(words.data_ptr<float>(), words.data_ptr<float>() + align->spans * D);
}

}  // namespace swe::trainer
