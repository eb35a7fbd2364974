# Core's dependencies compiled from source, instead of find_package(CapnProto) and find_package(zstd):
# in the Emscripten build, and in the Node addon's build (SWE_SOURCE_DEPS: Debian's archives are not
# position-independent, and the addon must carry no shared library beside libc). Included by
# core/CMakeLists.txt. Both are compiled from Debian's sources, fetched
# and cached by wasm/fetch-deps.sh (.cache/wasm-deps/, never committed), at the versions of the
# installed Debian packages:
#   zstd::libzstd_static  zstd's single-file decoder (decompression only; core's container is built
#                         with SWE_NO_ZSTD_COMPRESS and writes stored frames);
#   CapnProto::capnp      the Cap'n Proto "lite" runtime (kj + capnp, no reflection), -DCAPNP_LITE;
#   capnp_generate_cpp()  from that source, run with the native capnp tool of the same version.
# SWE_ZSTD_SOURCE_DIR / SWE_CAPNP_SOURCE_DIR point at other unpacked sources (skips the fetch).

# Flags of every wasm object (this directory's and wasm/'s): simd128 everywhere, and C++ exceptions
# kept working (core catches kj::Exception from Cap'n Proto; the C API catches everything else) with
# native wasm exception handling (Node 20, Chrome 95, Firefox 100, Safari 15.2). Emscripten's JS-based
# exceptions (-s DISABLE_EXCEPTION_CATCHING=0) route every call that may throw through a JS trampoline
# and, in Emscripten 3.1.6, do not even link with kj
# (__cxa_current_exception_type is missing).
set(_swe_simd_flags)
if(EMSCRIPTEN)
  set(SWE_WASM_EH_FLAGS -fwasm-exceptions CACHE INTERNAL "")
  add_compile_options(-msimd128 ${SWE_WASM_EH_FLAGS})
  set(CMAKE_POSITION_INDEPENDENT_CODE OFF)  # one static module: PIC would only add indirections
  set(_swe_simd_flags -msimd128)
endif()

set(SWE_ZSTD_SOURCE_DIR "" CACHE PATH "zstd source tree for the wasm build (empty: fetch with apt-get source)")
set(SWE_CAPNP_SOURCE_DIR "" CACHE PATH "Cap'n Proto source tree for the wasm build (empty: fetch)")

set(_swe_zstd "${SWE_ZSTD_SOURCE_DIR}")
set(_swe_capnp "${SWE_CAPNP_SOURCE_DIR}")
if(NOT _swe_zstd OR NOT _swe_capnp)
  execute_process(COMMAND bash "${PROJECT_SOURCE_DIR}/wasm/fetch-deps.sh"
                  OUTPUT_VARIABLE _swe_dirs RESULT_VARIABLE _swe_rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _swe_rc EQUAL 0)
    message(FATAL_ERROR "wasm/fetch-deps.sh failed (see above)")
  endif()
  string(REPLACE "\n" ";" _swe_dirs "${_swe_dirs}")
  list(GET _swe_dirs 0 _swe_zstd)
  list(GET _swe_dirs 1 _swe_capnp)
endif()

# ---- zstd: the single-file decoder, amalgamated by zstd's own script at build time ----------------
set(_swe_zstd_amalgam "${CMAKE_BINARY_DIR}/source-deps/zstddeclib.c")
file(MAKE_DIRECTORY "${CMAKE_BINARY_DIR}/source-deps")
find_package(Python3 REQUIRED COMPONENTS Interpreter)
add_custom_command(
  OUTPUT "${_swe_zstd_amalgam}"
  COMMAND "${Python3_EXECUTABLE}" combine.py -r ../../lib -x legacy/zstd_legacy.h -o "${_swe_zstd_amalgam}"
          zstddeclib-in.c
  WORKING_DIRECTORY "${_swe_zstd}/build/single_file_libs"
  COMMENT "Amalgamating zstd's single-file decoder"
  VERBATIM)
add_library(swe_zstd_decoder STATIC "${_swe_zstd_amalgam}")
target_include_directories(swe_zstd_decoder SYSTEM PUBLIC "${_swe_zstd}/lib")
target_compile_options(swe_zstd_decoder PRIVATE -O3 ${_swe_simd_flags} -w)
add_library(zstd::libzstd_static ALIAS swe_zstd_decoder)

# ---- Cap'n Proto lite runtime: the lite source lists of its CMakeLists (without main/test helpers) --
find_program(CAPNP_EXECUTABLE capnp REQUIRED)
execute_process(COMMAND "${CAPNP_EXECUTABLE}" --version OUTPUT_VARIABLE _swe_capnp_tool_version OUTPUT_STRIP_TRAILING_WHITESPACE)
get_filename_component(_swe_capnp_dir_name "${_swe_capnp}" NAME)
string(REGEX REPLACE "^capnproto-" "" _swe_capnp_source_version "${_swe_capnp_dir_name}")
if(NOT _swe_capnp_tool_version MATCHES " ${_swe_capnp_source_version}$")
  message(FATAL_ERROR "the native capnp tool (${_swe_capnp_tool_version}) and the Cap'n Proto source "
                      "(${_swe_capnp_dir_name}) differ: generated code must match the runtime")
endif()
set(_swe_kj "${_swe_capnp}/src/kj")
set(_swe_cp "${_swe_capnp}/src/capnp")
add_library(swe_capnp_lite STATIC
  ${_swe_kj}/array.c++ ${_swe_kj}/list.c++ ${_swe_kj}/common.c++ ${_swe_kj}/debug.c++
  ${_swe_kj}/exception.c++ ${_swe_kj}/io.c++ ${_swe_kj}/memory.c++ ${_swe_kj}/mutex.c++
  ${_swe_kj}/string.c++ ${_swe_kj}/source-location.c++ ${_swe_kj}/hash.c++ ${_swe_kj}/table.c++
  ${_swe_kj}/thread.c++ ${_swe_kj}/arena.c++ ${_swe_kj}/units.c++ ${_swe_kj}/encoding.c++
  ${_swe_cp}/c++.capnp.c++ ${_swe_cp}/blob.c++ ${_swe_cp}/arena.c++ ${_swe_cp}/layout.c++
  ${_swe_cp}/list.c++ ${_swe_cp}/any.c++ ${_swe_cp}/message.c++ ${_swe_cp}/schema.capnp.c++
  ${_swe_cp}/stream.capnp.c++ ${_swe_cp}/serialize.c++ ${_swe_cp}/serialize-packed.c++)
set_target_properties(swe_capnp_lite PROPERTIES LINKER_LANGUAGE CXX CXX_EXTENSIONS ON)
target_include_directories(swe_capnp_lite SYSTEM PUBLIC "${_swe_capnp}/src")
target_compile_definitions(swe_capnp_lite PUBLIC CAPNP_LITE=1)
target_compile_options(swe_capnp_lite PRIVATE -O3 -w)
add_library(CapnProto::capnp ALIAS swe_capnp_lite)

find_program(CAPNPC_CXX_EXECUTABLE capnpc-c++ REQUIRED)
set(CAPNP_INCLUDE_DIRECTORY "${_swe_capnp}/src")
include("${_swe_capnp}/cmake/CapnProtoMacros.cmake")
