#!/usr/bin/env python3
"""Generates core/src/unicode_data.inc from the Unicode Character Database.

Usage: python3 scripts/gen_unicode_tables.py [--ucd /usr/share/unicode] [--out core/src/unicode_data.inc]

Reads UnicodeData.txt, CaseFolding.txt, PropList.txt, Scripts.txt and ScriptExtensions.txt (Debian:
`apt-get install unicode-data`). The output is deterministic: tests/core/unicode_test.cpp re-runs this
script and checks that the committed file is identical. The rules that turn properties into the
tokenizer's character classes are described in docs/TOKENIZER.md; keep the two in sync.
"""

import argparse
import os
import re
import sys

from ucd import MAX_CP, data_lines, parse_range, read_property, read_unicode_data


# Values of swe::unicode::CharClass (core/include/swe/unicode.h).
WORD, SPACE, PUNCT, SYMBOL, CJK = 0, 1, 2, 3, 4
NONSPACING = 8  # flag bit: general category Mn
CJK_SCRIPTS = {"Han", "Hiragana", "Katakana"}
CJK_SCRIPT_CODES = {"Hani", "Hira", "Kana"}
# Variation selectors (emoji presentation, ideographic variation sequences): ignorable, treated
# like the format characters (Cf). The Mongolian free variation selectors (U+180B..U+180D, U+180F)
# occur inside words and stay word characters.
VARIATION_SELECTORS = [(0xFE00, 0xFE0F), (0xE0100, 0xE01EF)]


def read_cjk(ucd):
    cjk = set()
    for f in data_lines(os.path.join(ucd, "Scripts.txt")):
        if f[1] in CJK_SCRIPTS:
            a, b = parse_range(f[0])
            cjk.update(range(a, b + 1))
    for f in data_lines(os.path.join(ucd, "ScriptExtensions.txt")):
        if CJK_SCRIPT_CODES & set(f[1].split()):
            a, b = parse_range(f[0])
            cjk.update(range(a, b + 1))
    return cjk


def classify(cp, gc, white, cjk):
    cat = gc[cp]
    if cp in white or cat in ("Cc", "Cf") or any(a <= cp <= b for a, b in VARIATION_SELECTORS):
        return SPACE
    if cp < 0x80:
        return WORD if chr(cp).isalnum() else PUNCT
    if cat.startswith("P"):
        return PUNCT
    if cp in cjk and (cat.startswith("L") or cat == "Nl"):
        return CJK
    if cat.startswith("S"):
        return SYMBOL
    return WORD


def class_runs(gc, white, cjk):
    runs = []
    prev = None
    for cp in range(MAX_CP + 1):
        value = classify(cp, gc, white, cjk) | (NONSPACING if gc[cp] == "Mn" else 0)
        if value != prev:
            runs.append((cp, value))
            prev = value
    return runs


def read_folding(ucd):
    simple, multi = {}, {}
    for f in data_lines(os.path.join(ucd, "CaseFolding.txt")):
        cp, status, mapping = int(f[0], 16), f[1], [int(x, 16) for x in f[2].split()]
        if status not in ("C", "F"):
            continue
        if len(mapping) == 1:
            simple[cp] = mapping[0]
        else:
            multi[cp] = mapping
    for cp in multi:
        simple.pop(cp, None)  # full folding wins over a (never present) simple one
    return simple, multi


def fold_ranges(simple):
    """Groups single-code-point foldings into (first, count, stride, delta) arithmetic runs."""
    groups = []
    for cp in sorted(simple):
        delta = simple[cp] - cp
        if groups:
            first, count, stride, gdelta = groups[-1]
            last = first + (count - 1) * stride
            step = cp - last
            if gdelta == delta and ((count == 1 and step in (1, 2)) or (count > 1 and step == stride)):
                groups[-1] = (first, count + 1, step, delta)
                continue
        groups.append((cp, 1, 1, delta))
    return groups


def full_decomposition(cp, decomp):
    if cp not in decomp:
        return [cp]
    out = []
    for c in decomp[cp]:
        out.extend(full_decomposition(c, decomp))
    return out


