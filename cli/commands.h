// The subcommands. Each takes the words after its name, prints its --help when asked, returns the exit
// code and throws CliError / util::UsageError for failures (main prints them).
#pragma once

#include <string>
#include <vector>

namespace swe::cli {

using Args = std::vector<std::string>;

int RunInfo(const Args& args);        // cmd_inspect.cpp
int RunTokenize(const Args& args);    // cmd_inspect.cpp
int RunEncode(const Args& args);      // cmd_encode.cpp
int RunSimilarity(const Args& args);  // cmd_encode.cpp
int RunSearch(const Args& args);      // cmd_search.cpp
int RunIndex(const Args& args);       // cmd_index.cpp: index build | add | query | get | ids | remove
int RunDedupe(const Args& args);      // cmd_helpers.cpp
int RunCluster(const Args& args);     // cmd_helpers.cpp
int RunConvert(const Args& args);     // cmd_convert.cpp
int RunEval(const Args& args);        // cmd_eval.cpp
int RunServe(const Args& args);       // cmd_serve.cpp (the server: serve/)

}  // namespace swe::cli
