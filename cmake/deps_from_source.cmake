# Core's dependencies compiled from Debian's sources instead of found with find_package(CapnProto) and
# find_package(zstd): for the WebAssembly module (wasm/deps.cmake adds its flags, then includes this)
# and for the Python wheel's extension (SWE_DEPS_FROM_SOURCE, set by python/setup.py), which must not
# need the system's libcapnp and libzstd at run time. The sources are fetched and cached by
# scripts/fetch-deps.sh (.cache/deps-src/, never committed) at the versions of the installed Debian
# packages; the objects are built in the build folder (position-independent where the build is).
#   zstd::libzstd_static  SWE_ZSTD_DECODER_ONLY: zstd's single-file decoder (core's container is then
#                         built with SWE_NO_ZSTD_COMPRESS and writes stored frames); otherwise the whole
#                         library, compression included (the same files as the swe program writes);
#   CapnProto::capnp      the Cap'n Proto "lite" runtime (kj + capnp, no reflection), -DCAPNP_LITE;
#   capnp_generate_cpp()  from that source, run with the native capnp tool of the same version.
# SWE_ZSTD_SOURCE_DIR / SWE_CAPNP_SOURCE_DIR point at other unpacked sources (skips the fetch).

set(SWE_ZSTD_SOURCE_DIR "" CACHE PATH "zstd source tree (empty: fetch with scripts/fetch-deps.sh)")
set(SWE_CAPNP_SOURCE_DIR "" CACHE PATH "Cap'n Proto source tree (empty: fetch with scripts/fetch-deps.sh)")

set(_swe_zstd "${SWE_ZSTD_SOURCE_DIR}")
set(_swe_capnp "${SWE_CAPNP_SOURCE_DIR}")
if(NOT _swe_zstd OR NOT _swe_capnp)
  execute_process(COMMAND bash "${PROJECT_SOURCE_DIR}/scripts/fetch-deps.sh"
                  OUTPUT_VARIABLE _swe_dirs RESULT_VARIABLE _swe_rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _swe_rc EQUAL 0)
    message(FATAL_ERROR "scripts/fetch-deps.sh failed (see above)")
  endif()
  string(REPLACE "\n" ";" _swe_dirs "${_swe_dirs}")
  list(GET _swe_dirs 0 _swe_zstd)
  list(GET _swe_dirs 1 _swe_capnp)
endif()

# ---- zstd ------------------------------------------------------------------------------------------
if(SWE_ZSTD_DECODER_ONLY)  # the single-file decoder, amalgamated by zstd's own script at build time
  set(_swe_zstd_amalgam "${CMAKE_BINARY_DIR}/deps-src/zstddeclib.c")
  file(MAKE_DIRECTORY "${CMAKE_BINARY_DIR}/deps-src")
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  add_custom_command(
    OUTPUT "${_swe_zstd_amalgam}"
    COMMAND "${Python3_EXECUTABLE}" combine.py -r ../../lib -x legacy/zstd_legacy.h -o "${_swe_zstd_amalgam}"
            zstddeclib-in.c
    WORKING_DIRECTORY "${_swe_zstd}/build/single_file_libs"
    COMMENT "Amalgamating zstd's single-file decoder"
    VERBATIM)
  add_library(swe_zstd STATIC "${_swe_zstd_amalgam}")
else()  # the library's C sources; no assembly (ZSTD_DISABLE_ASM), no threads, no legacy formats
  file(GLOB _swe_zstd_srcs "${_swe_zstd}/lib/common/*.c" "${_swe_zstd}/lib/compress/*.c"
       "${_swe_zstd}/lib/decompress/*.c")
  add_library(swe_zstd STATIC ${_swe_zstd_srcs})
  target_compile_definitions(swe_zstd PRIVATE ZSTD_DISABLE_ASM=1)
endif()
target_include_directories(swe_zstd SYSTEM PUBLIC "${_swe_zstd}/lib")
target_compile_options(swe_zstd PRIVATE -O3 -w)
add_library(zstd::libzstd_static ALIAS swe_zstd)

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
