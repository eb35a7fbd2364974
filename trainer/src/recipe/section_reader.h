// One recipe section read through its key table (RecipeKey below: each key is written once, with its
// field and what it means), and Done() then reports a key nobody read (a typo) or a value of the
// wrong type, naming the key ("recipe: 'vocab.size' must be a non-negative integer (got "300")").
#pragma once

#include <functional>
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
  void GetChoice(const char* key, const std::vector<std::pair<const char*, T>>& choices, T* v) {
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
      names += choices[i].first;
    }
    error_ = InvalidArgument("recipe: " + Where(key) + " must be " + names);
  }
  // The key's JSON (null when absent), for a nested section or a list read by the caller.
  const nlohmann::json& Sub(const char* key);
  std::string Where(const std::string& key) const { return where_.empty() ? key : where_ + "." + key; }
  // The first error: not an object, a value of the wrong type, or a key that no Get or Sub read.
  Status Done() const;

  // What Get accepts for a T ("a non-negative integer"), as its errors say.
  template <typename T>
  static const char* TypeName() {
    if constexpr (std::is_same_v<T, bool>) return "true or false";
    else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) return "a non-negative integer";
    else if constexpr (std::is_integral_v<T>) return "an integer";
    else if constexpr (std::is_floating_point_v<T>) return "a number";
    else if constexpr (std::is_same_v<T, std::string>) return "a string";
    else return "a list of strings";
  }

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
  const nlohmann::json& j_;
  std::string where_;
  std::set<std::string> read_;
  Status error_;
};

// The field a path of members leads to from `object` (&Recipe::vocab, &VocabOptions::size: r.vocab.size).
template <typename Object, typename Member, typename... Rest>
auto& FieldAt(Object& object, Member member, Rest... rest) {
  if constexpr (sizeof...(Rest) == 0) return object.*member;
  else return FieldAt(object.*member, rest...);
}
template <typename Target, typename... Path>
using FieldType = std::remove_reference_t<decltype(FieldAt(std::declval<Target&>(), std::declval<Path>()...))>;

// One row of a section's key table: the key, what it means, and the field of Target it sets (reached
// by a path of members). The field's type is the key's type and its value in a default Target the
// key's default, so neither is written again; Describe() says all four (`swe-trainer keys`).
template <typename Target>
class RecipeKey {
 public:
  template <typename... Path>
  RecipeKey(const char* key, const char* doc, Path... path)
      : key_(key), doc_(doc),
        read_([key, path...](RecipeSection& s, Target& t) { s.Get(key, &FieldAt(t, path...)); }),
        type_(RecipeSection::TypeName<FieldType<Target, Path...>>()),
        default_([path...] { Target t{}; return nlohmann::json(FieldAt(t, path...)).dump(); }) {}

  // A key whose value is one of the names of `choices`, each standing for a value of the field.
  template <typename... Path>
  static RecipeKey Choice(const char* key, const char* doc,
                          std::vector<std::pair<const char*, FieldType<Target, Path...>>> choices, Path... path) {
    RecipeKey k(key, doc);
    k.read_ = [key, choices, path...](RecipeSection& s, Target& t) { s.GetChoice(key, choices, &FieldAt(t, path...)); };
    k.type_ = "one of";
    for (const auto& choice : choices) k.type_ += std::string(" ") + choice.first;
    k.default_ = [choices, path...] {
      Target t{};
      for (const auto& [name, value] : choices) {
        if (FieldAt(t, path...) == value) return std::string(name);
      }
      return std::string();
    };
    return k;
  }

  const char* key() const { return key_; }
  void Read(RecipeSection& s, Target* t) const { read_(s, *t); }
  // "key<TAB>type<TAB>default<TAB>doc"
  std::string Describe() const { return std::string(key_) + "\t" + type_ + "\t" + default_() + "\t" + doc_; }

 private:
  RecipeKey(const char* key, const char* doc) : key_(key), doc_(doc) {}  // for Choice

  const char* key_;
  const char* doc_;
  std::function<void(RecipeSection&, Target&)> read_;
  std::string type_;
  std::function<std::string()> default_;
};

template <typename Target>
using RecipeKeys = std::vector<RecipeKey<Target>>;

template <typename Target>
void ReadKeys(const RecipeKeys<Target>& keys, RecipeSection* s, Target* t) {
  for (const RecipeKey<Target>& k : keys) k.Read(*s, t);
}
// A section without nested lists: its keys read into *t, then Done().
template <typename Target>
Status ReadSection(const nlohmann::json& j, const std::string& where, const RecipeKeys<Target>& keys, Target* t) {
  RecipeSection s(j, where);
  ReadKeys(keys, &s, t);
  return s.Done();
}
// Appends "section.key<TAB>type<TAB>default<TAB>doc" for each key.
template <typename Target>
void DescribeKeys(const std::string& section, const RecipeKeys<Target>& keys, std::vector<std::string>* out) {
  for (const RecipeKey<Target>& k : keys) out->push_back((section.empty() ? "" : section + ".") + k.Describe());
}

// The recipe text as JSON; invalid JSON is an error with its line and column.
Status ParseRecipeJson(std::string_view text, nlohmann::json* out);

}  // namespace swe::trainer
