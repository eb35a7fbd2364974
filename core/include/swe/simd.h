// Which SIMD kernel variant core encodes and searches with (for benchmarks and diagnostics). The
// kernels themselves are private to core (src/simd); every variant gives bit-identical results.
#pragma once

#include <vector>

namespace swe::simd {

// The variant in use ("avx512", "avx2", "wasm128", "generic"): the best this CPU supports, or SWE_SIMD=<name>.
const char* ActiveName();
// Every variant this CPU can run, best last.
std::vector<const char*> SupportedNames();

}  // namespace swe::simd
