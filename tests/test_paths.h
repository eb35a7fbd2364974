// Where the tests find the checkout, the shared data and the programs they run. The paths live in one
// generated source (test_paths.cpp.in, configured into the build folder), so that no other object
// holds a checkout's path: ccache then reuses every test object across worktrees.
#pragma once

namespace swe::test {

const char* SourceDir();   // the repository's root
const char* SharedData();  // SWE_SHARED_DATA (CMake cache; default ../shared/data beside the checkout)
const char* CliPath();     // the built swe program ("" when the build has none)
const char* TrainerPath(); // the built swe-trainer ("" when the build has none)

}  // namespace swe::test
