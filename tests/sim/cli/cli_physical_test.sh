#!/bin/sh
# Command-line tests of the physical model (issue 14): `pacml estimate` per
# GPU count, clusters, strategies and throughput tables, `pacml throughput
# extract` and `pacml calibrate`; bad input gives exit 2 and names the place.
set -u
. "$(dirname "$0")/cli_lib.sh"

# estimate: one object per GPU count with the documented keys
expect_ok "estimate dgx" "$PACML" estimate --model resnet50 --batch 256 --cluster dgx-a100-16x8 --json
[ "$(json_get "$tmp/out" "[r['gpus'] for r in d]")" = "[1, 2, 4, 8, 16, 32, 64, 128]" ] || fail "gpu counts: $(cat "$tmp/out")"
[ "$(json_get "$tmp/out" "all(set(r) >= {'gpus','servers','strategy','step_time','jct','speedup','comm','comp','memory_per_gpu','status'} for r in d)")" = "True" ] || fail "estimate keys"
[ "$(json_get "$tmp/out" "1.6 < d[1]['speedup'] < 2 and d[3]['servers'] == 1 and d[4]['servers'] == 2")" = "True" ] || fail "resnet50 scaling: $(cat "$tmp/out")"
expect_ok "estimate text" "$PACML" estimate --model resnet50 --batch 256 --cluster "$SRC/contrib/clusters/dgx-a100-4x8.yaml"
grep -q "fabric 4 servers x 8 GPUs" "$tmp/out" || fail "estimate names the cluster: $(cat "$tmp/out")"
expect_ok "estimate one strategy" "$PACML" estimate --model bert-base --batch 64 --cluster dgx-a100-16x8 --gpus 4 --strategy tensor --json
[ "$(json_get "$tmp/out" "(d[0]['strategy'], d[0]['tp'], d[0]['status'])")" = "('tensor', 4, 'ok')" ] || fail "tensor: $(cat "$tmp/out")"
expect_ok "resized transformer" "$PACML" estimate --model gpt2 --layers 4 --hidden 256 --heads 4 --batch 16 --gpus 2 --json
expect_ok "gpt2-xl" "$PACML" estimate --model gpt2-xl --batch 8 --seq-len 128 --cluster dgx-a100-4x8 --gpus 8 --json
expect_ok "deadline" "$PACML" estimate --model resnet50 --batch 256 --steps 1000 --deadline 100 --cluster dgx-a100-16x8 --json
[ "$(json_get "$tmp/out" "(d[0]['status'], d[-1]['status'])")" = "('deadline', 'ok')" ] || fail "deadline status: $(cat "$tmp/out")"
# a model that fits no strategy: its rows say oom, and it is bad input (exit 2)
expect_input_error "oom" "--model: this job fits no strategy on 1 GPUs of this cluster (needs" "$PACML" estimate --model gpt2 --layers 80 --hidden 8192 --heads 64 --seq-len 128 --batch 8 --cluster dgx-a100-4x8 --gpus 1 --json
[ "$(json_get "$tmp/out" "d[0]['status']")" = "oom" ] || fail "70B model on one GPU: $(cat "$tmp/out")"
expect_ok "70B model fits on 32 GPUs" "$PACML" estimate --model gpt2 --layers 80 --hidden 8192 --heads 64 --seq-len 128 --batch 8 --cluster dgx-a100-4x8 --json
expect_ok "reference unchanged" "$PACML" estimate --model resnet50 --profile reference --action 2 --json
expect_ok "--world paper is --profile reference" "$PACML" estimate --model resnet50 --world paper --action 2 --json
[ "$(json_get "$tmp/out" "'split_histogram' in d[0] and d[0]['action'] == 2")" = "True" ] || fail "reference estimate"

# a measured table overrides the analytic step time
mkdir -p "$tmp/tables"
printf 'global_batch_size,1,2,4\n256,2.0,3.5,6.0\n' >"$tmp/tables/resnet50.csv"
expect_ok "table" "$PACML" estimate --model resnet50 --batch 256 --cluster dgx-a100-16x8 --throughput-table "$tmp/tables" --json
[ "$(json_get "$tmp/out" "(d[1]['step_time'] == 1/3.5, d[1]['measured'], d[3]['measured'])")" = "(True, True, False)" ] || fail "table override: $(cat "$tmp/out")"

