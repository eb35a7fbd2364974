"""Builds the swe wheel: the extension swe._swe (CMake: the repository's libswe, linked statically,
and python/src over pybind11) and the default English model as package data.

    /usr/bin/python3 -m pip wheel --no-build-isolation --no-deps -w dist ./python
    pip install --no-index ./python

SWE_PYTHON_BUILD_DIR sets CMake's build folder (default: build/python in the repository); an existing
one (e.g. build/native) keeps its configuration and gains only the extension's target."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_MODEL = "swe-en-use-lite-large-para.swe"


class CMakeExtension(build_ext):
    """Configures the repository with SWE_BUILD_PYTHON=ON and builds only the swe_python target."""

    def build_extension(self, ext):
        build = Path(os.environ.get("SWE_PYTHON_BUILD_DIR", ROOT / "build" / "python"))
        options = ["-DSWE_BUILD_PYTHON=ON", f"-DPython_EXECUTABLE={sys.executable}"]
        if not (build / "CMakeCache.txt").exists():  # a new folder: only what the extension needs
            options += ["-DCMAKE_BUILD_TYPE=Release", "-DSWE_BUILD_NATIVE=ON", "-DSWE_BUILD_TESTS=OFF",
                        "-DSWE_BUILD_BENCH=OFF", "-DSWE_BUILD_TRAINER=OFF"]
        subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), *options], check=True, stdout=subprocess.DEVNULL)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", str(build), "--target", "swe_python", "-j", jobs], check=True,
                       stdout=subprocess.DEVNULL)
        built = sorted((build / "python").glob("_swe*.so"))
        if not built:
            raise RuntimeError(f"cmake built no _swe*.so in {build / 'python'}")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


class WithModel(build_py):
    """Copies the default model into the package (swe/models/), so swe.load() needs no path."""

    def run(self):
        super().run()
        models = Path(self.build_lib) / "swe" / "models"
        models.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / "models" / DEFAULT_MODEL, models / DEFAULT_MODEL)


setup(
    name="swe",
    version=(ROOT / "VERSION").read_text().split()[0],
    description="Static word embeddings for sentence semantics: NumPy vectors, search indexes, Dask",
    long_description=(HERE / "README.md").read_text(),
    long_description_content_type="text/markdown",
    packages=["swe"],
    package_data={"swe": ["py.typed", "*.pyi"]},
    ext_modules=[Extension("swe._swe", sources=[])],
    cmdclass={"build_ext": CMakeExtension, "build_py": WithModel},
    python_requires=">=3.8",
    install_requires=["numpy"],
    extras_require={"dask": ["dask", "distributed"]},
    zip_safe=False,
)
