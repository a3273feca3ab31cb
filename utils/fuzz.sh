#!/usr/bin/env bash
# Runs every libFuzzer target (fuzz/) for a bounded time over its seeds.
#   utils/fuzz.sh [seconds per target (default 60)] [build dir (default build-san)]
# The build dir must be configured with -DCUDAL1_FUZZ=ON (utils/check-sanitize.sh
# does it). New inputs found go to <build>/fuzz-corpus/<target>/ (the seeds in
# fuzz/seeds/ are never modified); a crash leaves <build>/fuzz-crashes/<target>/
# crash-*, and this script exits 1 naming it: add the input to fuzz/regressions/
# <target>/ once fixed (they are replayed by every run, before fuzzing).
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SECS="${1:-60}"
B="${2:-$ROOT/build-san}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
status=0
printf '%-18s %8s %10s %s\n' target seconds execs result
# FUZZ_TARGETS="FuzzRuleFile FuzzConfig" runs only those (e.g. when only
# they are built: ninja -C build-san FuzzRuleFile FuzzConfig).
for T in ${FUZZ_TARGETS:-FuzzRuleFile FuzzHarnessSpec FuzzConfig FuzzCompileFlags FuzzLlmReply FuzzLspMessages FuzzRewrite}; do
  BIN="$B/fuzz/$T"
  if [ ! -x "$BIN" ]; then echo "fuzz: $BIN missing (configure with -DCUDAL1_FUZZ=ON)" >&2; exit 2; fi
  CORPUS="$B/fuzz-corpus/$T"; CRASH="$B/fuzz-crashes/$T"
  mkdir -p "$CORPUS" "$CRASH"
  LOG="$B/fuzz-corpus/$T.log"
  # The rewrite fuzzer also starts from every rule test (read, never written:
  # libFuzzer adds new inputs to the first folder only).
  EXTRA=""; [ "$T" = FuzzRewrite ] && EXTRA="$ROOT/test/Rules"
  # Regressions first: every input that once crashed must run clean.
  if [ -d "$ROOT/fuzz/regressions/$T" ] && ls "$ROOT/fuzz/regressions/$T"/* >/dev/null 2>&1; then
    if ! "$BIN" "$ROOT/fuzz/regressions/$T"/* >"$LOG.regress" 2>&1; then
      echo "fuzz: $T: a regression input crashes again (see $LOG.regress)"; status=1; continue
    fi
  fi
  "$BIN" -max_total_time="$SECS" -timeout=30 -rss_limit_mb=4096 -max_len=65536 \
    -close_fd_mask=3 -artifact_prefix="$CRASH/" "$CORPUS" "$ROOT/fuzz/seeds/$T" $EXTRA >"$LOG" 2>&1
  rc=$?
  execs=$(sed -n 's/.*stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$LOG" | tail -1)
  [ -z "$execs" ] && execs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$LOG" | tail -1)
  [ -z "$execs" ] && execs=$(grep -o '^#[0-9]*' "$LOG" | tail -1 | tr -d '#')
  if [ $rc -eq 0 ]; then res=ok; else res="FAILED ($(ls "$CRASH" | head -1))"; status=1; fi
  printf '%-18s %8s %10s %s\n' "$T" "$SECS" "${execs:-?}" "$res"
done
exit $status
