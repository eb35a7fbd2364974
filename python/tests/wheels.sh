#!/usr/bin/env bash
# A wheel for every CPython (3.7 or newer) on this machine whose headers are installed, each in a virtual
# environment of its own without NumPy: build/python-wheels/<tag>/ (the wheel, and venv/), which
# python/tests/test_wheel.py imports. Debian's /usr/bin/python3 reuses the wheel python/tests/run.sh
# built (build/python-wheel); the others are the pyenv interpreters under $PYENV_ROOT (default
# /root/.pyenv: a developer's machine; CI has none). For each of those, setup.py's build_ext compiles
# the extension with that interpreter's headers (against the same CMake libraries, build/python), and
# Debian's `wheel` repacks the Debian wheel around it under the interpreter's tag: the Python files and
# the model are the same for every version. (Debian's setuptools builds no whole wheel for another
# interpreter: it is patched for Debian's install layout; their own setuptools are older or missing.)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=build/python-wheels
rm -rf "$out"
mkdir -p "$out"
# Debian's setuptools alone on the path of the other interpreters (not its NumPy, built for 3.11).
shim=$out/build-tools
mkdir -p "$shim"
for name in setuptools pkg_resources _distutils_hack distutils-precedence.pth setuptools-*.egg-info; do
  ln -s /usr/lib/python3/dist-packages/$name "$shim/"
done
tag_of() {  # "cp311 cp311" (the wheel's Python and ABI tags; 3.7's ABI is cp37m); nothing for an
            # interpreter that is too old or has no headers
  "$1" - <<'EOF' 2>/dev/null || true
import os, sys, sysconfig
if sys.implementation.name == "cpython" and sys.version_info >= (3, 7) and \
        os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h")):
    version = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    print(version, version + sys.abiflags)
EOF
}
built=()
for python in /usr/bin/python3 "${PYENV_ROOT:-/root/.pyenv}"/versions/*/bin/python3; do
  [ -x "$python" ] || continue
  tag="" abi=""
  read -r tag abi < <(tag_of "$python") || true
  [ -n "$tag" ] || { echo "wheels: $python: no wheel (not CPython 3.7+, or no headers)"; continue; }
  [ ! -d "$out/$tag" ] || continue  # one wheel per version
  mkdir -p "$out/$tag"
  if [ "$python" = /usr/bin/python3 ]; then
    cp build/python-wheel/swe-*.whl "$out/$tag/"
  else
    (cd python && PYTHONPATH="$PWD/../$shim" "$python" setup.py -q build_ext -b "../$out/$tag/ext" -t "../$out/$tag/tmp") \
      > "$out/$tag/build.log" 2>&1 || { cat "$out/$tag/build.log"; exit 1; }
    /usr/bin/python3 -m wheel unpack -d "$out/$tag/unpacked" build/python-wheel/swe-*.whl >/dev/null
    package=$(echo "$out/$tag/unpacked"/swe-*)
    rm "$package"/swe/_swe.*.so
    cp "$out/$tag/ext"/swe/_swe.*.so "$package/swe/"
    sed -i -E "s/^Tag: cp[0-9]+-cp[0-9]+m?-/Tag: $tag-$abi-/" "$package"/swe-*.dist-info/WHEEL
    /usr/bin/python3 -m wheel pack -d "$out/$tag" "$package" >/dev/null
    rm -rf "$out/$tag/unpacked" "$out/$tag/ext" "$out/$tag/tmp"
  fi
  "$python" -m venv "$out/$tag/venv"  # no system packages: no NumPy
  "$out/$tag/venv/bin/python" -m pip install --quiet --no-index --no-deps "$out/$tag"/swe-*.whl
  echo "$python" > "$out/$tag/interpreter"
  built+=("$tag")
done
echo "wheels: ${built[*]}"
