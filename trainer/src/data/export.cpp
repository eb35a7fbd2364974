#include "data/export.h"

#include <nlohmann/json.hpp>

namespace swe::trainer {

Status ExportModel(const ExportInputs& in, DType dtype, const std::string& path, size_t* bytes) {
  if (in.words.size() != in.table.rows) return InvalidArgument("export: one word per table row is needed");
  if (!in.counts.empty() && in.counts.size() != in.words.size()) return InvalidArgument("export: counts size");
  ModelContents c;
  c.dims = static_cast<uint32_t>(in.table.cols);
  c.normalize = in.normalize;
  c.tokenizer = in.tokenizer;
  c.provenance = in.provenance;
  for (size_t r = 0; r < in.words.size(); ++r) {
    if (!in.counts.empty() && in.counts[r] == 0) continue;
    c.words.push_back(in.words[r]);
    c.vectors.insert(c.vectors.end(), in.table.row(r), in.table.row(r) + in.table.cols);
  }
  if (c.words.empty()) return InvalidArgument("export: no word has a vector");
  std::vector<uint8_t> file;
  WriteOptions options;
  options.dtype = dtype;
  options.zstd_level = in.zstd_level;
  SWE_RETURN_IF_ERROR(WriteModel(c, options, &file));
  std::unique_ptr<Model> check;
  Status read = ReadModel(file.data(), file.size(), &check);
  if (!read.ok()) return Internal("export: the written model does not read back: " + read.ToString());
  SWE_RETURN_IF_ERROR(WriteTextFile(path, std::string(file.begin(), file.end())));
  if (bytes) *bytes = file.size();
  return Status::Ok();
}

Status WriteSubwordVocab(const std::string& path, const SubwordVocab& v) {
  nlohmann::json j = {{"kind", static_cast<int>(v.kind)}, {"pieces", v.pieces}, {"scores", v.scores},
                      {"continuation_prefix", v.continuation_prefix}, {"word_prefix", v.word_prefix},
                      {"lowercase", v.lowercase}, {"strip_accents", v.strip_accents},
                      {"max_piece_bytes", v.max_piece_bytes}};
  try {
    return WriteTextFile(path, j.dump() + "\n");
  } catch (const nlohmann::json::exception& e) {  // a piece that is not UTF-8
    return InvalidArgument("the teacher's subword vocabulary cannot be saved as JSON: " + std::string(e.what()));
  }
}

Status ReadSubwordVocab(const std::string& path, SubwordVocab* v) {
  std::string text;
  SWE_RETURN_IF_ERROR(ReadTextFile(path, &text));
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    const int kind = j.at("kind").get<int>();
    if (kind < 0 || kind > static_cast<int>(SubwordKind::kUnigram)) return Corrupt(path + ": unknown subword kind");
    *v = SubwordVocab();
    v->kind = static_cast<SubwordKind>(kind);
    j.at("pieces").get_to(v->pieces);
    j.at("scores").get_to(v->scores);
    j.at("continuation_prefix").get_to(v->continuation_prefix);
    j.at("word_prefix").get_to(v->word_prefix);
    j.at("lowercase").get_to(v->lowercase);
    j.at("strip_accents").get_to(v->strip_accents);
    j.at("max_piece_bytes").get_to(v->max_piece_bytes);
  } catch (const nlohmann::json::exception& e) {
    return Corrupt(path + ": " + e.what() + ": re-run extract");
  }
  return Status::Ok();
}

}  // namespace swe::trainer
