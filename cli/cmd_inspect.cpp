// swe info, swe tokenize: look inside a model.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swe/unicode.h"
#include "swe/util/args.h"
#include "commands.h"
#include "common.h"
#include "line_reader.h"

namespace swe::cli {
namespace {

constexpr const char* kInfoUsage =
    "usage: swe info MODEL [--json]\n"
    "\n"
    "Describes a .swe model: name, size, table type, provenance and scores.\n"
    "\n"
    "options:\n"
    "  --json    print the model's information as one JSON object\n";

constexpr const char* kTokenizeUsage =
    "usage: swe tokenize MODEL [--json] TEXT...\n"
    "       swe tokenize MODEL --count FILE\n"
    "\n"
    "Shows each word of TEXT (several arguments are joined with spaces) and how it matched the vocabulary:\n"
    "exact, folded (case-folded), stripped (accents removed), prefix (a subword prefix) or unknown (skipped).\n"
    "\n"
    "options:\n"
    "  --json    one JSON object: {\"text\", \"known_words\", \"tokens\": [{\"word\", \"begin\", \"end\" (bytes),\n"
    "            \"match\", \"row\" (-1 when unknown), \"vocabulary_word\"}]}\n"
    "  --count FILE  tokenize each line of FILE (- for stdin) instead and print \"word<TAB>count\" for\n"
    "            every vocabulary row in row order: how often the row was matched (corpus frequencies for\n"
    "            word weights, scripts/word_weights.py)\n";

std::string Megabytes(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f MB", bytes / 1e6);
  return text;
}

std::string Text(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_boolean()) return it->get<bool>() ? "yes" : "no";
  return it->dump();
}

void Row(const std::string& label, const std::string& value) {
  if (!value.empty()) std::printf("%-*s %s\n", 12, label.c_str(), value.c_str());
}

// Code points in `s` (for aligning columns of UTF-8 text).
size_t Width(const std::string& s) { return unicode::CountCodePoints(s); }

std::string Pad(const std::string& s, size_t width) {
  size_t w = Width(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}

// --count: how often each vocabulary row is matched over the lines of `path`.
int CountRows(const swe_model* model, const std::string& path) {
  std::vector<uint64_t> counts(swe_model_get_vocab_size(model), 0);
  std::vector<swe_token> tokens;
  LineReader lines(path);
  std::string line;
  uint64_t n_lines = 0, n_words = 0, n_known = 0;
  while (lines.Next(&line)) {
    size_t n = 0;
    Check(swe_model_analyze_text(model, line.data(), line.size(), nullptr, 0, &n));
    tokens.resize(n);
    Check(swe_model_analyze_text(model, line.data(), line.size(), tokens.data(), tokens.size(), &n));
    for (const swe_token& t : tokens) {
      if (t.row < 0) continue;
      ++counts[static_cast<size_t>(t.row)];
      ++n_known;
    }
    n_words += n;
    ++n_lines;
  }
  for (uint32_t row = 0; row < counts.size(); ++row) {
    const char* data = nullptr;
    size_t size = 0;
    Check(swe_model_get_word(model, row, &data, &size));
    std::printf("%.*s\t%llu\n", static_cast<int>(size), data, static_cast<unsigned long long>(counts[row]));
  }
  std::fprintf(stderr, "%llu lines, %llu words, %llu known\n", static_cast<unsigned long long>(n_lines),
               static_cast<unsigned long long>(n_words), static_cast<unsigned long long>(n_known));
  return 0;
}

}  // namespace

int RunInfo(const Args& args) {
  const std::string command = "swe info";
  util::ParsedArgs parsed = util::ParseArgs(args, {{"json", 0, false}}, command);
  if (parsed.help) {
    std::fputs(kInfoUsage, stdout);
    return 0;
  }
  if (parsed.positional.size() != 1) throw util::UsageError("expected one MODEL", command);
  ModelPtr model = LoadModel(parsed.positional[0]);
  const char* info = swe_model_get_info_json(model.get());
  if (parsed.has("json")) {
    std::printf("%s\n", info);
    return 0;
  }
  nlohmann::json j = nlohmann::json::parse(info);
  Row("name", Text(j, "name"));
  Row("description", Text(j, "description"));
  if (j.value("placeholder", false)) Row("placeholder", "yes: not a distilled model, for development only");
  Row("dims", Text(j, "dims"));
  Row("vocabulary", Text(j, "vocab_size") + " words");
  Row("dtype", Text(j, "dtype"));
  Row("file size", Megabytes(j.value("file_size", uint64_t{0})));
  Row("normalize", Text(j, "normalize"));
  Row("weighted", Text(j, "weighted"));
  Row("checksum", Text(j, "checksum"));
  Row("teacher", Text(j, "teacher"));
  Row("corpus", Text(j, "corpus"));
  Row("corpus hash", Text(j, "corpus_hash"));
  // A trained model's recipe is a page of JSON: a summary here, the whole text with --json.
  const std::string recipe = Text(j, "recipe");
  const bool short_recipe = recipe.size() <= 80 && recipe.find('\n') == std::string::npos;
  Row("recipe", short_recipe ? recipe : std::to_string(recipe.size()) + " bytes of JSON (swe info --json shows it)");
  Row("created by", Text(j, "created_by"));
  const nlohmann::json& tok = j["tokenizer"];
  std::string tokenizer = "fold_case=" + Text(tok, "fold_case") + " strip_accents=" + Text(tok, "strip_accents") +
                          " cjk=" + Text(tok, "cjk") + " subword=" + Text(tok, "subword");
  if (tok.value("subword_pieces", 0) > 0) tokenizer += " (" + Text(tok, "subword_pieces") + " pieces)";
  if (tok.value("max_tokens", 0) > 0) tokenizer += " max_tokens=" + Text(tok, "max_tokens");
  Row("tokenizer", tokenizer);
  for (const auto& score : j["scores"]) {
    char value[32];
    std::snprintf(value, sizeof value, "%.4f", score.value("value", 0.0));
    Row("score", Text(score, "task") + " " + Text(score, "metric") + " " + value);
  }
  for (const auto& [key, value] : j["extra"].items()) Row(key, value.is_string() ? value.get<std::string>() : value.dump());
  return 0;
}

int RunTokenize(const Args& args) {
  const std::string command = "swe tokenize";
  util::ParsedArgs parsed = util::ParseArgs(args, {{"json", 0, false}, {"count", 0, true}}, command);
  if (parsed.help) {
    std::fputs(kTokenizeUsage, stdout);
    return 0;
  }
  if (parsed.has("count")) {
    if (parsed.positional.size() != 1) throw util::UsageError("--count FILE takes one MODEL and no TEXT", command);
    if (parsed.has("json")) throw util::UsageError("--json does not apply to --count", command);
    ModelPtr model = LoadModel(parsed.positional[0]);
    return CountRows(model.get(), parsed.get("count"));
  }
  if (parsed.positional.size() < 2) throw util::UsageError("expected MODEL and TEXT", command);
  ModelPtr model = LoadModel(parsed.positional[0]);
  std::string text = parsed.positional[1];
  for (size_t i = 2; i < parsed.positional.size(); ++i) text += " " + parsed.positional[i];
  size_t n = 0;
  Check(swe_model_analyze_text(model.get(), text.data(), text.size(), nullptr, 0, &n));
  std::vector<swe_token> tokens(n);
  Check(swe_model_analyze_text(model.get(), text.data(), text.size(), tokens.data(), tokens.size(), &n));
  struct TokenRow {
    std::string word, row, entry;
  };
  std::vector<TokenRow> rows;
  size_t known = 0, width = 4;
  for (const swe_token& t : tokens) {
    TokenRow r{text.substr(t.begin, t.end - t.begin), "-", ""};
    if (t.row >= 0) {
      ++known;
      r.row = std::to_string(t.row);
      const char* data = nullptr;
      size_t size = 0;
      Check(swe_model_get_word(model.get(), static_cast<uint32_t>(t.row), &data, &size));
      r.entry.assign(data, size);
    }
    width = std::max(width, Width(r.word));
    rows.push_back(std::move(r));
  }
  if (parsed.has("json")) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (size_t i = 0; i < tokens.size(); ++i) {
      list.push_back({{"word", rows[i].word}, {"begin", tokens[i].begin}, {"end", tokens[i].end},
                      {"match", swe_match_name(tokens[i].match)}, {"row", tokens[i].row},
                      {"vocabulary_word", rows[i].entry}});
    }
    PrintLine(JsonLine({{"text", text}, {"known_words", known}, {"tokens", std::move(list)}}));
    return 0;
  }
  std::printf("%s  %-8s  %8s  %s\n", Pad("word", width).c_str(), "match", "row", "vocabulary word");
  for (size_t i = 0; i < tokens.size(); ++i) {
    std::printf("%s  %-8s  %8s  %s\n", Pad(rows[i].word, width).c_str(), swe_match_name(tokens[i].match),
                rows[i].row.c_str(), rows[i].entry.c_str());
  }
  std::printf("%zu words: %zu known, %zu skipped\n", tokens.size(), known, tokens.size() - known);
  return 0;
}

}  // namespace swe::cli
