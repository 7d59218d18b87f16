#!/usr/bin/env python3
"""Sentences on the default experiment, made from its summary.json alone.

usage: default_experiment_table.py SUMMARY_JSON

Compares, for each admission mode, the learned policy (pacml:default) with
capped:0.3 (min_feasible with a cost cap: the baseline that, like the learned
policy, may turn a job away) and with the best of the baselines that start
every job they can; deadline-met rates with their 95 % CIs and GPU-hours per
met deadline. Used by default-experiment.sh for doc/RESULTS.md §1.
"""
import json
import sys

LEARNED, CAPPED = "pacml:default", "capped:0.3"
ADMISSIONS = ("immediate", "queue")


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        sys.exit(f"default_experiment_table.py: cannot read {path}: {e.strerror}")


def by_policy(groups, admission):
    rows = {g["policy"]: g for g in groups if g["admission"] == admission}
    for p in (LEARNED, CAPPED):
        if p not in rows:
            sys.exit(f"default_experiment_table.py: no {p} run with {admission} admission")
    return rows


def met(g):
    return f"{g['deadline_met_rate_mean']:.3f} ± {g['deadline_met_rate_ci95']:.3f}"


def sentence(admission, rows):
    others = [p for p in rows if p not in (LEARNED, CAPPED)]
    best = max(others, key=lambda p: rows[p]["deadline_met_rate_mean"])
    learned, capped = rows[LEARNED], rows[CAPPED]
    gap = learned["deadline_met_rate_mean"] - capped["deadline_met_rate_mean"]
    return (f"* {admission.capitalize()} admission: `{LEARNED}` meets {met(learned)} of "
            f"deadlines at {learned['gpu_hours_per_met_mean']:.2f} GPU-hours per met deadline; "
            f"`{CAPPED}` {met(capped)} at {capped['gpu_hours_per_met_mean']:.2f} "
            f"(difference {gap:+.3f}); the best baseline that starts every job it can, "
            f"`{best}`, {met(rows[best])} at {rows[best]['gpu_hours_per_met_mean']:.2f}.")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: default_experiment_table.py SUMMARY_JSON")
    groups = load(sys.argv[1])
    print("Deadlines met (mean ± 95 % CI over the seeds), from `summary.json`:")
    print()
    for admission in ADMISSIONS:
        print(sentence(admission, by_policy(groups, admission)))


if __name__ == "__main__":
    main()
