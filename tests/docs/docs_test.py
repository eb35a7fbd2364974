#!/usr/bin/env python3
"""The docs agree with the repository. Over every Markdown file of the checkout (tracked or new, not ignored):

1. versions: every file name of a release artifact (the native and PostgreSQL tarballs, the wheel, the npm
   packages) carries the VERSION file's version, or a placeholder (X.Y.Z, VERSION, *);
2. model sizes: what a sentence or a table row says of a shipped model (a file in models/) agrees with
   the file, by the convention of CONTRIBUTING.md ("Numbers in the docs"): after the model's name,
   "X.Y MB" is its size in 10^6 bytes rounded to one decimal, "X.Y MB with gzip" the size of
   `gzip -9 -c FILE`, "N words × D dims" its table's rows and dims; a table's columns headed
   "size", "words" and "dims" say the same of the model its row names;
3. model cards: the "**The file**" paragraph of models/NAME.md gives models/NAME.swe's bytes, header
   checksum and sha256;
4. links: every relative link names a file or folder of the checkout, and a #fragment names a heading
   of the Markdown file it points to (GitHub's anchors), and no code block is left open (a missing
   fence turns the rest of a page into code and hides its headings);
5. README.md has at most 150 lines, and every Markdown file is reachable by links from it;
6. every model in models/ has a card (models/NAME.md) and a row in the chooser, models/README.md.

CHANGELOG.md is history: only its links are checked. Runs in a few seconds without a build (`gzip -9`
of the default model is most of it; the `zstd` program reads the zstd-sealed models). Exit status 1 lists each problem with its file and line."""
import functools
import hashlib
import pathlib
import re
import struct
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
README_MAX_LINES = 150
HISTORY = "CHANGELOG.md"

# The names release.sh and js/scripts/release.sh write: swe-V-linux-ARCH.tar.gz,
# swe-postgres-V-pgN-linux-ARCH.tar.gz, swe-V-cpXY-cpXY-linux_ARCH.whl, swe-embeddings[-model-en]-V.tgz.
ARTIFACT = re.compile(
    r"\bswe(?:-postgres|-embeddings(?:-model-[a-z]+)?)?-(\d+\.\d+\.\d+)(?:[-_][A-Za-z0-9_.*-]*)?\.(?:tar\.gz|tgz|whl)\b")
MEGABYTES = re.compile(r"(?<![\d.])(\d+\.\d) MB( with gzip)?")
SHAPE = re.compile(r"(?<![\d,])(\d{1,3}(?:,\d{3})*|\d+) (?:[A-Z][a-z]+ )?words × (\d+) dims")
FIRST_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+|\d+")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*\[(])")


def checkout_files(pattern):
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", pattern],
                            cwd=ROOT, capture_output=True, text=True, check=True)
    return sorted({p for p in listed.stdout.split() if (ROOT / p).exists()})


# ---- reading the text ------------------------------------------------------------------------------

def fences(text):
    """(line, inside) for each line: inside is True for a fenced code block's lines, fences included,
    and the line number of a fence left open at the end (None when every block is closed)."""
    states, fence, opened = [], None, None
    for number, line in enumerate(text.splitlines(), 1):
        marker = re.match(r"\s*(```+|~~~+)", line)
        if fence is None and marker:
            fence, opened = marker.group(1)[:3], number
            states.append((line, True))
        elif fence is not None:
            if line.strip().startswith(fence):
                fence = None
            states.append((line, True))
        else:
            states.append((line, False))
    return states, opened if fence is not None else None


def strip_code(text):
    """The lines of the text with fenced code blocks blanked (line numbers kept)."""
    return ["" if inside else line for line, inside in fences(text)[0]]


def without_code_spans(line):
    return re.sub(r"(`+)(.+?)\1", lambda m: " " * len(m.group(0)), line)


def blocks(lines):
    """(line numbers, kind, text) of each paragraph ('prose': its lines joined by spaces) or table row
    ('row'); line numbers[i] is the number of the line that holds character i."""
    paragraph, numbers = [], []
    for number, line in enumerate(lines + [""], 1):
        is_row = line.lstrip().startswith("|")
        if is_row or not line.strip() or line.lstrip().startswith("#"):
            if paragraph:
                yield numbers, "prose", " ".join(paragraph)
            paragraph, numbers = [], []
            if is_row:
                yield [number] * len(line), "row", line
        else:
            paragraph.append(line.strip())
            numbers += [number] * (len(line.strip()) + 1)


