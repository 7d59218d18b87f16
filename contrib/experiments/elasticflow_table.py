#!/usr/bin/env python3
"""The ElasticFlow table of doc/RESULTS.md §3, made from elasticflow-replay.sh's output.

usage: elasticflow_table.py OUT_DIR [TRACE...] > table.md

Reads OUT_DIR/<trace>-<cluster>.json (pacml replay --json) for each TRACE
(default: ElasticFlow's cluster01-10 and 195job) on dgx-a100-4x8 (32 GPUs) and
dgx-a100-16x8 (128 GPUs), and, where present, OUT_DIR/cluster10-paper.json
(cluster10 without --cluster) and OUT_DIR/timing.json; prints one row per
trace, cluster and admission, then ElasticFlow's four reported points against
the replays and the sentences the text quotes. Every figure comes from those
files except ELASTICFLOW below: ElasticFlow's own results, copied from its
paper (not rerun here), and the output says so.
"""
import json
import os
import sys

POLICIES = ("min_feasible", "requested", "para_max", "pacml:default")
TRACES = tuple(f"cluster{i:02d}" for i in range(1, 11)) + ("195job",)
CLUSTERS = (("dgx-a100-4x8", 32), ("dgx-a100-16x8", 128))
ADMISSIONS = ("immediate", "queue")

# ElasticFlow's paper: D. Gu et al., "ElasticFlow: An Elastic Serverless
# Training Platform for Distributed Deep Learning", ASPLOS 2023. Deadline-met
# rates from its own simulator (elastic rescaling every 60 s) on the two traces
# it reports, each on 32 and 128 GPUs: ElasticFlow itself, EDF with the maximum
# GPUs (para_max here) and Tiresias with the requested GPUs (requested here).
CITATION = ("Gu et al., \"ElasticFlow: An Elastic Serverless Training Platform for "
            "Distributed Deep Learning\", ASPLOS 2023")
ELASTICFLOW = {  # (trace, GPUs): (ElasticFlow, EDF, Tiresias)
    ("cluster10", 32): (0.908, 0.269, 0.419),
    ("cluster10", 128): (0.973, 0.427, 0.477),
    ("195job", 32): (0.538, 0.010, 0.277),
    ("195job", 128): (0.877, 0.097, 0.492),
}
# Its simulator lets jobs wait: its points sit in the queue rows.
ELASTICFLOW_ADMISSION = "queue"


def load_json(path):
    if not os.path.exists(path):
        sys.exit(f"elasticflow_table.py: {path} is missing (elasticflow-replay.sh writes it)")
    with open(path) as f:
        return json.load(f)


def groups_of(d, path, admission):
    """policy -> its summary object for one admission; every policy must be there."""
    groups = {g["policy"]: g for g in d["summary"] if g["admission"] == admission}
    for p in POLICIES:
        if p not in groups:
            sys.exit(f"elasticflow_table.py: {path} has no {p} run with {admission} admission")
    return groups


def collect(out, traces):
    """[(trace, jobs, gpus, admission, {policy: group})] in table order."""
    rows = []
    for trace in traces:
        for cluster, gpus in CLUSTERS:
            path = os.path.join(out, f"{trace}-{cluster}.json")
            d = load_json(path)
            for adm in ADMISSIONS:
                rows.append((trace, d["mapping"]["jobs"], gpus, adm, groups_of(d, path, adm)))
    return rows


def met(groups, policy):
    return groups[policy]["deadline_met_rate_mean"]


def print_table(rows):
    """The main table; returns how often each policy was best (bold)."""
    print("| trace | jobs | GPUs | admission | " + " | ".join(POLICIES)
          + " | unservable | ElasticFlow (elastic) |")
    print("|---|---|---|---|" + "---|" * len(POLICIES) + "---|---|")
    best_count = dict.fromkeys(POLICIES, 0)
    for trace, jobs, gpus, adm, groups in rows:
        shown = {p: f"{met(groups, p):.3f}" for p in POLICIES}
        top = max(shown.values())
        cells = []
        for p in POLICIES:
            if shown[p] == top:
                best_count[p] += 1
                cells.append(f"**{shown[p]}**")
            else:
                cells.append(shown[p])
        ef = ELASTICFLOW.get((trace, gpus)) if adm == ELASTICFLOW_ADMISSION else None
        print(f"| {trace} | {jobs} | {gpus} | {adm} | " + " | ".join(cells)
              + f" | {groups['min_feasible']['unservable_rate_mean']:.3f} | "
              + (f"{ef[0]:.3f}" if ef else "") + " |")
    return best_count


def signed(x):
    return f"{x:+.3f}".replace("-", "−")


