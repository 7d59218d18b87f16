#!/usr/bin/env python3
"""Replaces a generated block in a document with a script's output.

usage: replace_block.py FILE NAME TABLE

Everything between "<!-- NAME -->" and "<!-- end of NAME -->" in FILE becomes
the text of TABLE, so a results table in doc/ is only ever written by the
script that measured it (heldout.sh, history-loop.sh).
"""
import sys

if len(sys.argv) != 4:
    sys.exit("usage: replace_block.py FILE NAME TABLE")
doc, name, table_path = sys.argv[1:]
begin, end = f"<!-- {name} -->", f"<!-- end of {name} -->"
text = open(doc).read()
if begin not in text or end not in text:
    sys.exit(f"replace_block.py: {doc} has no '{begin}' ... '{end}' block")
head, rest = text.split(begin, 1)
table = open(table_path).read()
open(doc, "w").write(head + begin + "\n" + table + rest[rest.index(end):])
print(f"replace_block.py: updated the {name} block in {doc}", file=sys.stderr)
