#!/usr/bin/env bash
# The Python package's tests as a user gets it: builds the wheel with Debian's /usr/bin/python3 (offline:
# setuptools and pybind11 from Debian, no build isolation), installs it into a fresh virtual environment
# (--system-site-packages: NumPy, Dask and pytest from Debian) and runs tests/python with that venv's
# python. Reuses build/native (libswe, and the swe program the parity tests call) when it is there.
set -euo pipefail
cd "$(dirname "$0")/../.."
python=/usr/bin/python3
[ -f build/native/CMakeCache.txt ] && export SWE_PYTHON_BUILD_DIR="${SWE_PYTHON_BUILD_DIR:-$PWD/build/native}"
wheels=build/python-wheel
venv=build/python-venv
rm -rf "$wheels" "$venv" "$venv-checkout"
"$python" -m pip wheel --quiet --no-build-isolation --no-deps --no-index -w "$wheels" ./python
"$python" -m venv --system-site-packages "$venv"
"$venv/bin/pip" install --quiet --no-index "$wheels"/swe-*.whl
# `pip install ./python` from the checkout works too (offline: with no pyproject.toml pip runs setup.py
# without build isolation).
"$python" -m venv --system-site-packages "$venv-checkout"
"$venv-checkout/bin/pip" install --quiet --no-index ./python
(cd build && "python-venv-checkout/bin/python" -c "import swe; assert swe.load().encode('a cat').shape == (256,)")
rm -rf "$venv-checkout"
export SWE_REQUIRE_CLI=1
# From build/, so that `import swe` finds the installed package, not python/swe in the checkout.
cd build && "../$venv/bin/python" -m pytest -q -p no:cacheprovider ../tests/python "$@"
