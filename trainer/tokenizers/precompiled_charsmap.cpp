#include "precompiled_charsmap.h"

#include <cstring>

namespace swe::trainer {
namespace {

// darts-clone's unit layout.
bool HasLeaf(uint32_t unit) { return (unit >> 8) & 1; }
uint32_t Value(uint32_t unit) { return unit & ((1u << 31) - 1); }
uint32_t Label(uint32_t unit) { return unit & ((1u << 31) | 0xFF); }
uint32_t Offset(uint32_t unit) { return (unit >> 10) << ((unit & (1u << 9)) >> 6); }

int Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

Status Base64Decode(std::string_view text, std::string* out) {
  out->clear();
  size_t n = text.size();
  while (n > 0 && text[n - 1] == '=') --n;
  if (text.size() - n > 2 || (text.size() != n && text.size() % 4 != 0)) return Corrupt("bad base64 padding");
  if (n % 4 == 1) return Corrupt("base64 text has a truncated last group");
  out->reserve(n / 4 * 3 + 2);
  uint32_t bits = 0;
  int count = 0;
  for (size_t i = 0; i < n; ++i) {
    int v = Base64Value(text[i]);
    if (v < 0) return Corrupt("bad base64 character at offset " + std::to_string(i));
    bits = (bits << 6) | static_cast<uint32_t>(v);
    if (++count == 4) {
      out->push_back(static_cast<char>(bits >> 16));
      out->push_back(static_cast<char>(bits >> 8));
      out->push_back(static_cast<char>(bits));
      bits = 0;
      count = 0;
    }
  }
  if (count == 2) out->push_back(static_cast<char>(bits >> 4));
  if (count == 3) {
    out->push_back(static_cast<char>(bits >> 10));
    out->push_back(static_cast<char>(bits >> 2));
  }
  return Status::Ok();
}

Status PrecompiledCharsmap::FromBlob(std::string blob, PrecompiledCharsmap* out) {
  if (blob.size() < 4) return Corrupt("precompiled_charsmap is shorter than its 4-byte header");
  const auto* b = reinterpret_cast<const unsigned char*>(blob.data());
  uint32_t trie_bytes = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<uint32_t>(b[3]) << 24);
  if (trie_bytes % 4 != 0 || trie_bytes == 0 || trie_bytes > blob.size() - 4) {
    return Corrupt("precompiled_charsmap: trie size " + std::to_string(trie_bytes) + " does not fit its " +
                   std::to_string(blob.size()) + " bytes");
  }
  PrecompiledCharsmap m;
  m.units_.resize(trie_bytes / 4);
  for (size_t i = 0; i < m.units_.size(); ++i) {
    const unsigned char* u = b + 4 + 4 * i;
    m.units_[i] = u[0] | (u[1] << 8) | (u[2] << 16) | (static_cast<uint32_t>(u[3]) << 24);
  }
  m.replacements_ = blob.substr(4 + trie_bytes);
  *out = std::move(m);
  return Status::Ok();
}

Status PrecompiledCharsmap::FromBase64(std::string_view text, PrecompiledCharsmap* out) {
  std::string blob;
  Status s = Base64Decode(text, &blob);
  if (!s.ok()) return Corrupt("precompiled_charsmap: " + s.message());
  return FromBlob(std::move(blob), out);
}

std::vector<uint32_t> PrecompiledCharsmap::PrefixValues(std::string_view key) const {
  std::vector<uint32_t> values;
  size_t pos = Offset(units_[0]);
  for (char ch : key) {
    auto c = static_cast<unsigned char>(ch);
    if (c == 0) break;
    pos ^= c;
    if (pos >= units_.size() || Label(units_[pos]) != c) break;
    uint32_t unit = units_[pos];
    pos ^= Offset(unit);
    if (HasLeaf(unit)) {
      if (pos >= units_.size()) break;
      values.push_back(Value(units_[pos]));
    }
  }
  return values;
}

std::string_view PrecompiledCharsmap::Replacement(uint32_t value) const {
  if (value >= replacements_.size()) return {};
  const char* start = replacements_.data() + value;
  size_t n = strnlen(start, replacements_.size() - value);
  return {start, n};
}

std::optional<std::string_view> PrecompiledCharsmap::Transform(std::string_view chunk) const {
  std::vector<uint32_t> values = PrefixValues(chunk);
  if (values.empty()) return std::nullopt;
  return Replacement(values.front());
}

}  // namespace swe::trainer
