#!/usr/bin/env python3
"""doc/RESULTS.md §11 from fuzz.sh's output alone.

usage: fuzz_table.py FUZZ_OUT

FUZZ_OUT/summary.md is tests/fuzz/run-fuzz.sh's table (target, seconds,
executions, exec/s, corpus files, coverage, result), copied as it is (a
crash's log named as FUZZ_OUT/logs/NAME.log); under
it the number of targets, the range of executions and the crashes (the rows
whose result is not "ok", with their reproducers in FUZZ_OUT/artifacts).
"""
import os
import re
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: fuzz_table.py FUZZ_OUT")
    out = sys.argv[1]
    try:
        lines = [l.rstrip("\n") for l in open(f"{out}/summary.md") if l.strip()]
    except OSError:
        sys.exit(f"fuzz_table.py: {out}/summary.md is missing (make fuzz writes it)")
    rows = [[c.strip() for c in l.strip("|").split("|")] for l in lines[2:]]
    if not rows:
        sys.exit("fuzz_table.py: summary.md has no targets")
    for l in lines:
        # a crash's log as FUZZ_OUT/logs/NAME.log, not this machine's path
        print(re.sub(r"see \S*/(logs/[^ )]+)", r"see FUZZ_OUT/\1", l))
    execs = [int(r[2]) for r in rows if r[2].isdigit()]
    crashed = [r[0] for r in rows if r[6] != "ok"]
    artifacts = sorted(os.listdir(f"{out}/artifacts")) if os.path.isdir(f"{out}/artifacts") else []
    print()
    span = f"{min(execs):,}–{max(execs):,} executions per target" if execs else "executions unknown"
    print(f"{len(rows)} targets, {span}; "
          + (f"{len(crashed)} crashed ({', '.join(crashed)}; {len(artifacts)} reproducers)"
             if crashed else "no crash") + ".")


if __name__ == "__main__":
    main()
