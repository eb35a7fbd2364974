"""Shared fixtures: the default model, the swe program (build/native/bin/swe, or $SWE_CLI) for parity
checks, and sentences from STS-B. SWE_REQUIRE_CLI=1 (python/tests/run.sh) makes a missing program fail
instead of skipping its tests."""
import os
import subprocess
from pathlib import Path

import pytest

import swe

ROOT = Path(__file__).resolve().parents[2]
STSB = ROOT.parent / "shared" / "data" / "eval" / "sts" / "stsbenchmark" / "sts-dev.csv"


@pytest.fixture(scope="session")
def model():
    return swe.load()


@pytest.fixture(scope="session")
def model_path():
    return str(swe.default_model_path())


@pytest.fixture(scope="session")
def cli():
    path = Path(os.environ.get("SWE_CLI", ROOT / "build" / "native" / "bin" / "swe"))
    if not path.is_file():
        if os.environ.get("SWE_REQUIRE_CLI") == "1":
            pytest.fail(f"the swe program is missing: {path}")
        pytest.skip(f"the swe program is not built ({path})")

    def run(*args, input=None):
        return subprocess.run([str(path), *map(str, args)], input=input, capture_output=True, text=True,
                              check=True).stdout
    return run


def stsb_sentences(limit=None):
    """The sentences of STS-B dev (both columns, in file order)."""
    out = []
    with open(STSB, encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            out += fields[5:7]
    return out[:limit]


@pytest.fixture(scope="session")
def sentences():
    return stsb_sentences(600)
