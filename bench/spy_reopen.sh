#!/usr/bin/env bash
# Times `spyglass-cli info` on a Matrix Market file against the same matrix exported to the Spyglass
# container (issue 16: "an exported matrix reopens in a fraction of the text time"). The stencil file
# and its exports are generated here and deleted afterwards.
#
#   bench/spy_reopen.sh [--cli PATH] [--bench PATH] [--grid N] [--runs R] [--keep]
#
# --cli / --bench: spyglass-cli and bench_mmparse (default build/app/spyglass-cli, build/bench/bench_mmparse).
# --grid N: the 3-D 7-point stencil of an N^3 grid; 120 (default) = 1.7 M rows, 12 M nonzeros, 463 MB.
# --runs R: timed runs of each file after one warm-up (default 3), the median is reported.
# The bit-flag encoding cannot hold a stencil this size (rows x cols bits), so segdia and hybrid are timed.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/stencil_bench.sh"
parse_stencil_options spy_reopen 120 "$@"

base=${TMPDIR:-/tmp}/spyglass_reopen_${grid}
cleanup() { [ "$keep" = 1 ] || rm -f "$base.mtx" "$base-segdia.spy" "$base-hybrid.spy"; }
trap cleanup EXIT

machine_line
[ -f "$base.mtx" ] || "$bench" --stencil "$grid" "$base.mtx"
for format in segdia hybrid; do
    [ -f "$base-$format.spy" ] || "$cli" export "$base.mtx" --format "$format" -o "$base-$format.spy" > /dev/null 2>&1
done

text=$(median_seconds "$cli" info "$base.mtx")
printf '%-28s %8s MB  %.3f s  1.00x\n' "info (Matrix Market)" "$(($(stat -L -c %s "$base.mtx") / 1000000))" "$text"
for format in segdia hybrid; do
    file=$base-$format.spy
    t=$(median_seconds "$cli" info "$file")
    printf '%-28s %8s MB  %.3f s  %.2fx\n' "info (.spy, $format)" "$(($(stat -L -c %s "$file") / 1000000))" "$t" \
        "$(awk -v a="$t" -v b="$text" 'BEGIN { print a / b }')"
done
