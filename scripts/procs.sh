# procs.sh: stopping and watching the processes a bench started (sourced by
# scripts/bench-cluster.sh and scripts/bench-100k.sh).

# stop_pids WHO SECONDS PID...: SIGTERM to every PID, then waits for each; one still
# running after SECONDS gets SIGKILL (WHO: the script's name and what the PIDs are, for
# the message).
stop_pids() {
  local who=$1 secs=$2 p i
  shift 2
  for p in "$@"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "$@"; do
    for i in $(seq 1 $((secs * 20))); do
      kill -0 "$p" 2>/dev/null || break
      sleep 0.05
    done
    if kill -0 "$p" 2>/dev/null; then
      echo "$who $p did not stop in $secs s after SIGTERM: killing it" >&2
      kill -KILL "$p" 2>/dev/null || true
    fi
    wait "$p" 2>/dev/null || true
  done
}

# all_alive PID...: 0 when every PID still runs.
all_alive() {
  local p
  for p in "$@"; do kill -0 "$p" 2>/dev/null || return 1; done
}
