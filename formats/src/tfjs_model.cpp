#include "swe/formats/tfjs_model.h"

#include <sys/stat.h>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "swe/util/file.h"
#include "swe/util/json.h"

namespace swe::formats {
namespace {

Status ReadWholeFile(const std::string& path, std::string* out) {
  std::string error;
  if (!util::ReadFile(path, out, &error)) return IoError(error);
  return Status::Ok();
}
using nlohmann::json;

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

// "name:1" -> "name", "^name" -> "name".
std::string InputNode(std::string input) {
  if (!input.empty() && input[0] == '^') input.erase(0, 1);
  size_t colon = input.rfind(':');
  if (colon != std::string::npos && colon + 1 < input.size() &&
      input.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
    input.resize(colon);
  }
  return input;
}

bool PlainFileName(const std::string& p) {
  return !p.empty() && p != "." && p != ".." && p.find('/') == std::string::npos &&
         p.find('\\') == std::string::npos && p.find('\0') == std::string::npos;
}

Status ParseShape(const json& w, const std::string& name, std::vector<int64_t>* shape, int64_t* numel) {
  if (!w.contains("shape") || !w["shape"].is_array()) return Corrupt("weight '" + name + "' has no shape");
  const json& s = w["shape"];
  if (s.size() > 8) return Unsupported("weight '" + name + "' has rank " + std::to_string(s.size()) + " (> 8)");
  *numel = 1;
  shape->clear();
  for (const json& d : s) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0) return Corrupt("weight '" + name + "' has a bad dimension");
    int64_t v = d.get<int64_t>();
    if (v > 0 && *numel > (int64_t{1} << 31) / v) return TooLarge("weight '" + name + "' has too many elements");
    *numel *= v;
    shape->push_back(v);
  }
  if (*numel >= (int64_t{1} << 31)) return TooLarge("weight '" + name + "' has too many elements");
  return Status::Ok();
}

Status ParseNodes(const json& topology, std::vector<TfjsNode>* nodes, std::map<std::string, size_t>* index) {
  if (!topology.is_object() || !topology.contains("node") || !topology["node"].is_array()) {
    return Corrupt("model.json: modelTopology.node is not an array");
  }
  for (const json& n : topology["node"]) {
    if (!n.is_object() || !n.contains("name") || !n["name"].is_string() || !n.contains("op") || !n["op"].is_string()) {
      return Corrupt("model.json: a node without a name or op");
    }
    TfjsNode node{n["name"].get<std::string>(), n["op"].get<std::string>(), {}};
    if (n.contains("input")) {
      if (!n["input"].is_array()) return Corrupt("model.json: node '" + node.name + "' has bad inputs");
      for (const json& i : n["input"]) {
        if (!i.is_string()) return Corrupt("model.json: node '" + node.name + "' has bad inputs");
        node.inputs.push_back(InputNode(i.get<std::string>()));
      }
    }
    if (!index->emplace(node.name, nodes->size()).second) return Corrupt("model.json: duplicate node '" + node.name + "'");
    nodes->push_back(std::move(node));
  }
  for (const TfjsNode& n : *nodes) {
    for (const std::string& i : n.inputs) {
      if (!index->count(i)) return Corrupt("model.json: node '" + n.name + "' reads unknown node '" + i + "'");
    }
  }
  return Status::Ok();
}

// A Const node's declared shape, when it declares one.
bool ConstShape(const json& node, std::vector<int64_t>* shape) {
  const json* t = nullptr;
  if (node.contains("attr") && node["attr"].is_object() && node["attr"].contains("value") &&
      node["attr"]["value"].is_object() && node["attr"]["value"].contains("tensor")) {
    t = &node["attr"]["value"]["tensor"];
  }
  if (!t || !t->is_object() || !t->contains("tensorShape") || !(*t)["tensorShape"].is_object()) return false;
  shape->clear();
  const json& ts = (*t)["tensorShape"];
  if (!ts.contains("dim")) return true;  // a scalar
  if (!ts["dim"].is_array()) return false;
  for (const json& d : ts["dim"]) {
    if (!d.is_object() || !d.contains("size")) return false;
    const json& v = d["size"];  // proto3 JSON writes int64 as a string
    if (v.is_string()) shape->push_back(std::strtoll(v.get<std::string>().c_str(), nullptr, 10));
    else if (v.is_number_integer()) shape->push_back(v.get<int64_t>());
    else return false;
  }
  return true;
}

