#!/usr/bin/env bash
# cuda-l1-capture on a GPU machine (issue 13, part 2), without LLVM:
#   1. builds the launcher, the injection library and the replay checker
#      (tools/cuda-l1-capture as a CMake project of its own: g++, CUDA
#      toolkit, CUPTI) and the sample applications of
#      test/Capture/Inputs/apps (nvcc), plus a cubin of each application's
#      source;
#   2. runs each application alone (it checks itself and prints PASS), then
#      under cuda-l1-capture with several option sets, and checks each
#      manifest (cuda-l1-capture --check, then what the sample must hold:
#      test/Capture/Inputs/scripts/expect-manifest.py);
#   3. replays every captured launch with cuda-l1-capture-replay-check
#      (restore the before state, launch, require the captured after state
#      bit for bit, twice), with the kernel from the nvcc cubin and from the
#      module image the capture saved;
#   4. measures capture overhead (application wall time without the
#      injection library, with it but nothing selected, and capturing).
# Every check prints "CHECK <name>: <what>: PASS|FAIL|INFO"; the last line
# is "gpu-capture-check: PASS" or "... FAIL". Logs under $OUT (default
# ./gpu-capture-out): summary.txt, gpu-capture-check.log (everything),
# overhead.txt, env.txt, gpu-capture-details.tgz (manifests, capture and
# replay logs, build logs) and gpu-capture-data.tgz (the captured bytes).
#
#   utils/gpu-capture-check.sh [dist-dir]
#
# dist-dir (optional, utils/make-gpu-dist.sh): its bin/cuda-l1-rewrite
# regenerates the kernel models (compared with the shipped ones, INFO), and
# a bin/cudal1-capture-tests there reads the real captures with lib/Capture.
# Needs: nvidia-smi, nvcc, g++, cmake (ninja or make), python3. About 2-4
# minutes on an H200 (builds included).
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIST="${1:-}"
OUT="${OUT:-$ROOT/gpu-capture-out}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/cudal1-capture-check.XXXXXX")"
LOG="$OUT/gpu-capture-check.log"
SUMMARY="$OUT/summary.txt"
: > "$LOG"
: > "$SUMMARY"
export CUDA_PATH="${CUDA_PATH:-/usr/local/cuda}"
export PATH="$CUDA_PATH/bin:$PATH"
APPS="$ROOT/test/Capture/Inputs/apps"
SCRIPTS="$ROOT/test/Capture/Inputs/scripts"
FAIL=0
exec > >(tee -a "$LOG") 2>&1

step() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }
pass() { echo "CHECK $1: $2: PASS" | tee -a "$SUMMARY"; }
fail() { echo "CHECK $1: $2: FAIL${3:+ ($3)}" | tee -a "$SUMMARY"; FAIL=1; }
info() { echo "CHECK $1: $2: INFO${3:+ ($3)}" | tee -a "$SUMMARY"; }
# check <name> <what> <command...>: PASS when the command succeeds.
check() {
  local name="$1" what="$2"; shift 2
  if "$@"; then pass "$name" "$what"; else fail "$name" "$what" "exit $?"; fi
}
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

step "environment"
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv
  nvcc --version | tail -2
  g++ --version | head -1
  cmake --version | head -1
  command -v ninja >/dev/null && echo "ninja $(ninja --version)"
  python3 --version
  uname -r
  echo "CUDA_MODULE_LOADING=${CUDA_MODULE_LOADING:-unset (the default: lazy)}"
} 2>&1 | tee "$OUT/env.txt"
CC_CAP="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')"
ARCH="sm_${CC_CAP:-90}"
echo "device code for $ARCH"

step "build the capture tools (tools/cuda-l1-capture, standalone CMake, no LLVM)"
GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)
if timeout 600 cmake "${GEN[@]}" -S "$ROOT/tools/cuda-l1-capture" -B "$WORK/build" \
     -DCMAKE_BUILD_TYPE=Release > "$WORK/cmake.log" 2>&1 &&
   timeout 600 cmake --build "$WORK/build" -j "$(nproc)" > "$WORK/build.log" 2>&1; then
  pass tools "launcher, injection library and replay checker build"
