"""The package as installed from the wheel: its own copy of swe (not the source tree) and the default
model inside it, so swe.load() needs no path."""
import subprocess
import sys
from pathlib import Path

import numpy as np

import swe
from conftest import ROOT


def test_installed_package_ships_the_default_model():
    if "site-packages" not in swe.__file__:
        return  # run from the source tree (PYTHONPATH=python): nothing installed to check
    assert Path(swe.__file__).parent == swe.default_model_path().parent.parent
    assert swe.default_model_path().read_bytes() == (ROOT / "models" / swe.model.DEFAULT_MODEL).read_bytes()
    assert (Path(swe.__file__).parent / "py.typed").is_file() and (Path(swe.__file__).parent / "_swe.pyi").is_file()


def test_the_extension_holds_libswe_and_hides_it():
    extension = str(next(Path(swe.__file__).parent.glob("_swe*.so")))
    libraries = subprocess.run(["ldd", extension], capture_output=True, text=True, check=True).stdout
    assert "libswe" not in libraries  # linked statically
    symbols = subprocess.run(["nm", "-D", "--defined-only", extension], capture_output=True, text=True,
                             check=True).stdout.split()
    assert "PyInit__swe" in symbols and not any(s.startswith("swe_") for s in symbols)


def test_the_three_lines_of_the_readme(model):
    code = "import swe; m = swe.load(); print(m.encode(['a man is playing a guitar']).tobytes().hex())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=ROOT / "build").stdout.strip()
    assert bytes.fromhex(out) == model.encode(["a man is playing a guitar"]).tobytes()
    assert np.frombuffer(bytes.fromhex(out), dtype=np.float32).shape == (model.dims,)
