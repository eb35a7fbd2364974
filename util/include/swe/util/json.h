// The nesting limit for JSON that users give (documents' metadata, .jsonl lines, model and tokenizer
// files): JSON writers and copies recurse once per level, so a deep enough value would overflow the
// stack. Checked on the text before it is parsed.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace swe::util {

constexpr size_t kMaxJsonDepth = 128;

// False when `json` opens more than `max_depth` arrays or objects inside one another (brackets inside
// strings do not count). Only the nesting is checked: whether it is JSON is the parser's to say.
bool JsonDepthWithin(std::string_view json, size_t max_depth = kMaxJsonDepth);

// "JSON nested deeper than 128 levels": the error text for the above.
std::string JsonTooDeepMessage();

// An nlohmann::json exception's message without its "[json.exception.TYPE.ID] " prefix, e.g.
// "number overflow parsing '1e999'" (what a user can act on).
std::string JsonErrorDetail(std::string_view what);

}  // namespace swe::util
