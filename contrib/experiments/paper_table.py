#!/usr/bin/env python3
"""doc/RESULTS.md §7 and §8 from paper-experiments.sh's output alone.

usage: paper_table.py baselines|learned|physical OUT_DIR

  baselines  every baseline of OUT_DIR/paper.json (paper.yaml, reference
             profile): blocking rate, mean ± 95 % CI, per β distribution;
             bold: the lowest of each column.
  learned    the shipped learned models (pacml:reference from paper.json,
             pacml:reference-A and -B from reference-A.json, reference-B.json)
             against the best baseline of each β and the paper's PAC-ML (its
             published figures, a cited constant).
  physical   paper-physical.json (and physical-D.json): pacml:physical,
             pacml:physical-D, min_feasible, the best baseline of each β and
             the share no degree serves on an empty cluster (--bound).
"""
import json
import sys

BETAS = ["A", "B", "C", "D"]
# The PAC-ML paper's own blocking rates (Parkes et al., arXiv 2301.13799,
# as doc/MODEL.md §7 cites them): not rerun here.
PAPER_PACML = {"A": "0.20–0.22", "B": "0.26", "C": "0.12", "D": "0.10"}


def load(out, name):
    try:
        data = json.load(open(f"{out}/{name}"))
    except OSError:
        sys.exit(f"paper_table.py: {out}/{name} is missing")
    rows, bounds = {}, {}
    for r in data:
        if "bound" in r:
            bounds[r["beta_dist"]] = r
        else:
            rows[(r["policy"], r["beta_dist"])] = r
    return rows, bounds


def cell(r, bold=False):
    if r is None:
        return "–"
    ci = r.get("blocking_rate_ci95", 0) or 0
    text = f"{r['blocking_rate_mean']:.4f}" + (f" ± {ci:.4f}" if round(ci, 4) > 0 else "")
    return f"**{text}**" if bold else text


def baselines(rows):
    return sorted({p for p, _ in rows if not p.startswith("pacml:")},
                  key=lambda p: min(i for i, (q, _) in enumerate(rows) if q == p))


def best_baseline(rows, beta):
    """The lowest-blocking baselines of β (ties at 4 decimals: all of them, in
    the file's order) as "P1, P2", and the first one's row."""
    cands = [(round(rows[(p, beta)]["blocking_rate_mean"], 4), p) for p in baselines(rows)
             if (p, beta) in rows]
    if not cands:
        sys.exit(f"paper_table.py: no baseline with β {beta}")
    low = min(rate for rate, _ in cands)
    best = [p for rate, p in cands if rate == low]
    return ", ".join(best), rows[(best[0], beta)]


def header(first):
    print(f"| {first} | " + " | ".join(f"β {b}" for b in BETAS) + " |")
    print("|---|" + "---|" * len(BETAS))


def table_baselines(out):
    rows, _ = load(out, "paper.json")
    header("policy")
    best = {b: best_baseline(rows, b)[0] for b in BETAS}
    for p in baselines(rows):
        print(f"| {p} | " + " | ".join(cell(rows.get((p, b)), p in best[b].split(", "))
                                       for b in BETAS) + " |")
    print()
    print("Blocking rate (mean ± 95 % CI over the seeds; no CI where every seed gave the same "
          "rate); **bold**: the lowest of each β (ties all bold). Best per β: " +
          "; ".join(f"{b} `{best[b]}`".replace(", ", "`, `") for b in BETAS) + ".")


def table_learned(out):
    rows, _ = load(out, "paper.json")
    rows_a, _ = load(out, "reference-A.json")
    rows_b, _ = load(out, "reference-B.json")
    header("policy")
    print("| pacml:reference (one model) | " +
          " | ".join(cell(rows.get(("pacml:reference", b))) for b in BETAS) + " |")
    print("| pacml:reference-A (A only) | " + cell(rows_a.get(("pacml:reference-A", "A"))) +
          " | – | – | – |")
    print("| pacml:reference-B (B only) | – | " + cell(rows_b.get(("pacml:reference-B", "B"))) +
          " | – | – |")
    cells = []
    for b in BETAS:
        p, r = best_baseline(rows, b)
        cells.append(f"{r['blocking_rate_mean']:.4f} ({p})")
    print("| best baseline | " + " | ".join(cells) + " |")
    print("| paper's PAC-ML (its published figures, not rerun) | " +
          " | ".join(PAPER_PACML[b] for b in BETAS) + " |")
    print()
    lines = []
    for b in BETAS:
        p, r = best_baseline(rows, b)
        learned = [(rows.get(("pacml:reference", b)), "pacml:reference")]
        if b == "A":
            learned.append((rows_a.get(("pacml:reference-A", "A")), "pacml:reference-A"))
        if b == "B":
            learned.append((rows_b.get(("pacml:reference-B", "B")), "pacml:reference-B"))
        learned = [(x["blocking_rate_mean"], n) for x, n in learned if x]
        if not learned:
            continue
        rate, name = min(learned)
        d = rate - r["blocking_rate_mean"]
        where = ("equal to" if round(d, 4) == 0
                 else f"{abs(d):.4f} {'below' if d < 0 else 'above'}")
        names = ", ".join(f"`{x}`" for x in p.split(", "))
        lines.append(f"β {b}: `{name}` {rate:.4f}, {where} the best baseline's ({names}) "
                     f"{r['blocking_rate_mean']:.4f}")
    print("The best learned model of each β against the best baseline (blocking rate, lower is "
          "better): " + "; ".join(lines) + ".")


def table_physical(out):
    rows, bounds = load(out, "paper-physical.json")
    rows_d, _ = load(out, "physical-D.json")
    header("policy")
    print("| pacml:physical | " + " | ".join(cell(rows.get(("pacml:physical", b))) for b in BETAS) + " |")
    print("| pacml:physical-D (D only) | – | – | – | " + cell(rows_d.get(("pacml:physical-D", "D"))) + " |")
    print("| min_feasible | " + " | ".join(cell(rows.get(("min_feasible", b))) for b in BETAS) + " |")
    cells = []
    for b in BETAS:
        p, r = best_baseline(rows, b)
        cells.append(f"{cell(r)} ({p})")
    print("| best baseline | " + " | ".join(cells) + " |")
    if bounds:
        print("| no degree serves it on an empty cluster (`--bound`) | " +
              " | ".join(cell(bounds.get(b)) for b in BETAS) + " |")
    print()
    print("Blocking rate, mean ± 95 % CI over the seeds, `contrib/experiments/paper-physical.yaml` "
          "(each degree timed by the physical model's `op` strategy).")


def main():
    parts = {"baselines": table_baselines, "learned": table_learned, "physical": table_physical}
    if len(sys.argv) != 3 or sys.argv[1] not in parts:
        sys.exit("usage: paper_table.py baselines|learned|physical OUT_DIR")
    parts[sys.argv[1]](sys.argv[2])


if __name__ == "__main__":
    main()
