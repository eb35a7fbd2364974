#include "doc_line.h"

#include <nlohmann/json.hpp>

#include "swe/unicode.h"
#include "swe/util/json.h"

namespace swe::cli {
namespace {

DocInput ParseJsonDoc(const std::string& line, const std::string& where) {
  if (!util::JsonDepthWithin(line)) throw CliError(1, where + ": " + util::JsonTooDeepMessage());
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(line);
  } catch (const nlohmann::json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 12: syntax error while parsing
    // value - invalid string: surrogate U+D800..U+DBFF must be followed by U+DC00..U+DFFF; ..."
    const std::string what = e.what();
    const size_t column = what.find("column ");
    throw CliError(1, where + ": not valid JSON" + (column == std::string::npos ? "" : " at " + what.substr(column)));
  } catch (const nlohmann::json::exception& e) {  // e.g. out_of_range.406: a number past a double's range
    throw CliError(1, where + ": not valid JSON: " + util::JsonErrorDetail(e.what()));
  }
  if (!j.is_object()) throw CliError(1, where + ": not a JSON object");
  DocInput doc;
  for (const auto& [key, value] : j.items()) {
    if (key == "text") {
      if (!value.is_string()) throw CliError(1, where + ": \"text\" must be a string");
      doc.text = value.get<std::string>();
    } else if (key == "id") {
      if (value.is_string()) {
        doc.id = value.get<std::string>();
      } else if (value.is_number_integer()) {
        doc.id = value.dump();
      } else {
        throw CliError(1, where + ": \"id\" must be a string or a whole number");
      }
      if (doc.id.empty()) throw CliError(1, where + ": \"id\" is empty");
    } else if (key == "metadata") {
      if (!value.is_null()) doc.metadata = value.dump();
    } else {
      throw CliError(1, where + ": unknown key \"" + key + "\" (known: text, id, metadata)");
    }
  }
  if (!j.contains("text")) throw CliError(1, where + ": no \"text\"");
  return doc;
}

}  // namespace

DocInput ParseDocLine(std::string line, bool json, const std::string& where) {
  // In a JSON line only strings can hold invalid bytes (anywhere else the line is not JSON anyway).
  if (!unicode::IsValidUtf8(line)) line = unicode::ToValidUtf8(line);
  if (!json) return DocInput{"", std::move(line), ""};
  return ParseJsonDoc(line, where);
}

}  // namespace swe::cli
