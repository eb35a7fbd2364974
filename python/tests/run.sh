#!/usr/bin/env bash
# The Python package's tests as a user gets it: builds the wheel with Debian's /usr/bin/python3 (offline:
# setuptools, wheel and pybind11 from Debian, no build isolation), installs it into a fresh virtual
# environment (--system-site-packages: NumPy, Dask and pytest from Debian) and runs python/tests with that
# venv's python. python/tests/wheels.sh first builds a wheel for every other CPython found with its headers
# (the pyenv interpreters on a developer's machine; none on CI), which test_wheel.py imports without NumPy.
set -euo pipefail
cd "$(dirname "$0")/../.."
python=/usr/bin/python3
wheels=build/python-wheel
venv=build/python-venv
if command -v ccache >/dev/null; then  # the extension's sources; CMake's libraries use ccache already
  export CC="ccache gcc" CXX="ccache g++"
fi
rm -rf "$wheels" "$venv"
"$python" -m pip wheel --quiet --no-build-isolation --no-deps --no-index -w "$wheels" ./python
"$python" -m venv --system-site-packages "$venv"
"$venv/bin/pip" install --quiet --no-index "$wheels"/swe-*.whl
bash python/tests/wheels.sh
export SWE_REQUIRE_CLI=1
# From build/, so that `import swe` finds the installed package, not python/swe in the checkout.
cd build && "../$venv/bin/python" -m pytest -q -p no:cacheprovider ../python/tests "$@"
