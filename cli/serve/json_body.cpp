#include "json_body.h"

#include <cmath>
#include <cstdint>

#include "api_error.h"
#include "swe/util/json.h"

namespace swe::serve {

namespace {

bool Parse(std::string_view text, size_t max_values, Json* out, std::string* error) {
  // Nesting is checked on the text first (util::JsonDepthWithin, as for every JSON users give), so the
  // parser never recurses deeper; the callback then stops building once there are too many values.
  if (!util::JsonDepthWithin(text, kMaxJsonDepth)) {
    *error = "invalid JSON: nested deeper than " + std::to_string(kMaxJsonDepth) + " levels";
    return false;
  }
  size_t values = 0;
  Json::parser_callback_t limit = [&](int, Json::parse_event_t event, Json&) {
    if (event == Json::parse_event_t::value) ++values;
    return values <= max_values;
  };
  try {
    *out = Json::parse(text.begin(), text.end(), limit);
  } catch (const Json::exception& e) {
    *error = std::string("invalid JSON: ") + e.what();
    return false;
  }
  if (values > max_values) {
    *error = "the request has more than " + std::to_string(max_values) + " JSON values";
    return false;
  }
  return true;
}

std::string TypeError(const char* name, const char* expected) {
  return std::string("'") + name + "' must be " + expected;
}

}  // namespace

Json ParseJson(std::string_view text, size_t max_values) {
  Json value;
  std::string error;
  if (!Parse(text, max_values, &value, &error)) throw ApiError(400, error);
  return value;
}

bool TryParseJson(std::string_view text, Json* out) {
  std::string error;
  return Parse(text, SIZE_MAX, out, &error);
}

std::string DumpJson(const Json& value) { return value.dump(-1, ' ', false, Json::error_handler_t::replace); }

std::string Base64(const void* data, size_t size) {
  static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const auto* bytes = static_cast<const unsigned char*>(data);
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= size; i += 3) {
    const uint32_t v = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
    out += {kDigits[v >> 18], kDigits[(v >> 12) & 63], kDigits[(v >> 6) & 63], kDigits[v & 63]};
  }
  if (i + 1 == size) {
    const uint32_t v = uint32_t{bytes[i]} << 16;
    out += {kDigits[v >> 18], kDigits[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == size) {
    const uint32_t v = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8);
    out += {kDigits[v >> 18], kDigits[(v >> 12) & 63], kDigits[(v >> 6) & 63], '='};
  }
  return out;
}

const Json& RequireObject(const Json& body) {
  if (!body.is_object()) throw ApiError(400, "the request body must be a JSON object");
  return body;
}

bool GetBool(const Json& body, const char* name, bool fallback) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) throw ApiError(400, TypeError(name, "true or false"));
  return it->get<bool>();
}

uint64_t GetCount(const Json& body, const char* name, uint64_t fallback, uint64_t min, uint64_t max) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return fallback;
  if (!it->is_number_integer() || (it->is_number_integer() && !it->is_number_unsigned() && it->get<int64_t>() < 0) ||
      it->get<uint64_t>() < min || it->get<uint64_t>() > max) {
    throw ApiError(400, TypeError(name, ("a whole number from " + std::to_string(min) + " to " + std::to_string(max)).c_str()));
  }
  return it->get<uint64_t>();
}

double GetNumber(const Json& body, const char* name, double fallback) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return fallback;
  if (!it->is_number() || !std::isfinite(it->get<double>())) throw ApiError(400, TypeError(name, "a number"));
  return it->get<double>();
}

std::string GetString(const Json& body, const char* name, const std::string& fallback) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return fallback;
  if (!it->is_string()) throw ApiError(400, TypeError(name, "a string"));
  return it->get<std::string>();
}

}  // namespace swe::serve
