// The stages that turn the corpus into the PCA table, and export (pipeline.h lists their files).
#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numeric>

#include "data/corpus.h"
#include "data/export.h"
#include "teachers/extract.h"
#include "pipeline/interrupt.h"
#include "refine/pca.h"
#include "pipeline/runner.h"
#include "data/sampler.h"
#include "teachers/teacher.h"
#include "data/vocab.h"

#ifndef SWE_TRAINER_VERSION
#define SWE_TRAINER_VERSION "dev"
#endif

namespace swe::trainer {

using nlohmann::json;

Status Runner::LoadCounts(std::vector<uint32_t>* counts) const {
  std::vector<std::string> lines;
  SWE_RETURN_IF_ERROR(ReadLines(Path("counts.tsv"), &lines));
  counts->clear();
  for (const std::string& l : lines) counts->push_back(static_cast<uint32_t>(std::strtoul(l.c_str(), nullptr, 10)));
  return Status::Ok();
}

Status Runner::Vocab(json* stats) {
  WordCounter counter(recipe_.vocab);
  uint64_t hash = 14695981039346656037ull;
  SWE_RETURN_IF_ERROR(ForEachSentence(recipe_.corpus, "vocab", [&](std::string_view s) {
    counter.AddSentence(s);
    hash = Fnv1a64("\n", Fnv1a64(s, hash));
    return true;
  }));
  if (counter.sentences() == 0) {
    std::string paths;
    for (const auto& p : recipe_.corpus.paths) paths += (paths.empty() ? "" : ", ") + p;
    return InvalidArgument("the corpus is empty (no non-blank line in " + paths + ")");
  }
  std::vector<WordCount> vocab = counter.Top();
  if (vocab.empty()) {
    return InvalidArgument("no word occurs at least vocab.min_count = " + std::to_string(recipe_.vocab.min_count) +
                           " times in the corpus");
  }
  if (vocab.size() < recipe_.vocab.size) {
    Log("vocab: warning: " + std::to_string(vocab.size()) + " words occur at least vocab.min_count = " +
        std::to_string(recipe_.vocab.min_count) + " times, vocab.size asks for " + std::to_string(recipe_.vocab.size) +
        " (a larger corpus, or a lower min_count)");
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
  CoverageSampler sampler(vocab, recipe_.vocab, recipe_.sample);
  SWE_RETURN_IF_ERROR(ForEachSentence(recipe_.corpus, "sample", [&](std::string_view s) {
    sampler.Offer(s);
    return !(sampler.complete() && recipe_.sample.generic == 0);
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
  if (sampler.generic().size() < recipe_.sample.generic) {
    Log("sample: warning: " + std::to_string(sampler.generic().size()) + " generic sentences, sample.sentences asks for " +
        std::to_string(recipe_.sample.generic) + " (the corpus has no more)");
  }
  Log("sample: " + std::to_string(s.sentences_kept) + " teacher forward passes for " + std::to_string(s.pairs) +
      " samples (naive |V|xN = " + std::to_string(s.naive_passes) + ", " + buf + " fewer); " +
      std::to_string(s.words_short) + " words have fewer than N = " + std::to_string(recipe_.sample.per_word) +
      " sentences; " + std::to_string(sampler.generic().size()) + " generic sentences");
  return Status::Ok();
}

Status Runner::Extract(json* stats) {
  std::vector<WordCount> vocab;
  std::vector<SampledSentence> samples;
  SWE_RETURN_IF_ERROR(ReadVocab(Path("vocab.tsv"), &vocab));
  SWE_RETURN_IF_ERROR(ReadSamples(Path("samples.tsv"), static_cast<uint32_t>(vocab.size()), &samples));
  TeacherOptions t = recipe_.teacher;
  t.device = Device();
  std::unique_ptr<Teacher> teacher;
  SWE_RETURN_IF_ERROR(LoadTeacher(t, &teacher));
  ExtractOptions eo;
  eo.batch_size = recipe_.teacher_batch;
  eo.checkpoint = Path("extract.checkpoint");
  eo.checkpoint_key = Key(Stage::kExtract);  // with the samples and vocabulary, which Extract digests
  eo.stop = StopRequested;
  ExtractResult result;
  {
    StopPoint stop_point;  // SIGINT/SIGTERM now end the batch and save the checkpoint
    SWE_RETURN_IF_ERROR(ExtractWordVectors(*teacher, samples, vocab, recipe_.vocab, eo, &result));
  }
  const std::string done = std::to_string(result.done) + " of " + std::to_string(samples.size()) + " sentences";
  if (result.interrupted) return IoError("interrupted after " + done + "; checkpoint saved in " + eo.checkpoint);
  if (result.resumed_at > 0) {
    Log("extract: resumed from the checkpoint at " + std::to_string(result.resumed_at) + " of " +
        std::to_string(samples.size()) + " sentences");
  }
  SWE_RETURN_IF_ERROR(WriteMatrix(Path("vectors.swm"), result.vectors));
  SWE_RETURN_IF_ERROR(WriteSubwordVocab(Path("subword.json"), teacher->subword_vocab()));
  std::vector<std::string> lines;
  uint64_t found = 0;
  for (uint32_t c : result.counts) {
    lines.push_back(std::to_string(c));
    found += c > 0;
  }
  SWE_RETURN_IF_ERROR(WriteLines(Path("counts.tsv"), lines));
  std::error_code ec;
  std::filesystem::remove(eo.checkpoint, ec);  // the outputs hold it all now
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
  if (recipe_.pca_mode == PcaMode::kNone) {
    SWE_RETURN_IF_ERROR(WriteMatrix(Path("table_pca.swm"), vectors));
    *stats = {{"mode", "none"}, {"dims", vectors.cols}};
    Log("pca: skipped (mode none), " + std::to_string(vectors.cols) + " dims");
    return Status::Ok();
  }
  Matrix x;
  if (recipe_.pca_mode == PcaMode::kSentence) {
    std::vector<WordCount> vocab;
    std::vector<std::string> generic;
    SWE_RETURN_IF_ERROR(ReadVocab(Path("vocab.tsv"), &vocab));
    SWE_RETURN_IF_ERROR(ReadLines(Path("generic.txt"), &generic));
    VocabLookup index = VocabIndex(vocab);
    std::vector<std::vector<uint32_t>> rows(generic.size());
    for (size_t i = 0; i < generic.size(); ++i) SentenceRows(generic[i], recipe_.vocab, index, &rows[i]);
    x = SentenceAverages(vectors, rows, counts);
  } else {
    x.cols = vectors.cols;
    for (uint64_t r = 0; r < vectors.rows; ++r) {
      if (counts[r] == 0) continue;
      x.data.insert(x.data.end(), vectors.row(r), vectors.row(r) + vectors.cols);
      ++x.rows;
    }
  }
  // Fewer rows than the components kept plus those removed leave components that are noise.
  const uint64_t drop = recipe_.pca.remove < 0 ? vectors.cols / 100 : static_cast<uint64_t>(recipe_.pca.remove);
  const uint64_t needed = std::min<uint64_t>(recipe_.pca.out_dims, vectors.cols - std::min(drop, vectors.cols)) + drop;
  if (x.rows <= needed) {
    return InvalidArgument("PCA to " + std::to_string(needed - drop) + " dims (" + std::to_string(drop) +
                           " removed) needs more than " + std::to_string(needed) + " rows, and there are " +
                           std::to_string(x.rows) + " (" +
                           (recipe_.pca_mode == PcaMode::kSentence ? "generic sentences: sample.sentences" : "words with vectors") +
                           "): a larger corpus or sample, or a smaller pca.dims");
  }
  PcaResult pca;
  SWE_RETURN_IF_ERROR(FitPca(x, recipe_.pca, &pca));
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
  *stats = {{"mode", recipe_.pca_mode == PcaMode::kSentence ? "sentence" : "word"}, {"rows", x.rows},
            {"in_dims", pca.in_dims}, {"out_dims", pca.out_dims}, {"removed", pca.removed},
            {"kept_variance", kept}, {"removed_variance", removed}};
  Log("pca: " + std::string(recipe_.pca_mode == PcaMode::kSentence ? "sentence" : "word") + "-level on " +
      std::to_string(x.rows) + " rows, " + std::to_string(pca.in_dims) + " -> " + std::to_string(pca.out_dims) +
      " dims, " + std::to_string(pca.removed) + " top components removed");
  return Status::Ok();
}

Status Runner::Export(json* stats) {
  ExportInputs in;
  SWE_RETURN_IF_ERROR(ReadMatrix(Path("refined.swm"), &in.table));
  if (!recipe_.init_model.empty()) {  // the init model's words and tokenizer
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
    in.tokenizer = recipe_.vocab.tokenizer;
    if (FileExists(Path("subword.json"))) {
      SWE_RETURN_IF_ERROR(ReadSubwordVocab(Path("subword.json"), &in.tokenizer.subword));
    } else {  // a work directory extracted before subword.json: the teacher's files
      const TeacherKind* teacher_kind = nullptr;
      SWE_RETURN_IF_ERROR(FindTeacherKind(recipe_.teacher.kind, &teacher_kind));
      SWE_RETURN_IF_ERROR(teacher_kind->subword_vocab(recipe_.teacher, &in.tokenizer.subword));
    }
  }
  in.normalize = recipe_.normalize;
  in.zstd_level = recipe_.seal == "zstd" ? 19 : 0;
  json refine_stats;
  SWE_RETURN_IF_ERROR(ReadMarker(Stage::kRefine, &refine_stats));
  Provenance& p = in.provenance;
  p.name = recipe_.name;
  p.description = recipe_.description;
  p.teacher = recipe_.teacher.kind + ":" + recipe_.teacher.path;
  for (const auto& path : recipe_.corpus.paths) p.corpus += (p.corpus.empty() ? "" : ", ") + path;
  p.recipe = recipe_.text;
  p.created_by = std::string("swe-trainer ") + SWE_TRAINER_VERSION;
  const json& rs = refine_stats["stats"];
  for (const json& o : rs.value("objectives", json::array())) {
    const std::string kind = o.value("kind", ""), loss = kind == "kd" ? "kl" : kind == "contrastive" ? "infonce" : kind;
    p.scores.push_back({kind + "-heldout", loss + "-initial", o.value("initial_heldout_loss", 0.0)});
    p.scores.push_back({kind + "-heldout", loss + "-best", o.value("best_heldout_loss", 0.0)});
  }
  for (const ObjectiveSpec& o : recipe_.objectives) {
    for (const TupleFile& f : o.data) p.corpus += std::string(", ") + (o.triples ? "triples:" : "pairs:") + f.path;
  }
  for (const json& d : rs.value("data", json::array())) {
    p.extra.push_back({"data_hash_" + d.value("objective", json(0)).dump(), "fnv1a64:" + d.value("hash", std::string())});
  }
  if (!recipe_.init_model.empty()) {
    p.extra.push_back({"init_model", recipe_.init_model});
    if (!recipe_.init_vocab.sources.empty()) {  // what was added to the init model, in row order
      std::vector<WordCount> added;
      SWE_RETURN_IF_ERROR(ReadVocab(Path("added_words.tsv"), &added));
      std::string list;
      for (const WordCount& w : added) list += (list.empty() ? "" : " ") + w.word;
      p.extra.push_back({"added_words", std::to_string(added.size())});
      p.extra.push_back({"added_word_list", list});
      p.extra.push_back({"trained_rows", recipe_.train_new_rows ? "added words only (base rows unchanged)" : "all"});
    }
  } else {
    json vocab_stats, sample_stats;
    SWE_RETURN_IF_ERROR(ReadMarker(Stage::kVocab, &vocab_stats));
    SWE_RETURN_IF_ERROR(ReadMarker(Stage::kSample, &sample_stats));
    p.corpus_hash = "fnv1a64:" + vocab_stats["stats"].value("corpus_hash", std::string());
    p.extra.push_back({"forward_passes", sample_stats["stats"].value("forward_passes", json(0)).dump()});
    p.extra.push_back({"naive_forward_passes", sample_stats["stats"].value("naive_forward_passes", json(0)).dump()});
  }
  DType dtype;
  if (!ParseDType(recipe_.dtype, &dtype)) return InvalidArgument("export.dtype: unknown dtype '" + recipe_.dtype + "'");
  std::filesystem::path out(recipe_.export_path);
  if (out.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(out.parent_path(), ec);
  }
  size_t bytes = 0;
  SWE_RETURN_IF_ERROR(ExportModel(in, dtype, recipe_.export_path, &bytes));
  *stats = {{"path", recipe_.export_path}, {"bytes", bytes}, {"dtype", recipe_.dtype}, {"seal", recipe_.seal}};
  Log("export: " + recipe_.export_path + " (" + std::to_string(bytes) + " bytes, " + recipe_.dtype + ", " + recipe_.seal + ")");
  return Status::Ok();
}

}  // namespace swe::trainer
