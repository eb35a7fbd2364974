#include "recipe/section_reader.h"

#include "swe/util/json.h"

namespace swe::trainer {
namespace {
const nlohmann::json kAbsent;  // null: an absent section reads as empty
}  // namespace

RecipeSection::RecipeSection(const nlohmann::json& j, std::string where) : j_(j), where_(std::move(where)) {}

const nlohmann::json& RecipeSection::Sub(const char* key) {
  read_.insert(key);
  return Has(key) ? j_.at(key) : kAbsent;
}

Status RecipeSection::Done() const {
  if (j_.is_null()) return Status::Ok();
  if (!j_.is_object()) {
    return InvalidArgument(where_.empty() ? "recipe: the recipe must be a JSON object"
                                          : "recipe: '" + where_ + "' must be an object");
  }
  if (!error_.ok()) return error_;
  for (auto it = j_.begin(); it != j_.end(); ++it) {
    if (!read_.count(it.key())) return InvalidArgument("recipe: unknown key '" + Where(it.key()) + "'");
  }
  return Status::Ok();
}

Status ParseRecipeJson(std::string_view text, nlohmann::json* out) {
  try {
    *out = nlohmann::json::parse(text.begin(), text.end());
    return Status::Ok();
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte: 1-based offset of the byte where parsing failed.
    size_t end = std::min<size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
    size_t line = 1, column = 1;
    for (size_t i = 0; i < end; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string what = e.what();
    size_t detail = what.find("parse error");
    return InvalidArgument("recipe: invalid JSON at line " + std::to_string(line) + ", column " +
                           std::to_string(column) + ": " + (detail == std::string::npos ? what : what.substr(detail)));
  } catch (const nlohmann::json::exception& e) {  // e.g. out_of_range.406: a number past a double's range
    return InvalidArgument("recipe: invalid JSON: " + util::JsonErrorDetail(e.what()));
  }
}

}  // namespace swe::trainer
