#include "docs_input.h"

#include <algorithm>
#include <unordered_set>

#include "line_reader.h"
#include "swe/util/progress.h"
#include "swe/util/strings.h"

namespace swe::cli {
namespace {

bool IsJsonLines(const std::string& path) { return util::EndsWith(path, ".jsonl") || util::EndsWith(path, ".ndjson"); }

}  // namespace

std::vector<DocInput> ReadDocInputs(const std::string& path, uint64_t first_default_id) {
  const bool json = IsJsonLines(path);
  LineReader reader(path);
  std::vector<DocInput> docs;
  std::unordered_set<std::string> ids;
  std::string line;
  for (size_t number = 1; reader.Next(&line); ++number) {
    if (util::IsBlank(line)) continue;
    const std::string where = path + ":" + std::to_string(number);
    DocInput doc = ParseDocLine(std::move(line), json, where);
    if (doc.id.empty()) doc.id = std::to_string(first_default_id + number - 1);
    if (!ids.insert(doc.id).second) throw CliError(1, where + ": id '" + doc.id + "' is used twice");
    docs.push_back(std::move(doc));
  }
  return docs;
}

void AddDocs(const swe_model* model, swe_index* index, const std::vector<DocInput>& docs) {
  constexpr size_t kBatch = 4096;
  swe_encode_params params = swe_encode_default_params();
  params.dims = swe_index_get_dims(index);
  std::vector<swe_text> texts;
  std::vector<swe_doc> batch;
  std::vector<float> vectors;
  Check(swe_index_reserve(index, docs.size()));  // too many for one file: said before any is encoded
  util::Progress progress("encoding docs", docs.size());
  for (size_t start = 0; start < docs.size(); start += kBatch) {
    const size_t n = std::min(kBatch, docs.size() - start);
    texts.resize(n);
    batch.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const DocInput& d = docs[start + i];
      texts[i] = {d.text.data(), d.text.size()};
      batch[i] = {{d.id.data(), d.id.size()}, texts[i], {d.metadata.data(), d.metadata.size()}};
    }
    vectors.resize(n * size_t{params.dims});
    Check(swe_model_encode_batch(model, texts.data(), n, &params, vectors.data(), vectors.size(), nullptr));
    Check(swe_index_add_docs(index, batch.data(), vectors.data(), n));
    progress.Update(start + n);
  }
  progress.Finish();
}

}  // namespace swe::cli
