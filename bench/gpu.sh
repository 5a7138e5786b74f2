#!/usr/bin/env bash
# bench/gpu.sh -- on a CUDA machine: GPU output == CPU output == lastz, then timings.
#
# Prepare here first (copies pairs, a lastz binary and lastz's outputs into .gpubench/):
#     bash bench/gpu_prepare.sh
# then on the device machine, from the repo root (no network, nothing installed):
#     bash bench/gpu.sh [DATA_DIR]          # DATA_DIR defaults to .gpubench
# With the device tool: run(command="bash bench/gpu.sh", carry=[".gpubench"], timeout_s=540).
#
# Uses the machine's python3 with numba, numba-cuda, cupy and click (fastz needs nothing
# else; it runs from this checkout through PYTHONPATH).  Checks every case in
# DATA_DIR/cases.tsv: fastz --backend=gpu (thread mapping) == lastz's output, and
# --backend=cpu == lastz; the three timed cases also run the warp mapping (row-parallel
# inspector and executor), the diag mapping (anti-diagonal inspector, warp executor) and
# lastz itself.  Where the machine has pytest, the kernels of the three mappings
# are first checked against their CPU twins (tests/test_gpu_sim.py -k real_device_kernels).  Logs and outputs go to $OUT (the device tool's folder) or /tmp/fastz-gpubench;
# the table is printed last.  Stays under BUDGET seconds (default 420): cases left when
# the budget is spent are reported as skipped.
set -u -o pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
DATA=$(cd "${1:-$REPO/.gpubench}" 2>/dev/null && pwd) || DATA=""
PY=${PYTHON:-python3}
LOG=/tmp/fastz-gpubench            # outputs, logs, stats of every run
KEEP=${OUT:-$LOG}                  # what comes back: summary, table, environment, stats
BUDGET=${BUDGET:-420}
export PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
export FASTZ_GPU_DEBUG=1           # full tracebacks from GPU errors into the .err logs
unset NUMBA_ENABLE_CUDASIM
# DRYRUN=twin checks this script without a device: the GPU path runs its CPU twins
DRYRUN=${DRYRUN:-}
if [ "$DRYRUN" = twin ]; then export FASTZ_GPU_ENGINE=twin; else unset FASTZ_GPU_ENGINE; fi
ONLY=${ONLY:-.}                    # regex: only the cases whose tag matches
mkdir -p "$LOG/runs" "$KEEP"
SUMMARY="$KEEP/summary.txt"
: > "$SUMMARY"

say() { echo "[gpu.sh $(date +%H:%M:%S) ${SECONDS}s] $*"; }
fail() { echo "gpu.sh: ERROR: $*" >&2; echo "ERROR: $*" >> "$SUMMARY"; exit 2; }

[ -n "$DATA" ] && [ -f "$DATA/cases.tsv" ] \
  || fail "no prepared data (${1:-.gpubench}/cases.tsv): run bash bench/gpu_prepare.sh here and carry .gpubench"

# --- 1. the machine --------------------------------------------------------------------
say "repo $REPO, data $DATA, python $(command -v "$PY")"
nvidia-smi -L 2>&1 | head -4 || say "nvidia-smi not available"
if [ "$DRYRUN" = twin ]; then
  say "DRYRUN=twin: no device checks; --backend=gpu runs the CPU twins"
elif ! "$PY" - <<'EOF' 2>&1 | tee "$KEEP/env.txt"; then
import sys
print("python", sys.version.split()[0])
import numpy, numba, click
print("numpy", numpy.__version__, "numba", numba.__version__, "click", click.__version__)
try:
    import importlib.metadata as md
    print("numba-cuda", md.version("numba-cuda"))
except Exception as exc:
    print("numba-cuda version unknown:", exc)
from numba import cuda
import cupy
print("cupy", cupy.__version__)
if not cuda.is_available():
    sys.exit("numba-cuda finds no CUDA device")
d = cuda.get_current_device()
print("device", d.name.decode() if isinstance(d.name, bytes) else d.name,
      "cc", d.compute_capability)
from fastz.kernels.device import probe
ok, why = probe()
print("fastz probe:", ok, why)
sys.exit(0 if ok else 1)
EOF
  fail "the GPU stack is not usable (see above)"
fi
LASTZ="$DATA/bin/lastz"
lzv=$("$LASTZ" --version 2>&1 || true)       # lastz --version exits 1
if [ -x "$LASTZ" ] && [[ $lzv == *"lastz"* ]]; then
  HAVE_LASTZ=1
