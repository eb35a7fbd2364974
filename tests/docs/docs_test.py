#!/usr/bin/env python3
"""The docs name only artifacts that `bash scripts/release.sh` writes now: every file name of a release
artifact (the native and PostgreSQL tarballs, the wheel, the npm packages) in a Markdown file of the
repository carries the VERSION file's version, or a placeholder (X.Y.Z, VERSION, *). CHANGELOG.md is
history and exempt. Exit status 1 lists each stale name with its file and line."""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
# The names release.sh and js/scripts/release.sh write: swe-V-linux-ARCH.tar.gz,
# swe-postgres-V-pgN-linux-ARCH.tar.gz, swe-V-cpXY-cpXY-linux_ARCH.whl, swe-embeddings[-model-en]-V.tgz.
ARTIFACT = re.compile(
    r"\bswe(?:-postgres|-embeddings(?:-model-[a-z]+)?)?-(\d+\.\d+\.\d+)(?:[-_][A-Za-z0-9_.*-]*)?\.(?:tar\.gz|tgz|whl)\b")


def markdown_files():
    listed = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [ROOT / p for p in listed.stdout.split() if p != "CHANGELOG.md"]


def stale_names(text, version):
    """(line number, name) of each artifact name whose version is not `version`."""
    for number, line in enumerate(text.splitlines(), 1):
        for match in ARTIFACT.finditer(line):
            if match.group(1) != version:
                yield number, match.group(0)


def self_test():
    sample = ("npm install ./dist/swe-embeddings-0.2.0.tgz ./dist/swe-embeddings-model-en-0.4.0.tgz\n"
              "unpack dist/swe-0.2.0-linux-x86_64.tar.gz or swe-postgres-0.3.0-pg15-linux-x86_64.tar.gz\n"
              "pip install dist/swe-0.1.0-cp311-cp311-linux_x86_64.whl; swe-X.Y.Z-linux-ARCH.tar.gz\n"
              "the model swe-en-use-lite-large-para.swe 0.4.0, pgvector-0.8.1.tar.gz\n")
    found = list(stale_names(sample, "0.4.0"))
    expected = [(1, "swe-embeddings-0.2.0.tgz"), (2, "swe-0.2.0-linux-x86_64.tar.gz"),
                (2, "swe-postgres-0.3.0-pg15-linux-x86_64.tar.gz"), (3, "swe-0.1.0-cp311-cp311-linux_x86_64.whl")]
    assert found == expected, found


def main():
    self_test()
    version = (ROOT / "VERSION").read_text().split()[0]
    stale = [(path.relative_to(ROOT), number, name) for path in markdown_files()
             for number, name in stale_names(path.read_text(encoding="utf-8"), version)]
    for path, number, name in stale:
        print(f"{path}:{number}: {name} names a version other than VERSION ({version})")
    print(f"docs_test: {len(stale)} stale artifact names")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
