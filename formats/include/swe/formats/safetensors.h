// A validating reader for Hugging Face safetensors files: an 8-byte little-endian header length, a
// JSON header {"name": {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {...}}, then
// the tensor bytes. The file is memory-mapped; tensors are views into it. Everything is checked
// before use (header length, JSON, known dtype, shape product x element size = byte span, spans
// inside the data, no overlap); a bad file gives a `corrupt` status naming the problem, never a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "swe/status.h"

namespace swe::formats {

enum class StDType : uint8_t { kF64, kF32, kF16, kBF16, kI64, kI32, kI16, kI8, kU8, kBool };
size_t StDTypeSize(StDType t);
const char* StDTypeName(StDType t);

struct StTensor {
  StDType dtype = StDType::kF32;
  std::vector<int64_t> shape;
  const uint8_t* data = nullptr;
  size_t bytes = 0;
  uint64_t numel() const;
};

class SafeTensors {
 public:
  ~SafeTensors();
  SafeTensors(const SafeTensors&) = delete;
  SafeTensors& operator=(const SafeTensors&) = delete;

  // Parses `size` bytes at `data`, which must outlive the result (the primitive; Open wraps it).
  static Status FromBytes(const uint8_t* data, size_t size, std::unique_ptr<SafeTensors>* out);
  // Memory-maps `path` and parses it.
  static Status Open(const std::string& path, std::unique_ptr<SafeTensors>* out);

  const StTensor* Find(const std::string& name) const;
  const std::map<std::string, StTensor>& tensors() const { return tensors_; }
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  // Converts a floating-point tensor (f32, f16, bf16, f64) to f32; checks the shape when
  // `expected_shape` is non-empty. Fails on a missing tensor, another dtype or a shape mismatch.
  Status ReadF32(const std::string& name, const std::vector<int64_t>& expected_shape,
                 std::vector<float>* out) const;

 private:
  SafeTensors() = default;
  std::map<std::string, StTensor> tensors_;
  std::map<std::string, std::string> metadata_;
  void* map_ = nullptr;
  size_t map_size_ = 0;
};

// One tensor to write: `bytes` holds its elements, little-endian, in `dtype` (numel x size bytes).
struct StTensorBytes {
  StDType dtype = StDType::kF32;
  std::vector<int64_t> shape;
  std::string bytes;
};
// A complete safetensors file: the header (tensors in name order, offsets packed, padded to 8 bytes,
// `metadata` as "__metadata__") and the data. What FromBytes reads back.
std::string SafetensorsBytes(const std::map<std::string, StTensorBytes>& tensors,
                             const std::map<std::string, std::string>& metadata = {});

}  // namespace swe::formats