def strip_ranges(gc, decomp):
    """Code points whose canonical decomposition is a base followed only by nonspacing marks."""
    pairs = []
    for cp in sorted(decomp):
        d = full_decomposition(cp, decomp)
        if d[0] != cp and all(gc[m] == "Mn" for m in d[1:]):
            pairs.append((cp, d[0]))
    ranges = []
    for cp, base in pairs:
        if ranges and ranges[-1][1] == cp - 1 and ranges[-1][2] == base:
            ranges[-1] = (ranges[-1][0], cp, base)
        else:
            ranges.append((cp, cp, base))
    return ranges


def unicode_version(ucd):
    with open(os.path.join(ucd, "CaseFolding.txt"), encoding="utf-8") as f:
        m = re.search(r"CaseFolding-(\d+\.\d+\.\d+)\.txt", f.readline())
    if not m:
        sys.exit("cannot read the Unicode version from CaseFolding.txt")
    return m.group(1)


def emit(name, ctype, items, per_line):
    lines = [f"constexpr {ctype} {name}[] = {{"]
    for i in range(0, len(items), per_line):
        lines.append("    " + " ".join(items[i:i + per_line]))
    lines.append("};")
    return "\n".join(lines)


def generate(ucd):
    gc, decomp, _ = read_unicode_data(ucd)
    proplist = os.path.join(ucd, "PropList.txt")
    white = read_property(proplist, "White_Space")
    cjk = read_cjk(ucd)
    runs = class_runs(gc, white, cjk)
    simple, multi = read_folding(ucd)
    folds = fold_ranges(simple)
    strips = strip_ranges(gc, decomp)
    version = unicode_version(ucd)

    out = [
        "// Generated by scripts/gen_unicode_tables.py from the Unicode Character Database " + version + ".",
        "// Do not edit. To regenerate (Debian: apt-get install unicode-data):",
        "//   python3 scripts/gen_unicode_tables.py --ucd /usr/share/unicode --out core/src/unicode_data.inc",
        "// tests/core/unicode_test.cpp checks that this file matches the generator's output.",
        "",
        f'constexpr char kUnicodeVersion[] = "{version}";',
        "",
        "// Runs of equal properties over U+0000..U+10FFFF: (first code point << 8) | value, where",
        "// value & 7 is a CharClass and value & 8 marks a nonspacing mark (Mn). A run lasts until the next.",
        emit("kClassRuns", "uint32_t", [f"0x{(cp << 8) | v:08X}," for cp, v in runs], 8),
        "",
        "// Single code point case foldings (CaseFolding.txt status C): for i < count,",
        "// first + i * stride folds to first + i * stride + delta.",
        emit("kFoldRuns", "FoldRun", [f"{{0x{a:X}, {n}, {s}, {d}}}," for a, n, s, d in folds], 4),
        "",
        "// Full case foldings to several code points (status F), e.g. U+00DF -> ss.",
        emit("kFoldMulti", "FoldMulti",
             [f"{{0x{cp:X}, {{{', '.join(f'0x{x:X}' for x in (m + [0, 0, 0])[:3])}}}}}," for cp, m in
              sorted(multi.items())], 3),
        "",
        "// Code points first..last whose full canonical decomposition is `base` followed only by",
        "// nonspacing marks (accent stripping).",
        emit("kStripRuns", "StripRun", [f"{{0x{a:X}, 0x{b:X}, 0x{c:X}}}," for a, b, c in strips], 5),
        "",
    ]
    return "\n".join(out)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ucd", default="/usr/share/unicode", help="folder with the UCD text files")
    parser.add_argument("--out", default=os.path.join(here, "..", "core", "src", "unicode_data.inc"))
    args = parser.parse_args()
    for name in ("UnicodeData.txt", "CaseFolding.txt", "PropList.txt", "Scripts.txt", "ScriptExtensions.txt"):
        if not os.path.isfile(os.path.join(args.ucd, name)):
            sys.exit(f"missing {os.path.join(args.ucd, name)} (Debian: apt-get install unicode-data)")
    text = generate(args.ucd)
    with open(args.out, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


if __name__ == "__main__":
    main()
