#!/usr/bin/env bash
# Runs the libFuzzer targets (tests/fuzz/) for a while each: the protocol decoder, the
# lobby (message sequences from several connections), the repetition checks (insertion
# check vs full check vs a naive rescan), the word parser, the bot SPEC parser, every
# game behind server/games/game.h (options, positions and moves against its promises)
# and the proof checker of thue verify-proof (against a naive verifier).
#
#   scripts/fuzz.sh [--time S] [--jobs N] [TARGET...]
#
#   TARGET     protocol, lobby, repetition, word_parse, bot_spec, games or verify_proof
#              (default: all seven)
#   --time S   seconds per target (default 60); the test command runs 20-30 s each, a
#              long run is, say, --time 3600 (an hour per target)
#   --jobs N   N fuzzing processes per target (libFuzzer's -fork=N), default 1
#
# Builds build-fuzz/ with clang (ASan + UBSan + libFuzzer; needs clang and
# libclang-rt-14-dev, which scripts/test.sh installs). Each target keeps its corpus in
# build-fuzz/corpus-TARGET, so later runs start from what earlier ones found; a finding
# is written to build-fuzz/artifacts/ and the script exits 1 with the reproducer's path
# (replay it with build-fuzz/tests/fuzz/fuzz_TARGET FILE). Prints one line per target.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; }

time_s=60
jobs=1
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time) time_s="${2:-}"; shift 2 ;;
    --time=*) time_s="${1#--time=}"; shift ;;
    --jobs) jobs="${2:-}"; shift 2 ;;
    --jobs=*) jobs="${1#--jobs=}"; shift ;;
    -h|--help) usage; exit 0 ;;
    protocol|lobby|repetition|word_parse|bot_spec|games|verify_proof) targets+=("$1"); shift ;;
    *) echo "fuzz.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
[[ "$time_s" =~ ^[1-9][0-9]{0,6}$ ]] || { echo "fuzz.sh: --time takes seconds (1..9999999), not '$time_s'" >&2; exit 2; }
[[ "$jobs" =~ ^[1-9][0-9]{0,2}$ ]] || { echo "fuzz.sh: --jobs takes 1..999, not '$jobs'" >&2; exit 2; }
[ ${#targets[@]} -gt 0 ] || targets=(protocol lobby repetition word_parse bot_spec games verify_proof)
command -v clang >/dev/null || { echo "fuzz.sh: needs clang and libclang-rt-14-dev (apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }

names=()
for t in "${targets[@]}"; do names+=("fuzz_$t"); done
CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTHUE_FUZZ=ON \
      -DTHUE_TESTS=OFF >/dev/null
cmake --build build-fuzz -j"$(nproc 2>/dev/null || echo 2)" --target "${names[@]}" >/dev/null
mkdir -p build-fuzz/artifacts

for t in "${targets[@]}"; do
  corpus="build-fuzz/corpus-$t"
  mkdir -p "$corpus"
  # Seeds: the protocol's golden messages; the lobby's hand-written session.
  case "$t" in
    protocol) python3 tests/fuzz/protocol_corpus.py "$corpus" tests/vectors/protocol.jsonl ;;
    lobby) cp tests/fuzz/lobby_seed.txt "$corpus/seed.txt" ;;
    games) cp tests/fuzz/games_seed/* "$corpus/" ;;
    verify_proof) cp tests/fuzz/proof_seed/* "$corpus/" ;;
  esac
  log="build-fuzz/fuzz_$t.log"
  args=(-max_total_time="$time_s" -print_final_stats=1 -artifact_prefix="build-fuzz/artifacts/$t-")
  # Inputs up to 4 KiB for the message parsers: longer messages are unit tests, and
  # shorter inputs give many more executions.
  case "$t" in protocol|lobby|games|verify_proof) args+=(-max_len=4096) ;; esac
  [ "$jobs" -gt 1 ] && args+=(-fork="$jobs" -ignore_crashes=0)
  if ! "build-fuzz/tests/fuzz/fuzz_$t" "${args[@]}" "$corpus" >"$log" 2>&1; then
    tail -n 60 "$log"
    found=$(ls -t build-fuzz/artifacts/"$t"-* 2>/dev/null | head -n 1 || true)
    echo "fuzz_$t found a problem: reproducer ${found:-(see the log)}; whole log: $log"
    exit 1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | awk '{s += $NF} END {if (NR) print s}' || true)
  [ -n "$runs" ] || runs=$(grep -o '^#[0-9]*' "$log" | tail -n 1 | tr -d '#' || true)
  echo "fuzz_$t: ${runs:-?} executions in ${time_s} s, corpus $(ls "$corpus" | wc -l) inputs, no findings"
done
