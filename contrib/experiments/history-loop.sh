#!/bin/sh
# The correction loop in the simulator (doc/PHYSICAL.md §11.5, issue 31's
# goal): `pacml history simulate` on seeds 0-4 in three worlds,
#   biased   --bias 1.7, per-model factors log-uniform in [0.5, 2], load 1
#   light    the same world at load 0.5
#   unbiased --bias 1 with no spread between models (learning should change
#            nothing beyond noise)
# and one table of settled deadline-met and median error per seed, made from
# each run's history.json. Nothing needs ../shared: the workload is built in.
#
# usage: contrib/experiments/history-loop.sh [OUT_DIR] [--doc FILE]
#   OUT_DIR     where each run's history.{csv,json,png} and table.md go
#               (default: history-loop)
#   --doc FILE  also replace the table between "<!-- history-loop table -->"
#               and "<!-- end of history-loop table -->" in FILE
#   PACML       the pacml binary (default: pacml on PATH)
set -eu
. "$(dirname "$0")/results_lib.sh"
pacml=${PACML:-pacml}
parse_out_and_doc history-loop.sh history-loop "$@"
mkdir -p "$out"

run() {  # NAME SEED OPTIONS...
  name=$1 seed=$2; shift 2
  echo "history-loop.sh: $name, seed $seed" >&2
  "$pacml" history simulate --seed "$seed" --out "$out/$name-$seed" "$@" > "$out/$name-$seed.txt"
}
for seed in 0 1 2 3 4; do
  run biased "$seed"
  run light "$seed" --load 0.5
  run unbiased "$seed" --bias 1 --spread-low 1 --spread-high 1
done

# One row per world and seed: settled deadline-met of each replay, the gap
# truth - learns, and the settled median errors.
table=$out/table.md
python3 - "$out" > "$table" <<'EOF'
import json, sys
out = sys.argv[1]
print("| world | seed | settled met: never | learns | truth | gap truth − learns "
      "| settled median error: never | learns | truth | prior k (last refit) |")
print("|---|---|---|---|---|---|---|---|---|---|")
gaps = {}
for world in ("biased", "light", "unbiased"):
    for seed in range(5):
        d = json.load(open(f"{out}/{world}-{seed}/history.json"))
        r = d["replays"]
        met = {k: r[k]["settled_met_rate"] for k in ("never", "learns", "truth")}
        err = {k: r[k]["settled_median_error"] for k in ("never", "learns", "truth")}
        prior = r["learns"].get("prior", {}).get("jobs")
        print(f"| {world} | {seed} | {met['never']:.3f} | {met['learns']:.3f} | "
              f"{met['truth']:.3f} | {met['truth'] - met['learns']:+.4f} | "
              f"{100 * err['never']:.1f} % | {100 * err['learns']:.1f} % | "
              f"{100 * err['truth']:.1f} % | {prior:.3g} |")
        gaps.setdefault(world, []).append(met["truth"] - met["learns"])
print()
for world, g in gaps.items():
    mean = sum(g) / len(g)
    sd = (sum((x - mean) ** 2 for x in g) / (len(g) - 1)) ** 0.5
    inside = sum(abs(x) <= 0.02 for x in g)
    print(f"{world}: gap truth − learns {mean:+.4f} ± {sd:.4f} (mean ± sd over seeds), "
          f"within 0.02 on {inside} of {len(g)} seeds.  ")
EOF
{
  echo
  made_by_line contrib/experiments/history-loop.sh "5,000 jobs each"
} >> "$table"
cat "$table"

[ -z "$doc" ] || python3 "$(dirname "$0")/replace_block.py" "$doc" "history-loop table" "$table"
