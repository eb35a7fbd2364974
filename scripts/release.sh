#!/usr/bin/env bash
# Builds the release artifacts into dist/ (ignored by git):
#   dist/swe-VERSION-linux-ARCH.tar.gz   the swe program, libswe.so and libswe.a (core included), swe.h,
#                                        lib/pkgconfig/swe.pc and lib/cmake/swe (find_package(swe))
#   dist/swe-postgres-VERSION-pg15-linux-ARCH.tar.gz   the PostgreSQL extension (lib/swe.so and
#                                        lib/swe-libs/: Cap'n Proto's runtime; extension/swe.control and
#                                        its SQL script), where pg_config is installed (docs/POSTGRES.md;
#                                        tests/postgres/check_tarball.sh)
#   dist/swe-VERSION-cpXY-cpXY-linux_ARCH.whl   the Python package for Debian's /usr/bin/python3, with
#                                        the default model; it needs only glibc and libstdc++ (python/README.md)
#   the npm packages, from js/scripts/release.sh when this checkout has it.
# The native build needs only scripts/install-deps.sh --native; the tarball's programs link Cap'n Proto
# and zstd dynamically (Debian: libcapnp-0.9.2, libzstd1). tests/release/check.sh tests the tarball.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh  # the native build's packages and Emscripten (idempotent)
version=$(head -n1 VERSION)
name=swe-$version-linux-$(uname -m)
build=build/release
stage=dist/stage/$name
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_LIBDIR=lib -DSWE_BUILD_TESTS=OFF \
  -DSWE_BUILD_BENCH=OFF -DSWE_BUILD_TRAINER=OFF >/dev/null
cmake --build "$build" --target swe_cli swe_shared swe_static -j"$(nproc)" >/dev/null
rm -rf "$stage"
cmake --install "$build" --prefix "$stage" --strip >/dev/null
# The static archive: libswe's C API plus what it links privately (core, util), so that users link
# only it and core's system dependencies.
ar -M <<MRI
CREATE $stage/lib/libswe.a
ADDLIB $build/libswe/libswe.a
ADDLIB $build/core/libswe_core.a
ADDLIB $build/util/libswe_util.a
SAVE
END
MRI
ranlib "$stage/lib/libswe.a"
tar -C dist/stage -czf "dist/$name.tar.gz" "$name"
rm -rf dist/stage
echo "dist/$name.tar.gz"
if [ -f "$build/postgres/swe.control" ]; then  # configured only where pg_config is installed
  cmake --build "$build" --target swe_postgres -j"$(nproc)" >/dev/null
  pg_config=$(sed -n 's/^SWE_PG_CONFIG:FILEPATH=//p' "$build/CMakeCache.txt")  # the one the build used
  pg_name=swe-postgres-$version-pg$("$pg_config" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')-linux-$(uname -m)
  mkdir -p "dist/stage/$pg_name/lib" "dist/stage/$pg_name/extension"
  strip --strip-unneeded -o "dist/stage/$pg_name/lib/swe.so" "$build/postgres/swe.so"
  # Cap'n Proto's runtime beside it (swe.so's RPATH: $ORIGIN/swe-libs; postgres/CMakeLists.txt says why)
  mkdir -p "dist/stage/$pg_name/lib/swe-libs"
  cp -L $(ldd "$build/postgres/swe.so" | awk '/libcapnp|libkj/ { print $3 }') "dist/stage/$pg_name/lib/swe-libs/"
  cp "$build/postgres/swe.control" "$build/postgres/swe--$version.sql" "$build/postgres"/swe--*--*.sql \
     "dist/stage/$pg_name/extension/"
  tar -C dist/stage -czf "dist/$pg_name.tar.gz" "$pg_name"
  rm -rf dist/stage
  echo "dist/$pg_name.tar.gz"
fi
# The Python wheel (offline: Debian's setuptools, wheel and pybind11): its own CMake build (build/python),
# Cap'n Proto and zstd compiled in from source, so that it needs neither at run time (python/README.md).
/usr/bin/python3 -m pip wheel --quiet --no-build-isolation --no-deps --no-index -w dist ./python >/dev/null
ls dist/swe-"$version"-*.whl
if [ -f js/scripts/release.sh ]; then
  bash js/scripts/release.sh dist/
fi
