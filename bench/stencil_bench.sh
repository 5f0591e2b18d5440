# Sourced by the stencil timing scripts (mmparse_vs_scipy.sh, spy_reopen.sh): their common options,
# the program checks, the machine line and the median timer. Not a script of its own.

# Sets cli, bench, grid, runs, keep (and threads where the caller set accepts_threads=1) from the
# options; $1 is the caller's name for its error messages, $2 its default grid.
parse_stencil_options() {
    local name=$1
    cli=build/app/spyglass-cli
    bench=build/bench/bench_mmparse
    grid=$2
    runs=3
    threads=
    keep=0
    shift 2
    while [ $# -gt 0 ]; do
        case "$1" in
            --cli) cli=$2; shift 2 ;;
            --bench) bench=$2; shift 2 ;;
            --grid) grid=$2; shift 2 ;;
            --runs) runs=$2; shift 2 ;;
            --threads) [ "${accepts_threads:-0}" = 1 ] || { echo "$name: unknown argument $1" >&2; exit 2; }
                       threads=$2; shift 2 ;;
            --keep) keep=1; shift ;;
            *) echo "$name: unknown argument $1" >&2; exit 2 ;;
        esac
    done
    for program in "$cli" "$bench"; do
        [ -x "$program" ] || { echo "$name: $program is not an executable (see --cli, --bench)" >&2; exit 2; }
    done
}

machine_line() {
    echo "machine: $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); $(date -u +%Y-%m-%dT%H:%MZ)"
}

# Median wall seconds of a command over $runs runs after one warm-up (which also fills the page cache).
median_seconds() {
    local times=()
    for ((r = 0; r <= runs; r++)); do
        local start end
        start=$(date +%s.%N)
        "$@" > /dev/null
        end=$(date +%s.%N)
        [ "$r" -gt 0 ] && times+=("$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')")
    done
    printf '%s\n' "${times[@]}" | sort -g | sed -n "$(((runs + 1) / 2))p"
}
