#include "teacher_token.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "swe/util/file.h"

namespace swe::trainer {

Status LoadTokenizerFile(const std::string& path, const std::function<Status(std::string_view)>& parse) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return IoError("teacher tokenizer not found: " + path);
  std::string text, error;
  if (!util::ReadFile(path, &text, &error)) return IoError(error);
  Status s = parse(text);
  return s.ok() ? s : Status(s.code(), path + ": " + s.message());
}

Status ReadTokenizerJson(std::string_view text, const std::function<Status(const nlohmann::json&)>& read) {
  try {
    nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
    if (j.is_discarded() || !j.is_object()) return Corrupt("tokenizer.json is not a JSON object");
    return read(j);
  } catch (const nlohmann::json::exception& e) {
    return Corrupt(std::string("tokenizer.json: ") + e.what());
  }
}

int32_t FindPiece(const std::unordered_map<std::string, int32_t>& ids, std::string_view piece) {
  auto it = ids.find(std::string(piece));
  return it == ids.end() ? -1 : it->second;
}

SubwordVocab SentencePieceSubwordVocab(const std::vector<std::string>& pieces, const std::vector<double>& scores,
                                       const std::vector<size_t>& ids) {
  SubwordVocab v;
  v.kind = SubwordKind::kUnigram;
  for (size_t i : ids) {
    v.pieces.push_back(pieces[i]);
    v.scores.push_back(static_cast<float>(scores[i]));
  }
  v.word_prefix = "\xE2\x96\x81";
  v.lowercase = false;
  v.strip_accents = false;
  return v;
}

}  // namespace swe::trainer
