#!/usr/bin/env python3
"""doc/RESULTS.md §4 from fitted-workload.sh's output alone.

usage: workload_table.py OUT_DIR

OUT_DIR/run.txt is `pacml workload run`'s printed table (copied as it is,
in a code block) and OUT_DIR/run.json the same run's --json; from the JSON,
the unservable share and, per admission, min_feasible against requested
(what stock Slurm gives): deadlines met and GPU-hours per met deadline.
"""
import json
import sys


def groups_of(data):
    return data["groups"] if isinstance(data, dict) else data


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: workload_table.py OUT_DIR")
    out = sys.argv[1]
    text = open(f"{out}/run.txt").read().rstrip("\n")
    groups = groups_of(json.load(open(f"{out}/run.json")))
    by = {(g["policy"], g["admission"]): g for g in groups}
    print("```")
    print(text)
    print("```")
    print()
    unservable = sorted({round(g["unservable_rate_mean"], 3) for g in groups})
    share = (f"{unservable[0]:.3f}" if len(unservable) == 1
             else f"{unservable[0]:.3f}–{unservable[-1]:.3f}")
    print(f"Unservable (no GPU count meets the deadline even on an empty cluster): {share} of the "
          "jobs under every policy.  ")
    for adm in ("immediate", "queue"):
        try:
            mf, rq = by[("min_feasible", adm)], by[("requested", adm)]
        except KeyError:
            sys.exit(f"workload_table.py: no min_feasible and requested runs with {adm} admission")
        met = mf["deadline_met_rate_mean"] / rq["deadline_met_rate_mean"]
        hours = mf["gpu_hours_per_met_mean"] / rq["gpu_hours_per_met_mean"]
        print(f"{adm.capitalize()} admission: `min_feasible` meets "
              f"{mf['deadline_met_rate_mean']:.3f} ± {mf['deadline_met_rate_ci95']:.3f} of deadlines "
              f"at {mf['gpu_hours_per_met_mean']:.2f} GPU-hours per met deadline, `requested` "
              f"{rq['deadline_met_rate_mean']:.3f} ± {rq['deadline_met_rate_ci95']:.3f} at "
              f"{rq['gpu_hours_per_met_mean']:.2f}: {met:.2f}× the deadlines met at {hours:.2f}× "
              "the GPU-hours per met deadline." + ("  " if adm == "immediate" else ""))


if __name__ == "__main__":
    main()
