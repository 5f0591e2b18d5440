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
#
# Two figures per file: the whole command (process start included: loading Qt, the CUDA libraries,
# OpenCV and HDF5, the same for every file) and its read phase alone (SPYGLASS_TIMINGS=1), which is
# what reopening costs inside a running Spyglass. Each ratio is to the Matrix Market file's figure.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/stencil_bench.sh"
parse_stencil_options spy_reopen 120 "$@"

base=${TMPDIR:-/tmp}/spyglass_reopen_${grid}
cleanup() { rm -f "$base-export.err"; [ "$keep" = 1 ] || rm -f "$base.mtx" "$base-segdia.spy" "$base-hybrid.spy"; }
trap cleanup EXIT

machine_line
[ -f "$base.mtx" ] || "$bench" --stencil "$grid" "$base.mtx"
for format in segdia hybrid; do
    # Its messages are shown only when it fails (a missing library, a full disk): set -e alone would
    # end the script without a word.
    [ -f "$base-$format.spy" ] || "$cli" export "$base.mtx" --format "$format" -o "$base-$format.spy" > /dev/null 2> "$base-export.err" ||
        { cat "$base-export.err" >&2; echo "spy_reopen: the $format export failed" >&2; exit 1; }
done

# Median of the read phase `spyglass-cli info FILE` reports under SPYGLASS_TIMINGS=1, over $runs runs
# after one warm-up.
median_read_phase() {
    local times=()
    for ((r = 0; r <= runs; r++)); do
        local t
        t=$(SPYGLASS_TIMINGS=1 "$cli" info "$1" 2>&1 > /dev/null | awk '$1 == "timing" && $2 == "read" { print $3 }')
        [ -n "$t" ] || { echo "spy_reopen: $cli info $1 printed no read phase" >&2; exit 1; }
        [ "$r" -gt 0 ] && times+=("$t")
    done
    printf '%s\n' "${times[@]}" | sort -g | sed -n "$(((runs + 1) / 2))p"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }

printf '%-28s %8s  %-17s %s\n' "" "size" "whole command" "read phase"
text=$(median_seconds "$cli" info "$base.mtx")
text_read=$(median_read_phase "$base.mtx")
printf '%-28s %5s MB  %.3f s  1.00x    %.3f s  1.00x\n' "info (Matrix Market)" "$(($(stat -L -c %s "$base.mtx") / 1000000))" \
    "$text" "$text_read"
for format in segdia hybrid; do
    file=$base-$format.spy
    t=$(median_seconds "$cli" info "$file")
    r=$(median_read_phase "$file")
    printf '%-28s %5s MB  %.3f s  %s    %.3f s  %s\n' "info (.spy, $format)" "$(($(stat -L -c %s "$file") / 1000000))" \
        "$t" "$(ratio "$t" "$text")" "$r" "$(ratio "$r" "$text_read")"
done
