#!/usr/bin/env python3
"""doc/RESULTS.md §9 from slurm.sh's output alone.

usage: slurm_table.py latency|soak OUT_DIR

  latency  OUT_DIR/latency-default.json and latency-reference.json
           (`pacml-plugin-bench --json`): p50, p99 and max of job_submit()'s
           decision latency, the first call and the plugin's load.
  soak     OUT_DIR/soak.log (tests/plugin/slurm_soak.sh's output): its
           figures (the indented lines after the run), the slurmctld RSS
           series and its checks' count, as printed, in a code block.
"""
import json
import re
import sys

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def latency(out):
    runs = []
    for name, what in (("latency-default.json", "learned GPU policy, physical profile"),
                       ("latency-reference.json", "paper's reference profile")):
        try:
            runs.append((json.load(open(f"{out}/{name}")), what))
        except OSError:
            sys.exit(f"slurm_table.py: {out}/{name} is missing")
    for r, _ in runs:
        if r["placed"] == 0:
            sys.exit(f"slurm_table.py: no decision with {r['policy']}: the plugin passed every job "
                     "through (its log is beside the JSON)")
    print("| policy | model | β | calls | p50 ms | p99 ms | max ms | first call ms | "
          "dlopen + init ms | placed / rejected |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r, what in runs:
        print(f"| `{r['policy']}` ({what}) | {r['model']} | {r['beta']} | {r['iterations']} | "
              f"{r['p50_ms']:.3f} | {r['p99_ms']:.3f} | {r['max_ms']:.3f} | {r['first_ms']:.2f} | "
              f"{r['load_ms']:.2f} | {r['placed']} / {r['rejected']} |")
    print()
    print("Decision latency inside `job_submit()` (wall time of each call after the first, "
          "`plugin/pacml-plugin-bench`, the real `job_submit_pacml.so`).")


def soak(out):
    try:
        lines = [ANSI.sub("", l.rstrip("\n")) for l in open(f"{out}/soak.log")]
    except OSError:
        sys.exit(f"slurm_table.py: {out}/soak.log is missing (slurm.sh --soak writes it)")
    # slurm_soak.sh indents its figures by 4 spaces (its checks by 2).
    figures = [l[4:] for l in lines if l.startswith("    ") and l.strip()]
    rss = [l[l.index("slurmctld RSS (MB) after each batch"):] for l in lines
           if "slurmctld RSS (MB) after each batch" in l]
    checks = [l for l in lines if re.fullmatch(r"\d+ passed, \d+ failed", l)]
    if not figures or not checks:
        sys.exit("slurm_table.py: soak.log has no figures or no closing 'N passed, N failed' line")
    print("```")
    for l in figures:
        print(l)
    for l in rss:
        print(l)
    print("```")
    print()
    print(f"`tests/plugin/slurm_soak.sh`'s checks: {checks[-1]}.")


def main():
    parts = {"latency": latency, "soak": soak}
    if len(sys.argv) != 3 or sys.argv[1] not in parts:
        sys.exit("usage: slurm_table.py latency|soak OUT_DIR")
    parts[sys.argv[1]](sys.argv[2])


if __name__ == "__main__":
    main()
