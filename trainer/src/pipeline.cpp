#include "pipeline.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>

#include "export.h"
#include "extract.h"
#include "matrix_io.h"
#include "pca.h"
#include "compress.h"
#include "objectives.h"
#include "refine.h"
#include "refine_data.h"
#include "sampler.h"
#include "teacher.h"
#include "vocab.h"

#ifndef SWE_TRAINER_VERSION
#define SWE_TRAINER_VERSION "dev"
#endif

namespace swe::trainer {
namespace {
using nlohmann::json;

const char* kStageNames[kStageCount] = {"vocab", "sample", "extract", "pca", "refine", "export"};

class Runner {
 public:
  Runner(const Recipe& r, const RunOptions& o) : r_(r), o_(o) {}
  Status Run();

 private:
  std::string Path(const std::string& name) const { return r_.work_dir + "/" + name; }
  std::string Key(Stage s) const;
  bool UpToDate(Stage s) const;
  Status WriteMarker(Stage s, const json& stats) const;
  Status ReadMarker(Stage s, json* out) const;
  void Log(const std::string& line) const;
  std::string Device() const;
  Status LoadCounts(std::vector<uint32_t>* counts) const;
  Status Plan(std::vector<bool>* runs) const;

  Status Vocab(json* stats);
  Status Sample(json* stats);
  Status Extract(json* stats);
  Status Pca(json* stats);
  Status Refine(json* stats);
  Status Student(Matrix* table, RowsFn* rows, uint64_t* base_rows) const;
  Status InitStudent(bool count, InitModel* init) const;
  Status Sentences(const RowsFn& rows, bool teacher, RefineData* data) const;
  Status Compress(const RefineData& sentences, const std::string& device, Matrix* table, json* stats) const;
  bool Skipped(Stage s) const { return !r_.init_model.empty() && s < Stage::kRefine; }
  Status Export(json* stats);