# throughput extract from a small ElasticFlow trace
cat >"$tmp/trace.csv" <<'CSV'
job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration
a,0,1000,resnet50,900,128,1,300
b,10,1000,resnet50,900,128,2,150
c,20,2000,resnet50,9000,128,2,310
d,30,1000,resnet50,900,64,1,100
e,40,1000,resnet50,900,64,2,60
CSV
expect_ok "extract" "$PACML" throughput extract "$tmp/trace.csv" --out "$tmp/extracted"
[ "$(cat "$tmp/extracted/resnet50.csv")" = "$(printf 'global_batch_size,1,2\n64,10,16.66666667\n128,3.333333333,6.557377049')" ] \
  || fail "extracted table: $(cat "$tmp/extracted/resnet50.csv")"

# replay on a GPU cluster: both admission modes, the summary keys, deterministic
expect_ok "replay --cluster" "$PACML" replay "$tmp/trace.csv" --format elasticflow --cluster dgx-a100-4x8 --admission both --policies requested,min_feasible,para_max,random --json
cp "$tmp/out" "$tmp/replay1.json"
[ "$(json_get "$tmp/replay1.json" "(d['replay'], d['mapping']['jobs'], len(d['summary']), sorted({r['admission'] for r in d['summary']}))")" = "('gpu', 5, 8, ['immediate', 'queue'])" ] || fail "replay summary: $(cat "$tmp/out")"
[ "$(json_get "$tmp/replay1.json" "all(set(r) >= {'blocking_rate_mean','deadline_met_rate_mean','unservable_rate_mean','gpu_hours_mean','queue_delay_mean'} for r in d['summary'])")" = "True" ] || fail "replay keys"
"$PACML" replay "$tmp/trace.csv" --format elasticflow --cluster dgx-a100-4x8 --admission both --policies requested,min_feasible,para_max,random --json >"$tmp/replay2.json" 2>/dev/null
cmp -s "$tmp/replay1.json" "$tmp/replay2.json" && pass || fail "replay is not deterministic"
# --jobs-csv: a row per job and policy, the trace's GPU count beside the one it ran on
expect_ok "replay --jobs-csv" "$PACML" replay "$tmp/trace.csv" --format elasticflow --cluster dgx-a100-4x8 --admission queue --policies requested,fixed:4 --json --jobs-csv "$tmp/jobs.csv"
[ "$(head -1 "$tmp/jobs.csv")" = "policy,admission,id,requested,gpus,start,end,met" ] || fail "jobs.csv header: $(head -1 "$tmp/jobs.csv")"
[ "$(awk -F, '$1 == "requested" { printf "%s:%s:%s ", $3, $4, $5 }' "$tmp/jobs.csv")" = "a:1:1 b:2:2 c:2:2 d:1:1 e:2:2 " ] || fail "jobs.csv requested: $(cat "$tmp/jobs.csv")"
[ "$(awk -F, '$1 == "fixed:4" && $5 == 4 { n++ } END { print n }' "$tmp/jobs.csv")" = 5 ] || fail "jobs.csv fixed:4: $(cat "$tmp/jobs.csv")"
# --format sacct reads sacct --json too: Slurm 22.05's shape (job 7: limit in
# minutes, comment.job) and 24.11's (job 8: numbers as {set, infinite, number});
# the GPUs from tres.allocated, else tres.requested (job 9, never started)
cat >"$tmp/sacct.json" <<'JSON'
{"meta": {}, "errors": [], "jobs": [
 {"job_id": 7, "allocation_nodes": 1, "comment": {"job": "pacml:model=resnet50,beta=1"},
  "time": {"submission": 1000, "start": 1001, "end": 1061, "limit": 30},
  "tres": {"allocated": [{"type": "cpu", "count": 8}, {"type": "gres", "name": "gpu", "count": 4}], "requested": []}},
 {"job_id": 8, "allocation_nodes": 2, "comment": {"job": "pacml:model=resnet50,beta=1"},
  "time": {"submission": 1010, "start": 1011, "end": 1071, "limit": {"set": true, "infinite": false, "number": 60}},
  "tres": {"allocated": [{"type": "gres", "name": "gpu", "count": 6}], "requested": []}},
 {"job_id": 9, "allocation_nodes": 1, "comment": {"job": "pacml:model=resnet50,beta=1"},
  "time": {"submission": 1020, "start": 0, "end": 1030, "limit": 4294967295},
  "tres": {"allocated": [], "requested": [{"type": "gres", "name": "gpu", "count": 2}]}}]}