else
  fail tools "launcher, injection library and replay checker build" "see build logs"
  tail -30 "$WORK/cmake.log" "$WORK/build.log"
fi
CAPTURE="$WORK/build/bin/cuda-l1-capture"
REPLAY="$WORK/build/bin/cuda-l1-capture-replay-check"
INJECT="$WORK/build/lib/cuda-l1/libcudal1-capture-inject.so"
if [ -f "$INJECT" ]; then
  echo "injection library: $INJECT"; ldd "$INJECT" | sed 's/^/  /'
  nm -D --defined-only "$INJECT" | grep -q ' T InitializeInjection$' &&
    pass tools "the injection library exports InitializeInjection (and nothing else of note)" ||
    fail tools "the injection library exports InitializeInjection"
fi

step "build the sample applications and their cubins (nvcc -O2 -arch=$ARCH)"
mkdir -p "$WORK/apps"
build_app() { # <name> [extra nvcc flags]
  local n="$1"; shift
  nvcc -O2 -arch="$ARCH" "$@" -o "$WORK/apps/$n" "$APPS/$n.cu" > "$WORK/apps/$n.build.log" 2>&1 &&
    nvcc -O2 -arch="$ARCH" "$@" -cubin -o "$WORK/apps/$n.cubin" "$APPS/$n.cu" >> "$WORK/apps/$n.build.log" 2>&1
}
PIDS=()
for a in multi_kernels struct_params managed loop; do build_app "$a" & PIDS+=($!); done
build_app templates --default-stream per-thread & PIDS+=($!)
i=0
for a in multi_kernels struct_params managed loop templates; do
  if wait "${PIDS[$i]}"; then pass "$a" "builds (application and cubin)"; else
    fail "$a" "builds" "$(tail -5 "$WORK/apps/$a.build.log")"; fi
  i=$((i + 1))
done

step "each application alone checks itself"
for a in multi_kernels struct_params managed loop templates; do
  if timeout 120 "$WORK/apps/$a" > "$WORK/apps/$a.plain.log" 2>&1 && grep -q PASS "$WORK/apps/$a.plain.log"; then
    pass "$a" "runs without capture and prints PASS"
  else
    fail "$a" "runs without capture" "$(tail -3 "$WORK/apps/$a.plain.log")"
  fi
done

# capture <name> <expectation> <allowed exit statuses> <app> [launcher options...] -- [app args...]
CAPTURES=()
capture() {
  local name="$1" expect="$2" allowed="$3" app="$4"; shift 4
  local dir="$WORK/captures/$name"
  mkdir -p "$WORK/captures"
  local opts=() args=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do opts+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  args=("$@")
  echo "--- cuda-l1-capture ${opts[*]} -o captures/$name -- $app ${args[*]}"
  local t0 t1 rc
  t0=$(now)
  timeout 300 "$CAPTURE" "${opts[@]}" -o "$dir" -- "$WORK/apps/$app" "${args[@]}" \
    > "$WORK/captures/$name.stdout" 2> "$WORK/captures/$name.stderr"
  rc=$?
  t1=$(now)
  cat "$WORK/captures/$name.stderr"
  if [[ " $allowed " == *" $rc "* ]]; then
    pass "$name" "cuda-l1-capture exit status $rc (expected: $allowed; $(secs "$t0" "$t1") s)"
  else
    fail "$name" "cuda-l1-capture exit status $rc (expected: $allowed)"
  fi
  if grep -q PASS "$WORK/captures/$name.stdout"; then
    pass "$name" "the application still prints PASS under capture"
  else
    fail "$name" "the application still prints PASS under capture" "$(tail -3 "$WORK/captures/$name.stdout")"
  fi
  if [ -f "$dir/manifest.json" ]; then
    check "$name" "cuda-l1-capture --check accepts the capture" "$CAPTURE" --check "$dir" --quiet
    python3 "$SCRIPTS/expect-manifest.py" "$dir" "$expect" | tee -a "$SUMMARY"
    [ "${PIPESTATUS[0]}" = 0 ] || FAIL=1
    [ -f "$dir/capture.log" ] && sed 's/^/    capture.log: /' "$dir/capture.log" | head -60
    CAPTURES+=("$name:$app")
  else
    fail "$name" "manifest.json written"
  fi
}

