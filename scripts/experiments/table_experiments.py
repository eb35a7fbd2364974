#!/usr/bin/python3
"""Post-hoc edits of a refined table (a trainer work directory's refined.swm: "SWEMAT01", rows u64,
cols u64, f32 rows) for the experiments in docs/RESULTS.md ("The default: tau 0.07, NLI weight 2 and
abtt"). Copy the work directory, replace its refined.swm with the output, point a copy of the recipe's
work_dir and export.path at the copies, and `swe-trainer train` re-runs only the export.

  table_experiments.py blend A.swm B.swm ALPHA OUT.swm
      OUT = B + ALPHA (A - B): weight-space interpolation (ALPHA 1 = A), e.g. A the refined table and
      B its init model's (a recipe with refine.method none writes that one).
  table_experiments.py centre TABLE.swm COUNTS.tsv WEIGHTING K OUT.swm
      every row minus the weighted mean row, then the top K directions of the weighted covariance
      projected out. COUNTS: `swe tokenize MODEL --count -` over corpus lines (one "word<TAB>count"
      line per row, in row order); WEIGHTING: count (compress.method abtt computes this one), sqrt
      (square roots of the counts) or uniform (every word once).
"""
import struct
import sys

import numpy as np


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"SWEMAT01":
        sys.exit(f"{path}: not a SWEMAT01 matrix")
    rows, cols = struct.unpack("<QQ", data[8:24])
    return np.frombuffer(data[24:], dtype="<f4").reshape(rows, cols).astype(np.float64)


def write(path, m):
    m = np.ascontiguousarray(m, dtype="<f4")
    with open(path, "wb") as f:
        f.write(b"SWEMAT01" + struct.pack("<QQ", *m.shape) + m.tobytes())


def centre(table, counts_path, weighting, k):
    counts = np.array([float(line.split("\t")[1]) for line in open(counts_path, encoding="utf-8")])
    if len(counts) != len(table):
        sys.exit(f"{counts_path}: {len(counts)} rows, the table has {len(table)}")
    w = {"count": counts, "sqrt": np.sqrt(counts), "uniform": np.ones_like(counts)}[weighting]
    p = w / w.sum()
    x = table - p @ table
    if k > 0:
        _, vectors = np.linalg.eigh((x * p[:, None]).T @ x)
        top = vectors[:, -k:]
        x = x - (x @ top) @ top.T
    return x


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "blend":
        a, b = read(sys.argv[2]), read(sys.argv[3])
        write(sys.argv[5], b + float(sys.argv[4]) * (a - b))
    elif len(sys.argv) == 7 and sys.argv[1] == "centre":
        write(sys.argv[6], centre(read(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
