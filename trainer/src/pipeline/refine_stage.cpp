// The refine stage: the student (the PCA table or init.model), its sentences and teacher vectors,
// the objectives' data, training, and the optional compression.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "data/corpus.h"
#include "refine/compress.h"
#include "teachers/extract.h"
#include "pipeline/interrupt.h"
#include "refine/objectives.h"
#include "refine/pca.h"
#include "pipeline/runner.h"
#include "data/sampler.h"
#include "teachers/teacher.h"
#include "data/vocab.h"

namespace swe::trainer {

using nlohmann::json;

namespace {

json ReportStats(const std::vector<ObjectiveSpec>& objectives, const RefineReport& report) {
  std::string method = objectives.size() == 1 ? ObjectiveName(objectives[0].kind) : "objectives";
  json parts = json::array();
  for (size_t i = 0; i < objectives.size() && i < report.best_parts.size(); ++i) {
    parts.push_back({{"kind", ObjectiveName(objectives[i].kind)}, {"weight", objectives[i].weight},
                     {"initial_heldout_loss", report.initial_parts[i]}, {"best_heldout_loss", report.best_parts[i]}});
  }
  return {{"method", method}, {"train_sentences", report.train_sentences},
          {"heldout_sentences", report.heldout_sentences}, {"initial_heldout_loss", report.initial_heldout},
          {"best_heldout_loss", report.best_heldout}, {"best_epoch", report.best_epoch},
          {"train_loss", report.train_loss}, {"heldout_loss", report.heldout_loss}, {"objectives", parts}};
}

std::string ReportLine(const RefineReport& report) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "refine: held-out loss %.5f -> %.5f (best epoch %u of %zu)", report.initial_heldout,
                report.best_heldout, report.best_epoch, report.heldout_loss.size());
  return buf;
}

}  // namespace

// init.model as the student, extended by init.add_vocab: counted afresh (count, in refine; the words
// go to added_words.tsv) or read back from added_words.tsv (export).
Status Runner::InitStudent(bool count, InitModel* init) const {
  std::vector<WordCount> added;
  const VocabExtension& ext = recipe_.init_vocab;
  if (!ext.sources.empty() && count) {
    std::unique_ptr<Model> base;
    std::vector<std::string> lines;
    SWE_RETURN_IF_ERROR(ReadInitModel(recipe_.init_model, &base));
    SWE_RETURN_IF_ERROR(CountNewWords(*base, ext, &added, &lines));
    for (const std::string& l : lines) Log("refine: " + l);
    SWE_RETURN_IF_ERROR(WriteVocab(Path("added_words.tsv"), added));
  } else if (!ext.sources.empty()) {
    SWE_RETURN_IF_ERROR(ReadVocab(Path("added_words.tsv"), &added));
  }
  return LoadInitModel(recipe_.init_model, ext, added, init);
}

// The student to refine: the PCA table and its vocabulary's rows, or init.model's table and tokenizer
// (extended by init.add_vocab; base_rows: the init model's own rows). A sentence's rows are its
// vocabulary words the teacher produced a vector for.
Status Runner::Student(Matrix* table, RowsFn* rows, uint64_t* base_rows) const {
  *base_rows = 0;
  if (!recipe_.init_model.empty()) {
    auto init = std::make_shared<InitModel>();
    SWE_RETURN_IF_ERROR(InitStudent(true, init.get()));
    *table = std::move(init->table);
    *base_rows = init->base_rows;
    *rows = [init](const std::string& s, std::vector<uint32_t>* out) { return init->rows(s, out); };
    return Status::Ok();
  }
  std::vector<WordCount> vocab;
  auto counts = std::make_shared<std::vector<uint32_t>>();
  SWE_RETURN_IF_ERROR(ReadMatrix(Path("table_pca.swm"), table));
  SWE_RETURN_IF_ERROR(ReadVocab(Path("vocab.tsv"), &vocab));
  SWE_RETURN_IF_ERROR(LoadCounts(counts.get()));
  auto index = std::make_shared<VocabLookup>(VocabIndex(vocab));
  const VocabOptions options = recipe_.vocab;
  *rows = [index, counts, options](const std::string& s, std::vector<uint32_t>* out) {
    SentenceRows(s, options, *index, out);
    out->erase(std::remove_if(out->begin(), out->end(), [&](uint32_t r) { return (*counts)[r] == 0; }), out->end());
    return !out->empty();
  };
  return Status::Ok();
}