JSON
expect_ok "replay sacct --json" "$PACML" replay "$tmp/sacct.json" --format sacct --cluster dgx-a100-4x8 --policies requested --json --jobs-csv "$tmp/jobs.csv"
[ "$(json_get "$tmp/out" "(d['trace']['records'], d['mapping']['jobs'])")" = "(3, 3)" ] || fail "sacct --json replay: $(cat "$tmp/out")"
[ "$(awk -F, 'NR > 1 { printf "%s:%s ", $3, $4 }' "$tmp/jobs.csv")" = "7:4 8:6 9:2 " ] || fail "sacct --json GPU counts: $(cat "$tmp/jobs.csv")"
printf '{"jobs": 3}\n' >"$tmp/bad.json"
expect_input_error "sacct --json without a jobs array" "expected sacct --json output" "$PACML" replay "$tmp/bad.json" --format sacct --cluster dgx-a100-4x8
expect_input_error "--jobs-csv on the paper's simulator" "--jobs-csv" "$PACML" replay "$tmp/trace.csv" --format elasticflow --profile reference --jobs-csv "$tmp/jobs2.csv"
expect_ok "replay --decide submission" "$PACML" replay "$tmp/trace.csv" --format elasticflow --cluster dgx-a100-4x8 --admission queue --decide submission --policies min_feasible --json
expect_input_error "bad decide" "GPU decision must be 'start' or 'submission'" "$PACML" replay "$tmp/trace.csv" --format elasticflow --cluster dgx-a100-4x8 --decide later
expect_input_error "bad admission" "admission must be 'immediate' or 'queue'" "$PACML" replay "$tmp/trace.csv" --format elasticflow --cluster dgx-a100-4x8 --admission later
expect_input_error "paper policy on gpus" "unknown GPU policy 'para_min'" "$PACML" replay "$tmp/trace.csv" --format elasticflow --cluster dgx-a100-4x8 --policies para_min
expect_input_error "paper policy on the default replay" "unknown GPU policy 'sequential'" "$PACML" replay "$tmp/trace.csv" --format elasticflow --policies sequential

# without --cluster, profile physical replays on the paper's cluster of --topology (one A100 a server)
expect_ok "replay without --cluster: on GPUs" "$PACML" replay "$tmp/trace.csv" --format elasticflow --json
cp "$tmp/out" "$tmp/default1.json"
[ "$(json_get "$tmp/default1.json" "(d['replay'], d['cluster'].startswith('ramp 4x4x2'), [r['policy'] for r in d['summary']], d['mapping']['deadline_from'])")" = "('gpu', True, ['requested', 'min_feasible', 'para_max'], {'deadline': 5})" ] || fail "default replay: $(cat "$tmp/out")"
"$PACML" replay "$tmp/trace.csv" --format elasticflow --json >"$tmp/default2.json" 2>/dev/null
cmp -s "$tmp/default1.json" "$tmp/default2.json" && pass || fail "the default replay is not deterministic"
expect_ok "replay --topology 2x2x2: 8 GPUs" "$PACML" replay "$tmp/trace.csv" --format elasticflow --topology 2x2x2 --policies para_max --json
[ "$(json_get "$tmp/out" "d['summary'][0]['mean_gpus'] <= 8")" = "True" ] || fail "topology 2x2x2: $(cat "$tmp/out")"
expect_ok "replay text names the GPUs and the model" "$PACML" replay "$tmp/trace.csv" --format elasticflow
grep -q "jobs replayed on GPUs with the physical model, ramp 4x4x2" "$tmp/out" || fail "replay text: $(cat "$tmp/out")"
grep -q "deadline from deadline: 5" "$tmp/err" || fail "replay report: $(cat "$tmp/err")"

expect_ok "replay --map on GPUs" "$PACML" replay "$tmp/trace.csv" --format elasticflow --map resnet50=vgg16 --policies min_feasible --json
[ "$(json_get "$tmp/out" "d['mapping']['jobs_by_model']")" = "{'resnet50 → vgg16': 5}" ] || fail "--map on GPUs: $(cat "$tmp/out")"
expect_input_error "--map to an unknown model names the option" "model_map.resnet50: unknown model 'llama'" "$PACML" replay "$tmp/trace.csv" --format elasticflow --map resnet50=llama