def listing(items):
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else items[0]


def compare(rows, policy):
    """'at or above ElasticFlow on A (+x) and B (+y), below it on C (−z)'."""
    above, below = [], []
    for trace, _, gpus, adm, groups in rows:
        ef = ELASTICFLOW.get((trace, gpus))
        if ef is None or adm != ELASTICFLOW_ADMISSION:
            continue
        d = met(groups, policy) - ef[0]
        (above if d >= 0 else below).append(f"{trace}/{gpus} ({signed(d)})")
    parts = []
    if above:
        parts.append("at or above ElasticFlow on " + listing(above))
    if below:
        parts.append(f"below {'it' if above else 'ElasticFlow'} on " + listing(below))
    return ", ".join(parts)


def print_elasticflow(rows):
    points = [r for r in rows
              if (r[0], r[2]) in ELASTICFLOW and r[3] == ELASTICFLOW_ADMISSION]
    if not points:
        return
    print()
    print(f"ElasticFlow's reported points against the replays ({ELASTICFLOW_ADMISSION} "
          "admission; ElasticFlow, EDF and Tiresias: its paper's figures):")
    print()
    print("| trace | GPUs | ElasticFlow (elastic) | min_feasible | − ElasticFlow | pacml:default "
          "| − ElasticFlow | EDF, max GPUs | para_max | Tiresias, requested GPUs | requested |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for trace, _, gpus, _, groups in points:
        ef, edf, tiresias = ELASTICFLOW[(trace, gpus)]
        mf, learned = met(groups, "min_feasible"), met(groups, "pacml:default")
        print(f"| {trace} | {gpus} | {ef:.3f} | {mf:.3f} | {signed(mf - ef)} | {learned:.3f} "
              f"| {signed(learned - ef)} | {edf:.3f} | {met(groups, 'para_max'):.3f} "
              f"| {tiresias:.3f} | {met(groups, 'requested'):.3f} |")
    print()
    print(f"`min_feasible` with a queue, deciding each job once, is {compare(points, 'min_feasible')}; "
          f"`pacml:default` is {compare(points, 'pacml:default')}.  ")
    print(f"The ElasticFlow (elastic), EDF and Tiresias figures are copied from ElasticFlow's paper "
          f"({CITATION}; its own simulator, elastic rescaling every 60 s), not rerun here; "
          "every other figure is this script's replays'.")


def print_paper_cluster(out):
    path = os.path.join(out, "cluster10-paper.json")
    if not os.path.exists(path):
        return
    d = load_json(path)
    imm, queue = groups_of(d, path, "immediate"), groups_of(d, path, "queue")

    def pct(groups, policy, key):
        return f"{100 * groups[policy][key]:.1f} %"

    print()
    print(f"cluster10 ({d['mapping']['jobs']} jobs) without `--cluster`, on the paper's cluster "
          f"({d['cluster']}): `min_feasible` blocks "
          f"{pct(queue, 'min_feasible', 'blocking_rate_mean')} of the jobs and meets "
          f"{pct(queue, 'min_feasible', 'deadline_met_rate_mean')} of the deadlines with a queue "
          f"(immediate: {pct(imm, 'min_feasible', 'blocking_rate_mean')} blocked, "
          f"{pct(imm, 'min_feasible', 'deadline_met_rate_mean')} met); `pacml:default` meets "
          f"{pct(queue, 'pacml:default', 'deadline_met_rate_mean')} (immediate: "
          f"{pct(imm, 'pacml:default', 'deadline_met_rate_mean')}).  ")


def print_timing(out):
    path = os.path.join(out, "timing.json")
    if not os.path.exists(path):
        return
    t = load_json(path)
    print(f"The {len(t['traces'])} cluster traces replay in {t['wall_s']:.1f} s for "
          f"`{t['policy']}` on {t['cluster']} with {t['admission']} admissions "
          f"({t['cpu_s']:.1f} s of CPU, one replay at a time).")


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: elasticflow_table.py OUT_DIR [TRACE...]")
    out, traces = sys.argv[1], tuple(sys.argv[2:]) or TRACES
    rows = collect(out, traces)
    best = print_table(rows)
    print()
    print("Deadline-met rate; **bold**: the best of the four policies replayed in that row (ties "
          "all bold). unservable: the share of jobs no GPU count could finish in time even on an "
          "empty cluster at submission. ElasticFlow (elastic): its paper's figure, not rerun.  ")
    print(f"Best in {len(rows)} rows: "
          + ", ".join(f"`{p}` {best[p]}" for p in POLICIES) + ".")
    print_elasticflow(rows)
    print_paper_cluster(out)
    print_timing(out)


if __name__ == "__main__":
    main()
