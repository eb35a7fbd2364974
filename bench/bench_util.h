// Helpers shared by the benchmark programs: failing with a message, thread CPU time, arguments.
#pragma once

#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "swe/status.h"

namespace bench {

// Where the data and the models lie: defined in bench_paths.cpp (configured from bench_paths.cpp.in),
// the one object that holds the checkout's path.
const char* BenchDataDir();
const char* BenchModelsDir();

// The program's name in messages; each benchmark sets it first thing in main.
inline const char* g_program = "bench";

[[noreturn]] inline void Die(const std::string& message) {
  std::fprintf(stderr, "%s: %s\n", g_program, message.c_str());
  std::exit(1);
}

inline void Check(const swe::Status& s, const std::string& what) {
  if (!s.ok()) Die(what + ": " + s.ToString());
}

// CPU time of this thread: on a shared machine, the time this benchmark was not scheduled does not
// count (wall time and CPU time agree on an idle one).
inline double ThreadSeconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

// The value after argv[*i] (advancing *i); dies when there is none.
inline std::string ArgValue(int argc, char** argv, int* i) {
  if (*i + 1 >= argc) Die(std::string(argv[*i]) + " needs a value");
  return argv[++*i];
}

}  // namespace bench
