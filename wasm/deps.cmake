# Core's dependencies in an Emscripten build (included by core/CMakeLists.txt when EMSCRIPTEN): the
# flags of every wasm object, then zstd's single-file decoder and the Cap'n Proto lite runtime compiled
# from Debian's sources (cmake/deps_from_source.cmake).

# Flags of every wasm object (this directory's and wasm/'s): simd128 everywhere, and C++ exceptions
# kept working (core catches kj::Exception from Cap'n Proto; the C API catches everything else) with
# native wasm exception handling (Node 20, Chrome 95, Firefox 100, Safari 15.2). Emscripten's JS-based
# exceptions (-s DISABLE_EXCEPTION_CATCHING=0) route every call that may throw through a JS trampoline
# and, in Emscripten 3.1.6, do not even link with kj
# (__cxa_current_exception_type is missing).
set(SWE_WASM_EH_FLAGS -fwasm-exceptions CACHE INTERNAL "")
add_compile_options(-msimd128 ${SWE_WASM_EH_FLAGS})
set(CMAKE_POSITION_INDEPENDENT_CODE OFF)  # one static module: PIC would only add indirections

set(SWE_ZSTD_DECODER_ONLY ON)  # core's container is built with SWE_NO_ZSTD_COMPRESS (core/CMakeLists.txt)
include("${PROJECT_SOURCE_DIR}/cmake/deps_from_source.cmake")
