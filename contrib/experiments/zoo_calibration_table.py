#!/usr/bin/env python3
"""doc/RESULTS.md §6 from zoo-calibration.sh's output alone.

usage: zoo_calibration_table.py OUT_DIR

Prints OUT_DIR/a100.txt and OUT_DIR/v100.txt, `pacml graph calibrate`'s
output on the built-in A100 and on contrib/devices/v100.yaml, as they are,
each in a code block under its command.
"""
import sys

RUNS = [("a100.txt", "pacml graph calibrate --dir ../shared/data/pipedream"),
        ("v100.txt", "pacml graph calibrate --dir ../shared/data/pipedream "
                     "--device contrib/devices/v100.yaml")]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: zoo_calibration_table.py OUT_DIR")
    out = sys.argv[1]
    for i, (name, command) in enumerate(RUNS):
        try:
            text = open(f"{out}/{name}").read().rstrip("\n")
        except OSError:
            sys.exit(f"zoo_calibration_table.py: {out}/{name} is missing")
        if not text:
            sys.exit(f"zoo_calibration_table.py: {out}/{name} is empty")
        if i:
            print()
        print(f"`{command}`:")
        print()
        print("```")
        print(text)
        print("```")


if __name__ == "__main__":
    main()
