#include "swe/util/json.h"

namespace swe::util {

bool JsonDepthWithin(std::string_view json, size_t max_depth) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, a quote included
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return false;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return true;
}

std::string JsonTooDeepMessage() { return "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels"; }

std::string JsonErrorDetail(std::string_view what) {
  const size_t end = what.find("] ");
  return std::string(end == std::string_view::npos ? what : what.substr(end + 2));
}

}  // namespace swe::util