# options of one replay refused by the other, naming the option and the replay
expect_input_error "gpu option on the paper's simulator" "--admission: applies to the GPU replay (world gpu" "$PACML" replay "$tmp/trace.csv" --format elasticflow --world paper --admission queue
expect_input_error "--cluster on the paper's simulator" "--cluster: applies to the GPU replay" "$PACML" replay "$tmp/trace.csv" --format elasticflow --profile reference --cluster dgx-a100-4x8
expect_input_error "paper option on gpus" "--gpu-scale: applies to the paper's simulator (--world paper)" "$PACML" replay "$tmp/trace.csv" --format elasticflow --gpu-scale 2
expect_input_error "--out on gpus" "--out: applies to the paper's simulator" "$PACML" replay "$tmp/trace.csv" --format elasticflow --out "$tmp/o"
expect_input_error "--cluster and --topology" "--topology: names the paper's cluster" "$PACML" replay "$tmp/trace.csv" --format elasticflow --cluster dgx-a100-4x8 --topology 4x4x2
expect_input_error "--seeds on gpus names --seed" "--seeds: applies to the paper's simulator (--world paper), not to the GPU replay (world gpu, the default); this one takes --seed" "$PACML" replay "$tmp/trace.csv" --format elasticflow --seeds 2
expect_ok "--seed on gpus" "$PACML" replay "$tmp/trace.csv" --format elasticflow --seed 3 --policies random --json
printf 'pacml_experiment: 1\nprofile: physical\nworkload: {type: trace, format: elasticflow, path: trace.csv}\n' >"$tmp/phys.yaml"
expect_input_error "experiment with profile physical" "profile physical: pacml replay runs an experiment file on the paper's simulator" "$PACML" replay "$tmp/trace.csv" --format elasticflow --experiment "$tmp/phys.yaml"
printf 'pacml_experiment: 1\nprofile: reference\nworkload: {type: trace, format: elasticflow, path: trace.csv}\npolicies: [para_max]\n' >"$tmp/ref.yaml"
expect_ok "experiment with profile reference" "$PACML" replay "$tmp/trace.csv" --format elasticflow --experiment "$tmp/ref.yaml" --json
[ "$(json_get "$tmp/out" "(d['replay'], d['profile'], d['mapping']['jobs'], [r['policy'] for r in d['summary']])")" = "('paper', 'reference', 5, ['para_max'])" ] || fail "reference experiment replay: $(cat "$tmp/out")"

# every format on GPUs: SWF with --models, a Slurm decision log with graph files and zoo models
printf '1 0 0 100 4 -1 -1 4 600 -1 1 1 1 7 1 1 -1 -1\n2 10 0 50 2 -1 -1 2 -1 -1 1 1 1 9 1 1 -1 -1\n' >"$tmp/t.swf"
expect_input_error "swf on gpus without --models" "a job without a model" "$PACML" replay "$tmp/t.swf" --format swf
expect_ok "swf on gpus" "$PACML" replay "$tmp/t.swf" --format swf --models resnet50,vgg16 --json
[ "$(json_get "$tmp/out" "(d['mapping']['jobs'], d['mapping']['steps_fallback'], d['mapping']['deadline_from'])")" = "(2, 2, {'fallback beta A': 1, 'time limit': 1})" ] || fail "swf on gpus: $(cat "$tmp/out")"
cat >"$tmp/decisions.jsonl" <<JSONL
{"job_id": 7, "submit_time": 1000, "model": "resnet50", "steps": 200, "beta": 0.5, "tres_per_job": "gres/gpu:2"}
{"job_id": 8, "submit_time": 1010, "model": "tiny", "graph": "$SRC/tests/fixtures/tiny.txt", "steps": 50, "beta": 0.8}
{"job_id": 9, "submit_time": 1020, "model": "gnmt", "outcome": "not_created"}
{"job_id": 10, "submit_time": 1030, "model": "x", "graph": "/nonexistent/x.txt", "steps": 5, "beta": 1}
JSONL
expect_input_error "pacml-log: a missing graph file is rejected with file:line" "decisions.jsonl:4: unreadable graph file '/nonexistent/x.txt'" "$PACML" replay "$tmp/decisions.jsonl" --format pacml-log --policies min_feasible
expect_ok "pacml-log on gpus" "$PACML" replay "$tmp/decisions.jsonl" --format pacml-log --policies min_feasible --no-plots --unknown-model skip --json
[ "$(json_get "$tmp/out" "(d['trace']['records'], d['trace']['skipped'], d['mapping']['jobs'], d['mapping']['skipped'], d['mapping']['deadline_from'])")" = "(3, 1, 2, 1, {'beta': 2})" ] || fail "pacml-log on gpus: $(cat "$tmp/out")"

