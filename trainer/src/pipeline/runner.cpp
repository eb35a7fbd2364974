// The recipe runner's bookkeeping (runner.h): each stage's key and marker, which stages run, and
// running them in order; the stages themselves are in stages.cpp and refine_stage.cpp.
#include "pipeline/pipeline.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "data/corpus.h"
#include "pipeline/interrupt.h"
#include "teachers/teacher.h"
#include "pipeline/runner.h"
#include "refine/refine_data.h"
#include "swe/util/progress.h"

namespace swe::trainer {
namespace {
const char* kStageNames[kStageCount] = {"vocab", "sample", "extract", "pca", "refine", "export"};
}  // namespace

using nlohmann::json;

void Runner::Log(const std::string& line) const {
  if (options_.log) {
    options_.log(line);
  } else {
    util::Progress::ClearBar();  // a line of its own, not glued onto a progress bar
    std::cerr << line << "\n";
  }
}

std::string Runner::Device() const { return options_.device.empty() ? recipe_.device : options_.device; }

std::string Runner::Key(Stage s) const {
  static const char* kSections[kStageCount][4] = {
      {"corpus", "tokenizer", "vocab", ""}, {"sample", "seed", "", ""}, {"teacher", "", "", ""}, {"pca", "", "", ""},
      {"refine", "seed", "init", "compress"}, {"export", "", "", ""}};
  uint64_t h = 14695981039346656037ull;
  for (int i = 0; i <= static_cast<int>(s); ++i) {
    h = Fnv1a64(kStageNames[i], h);
    for (const char* sec : kSections[i]) {
      if (*sec && recipe_.sections.count(sec)) h = Fnv1a64(recipe_.sections.at(sec), h);  // init, compress: optional
    }
  }
  if (s == Stage::kExport) h = Fnv1a64(recipe_.name + "\n" + recipe_.description, h);
  return HexU64(h);
}

Status Runner::ReadMarker(Stage s, json* out) const {
  std::string text;
  SWE_RETURN_IF_ERROR(ReadTextFile(Path(std::string(kStageNames[static_cast<int>(s)]) + ".json"), &text));
  *out = json::parse(text, nullptr, false);
  if (!out->is_object()) return Corrupt("bad stage marker for " + std::string(StageName(s)));
  return Status::Ok();
}

bool Runner::RefineUsesTeacher() const {
  for (const ObjectiveSpec& o : recipe_.objectives) {
    if (o.kind != ObjectiveKind::kContrastive) return true;
  }
  return false;
}

// Every file under the teacher's directory, sorted (none when it is not here).
std::vector<std::string> Runner::TeacherFiles() const {
  std::vector<std::string> files;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(recipe_.teacher.path, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec)) files.push_back(it->path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The teacher's files as one digest; "" when its directory is not here.
std::string Runner::TeacherDigest() const {
  const std::vector<std::string> files = TeacherFiles();
  uint64_t h = Fnv1a64("teacher");
  for (const std::string& path : files) h = Fnv1a64(path.substr(recipe_.teacher.path.size()) + " " + Digest(path) + "\n", h);
  return files.empty() ? "" : HexU64(h);
}

// The files a stage reads besides the work directory's: the corpus, init.model, the objectives' data
// and the teacher's files (for extract, and for refine when it needs the teacher's sentence vectors).
std::vector<std::string> Runner::Inputs(Stage s) const {
  std::vector<std::string> files;
  const bool init = !recipe_.init_model.empty();
  if (s == Stage::kVocab || (s == Stage::kRefine && init)) files = recipe_.corpus.paths;
  if ((s == Stage::kRefine || s == Stage::kExport) && init) files.push_back(recipe_.init_model);
  if (s == Stage::kRefine) {
    for (const ObjectiveSpec& o : recipe_.objectives) {
      for (const TupleFile& f : o.data) files.push_back(f.path);
    }
  }
  if (s == Stage::kExtract || (s == Stage::kRefine && RefineUsesTeacher())) {
    const std::vector<std::string> teacher = TeacherFiles();
    files.insert(files.end(), teacher.begin(), teacher.end());
  }
  return files;
}

// "size:fnv1a64" of the file's bytes (once per run and file, read in pieces: a teacher's weights can
// be gigabytes); "" when it cannot be read.
std::string Runner::Digest(const std::string& path) const {
  auto it = digests_.find(path);
  if (it != digests_.end()) return it->second;
  std::string digest;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f != nullptr) {
    std::vector<char> buf(1 << 20);
    uint64_t h = Fnv1a64(""), size = 0;
    size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) {
      h = Fnv1a64(std::string_view(buf.data(), n), h);
      size += n;
    }
    if (!std::ferror(f)) digest = std::to_string(size) + ":" + HexU64(h);
    std::fclose(f);
  }
  return digests_[path] = digest;
}

// Up to date: the marker's key (the recipe sections) matches, and every input file recorded in it
// still has the same content. A file that is gone counts as unchanged: a finished run can be
// re-exported where its corpus is not, and a stage that must read it names it when it runs.
bool Runner::UpToDate(Stage s) const {
  json m;
  if (!ReadMarker(s, &m).ok() || m.value("key", "") != Key(s)) return false;
  const json inputs = m.value("inputs", json::object());
  for (const std::string& path : Inputs(s)) {
    if (!inputs.contains(path)) return false;
    const std::string now = FileExists(path) ? Digest(path) : inputs[path].get<std::string>();
    if (now != inputs[path].get<std::string>()) {
      Log(std::string(StageName(s)) + ": " + path + " changed since the stage ran: running it again");
      return false;
    }
  }
  return true;
}