step "capture"
MODELS="$APPS"
if [ -n "$DIST" ] && [ -x "$DIST/bin/cuda-l1-rewrite" ]; then
  mkdir -p "$WORK/models"
  for a in multi_kernels struct_params managed loop templates; do
    "$DIST/bin/cuda-l1-rewrite" --list-kernels --format=json "$APPS/$a.cu" > "$WORK/models/$a.json" 2> "$WORK/models/$a.err"
  done
  python3 "$SCRIPTS/same-layouts.py" "$APPS" "$WORK/models" multi_kernels struct_params managed loop templates \
    | sed 's/^/  /' && info models "dist cuda-l1-rewrite's models agree with the shipped ones" ||
    info models "dist cuda-l1-rewrite's models differ from the shipped ones (the shipped ones are used)"
fi
capture multi-model multi-model 0 multi_kernels --model "$MODELS/multi_kernels.model.json" --
capture multi-demangled multi-demangled 0 multi_kernels --
capture struct-model struct-model 0 struct_params --model "$MODELS/struct_params.model.json" --
# Without a model, struct parameters are captured only if the driver gives
# their layout (cuKernelGetParamInfo); else every launch is refused (exit 3).
capture struct-nomodel struct-nomodel "0 3" struct_params --
capture managed managed 0 managed --launches 2 --
capture loop loop 0 loop --skip 2 --launches 3 -- 20 65536
capture templates templates 0 templates --
capture filter filter 0 multi_kernels --kernel 'saxpy|add_rows' --
capture maxbytes maxbytes 3 multi_kernels --max-bytes 1K --

