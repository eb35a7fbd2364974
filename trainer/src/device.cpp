// Device selection and global torch settings (the only torch code outside the model and optimisers).
#include <torch/torch.h>

#include "teacher.h"

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

}  // namespace swe::trainer