Status Runner::WriteMarker(Stage s, const json& stats) const {
  json inputs = json::object();
  for (const std::string& path : Inputs(s)) inputs[path] = Digest(path);
  json m = {{"stage", StageName(s)}, {"key", Key(s)}, {"inputs", inputs}, {"stats", stats}};
  return WriteTextFile(Path(std::string(StageName(s)) + ".json"), m.dump(2) + "\n");
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
    if (options_.only.empty()) {
      earlier_runs = earlier_runs || options_.force || !UpToDate(s);
      (*runs)[i] = earlier_runs;
    } else if (std::find(options_.only.begin(), options_.only.end(), s) != options_.only.end()) {
      (*runs)[i] = true;
    } else if (s < *std::max_element(options_.only.begin(), options_.only.end()) && !UpToDate(s)) {
      return InvalidArgument(std::string("stage '") + StageName(s) +
                             "' has not run or is out of date for this recipe: run it first (or `train`)");
    }
  }
  return Status::Ok();
}

// The inputs of the stages that will run, checked before the first one starts, so that a missing
// teacher or pairs file fails now rather than after the stages before the one that reads it. Stages
// that do not run need nothing: a finished run can be re-exported where the corpus and teacher are not.
Status Runner::CheckInputs(const std::vector<bool>& runs) const {
  auto runs_stage = [&](Stage s) { return runs[static_cast<int>(s)]; };
  const bool refine = runs_stage(Stage::kRefine);
  const bool kd = RefineUsesTeacher();
  const bool init = !recipe_.init_model.empty();
  if (refine) {  // the objectives' files, then the model refine starts from
    Status st = CheckContrastiveFiles(recipe_.objectives);
    if (!st.ok()) return Status(st.code(), std::string("refine: ") + st.message());
    if (init && !FileExists(recipe_.init_model)) return IoError("refine: init.model not found: " + recipe_.init_model);
  }
  const char* corpus_reader = runs_stage(Stage::kVocab) ? "vocab" : runs_stage(Stage::kSample) ? "sample"
                              : refine && init                     ? "refine" : nullptr;
  for (const std::string& path : corpus_reader ? recipe_.corpus.paths : std::vector<std::string>()) {
    if (!FileExists(path)) return IoError(std::string(corpus_reader) + ": corpus file not found: " + path);
  }
  const bool refine_teacher = refine && kd && !TeacherCached();
  if (runs_stage(Stage::kExtract) || refine_teacher) {
    const TeacherKind* kind = nullptr;
    SubwordVocab vocab;
    Status st = FindTeacherKind(recipe_.teacher.kind, &kind);
    if (st.ok() && !FileExists(recipe_.teacher.path)) {
      st = IoError("teacher directory not found: " + recipe_.teacher.path +
                   (recipe_.teacher.kind == "use-lite" ? " (bash scripts/fetch-use-lite.sh fetches it and prints its path)" : ""));
    }
    if (st.ok()) st = kind->subword_vocab(recipe_.teacher, &vocab);  // its tokenizer files: cheap, no weights
    if (!st.ok()) return Status(st.code(), std::string(runs_stage(Stage::kExtract) ? "extract" : "refine") + ": " + st.message());
  }
  return Status::Ok();
}

Status Runner::Run() {
  std::error_code ec;
  std::filesystem::create_directories(recipe_.work_dir, ec);
  if (ec) return IoError("cannot create work directory " + recipe_.work_dir + ": " + ec.message());
  ConfigureTorch(options_.threads >= 0 ? options_.threads : recipe_.threads, recipe_.seed);
  std::vector<bool> runs;
  SWE_RETURN_IF_ERROR(Plan(&runs));
  SWE_RETURN_IF_ERROR(CheckInputs(runs));
  std::string summary;  // each stage that ran, with its wall time
  double total = 0;
  using Fn = Status (Runner::*)(json*);
  const Fn fns[kStageCount] = {&Runner::Vocab, &Runner::Sample, &Runner::Extract,
                               &Runner::Pca,   &Runner::Refine, &Runner::Export};
  for (int i = 0; i < kStageCount; ++i) {
    Stage s = static_cast<Stage>(i);
    bool selected = options_.only.empty() || std::find(options_.only.begin(), options_.only.end(), s) != options_.only.end();
    if (Skipped(s)) {
      if (selected) Log(std::string(StageName(s)) + ": skipped (init.model " + recipe_.init_model + ")");
      continue;
    }
    if (!runs[i]) {
      if (options_.only.empty()) Log(std::string(StageName(s)) + ": up to date");
      continue;
    }
    std::filesystem::remove(Path(std::string(StageName(s)) + ".json"), ec);  // an interrupted run: not done
    auto t0 = std::chrono::steady_clock::now();
    json stats;
    Status st = (this->*fns[i])(&stats);
    if (!st.ok()) return Status(st.code(), std::string(StageName(s)) + ": " + st.message());
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    stats["seconds"] = secs;
    summary += std::string(summary.empty() ? "" : ", ") + StageName(s) + " " + util::FormatDuration(secs);
    total += secs;
    SWE_RETURN_IF_ERROR(WriteMarker(s, stats));
    for (int later = i + 1; later < kStageCount; ++later) {  // their inputs changed: no longer up to date
      std::filesystem::remove(Path(std::string(kStageNames[later]) + ".json"), ec);
    }
    if (StopRequested()) return IoError("interrupted after the stage finished");  // during its last batch
  }
  if (!summary.empty()) Log("done in " + util::FormatDuration(total) + ": " + summary);
  return Status::Ok();
}

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
