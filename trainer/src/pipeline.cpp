// The recipe runner's bookkeeping (pipeline.h): each stage's key and marker, which stages run, and
// running them in order; the stages themselves are in pipeline_stages.cpp and pipeline_refine.cpp.
#include "pipeline.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "corpus.h"
#include "pipeline_runner.h"
#include "refine_data.h"

namespace swe::trainer {
namespace {
const char* kStageNames[kStageCount] = {"vocab", "sample", "extract", "pca", "refine", "export"};
}  // namespace

using nlohmann::json;

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
