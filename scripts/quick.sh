#!/usr/bin/env bash
# The quick run of scripts/test.sh (`bash scripts/test.sh --quick [MODULE...]`, see its
# --help and docs/testing.md, "Quick runs"): sourced by test.sh after its installs, it
# defines quick_run. Run directly, it hands its arguments to test.sh --quick.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  exec bash "$(dirname "$0")/test.sh" --quick "$@"
fi

# quick_module_of_path PATH: the module a changed file belongs to (tests/modules.cmake's
# modules), "" for a file no test reads (documentation), "?" for one that maps to no module
# (build files, server/base, shared test helpers): every unit test then.
quick_module_of_path() {
  case "$1" in
    server/games/thue/*) echo thue ;;
    server/games/CMakeLists.txt) echo "?" ;;
    server/games/*) echo games ;;
    server/search/*) echo search ;;
    server/lobby/*) echo lobby ;;
    server/ladder/*) echo ladder ;;
    server/store/*) echo store ;;
    server/cluster/*) echo cluster ;;
    server/net/*) echo net ;;
    server/base/* | server/CMakeLists.txt) echo "?" ;;
    server/*) echo server ;;
    protocol/* | tests/protocol/* | tests/vectors/protocol*) echo protocol ;;
    tests/vectors/* | tests/reference/*) echo thue ;;
    clients/cli/* | clients/examples/*) echo cli ;;
    clients/web/*) echo web ;;
    tests/load/* | scripts/bench*) echo load ;;
    scripts/cluster.sh | scripts/haproxy-config.sh | scripts/check-store.mjs | tests/integration/cluster*.mjs \
      | tests/integration/partition.mjs) echo cluster ;;
    deploy/* | docs/server.md) echo server ;; # integration_deploy_settings, test_config_docs
    tests/unit/*.c) echo "test:$(basename "$1" .c)" ;;
    tests/integration/*.test.mjs) echo "test:integration_$(basename "$1" .test.mjs)" ;;
    tests/e2e/*) echo web ;;
    docs/* | *.md | LICENSE* | .gitignore) echo "" ;;
    *) echo "?" ;;
  esac
}

# quick_changed_modules: the modules of the files changed since origin/main, one a line,
# and "?" when some file maps to none (or nothing changed).
quick_changed_modules() {
  local base files f m names=() out=()
  if ! base=$(git merge-base origin/main HEAD 2>/dev/null); then
    echo "test.sh: no origin/main to compare with" >&2
    echo "?"
    return
  fi
  files=$( { git diff --name-only "$base"; git ls-files --others --exclude-standard; } | sort -u)
  if [ -z "$files" ]; then
    echo "test.sh: nothing changed since origin/main" >&2
    echo "?"
    return
  fi
  while IFS= read -r f; do
    m=$(quick_module_of_path "$f")
    case "$m" in
      test:*) names+=("${m#test:}") ;;
      "") ;;
      *) out+=("$m") ;;
    esac
  done <<<"$files"
  local n
  n=$(wc -l <<<"$files")
  echo "test.sh: $n files changed since origin/main ($(git rev-parse --short "$base")): $(head -n 12 <<<"$files" | tr '\n' ' ')$([ "$n" -gt 12 ] && echo "...")" >&2
  # A test's own file: that test's module (tests/modules.cmake, by its name); a unit
  # test's helper file names no test: "?".
  if [ ${#names[@]} -gt 0 ]; then
    local line
    while IFS= read -r line; do
      m=${line#* }
      [ "$m" = "-" ] && m="?"
      out+=("$m")
    done < <(cmake -DTHUE_NAMES="$(IFS=';'; echo "${names[*]}")" -P tests/modules.cmake 2>&1)
  fi
  printf '%s\n' "${out[@]}" | sort -u
}

# quick_run JOBS LIST [MODULE...]: LIST 1 prints what would be built and run, and stops.
quick_run() {
  local jobs=$1 list=$2
  shift 2
  local t0=$SECONDS t1 known m mods=() unit=0
  known=$(cmake -P tests/modules.cmake 2>&1)
  if [ $# -eq 0 ]; then
    local changed
    changed=$(quick_changed_modules)
    while IFS= read -r m; do
      if [ -n "$m" ]; then mods+=("$m"); fi
    done <<<"$changed"
  else
    mods=("$@")
  fi
  local chosen=()
  for m in "${mods[@]}"; do
    if [ "$m" = "?" ]; then
      unit=1
    elif grep -qx -- "$m" <<<"$known"; then
      chosen+=("$m")
    else
      echo "test.sh: no module '$m'; the modules: $(tr '\n' ' ' <<<"$known")" >&2
      exit 2
    fi
  done
  [ ${#chosen[@]} -eq 0 ] && unit=1
  # PostgreSQL for the store's _pg entries, Redis for the cluster's unit tests: registered
  # only when their variables are set at configure time (tests/unit/*.cmake).
  local svcs=()
  for m in "${chosen[@]}"; do
    case "$m" in
      store) svcs+=(postgres) ;;
      cluster) svcs+=(redis) ;;
    esac
  done
  local what="${chosen[*]:-}"
  if [ "$unit" = 1 ]; then
    what="${what:+$what; }every unit test"
  fi
  echo "== quick run: $what"
  if [ ${#svcs[@]} -gt 0 ]; then
    start_services "${svcs[@]}"
  fi

  # The full run's configuration of build/ (scripts/build.sh -DTHUE_WERROR=ON), so that
  # the two share their objects.
  local out
  if ! out=$(cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DTHUE_WERROR=ON 2>&1); then
    printf '%s\n' "$out" >&2
    echo "test.sh: configuring build/ failed" >&2
    exit 1
  fi

  # The chosen tests (ctest's own list, by label) and the targets their commands run: the
  # files of build/ in each add_test() of build/'s CTestTestfile.cmake files (ctest's list
  # leaves out the command of a test whose executable is not built yet).
  local labels="" sel names targets
  if [ ${#chosen[@]} -eq 1 ]; then
    labels="^${chosen[0]}\$"
  elif [ ${#chosen[@]} -gt 1 ]; then
    labels="^($(IFS='|'; echo "${chosen[*]}"))\$"
  fi
  # shellcheck disable=SC2016 # a Python program
  sel=$(ctest --test-dir build -N --show-only=json-v1 | python3 -c '
import json, os, re, shlex, sys
labels, unit, build = sys.argv[1], sys.argv[2] == "1", os.path.realpath(sys.argv[3])
commands = {}
for root, _, files in os.walk(build):
    if "CTestTestfile.cmake" in files:
        with open(os.path.join(root, "CTestTestfile.cmake")) as f:
            for line in f:
                m = re.match(r"add_test\((\S+) (.*)\)$", line.strip())
                if m:
                    commands[m.group(1).strip("\"")] = shlex.split(m.group(2))
names, targets = [], set()
for t in json.load(sys.stdin)["tests"]:
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    mine = any(re.search(labels, l) for l in props.get("LABELS", [])) if labels else False
    if not (mine or (unit and t["name"].startswith("test_"))):
        continue
    names.append(t["name"])
    for arg in commands.get(t["name"], t.get("command", [])):
        if arg.startswith(build + "/"):
            targets.add(os.path.basename(arg))
# The Node tests find the `thue` tool next to the server (tests/integration/cli.test.mjs).
if "thue-server" in targets:
    targets.add("thue")
print(" ".join(names))
print(" ".join(sorted(targets)))
' "$labels" "$unit" build)
  names=$(sed -n 1p <<<"$sel")
  targets=$(sed -n 2p <<<"$sel")
  if [ -z "$names" ]; then
    echo "test.sh: no test is registered for ${chosen[*]} (the npm packages of tests/integration and tests/e2e?)" >&2
    exit 1
  fi
  if [ "$list" = 1 ]; then
    echo "== would build: ${targets:-nothing}"
    echo "== would run $(wc -w <<<"$names") tests:"
    fold -s -w 92 <<<"$names" | sed 's/^/   /'
    return 0
  fi
  t1=$SECONDS
  if [ -n "$targets" ]; then
    echo "== building: $targets"
    # shellcheck disable=SC2086 # target names, split on purpose
    if ! out=$(cmake --build build -j"$jobs" --target $targets 2>&1); then
      printf '%s\n' "$out" >&2
      echo "test.sh: building failed" >&2
      exit 1
    fi
  fi
  echo "   built in $((SECONDS - t1)) s"

  # By label when it can (the command to copy); with the unit tests, by their names.
  local filter
  if [ "$unit" = 1 ]; then
    filter=(-R "^($(tr ' ' '|' <<<"$names"))\$")
    echo "== $(wc -w <<<"$names") tests: ctest --test-dir build -j$jobs --output-on-failure -R '^(NAMES)\$', NAMES:"
    fold -s -w 92 <<<"$names" | sed 's/^/   /'
  else
    filter=(-L "$labels")
    echo "== $(wc -w <<<"$names") tests: ctest --test-dir build -j$jobs --output-on-failure -L '$labels'"
  fi
  t1=$SECONDS
  local rc=0
  ctest --test-dir build -j"$jobs" --output-on-failure "${filter[@]}" || rc=$?
  echo "== quick run ($what): tests $((SECONDS - t1)) s, all $((SECONDS - t0)) s$([ "$rc" = 0 ] || echo ": FAILED")"
  return "$rc"
}
