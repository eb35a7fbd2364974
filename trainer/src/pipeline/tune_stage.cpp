#include "pipeline/tune_stage.h"

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "data/corpus.h"
#include "data/matrix_io.h"
#include "pipeline/interrupt.h"
#include "refine/teacher_tune.h"
#include "swe/util/progress.h"

namespace swe::trainer {
namespace {
using nlohmann::json;

std::string Key(const Recipe& r) {
  uint64_t h = Fnv1a64("tune");
  for (const char* s : {"teacher", "tune", "seed"}) h = Fnv1a64(r.sections.count(s) ? r.sections.at(s) : "", h);
  return HexU64(h);
}

// The files the tuning reads, with their content digests.
json Inputs(const Recipe& r) {
  json inputs = json::object();
  for (const std::string& path : TeacherFiles(r.teacher)) inputs[path] = FileDigest(path);
  for (const ObjectiveSpec& o : r.tune.objectives) {
    for (const TupleFile& f : o.data) inputs[f.path] = FileDigest(f.path);
  }
  return inputs;
}

std::string MarkerPath(const Recipe& r) { return r.tune.output + ".json"; }

// "" when up to date, else why not.
std::string Stale(const Recipe& r) {
  std::string text;
  if (!FileExists(r.tune.output)) return "no tuned weights yet";
  if (!ReadTextFile(MarkerPath(r), &text).ok()) return "no marker " + MarkerPath(r);
  const json m = json::parse(text, nullptr, false);
  if (!m.is_object() || m.value("key", "") != Key(r)) return "the teacher or tune section changed";
  if (m.value("output", "") != FileDigest(r.tune.output)) return r.tune.output + " changed";
  if (m.value("inputs", json::object()) != Inputs(r)) return "the teacher's files or the data changed";
  return "";
}

void Log(const RunOptions& o, const std::string& line) {
  if (o.log) {
    o.log(line);
  } else {
    util::Progress::ClearBar();
    std::cerr << line << "\n";
  }
}

}  // namespace

Status RunTune(const Recipe& r, const RunOptions& options) {
  if (!r.has_tune) return InvalidArgument("the recipe has no tune section");
  const std::string why = Stale(r);
  if (why.empty() && !options.force) {
    Log(options, "tune: up to date (" + r.tune.output + ")");
    return Status::Ok();
  }
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::path(r.tune.output).parent_path();
  if (!dir.empty()) std::filesystem::create_directories(dir, ec);
  if (ec) return IoError("tune: cannot create " + dir.string() + ": " + ec.message());
  std::filesystem::remove(MarkerPath(r), ec);
  TuneOptions o = r.tune;
  SWE_RETURN_IF_ERROR(ResolveDevice(options.device.empty() ? r.device : options.device, &o.device));
  o.log = [&options](const std::string& line) { Log(options, line); };
  o.stop = StopRequested;
  ConfigureTorch(options.threads >= 0 ? options.threads : r.threads, r.seed);
  TuneReport report;
  Status st = TuneTeacher(r.teacher, o, &report);
  if (!st.ok()) return st;
  json evaluations = json::array();
  for (const TuneEvaluation& e : report.evaluations) {
    evaluations.push_back({{"step", e.step}, {"heldout", e.heldout}, {"parts", e.parts}});
  }
  json stats = {{"evaluations", evaluations},     {"best_step", report.best_step},
                {"steps", report.steps},           {"sentences", report.sentences},
                {"train_examples", report.train_examples}, {"heldout_examples", report.heldout_examples},
                {"seconds", report.seconds}};
  json marker = {{"key", Key(r)}, {"inputs", Inputs(r)}, {"output", FileDigest(r.tune.output)}, {"stats", stats}};
  SWE_RETURN_IF_ERROR(WriteTextFile(MarkerPath(r), marker.dump(2) + "\n"));
  Log(options, "tune: best held-out loss at step " + std::to_string(report.best_step) + " of " +
                   std::to_string(report.steps) + "; wrote " + r.tune.output + " in " +
                   util::FormatDuration(report.seconds));
  return Status::Ok();
}

Status UseTunedTeacher(Recipe* r) {
  if (!r->has_tune) return Status::Ok();
  const std::string why = Stale(*r);
  if (!why.empty()) return InvalidArgument("the tuned teacher is not up to date (" + why + "): run swe-trainer tune or train");
  OverrideTeacherWeights(r->tune.output, r);
  return Status::Ok();
}

}  // namespace swe::trainer
