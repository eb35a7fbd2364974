// Small string helpers shared by the swe program, swe-trainer, the evaluation library and the benches.
#pragma once

#include <string_view>

namespace swe::util {

// The ASCII whitespace characters: space, tab, newline, carriage return, form feed, vertical tab.
inline constexpr std::string_view kAsciiWhitespace = " \t\n\r\f\v";

inline bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

inline bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// `s` without the leading and trailing characters that are in `chars` (by default ASCII whitespace;
// bytes of UTF-8 sequences are never whitespace).
inline std::string_view Trim(std::string_view s, std::string_view chars = kAsciiWhitespace) {
  const size_t begin = s.find_first_not_of(chars);
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(chars) - begin + 1);
}

// Empty, or ASCII whitespace only.
inline bool IsBlank(std::string_view s) { return Trim(s).empty(); }

}  // namespace swe::util
