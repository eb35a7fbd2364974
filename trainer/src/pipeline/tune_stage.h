// Running a recipe's tune section (`swe-trainer tune`, and `swe-trainer train` before the stages):
// the teacher is fine-tuned (teacher_tune.h) unless tune.output is up to date, which its marker
// OUTPUT.json says: the key (the teacher and tune sections and the seed) and the content of every file
// the tuning read (the teacher's files, the objectives' data) and of the output are unchanged. The
// marker also holds the run's statistics (each evaluation's held-out losses, the best step, steps,
// sentences, seconds).
#pragma once

#include "pipeline/pipeline.h"
#include "recipe/recipe.h"
#include "swe/status.h"

namespace swe::trainer {

// Tunes the recipe's teacher into tune.output (options.force: even when up to date).
Status RunTune(const Recipe& recipe, const RunOptions& options);

// A recipe with a tune section: the stages read the tuned teacher (teacher.weights = tune.output),
// which must be up to date (`swe-trainer tune` or `train` makes it).
Status UseTunedTeacher(Recipe* recipe);

}  // namespace swe::trainer
