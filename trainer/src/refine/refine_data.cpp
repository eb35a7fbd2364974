#include "refine/refine_data.h"

#include <algorithm>
#include <random>

#include "data/corpus.h"
#include "swe/model_file.h"
#include "swe/tokenizer.h"

namespace swe::trainer {

Status ReadInitModel(const std::string& path, std::unique_ptr<Model>* out) {
  std::string bytes;
  if (!FileExists(path)) return IoError("init.model not found: " + path);
  SWE_RETURN_IF_ERROR(ReadTextFile(path, &bytes));
  Status st = ReadModel(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), out);
  return st.ok() ? st : Status(st.code(), path + ": " + st.message());
}

Status LoadInitModel(const std::string& path, const VocabExtension& ext, const std::vector<WordCount>& added,
                     InitModel* out) {
  SWE_RETURN_IF_ERROR(ReadInitModel(path, &out->model));
  out->base_rows = out->model->vocab_size();
  ModelContents contents;
  if (ext.empty()) {
    contents = out->model->ToContents();
  } else {  // the extended model, through core's writer and reader, so its tokenizer is inference's
    SWE_RETURN_IF_ERROR(ExtendModel(*out->model, added, ext, &contents));
    std::vector<uint8_t> file;
    WriteOptions wo;
    wo.zstd_level = 0;  // in memory only: compression would cost seconds
    SWE_RETURN_IF_ERROR(WriteModel(contents, wo, &file));
    SWE_RETURN_IF_ERROR(ReadModel(file.data(), file.size(), &out->model));
  }
  out->table.rows = contents.words.size();
  out->table.cols = contents.dims;
  out->table.data = std::move(contents.vectors);
  auto tokenizer = std::make_shared<Tokenizer>(*out->model);
  out->rows = [tokenizer](const std::string& sentence, std::vector<uint32_t>* rows) {
    rows->clear();
    tokenizer->Encode(sentence, rows);
    return !rows->empty();
  };
  return Status::Ok();
}

Status ReadTupleFile(const TupleFile& file, size_t columns, std::mt19937_64* rng,
                     std::vector<std::vector<std::string>>* tuples, uint64_t* read, uint64_t* malformed) {
  SWE_RETURN_IF_ERROR(ReadTuples(file.path, columns, tuples, file.skip_malformed ? malformed : nullptr));
  *read += tuples->size();
  if (file.max > 0 && tuples->size() > file.max) {  // files are grouped (e.g. by image): a random subset
    std::shuffle(tuples->begin(), tuples->end(), *rng);
    tuples->resize(file.max);
  }
  return Status::Ok();
}

Status ReadContrastiveData(const ObjectiveSpec& spec, const RowsFn& rows, uint64_t seed, TupleData* out,
                           TupleStats* stats) {
  const size_t columns = spec.triples ? 3 : 2;
  std::mt19937_64 rng(seed);
  std::vector<std::vector<uint32_t>> sides(columns);
  for (const TupleFile& file : spec.data) {
    std::vector<std::vector<std::string>> tuples;
    SWE_RETURN_IF_ERROR(ReadTupleFile(file, columns, &rng, &tuples, &stats->read, &stats->malformed));
    for (const auto& t : tuples) {
      bool known = true;
      for (size_t c = 0; c < columns; ++c) {
        stats->hash = Fnv1a64(t[c] + (c + 1 < columns ? "\t" : "\n"), stats->hash);
        known = known && rows(t[c], &sides[c]);
      }
      if (!known) continue;
      out->anchor.push_back(sides[0]);
      out->positive.push_back(sides[1]);
      if (columns == 3) out->negative.push_back(sides[2]);
      ++stats->used;
    }
  }
  return Status::Ok();
}

Status CheckContrastiveFiles(const std::vector<ObjectiveSpec>& objectives) {
  for (const ObjectiveSpec& o : objectives) {
    for (const TupleFile& file : o.data) {
      std::vector<std::vector<std::string>> tuples;
      uint64_t skipped = 0;
      SWE_RETURN_IF_ERROR(ReadTuples(file.path, o.triples ? 3 : 2, &tuples, file.skip_malformed ? &skipped : nullptr));
    }
  }
  return Status::Ok();
}

Matrix SentenceMeans(const Matrix& table, const std::vector<std::vector<uint32_t>>& sentences, size_t n) {
  Matrix out;
  out.rows = std::min(n, sentences.size());
  out.cols = table.cols;
  out.data.assign(out.rows * out.cols, 0.0f);
  for (size_t i = 0; i < out.rows; ++i) {
    float* o = out.row(i);
    for (uint32_t r : sentences[i]) {
      for (uint64_t k = 0; k < table.cols; ++k) o[k] += table.row(r)[k];
    }
    for (uint64_t k = 0; k < table.cols; ++k) o[k] /= static_cast<float>(sentences[i].size());
  }
  return out;
}

}  // namespace swe::trainer
