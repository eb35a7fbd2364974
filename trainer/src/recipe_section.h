// One recipe section read through its key table: each key is named once, where it is read (Get),
// and Done() then reports a key nobody read (a typo) or a value of the wrong type, naming the key
// ("recipe: 'vocab.size' must be a non-negative integer (got "300")").
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "swe/status.h"

namespace swe::trainer {

class RecipeSection {
 public:
  // `j` is the section (null: absent, read as empty); `where` names it in errors ("" for the top).
  RecipeSection(const nlohmann::json& j, std::string where);

  bool Has(const char* key) const { return j_.is_object() && j_.contains(key); }
  // *v = the key's value when present; a value of another type is an error naming the key.
  template <typename T>
  void Get(const char* key, T* v) {
    read_.insert(key);
    if (!Has(key) || !error_.ok()) return;
    const nlohmann::json& x = j_.at(key);
    if (!Fits<T>(x)) {
      error_ = InvalidArgument("recipe: '" + Where(key) + "' must be " + TypeName<T>() + " (got " + x.dump() + ")");
      return;
    }
    *v = x.get<T>();
  }
  // *v = the value `choices` pairs with the key's name when present; another name is an error listing
  // the names in order ("recipe: compress.method must be pca, mcr2 or none").
  template <typename T>
  void GetChoice(const char* key, std::initializer_list<std::pair<const char*, T>> choices, T* v) {
    std::string name;
    Get(key, &name);
    if (!Has(key) || !error_.ok()) return;
    for (const auto& [choice, value] : choices) {
      if (name == choice) {
        *v = value;
        return;
      }
    }
    std::string names;
    for (size_t i = 0; i < choices.size(); ++i) {
      if (i > 0) names += i + 1 < choices.size() ? ", " : " or ";
      names += choices.begin()[i].first;
    }
    error_ = InvalidArgument("recipe: " + Where(key) + " must be " + names);
  }
  // The key's JSON (null when absent), for a nested section or a list read by the caller.
  const nlohmann::json& Sub(const char* key);
  std::string Where(const std::string& key) const { return where_.empty() ? key : where_ + "." + key; }
  // The first error: not an object, a value of the wrong type, or a key that no Get or Sub read.
  Status Done() const;

 private:
  template <typename T>
  static bool Fits(const nlohmann::json& x) {
    if constexpr (std::is_same_v<T, bool>) return x.is_boolean();
    else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) {
      return x.is_number_unsigned() || (x.is_number_integer() && x.get<int64_t>() >= 0);  // built in code: signed
    }
    else if constexpr (std::is_integral_v<T>) return x.is_number_integer();
    else if constexpr (std::is_floating_point_v<T>) return x.is_number();
    else if constexpr (std::is_same_v<T, std::string>) return x.is_string();
    else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      if (!x.is_array()) return false;
      for (const auto& e : x) if (!e.is_string()) return false;
      return true;
    } else {
      static_assert(sizeof(T) == 0, "RecipeSection::Get: unsupported type");
    }
  }
  template <typename T>
  static const char* TypeName() {
    if constexpr (std::is_same_v<T, bool>) return "true or false";
    else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) return "a non-negative integer";
    else if constexpr (std::is_integral_v<T>) return "an integer";
    else if constexpr (std::is_floating_point_v<T>) return "a number";
    else if constexpr (std::is_same_v<T, std::string>) return "a string";
    else return "a list of strings";
  }

  const nlohmann::json& j_;
  std::string where_;
  std::set<std::string> read_;
  Status error_;
};

// The recipe text as JSON; invalid JSON is an error with its line and column.
Status ParseRecipeJson(std::string_view text, nlohmann::json* out);

}  // namespace swe::trainer
