#include "export.h"

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
  SWE_RETURN_IF_ERROR(WriteModel(c, options, &file));
  std::unique_ptr<Model> check;
  Status read = ReadModel(file.data(), file.size(), &check);
  if (!read.ok()) return Internal("export: the written model does not read back: " + read.ToString());
  SWE_RETURN_IF_ERROR(WriteTextFile(path, std::string(file.begin(), file.end())));
  if (bytes) *bytes = file.size();
  return Status::Ok();
}

}  // namespace swe::trainer
