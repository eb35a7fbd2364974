"""Readers of Unicode Character Database files, shared by the table generators: scripts/gen_unicode_tables.py
(core's tokenizer) and trainer/tools/gen_bert_unicode.py (the BERT teacher's normaliser)."""
import os

MAX_CP = 0x10FFFF


def data_lines(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                yield [field.strip() for field in line.split(";")]


def parse_range(text):
    if ".." in text:
        a, b = text.split("..")
        return int(a, 16), int(b, 16)
    return int(text, 16), int(text, 16)


def read_unicode_data(ucd):
    """(general category per code point, canonical decompositions {cp: [cp, ...]}, simple lowercase
    mappings {cp: cp}) from UnicodeData.txt; the <..., First>/<..., Last> pairs cover their ranges."""
    gc = ["Cn"] * (MAX_CP + 1)
    decomp, lower = {}, {}
    first = None
    for f in data_lines(os.path.join(ucd, "UnicodeData.txt")):
        cp, name, cat = int(f[0], 16), f[1], f[2]
        if name.endswith(", First>"):
            first = cp
            continue
        if name.endswith(", Last>"):
            for c in range(first, cp + 1):
                gc[c] = cat
            first = None
            continue
        gc[cp] = cat
        if f[5] and not f[5].startswith("<"):
            decomp[cp] = [int(x, 16) for x in f[5].split()]
        if f[13]:
            lower[cp] = int(f[13], 16)
    return gc, decomp, lower


def read_property(path, name):
    """The code points that PropList.txt-style `path` gives property `name`."""
    result = set()
    for f in data_lines(path):
        if f[1] == name:
            a, b = parse_range(f[0])
            result.update(range(a, b + 1))
    return result