else
  HAVE_LASTZ=0
  say "the carried lastz does not run here: lastz timings will be n/a (outputs are precomputed)"
fi

norm() {  # drop the program/version token so lastz and fastz outputs compare
  sed -E 's/(lastz|fastz)\.v[0-9][0-9A-Za-z.\-]*/PROGRAM/g' "$1"
}

now_ms() { date +%s%3N; }

# run_fastz TAG MODE NAME OPTS [RANGE] -> prints seconds; output in $LOG/runs/TAG.MODE.out
run_fastz() {
  local tag=$1 mode=$2 name=$3 opts=$4 range=${5:+[$5]} backend=gpu envs=()
  case $mode in
    cpu) backend=cpu ;;
    gpu) envs=(FASTZ_GPU_MAPPING=thread) ;;
    warp) envs=(FASTZ_GPU_MAPPING=warp) ;;
    diag) envs=(FASTZ_GPU_MAPPING=diag) ;;
  esac
  local t0 t1 rc
  t0=$(now_ms)
  # shellcheck disable=SC2086
  (cd "$DATA" && env "${envs[@]}" timeout 300 "$PY" -m fastz "pairs/$name/target.fa$range" \
      "pairs/$name/query.fa$range" $opts --backend=$backend --stats="$LOG/runs/$tag.$mode.stats" \
      > "$LOG/runs/$tag.$mode.out" 2> "$LOG/runs/$tag.$mode.err")
  rc=$?
  t1=$(now_ms)
  if [ $rc -ne 0 ]; then
    echo "FAILED(rc=$rc)"
    tail -3 "$LOG/runs/$tag.$mode.err" | sed 's/^/    /' >&2
    return
  fi
  awk -v ms=$((t1 - t0)) 'BEGIN { printf "%.2f", ms / 1000 }'
}

same_as_lastz() {  # TAG MODE -> yes/no
  if cmp -s <(norm "$LOG/runs/$1.$2.out") <(norm "$DATA/lastz/$1.out"); then echo yes; else echo NO; fi
}

# --- 2. lastz timings, in the background on one core (lastz is single-threaded) ------------
LZPID=""
if [ $HAVE_LASTZ -eq 1 ]; then
  (
    n=0
    while IFS=$'\t' read -r tag name opts; do
      n=$((n + 1))
      [ $n -le 3 ] || break
      [[ $tag =~ $ONLY ]] || continue
      t0=$(now_ms)
      # shellcheck disable=SC2086
      (cd "$DATA" && timeout 400 "$LASTZ" "pairs/$name/target.fa" "pairs/$name/query.fa" $opts \
          > "$LOG/runs/$tag.lastz.out" 2>/dev/null) && t1=$(now_ms) \
        && awk -v ms=$((t1 - t0)) 'BEGIN { printf "%.2f\n", ms / 1000 }' > "$LOG/runs/$tag.lastz.time"
    done < "$DATA/cases.tsv"
  ) &
  LZPID=$!
  say "lastz timings started in the background (pid $LZPID)"
fi

# --- 3. warm-up: numba compiles the CPU engine and the CUDA kernels once ----------------
say "warm-up (first-time JIT compilation, cached afterwards)"
for w in "cpu|" "cpu|--nogfextend" "gpu|" "gpu|--nogfextend" "warp|--nogfextend" \
         "diag|--nogfextend"; do
  t=$(run_fastz warmup "${w%%|*}" mito_human_orang "${w#*|}" 1..4000)
  say "  warm-up ${w%%|*} ${w#*|}: ${t}s"
done

# --- 3b. the kernels against their CPU twins on the device (needs pytest there) -----------
# inspector and pruned executor of every mapping, every output field and link byte
if [ "$DRYRUN" = twin ]; then
  :
elif "$PY" -c "import pytest" 2>/dev/null; then
  say "kernel check: tests/test_gpu_sim.py -k real_device_kernels (FASTZ_TEST_REAL_GPU=1)"
  if (cd "$REPO" && FASTZ_TEST_REAL_GPU=1 timeout 180 "$PY" -m pytest -q -p no:cacheprovider \
        tests/test_gpu_sim.py -k real_device_kernels > "$LOG/kernel_check.txt" 2>&1); then
    echo "kernel check: pass ($(tail -1 "$LOG/kernel_check.txt"))" | tee -a "$SUMMARY"
  else
    echo "kernel check: FAILED (see kernel_check.txt)" | tee -a "$SUMMARY"
    tail -20 "$LOG/kernel_check.txt"
  fi
  cp "$LOG/kernel_check.txt" "$KEEP/" 2>/dev/null
