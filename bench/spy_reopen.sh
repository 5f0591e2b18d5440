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
# Every encoding: the real stencil as segdia and (valued) hybrid; the same stencil as a pattern (its
# values dropped) as binary hybrid; and, since bit-flag cannot hold a stencil this size (rows x cols
# bits), an 8000 x 8000 matrix with 400 random entries a row as bit-flag. Each against its own text.
#
# A wrong reopen (an export whose y = A x differs from its text's) ends the script with an error.
#
# Two figures per file: the whole command (process start included: loading Qt, the CUDA libraries,
# OpenCV and HDF5, the same for every file) and its read phase alone (SPYGLASS_TIMINGS=1), which is
# what reopening costs inside a running Spyglass. Each ratio is to its text's figure (the row above it
# labelled without .spy).
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/stencil_bench.sh"
parse_stencil_options spy_reopen 120 "$@"

base=${TMPDIR:-/tmp}/spyglass_reopen_${grid}
cleanup() {
    rm -f "$base-export.err" "$base-y-text.txt" "$base-y-export.txt"
    [ "$keep" = 1 ] || rm -f "$base.mtx" "$base-segdia.spy" "$base-hybrid.spy" "$base-pattern.mtx" "$base-pattern-hybrid.spy" \
        "$random.mtx" "$random-bitflag.spy"
}
random=${TMPDIR:-/tmp}/spyglass_reopen_random8000
trap cleanup EXIT

machine_line
[ -f "$base.mtx" ] || "$bench" --stencil "$grid" "$base.mtx"
# export TEXT FORMAT OUT: its messages are shown only when it fails (a missing library, a full disk):
# set -e alone would end the script without a word.
export_as() {
    [ -f "$3" ] || "$cli" export "$1" --format "$2" -o "$3" > /dev/null 2> "$base-export.err" ||
        { cat "$base-export.err" >&2; echo "spy_reopen: the $2 export of $1 failed" >&2; exit 1; }
}
export_as "$base.mtx" segdia "$base-segdia.spy"
export_as "$base.mtx" hybrid "$base-hybrid.spy"
# The stencil's pattern (values dropped): a binary hybrid export.
[ -f "$base-pattern.mtx" ] || awk 'NR == 1 { sub("real", "pattern"); print; next } /^%/ { print; next }
    !size { print; size = 1; next } { print $1, $2 }' "$base.mtx" > "$base-pattern.mtx"
export_as "$base-pattern.mtx" hybrid "$base-pattern-hybrid.spy"
# 8000 x 8000, 400 random entries a row (3.2 M, a fixed seed): bit-flag holds it (8 MB of flags).
[ -f "$random.mtx" ] || awk 'BEGIN { srand(7); n = 8000; k = 400; print "%%MatrixMarket matrix coordinate real general"
    print n, n, n * k; for (i = 1; i <= n; i++) for (t = 0; t < k; t++) print i, int(rand() * n) + 1, rand() }' > "$random.mtx"
export_as "$random.mtx" bitflag "$random-bitflag.spy"

# A reopened export must be its text's matrix: y = A x for the same random x, on the CPU, from both
# files, the same to the last digit (both decode to the same entries in the same order) - otherwise
# the script ends with an error instead of a table.
same_matrix() {
    local text_y=$base-y-text.txt export_y=$base-y-export.txt
    "$cli" spmv "$1" --format csr --backend cpu --x random --seed 3 --out "$text_y" > /dev/null 2>&1 &&
        "$cli" spmv "$2" --format csr --backend cpu --x random --seed 3 --out "$export_y" > /dev/null 2>&1 ||
        { echo "spy_reopen: spmv on $1 or $2 failed" >&2; exit 1; }
    cmp -s "$text_y" "$export_y" || { echo "spy_reopen: $2 does not reopen as the matrix of $1 (y = A x differs)" >&2; exit 1; }
    rm -f "$text_y" "$export_y"
}
same_matrix "$base.mtx" "$base-segdia.spy"
same_matrix "$base.mtx" "$base-hybrid.spy"
same_matrix "$base-pattern.mtx" "$base-pattern-hybrid.spy"
same_matrix "$random.mtx" "$random-bitflag.spy"

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
# rows TEXT LABEL FILE:NAME...: the text's row, then each export's row with its ratios to the text.
rows() {
    local text_file=$1 label=$2; shift 2
    local text text_read
    text=$(median_seconds "$cli" info "$text_file")
    text_read=$(median_read_phase "$text_file")
    printf '%-28s %5s MB  %.3f s  1.00x    %.3f s  1.00x\n' "info ($label)" "$(($(stat -L -c %s "$text_file") / 1000000))" \
        "$text" "$text_read"
    for pair in "$@"; do
        local file=${pair%%:*} name=${pair#*:} t r
        t=$(median_seconds "$cli" info "$file")
        r=$(median_read_phase "$file")
        printf '%-28s %5s MB  %.3f s  %s    %.3f s  %s\n' "info (.spy, $name)" "$(($(stat -L -c %s "$file") / 1000000))" \
            "$t" "$(ratio "$t" "$text")" "$r" "$(ratio "$r" "$text_read")"
    done
}
rows "$base.mtx" "Matrix Market" "$base-segdia.spy:segdia" "$base-hybrid.spy:hybrid"
rows "$base-pattern.mtx" "pattern stencil" "$base-pattern-hybrid.spy:binary hybrid"
rows "$random.mtx" "random 8000^2" "$random-bitflag.spy:bitflag"
