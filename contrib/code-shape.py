#!/usr/bin/env python3
"""The shape of the code at one or more git revisions (doc/ARCHITECTURE.md §6).

usage: contrib/code-shape.py [--doc FILE] [REV ...]     (default: HEAD)

For each revision (exported with `git archive`, so the working tree is not
read): lines of C++ per top-level folder; files over 600 lines; functions over
80 lines and the longest five (universal-ctags' end: field; a function's
length runs from its first line to its closing brace); repeated blocks (runs
of at least 8 identical significant lines, blank lines, comments and lone
braces ignored, found in two places or more); and the include graph's
back-arrows (the rules of tests/docs/include_layers_test.sh, applied to that
revision's tree). With --doc, the table replaces the "code shape" block of
FILE (contrib/experiments/replace_block.py).
"""
import collections
import os
import re
import subprocess
import sys
import tempfile

FOLDERS = ("core", "sim", "model", "plugin", "tests")
SOURCE_FOLDERS = ("core", "sim", "model", "plugin")
MAX_FILE_LINES, MAX_FUNCTION_LINES, BLOCK_LINES = 600, 80, 8
HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)


def cxx_files(root, folders):
    for folder in folders:
        for dirpath, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if name.endswith((".cpp", ".h")):
                    yield os.path.join(dirpath, name)


def line_count(path):
    with open(path, errors="replace") as f:
        return sum(1 for _ in f)


def function_lengths(root):
    """(lines, file, name) of every function definition ctags finds."""
    tags = subprocess.run(
        ["ctags", "-R", "--languages=C++", "--c++-kinds=f", "--fields=+ne", "-o", "-",
         *SOURCE_FOLDERS], cwd=root, capture_output=True, text=True, check=True).stdout
    out = []
    for line in tags.splitlines():
        fields = line.split("\t")
        extra = dict(f.split(":", 1) for f in fields[3:] if ":" in f)
        if "line" in extra and "end" in extra:
            out.append((int(extra["end"]) - int(extra["line"]) + 1, fields[1], fields[0]))
    return sorted(out, reverse=True)


def significant_lines(path):
    kept = []
    with open(path, errors="replace") as f:
        for number, raw in enumerate(f, 1):
            text = raw.strip()
            if not text or text.startswith("//") or text in ("{", "}", "};", "});"):
                continue
            kept.append((number, text))
    return kept


def repeated_blocks(root):
    """Blocks of BLOCK_LINES significant lines found in two places or more,
    overlapping windows of one repeat counted once."""
    where = collections.defaultdict(list)
    for path in cxx_files(root, SOURCE_FOLDERS):
        lines = significant_lines(path)
        for i in range(len(lines) - BLOCK_LINES + 1):
            key = "\n".join(t for _, t in lines[i:i + BLOCK_LINES])
            where[key].append((os.path.relpath(path, root), lines[i][0]))
    repeats, covered = 0, set()
    for places in where.values():
        if len(places) < 2 or any(p in covered for p in places):
            continue
        repeats += 1
        for file, start in places:
            covered.update((file, start + k) for k in range(BLOCK_LINES * 2))
    return repeats


def back_arrows(root):
    rules = (("core", "sim|plugin|model", None), ("sim", "plugin|model", None),
             ("plugin", "sim|model", None), ("model", "plugin|sim/cli", None),
             ("sim", "sim/cli", "sim/cli"))
    hits = 0
    for folder, forbidden, exempt in rules:
        pattern = re.compile(r'^\s*#\s*include\s*["<](%s)/' % forbidden)
        for path in cxx_files(root, (folder,)):
            if exempt and os.path.relpath(path, root).startswith(exempt + "/"):
                continue
            with open(path, errors="replace") as f:
                hits += sum(1 for line in f if pattern.match(line))
    return hits


def measure(rev):
    with tempfile.TemporaryDirectory() as root:
        archive = subprocess.run(["git", "-C", TOP, "archive", rev, *FOLDERS],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", root], input=archive, check=True)
        lines = {f: sum(line_count(p) for p in cxx_files(root, (f,))) for f in FOLDERS}
        big_files = sum(1 for p in cxx_files(root, SOURCE_FOLDERS)
                        if line_count(p) > MAX_FILE_LINES)
        functions = function_lengths(root)
        return {
            "rev": subprocess.run(["git", "-C", TOP, "rev-parse", "--short", rev],
                                  capture_output=True, text=True, check=True).stdout.strip(),
            "lines": lines,
            "big_files": big_files,
            "long_functions": sum(1 for n, _, _ in functions if n > MAX_FUNCTION_LINES),
            "longest": functions[:5],
            "repeats": repeated_blocks(root),
            "back_arrows": back_arrows(root),
        }


def table(shapes):
    head = "| | " + " | ".join(s["rev"] for s in shapes) + " |"
    rows = [head, "|---" * (len(shapes) + 1) + "|"]
    for folder in FOLDERS:
        rows.append(f"| C++ lines in {folder}/ | " +
                    " | ".join(f"{s['lines'][folder]:,}" for s in shapes) + " |")
    for label, key in ((f"files over {MAX_FILE_LINES} lines", "big_files"),
                       (f"functions over {MAX_FUNCTION_LINES} lines", "long_functions"),
                       (f"repeated blocks of {BLOCK_LINES}+ lines", "repeats"),
                       ("include back-arrows", "back_arrows")):
        rows.append(f"| {label} | " + " | ".join(str(s[key]) for s in shapes) + " |")
    rows.append("| longest functions | " + " | ".join(
        "<br>".join(f"{n} {name} ({os.path.basename(f)})" for n, f, name in s["longest"])
        for s in shapes) + " |")
    return "\n".join(rows) + "\n"


def main(argv):
    doc = None
    if len(argv) >= 2 and argv[0] == "--doc":
        doc, argv = argv[1], argv[2:]
    if any(a.startswith("-") for a in argv):
        sys.exit("usage: contrib/code-shape.py [--doc FILE] [REV ...]")
    text = table([measure(rev) for rev in (argv or ["HEAD"])])
    print(text)
    if doc:
        with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as f:
            f.write(text)
        subprocess.run([sys.executable, os.path.join(HERE, "experiments", "replace_block.py"),
                        doc, "code shape", f.name], check=True)
        os.unlink(f.name)


if __name__ == "__main__":
    main(sys.argv[1:])
