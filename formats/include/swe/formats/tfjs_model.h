// A validating reader for TensorFlow.js graph-model artifacts as tfjs-converter writes them: a
// model.json {"modelTopology": {"node": [...]}, "weightsManifest": [{"paths": [...], "weights":
// [{"name", "shape", "dtype"}]}]} next to binary weight shards. Within a group the shards are
// concatenated and the weights are laid out back to back in manifest order, little-endian.
// Everything is checked before use: JSON structure, shard names (plain file names in the model's
// directory), dtypes (float32, int32; quantised weights are unsupported), shapes (non-negative, rank
// <= 8, element count < 2^31), unique names, the group's shard bytes = the sum of its weights' bytes,
// total size <= 1 GiB, every node input naming a node, and every weight that is also a Const node of
// the graph having the shape that node declares. A bad model gives a status naming the problem.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "swe/status.h"

namespace swe::formats {

enum class TfjsDType : uint8_t { kF32, kI32 };

struct TfjsTensor {
  TfjsDType dtype = TfjsDType::kF32;
  std::vector<int64_t> shape;
  std::vector<float> f32;    // dtype kF32
  std::vector<int32_t> i32;  // dtype kI32
  int64_t numel() const;
};

struct TfjsNode {
  std::string name, op;
  std::vector<std::string> inputs;  // node names (":N" output suffixes and "^" control marks removed)
};

class TfjsGraphModel {
 public:
  static constexpr uint64_t kMaxTotalBytes = 1ull << 30;
  static constexpr uint64_t kMaxJsonBytes = 64ull << 20;

  // The primitive: model.json's text and, per shard path it names, that shard's bytes.
  static Status FromParts(std::string_view model_json, const std::map<std::string, std::string>& shards,
                          TfjsGraphModel* out);
  // Reads `model_json_path` and the shards it names from the same directory.
  static Status Load(const std::string& model_json_path, TfjsGraphModel* out);

  const TfjsTensor* Find(const std::string& name) const;
  // The float32 weight `name`; fails when it is missing, not float32, of another shape than `shape`
  // (when `shape` is non-empty), or holds a non-finite value.
  Status GetF32(const std::string& name, const std::vector<int64_t>& shape, const std::vector<float>** out) const;
  // A scalar (or one-element) weight as a number.
  Status GetScalar(const std::string& name, double* out) const;
  const std::vector<TfjsNode>& nodes() const { return nodes_; }
  const TfjsNode* FindNode(const std::string& name) const;
  const std::map<std::string, TfjsTensor>& weights() const { return weights_; }
  uint64_t weight_bytes() const { return weight_bytes_; }

 private:
  std::map<std::string, TfjsTensor> weights_;
  std::vector<TfjsNode> nodes_;
  std::map<std::string, size_t> node_index_;
  uint64_t weight_bytes_ = 0;
};

}  // namespace swe::formats