# fitted workloads: fit a trace, run the shipped fit on a cluster
expect_ok "workload fit" "$PACML" workload fit "$tmp/trace.csv" --out "$tmp/w.yaml"
grep -q "pacml_workload: 1" "$tmp/w.yaml" || fail "workload file: $(cat "$tmp/w.yaml")"
expect_ok "workload run" "$PACML" workload run "$SRC/contrib/workloads/elasticflow-01-05.yaml" --cluster ramp-a100-16x8 --jobs 200 --seeds 2 --json
[ "$(json_get "$tmp/out" "(len(d), all(0 <= r['deadline_met_rate_mean'] <= 1 and 'unservable_rate_ci95' in r for r in d))")" = "(6, True)" ] || fail "workload run: $(cat "$tmp/out")"
printf 'pacml_workload: 1\nbursts: 3\n' >"$tmp/bad-w.yaml"
expect_input_error "bad workload" "bad-w.yaml:2: unknown fitted workload file key 'bursts'" "$PACML" workload run "$tmp/bad-w.yaml" --cluster dgx-a100-4x8

# bad input: exit 2 naming the file, line or option
printf 'pacml_cluster: 1\nnetwork: fabric\nservers: 4\nserver_bandwidth: 200\n' >"$tmp/units.yaml"
expect_input_error "wrong units" "units.yaml:4: server_bandwidth = 200 is outside" "$PACML" estimate --model resnet50 --cluster "$tmp/units.yaml"
printf 'pacml_cluster: 1\nnetwork: fabric\nservers: 4\nnic: 8\n' >"$tmp/key.yaml"
expect_input_error "unknown key" "key.yaml:4: unknown cluster key 'nic'" "$PACML" estimate --model resnet50 --cluster "$tmp/key.yaml"
printf 'pacml_cluster: 1\nnetwork: ramp\nshape: 2x4x1\n' >"$tmp/ramp.yaml"
expect_input_error "impossible ramp" "R=4" "$PACML" estimate --model resnet50 --cluster "$tmp/ramp.yaml"
expect_input_error "missing cluster" "is neither a readable cluster file nor a preset" "$PACML" estimate --model resnet50 --cluster nowhere.yaml
mkdir -p "$tmp/holes"; printf 'global_batch_size,1,2\n64,5,\n' >"$tmp/holes/vgg16.csv"
expect_input_error "table hole" "vgg16.csv:2: no throughput for 2 GPUs" "$PACML" estimate --model vgg16 --throughput-table "$tmp/holes"
printf 'global_batch_size,1,2\n64,5,-3\n' >"$tmp/holes/vgg16.csv"
expect_input_error "negative cell" "vgg16.csv:2: iterations per second must be positive" "$PACML" estimate --model vgg16 --throughput-table "$tmp/holes"
printf 'global_batch_size,1,2\n64,5,lots\n' >"$tmp/holes/vgg16.csv"
expect_input_error "text cell" "vgg16.csv:2" "$PACML" estimate --model vgg16 --throughput-table "$tmp/holes"
expect_input_error "unknown strategy" "unknown strategy 'zero3'" "$PACML" estimate --model resnet50 --strategy zero3
expect_input_error "too many gpus" "--gpus" "$PACML" estimate --model resnet50 --cluster dgx-a100-4x8 --gpus 33
expect_input_error "heads" "--heads" "$PACML" estimate --model gpt2 --hidden 768 --heads 7
expect_input_error "layers on a cnn" "--layers" "$PACML" estimate --model resnet50 --layers 4
expect_input_error "both" "not both" "$PACML" estimate --model resnet50 --cluster dgx-a100-4x8 --topology 4x4x2
expect_input_error "physical only" "--cluster: applies to world gpu only" "$PACML" estimate --model resnet50 --world paper --cluster dgx-a100-4x8
expect_input_error "--profile is --world's older name: both must agree" "--profile reference is --world paper, but --world gpu is given too" "$PACML" estimate --model resnet50 --world gpu --profile reference
expect_input_error "an unknown world" "--world: world must be 'paper'" "$PACML" replay "$tmp/trace.csv" --format elasticflow --world ramp
expect_input_error "extract nothing" "--out" "$PACML" throughput extract "$tmp/trace.csv"

# calibrate: rows whose args reproduce their step time in `pacml estimate`
expect_ok "calibrate" "$PACML" calibrate --json --out "$tmp/cal"
cp "$tmp/out" "$tmp/cal.json"
for f in calibration.csv calibration.json calibration.dat calibration.gp; do
  [ -s "$tmp/cal/$f" ] || fail "calibrate --out wrote no $f"
