#!/usr/bin/env python3
"""doc/RESULTS.md §5 from physical-model.sh's output alone.

usage: physical_table.py after|calibration|strategy|bench-physical OUT_DIR

  after           OUT_DIR/after/: resnet50 and gpt2 at their zoo batches on the
                  paper's 4x4x2 cluster, resnet50 at batch 256 on dgx-a100-16x8
                  (`pacml estimate --json`; the batch from --gpus 1's header):
                  speed-up over one GPU on 2, 4 and 8 GPUs.
  calibration     OUT_DIR/calibrate/calibration.csv (`pacml calibrate --out`):
                  measured / predicted speed-up per ElasticFlow model, batch
                  and GPU count (✗: outside tolerance), the one-GPU step times,
                  the published weak-scaling points; and the command's own
                  score lines from calibrate.txt.
  strategy        OUT_DIR/strategy/CLUSTER-MODEL-BATCH.json (`pacml estimate
                  --model M --batch B --cluster C --json`, models in
                  models.txt): the strategy `auto` chose and its speed-up per
                  GPU count, 1 to 64, one table per cluster.
  bench-physical  OUT_DIR/bench-physical.json: the slowest cold and warm
                  estimate (median CPU ms) against the targets (10 ms, 1 ms).
"""
import csv
import json
import re
import sys

COUNTS = [1, 2, 4, 8, 16, 32, 64]
CLUSTERS = ["dgx-a100-16x8", "ramp-a100-16x8"]


def load_json(path):
    try:
        return json.load(open(path))
    except OSError:
        sys.exit(f"physical_table.py: {path} is missing")


def speedup_at(rows, k):
    for r in rows:
        if r["gpus"] == k:
            return f"{r['speedup']:.2f}×" if r["status"] == "ok" else r["status"]
    return "–"


def zoo_batch(path):
    try:
        m = re.search(r"global batch (\d+)", open(path).read())
    except OSError:
        sys.exit(f"physical_table.py: {path} is missing")
    if not m:
        sys.exit(f"physical_table.py: no 'global batch' in {path}")
    return m.group(1)


def after(out):
    r50 = load_json(f"{out}/after/resnet50.json")
    gpt2 = load_json(f"{out}/after/gpt2.json")
    big = load_json(f"{out}/after/resnet50-256-dgx-a100-16x8.json")
    b50, bgpt = zoo_batch(f"{out}/after/resnet50.txt"), zoo_batch(f"{out}/after/gpt2.txt")
    print("| | resnet50 2 GPUs | resnet50 4 | resnet50 8 | gpt2 8 |")
    print("|---|---|---|---|---|")
    print(f"| resnet50 at batch {b50}, gpt2 at {bgpt} (their zoo batches), paper's 4×4×2 cluster | "
          + " | ".join(speedup_at(r50, k) for k in (2, 4, 8)) + f" | {speedup_at(gpt2, 8)} |")
    print("| resnet50 at batch 256 on dgx-a100-16x8 | "
          + " | ".join(speedup_at(big, k) for k in (2, 4, 8)) + " | |")
    print()
    print("Speed-up over one GPU, `pacml estimate --model M` (strategy `auto`).")


