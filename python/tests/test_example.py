"""python/examples/search_docs.py runs against the installed package and finds what it should."""
import subprocess
import sys

from conftest import ROOT


def test_search_docs_example():
    out = subprocess.run([sys.executable, str(ROOT / "python" / "examples" / "search_docs.py")], capture_output=True,
                         text=True, check=True, cwd=ROOT / "build").stdout.splitlines()
    assert out[0].startswith("'someone making music': guitar") or out[0].startswith("'someone making music': piano")
    assert out[1].startswith("'finance news': shares") or out[1].startswith("'finance news': market")
    assert "kitten" in out[2] and "cat" in out[2]
    assert out[4] == "clusters: [1, 1, 0, 0, 2, 2]"
