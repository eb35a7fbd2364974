# Cap'n Proto 0.9.2 from Debian packages unpacked (dpkg -x) into a prefix, for a machine without apt
# (scripts/gpu/build.sh): Debian's own config hard-codes /usr and wants pkg-config and OpenSSL.
get_filename_component(_capnp_prefix "${CMAKE_CURRENT_LIST_DIR}/../../../.." ABSOLUTE)
set(_capnp_lib "${_capnp_prefix}/lib/x86_64-linux-gnu")
set(CapnProto_VERSION 0.9.2)
set(CAPNP_EXECUTABLE "${_capnp_prefix}/bin/capnp" CACHE FILEPATH "capnp")
set(CAPNPC_CXX_EXECUTABLE "${_capnp_prefix}/bin/capnpc-c++" CACHE FILEPATH "capnpc-c++")
set(CAPNP_INCLUDE_DIRECTORY "${_capnp_prefix}/include")
foreach(_t kj capnp)
  if(NOT TARGET CapnProto::${_t})
    add_library(CapnProto::${_t} SHARED IMPORTED)
    set_target_properties(CapnProto::${_t} PROPERTIES IMPORTED_LOCATION "${_capnp_lib}/lib${_t}-0.9.2.so"
                          INTERFACE_INCLUDE_DIRECTORIES "${_capnp_prefix}/include")
  endif()
endforeach()
set_property(TARGET CapnProto::capnp PROPERTY INTERFACE_LINK_LIBRARIES CapnProto::kj)
include("${CMAKE_CURRENT_LIST_DIR}/CapnProtoMacros.cmake")
set(CapnProto_FOUND TRUE)