def sentences(text):
    """(start, end) of each sentence of a paragraph."""
    start = 0
    for match in SENTENCE_END.finditer(text):
        yield start, match.start()
        start = match.end()
    yield start, len(text)


# ---- 1. versions -----------------------------------------------------------------------------------

def stale_names(text, version):
    """(line number, name) of each artifact name whose version is not `version`."""
    for number, line in enumerate(text.splitlines(), 1):
        for match in ARTIFACT.finditer(line):
            if match.group(1) != version:
                yield number, match.group(0)


# ---- 2, 3. the shipped models ----------------------------------------------------------------------

class ModelFile:
    """What the docs may state of one file in models/: sizes, table shape, checksums."""

    def __init__(self, path):
        self.path = path
        self.bytes = path.stat().st_size

    @functools.cached_property
    def data(self):
        return self.path.read_bytes()

    @functools.cached_property
    def gzip_bytes(self):
        # GNU gzip's deflate, not Python's zlib: their outputs differ by 0.2% (9,640,895 against 9,659,092
        # bytes for the default model), enough to cross a rounding boundary.
        return len(subprocess.run(["gzip", "-9", "-c", self.path], capture_output=True, check=True).stdout)

    @functools.cached_property
    def header_checksum(self):
        return "%08x" % struct.unpack_from("<I", self.data, 32)[0]

    @functools.cached_property
    def sha256(self):
        return hashlib.sha256(self.data).hexdigest()

    @functools.cached_property
    def shape(self):
        """(rows, dims) of the model's table (docs/FORMAT.md: the container, then the Model message)."""
        return table_shape(message_bytes(self))


def message_bytes(model):
    """The Model message of a .swe file: its raw payload in place, or its zstd frame decoded."""
    data = memoryview(model.data)
    if data[:8] != b"\x89SWE\r\n\x1a\n":
        raise ValueError(f"{model.path.name}: not a .swe file")
    _version, kind, _payload, frame_size, _checksum, flags = struct.unpack_from("<IIQQII", data, 8)
    if kind != 1:
        raise ValueError(f"{model.path.name}: not a model")
    if flags & 4:
        return data[40:40 + frame_size]
    with open(model.path, "rb") as file:
        file.seek(40)
        return memoryview(subprocess.run(["zstd", "-dc"], stdin=file, capture_output=True, check=True).stdout)


def table_shape(message):
    """Model.table.rows and .dims from a Cap'n Proto flat-array message (layouts from
    `capnp compile -ocapnp schema/swe.capnp`: Model's pointer 1 is its Table; rows and dims are the
    Table's u32 at data bytes 4 and 8). Far pointers are followed; nothing else is needed."""
    count = struct.unpack_from("<I", message, 0)[0] + 1
    sizes = struct.unpack_from("<%dI" % count, message, 4)
    start = 4 * (1 + count) + (4 if count % 2 == 0 else 0)
    message, segments = memoryview(message), []
    for size in sizes:
        segments.append(message[start:start + 8 * size])
        start += 8 * size

    def word(segment, index):
        return struct.unpack_from("<Q", segments[segment], 8 * index)[0]

    def struct_at(segment, index):
        """(segment, first data word, data words, pointer words) of the struct pointer at that word."""
        pointer = word(segment, index)
        if pointer & 3 == 2:  # far pointer: a landing pad in another segment
            double, pad, segment = (pointer >> 2) & 1, (pointer >> 3) & 0x1FFFFFFF, pointer >> 32
            if double:
                target = word(segment, pad)
                tag = word(segment, pad + 1)
                return target >> 32, (target >> 3) & 0x1FFFFFFF, (tag >> 32) & 0xFFFF, tag >> 48
            return struct_at(segment, pad)
        if pointer & 3 != 0:
            raise ValueError("expected a struct pointer")
        offset = (pointer >> 2) & 0x3FFFFFFF
        if offset & 0x20000000:
            offset -= 0x40000000
        return segment, index + 1 + offset, (pointer >> 32) & 0xFFFF, pointer >> 48

    segment, model, data_words, pointers = struct_at(0, 0)
    if pointers < 2:
        raise ValueError("the model has no table")
    segment, table, _, _ = struct_at(segment, model + data_words + 1)
    rows, dims = struct.unpack_from("<II", segments[segment], 8 * table + 4)
    return rows, dims


