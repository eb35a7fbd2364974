// Picks one of several implementations of the same function (kernel tables, scans): the one an
// environment variable names (SWE_SIMD: for benchmarks and tests), else the best.
#pragma once

#include <cstdlib>
#include <cstring>
#include <vector>

namespace swe::simd {

template <class T>
const char* NameOf(const T& entry) { return entry.name; }
template <class T>
const char* NameOf(const T* entry) { return entry->name; }

// `supported`: never empty, the best last.
template <class T>
T PickByName(const std::vector<T>& supported, const char* env_var) {
  if (const char* wanted = std::getenv(env_var)) {
    for (const T& entry : supported) {
      if (std::strcmp(NameOf(entry), wanted) == 0) return entry;
    }
  }
  return supported.back();
}

}  // namespace swe::simd
