// Parsing of the recipe sections that choose what refinement does (recipe.cpp calls these): refine
// (a list of weighted objectives, or the one-method shorthand), init (start from a .swe model) and
// compress (a learned projection to fewer dims). Unknown keys are errors naming the key.
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "recipe.h"

namespace swe::trainer {

// *v = j[key] when j has the key (a JSON type error is thrown; ParseRecipe reports it).
template <typename T>
void Get(const nlohmann::json& j, const char* key, T* v) {
  if (j.contains(key)) *v = j.at(key).get<T>();
}

// Rejects a key of object `j` outside `allowed`, naming it as where.key.
Status CheckRecipeKeys(const nlohmann::json& j, const std::string& where, const std::set<std::string>& allowed);

Status ParseRefineSection(const nlohmann::json& refine, Recipe* r);
Status ParseInitSection(const nlohmann::json& init, Recipe* r);
Status ParseCompressSection(const nlohmann::json& compress, Recipe* r);

}  // namespace swe::trainer
