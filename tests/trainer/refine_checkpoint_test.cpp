// Refinement's checkpoint: a run stopped after some batches (or at an epoch's end) and resumed ends
// with the same table and losses, bit for bit, as one that ran through, with torch's Adam and with
// lazy Adam, an extra trained parameter (distance's map) and two objectives of different sizes; a
// checkpoint made for other data or settings, or a damaged one, is ignored with a log line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <random>

#include "refine/objectives.h"
#include "swe/util/progress.h"
#include "test_util.h"

namespace swe::trainer {
namespace {
using testing::TempDir;

// KD on 600 synthetic sentences and distance minimisation (a trained orthogonal map) on 250 others.
struct Problem {
  TempDir dir;
  Matrix table;
  RefineData kd, distance;
  std::vector<Objective> objectives;
  RefineOptions options;
  std::vector<std::string> log;
};

void MakeProblem(Problem* p, bool lazy_adam, bool lr_decay = false) {
  util::Progress::SetEnabled(false);
  std::mt19937 rng(7);
  p->kd = testing::SyntheticKdProblem(40, 8, 600, rng, &p->table);
  Matrix unused;
  p->distance = testing::SyntheticKdProblem(40, 8, 250, rng, &unused);
  Objective kd, distance;
  kd.spec.tau = 0.1;
  kd.sentences = &p->kd;
  distance.spec.kind = ObjectiveKind::kDistance;
  distance.spec.weight = 0.5;
  distance.sentences = &p->distance;
  p->objectives = {kd, distance};
  RefineOptions& o = p->options;
  o.batch_size = 32;  // 17 steps an epoch
  o.lr = 0.02;
  o.max_epochs = 4;
  o.patience = 4;
  o.lazy_adam = lazy_adam;
  o.frozen_rows = lazy_adam ? 5 : 0;
  o.lr_decay = lr_decay;
  o.log = [p](const std::string& line) { p->log.push_back(line); };
}

struct Result {
  Matrix table;
  RefineReport report;
};

Result Refine(Problem& p, const RefineOptions& options) {
  Result r{p.table, {}};
  const Status s = RefineObjectives(p.objectives, options, &r.table, &r.report);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return r;
}

void ExpectSame(const Result& through, const Result& resumed) {
  ASSERT_EQ(through.table.data.size(), resumed.table.data.size());
  EXPECT_EQ(0, std::memcmp(through.table.data.data(), resumed.table.data.data(), through.table.data.size() * 4));
  EXPECT_EQ(through.report.train_loss, resumed.report.train_loss);
  EXPECT_EQ(through.report.heldout_loss, resumed.report.heldout_loss);
  EXPECT_EQ(through.report.initial_heldout, resumed.report.initial_heldout);
  EXPECT_EQ(through.report.best_parts, resumed.report.best_parts);
  EXPECT_EQ(through.report.best_epoch, resumed.report.best_epoch);
  EXPECT_EQ(through.report.steps, resumed.report.steps);
}

int CountLines(const std::vector<std::string>& log, const std::string& needle) {
  int n = 0;
  for (const std::string& l : log) n += l.find(needle) != std::string::npos;
  return n;
}

// Stopped after `stops` (batches counted across runs), resumed until done: the run that ran through.
void StopAndResume(bool lazy_adam, std::vector<int> stops, bool lr_decay = false) {
  Problem p;
  MakeProblem(&p, lazy_adam, lr_decay);
  const Result through = Refine(p, p.options);
  EXPECT_EQ(through.report.steps, 68u);
  EXPECT_FALSE(through.report.interrupted);
  RefineOptions o = p.options;
  o.checkpoint = p.dir.file("refine.checkpoint");
  o.checkpoint_key = "recipe";
  int batches = 0;
  o.stop = [&] {
    ++batches;
    return std::find(stops.begin(), stops.end(), batches) != stops.end();
  };
  uint64_t at = 0;
  for (size_t i = 0; i < stops.size(); ++i) {
    const Result stopped = Refine(p, o);
    ASSERT_TRUE(stopped.report.interrupted) << i;
    EXPECT_EQ(stopped.report.resumed_at, at) << i;
    EXPECT_EQ(stopped.report.steps, static_cast<uint64_t>(stops[i])) << i;
    EXPECT_EQ(0, std::memcmp(stopped.table.data.data(), p.table.data.data(), p.table.data.size() * 4));  // unchanged
    EXPECT_TRUE(std::filesystem::exists(o.checkpoint));
    at = stopped.report.steps;
  }
  const Result resumed = Refine(p, o);
  EXPECT_FALSE(resumed.report.interrupted);
  EXPECT_EQ(resumed.report.resumed_at, at);
  ExpectSame(through, resumed);
  EXPECT_EQ(CountLines(p.log, "refine: resumed from the checkpoint at epoch "), static_cast<int>(stops.size()));
  EXPECT_EQ(CountLines(p.log, "ignored"), 0);

  // The finished run's last checkpoint (the caller removes it once its output is written): from an
  // epoch's end (the first one this run reached, at least; later ones when writing is fast enough).
  const Result again = Refine(p, o);
  EXPECT_GE(again.report.resumed_at, 17u);
  EXPECT_EQ(again.report.resumed_at % 17, 0u);
  ExpectSame(through, again);
}

TEST(TrainerRefineCheckpoint, StoppedWithinAnEpochResumesBitForBit) { StopAndResume(false, {5}); }

TEST(TrainerRefineCheckpoint, StoppedAtAnEpochsEndAndTwiceResumesBitForBit) {
  StopAndResume(false, {17, 40});  // the end of epoch 1 (saved there), then within epoch 3
}

TEST(TrainerRefineCheckpoint, LazyAdamWithFrozenRowsResumesBitForBit) { StopAndResume(true, {9, 30}); }

// refine.lr_decay: the rate is a function of the step, so a resumed run takes the same rates.
TEST(TrainerRefineCheckpoint, DecayingRatesResumeBitForBit) {
  StopAndResume(true, {9, 30}, true);
  StopAndResume(false, {17, 40}, true);
}

TEST(TrainerRefineCheckpoint, ACheckpointForOtherDataOrSettingsOrDamagedIsIgnored) {
  Problem p;
  MakeProblem(&p, false);
  const Result through = Refine(p, p.options);
  RefineOptions o = p.options;
  o.checkpoint = p.dir.file("refine.checkpoint");
  o.checkpoint_key = "recipe";
  o.stop = [] { return true; };
  ASSERT_TRUE(Refine(p, o).report.interrupted);
  const std::string saved = testing::ReadFile(o.checkpoint);
  o.stop = nullptr;

  auto expect_ignored = [&](const RefineOptions& options, const std::string& why, const Result* expected) {
    testing::WriteFile(o.checkpoint, saved);
    p.log.clear();
    const Result r = Refine(p, options);
    EXPECT_EQ(r.report.resumed_at, 0u) << why;
    EXPECT_EQ(CountLines(p.log, o.checkpoint + " ignored: " + why), 1) << why;
    if (expected != nullptr) ExpectSame(*expected, r);
  };
  RefineOptions other = o;
  other.checkpoint_key = "another recipe";
  expect_ignored(other, "made for other inputs or settings", &through);
  other = o;
  other.lr = 0.01;
  expect_ignored(other, "made for other inputs or settings", nullptr);
  // Other data: one teacher vector changed.
  p.kd.teacher.data[3] += 1;
  expect_ignored(o, "made for other inputs or settings", nullptr);
  p.kd.teacher.data[3] -= 1;

  // Damaged: cut short, a byte changed, not a checkpoint at all.
  testing::WriteFile(o.checkpoint, saved.substr(0, saved.size() - 100));
  p.log.clear();
  ExpectSame(through, Refine(p, o));
  EXPECT_EQ(CountLines(p.log, "ignored: damaged"), 1);
  std::string changed = saved;
  changed[changed.size() / 2] ^= 1;
  testing::WriteFile(o.checkpoint, changed);
  p.log.clear();
  ExpectSame(through, Refine(p, o));
  EXPECT_EQ(CountLines(p.log, "ignored: damaged"), 1);
  testing::WriteFile(o.checkpoint, "{}");
  p.log.clear();
  ExpectSame(through, Refine(p, o));
  EXPECT_EQ(CountLines(p.log, "ignored: not a checkpoint"), 1);

  // The intact one still resumes.
  testing::WriteFile(o.checkpoint, saved);
  p.log.clear();
  const Result resumed = Refine(p, o);
  EXPECT_EQ(resumed.report.resumed_at, 1u);
  ExpectSame(through, resumed);
}

}  // namespace
}  // namespace swe::trainer
