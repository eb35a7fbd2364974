"""The package as installed from its wheel: its own copy of swe with the default model inside, an
extension that needs only the C and C++ runtimes (Cap'n Proto and zstd linked in, hidden: import works
with Debian's libcapnp, libkj and libzstd hidden), the glibc floor docs state, and a wheel for every
CPython on the machine, each imported without NumPy (python/tests/wheels.sh builds them)."""
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import swe
from conftest import ROOT

WHEELS = ROOT / "build" / "python-wheels"
# What the extension may link: glibc (libc, libm, the loader) and GCC's C++ runtime.
RUNTIMES = {"libc.so.6", "libm.so.6", "ld-linux-x86-64.so.2", "libstdc++.so.6", "libgcc_s.so.1"}
# The floor python/README.md states ("The wheel"): the newest symbol versions the extension may need.
FLOOR = {"GLIBC": (2, 34), "GLIBCXX": (3, 4, 29), "CXXABI": (1, 3, 13)}
# Debian's shared Cap'n Proto and zstd, which the extension must not load.
HIDDEN = ("libcapnp", "libkj", "libzstd")


def extension() -> Path:
    return next(Path(swe.__file__).parent.glob("_swe*.so"))


def installed() -> bool:
    return "site-packages" in swe.__file__


def test_installed_package_ships_the_default_model():
    if not installed():
        pytest.skip("run from the source tree (PYTHONPATH=python): nothing installed to check")
    assert Path(swe.__file__).parent == swe.default_model_path().parent.parent
    assert swe.default_model_path().read_bytes() == (ROOT / "models" / swe.model.DEFAULT_MODEL).read_bytes()
    assert (Path(swe.__file__).parent / "py.typed").is_file() and (Path(swe.__file__).parent / "_swe.pyi").is_file()


def test_the_extension_needs_only_the_c_and_cxx_runtimes():
    dynamic = subprocess.run(["readelf", "-d", str(extension())], capture_output=True, text=True, check=True).stdout
    needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", dynamic))
    assert needed and needed <= RUNTIMES, needed - RUNTIMES
    symbols = subprocess.run(["nm", "-D", "--defined-only", str(extension())], capture_output=True, text=True,
                             check=True).stdout.split()
    assert "PyInit__swe" in symbols
    assert not any(s.startswith(("swe_", "ZSTD_", "_ZN5capnp", "_ZN2kj")) for s in symbols)  # linked in, hidden


def test_the_glibc_floor():
    table = subprocess.run(["objdump", "-T", str(extension())], capture_output=True, text=True, check=True).stdout
    for name, floor in FLOOR.items():
        versions = [tuple(map(int, v.split("."))) for v in re.findall(rf"\b{name}_([0-9.]+)\b", table)]
        assert versions and max(versions) <= floor, f"{name}_{'.'.join(map(str, max(versions)))} > the stated floor"


def test_import_works_with_debians_capnp_and_zstd_hidden(tmp_path):
    libraries = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=True).stdout
    paths = sorted({line.split(" => ")[1] for line in libraries.splitlines()
                    if " => " in line and line.strip().startswith(HIDDEN)})
    assert any("libcapnp" in p for p in paths)  # installed here (the swe program links them)
    check = tmp_path / "check.py"
    check.write_text(f"""
import ctypes, json, sys
try:
    ctypes.CDLL("{Path(next(p for p in paths if "libcapnp" in p)).name}")
    hidden = False
except OSError:
    hidden = True
import swe
model = swe.load()
vector = model.encode("a man is playing a guitar")
maps = open("/proc/self/maps").read()
print(json.dumps({{"hidden": hidden, "loaded": [n for n in {list(HIDDEN)!r} if n in maps],
                   "vector": vector.tobytes().hex()}}))
""")
    # A private mount namespace where each of those files reads as empty: loading one fails.
    mounts = " && ".join(f"mount --bind /dev/null {p}" for p in paths)
    run = subprocess.run(["unshare", "-m", "sh", "-c", f"{mounts} && exec {sys.executable} {check}"],
                         capture_output=True, text=True, cwd=ROOT / "build")
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["hidden"] and result["loaded"] == []
    assert bytes.fromhex(result["vector"]) == swe.load().encode("a man is playing a guitar").tobytes()


def test_the_three_lines_of_the_readme(model):
    code = "import swe; m = swe.load(); print(m.encode(['a man is playing a guitar']).tobytes().hex())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=ROOT / "build").stdout.strip()
    assert bytes.fromhex(out) == model.encode(["a man is playing a guitar"]).tobytes()
    assert np.frombuffer(bytes.fromhex(out), dtype=np.float32).shape == (model.dims,)


NO_NUMPY = """
import json, sys
try:
    import numpy
    sys.exit("NumPy is installed in this environment")
except ImportError:
    pass
import swe
model = swe.load()
out = {"version": swe.__version__, "python": sys.version.split()[0], "similarity": model.similarity("a cat", "a kitten"),
       "words": [t["word"] for t in model.tokenize("A cat, zzqqxx")], "vocab": model.vocabulary["cat"]}
try:
    model.encode("a cat")
except ImportError as error:
    out["encode"] = str(error)
print(json.dumps(out))
"""


def wheels():
    return sorted(p.name for p in WHEELS.glob("cp*") if (p / "venv").is_dir())


def test_a_wheel_for_every_cpython_here():
    """python/tests/wheels.sh made one for each interpreter with headers: Debian's at least."""
    tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    assert tag in wheels(), f"no wheel for {tag} in {WHEELS} (python/tests/wheels.sh)"
    for name in wheels():
        assert len(list((WHEELS / name).glob(f"swe-*-{name}-{name}*-linux_*.whl"))) == 1  # 3.7's ABI: cp37m


@pytest.mark.parametrize("tag", wheels())
def test_each_wheel_imports_without_numpy(tag, model):
    run = subprocess.run([str(WHEELS / tag / "venv" / "bin" / "python"), "-c", NO_NUMPY], capture_output=True,
                         text=True, cwd=ROOT / "build")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["python"].startswith(f"{tag[2]}.{tag[3:]}")
    assert out["version"] == swe.__version__
    assert out["similarity"] == model.similarity("a cat", "a kitten")
    assert out["words"] == ["A", "cat", "zzqqxx"] and out["vocab"] == model.vocabulary["cat"]
    assert "NumPy" in out["encode"]