def shipped_models():
    """The models the repository ships: files in models/ that git tracks (a model built there by a
    script, such as the GloVe placeholder the suite makes, is ignored and not shipped)."""
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--", "models/*.swe"],
                             capture_output=True, check=True).stdout.decode().split("\0")
    return {p.stem: ModelFile(p) for p in sorted(ROOT / t for t in tracked if t)}


def model_mentions(text, names, bare):
    """(start, end, name) of each mention of a shipped model: `NAME.swe` (any folder before it), and
    the bare NAME too where `bare` (a table's first cell); longest names first."""
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    suffix = r"(?:\.swe)?" if bare else r"\.swe"
    pattern = re.compile(r"(?<![\w-])(" + alternatives + r")" + suffix + r"(?![\w-])")
    return [(m.start(), m.end(), m.group(1)) for m in pattern.finditer(text)]


def size_claims(text):
    """('size' | 'gzip', stated MB) of the first plain and first gzip "X.Y MB" in the text."""
    seen = {}
    for match in MEGABYTES.finditer(text):
        seen.setdefault("gzip" if match.group(2) else "size", float(match.group(1)))
    return seen


def check_claims(model, text, where, problems):
    for kind, stated in size_claims(text).items():
        actual = model.gzip_bytes if kind == "gzip" else model.bytes
        if round(actual / 1e6, 1) != stated:
            what = "gzip -9 of it" if kind == "gzip" else "the file"
            problems.append(f"{where}: {stated} MB{' with gzip' if kind == 'gzip' else ''} for "
                            f"{model.path.name}, but {what} is {actual:,} bytes ({actual / 1e6:.1f} MB)")
    shape = SHAPE.search(text)
    if shape:
        stated = (int(shape.group(1).replace(",", "")), int(shape.group(2)))
        if stated != model.shape:
            problems.append(f"{where}: {shape.group(0)} for {model.path.name}, but its table is "
                            f"{model.shape[0]:,} words × {model.shape[1]} dims")


def split_row(line):
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def model_size_problems(rel, text, models):
    """Problems with what `text` (the file `rel`) says of the shipped models' sizes and shapes."""
    problems = []
    card = models.get(pathlib.PurePosixPath(rel).stem) if rel.startswith("models/") else None
    header = None
    for numbers, kind, block in blocks(strip_code(text)):
        if kind == "prose":
            header = None
            for start, end in sentences(block):
                mentions = model_mentions(block[start:end], models, bare=False)
                for i, (_, after, name) in enumerate(mentions):
                    scope_end = mentions[i + 1][0] if i + 1 < len(mentions) else end - start
                    where = f"{rel}:{numbers[start + after - 1]}"
                    check_claims(models[name], block[start + after:start + scope_end], where, problems)
            continue
        where = f"{rel}:{numbers[0]}"
        cells = split_row(block)
        if header is None:
            header = [c.lower() for c in cells]
            continue
        if all(re.fullmatch(r":?-+:?", c) for c in cells):
            continue
        name = None
        if cells:
            first = model_mentions(cells[0], models, bare=True)
            if first:
                name = first[0][2]
            elif card and "this model" in cells[0]:
                name = card.path.stem
        if name is None:
            continue
        model = models[name]
        for title, cell in zip(header, cells):
            if title.startswith("size"):
                check_claims(model, cell, where, problems)
            elif title in ("words", "dims") and FIRST_NUMBER.match(cell):
                stated = int(FIRST_NUMBER.match(cell).group(0).replace(",", ""))
                actual = model.shape[0 if title == "words" else 1]
                if stated != actual:
                    problems.append(f"{where}: {title} {stated:,} for {model.path.name}, but its table has "
                                    f"{actual:,}")
    if card:
        problems += card_file_problems(rel, text, card)
    return problems


def card_file_problems(rel, text, model):
    """The "**The file**" paragraph of a model card against the model's bytes and checksums."""
    for numbers, kind, block in blocks(strip_code(text)):
        if kind != "prose" or not block.startswith("**The file**"):
            continue
        number = numbers[0]
        problems = []
        stated = re.search(r"(\d{1,3}(?:,\d{3})+) bytes", block)
        checksum = re.search(r"header checksum `([0-9a-f]{8})`", block)
        digest = re.search(r"sha256 `([0-9a-f]{64})`", block)
        if not (stated and checksum and digest):
            return [f"{rel}:{number}: the **The file** paragraph must give N bytes, header checksum `...` and "
                    "sha256 `...`"]
        if int(stated.group(1).replace(",", "")) != model.bytes:
            problems.append(f"{rel}:{number}: {stated.group(0)}, but {model.path.name} has {model.bytes:,}")
        if checksum.group(1) != model.header_checksum:
            problems.append(f"{rel}:{number}: header checksum {checksum.group(1)}, but {model.path.name}'s is "
                            f"{model.header_checksum}")
        if digest.group(1) != model.sha256:
            problems.append(f"{rel}:{number}: sha256 {digest.group(1)[:12]}..., but {model.path.name}'s is "
                            f"{model.sha256[:12]}...")
        return problems
    return [f"{rel}: a model card needs a paragraph starting **The file** (bytes, header checksum, sha256)"]


# ---- 4, 5. links -----------------------------------------------------------------------------------

def slug(heading):
    """GitHub's anchor for a heading: the rendered text lower-cased, punctuation dropped, spaces to '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip())
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(text):
    found, counts = set(), {}
    for line in strip_code(text):
        heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            base = slug(heading.group(1))
            n = counts.get(base, 0)
            counts[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return found


def link_targets(text):
    """(line number, target) of every link outside code."""
    for number, line in enumerate(strip_code(text), 1):
        plain = without_code_spans(line)
        for match in LINK.finditer(plain):
            yield number, match.group(1)
        reference = REFERENCE.match(plain)
        if reference:
            yield number, reference.group(1)


def link_problems(rel, text, anchors_of):
    """Broken relative links of the file `rel`, and the Markdown files it links (for reachability)."""
    problems, linked = [], set()
    for number, target in link_targets(text):
        if not target or re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):  # https:, mailto:, ...
            continue
        path, _, fragment = target.partition("#")
        resolved = (ROOT / rel).parent / path if path else ROOT / rel
        try:
            relative = resolved.resolve().relative_to(ROOT)
        except ValueError:
            problems.append(f"{rel}:{number}: link {target} leaves the repository")
            continue
        if not resolved.exists():
            problems.append(f"{rel}:{number}: link {target}: no such file")
            continue
        if resolved.is_file() and resolved.suffix == ".md":
            linked.add(relative.as_posix())
            if fragment and fragment not in anchors_of(relative.as_posix()):
                problems.append(f"{rel}:{number}: link {target}: no heading #{fragment} in {relative.as_posix()}")
    return problems, linked


def unreachable(links, start="README.md"):
    seen, todo = {start}, [start]
    while todo:
        for target in links.get(todo.pop(), ()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return sorted(set(links) - seen)


# ---- the checks' own tests -------------------------------------------------------------------------

def self_test():
    sample = ("npm install ./dist/swe-embeddings-0.2.0.tgz ./dist/swe-embeddings-model-en-0.4.0.tgz\n"
              "unpack dist/swe-0.2.0-linux-x86_64.tar.gz or swe-postgres-0.3.0-pg15-linux-x86_64.tar.gz\n"
              "pip install dist/swe-0.1.0-cp311-cp311-linux_x86_64.whl; swe-X.Y.Z-linux-ARCH.tar.gz\n"
              "the model swe-en-use-lite-large-para.swe 0.4.0, pgvector-0.8.1.tar.gz\n")
    found = list(stale_names(sample, "0.4.0"))
    expected = [(1, "swe-embeddings-0.2.0.tgz"), (2, "swe-0.2.0-linux-x86_64.tar.gz"),
                (2, "swe-postgres-0.3.0-pg15-linux-x86_64.tar.gz"), (3, "swe-0.1.0-cp311-cp311-linux_x86_64.whl")]
    assert found == expected, found

    assert slug("Dask: `swe.dask`") == "dask-swedask"
    assert slug("Adapt a model to your domain: `swe-trainer adapt`") == "adapt-a-model-to-your-domain-swe-trainer-adapt"
    assert anchors("# A\n```\n# not a heading\n```\n## B b\n## B b\n") == {"a", "b-b", "b-b-1"}
    assert fences("```sh\nx\n```\n\n```\ny\n")[1] == 5
    assert [t for _, t in link_targets("[a](x.md#y) `[b](z.md)` ![c](d.png \"t\")\n```\n[e](f)\n```\n[g]: h.md\n")] \
        == ["x.md#y", "d.png", "h.md"]

    class Fake:
        def __init__(self, name, size, gz, shape):
            self.path, self.bytes, self.gzip_bytes, self.shape = pathlib.Path(name + ".swe"), size, gz, shape
    models = {"m-big": Fake("m-big", 10_976_912, 9_640_895, (39_998, 256)), "m": Fake("m", 21_511_784, 1, (87_998, 256))}
    text = ("The default is `models/m-big.swe` (11.0 MB; 9.7 MB with gzip), 39,998 words × 128 dims. The\n"
            "multilingual `m.swe` — 21.5 MB, 87,998 words × 256 dims: its first (18.4 MB) was smaller.\n"
            "Both: `m.swe` 21.4 MB and `m-big.swe` 11.0 MB.\n\n"
            "| model | size | words | dims |\n|---|---:|---:|---|\n| m-big | 11.1 MB | 39,998 | 256 |\n"
            "| the teacher | 27.9 MB | | |\n")
    found = model_size_problems("docs/x.md", text, models)
    expected = ["docs/x.md:1: 9.7 MB with gzip for m-big.swe", "docs/x.md:1: 39,998 words × 128 dims for m-big.swe",
                "docs/x.md:3: 21.4 MB for m.swe", "docs/x.md:7: 11.1 MB for m-big.swe"]
    assert [p.split(", but")[0] for p in found] == expected, found

    # One segment: the root pointer, Model's data word and 5 pointers, pointer 1 to a Table 3 words on.
    words = [(5 << 48) | (1 << 32), 0, 0, (2 << 48) | (2 << 32) | (3 << 2), 0, 0, 0,
             2 | (7 << 32), 3, 0, 0]  # the Table: dtype 2, rows 7 (bytes 4-7), dims 3 (bytes 8-11)
    message = struct.pack("<II", 0, len(words)) + struct.pack("<%dQ" % len(words), *words)
    assert table_shape(message) == (7, 3), table_shape(message)


def main():
    self_test()
    version = (ROOT / "VERSION").read_text().split()[0]
    models = shipped_models()
    texts = {rel: (ROOT / rel).read_text(encoding="utf-8") for rel in checkout_files("*.md")}
    anchors_of = functools.lru_cache(maxsize=None)(lambda rel: anchors(texts.get(rel) or (ROOT / rel).read_text()))
    problems, links = [], {}
    for rel, text in texts.items():
        broken, links[rel] = link_problems(rel, text, anchors_of)
        problems += broken
        unclosed = fences(text)[1]
        if unclosed:
            problems.append(f"{rel}:{unclosed}: this code block is never closed (or an earlier one was not)")
        if rel == HISTORY:
            continue
        problems += [f"{rel}:{n}: {name} names a version other than VERSION ({version})"
                     for n, name in stale_names(text, version)]
        problems += model_size_problems(rel, text, models)
    readme_lines = len(texts.get("README.md", "").splitlines())
    if readme_lines > README_MAX_LINES:
        problems.append(f"README.md: {readme_lines} lines, more than {README_MAX_LINES}")
    problems += [f"{rel}: not reachable by links from README.md" for rel in unreachable(links)]
    chooser = texts.get("models/README.md", "")
    for name in models:
        if f"models/{name}.md" not in texts:
            problems.append(f"models/{name}.swe has no model card, models/{name}.md")
        if not re.search(r"(?<![\w-])" + re.escape(name) + r"\.swe", chooser):
            problems.append(f"models/README.md: the chooser does not name models/{name}.swe")
    for problem in problems:
        print(problem)
    print(f"docs_test: {len(texts)} Markdown files, {len(models)} models, {readme_lines} README lines, "
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
