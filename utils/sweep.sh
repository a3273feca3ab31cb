#!/usr/bin/env bash
# The real-code sweep by the name issue 18 gives it: a thin wrapper over
# utils/sweep.py (which does the work; docs/reliability.md).
#   utils/sweep.sh [corpus folder (default ../shared/corpus/hecbench)] [sweep.py options...]
# The folder holds src/<program>-cuda/ folders of .cu files.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CORPUS="$(cd "$ROOT/.." && pwd)/shared/corpus/hecbench"
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then CORPUS="$1"; shift; fi
exec python3 "$ROOT/utils/sweep.py" --corpus "$CORPUS" "$@"
