#!/usr/bin/env python3
"""docs/POSTGRES.md against the installed extension: its function table (signature and labels:
volatility, STRICT, parallel safety) must list exactly the functions of schema swe with the labels
pg_proc has, and it must name the pgvector and Citus versions the tests ran.
usage: psql ... | check_doc.py docs/POSTGRES.md PGVECTOR_VERSION CITUS_VERSION
stdin: one line per function, "name(arguments)|LABELS" (tests/postgres/run.sh writes them)."""
import re
import sys

ROW = re.compile(r"^\| `swe\.(\w+\([^`]*\))` \| [^|]* \| ([A-Z ]+) \|")


def documented(text):
    return {m.group(1): m.group(2).strip() for m in map(ROW.match, text.splitlines()) if m}


def main():
    doc, pgvector, citus = sys.argv[1:4]
    text = open(doc, encoding="utf-8").read()
    in_doc = documented(text)
    in_catalog = dict(line.rstrip("\n").split("|", 1) for line in sys.stdin if line.strip())
    failures = []
    for function in sorted(in_doc.keys() | in_catalog.keys()):
        if in_doc.get(function) != in_catalog.get(function):
            failures.append(f"swe.{function}: the doc says {in_doc.get(function)!r}, pg_proc {in_catalog.get(function)!r}")
    tested = f"tested with pgvector {pgvector} and Citus {citus}"
    if tested not in text:
        failures.append(f"the doc does not say \"{tested}\"")
    for failure in failures:
        print(f"FAIL: {doc}: {failure}", file=sys.stderr)
    print(f"check_doc: {len(in_catalog)} functions, their labels as documented; {tested}" if not failures else "")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
