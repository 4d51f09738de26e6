#!/usr/bin/env bash
# The solver bench (docs/bots.md, "How deep thue solve gets"): `thue solve --k 5
# --max-depth D` from [0] (square) for each depth D, one fresh process each, beside the
# figures of the independent solver quoted in the issue that asked for a deeper solve
# (iterative deepening on the cap, memo on canonical words; on this project's 2-core
# machine: painter >= 17 in 69 s, >= 18 in 236 s, >= 19 in 1,105 s).
#
#   bash scripts/bench-solve.sh                          # depths 17,18,19, a thread per core
#   bash scripts/bench-solve.sh --depths 15,16 --threads 1 --hash 1024
#   bash scripts/bench-solve.sh --thue build/clients/cli/thue
#
# Prints one row per depth: the reference's seconds ("-" where it has none), ours, the
# ratio reference/ours, the target (17: 30 s, 18: 90 s, 19: 400 s) and whether it is met,
# and the main thread's nodes, the nodes of all threads and the table's positions, from
# `thue solve --json`. Absolute times vary up to 3x from day to day on a shared machine:
# compare ratios taken in one run, and run deep figures on a quiet machine.
set -euo pipefail

depths=17,18,19
threads=$(nproc 2>/dev/null || echo 1)
hash=""
thue=""
while [ $# -gt 0 ]; do
    case "$1" in
    --depths | --threads | --hash | --thue)
        [ $# -ge 2 ] || { echo "bench-solve.sh: $1 needs a value (--help)" >&2; exit 2; } ;;
    esac
    case "$1" in
    --depths) depths="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --hash) hash="$2"; shift 2 ;;
    --thue) thue="$2"; shift 2 ;;
    -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-solve.sh: unknown argument '$1' (--help)" >&2; exit 2 ;;
    esac
done
case "$depths" in *[!0-9,]* | "") echo "bench-solve.sh: --depths is a list like 17,18,19" >&2; exit 2 ;; esac
case "$threads" in *[!0-9]* | "") echo "bench-solve.sh: --threads is a number" >&2; exit 2 ;; esac
case "$hash" in *[!0-9]*) echo "bench-solve.sh: --hash is a number of MB" >&2; exit 2 ;; esac
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ -z "$thue" ]; then
    for c in "$root/build/clients/cli/thue" "$root/../build/clients/cli/thue"; do
        [ -x "$c" ] && thue="$c" && break
    done
fi
if [ -z "$thue" ] || [ ! -x "$thue" ]; then
    echo "bench-solve.sh: no thue binary; build first or pass --thue PATH" >&2
    exit 2
fi

ref_s() { case "$1" in 17) echo 69 ;; 18) echo 236 ;; 19) echo 1105 ;; *) echo - ;; esac; }
target_s() { case "$1" in 17) echo 30 ;; 18) echo 90 ;; 19) echo 400 ;; *) echo - ;; esac; }

hashopt=()
[ -n "$hash" ] && hashopt=(--hash "$hash")
echo "thue solve --k 5 --max-depth D (square, root 0), threads $threads, hash ${hash:-default} MB; $(nproc) cores"
printf '%-6s %8s %9s %7s %7s %-8s %14s %14s %12s\n' depth ref_s ours_s ratio target met nodes all_nodes states
IFS=, read -r -a list <<<"$depths"
for d in "${list[@]}"; do
    err="$(mktemp)"
    t0=$(date +%s.%N)
    out="$("$thue" solve --k 5 --max-depth "$d" --threads "$threads" "${hashopt[@]}" --json 2>"$err")"
    t1=$(date +%s.%N)
    # nodes of the main thread: the last progress line on stderr
    main_nodes="$(grep -o '[0-9]* nodes' "$err" | tail -1 | cut -d' ' -f1)"
    rm -f "$err"
    all_nodes="$(sed 's/.*"nodes":\([0-9]*\).*/\1/' <<<"$out")"
    states="$(sed 's/.*"states":\([0-9]*\).*/\1/' <<<"$out")"
    value="$(sed 's/.*"value":\([0-9]*\).*/\1/' <<<"$out")"
    ours="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')"
    ref="$(ref_s "$d")"
    tgt="$(target_s "$d")"
    ratio=-
    [ "$ref" != - ] && ratio="$(awk -v r="$ref" -v o="$ours" 'BEGIN { printf "%.1f", r / o }')"
    met=-
    [ "$tgt" != - ] && met="$(awk -v t="$tgt" -v o="$ours" 'BEGIN { print (o < t ? "met" : "not met") }')"
    [ "$value" -ge "$d" ] || met="$met (value $value)"
    printf '%-6s %8s %9s %7s %7s %-8s %14s %14s %12s\n' "$d" "$ref" "$ours" "$ratio" "$tgt" "$met" \
        "$main_nodes" "$all_nodes" "$states"
done
