// SentencePiece's precompiled normalisation map, as tokenizer.json's `Precompiled` normalizer carries it
// (base64): a uint32 little-endian trie size in bytes, a darts-clone double-array trie of that many
// bytes (uint32 units) whose keys are UTF-8 strings, then the replacements, NUL-terminated strings that
// the trie's values index by byte offset. Every lookup is bounds-checked: a corrupt map never reads
// outside its blob (a lookup that would is treated as "no match").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "swe/status.h"

namespace swe::trainer {

// Standard base64 (RFC 4648, '=' padding optional, no whitespace); a `corrupt` error naming the first
// bad character otherwise.
Status Base64Decode(std::string_view text, std::string* out);

class PrecompiledCharsmap {
 public:
  static Status FromBlob(std::string blob, PrecompiledCharsmap* out);
  static Status FromBase64(std::string_view text, PrecompiledCharsmap* out);

  // The values of every key that is a prefix of `key`, shortest first (darts-clone's
  // commonPrefixSearch; a NUL byte ends the key).
  std::vector<uint32_t> PrefixValues(std::string_view key) const;
  // Hugging Face's Precompiled::transform: the replacement of the *shortest* key that prefixes
  // `chunk` (nullopt when none does). Hugging Face calls it on a whole grapheme or one character.
  std::optional<std::string_view> Transform(std::string_view chunk) const;

 private:
  std::string_view Replacement(uint32_t value) const;
  std::vector<uint32_t> units_;
  std::string replacements_;
};

}  // namespace swe::trainer
