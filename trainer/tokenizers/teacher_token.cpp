#include "teacher_token.h"

#include <filesystem>

#include "swe/util/file.h"

namespace swe::trainer {

Status ReadTokenizerFile(const std::string& path, std::string* text) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return IoError("teacher tokenizer not found: " + path);
  std::string error;
  if (!util::ReadFile(path, text, &error)) return IoError(error);
  return Status::Ok();
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
