// Parsing of the recipe sections that choose what refinement does (recipe.cpp calls these): refine
// (a list of weighted objectives, or the one-method shorthand), init (start from a .swe model),
// compress (a learned projection to fewer dims) and adapt (the shorthand for domain adaptation).
// Each reads its keys through a RecipeSection, so an unknown key or a wrong type is named.
#pragma once

#include <nlohmann/json.hpp>

#include "recipe.h"

namespace swe::trainer {

Status ParseRefineSection(const nlohmann::json& refine, Recipe* r);
Status ParseInitSection(const nlohmann::json& init, Recipe* r);
Status ParseCompressSection(const nlohmann::json& compress, Recipe* r);

// adapt {model, words, min_count, pairs}: a base model gets the corpus's `words` most frequent words it
// lacks, and only their rows are trained (KD against the teacher; contrastive on `pairs` too when
// given). Rewrites *recipe's adapt section into the init and refine sections it stands for.
Status ExpandAdaptSection(nlohmann::json* recipe);

}  // namespace swe::trainer
