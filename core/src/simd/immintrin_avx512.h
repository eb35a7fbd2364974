// <immintrin.h> for the AVX-512 code (simd/kernels_avx512.cpp). GCC 12 warns inside its
// own AVX-512 headers (their "undefined" registers initialised from themselves): a known false
// positive, silenced for those headers only.
#pragma once

#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
