#!/bin/sh
# Regenerates every results table of doc/RESULTS.md (and README.md's main
# result) with the committed script of each section, one after the other:
# (times: on the 2-core development VM, shared with other builds, 2026-12-07)
#   default      default-experiment.sh   §1 (and README.md's excerpt)  seconds
#   heldout      heldout.sh              §2.2                          ~8 min
#   elasticflow  elasticflow-replay.sh   §3                            ~10 s
#   workload     fitted-workload.sh      §4                            seconds
#   physical     physical-model.sh       §5                            seconds
#   zoo          zoo-calibration.sh      §6                            seconds
#   paper        paper-experiments.sh    §7, §8                        ~1 min
#   slurm        slurm.sh                §9's decision latency         seconds
#   soak         slurm.sh --soak         §9.1's soak (with the latency, in the
#                                        slurm step): starts a local Slurm
#                                        cluster as root (~3 min); run it
#                                        only where no other Slurm test runs
#   speed        speed.sh                §10                           ~1 min
#   fuzz         fuzz.sh                 §11: a clang fuzzing build, then
#                                        60 s per fuzz target          ~35 min
# Each step's raw output (JSON, CSV, logs) stays in OUT_DIR/STEP; how long
# each took is OUT_DIR/timings.txt. A failed step is reported and the others
# still run; the exit status is 1 if any failed.
#
# usage: contrib/experiments/all-results.sh [--doc-dir DIR] [--out-dir DIR]
#                                           [--skip STEP,...] [--only STEP,...]
#   --doc-dir DIR  write the tables into DIR/RESULTS.md (and DIR/../README.md's
#                  main result); without it only OUT_DIR is written
#   --out-dir DIR  default: results-out (ignored by git)
#   --skip LIST    leave these steps out (e.g. --skip heldout,soak,fuzz)
#   --only LIST    run only these steps
#   PACML          the pacml binary (default: build/pacml of this tree)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
steps="default heldout elasticflow workload physical zoo paper slurm soak speed fuzz"
doc_dir='' out_dir=results-out skip='' only=''
usage() { echo "usage: all-results.sh [--doc-dir DIR] [--out-dir DIR] [--skip STEP,...] [--only STEP,...]" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --doc-dir|--out-dir|--skip|--only)
      [ $# -ge 2 ] || { echo "all-results.sh: $1 needs a value" >&2; usage; }
      case $1 in
        --doc-dir) doc_dir=$2 ;;
        --out-dir) out_dir=$2 ;;
        --skip) skip=$(echo "$2" | tr ',' ' ') ;;
        --only) only=$(echo "$2" | tr ',' ' ') ;;
      esac
      shift 2 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "all-results.sh: unknown option $1" >&2; usage ;;
  esac
done
for s in $skip $only; do
  case " $steps " in
    *" $s "*) ;;
    *) echo "all-results.sh: unknown step '$s' (known: $steps)" >&2; exit 2 ;;
  esac
done
if [ -z "${PACML:-}" ] && [ -x "$top/build/pacml" ]; then
  PACML=$top/build/pacml
fi
export PACML
results='' readme=''
if [ -n "$doc_dir" ]; then
  results=$doc_dir/RESULTS.md
  [ -f "$results" ] || { echo "all-results.sh: $results is absent" >&2; exit 2; }
  [ -f "$doc_dir/../README.md" ] && readme=$doc_dir/../README.md
fi
mkdir -p "$out_dir"
timings=$out_dir/timings.txt
: > "$timings"
failed=

wanted() {
  case " $skip " in *" $1 "*) return 1 ;; esac
  [ -z "$only" ] && return 0
  case " $only " in *" $1 "*) return 0 ;; esac
  return 1
}

# step NAME SCRIPT [ARGS...]: runs SCRIPT OUT_DIR/NAME ARGS [--doc RESULTS.md].
step() {
  name=$1 script=$2
  shift 2
  wanted "$name" || { echo "all-results.sh: $name skipped" >&2; echo "$name skipped" >> "$timings"; return 0; }
  echo "all-results.sh: $name ($script)" >&2
  start=$(date +%s)
  if [ -n "$results" ]; then
    sh "$here/$script" "$out_dir/$name" "$@" --doc "$results"
  else
    sh "$here/$script" "$out_dir/$name" "$@"
  fi > "$out_dir/$name.log" 2>&1
  rc=$?
  seconds=$(($(date +%s) - start))
  if [ $rc = 0 ]; then
    echo "$name ok ${seconds} s" >> "$timings"
  else
    echo "$name FAILED (exit $rc) ${seconds} s: $out_dir/$name.log" >> "$timings"
    echo "all-results.sh: $name failed (exit $rc): $out_dir/$name.log" >&2
    failed="$failed $name"
  fi
}

if [ -n "$readme" ]; then
  step default default-experiment.sh --doc "$readme"
else
  step default default-experiment.sh
fi
step heldout heldout.sh
step elasticflow elasticflow-replay.sh
step workload fitted-workload.sh
step physical physical-model.sh
step zoo zoo-calibration.sh
step paper paper-experiments.sh
# slurm.sh makes the soak's block too with --soak: one step for both.
if wanted soak; then
  wanted slurm || only="$only slurm"
  step slurm slurm.sh --soak
else
  step slurm slurm.sh
fi
step speed speed.sh
step fuzz fuzz.sh
cat "$timings"
[ -z "$failed" ] || { echo "all-results.sh: failed:$failed" >&2; exit 1; }