// The refinement sentences (generic.txt, or with init.model the corpus), refine.sentences of them, as
// rows; with `teacher`, their teacher vectors too, cached on disk under a key of the teacher, the
// sentences and their count.
// The key of the cached teacher vectors: the teacher, the sentences' source and their count.
std::string Runner::TeacherCacheKey() const {
  uint64_t key = recipe_.init_model.empty()
                     ? std::stoull(Key(Stage::kExtract), nullptr, 16)
                     : Fnv1a64(recipe_.sections.at("corpus") + recipe_.sections.at("teacher") + recipe_.init_model);
  return HexU64(Fnv1a64(std::to_string(recipe_.refine_sentences), key));
}

// teacher_cache.key: the key, then the digest of the teacher's files; a teacher that is not here
// counts as unchanged (a finished run refined again elsewhere).
bool Runner::TeacherCached() const {
  std::string cached;
  if (!ReadTextFile(Path("teacher_cache.key"), &cached).ok() || !FileExists(Path("teacher_cache.swm"))) return false;
  const size_t line = cached.find('\n');
  const std::string teacher = TeacherDigest();
  return cached.substr(0, line) == TeacherCacheKey() &&
         (teacher.empty() || (line != std::string::npos && cached.substr(line + 1) == teacher));
}

Status Runner::Sentences(const RowsFn& rows, bool teacher, RefineData* data) const {
  std::vector<std::string> texts, source;
  if (recipe_.init_model.empty()) {
    SWE_RETURN_IF_ERROR(ReadLines(Path("generic.txt"), &source));
  } else {
    SWE_RETURN_IF_ERROR(ForEachSentence(recipe_.corpus, "refine", [&](std::string_view s) {
      source.emplace_back(s);
      return recipe_.refine_sentences == 0 || source.size() < recipe_.refine_sentences;
    }));
  }
  if (recipe_.refine_sentences > 0 && source.size() > recipe_.refine_sentences) source.resize(recipe_.refine_sentences);
  std::vector<uint32_t> row;
  for (const std::string& s : source) {
    if (!rows(s, &row)) continue;
    data->sentences.push_back(row);
    texts.push_back(s);
  }
  if (!teacher) return Status::Ok();
  const std::string cache_key = TeacherCacheKey();
  if (TeacherCached() && ReadMatrix(Path("teacher_cache.swm"), &data->teacher).ok() && data->teacher.rows == texts.size()) {
    Log("refine: using cached teacher vectors (" + std::to_string(texts.size()) + " sentences)");
    return Status::Ok();
  }
  TeacherOptions t = recipe_.teacher;
  t.device = Device();
  std::unique_ptr<Teacher> model;
  SWE_RETURN_IF_ERROR(LoadTeacher(t, &model));
  data->teacher.rows = texts.size();
  data->teacher.cols = model->dims();
  data->teacher.data.assign(texts.size() * model->dims(), 0.0f);
  SWE_RETURN_IF_ERROR(EncodeSentences(*model, texts, recipe_.teacher_batch, "teacher", data->teacher.data.data()));
  SWE_RETURN_IF_ERROR(WriteMatrix(Path("teacher_cache.swm"), data->teacher));
  return WriteTextFile(Path("teacher_cache.key"), cache_key + "\n" + TeacherDigest());
}

// The compress section: a projection fitted on student sentence vectors, folded into the table.
Status Runner::Compress(const RefineData& sentences, const std::string& device, Matrix* table, json* stats) const {
  CompressOptions co = recipe_.compress;
  co.device = device;
  PcaResult projection;
  CompressReport report;
  if (co.method == CompressMethod::kAbtt) {
    std::vector<double> counts(table->rows, 0.0);
    for (size_t i = 0; i < std::min<size_t>(co.sentences, sentences.sentences.size()); ++i) {
      for (uint32_t r : sentences.sentences[i]) counts[r] += 1;
    }
    SWE_RETURN_IF_ERROR(FitAbtt(*table, counts, co.remove, &projection));
  } else {
    SWE_RETURN_IF_ERROR(FitCompression(SentenceMeans(*table, sentences.sentences, co.sentences), nullptr, co, &projection, &report));
  }
  Matrix folded;
  SWE_RETURN_IF_ERROR(ApplyPca(projection, *table, &folded));
  *table = std::move(folded);
  if (co.method == CompressMethod::kAbtt) {
    (*stats)["compress"] = {{"method", "abtt"}, {"remove", co.remove}, {"removed_variances", projection.variances}};
    Log("refine: abtt: removed the mean and the top " + std::to_string(co.remove) +
        (co.remove == 1 ? " direction of " : " directions of ") + std::to_string(table->cols) + " dims (variance " +
        std::to_string(projection.variances.front()) + " first)");
    return Status::Ok();
  }
  (*stats)["compress"] = {{"method", co.method == CompressMethod::kMcr2 ? "mcr2" : "pca"}, {"dims", co.dims},
                          {"initial_rate_reduction", report.initial_rate_reduction},
                          {"final_rate_reduction", report.final_rate_reduction},
                          {"cluster_sizes", report.cluster_sizes}};
  Log("refine: compressed to " + std::to_string(co.dims) + " dims (" + (*stats)["compress"]["method"].get<std::string>() +
      ")" + (co.method == CompressMethod::kMcr2 ? ", rate reduction " + std::to_string(report.initial_rate_reduction) +
                                                      " -> " + std::to_string(report.final_rate_reduction) : ""));
  return Status::Ok();
}

