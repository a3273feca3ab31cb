#!/usr/bin/env bash
# utils/add-rule.py writes a rule that builds and whose generated test
# passes: on a copy of this source tree (the files git knows, with their
# uncommitted changes), add a rule, build cuda-l1-rewrite in a scratch
# folder, run the rule's generated lit test against it, and generate its
# docs page. Run by utils/check.sh (skip with CUDAL1_SKIP_ADD_RULE_TEST=1).
# The scratch tree lives under the build folder and is built in its own
# build/ subfolder: with ccache and a CCACHE_BASEDIR above both trees (the
# default: this checkout, as utils/build.sh sets it), every compile command
# of an unchanged file is the same as in the main build, so only the new
# rule, its module and the files that include the generated Config.h (which
# names the source folder) are compiled.
#
#   utils/test-add-rule.sh [build-dir]      (default: $CUDAL1_BUILD_DIR or build/)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="$(cd "${1:-${CUDAL1_BUILD_DIR:-$ROOT/build}}" && pwd)"
T="$BUILD/add-rule-test"
SRC="$T/src"
SB="$SRC/build"
RULE=memory-add-rule-probe
rm -rf "$SRC" && mkdir -p "$SRC"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
   while IFS= read -r -d '' f; do
     [ -e "$f" ] && mkdir -p "$SRC/$(dirname "$f")" && cp -p "$f" "$SRC/$f"
   done)
python3 "$SRC/utils/add-rule.py" memory "$RULE" --root "$SRC"
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$ROOT}"
cmake -G Ninja -S "$SRC" -B "$SB" -DCMAKE_BUILD_TYPE=Release > "$T/cmake.log" 2>&1 ||
  { cat "$T/cmake.log"; exit 1; }
ninja -C "$SB" -j "${CUDAL1_JOBS:-$(nproc)}" cuda-l1-rewrite
LIT="$(command -v lit-22 || command -v lit || echo /usr/lib/llvm-22/build/utils/lit/lit.py)"
"$LIT" -v "$SB/test/Rules/memory/$RULE.cu"
"$SB/bin/cuda-l1-rewrite" --list-rules | grep "^ *$RULE " > /dev/null # not -q: an early exit would SIGPIPE the tool under pipefail
python3 "$SRC/utils/gen-rule-docs.py" --tool "$SB/bin/cuda-l1-rewrite" --out "$T/docs" > /dev/null
grep -q "## What it detects" "$T/docs/$RULE.md"
echo "test-add-rule: PASS ($RULE added, built, its test passed, docs/rules/$RULE.md written)"
