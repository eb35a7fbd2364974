// Reading request bodies as JSON (bounded nesting, UTF-8 checked by the parser) and writing answers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace swe::serve {

using Json = nlohmann::ordered_json;  // answers keep the order OpenAI and TEI document

// Request bodies nest far less than stored JSON (util::kMaxJsonDepth): deeper ones are refused before
// they are parsed.
constexpr size_t kMaxJsonDepth = 32;

// Parses `text`; throws ApiError(400) for invalid JSON (invalid UTF-8 included), nesting deeper than
// kMaxJsonDepth, or more than `max_values` values (strings, numbers, ... anywhere: what the parsed
// document costs in memory, about 100 bytes a value, stays bounded whatever the body holds).
Json ParseJson(std::string_view text, size_t max_values);
// The same without a limit on values, returning false instead of throwing (for metadata already
// stored in an index).
bool TryParseJson(std::string_view text, Json* out);

// Compact JSON text; invalid UTF-8 (only possible in echoed error details) becomes U+FFFD.
std::string DumpJson(const Json& value);

// Standard base64 (RFC 4648, with padding) of `size` bytes.
std::string Base64(const void* data, size_t size);

// The members of a request object, each with the type it must have; ApiError(400) names the member.
const Json& RequireObject(const Json& body);
bool GetBool(const Json& body, const char* name, bool fallback);
uint64_t GetCount(const Json& body, const char* name, uint64_t fallback, uint64_t min, uint64_t max);
double GetNumber(const Json& body, const char* name, double fallback);
std::string GetString(const Json& body, const char* name, const std::string& fallback);

}  // namespace swe::serve
