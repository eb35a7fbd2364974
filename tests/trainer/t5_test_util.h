// Hand-made pieces for the t5 teacher's tests: a SentencePiece precompiled charsmap built from a few
// entries (a darts-clone double array laid out one 256-unit block per trie node), and a Unigram
// tokenizer.json in the layout transformers writes for T5 (Precompiled + Replace normalizers,
// Metaspace, "$A </s>" template, <pad>/</s>/<unk> and <extra_id_N> as added tokens).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace swe::trainer::testing {

// The charsmap blob: uint32 LE trie size, the units, then the NUL-terminated replacements.
inline std::string BuildCharsmap(const std::map<std::string, std::string>& entries) {
  struct Node {
    std::map<unsigned char, size_t> kids;
    int64_t value = -1;
  };
  std::vector<Node> nodes(1);
  std::string replacements;
  for (const auto& [key, value] : entries) {
    size_t n = 0;
    for (unsigned char c : key) {
      auto it = nodes[n].kids.find(c);
      if (it == nodes[n].kids.end()) {
        it = nodes[n].kids.emplace(c, nodes.size()).first;
        nodes.emplace_back();
      }
      n = it->second;
    }
    nodes[n].value = static_cast<int64_t>(replacements.size());
    replacements += value;
    replacements.push_back('\0');
  }
  auto block = [](size_t n) { return static_cast<uint32_t>(256 * (n + 1)); };
  std::vector<uint32_t> units(256 * (nodes.size() + 1), 0);
  units[0] = block(0) << 10;  // the root's children live in block 0
  for (size_t n = 0; n < nodes.size(); ++n) {
    uint32_t q = block(n);
    if (nodes[n].value >= 0) units[q] = (1u << 31) | static_cast<uint32_t>(nodes[n].value);
    for (const auto& [c, child] : nodes[n].kids) {
      uint32_t pos = q ^ c;
      units[pos] = c | (nodes[child].value >= 0 ? 1u << 8 : 0u) | ((pos ^ block(child)) << 10);
    }
  }
  std::string blob(4, '\0');
  uint32_t bytes = static_cast<uint32_t>(units.size() * 4);
  for (int i = 0; i < 4; ++i) blob[i] = static_cast<char>(bytes >> (8 * i));
  for (uint32_t u : units) {
    for (int i = 0; i < 4; ++i) blob.push_back(static_cast<char>(u >> (8 * i)));
  }
  return blob + replacements;
}

inline std::string Base64(const std::string& bytes) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t v = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8) | uint8_t(bytes[i + 2]);
    for (int k = 3; k >= 0; --k) out.push_back(kAlphabet[(v >> (6 * k)) & 63]);
  }
  if (bytes.size() - i == 1) {
    uint32_t v = uint8_t(bytes[i]) << 16;
    out += {kAlphabet[v >> 18], kAlphabet[(v >> 12) & 63], '=', '='};
  } else if (bytes.size() - i == 2) {
    uint32_t v = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8);
    out += {kAlphabet[v >> 18], kAlphabet[(v >> 12) & 63], kAlphabet[(v >> 6) & 63], '='};
  }
  return out;
}

// A T5-style tokenizer.json over `pieces` (after <pad> 0, </s> 1, <unk> 2; then `extra_ids`
// sentinels), with a charsmap of `charsmap` entries (none when empty).
inline nlohmann::json T5TokenizerJson(const std::vector<std::pair<std::string, double>>& pieces,
                                      const std::map<std::string, std::string>& charsmap, int extra_ids = 2) {
  using nlohmann::json;
  json vocab = json::array({json::array({"<pad>", 0.0}), json::array({"</s>", 0.0}), json::array({"<unk>", 0.0})});
  for (const auto& [p, s] : pieces) vocab.push_back(json::array({p, s}));
  json added = json::array();
  auto add = [&](int id, const std::string& content) {
    added.push_back({{"id", id}, {"content", content}, {"single_word", false}, {"lstrip", false},
                     {"rstrip", false}, {"normalized", false}, {"special", true}});
  };
  add(0, "<pad>");
  add(1, "</s>");
  add(2, "<unk>");
  for (int i = extra_ids - 1; i >= 0; --i) {
    add(static_cast<int>(vocab.size()), "<extra_id_" + std::to_string(i) + ">");
    vocab.push_back(json::array({"<extra_id_" + std::to_string(i) + ">", 0.0}));
  }
  json normalizers = json::array();
  if (!charsmap.empty()) {
    normalizers.push_back({{"type", "Precompiled"}, {"precompiled_charsmap", Base64(BuildCharsmap(charsmap))}});
  }
  normalizers.push_back({{"type", "Strip"}, {"strip_left", false}, {"strip_right", true}});
  normalizers.push_back({{"type", "Replace"}, {"pattern", {{"Regex", " {2,}"}}}, {"content", "\xE2\x96\x81"}});
  return {
      {"version", "1.0"},
      {"added_tokens", added},
      {"normalizer", {{"type", "Sequence"}, {"normalizers", normalizers}}},
      {"pre_tokenizer", {{"type", "Metaspace"}, {"replacement", "\xE2\x96\x81"}, {"prepend_scheme", "always"}, {"split", true}}},
      {"post_processor",
       {{"type", "TemplateProcessing"},
        {"single", json::array({{{"Sequence", {{"id", "A"}, {"type_id", 0}}}}, {{"SpecialToken", {{"id", "</s>"}, {"type_id", 0}}}}})},
        {"special_tokens", {{"</s>", {{"id", "</s>"}, {"ids", json::array({1})}, {"tokens", json::array({"</s>"})}}}}}}},
      {"model", {{"type", "Unigram"}, {"unk_id", 2}, {"vocab", vocab}, {"byte_fallback", false}}},
  };
}

}  // namespace swe::trainer::testing