else
  echo "kernel check: skipped (no pytest on this machine)" | tee -a "$SUMMARY"
fi

# --- 4. cases ------------------------------------------------------------------------------
: > "$LOG/cases.out"
n=0
while IFS=$'\t' read -r tag name opts; do
  n=$((n + 1))
  [[ $tag =~ $ONLY ]] || continue
  if [ "$SECONDS" -ge "$BUDGET" ]; then
    printf '%s\tskipped\n' "$tag" >> "$LOG/cases.out"
    continue
  fi
  say "case $tag ($name $opts)"
  tg=$(run_fastz "$tag" gpu "$name" "$opts")
  tc=$(run_fastz "$tag" cpu "$name" "$opts")
  tw="-" sw="-" td="-" sd="-"
  if [ $n -le 3 ]; then
    tw=$(run_fastz "$tag" warp "$name" "$opts")
    sw=$(same_as_lastz "$tag" warp)
    td=$(run_fastz "$tag" diag "$name" "$opts")
    sd=$(same_as_lastz "$tag" diag)
  fi
  sg=$(same_as_lastz "$tag" gpu)
  sc=$(same_as_lastz "$tag" cpu)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tag" "$tc" "$tg" "$tw" "$td" "$sg" "$sc" \
    "$sw" "$sd" >> "$LOG/cases.out"
  say "  cpu ${tc}s gpu ${tg}s warp ${tw}s diag ${td}s; same as lastz: gpu $sg cpu $sc warp $sw diag $sd"
  grep -E '^(gpu_|anchors|redone)' "$LOG/runs/$tag.gpu.stats" 2>/dev/null | sed 's/^/    /'
  grep -E '^gpu_diag' "$LOG/runs/$tag.diag.stats" 2>/dev/null | sed 's/^/    /'
done < "$DATA/cases.tsv"

# --- 5. wait for lastz (within the budget), then the table --------------------------------
if [ -n "$LZPID" ]; then
  while kill -0 "$LZPID" 2>/dev/null && [ "$SECONDS" -lt $((BUDGET + 60)) ]; do sleep 2; done
  if kill -0 "$LZPID" 2>/dev/null; then
    say "lastz timings unfinished at the time limit: stopping them"
    kill -- "$LZPID" 2>/dev/null
  fi
fi
printf '%-44s %8s %8s %9s %9s %9s %7s %7s  %s\n' case lastz_s cpu_s gpu_s warp_s diag_s \
  x_lastz x_cpu "same-as-lastz(gpu,cpu,warp,diag)" > "$LOG/table.txt"
while IFS=$'\t' read -r tag tc tg tw td sg sc sw sd; do
  if [ "$tc" = skipped ]; then
    printf '%-44s skipped (time budget)\n' "$tag" >> "$LOG/table.txt"
    continue
  fi
  tl=$(cat "$LOG/runs/$tag.lastz.time" 2>/dev/null || echo -)
  xl=$(awk -v a="$tl" -v b="$tg" 'BEGIN { if (a+0 > 0 && b+0 > 0) printf "%.1f", a / b; else print "-" }')
  xc=$(awk -v a="$tc" -v b="$tg" 'BEGIN { if (a+0 > 0 && b+0 > 0) printf "%.1f", a / b; else print "-" }')
  printf '%-44s %8s %8s %9s %9s %9s %7s %7s  %s %s %s %s\n' "$tag" "$tl" "$tc" "$tg" "$tw" \
    "$td" "$xl" "$xc" "$sg" "$sc" "$sw" "$sd" >> "$LOG/table.txt"
done < "$LOG/cases.out"
{
  echo
  echo "fastz GPU benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), $(nproc) CPU cores"
  echo "seconds, wall clock, one run each after a warm-up (JIT compiled); lastz ran on one core"
  echo "concurrently with the fastz runs; x_lastz = lastz_s / gpu_s,"
  echo "x_cpu = cpu_s / gpu_s (cpu = --backend=cpu, all cores); gpu = thread mapping, warp = warp mapping, diag = anti-diagonal inspector"
  cat "$LOG/table.txt"
} | tee -a "$SUMMARY"
cp "$LOG/table.txt" "$KEEP/table.txt" 2>/dev/null
(cd "$LOG/runs" && tar czf "$KEEP/stats.tar.gz" ./*.stats ./*.err 2>/dev/null)
if grep -qE ' NO|FAILED' "$LOG/table.txt"; then
  echo "gpu.sh: some outputs differ from lastz or failed (logs in $LOG/runs)"
  exit 1
fi
exit 0