Status Runner::Refine(json* stats) {
  Matrix table;
  RowsFn rows;
  uint64_t base_rows = 0;
  SWE_RETURN_IF_ERROR(Student(&table, &rows, &base_rows));
  const bool teacher = RefineUsesTeacher();
  RefineData sentences;
  if (teacher || recipe_.compress.method != CompressMethod::kNone) SWE_RETURN_IF_ERROR(Sentences(rows, teacher, &sentences));
  std::string device;
  SWE_RETURN_IF_ERROR(ResolveDevice(Device(), &device));
  std::vector<TupleData> tuples(recipe_.objectives.size());
  std::vector<Objective> objectives;
  json data = json::array();
  for (size_t i = 0; i < recipe_.objectives.size(); ++i) {
    Objective o{recipe_.objectives[i], &sentences, &tuples[i]};
    if (o.spec.kind == ObjectiveKind::kContrastive) {
      TupleStats ts;
      SWE_RETURN_IF_ERROR(ReadContrastiveData(o.spec, rows, recipe_.refine_options.seed + i, &tuples[i], &ts));
      data.push_back({{"objective", i}, {"read", ts.read}, {"used", ts.used}, {"malformed_skipped", ts.malformed},
                      {"hash", HexU64(ts.hash)}});
      Log("refine: objective " + std::to_string(i) + " (contrastive): " + std::to_string(ts.used) + " of " +
          std::to_string(ts.read) + " " + (o.spec.triples ? "triples" : "pairs") + " used" +
          (ts.malformed ? ", " + std::to_string(ts.malformed) + " malformed lines skipped" : ""));
    }
    objectives.push_back(o);
  }
  RefineReport report;
  if (!objectives.empty()) {
    RefineOptions ro = recipe_.refine_options;
    ro.device = device;
    if (recipe_.train_new_rows) ro.frozen_rows = base_rows;
    ro.log = [this](const std::string& line) { Log(line); };
    ro.checkpoint = Path("refine.checkpoint");
    ro.checkpoint_key = Key(Stage::kRefine);  // with the data and the table, which RefineObjectives digests
    ro.stop = StopRequested;
    {
      StopPoint stop_point;  // SIGINT/SIGTERM now end the batch and save the checkpoint
      SWE_RETURN_IF_ERROR(RefineObjectives(objectives, ro, &table, &report));
    }
    if (report.interrupted) {
      return IoError("interrupted after " + std::to_string(report.steps) + " steps (" +
                     std::to_string(report.heldout_loss.size()) + " epochs done); checkpoint saved in " + ro.checkpoint);
    }
    *stats = ReportStats(recipe_.objectives, report);
    (*stats)["data"] = data;
    (*stats)["rows"] = table.rows;
    (*stats)["frozen_rows"] = ro.frozen_rows;
    Log(ReportLine(report));
  } else {
    *stats = {{"method", "none"}};
    Log("refine: no objective (method none)");
  }
  if (recipe_.compress.method != CompressMethod::kNone) SWE_RETURN_IF_ERROR(Compress(sentences, device, &table, stats));
  SWE_RETURN_IF_ERROR(WriteMatrix(Path("refined.swm"), table));
  std::error_code ec;
  std::filesystem::remove(Path("refine.checkpoint"), ec);  // refined.swm holds it all now
  return Status::Ok();
}

}  // namespace swe::trainer