done
if command -v gnuplot >/dev/null; then [ -s "$tmp/cal/calibration.png" ] || fail "no calibration.png"; fi
rows=$(json_get "$tmp/cal.json" "len(d)")
[ "$rows" -ge 8 ] || fail "calibrate rows: $rows"
for i in 0 3 $((rows - 1)); do
  args=$(json_get "$tmp/cal.json" "' '.join(d[$i]['args'])")
  want=$(json_get "$tmp/cal.json" "repr(d[$i]['predicted_step_time'])")
  gpus=$(json_get "$tmp/cal.json" "d[$i]['gpus']")
  # shellcheck disable=SC2086
  "$PACML" estimate $args --json >"$tmp/est.json" 2>"$tmp/err" || fail "estimate $args: $(cat "$tmp/err")"
  got=$(json_get "$tmp/est.json" "repr([r['step_time'] for r in d if r['gpus'] == $gpus][0])")
  [ "$got" = "$want" ] && pass || fail "row $i: estimate $args gives $got, calibrate $want"
done
[ "$(json_get "$tmp/cal.json" "all(set(r) >= {'source','model','batch','gpus','measured_speedup','predicted_speedup','measured_step_time','predicted_step_time','args'} for r in d)")" = "True" ] || fail "calibrate keys"
mkdir -p "$tmp/no-traces"
expect_input_error "calibrate --elasticflow on a folder without traces" "a folder without trace files" \
  "$PACML" calibrate --elasticflow "$tmp/no-traces"
if [ -f "$DATA/elasticflow/elasticflow-traces.tar.gz" ]; then
  [ "$(json_get "$tmp/cal.json" "sum(r['source'] == 'elasticflow' for r in d) >= 90")" = "True" ] || fail "elasticflow rows"
  # the shared data's folder, not the archive: the archive in it is read
  expect_ok "calibrate --elasticflow on the folder holding the archive" \
    "$PACML" calibrate --elasticflow "$DATA/elasticflow" --json
  [ "$(json_get "$tmp/out" "sum(r['source'] == 'elasticflow' for r in d) >= 90")" = "True" ] || fail "elasticflow rows from the folder"
else
  echo "SKIP: ElasticFlow traces absent ($DATA/elasticflow): calibrate compared the published points only"
fi

# Sharded data parallelism, checkpointing and the optimizer (issue 29): the
# memory terms add up to the peak, and checkpointing saves activations.
expect_ok "estimate fsdp + checkpointing" "$PACML" estimate --model gpt2-xl --batch 16 --precision bf16 \
  --cluster dgx-a100-4x8 --gpus 8 --strategy fsdp --activation-checkpointing --json
[ "$(json_get "$tmp/out" "d[0]['strategy'] == 'fsdp' and d[0]['status'] == 'ok' and abs(sum(d[0]['memory'][k] for k in ('weights','gradients','optimizer_state','cast_weights','gathered_units','activations','temporary')) - d[0]['memory_per_gpu']) < 1 and d[0]['memory']['verdict'] > d[0]['memory_per_gpu']")" = "True" ] || fail "fsdp memory terms"
cp "$tmp/out" "$tmp/ckpt.json"
expect_ok "estimate fsdp without checkpointing" "$PACML" estimate --model gpt2-xl --batch 16 --precision bf16 \
  --cluster dgx-a100-4x8 --gpus 8 --strategy fsdp --json
[ "$(json_get "$tmp/out" "d[0]['memory']['activations'] > json.load(open('$tmp/ckpt.json'))[0]['memory']['activations']")" = "True" ] || fail "checkpointing keeps fewer activations"
expect_ok "estimate prints the memory terms" "$PACML" estimate --model llama3.2-1b --batch 4 --seq-len 2048 \
  --precision bf16 --cluster dgx-h100-4x8 --device h100-sxm --gpus 1 --optimizer sgd
grep -q "memory per GPU at the peak (GB): weights" "$tmp/out" || fail "memory terms line"
expect_ok "tensor degree 1 is the one-GPU plan" "$PACML" estimate --model bert-base --batch 32 --cluster dgx-a100-4x8 --gpus 1 --strategy tensor --json
[ "$(json_get "$tmp/out" "d[0]['status']")" = "ok" ] || fail "tensor on one GPU"
expect_input_error "estimate --optimizer adam" "unknown optimizer 'adam'" \
  "$PACML" estimate --model gpt2 --cluster dgx-a100-4x8 --gpus 1 --optimizer adam

finish
