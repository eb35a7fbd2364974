"""Builds the swe wheel (pyproject.toml: setuptools, no build isolation needed):

    python3 -m pip wheel --no-build-isolation --no-deps --no-index -w dist ./python
    python3 -m pip install --no-build-isolation --no-index ./python

The extension swe._swe is its sources (python/src, pybind11) compiled with the running interpreter's
headers and linked with the libraries CMake builds once for every interpreter (python/CMakeLists.txt:
libswe, core and util, with Cap'n Proto and zstd compiled from Debian's sources, all static and
position-independent), so it needs nothing at run time but the C and C++ runtimes. The default English
model is package data. SWE_PYTHON_BUILD_DIR sets CMake's build folder (default: build/python in the
repository); CMAKE_BUILD_PARALLEL_LEVEL the jobs (default: every CPU this process may use)."""
import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_MODEL = "swe-en-use-lite-large-para.swe"


def jobs() -> int:
    return int(os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or len(os.sched_getaffinity(0)))


def build_libraries() -> dict:
    """Configures and builds swe_python_libs; returns link.json: the archives and include folders."""
    build = Path(os.environ.get("SWE_PYTHON_BUILD_DIR", ROOT / "build" / "python"))
    options = ["-DCMAKE_BUILD_TYPE=Release", "-DSWE_BUILD_PYTHON=ON", "-DSWE_DEPS_FROM_SOURCE=ON",
               "-DSWE_BUILD_NATIVE=OFF", "-DSWE_BUILD_TESTS=OFF", "-DSWE_BUILD_BENCH=OFF", "-DSWE_BUILD_TRAINER=OFF"]
    subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), *options], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", str(build), "--target", "swe_python_libs", "-j", str(jobs())], check=True,
                   stdout=subprocess.DEVNULL)
    return json.loads((build / "python" / "link.json").read_text())


class BuildExtension(build_ext):
    """Links swe._swe with CMake's libraries; compiles its sources side by side (one job each)."""

    def build_extensions(self):
        libraries = build_libraries()
        for ext in self.extensions:
            ext.include_dirs += libraries["include_dirs"]
            ext.extra_objects += libraries["archives"]
            ext.depends += libraries["archives"]  # relinked when a library changed
        compile_one = self.compiler.compile

        def compile_all(sources, *args, **kwargs):
            with ThreadPoolExecutor(jobs()) as pool:
                return [o for objects in pool.map(lambda s: compile_one([s], *args, **kwargs), sources) for o in objects]
        self.compiler.compile = compile_all
        super().build_extensions()


class WithModel(build_py):
    """Copies the default model into the package (swe/models/), so swe.load() needs no path."""

    def run(self):
        super().run()
        models = Path(self.build_lib) / "swe" / "models"
        models.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / "models" / DEFAULT_MODEL, models / DEFAULT_MODEL)


extension = Extension(
    "swe._swe",
    sources=[f"src/{name}.cpp" for name in ("module", "common", "model", "index", "helpers")],
    language="c++",
    # -g0: no debug information (Debian's interpreter asks for -g); only PyInit__swe is exported: core,
    # Cap'n Proto and zstd stay hidden inside the module.
    extra_compile_args=["-std=c++17", "-fvisibility=hidden", "-g0", "-Wall", "-Wextra"],
    extra_link_args=["-Wl,--exclude-libs,ALL", "-g0"],
)

setup(
    version=(ROOT / "VERSION").read_text().split()[0],
    ext_modules=[extension],
    cmdclass={"build_ext": BuildExtension, "build_py": WithModel},
)