// One weightsManifest group: its shards concatenated, its weights back to back.
Status ParseGroup(const json& group, const std::map<std::string, std::string>& shards,
                  std::map<std::string, TfjsTensor>* weights, uint64_t* total) {
  if (!group.is_object() || !group.contains("paths") || !group["paths"].is_array() || !group.contains("weights") ||
      !group["weights"].is_array()) {
    return Corrupt("model.json: a weightsManifest group needs 'paths' and 'weights' arrays");
  }
  std::string bytes;
  for (const json& p : group["paths"]) {
    if (!p.is_string() || !PlainFileName(p.get<std::string>())) {
      return Corrupt("model.json: weight path " + p.dump() + " is not a plain file name");
    }
    auto it = shards.find(p.get<std::string>());
    if (it == shards.end()) return IoError("weight shard not found: " + p.get<std::string>());
    if (bytes.size() + it->second.size() > TfjsGraphModel::kMaxTotalBytes) return TooLarge("weights exceed 1 GiB");
    bytes += it->second;
  }
  uint64_t offset = 0;
  for (const json& w : group["weights"]) {
    if (!w.is_object() || !w.contains("name") || !w["name"].is_string() || w["name"].get<std::string>().empty()) {
      return Corrupt("model.json: a weight without a name");
    }
    std::string name = w["name"].get<std::string>();
    if (w.contains("quantization")) return Unsupported("weight '" + name + "' is quantised");
    std::string dtype = w.value("dtype", std::string());
    TfjsTensor t;
    if (dtype == "float32") t.dtype = TfjsDType::kF32;
    else if (dtype == "int32") t.dtype = TfjsDType::kI32;
    else return Unsupported("weight '" + name + "' has dtype '" + dtype + "' (float32 and int32 are supported)");
    int64_t numel = 0;
    SWE_RETURN_IF_ERROR(ParseShape(w, name, &t.shape, &numel));
    uint64_t size = static_cast<uint64_t>(numel) * 4;
    if (offset + size > bytes.size()) {
      return Corrupt("weight shards are truncated: '" + name + "' needs bytes up to " + std::to_string(offset + size) +
                     ", the group has " + std::to_string(bytes.size()));
    }
    if (t.dtype == TfjsDType::kF32) {
      t.f32.resize(numel);
      std::memcpy(t.f32.data(), bytes.data() + offset, size);
    } else {
      t.i32.resize(numel);
      std::memcpy(t.i32.data(), bytes.data() + offset, size);
    }
    offset += size;
    if (!weights->emplace(name, std::move(t)).second) return Corrupt("model.json: duplicate weight '" + name + "'");
  }
  if (offset != bytes.size()) {
    return Corrupt("weight shards hold " + std::to_string(bytes.size()) + " bytes, the manifest describes " +
                   std::to_string(offset));
  }
  *total += offset;
  return *total > TfjsGraphModel::kMaxTotalBytes ? TooLarge("weights exceed 1 GiB") : Status::Ok();
}

Status ParseUnchecked(std::string_view text, const std::map<std::string, std::string>& shards,
                      std::map<std::string, TfjsTensor>* weights, std::vector<TfjsNode>* nodes,
                      std::map<std::string, size_t>* index, uint64_t* total) {
  if (text.size() > TfjsGraphModel::kMaxJsonBytes) return TooLarge("model.json is larger than 64 MiB");
  if (!util::JsonDepthWithin(text)) return Corrupt("model.json: " + util::JsonTooDeepMessage());
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Corrupt("model.json is not a JSON object");
  if (j.contains("format") && j["format"] != "graph-model") {
    return Unsupported("model.json: format '" + j["format"].dump() + "' (only graph-model is supported)");
  }
  if (!j.contains("modelTopology")) return Corrupt("model.json has no modelTopology");
  SWE_RETURN_IF_ERROR(ParseNodes(j["modelTopology"], nodes, index));
  if (!j.contains("weightsManifest") || !j["weightsManifest"].is_array()) return Corrupt("model.json has no weightsManifest");
  *total = 0;
  for (const json& group : j["weightsManifest"]) SWE_RETURN_IF_ERROR(ParseGroup(group, shards, weights, total));
  // A weight that is also a Const node must have the shape that node declares.
  for (const json& n : j["modelTopology"]["node"]) {
    if (n["op"] != "Const") continue;
    auto it = weights->find(n["name"].get<std::string>());
    std::vector<int64_t> shape;
    if (it != weights->end() && ConstShape(n, &shape) && shape != it->second.shape) {
      return Corrupt("weight '" + it->first + "' has shape " + ShapeText(it->second.shape) + ", the graph says " +
                     ShapeText(shape));
    }
  }
  return Status::Ok();
}

}  // namespace

