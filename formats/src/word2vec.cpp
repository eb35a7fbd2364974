// `swe convert --from word2vec`: word2vec's text format and GloVe's headerless text.
#include <charconv>
#include <cmath>
#include <string_view>
#include <unordered_set>

#include "chunked_file.h"
#include "swe/formats/readers.h"

namespace swe::formats {
namespace {

// Splits on spaces and tabs, dropping empty fields (word2vec lines end with a space).
void SplitFields(std::string_view line, std::vector<std::string_view>* fields) {
  fields->clear();
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) fields->push_back(line.substr(start, i - start));
  }
}

bool IsCount(std::string_view field, uint64_t* value) {
  auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), *value);
  return ec == std::errc() && ptr == field.data() + field.size();
}

}  // namespace

WordVectors ReadWord2VecText(const std::string& path, const WordFilter& keep, size_t top) {
  ChunkedFile file(path, "reading");
  WordVectors out;
  std::unordered_set<std::string> seen;
  std::string line;
  std::vector<std::string_view> fields;
  uint64_t line_number = 0;
  bool dims_known = false;
  while ((top == 0 || out.words.size() < top) && file.ReadLine(&line)) {
    ++line_number;
    SplitFields(line, &fields);
    if (fields.empty()) continue;
    const std::string where = path + ":" + std::to_string(line_number) + ": ";
    uint64_t rows = 0, dims = 0;
    if (line_number == 1 && fields.size() == 2 && IsCount(fields[0], &rows) && IsCount(fields[1], &dims)) {
      if (dims == 0 || dims > 1'000'000) throw FormatError(where + "header declares " + std::to_string(dims) + " dimensions");
      out.dims = static_cast<uint32_t>(dims);
      dims_known = true;
      continue;
    }
    if (!dims_known) {
      if (fields.size() < 2) throw FormatError(where + "expected a word and its values");
      out.dims = static_cast<uint32_t>(fields.size() - 1);
      dims_known = true;
    }
    std::string word(fields[0]);
    ++out.entries;
    if (fields.size() - 1 != out.dims) {
      throw FormatError(where + "'" + word + "' has " + std::to_string(fields.size() - 1) + " values, expected " +
                            std::to_string(out.dims));
    }
    if (seen.count(word) || !keep(word)) continue;
    for (size_t i = 1; i < fields.size(); ++i) {
      float value = 0;
      std::string_view field = fields[i];
      auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
      if (ec != std::errc() || ptr != field.data() + field.size() || !std::isfinite(value)) {
        throw FormatError(where + "value " + std::to_string(i) + " of '" + word + "' ('" + std::string(field) +
                              "') is not a finite float");
      }
      out.vectors.push_back(value);
    }
    seen.insert(word);
    out.words.push_back(std::move(word));
  }
  file.Finish();
  return out;
}

}  // namespace swe::formats