def calibration(out):
    path = f"{out}/calibrate/calibration.csv"
    try:
        rows = list(csv.DictReader(open(path)))
    except OSError:
        sys.exit(f"physical_table.py: {path} is missing")
    strong = [r for r in rows if r["per_gpu_batch"] in ("", "0")]
    weak = [r for r in rows if r["per_gpu_batch"] not in ("", "0")]
    keys = []
    for r in strong:
        key = (r["source"], r["model"], r["zoo_model"], r["cluster"], int(r["batch"]))
        if key not in keys:
            keys.append(key)
    counts = sorted({int(r["gpus"]) for r in strong if r["check"] == "speedup"})
    num = lambda v, d: f"{float(v):.{d}f}"
    mark = lambda r: "" if r["within"] == "yes" else " ✗"
    sources = sorted({k[0] for k in keys})
    print("| model (zoo stand-in) | " + ("source | " if len(sources) > 1 else "") +
          "batch | 1 GPU s/step measured / pacml | " +
          " | ".join(f"{k} GPUs" for k in counts) + " |")
    print("|---|" + ("---|" if len(sources) > 1 else "") + "---|---|" + "---|" * len(counts))
    for key in keys:
        src, model, zoo, cluster, batch = key
        mine = [r for r in strong if (r["source"], r["model"], r["zoo_model"], r["cluster"],
                                      int(r["batch"])) == key]
        step = [r for r in mine if r["check"] == "step_time"]
        one = (f"{num(step[0]['measured_step_time'], 3)} / {num(step[0]['predicted_step_time'], 3)}"
               f"{mark(step[0])}" if step else "–")
        cells = []
        for k in counts:
            s = [r for r in mine if r["check"] == "speedup" and int(r["gpus"]) == k]
            cells.append(f"{num(s[0]['measured_speedup'], 2)} / {num(s[0]['predicted_speedup'], 2)}"
                         f"{mark(s[0])}" if s else "–")
        name = f"{model} ({zoo})" + (f" on {cluster}" if src != "elasticflow" else "")
        print(f"| {name} | " + (f"{src} | " if len(sources) > 1 else "") +
              f"{batch} | {one} | " + " | ".join(cells) + " |")
    if weak:
        print()
        print("| published weak scaling | cluster | per GPU | GPUs | measured | pacml |")
        print("|---|---|---|---|---|---|")
        for r in weak:
            print(f"| {r['model']} | {r['cluster']} | {r['per_gpu_batch']} | {r['gpus']} | "
                  f"{num(r['measured_speedup'], 2)} | {num(r['predicted_speedup'], 2)}{mark(r)} |")
    print()
    print("Speed-up over one GPU, measured / pacml (✗: outside tolerance); `pacml calibrate`'s "
          "own score lines:")
    print()
    try:
        text = open(f"{out}/calibrate/calibrate.txt").read()
    except OSError:
        sys.exit(f"physical_table.py: {out}/calibrate/calibrate.txt is missing")
    scores = [l for l in text.splitlines() if " within tolerance" in l]
    if not scores:
        sys.exit("physical_table.py: calibrate.txt has no score lines")
    # the lines after the table: where the ElasticFlow points came from (or why none)
    notes = [l for l in text.splitlines()
             if l.strip() and " within tolerance" not in l
             and l.split()[0] not in ("source", "elasticflow", "published") and not set(l) <= {"-", " "}]
    print("```")
    for l in notes + scores:
        # the data's folder as the repository's sibling, not this machine's path
        print(re.sub(r"\S*/shared/data/", "../shared/data/", l))
    print("```")


def cell(row):
    if row is None:
        return "–"
    if row["status"] != "ok":
        return row["status"]
    text = row["strategy"]
    if row.get("tp", 1) > 1:
        text += f" tp{row['tp']}"
    if row.get("pp", 1) > 1:
        text += f" pp{row['pp']}"
    return f"{text} {row['speedup']:.1f}×"


def strategy(out):
    try:
        models = [l.split(":") for l in open(f"{out}/strategy/models.txt").read().split()]
    except OSError:
        sys.exit(f"physical_table.py: {out}/strategy/models.txt is missing")
    for i, cluster in enumerate(CLUSTERS):
        if i:
            print()
        print(f"| model (batch) on {cluster} | " + " | ".join(str(k) for k in COUNTS) + " |")
        print("|---|" + "---|" * len(COUNTS))
        for model, batch in models:
            rows = {r["gpus"]: r for r in load_json(f"{out}/strategy/{cluster}-{model}-{batch}.json")}
            print(f"| {model} ({batch}) | " + " | ".join(cell(rows.get(k)) for k in COUNTS) + " |")
    print()
    print("Strategy `auto` chose and speed-up over one GPU (over a hypothetical one-GPU run where "
          "one GPU is out of memory: `oom`).")


def bench_physical(out):
    rows = load_json(f"{out}/bench-physical.json")
    if not rows:
        sys.exit("physical_table.py: bench-physical.json has no rows")
    cold = max(rows, key=lambda r: r["cold_ms"])
    warm = max(rows, key=lambda r: r["warm_ms"])
    ops = sorted({r["ops"] for r in rows})
    gpus = sorted({r["gpus"] for r in rows})
    print("| | slowest median CPU ms | case | target |")
    print("|---|---|---|---|")
    for what, r, key, target in (("cold estimate (a new job)", cold, "cold_ms", 10),
                                 ("warm estimate (graphs cached)", warm, "warm_ms", 1)):
        print(f"| {what} | **{r[key]:.2f}** | {r['model']} ({r['ops']} ops), {r['strategy']}, "
              f"{r['gpus']} GPUs | {target} ms ({'met' if r[key] <= target else 'NOT met'}) |")
    print()
    print(f"`pacml bench-physical`: {len(rows)} cases, {len({r['model'] for r in rows})} zoo models "
          f"of {ops[0]}–{ops[-1]} ops, every strategy, k = {', '.join(map(str, gpus))} on "
          "dgx-a100-16x8, one core.")


def main():
    parts = {"after": after, "calibration": calibration, "strategy": strategy,
             "bench-physical": bench_physical}
    if len(sys.argv) != 3 or sys.argv[1] not in parts:
        sys.exit("usage: physical_table.py after|calibration|strategy|bench-physical OUT_DIR")
    parts[sys.argv[1]](sys.argv[2])


if __name__ == "__main__":
    main()