int64_t TfjsTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Status TfjsGraphModel::FromParts(std::string_view model_json, const std::map<std::string, std::string>& shards,
                                 TfjsGraphModel* out) {
  TfjsGraphModel m;
  try {
    SWE_RETURN_IF_ERROR(ParseUnchecked(model_json, shards, &m.weights_, &m.nodes_, &m.node_index_, &m.weight_bytes_));
  } catch (const std::exception& e) {
    return Corrupt(std::string("model.json: ") + e.what());
  }
  *out = std::move(m);
  return Status::Ok();
}

Status TfjsGraphModel::Load(const std::string& model_json_path, TfjsGraphModel* out) {
  struct stat st;
  if (stat(model_json_path.c_str(), &st) != 0) return IoError("model file not found: " + model_json_path);
  if (static_cast<uint64_t>(st.st_size) > kMaxJsonBytes) return TooLarge(model_json_path + " is larger than 64 MiB");
  std::string text;
  SWE_RETURN_IF_ERROR(ReadWholeFile(model_json_path, &text));
  size_t slash = model_json_path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : model_json_path.substr(0, slash);
  // Read exactly the shards the manifest names (names are checked again by FromParts).
  if (!util::JsonDepthWithin(text)) return Corrupt(model_json_path + ": " + util::JsonTooDeepMessage());
  json j = json::parse(text, nullptr, false);
  std::map<std::string, std::string> shards;
  uint64_t total = 0;
  if (j.is_object() && j.contains("weightsManifest") && j["weightsManifest"].is_array()) {
    for (const json& group : j["weightsManifest"]) {
      if (!group.is_object() || !group.contains("paths") || !group["paths"].is_array()) continue;
      for (const json& p : group["paths"]) {
        if (!p.is_string() || !PlainFileName(p.get<std::string>()) || shards.count(p.get<std::string>())) continue;
        std::string path = dir + "/" + p.get<std::string>();
        if (stat(path.c_str(), &st) != 0) return IoError("weight shard not found: " + path);
        total += static_cast<uint64_t>(st.st_size);
        if (total > kMaxTotalBytes) return TooLarge("weights exceed 1 GiB");
        SWE_RETURN_IF_ERROR(ReadWholeFile(path, &shards[p.get<std::string>()]));
      }
    }
  }
  Status s = FromParts(text, shards, out);
  return s.ok() ? s : Status(s.code(), model_json_path + ": " + s.message());
}

const TfjsTensor* TfjsGraphModel::Find(const std::string& name) const {
  auto it = weights_.find(name);
  return it == weights_.end() ? nullptr : &it->second;
}

const TfjsNode* TfjsGraphModel::FindNode(const std::string& name) const {
  auto it = node_index_.find(name);
  return it == node_index_.end() ? nullptr : &nodes_[it->second];
}

Status TfjsGraphModel::GetF32(const std::string& name, const std::vector<int64_t>& shape,
                              const std::vector<float>** out) const {
  const TfjsTensor* t = Find(name);
  if (!t) return Corrupt("missing weight '" + name + "'");
  if (t->dtype != TfjsDType::kF32) return Corrupt("weight '" + name + "' is not float32");
  if (!shape.empty() && t->shape != shape) {
    return Corrupt("weight '" + name + "' has shape " + ShapeText(t->shape) + ", expected " + ShapeText(shape));
  }
  for (float v : t->f32) {
    if (!std::isfinite(v)) return Corrupt("weight '" + name + "' holds a non-finite value");
  }
  *out = &t->f32;
  return Status::Ok();
}

Status TfjsGraphModel::GetScalar(const std::string& name, double* out) const {
  const TfjsTensor* t = Find(name);
  if (!t) return Corrupt("missing weight '" + name + "'");
  if (t->numel() != 1) return Corrupt("weight '" + name + "' is not a scalar");
  *out = t->dtype == TfjsDType::kF32 ? static_cast<double>(t->f32[0]) : static_cast<double>(t->i32[0]);
  if (!std::isfinite(*out)) return Corrupt("weight '" + name + "' is not finite");
  return Status::Ok();
}

}  // namespace swe::formats
