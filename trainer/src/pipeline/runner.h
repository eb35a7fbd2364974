// Runner, the recipe runner behind RunPipeline (pipeline.h), declared here once and written in three
// files: runner.cpp (which stages run: their keys, markers and order), stages.cpp (vocab, sample,
// extract, pca, export) and refine_stage.cpp (the refine stage: its student, sentences, objectives and
// compression).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/matrix_io.h"
#include "pipeline/pipeline.h"
#include "recipe/recipe.h"
#include "refine/refine.h"
#include "refine/refine_data.h"

namespace swe::trainer {

class Runner {
 public:
  Runner(const Recipe& recipe, const RunOptions& options) : recipe_(recipe), options_(options) {}
  Status Run();

 private:
  // runner.cpp: the stages' bookkeeping.
  std::string Path(const std::string& name) const { return recipe_.work_dir + "/" + name; }
  std::string Key(Stage s) const;
  bool UpToDate(Stage s) const;
  std::vector<std::string> Inputs(Stage s) const;
  bool RefineUsesTeacher() const;  // an objective needs the teacher's sentence vectors
  std::vector<std::string> TeacherFiles() const;
  std::string TeacherDigest() const;
  std::string Digest(const std::string& path) const;
  Status WriteMarker(Stage s, const nlohmann::json& stats) const;
  Status ReadMarker(Stage s, nlohmann::json* out) const;
  Status Plan(std::vector<bool>* runs) const;
  Status CheckInputs(const std::vector<bool>& runs) const;
  bool Skipped(Stage s) const { return !recipe_.init_model.empty() && s < Stage::kRefine; }
  void Log(const std::string& line) const;
  std::string Device() const;

  // stages.cpp
  Status Vocab(nlohmann::json* stats);
  Status Sample(nlohmann::json* stats);
  Status Extract(nlohmann::json* stats);
  Status Pca(nlohmann::json* stats);
  Status Export(nlohmann::json* stats);
  Status LoadCounts(std::vector<uint32_t>* counts) const;

  // refine_stage.cpp
  Status Refine(nlohmann::json* stats);
  Status Student(Matrix* table, RowsFn* rows, uint64_t* base_rows) const;
  Status InitStudent(bool count, InitModel* init) const;
  Status Sentences(const RowsFn& rows, bool teacher, RefineData* data) const;
  std::string TeacherCacheKey() const;
  bool TeacherCached() const;  // teacher_cache.swm holds this recipe's teacher vectors: refine needs no teacher
  Status Compress(const RefineData& sentences, const std::string& device, Matrix* table,
                  nlohmann::json* stats) const;

  const Recipe& recipe_;
  const RunOptions& options_;
  mutable std::map<std::string, std::string> digests_;  // Digest's memo: a file is hashed once per run
};

}  // namespace swe::trainer
