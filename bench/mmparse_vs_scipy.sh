#!/usr/bin/env bash
# Times `spyglass-cli info` against scipy.io.mmread on the same file in one run (issue 16's target:
# ours within 1.5x of scipy on a 16-core machine). The file is generated here, on the machine that
# runs the benchmark (1.1 GB for the default grid: never ship it), then deleted.
#
#   bench/mmparse_vs_scipy.sh [--cli PATH] [--bench PATH] [--grid N] [--runs R] [--threads T] [--keep]
#
# --cli / --bench: spyglass-cli and bench_mmparse (default build/app/spyglass-cli, build/bench/bench_mmparse).
# --grid N: the 3-D 7-point stencil of an N^3 grid; 160 (default) = 4.1 M rows, 28.5 M nonzeros, 1.1 GB.
# --runs R: timed runs of each reader after one warm-up (default 3), the median is reported.
# --threads T: passed to spyglass-cli --threads (default: every core).
# Without python3 + scipy the script says so and still times ours.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/stencil_bench.sh"
accepts_threads=1
parse_stencil_options mmparse_vs_scipy 160 "$@"

file=${TMPDIR:-/tmp}/spyglass_stencil_${grid}.mtx
cleanup() { [ "$keep" = 1 ] || rm -f "$file"; }
trap cleanup EXIT

machine_line
"$bench" --stencil "$grid" "$file"
bytes=$(stat -c %s "$file")
echo "file: $file, $((bytes / 1000000)) MB"
cat "$file" > /dev/null  # both readers start from the page cache

ours_args=()
[ -n "$threads" ] && ours_args=(--threads "$threads")
ours=$(median_seconds "$cli" "${ours_args[@]}" info "$file")
printf 'spyglass-cli info      : %.3f s, %.0f MB/s (median of %d)\n' "$ours" "$(awk -v b="$bytes" -v t="$ours" 'BEGIN { print b / 1e6 / t }')" "$runs"
# One more run with the phase breakdown (SPYGLASS_TIMINGS=1 prints "timing PHASE SECONDS" to stderr),
# so a slow machine's figures show where the time goes.
phases=$(mktemp)
start=$(date +%s.%N)
SPYGLASS_TIMINGS=1 "$cli" "${ours_args[@]}" info "$file" 2> "$phases" | sed -n '2p;6,7p' || { cat "$phases" >&2; exit 1; }
end=$(date +%s.%N)
sed 's/^timing /  phase /' "$phases"
awk -v a="$start" -v b="$end" '/^timing/ { sum += $3 } END { printf "  whole process %.3f s, of which outside the phases (start-up, output, exit) %.3f s\n", b - a, b - a - sum }' "$phases"
rm -f "$phases"

if ! command -v python3 > /dev/null; then
    echo "scipy.io.mmread        : not measured (no python3 on this machine)"
    exit 0
fi
if ! python3 -c 'import scipy.io' 2> /dev/null; then
    echo "scipy.io.mmread        : not measured (python3 has no scipy here: apt install python3-scipy, or pip install scipy)"
    exit 0
fi
# Timed inside python, so the interpreter's start and scipy's import are not counted against scipy.
theirs=$(python3 - "$file" "$runs" <<'PY'
import statistics, sys, time
import scipy.io
path, runs = sys.argv[1], int(sys.argv[2])
times = []
for r in range(runs + 1):
    start = time.perf_counter()
    m = scipy.io.mmread(path)
    if r > 0:
        times.append(time.perf_counter() - start)
assert m.nnz > 0
print(statistics.median(times), m.shape[0], m.shape[1], m.nnz)
PY
)
# Both readers must have read the same matrix: shape and entry count (scipy expands symmetric storage,
# as Spyglass's "nnz" does; its "stored" counts the file's lines).
read -r theirs srows scols snnz <<< "$theirs"
ours_json=$("$cli" "${ours_args[@]}" info --json "$file")
same=$(python3 -c 'import json,sys; o=json.loads(sys.argv[1]); print(int(o["rows"]==int(sys.argv[2]) and o["cols"]==int(sys.argv[3]) and int(sys.argv[4]) in (o["nnz"], o["stored"])))' "$ours_json" "$srows" "$scols" "$snnz")
if [ "$same" != 1 ]; then
    echo "the two readers disagree: scipy $srows x $scols with $snnz entries; spyglass-cli info: $ours_json" >&2
    exit 1
fi
printf 'same matrix            : %s x %s, %s entries in both readers\n' "$srows" "$scols" "$snnz"
version=$(python3 -c 'import scipy; print(scipy.__version__)')
fmm=$(python3 -c 'import fast_matrix_market; print("with fast_matrix_market", fast_matrix_market.__version__)' 2> /dev/null || echo "without fast_matrix_market")
printf 'scipy.io.mmread        : %.3f s, %.0f MB/s (median of %d; scipy %s, %s)\n' "$theirs" \
    "$(awk -v b="$bytes" -v t="$theirs" 'BEGIN { print b / 1e6 / t }')" "$runs" "$version" "$fmm"
ratio=$(awk -v a="$ours" -v b="$theirs" 'BEGIN { print a / b }')
met=$(awk -v r="$ratio" 'BEGIN { print (r <= 1.5) ? "yes" : "no" }')
printf 'ratio ours / scipy     : %.2fx (target <= 1.5x: %s)\n' "$ratio" "$met"