step "replay every captured launch (cuda-l1-capture-replay-check)"
for entry in "${CAPTURES[@]}"; do
  name="${entry%%:*}"; app="${entry#*:}"
  dir="$WORK/captures/$name"
  n=$(python3 -c "import json,sys; print(sum(l['status']=='captured' for l in json.load(open(sys.argv[1]))['launches']))" "$dir/manifest.json" 2>/dev/null || echo 0)
  if [ "$n" = 0 ]; then
    info "$name" "replay" "no captured launch to replay"
    continue
  fi
  echo "--- $name: $n launches, kernels from $app.cubin (nvcc -cubin of the same source)"
  if timeout 300 "$REPLAY" "$dir" --module "$WORK/apps/$app.cubin" > "$WORK/captures/$name.replay.log" 2>&1; then
    pass "$name" "replay with the nvcc cubin reproduces every captured after-state bit for bit ($n launches)"
  else
    fail "$name" "replay with the nvcc cubin" "see below"
  fi
  cat "$WORK/captures/$name.replay.log"
  if ls "$dir"/modules/*.cubin >/dev/null 2>&1; then
    echo "--- $name: kernels from the module images the capture saved"
    if timeout 300 "$REPLAY" "$dir" --captured-module > "$WORK/captures/$name.replay-captured.log" 2>&1; then
      pass "$name" "replay with the captured module image reproduces every after-state"
    else
      fail "$name" "replay with the captured module image" "see below"
    fi
    cat "$WORK/captures/$name.replay-captured.log"
  else
    info "$name" "captured module images" "none saved (CUPTI module-loaded callback gave no ELF image)"
  fi
done

step "lib/Capture (the verifier's reader) on these captures"
TESTS=""
for c in "${DIST:+$DIST/bin/cudal1-capture-tests}" "${CUDAL1_BUILD_DIR:-$ROOT/build}/bin/cudal1-capture-tests"; do
  if [ -n "$c" ] && [ -x "$c" ] && "$c" --gtest_list_tests > /dev/null 2>&1; then TESTS="$c"; break; fi
done
if [ ${#CAPTURES[@]} = 0 ]; then
  info lib-capture "reader check" "no capture to read"
elif [ -n "$TESTS" ]; then
  DIRS=$(for e in "${CAPTURES[@]}"; do printf '%s:' "$WORK/captures/${e%%:*}"; done)
  CUDAL1_CAPTURE_DIRS="${DIRS%:}" "$TESTS" --gtest_filter='CaptureRead.RealCaptures' > "$WORK/lib-capture.log" 2>&1
  cat "$WORK/lib-capture.log"
  if grep -q '\[  PASSED  \] 1 test' "$WORK/lib-capture.log"; then
    pass lib-capture "readCaptureManifest + loadReplayLaunch accept every real capture"
  else
    fail lib-capture "readCaptureManifest on the real captures"
  fi
else
  info lib-capture "reader check" "no runnable cudal1-capture-tests here (it needs LLVM); the manifests are in gpu-capture-details.tgz"
fi

step "cuda-l1-rewrite --verify=run --capture: the verifier replays captured launches"
REWRITE="${DIST:+$DIST/bin/cuda-l1-rewrite}"
CAP="$WORK/captures/multi-model"
if [ -z "$REWRITE" ] || [ ! -x "$REWRITE" ]; then
  info verify-capture "replay in the verifier" "no cuda-l1-rewrite in the dist folder"
elif [ ! -f "$CAP/manifest.json" ]; then
  fail verify-capture "replay in the verifier" "no capture of multi_kernels"
else
  V="$WORK/verify-capture"; mkdir -p "$V"
  # The same kernel as a candidate: correct on every captured launch, the
  # original reproducing each captured after-state; not faster.
  "$REWRITE" --verify=run --capture="$CAP" --kernel=saxpy --verify-exactness=bitwise \
    --verify-samples=30 --candidate="$APPS/multi_kernels.cu" --format=json \
    "$APPS/multi_kernels.cu" -- -I"$APPS" > "$V/same.json" 2> "$V/same.err"
  echo "exit status $? (1: verified, not faster)" >> "$V/same.err"
  cat "$V/same.err" | tail -20
  if python3 - "$V/same.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["kernels"][0]["candidates"][0]
sets = [s for s in c["input_sets"] if "launch" in s.get("description", "")]
notes = " ".join(c.get("notes", []))
ok = c["correct"] and sets and all(s["ok"] for s in sets) and "does not reproduce" not in notes
print("captured input sets:", len(sets), "correct:", c["correct"], "notes:", notes[:300])
sys.exit(0 if ok else 1)
PY
  then pass verify-capture "the verifier replays the captured launches of saxpy: the original reproduces them bit for bit, the identical candidate matches"
  else fail verify-capture "replay of captured launches in the verifier" "see $V/same.json"; fi
  # A wrong candidate: off by 1e-3 everywhere; must be rejected on the
  # captured launches.
  sed 's/y\[i\] = a \* x\[i\] + y\[i\];/y[i] = a * x[i] + y[i] + 1e-3f;/' "$APPS/multi_kernels.cu" > "$V/wrong.cu"
  cp "$APPS/check.h" "$V/"
  "$REWRITE" --verify=run --capture="$CAP" --kernel=saxpy --verify-samples=30 \
    --candidate="$V/wrong.cu" --format=json "$APPS/multi_kernels.cu" -- -I"$APPS" \
    > "$V/wrong.json" 2> "$V/wrong.err"
  tail -5 "$V/wrong.err"
  if python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['kernels'][0]['candidates'][0]; print(c['reject_kind'], c['reason'][:200]); sys.exit(0 if c['reject_kind']=='mismatch' else 1)" "$V/wrong.json"; then
    pass verify-capture "a wrong candidate is rejected [mismatch] on the captured launches"
  else fail verify-capture "the wrong candidate was not rejected as a mismatch" "see $V/wrong.json"; fi
fi

step "capture overhead (loop: 20000 launches of a 1M-element kernel)"
ITERS=20000; N=1048576
# run_timed <label> <command...>: 3 runs; the median wall time in LAST.
LAST=0
run_timed() {
  local label="$1"; shift
  local times=() t0 t1 ok=1 r
  for r in 1 2 3; do
    rm -rf "$WORK/overhead-cap"
    t0=$(now)
    "$@" > "$WORK/overhead.$r.log" 2>&1
    t1=$(now)
    grep -q PASS "$WORK/overhead.$r.log" || ok=0
    times+=("$(secs "$t0" "$t1")")
  done
  LAST=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
  printf '%-52s %8.3f s   (runs: %s)%s\n' "$label" "$LAST" "${times[*]}" \
    "$([ $ok = 1 ] || echo '  APPLICATION FAILED')" | tee -a "$OUT/overhead.txt"
  [ $ok = 1 ] || fail overhead "$label: the application failed"
}
echo "application: loop $ITERS $N (wall time of the whole process, median of 3)" | tee "$OUT/overhead.txt"
run_timed "without cuda-l1-capture" "$WORK/apps/loop" $ITERS $N; P=$LAST
run_timed "injection library loaded, no kernel selected" \
  "$CAPTURE" --kernel '^no_such_kernel$' -o "$WORK/overhead-cap" -- "$WORK/apps/loop" $ITERS $N; S=$LAST
run_timed "capturing 1 launch (2 x 4 MiB before and after)" \
  "$CAPTURE" -o "$WORK/overhead-cap" -- "$WORK/apps/loop" $ITERS $N; C=$LAST
run_timed "capturing 3 launches (--launches 3)" \
  "$CAPTURE" --launches 3 -o "$WORK/overhead-cap" -- "$WORK/apps/loop" $ITERS $N; C3=$LAST
awk -v p="$P" -v s="$S" -v c="$C" -v c3="$C3" -v n="$ITERS" 'BEGIN {
  printf "injection library, nothing selected: %+.3f s (%+.2f us per launch over %d launches)\n", s - p, (s - p) / n * 1e6, n;
  printf "capturing: 1 launch %+.3f s, 3 launches %+.3f s over the plain run\n", c - p, c3 - p }' | tee -a "$OUT/overhead.txt"
info overhead "capture overhead" "$(tail -2 "$OUT/overhead.txt" | tr '\n' ' ')"

step "summary"
grep -c ': PASS' "$SUMMARY" | sed 's/^/checks passed: /'
grep -c ': FAIL' "$SUMMARY" | sed 's/^/checks failed: /'
grep ': FAIL' "$SUMMARY" || true
echo "gpu-capture-check: $([ $FAIL = 0 ] && echo PASS || echo FAIL)" | tee -a "$SUMMARY"
# Manifests, logs and saved module images in one archive; the captured
# bytes in another when they are small enough to send back.
( cd "$WORK" && tar -czf "$OUT/gpu-capture-details.tgz" --exclude='*.bin' captures apps/*.log \
    cmake.log build.log $( [ -f lib-capture.log ] && echo lib-capture.log ) ) 2>/dev/null || true
( cd "$WORK" && tar -czf "$OUT/gpu-capture-data.tgz" captures ) 2>/dev/null || true
if [ "$(stat -c %s "$OUT/gpu-capture-data.tgz" 2>/dev/null || echo 0)" -gt $((40 << 20)) ]; then
  rm -f "$OUT/gpu-capture-data.tgz"; echo "(captured bytes not archived: over 40 MiB)"
fi
ls -la "$OUT"
rm -rf "$WORK"
exit $FAIL
