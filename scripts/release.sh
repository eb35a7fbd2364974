#!/usr/bin/env bash
# Builds the release artifacts into dist/ (ignored by git):
#   dist/swe-VERSION-linux-ARCH.tar.gz   the swe program, libswe.so and libswe.a (core included), swe.h,
#                                        lib/pkgconfig/swe.pc and lib/cmake/swe (find_package(swe))
#   dist/swe-VERSION-cpXY-cpXY-linux_ARCH.whl   the Python package for Debian's /usr/bin/python3, with
#                                        the default model (python/README.md)
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
# The Python wheel, over the static libswe just built (offline: Debian's setuptools, wheel and pybind11).
SWE_PYTHON_BUILD_DIR="$PWD/$build" /usr/bin/python3 -m pip wheel --quiet --no-build-isolation --no-deps --no-index \
  -w dist ./python >/dev/null
ls dist/swe-"$version"-*.whl
if [ -f js/scripts/release.sh ]; then
  bash js/scripts/release.sh dist/
fi
