# Cross-compiling for 64-bit ARM Linux with Debian's cross compiler (g++-aarch64-linux-gnu) against the
# arm64 multiarch libraries (libcapnp-dev:arm64, libzstd-dev:arm64, libgtest-dev:arm64); programs run
# under qemu-aarch64 (scripts/test-aarch64.sh). The capnp schema compiler is the build machine's own.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# The arm64 libraries' loader and libc come with libc6:arm64 (multiarch), so qemu needs no -L.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)  # capnp, capnpc-c++: the build machine's
# CapnProto's config asks pkg-config: the arm64 .pc files, not the build machine's.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