  const Recipe& r_;
  const RunOptions& o_;
};

void Runner::Log(const std::string& line) const {
  if (o_.log) o_.log(line);
  else std::cerr << line << "\n";
}

std::string Runner::Device() const { return o_.device.empty() ? r_.device : o_.device; }

std::string Runner::Key(Stage s) const {
  static const char* kSections[kStageCount][4] = {
      {"corpus", "tokenizer", "vocab", ""}, {"sample", "seed", "", ""}, {"teacher", "", "", ""}, {"pca", "", "", ""},
      {"refine", "seed", "init", "compress"}, {"export", "", "", ""}};
  uint64_t h = 14695981039346656037ull;
  for (int i = 0; i <= static_cast<int>(s); ++i) {
    h = Fnv1a64(kStageNames[i], h);
    for (const char* sec : kSections[i]) {
      if (*sec && r_.sections.count(sec)) h = Fnv1a64(r_.sections.at(sec), h);  // init, compress: optional
    }
  }
  if (s == Stage::kExport) h = Fnv1a64(r_.name + "\n" + r_.description, h);
  return HexU64(h);
}

Status Runner::ReadMarker(Stage s, json* out) const {
  std::string text;
  SWE_RETURN_IF_ERROR(ReadTextFile(Path(std::string(kStageNames[static_cast<int>(s)]) + ".json"), &text));
  *out = json::parse(text, nullptr, false);
  if (!out->is_object()) return Corrupt("bad stage marker for " + std::string(StageName(s)));
  return Status::Ok();
}

bool Runner::UpToDate(Stage s) const {
  json m;
  return ReadMarker(s, &m).ok() && m.value("key", "") == Key(s);
}

Status Runner::WriteMarker(Stage s, const json& stats) const {
  json m = {{"stage", StageName(s)}, {"key", Key(s)}, {"stats", stats}};
  return WriteTextFile(Path(std::string(StageName(s)) + ".json"), m.dump(2) + "\n");
}

Status Runner::LoadCounts(std::vector<uint32_t>* counts) const {
  std::vector<std::string> lines;
  SWE_RETURN_IF_ERROR(ReadLines(Path("counts.tsv"), &lines));
  counts->clear();
  for (const std::string& l : lines) counts->push_back(static_cast<uint32_t>(std::strtoul(l.c_str(), nullptr, 10)));
  return Status::Ok();
}

Status Runner::Vocab(json* stats) {
  WordCounter counter(r_.vocab);
  uint64_t hash = 14695981039346656037ull;
  SWE_RETURN_IF_ERROR(ForEachSentence(r_.corpus, "vocab", [&](std::string_view s) {
    counter.AddSentence(s);
    hash = Fnv1a64("\n", Fnv1a64(s, hash));
    return true;
  }));
  if (counter.sentences() == 0) {
    std::string paths;
    for (const auto& p : r_.corpus.paths) paths += (paths.empty() ? "" : ", ") + p;
    return InvalidArgument("the corpus is empty (no non-blank line in " + paths + ")");
  }
  std::vector<WordCount> vocab = counter.Top();
  if (vocab.empty()) {
    return InvalidArgument("no word occurs at least vocab.min_count = " + std::to_string(r_.vocab.min_count) +
                           " times in the corpus");
  }
  SWE_RETURN_IF_ERROR(WriteVocab(Path("vocab.tsv"), vocab));
  *stats = {{"sentences", counter.sentences()}, {"tokens", counter.tokens()}, {"distinct_words", counter.distinct()},
            {"vocab_size", vocab.size()}, {"corpus_hash", HexU64(hash)}};
  Log("vocab: " + std::to_string(vocab.size()) + " words (of " + std::to_string(counter.distinct()) +
      " distinct) from " + std::to_string(counter.sentences()) + " sentences");
  return Status::Ok();
}

Status Runner::Sample(json* stats) {
  std::vector<WordCount> vocab;
  SWE_RETURN_IF_ERROR(ReadVocab(Path("vocab.tsv"), &vocab));
  CoverageSampler sampler(vocab, r_.vocab, r_.sample);
  SWE_RETURN_IF_ERROR(ForEachSentence(r_.corpus, "sample", [&](std::string_view s) {
    sampler.Offer(s);
    return !(sampler.complete() && r_.sample.generic == 0);
  }));
  SWE_RETURN_IF_ERROR(WriteSamples(Path("samples.tsv"), sampler.samples()));
  SWE_RETURN_IF_ERROR(WriteLines(Path("generic.txt"), sampler.generic()));
  SampleStats s = sampler.stats();
  *stats = {{"sentences_seen", s.sentences_seen}, {"forward_passes", s.sentences_kept},
            {"naive_forward_passes", s.naive_passes}, {"samples", s.pairs}, {"words_short", s.words_short},
            {"generic_sentences", sampler.generic().size()}};
  double ratio = s.sentences_kept ? static_cast<double>(s.naive_passes) / static_cast<double>(s.sentences_kept) : 0;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1fx", ratio);
  Log("sample: " + std::to_string(s.sentences_kept) + " teacher forward passes for " + std::to_string(s.pairs) +
      " samples (naive |V|xN = " + std::to_string(s.naive_passes) + ", " + buf + " fewer); " +
      std::to_string(s.words_short) + " words have fewer than N = " + std::to_string(r_.sample.per_word) +
      " sentences; " + std::to_string(sampler.generic().size()) + " generic sentences");
  return Status::Ok();
}

Status Runner::Extract(json* stats) {
  std::vector<WordCount> vocab;
  std::vector<SampledSentence> samples;
  SWE_RETURN_IF_ERROR(ReadVocab(Path("vocab.tsv"), &vocab));
  SWE_RETURN_IF_ERROR(ReadSamples(Path("samples.tsv"), static_cast<uint32_t>(vocab.size()), &samples));
  TeacherOptions t = r_.teacher;
  t.device = Device();
  std::unique_ptr<Teacher> teacher;
  SWE_RETURN_IF_ERROR(LoadTeacher(t, &teacher));
  ExtractOptions eo;
  eo.batch_size = r_.teacher_batch;
  ExtractResult result;
  SWE_RETURN_IF_ERROR(ExtractWordVectors(*teacher, samples, vocab, r_.vocab, eo, &result));
  SWE_RETURN_IF_ERROR(WriteMatrix(Path("vectors.swm"), result.vectors));
  SWE_RETURN_IF_ERROR(WriteSubwordVocab(Path("subword.json"), teacher->subword_vocab()));
  std::vector<std::string> lines;
  uint64_t found = 0;
  for (uint32_t c : result.counts) {
    lines.push_back(std::to_string(c));
    found += c > 0;
  }
  SWE_RETURN_IF_ERROR(WriteLines(Path("counts.tsv"), lines));
  *stats = {{"teacher", teacher->name()}, {"dims", teacher->dims()}, {"forward_passes", result.forward_passes},
            {"words_with_vectors", found}, {"vocab_size", vocab.size()}};
  Log("extract: " + std::to_string(found) + " of " + std::to_string(vocab.size()) + " words, " +
      std::to_string(teacher->dims()) + " dims, " + std::to_string(result.forward_passes) + " forward passes");
  return Status::Ok();
}

Status Runner::Pca(json* stats) {
  Matrix vectors;
  std::vector<uint32_t> counts;
  SWE_RETURN_IF_ERROR(ReadMatrix(Path("vectors.swm"), &vectors));
  SWE_RETURN_IF_ERROR(LoadCounts(&counts));
  if (counts.size() != vectors.rows) return Corrupt("counts.tsv does not match vectors.swm: re-run extract");
  if (r_.pca_mode == PcaMode::kNone) {
    SWE_RETURN_IF_ERROR(WriteMatrix(Path("table_pca.swm"), vectors));
    *stats = {{"mode", "none"}, {"dims", vectors.cols}};
    Log("pca: skipped (mode none), " + std::to_string(vectors.cols) + " dims");
    return Status::Ok();
  }
  Matrix x;
  if (r_.pca_mode == PcaMode::kSentence) {
    std::vector<WordCount> vocab;
    std::vector<std::string> generic;
    SWE_RETURN_IF_ERROR(ReadVocab(Path("vocab.tsv"), &vocab));
    SWE_RETURN_IF_ERROR(ReadLines(Path("generic.txt"), &generic));
    VocabLookup index = VocabIndex(vocab);
    std::vector<std::vector<uint32_t>> rows(generic.size());
    for (size_t i = 0; i < generic.size(); ++i) SentenceRows(generic[i], r_.vocab, index, &rows[i]);
    x = SentenceAverages(vectors, rows, counts);
  } else {
    x.cols = vectors.cols;
    for (uint64_t r = 0; r < vectors.rows; ++r) {
      if (counts[r] == 0) continue;
      x.data.insert(x.data.end(), vectors.row(r), vectors.row(r) + vectors.cols);
      ++x.rows;
    }
  }
  PcaResult pca;
  SWE_RETURN_IF_ERROR(FitPca(x, r_.pca, &pca));
  Matrix table, mean;
  SWE_RETURN_IF_ERROR(ApplyPca(pca, vectors, &table));
  for (uint64_t r = 0; r < table.rows; ++r) {  // words never seen keep a zero row (dropped at export)
    if (counts[r] == 0) std::fill(table.row(r), table.row(r) + table.cols, 0.0f);
  }
  mean.rows = 1;
  mean.cols = pca.mean.size();
  mean.data = pca.mean;
  SWE_RETURN_IF_ERROR(WriteMatrix(Path("table_pca.swm"), table));
  SWE_RETURN_IF_ERROR(WriteMatrix(Path("pca_mean.swm"), mean));
  SWE_RETURN_IF_ERROR(WriteMatrix(Path("pca_components.swm"), pca.components));
  double kept = std::accumulate(pca.variances.begin(), pca.variances.end(), 0.0);
  double removed = std::accumulate(pca.removed_variances.begin(), pca.removed_variances.end(), 0.0);
  *stats = {{"mode", r_.pca_mode == PcaMode::kSentence ? "sentence" : "word"}, {"rows", x.rows},
            {"in_dims", pca.in_dims}, {"out_dims", pca.out_dims}, {"removed", pca.removed},
            {"kept_variance", kept}, {"removed_variance", removed}};
  Log("pca: " + std::string(r_.pca_mode == PcaMode::kSentence ? "sentence" : "word") + "-level on " +
      std::to_string(x.rows) + " rows, " + std::to_string(pca.in_dims) + " -> " + std::to_string(pca.out_dims) +
      " dims, " + std::to_string(pca.removed) + " top components removed");
  return Status::Ok();
}

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

// init.model as the student, extended by init.add_vocab: counted afresh (count, in refine; the words
// go to added_words.tsv) or read back from added_words.tsv (export).
Status Runner::InitStudent(bool count, InitModel* init) const {
  std::vector<WordCount> added;
  const VocabExtension& ext = r_.init_vocab;
  if (!ext.sources.empty() && count) {
    std::unique_ptr<Model> base;
    std::vector<std::string> lines;
    SWE_RETURN_IF_ERROR(ReadInitModel(r_.init_model, &base));
    SWE_RETURN_IF_ERROR(CountNewWords(*base, ext, &added, &lines));
    for (const std::string& l : lines) Log("refine: " + l);
    SWE_RETURN_IF_ERROR(WriteVocab(Path("added_words.tsv"), added));
  } else if (!ext.sources.empty()) {
    SWE_RETURN_IF_ERROR(ReadVocab(Path("added_words.tsv"), &added));
  }
  return LoadInitModel(r_.init_model, ext, added, init);
}

// The student to refine: the PCA table and its vocabulary's rows, or init.model's table and tokenizer
// (extended by init.add_vocab; base_rows: the init model's own rows). A sentence's rows are its
// vocabulary words the teacher produced a vector for.
Status Runner::Student(Matrix* table, RowsFn* rows, uint64_t* base_rows) const {
  *base_rows = 0;
  if (!r_.init_model.empty()) {
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
  const VocabOptions options = r_.vocab;
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
Status Runner::Sentences(const RowsFn& rows, bool teacher, RefineData* data) const {
  std::vector<std::string> texts, source;
  uint64_t key = std::stoull(Key(Stage::kExtract), nullptr, 16);
  if (r_.init_model.empty()) {
    SWE_RETURN_IF_ERROR(ReadLines(Path("generic.txt"), &source));
  } else {
    SWE_RETURN_IF_ERROR(ForEachSentence(r_.corpus, "refine", [&](std::string_view s) {
      source.emplace_back(s);
      return r_.refine_sentences == 0 || source.size() < r_.refine_sentences;
    }));
    key = Fnv1a64(r_.sections.at("corpus") + r_.sections.at("teacher") + r_.init_model);
  }
  if (r_.refine_sentences > 0 && source.size() > r_.refine_sentences) source.resize(r_.refine_sentences);
  std::vector<uint32_t> row;
  for (const std::string& s : source) {
    if (!rows(s, &row)) continue;
    data->sentences.push_back(row);
    texts.push_back(s);
  }
  if (!teacher) return Status::Ok();
  std::string cache_key = HexU64(Fnv1a64(std::to_string(r_.refine_sentences), key));
  std::string cached_key;
  if (ReadTextFile(Path("teacher_cache.key"), &cached_key).ok() && cached_key == cache_key &&
      ReadMatrix(Path("teacher_cache.swm"), &data->teacher).ok() && data->teacher.rows == texts.size()) {
    Log("refine: using cached teacher vectors (" + std::to_string(texts.size()) + " sentences)");
    return Status::Ok();
  }
  TeacherOptions t = r_.teacher;
  t.device = Device();
  std::unique_ptr<Teacher> model;
  SWE_RETURN_IF_ERROR(LoadTeacher(t, &model));
  data->teacher.rows = texts.size();
  data->teacher.cols = model->dims();
  data->teacher.data.assign(texts.size() * model->dims(), 0.0f);
  SWE_RETURN_IF_ERROR(EncodeSentences(*model, texts, r_.teacher_batch, "teacher", data->teacher.data.data()));
  SWE_RETURN_IF_ERROR(WriteMatrix(Path("teacher_cache.swm"), data->teacher));
  return WriteTextFile(Path("teacher_cache.key"), cache_key);
}

// The compress section: a projection fitted on student sentence vectors, folded into the table.
Status Runner::Compress(const RefineData& sentences, const std::string& device, Matrix* table, json* stats) const {
  CompressOptions co = r_.compress;
  co.device = device;
  PcaResult projection;
  CompressReport report;
  SWE_RETURN_IF_ERROR(FitCompression(SentenceMeans(*table, sentences.sentences, co.sentences), nullptr, co, &projection, &report));
  Matrix folded;
  SWE_RETURN_IF_ERROR(ApplyPca(projection, *table, &folded));
  *table = std::move(folded);
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
  bool teacher = false;
  for (const ObjectiveSpec& o : r_.objectives) teacher = teacher || o.kind != ObjectiveKind::kContrastive;
  RefineData sentences;
  if (teacher || r_.compress.method != CompressMethod::kNone) SWE_RETURN_IF_ERROR(Sentences(rows, teacher, &sentences));
  std::string device;
  SWE_RETURN_IF_ERROR(ResolveDevice(Device(), &device));
  std::vector<TupleData> tuples(r_.objectives.size());
  std::vector<Objective> objectives;
  json data = json::array();
  for (size_t i = 0; i < r_.objectives.size(); ++i) {
    Objective o{r_.objectives[i], &sentences, &tuples[i]};
    if (o.spec.kind == ObjectiveKind::kContrastive) {
      TupleStats ts;
      SWE_RETURN_IF_ERROR(ReadContrastiveData(o.spec, rows, r_.refine_options.seed + i, &tuples[i], &ts));
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
    RefineOptions ro = r_.refine_options;
    ro.device = device;
    if (r_.train_new_rows) ro.frozen_rows = base_rows;
    ro.log = [this](const std::string& line) { Log(line); };
    SWE_RETURN_IF_ERROR(RefineObjectives(objectives, ro, &table, &report));
    *stats = ReportStats(r_.objectives, report);
    (*stats)["data"] = data;
    (*stats)["rows"] = table.rows;
    (*stats)["frozen_rows"] = ro.frozen_rows;
    Log(ReportLine(report));
  } else {
    *stats = {{"method", "none"}};
    Log("refine: no objective (method none)");
  }
  if (r_.compress.method != CompressMethod::kNone) SWE_RETURN_IF_ERROR(Compress(sentences, device, &table, stats));
  return WriteMatrix(Path("refined.swm"), table);
}

Status Runner::Export(json* stats) {
  ExportInputs in;
  SWE_RETURN_IF_ERROR(ReadMatrix(Path("refined.swm"), &in.table));
  if (!r_.init_model.empty()) {  // the init model's words and tokenizer
    InitModel init;
    SWE_RETURN_IF_ERROR(InitStudent(false, &init));
    ModelContents contents = init.model->ToContents();
    in.words = std::move(contents.words);
    in.tokenizer = contents.tokenizer;
    if (in.table.rows != in.words.size()) return Corrupt("refined.swm does not match init.model: re-run refine");
  } else {
    std::vector<WordCount> vocab;
    SWE_RETURN_IF_ERROR(ReadVocab(Path("vocab.tsv"), &vocab));
    SWE_RETURN_IF_ERROR(LoadCounts(&in.counts));
    if (in.table.rows != vocab.size() || in.counts.size() != vocab.size()) {
      return Corrupt("the work directory is inconsistent (vocabulary vs table): re-run the earlier stages");
    }
    for (const WordCount& w : vocab) in.words.push_back(w.word);
    in.tokenizer = r_.vocab.tokenizer;
    if (FileExists(Path("subword.json"))) {
      SWE_RETURN_IF_ERROR(ReadSubwordVocab(Path("subword.json"), &in.tokenizer.subword));
    } else {  // a work directory extracted before subword.json: the teacher's files
      const TeacherKind* teacher_kind = nullptr;
      SWE_RETURN_IF_ERROR(FindTeacherKind(r_.teacher.kind, &teacher_kind));
      SWE_RETURN_IF_ERROR(teacher_kind->subword_vocab(r_.teacher, &in.tokenizer.subword));
    }
  }
  in.normalize = r_.normalize;
  json refine_stats;
  SWE_RETURN_IF_ERROR(ReadMarker(Stage::kRefine, &refine_stats));
  Provenance& p = in.provenance;
  p.name = r_.name;
  p.description = r_.description;
  p.teacher = r_.teacher.kind + ":" + r_.teacher.path;
  for (const auto& path : r_.corpus.paths) p.corpus += (p.corpus.empty() ? "" : ", ") + path;
  p.recipe = r_.text;
  p.created_by = std::string("swe-trainer ") + SWE_TRAINER_VERSION;
  const json& rs = refine_stats["stats"];
  for (const json& o : rs.value("objectives", json::array())) {
    const std::string kind = o.value("kind", ""), loss = kind == "kd" ? "kl" : kind == "contrastive" ? "infonce" : kind;
    p.scores.push_back({kind + "-heldout", loss + "-initial", o.value("initial_heldout_loss", 0.0)});
    p.scores.push_back({kind + "-heldout", loss + "-best", o.value("best_heldout_loss", 0.0)});
  }
  for (const ObjectiveSpec& o : r_.objectives) {
    for (const TupleFile& f : o.data) p.corpus += std::string(", ") + (o.triples ? "triples:" : "pairs:") + f.path;
  }
  for (const json& d : rs.value("data", json::array())) {
    p.extra.push_back({"data_hash_" + d.value("objective", json(0)).dump(), "fnv1a64:" + d.value("hash", std::string())});
  }
  if (!r_.init_model.empty()) {
    p.extra.push_back({"init_model", r_.init_model});
  } else {
    json vocab_stats, sample_stats;
    SWE_RETURN_IF_ERROR(ReadMarker(Stage::kVocab, &vocab_stats));
    SWE_RETURN_IF_ERROR(ReadMarker(Stage::kSample, &sample_stats));
    p.corpus_hash = "fnv1a64:" + vocab_stats["stats"].value("corpus_hash", std::string());
    p.extra.push_back({"forward_passes", sample_stats["stats"].value("forward_passes", json(0)).dump()});
    p.extra.push_back({"naive_forward_passes", sample_stats["stats"].value("naive_forward_passes", json(0)).dump()});
  }
  DType dtype;
  if (!ParseDType(r_.dtype, &dtype)) return InvalidArgument("export.dtype: unknown dtype '" + r_.dtype + "'");
  std::filesystem::path out(r_.export_path);
  if (out.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(out.parent_path(), ec);
  }
  size_t bytes = 0;
  SWE_RETURN_IF_ERROR(ExportModel(in, dtype, r_.export_path, &bytes));
  *stats = {{"path", r_.export_path}, {"bytes", bytes}, {"dtype", r_.dtype}};
  Log("export: " + r_.export_path + " (" + std::to_string(bytes) + " bytes, " + r_.dtype + ")");
  return Status::Ok();
}

// The stages this run executes: with `only`, exactly those (the earlier ones must be up to date);
// with `train`, every stage from the first one not up to date (or all, with --force), since each
// stage's outputs feed the next. Stages before refine are skipped with init.model.
Status Runner::Plan(std::vector<bool>* runs) const {
  runs->assign(kStageCount, false);
  bool earlier_runs = false;
  for (int i = 0; i < kStageCount; ++i) {
    Stage s = static_cast<Stage>(i);
    if (Skipped(s)) continue;
    if (o_.only.empty()) {
      earlier_runs = earlier_runs || o_.force || !UpToDate(s);
      (*runs)[i] = earlier_runs;
    } else if (std::find(o_.only.begin(), o_.only.end(), s) != o_.only.end()) {
      (*runs)[i] = true;
    } else if (s < *std::max_element(o_.only.begin(), o_.only.end()) && !UpToDate(s)) {
      return InvalidArgument(std::string("stage '") + StageName(s) +
                             "' has not run or is out of date for this recipe: run it first (or `train`)");
    }
  }
  return Status::Ok();
}

Status Runner::Run() {
  std::error_code ec;
  std::filesystem::create_directories(r_.work_dir, ec);
  if (ec) return IoError("cannot create work directory " + r_.work_dir + ": " + ec.message());
  ConfigureTorch(o_.threads >= 0 ? o_.threads : r_.threads, r_.seed);
  std::vector<bool> runs;
  SWE_RETURN_IF_ERROR(Plan(&runs));
  // Each stage reads its inputs (corpus, teacher, init.model) when it runs, and names them when they
  // are missing; a finished run can be re-exported where the corpus and the teacher are not. Only the
  // contrastive files are read before anything runs, so that a bad one fails before hours of work.
  if (runs[static_cast<int>(Stage::kRefine)]) {
    Status st = CheckContrastiveFiles(r_.objectives);
    if (!st.ok()) return Status(st.code(), std::string("refine: ") + st.message());
  }
  using Fn = Status (Runner::*)(json*);
  const Fn fns[kStageCount] = {&Runner::Vocab, &Runner::Sample, &Runner::Extract,
                               &Runner::Pca,   &Runner::Refine, &Runner::Export};
  for (int i = 0; i < kStageCount; ++i) {
    Stage s = static_cast<Stage>(i);
    bool selected = o_.only.empty() || std::find(o_.only.begin(), o_.only.end(), s) != o_.only.end();
    if (Skipped(s)) {
      if (selected) Log(std::string(StageName(s)) + ": skipped (init.model " + r_.init_model + ")");
      continue;
    }
    if (!runs[i]) {
      if (o_.only.empty()) Log(std::string(StageName(s)) + ": up to date");
      continue;
    }
    auto t0 = std::chrono::steady_clock::now();
    json stats;
    Status st = (this->*fns[i])(&stats);
    if (!st.ok()) return Status(st.code(), std::string(StageName(s)) + ": " + st.message());
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    stats["seconds"] = secs;
    SWE_RETURN_IF_ERROR(WriteMarker(s, stats));
    for (int later = i + 1; later < kStageCount; ++later) {  // their inputs changed: no longer up to date
      std::filesystem::remove(Path(std::string(kStageNames[later]) + ".json"), ec);
    }
  }
  return Status::Ok();
}

}  // namespace

const char* StageName(Stage s) { return kStageNames[static_cast<int>(s)]; }

Status ParseStage(const std::string& name, Stage* out) {
  for (int i = 0; i < kStageCount; ++i) {
    if (name == kStageNames[i]) {
      *out = static_cast<Stage>(i);
      return Status::Ok();
    }
  }
  return InvalidArgument("unknown stage '" + name + "' (vocab, sample, extract, pca, refine, export)");
}

Status RunPipeline(const Recipe& recipe, const RunOptions& options) {
  try {
    return Runner(recipe, options).Run();
  } catch (const std::exception& e) {
    return Internal(std::string("unexpected error: ") + e.what());
  }
}

}  // namespace swe::trainer
