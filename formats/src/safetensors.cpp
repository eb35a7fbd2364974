#include "swe/formats/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "swe/half.h"
#include "swe/util/json.h"

namespace swe::formats {
namespace {

constexpr uint64_t kMaxHeader = 100u << 20;  // as the reference implementation

struct DTypeInfo {
  const char* name;
  StDType type;
  size_t size;
};
constexpr DTypeInfo kDTypes[] = {
    {"F64", StDType::kF64, 8}, {"F32", StDType::kF32, 4}, {"F16", StDType::kF16, 2},
    {"BF16", StDType::kBF16, 2}, {"I64", StDType::kI64, 8}, {"I32", StDType::kI32, 4},
    {"I16", StDType::kI16, 2}, {"I8", StDType::kI8, 1}, {"U8", StDType::kU8, 1}, {"BOOL", StDType::kBool, 1}};

std::string ShapeText(const std::vector<int64_t>& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

}  // namespace

size_t StDTypeSize(StDType t) {
  for (const auto& d : kDTypes) {
    if (d.type == t) return d.size;
  }
  return 0;
}

const char* StDTypeName(StDType t) {
  for (const auto& d : kDTypes) {
    if (d.type == t) return d.name;
  }
  return "?";
}

uint64_t StTensor::numel() const {
  uint64_t n = 1;
  for (int64_t d : shape) n *= static_cast<uint64_t>(d);
  return n;
}

SafeTensors::~SafeTensors() {
  if (map_) munmap(map_, map_size_);
}

Status SafeTensors::FromBytes(const uint8_t* data, size_t size, std::unique_ptr<SafeTensors>* out) {
  if (size < 8) return Corrupt("safetensors: file shorter than its 8-byte header length");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = n << 8 | data[i];
  if (n > kMaxHeader) return Corrupt("safetensors: header length " + std::to_string(n) + " exceeds 100 MiB");
  if (n > size - 8) return Corrupt("safetensors: header length " + std::to_string(n) + " runs past the end of the file");
  const std::string_view header_text(reinterpret_cast<const char*>(data + 8), n);
  if (!util::JsonDepthWithin(header_text)) return Corrupt("safetensors: header: " + util::JsonTooDeepMessage());
  nlohmann::json header = nlohmann::json::parse(header_text, nullptr, /*allow_exceptions=*/false);
  if (header.is_discarded()) return Corrupt("safetensors: header is not valid JSON");
  if (!header.is_object()) return Corrupt("safetensors: header is not a JSON object");
  std::unique_ptr<SafeTensors> st(new SafeTensors());
  const uint8_t* body = data + 8 + n;
  uint64_t body_size = size - 8 - n;
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    const nlohmann::json& v = it.value();
    if (name == "__metadata__") {
      if (!v.is_object()) return Corrupt("safetensors: __metadata__ is not an object");
      for (auto m = v.begin(); m != v.end(); ++m) {
        if (!m.value().is_string()) return Corrupt("safetensors: __metadata__ values must be strings");
        st->metadata_[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    std::string where = "safetensors: tensor '" + name + "': ";
    if (!v.is_object() || !v.contains("dtype") || !v.contains("shape") || !v.contains("data_offsets")) {
      return Corrupt(where + "needs dtype, shape and data_offsets");
    }
    const auto& dt = v["dtype"];
    const auto& shape = v["shape"];
    const auto& offsets = v["data_offsets"];
    if (!dt.is_string()) return Corrupt(where + "dtype is not a string");
    const DTypeInfo* info = nullptr;
    for (const auto& d : kDTypes) {
      if (dt.get<std::string>() == d.name) info = &d;
    }
    if (!info) return Corrupt(where + "unknown dtype " + dt.get<std::string>());
    if (!shape.is_array() || shape.size() > 8) return Corrupt(where + "shape must be an array of at most 8 sizes");
    StTensor t;
    t.dtype = info->type;
    unsigned __int128 numel = 1;
    for (const auto& d : shape) {
      if (!d.is_number_unsigned()) return Corrupt(where + "shape entries must be non-negative integers");
      t.shape.push_back(static_cast<int64_t>(d.get<uint64_t>()));
      numel *= d.get<uint64_t>();
      if (numel > (static_cast<unsigned __int128>(1) << 62)) return Corrupt(where + "shape too large");
    }
    if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
        !offsets[1].is_number_unsigned()) {
      return Corrupt(where + "data_offsets must be two non-negative integers");
    }
    uint64_t begin = offsets[0].get<uint64_t>(), end = offsets[1].get<uint64_t>();
    if (begin > end || end > body_size) {
      return Corrupt(where + "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                     "] outside the " + std::to_string(body_size) + " data bytes");
    }
    if (numel * info->size != end - begin) {
      return Corrupt(where + "shape " + ShapeText(t.shape) + " of " + info->name + " needs " +
                     std::to_string(static_cast<uint64_t>(numel * info->size)) + " bytes, data_offsets give " +
                     std::to_string(end - begin));
    }
    t.data = body + begin;
    t.bytes = end - begin;
    spans.emplace_back(begin, end);
    st->tensors_.emplace(name, std::move(t));
  }
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i) {
    if (spans[i].first < spans[i - 1].second) return Corrupt("safetensors: tensors overlap");
  }
  *out = std::move(st);
  return Status::Ok();
}

Status SafeTensors::Open(const std::string& path, std::unique_ptr<SafeTensors>* out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IoError("cannot open " + path + ": " + std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return IoError("not a regular file: " + path);
  }
  size_t size = static_cast<size_t>(st.st_size);
  void* map = nullptr;
  if (size > 0) {
    map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
      ::close(fd);
      return IoError("cannot map " + path + ": " + std::strerror(errno));
    }
  }
  ::close(fd);
  static const uint8_t kEmpty = 0;
  Status s = FromBytes(map ? static_cast<const uint8_t*>(map) : &kEmpty, size, out);
  if (!s.ok()) {
    if (map) munmap(map, size);
    return Status(s.code(), path + ": " + s.message());
  }
  (*out)->map_ = map;
  (*out)->map_size_ = size;
  return Status::Ok();
}

const StTensor* SafeTensors::Find(const std::string& name) const {
  auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : &it->second;
}

Status SafeTensors::ReadF32(const std::string& name, const std::vector<int64_t>& expected_shape,
                            std::vector<float>* out) const {
  const StTensor* t = Find(name);
  if (!t) return NotFound("tensor '" + name + "' not in the safetensors file");
  if (!expected_shape.empty() && t->shape != expected_shape) {
    return InvalidArgument("tensor '" + name + "' has shape " + ShapeText(t->shape) + ", expected " +
                           ShapeText(expected_shape));
  }
  uint64_t n = t->numel();
  out->resize(n);
  const uint8_t* p = t->data;
  switch (t->dtype) {
    case StDType::kF32:
      std::memcpy(out->data(), p, n * 4);
      break;
    case StDType::kF64:
      for (uint64_t i = 0; i < n; ++i) {
        double d;
        std::memcpy(&d, p + 8 * i, 8);
        (*out)[i] = static_cast<float>(d);
      }
      break;
    case StDType::kF16:
    case StDType::kBF16:
      for (uint64_t i = 0; i < n; ++i) {
        uint16_t h = static_cast<uint16_t>(p[2 * i] | p[2 * i + 1] << 8);
        (*out)[i] = t->dtype == StDType::kF16 ? HalfToFloat(h) : BFloat16ToFloat(h);
      }
      break;
    default:
      return InvalidArgument("tensor '" + name + "' has dtype " + StDTypeName(t->dtype) + ", expected a float type");
  }
  return Status::Ok();
}

std::string SafetensorsBytes(const std::map<std::string, StTensorBytes>& tensors,
                             const std::map<std::string, std::string>& metadata) {
  nlohmann::json header = nlohmann::json::object();
  size_t offset = 0;
  for (const auto& [name, t] : tensors) {
    header[name] = {{"dtype", StDTypeName(t.dtype)}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.bytes.size()}}};
    offset += t.bytes.size();
  }
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::string h = header.dump();
  while (h.size() % 8) h += ' ';
  const uint64_t n = h.size();
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  out += h;
  for (const auto& entry : tensors) out += entry.second.bytes;
  return out;
}

}  // namespace swe::formats
