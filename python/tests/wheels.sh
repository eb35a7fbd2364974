#!/usr/bin/env bash
# A wheel for every CPython (3.7 or newer) on this machine whose headers are installed, each in a virtual
# environment of its own without NumPy: build/python-wheels/<tag>/ (the wheel, and venv/), which
# python/tests/test_wheel.py imports. Debian's /usr/bin/python3 reuses the wheel python/tests/run.sh
# built (build/python-wheel); the others are the pyenv interpreters under $PYENV_ROOT (default
# /root/.pyenv: a developer's machine; CI has none), built with Debian's setuptools and wheel (their own
# are older or missing) and the same CMake libraries (built once, build/python).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=build/python-wheels
rm -rf "$out"
mkdir -p "$out"
# Debian's build tools alone on the path of the other interpreters (not its NumPy, built for 3.11).
shim=$out/build-tools
mkdir -p "$shim"
for name in setuptools pkg_resources _distutils_hack wheel distutils-precedence.pth setuptools-*.egg-info \
            wheel-*.egg-info; do  # (the egg-info: the entry points that name bdist_wheel)
  ln -s /usr/lib/python3/dist-packages/$name "$shim/"
done
tag_of() {  # cp311 for CPython 3.11; nothing for an interpreter that is too old or has no headers
  "$1" - <<'EOF' 2>/dev/null || true
import os, sys, sysconfig
if sys.implementation.name == "cpython" and sys.version_info >= (3, 7) and \
        os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h")):
    print(f"cp{sys.version_info[0]}{sys.version_info[1]}")
EOF
}
built=()
for python in /usr/bin/python3 "${PYENV_ROOT:-/root/.pyenv}"/versions/*/bin/python3; do
  [ -x "$python" ] || continue
  tag=$(tag_of "$python")
  [ -n "$tag" ] || { echo "wheels: $python: no wheel (not CPython 3.7+, or no headers)"; continue; }
  [ ! -d "$out/$tag" ] || continue  # one wheel per version
  mkdir -p "$out/$tag"
  if [ "$python" = /usr/bin/python3 ]; then
    cp build/python-wheel/swe-*.whl "$out/$tag/"
  else
    PYTHONPATH="$PWD/$shim" "$python" -m pip wheel --quiet --no-build-isolation --no-deps --no-index \
      -w "$out/$tag" ./python
  fi
  "$python" -m venv "$out/$tag/venv"  # no system packages: no NumPy
  "$out/$tag/venv/bin/python" -m pip install --quiet --no-index --no-deps "$out/$tag"/swe-*.whl
  echo "$python" > "$out/$tag/interpreter"
  built+=("$tag")
done
echo "wheels: ${built[*]}"
