#!/usr/bin/env python3
"""doc/RESULTS.md §10 from speed.sh's output alone.

usage: speed_table.py bench|bench-sim OUT_DIR

  bench      OUT_DIR/bench.json (`pacml bench --json`): per paper graph its
             sub-ops and sub-dependencies at the action, the lookahead and the
             partition + placement + communication time (median CPU ms), and the
             slowest lookahead against the 10 ms goal.
  bench-sim  OUT_DIR/bench-sim.txt (`pacml bench-sim --only ...`), as printed
             (the data's path as ../shared/data), in a code block, with the
             goals of doc/RESULTS.md §10 (constants).
"""
import json
import re
import sys

GOALS = [
    "one paper episode (1000 decisions) cold: ≤ 0.5 s (the Python reference: 74 s – 15 min)",
    "the 100,000-job RAMP trace (physical profile): ≤ 60 s",
    "all ten ElasticFlow traces read, mapped and replayed on 128 GPUs: ≤ 60 s",
    "1,000,000 generated jobs on 1,024 GPUs: ≤ 10 min, memory flat (the peak RSS after the "
    "first 10 % of the jobs and at the end about equal)",
]


def ms(v):
    """Hundredths below 1 ms (0.64), tenths below 100 (2.0, 13.5), whole above."""
    return f"{v:.2f}" if v < 1 else f"{v:.1f}" if v < 100 else f"{v:.0f}"


def bench(out):
    try:
        rows = json.load(open(f"{out}/bench.json"))
    except OSError:
        sys.exit(f"speed_table.py: {out}/bench.json is missing")
    if not rows:
        sys.exit("speed_table.py: bench.json has no rows")
    slowest = max(rows, key=lambda r: r["lookahead_ms"])
    print("| graph | sub-ops | sub-deps | lookahead ms | partition + place + comm ms |")
    print("|---|---|---|---|---|")
    for r in rows:
        la = ms(r["lookahead_ms"])
        la = f"**{la}**" if r is slowest else la
        print(f"| {r['graph']} | {r['ops']} | {r['deps']} | {la} | {ms(r['prepare_ms'])} |")
    print()
    print(f"Action a = {rows[0]['action']}, median CPU time; **bold**: the slowest lookahead, "
          f"{slowest['graph']}'s {ms(slowest['lookahead_ms'])} ms against a 10 ms goal "
          f"({'met' if slowest['lookahead_ms'] <= 10 else 'not met'}).")


def bench_sim(out):
    try:
        text = open(f"{out}/bench-sim.txt").read().rstrip("\n")
    except OSError:
        sys.exit(f"speed_table.py: {out}/bench-sim.txt is missing")
    print("```")
    # the data's folder as the repository's sibling, not this machine's path
    print(re.sub(r"\S*/shared/data/", "../shared/data/", text))
    print("```")
    print()
    print("Goals: " + "; ".join(GOALS) + ".")


def main():
    parts = {"bench": bench, "bench-sim": bench_sim}
    if len(sys.argv) != 3 or sys.argv[1] not in parts:
        sys.exit("usage: speed_table.py bench|bench-sim OUT_DIR")
    parts[sys.argv[1]](sys.argv[2])


if __name__ == "__main__":
    main()
