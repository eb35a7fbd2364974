// The refine stage: the student (the PCA table or init.model), its sentences and teacher vectors,
// the objectives' data, training, and the optional compression.
#include <algorithm>
#include <cstdlib>
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

// The key of the cached teacher vectors: the teacher's section, refine.sentences and the content (not
// the paths) of the sentences' source: generic.txt (the sample stage's), or with init.model the corpus
// files. Sentences also checks a digest of the very sentences (the student's rows decide which are used).
std::string Runner::TeacherCacheKey() const {
  const bool init = !recipe_.init_model.empty();
  std::string key = init ? (recipe_.sections.count("teacher") ? recipe_.sections.at("teacher") : "") : Key(Stage::kExtract);
  for (const std::string& path : init ? recipe_.corpus.paths : std::vector<std::string>{Path("generic.txt")}) {
    key += "\n" + Digest(path);
  }
  return HexU64(Fnv1a64(std::to_string(recipe_.refine_sentences), Fnv1a64(key)));
}

// teacher_cache.key: the key (and the sentences' digest, when given), then the digest of the teacher's
// files; a teacher that is not here counts as unchanged (a finished run refined again elsewhere).
bool Runner::TeacherCached(const std::string& sentences) const {
  std::string cached;
  if (!ReadTextFile(Path("teacher_cache.key"), &cached).ok() || !FileExists(Path("teacher_cache.swm"))) return false;
  const size_t line = cached.find('\n');
  const std::string teacher = TeacherDigest(), key = cached.substr(0, line);
  return key.compare(0, key.find(' '), TeacherCacheKey()) == 0 &&
         (sentences.empty() || key.substr(key.find(' ') + 1) == sentences) &&
         (teacher.empty() || (line != std::string::npos && cached.substr(line + 1) == teacher));
}

// The refinement sentences (generic.txt, or with init.model the corpus), refine.sentences of them, as
// rows; with `teacher`, their teacher vectors too: cached on disk (teacher_cache.swm) and, when the pass
// is stopped (SIGINT), the part done (teacher_cache.partial.swm), which the next run goes on from.
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
  uint64_t digest = Fnv1a64("sentences");
  for (const std::string& text : texts) digest = Fnv1a64(text + "\n", digest);
  const std::string cache_key = TeacherCacheKey() + " " + HexU64(digest);
  if (TeacherCached(HexU64(digest)) && ReadMatrix(Path("teacher_cache.swm"), &data->teacher).ok() && data->teacher.rows == texts.size()) {
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
  EncodeResume resume;
  ResumeTeacherPass(cache_key, model->dims(), &data->teacher, &resume.done);
  resume.stop = StopRequested;
  {
    StopPoint stop_point;  // SIGINT/SIGTERM now end the batch; the vectors so far are saved below
    SWE_RETURN_IF_ERROR(EncodeSentences(*model, texts, recipe_.teacher_batch, "teacher", data->teacher.data.data(), &resume));
  }
  const std::string partial = Path("teacher_cache.partial.swm"), partial_key = Path("teacher_cache.partial.key");
  std::error_code ec;
  if (resume.stopped) {
    std::filesystem::remove(partial_key, ec);  // the key last: it vouches for the vectors
    SWE_RETURN_IF_ERROR(WriteMatrix(partial, data->teacher));
    SWE_RETURN_IF_ERROR(WriteTextFile(partial_key, PartialTeacherKey(cache_key) + std::to_string(resume.done) + "\n"));
    return IoError("interrupted in the teacher pass after " + std::to_string(resume.done) + " of " +
                   std::to_string(texts.size()) + " sentences; they are saved in " + partial);
  }
  SWE_RETURN_IF_ERROR(WriteMatrix(Path("teacher_cache.swm"), data->teacher));
  SWE_RETURN_IF_ERROR(WriteTextFile(Path("teacher_cache.key"), cache_key + "\n" + TeacherDigest()));
  std::filesystem::remove(partial_key, ec);
  std::filesystem::remove(partial, ec);
  return Status::Ok();
}

// A stopped teacher pass's file is used for the same sentences (cache key), teacher and batch size.
std::string Runner::PartialTeacherKey(const std::string& cache_key) const {
  return cache_key + "\n" + TeacherDigest() + "\nbatch " + std::to_string(recipe_.teacher_batch) + "\ndone ";
}

// The vectors of a stopped teacher pass for these sentences, and how many of them are done (in the pass's
// order); none (done 0) when there is no such pass or its files do not fit.
void Runner::ResumeTeacherPass(const std::string& cache_key, size_t dims, Matrix* vectors, size_t* done) const {
  *done = 0;
  std::string saved;
  const std::string key = PartialTeacherKey(cache_key);
  Matrix partial;
  if (!ReadTextFile(Path("teacher_cache.partial.key"), &saved).ok() || saved.compare(0, key.size(), key) != 0 ||
      !ReadMatrix(Path("teacher_cache.partial.swm"), &partial).ok() || partial.rows != vectors->rows ||
      partial.cols != dims) {
    return;
  }
  *done = std::min<size_t>(std::strtoull(saved.c_str() + key.size(), nullptr, 10), vectors->rows);
  *vectors = std::move(partial);
  Log("refine: the teacher pass goes on from sentence " + std::to_string(*done) + " of " + std::to_string(vectors->rows));
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
  if (recipe_.train_new_rows && table.rows == base_rows) {  // before the teacher: nothing it could teach
    return NotFound(std::string(kNoNewWords) + ": every word of the corpus that is frequent enough (min_count) is in " +
                    recipe_.init_model + " already; nothing was trained and " + recipe_.export_path + " was not written");
  }
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
