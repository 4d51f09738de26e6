#!/usr/bin/env bash
# A whole cluster on this machine with one command: PostgreSQL and Redis (throw-away,
# through scripts/services.sh), three thue-server nodes n1 n2 n3 on free loopback ports,
# and HAProxy in front of them (its configuration from scripts/haproxy-config.sh, the
# same text as deploy/haproxy/haproxy.cfg). docs/operations.md, "Several nodes".
#
#   bash scripts/cluster.sh [start] [options]   start it (the default); prints the address
#   bash scripts/cluster.sh status [--dir DIR]  each node's /healthz through the balancer
#   bash scripts/cluster.sh drain NODE [--dir DIR]
#                                  SIGTERM to one node: it drains (running matches go
#                                  on for up to 30 s, nobody new is sent to it) and exits;
#                                  "start" brings it back (after an upgrade, say)
#   bash scripts/cluster.sh stop [--dir DIR]    stop everything (nodes drain first)
#   bash scripts/cluster.sh --help
#
# Options of start:
#   --dir DIR        where everything lives: logs, pid files, the databases (default
#                    ${TMPDIR:-/tmp}/thue-cluster-USER); status, drain and stop need the same
#   --port N         the balancer's port (default 8090)
#   --standalone-db  no PostgreSQL and no Redis: each node its own SQLite file in DIR
#                    (a testing mode: the balancer, routing and draining only; the nodes
#                    share nothing, so a player sees only the node it reached)
#   --server PATH    the thue-server binary (default build/server/thue-server, built with
#                    scripts/build.sh when missing)
#   --build          rebuild build/ with scripts/build.sh first (only what changed)
#
# Start is idempotent: when the whole cluster already runs it says so; when only nodes
# are missing (drained, crashed) it starts those again on their ports; otherwise it
# stops what is left and starts afresh. Every wait is bounded and names what did not
# come up.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)

usage() { sed -n '2,30p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
die() { echo "cluster.sh: $*" >&2; exit 1; }
say() { echo "cluster.sh: $*"; }

NODES=(n1 n2 n3)
DRAIN_S=30

cmd=start
case ${1:-} in
  start|stop|status|drain) cmd=$1; shift ;;
  -h|--help|help) usage; exit 0 ;;
  ""|-*) ;;
  *) echo "cluster.sh: unknown command '$1' (start, status, drain, stop; --help)" >&2; exit 2 ;;
esac

drain_node=""
if [ "$cmd" = drain ]; then
  [ $# -ge 1 ] && [ "${1:0:1}" != "-" ] || { echo "cluster.sh: drain needs a node name (${NODES[*]})" >&2; exit 2; }
  drain_node=$1; shift
fi

dir="${TMPDIR:-/tmp}/thue-cluster-$(id -un)"
port=8090
standalone=0
server=""
build=0
need() { [ $# -ge 2 ] && [ -n "$2" ] && [ "${2:0:2}" != "--" ] || { echo "cluster.sh: $1 needs a value" >&2; exit 2; }; }
only_start() { [ "$cmd" = start ] || { echo "cluster.sh: $1 is an option of start" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --dir) need "$@"; dir=$2; shift 2 ;;
    --dir=*) dir=${1#*=}; shift ;;
    --port) only_start "$1"; need "$@"; port=$2; shift 2 ;;
    --port=*) only_start --port; port=${1#*=}; shift ;;
    --standalone-db) only_start "$1"; standalone=1; shift ;;
    --server) only_start "$1"; need "$@"; server=$2; shift 2 ;;
    --server=*) only_start --server; server=${1#*=}; shift ;;
    --build) only_start "$1"; build=1; shift ;;
    *) echo "cluster.sh: unknown option '$1' (--help)" >&2; exit 2 ;;
  esac
done
[[ $port =~ ^[0-9]{1,5}$ ]] && [ "$((10#$port))" -ge 1 ] && [ "$((10#$port))" -le 65535 ] ||
  { echo "cluster.sh: --port $port: 1..65535" >&2; exit 2; }
port=$((10#$port))
# Only start makes the directory; the other commands find nothing in a missing one.
[ "$cmd" = start ] && mkdir -p "$dir"
[ -d "$dir" ] && dir=$(cd "$dir" && pwd)

# ---- helpers ------------------------------------------------------------------------------

# A process of the pid file runs: it exists and is not a zombie (a node killed with -9
# stays one until init reaps it, which a busy machine may take a while to do).
alive() {
  [ -f "$1" ] || return 1
  local p st
  p=$(cat "$1")
  kill -0 "$p" 2>/dev/null || return 1
  st=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -c1)
  [ "$st" != Z ]
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

port_free() {
  python3 - "$1" <<'EOF'
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)
EOF
}

# GET URL: prints "CODE BODY" (CODE 000 when nothing answers), within 3 s.
http_get() {
  local out code
  out=$(curl -s -m 3 -w '\n%{http_code}' "$1" 2>/dev/null) || true
  code=${out##*$'\n'}
  [ -n "$code" ] || code=000
  printf '%s %s\n' "$code" "${out%$'\n'*}"
}

# Waits until a node listens and answers /healthz on its own port: at most 30 s.
wait_node() {
  local n=$1 p
  p=$(cat "$dir/$n.port")
  for _ in $(seq 1 150); do
    if ! alive "$dir/$n.pid"; then
      tail -n 20 "$dir/$n.log" >&2
      if grep -q 'cannot open postgres://' "$dir/$n.log"; then
        die "node $n exited at start: this thue-server has no PostgreSQL store yet; try --standalone-db (log: $dir/$n.log)"
      fi
      die "node $n exited at start (log: $dir/$n.log)"
    fi
    [ "$(http_get "http://127.0.0.1:$p/healthz" | cut -d' ' -f1)" = 200 ] && return 0
    sleep 0.2
  done
  tail -n 20 "$dir/$n.log" >&2
  die "node $n did not answer /healthz on 127.0.0.1:$p within 30 s (log: $dir/$n.log)"
}

start_node() {
  local n=$1 p
  if [ -f "$dir/$n.port" ]; then p=$(cat "$dir/$n.port"); else p=$(free_port); echo "$p" >"$dir/$n.port"; fi
  local db=(--db "$dir/$n.db")
  if [ "$(cat "$dir/mode")" = postgres ]; then
    # The cluster secret by its file's path (its content is on no command line and in no
    # environment).
    db=(--db "$(cat "$dir/pg.url")" --redis "$(cat "$dir/redis.url")"
        --cluster-secret-file "$dir/cluster.secret")
  fi
  # setsid: the nodes outlive this script and the terminal it ran in. Redis's password
  # goes by the environment, never on a command line (ps shows those).
  local envs=()
  [ "$(cat "$dir/mode")" = postgres ] && [ -s "$dir/redis.pass" ] && envs=("THUE_REDIS_PASSWORD=$(cat "$dir/redis.pass")")
  env "${envs[@]}" setsid "$(cat "$dir/server")" --node "$n" --port "$p" --bind 127.0.0.1 "${db[@]}" \
    --drain-s "$DRAIN_S" --trusted-proxy 127.0.0.1 --log-level info \
    --web-root "$root/clients/web" >"$dir/$n.log" 2>&1 </dev/null &
  echo $! >"$dir/$n.pid"
}

# Waits until the balancer reaches every node through its prefix: at most 15 s.
wait_balancer() {
  local n r
  for n in "${NODES[@]}"; do
    for _ in $(seq 1 75); do
      alive "$dir/haproxy.pid" || { tail -n 20 "$dir/haproxy.log" >&2; die "HAProxy exited (log: $dir/haproxy.log)"; }
      r=$(http_get "http://127.0.0.1:$port/n/$n/healthz")
      [ "${r%% *}" = 200 ] && [[ $r == *"\"node\":\"$n\""* ]] && continue 2
      sleep 0.2
    done
    die "the balancer does not reach $n: http://127.0.0.1:$port/n/$n/healthz answered ${r%% *} after 15 s (logs: $dir/haproxy.log, $dir/$n.log)"
  done
}

# Stops a process by its pid file: SIGTERM, then at most `secs` seconds, then SIGKILL.
stop_pid() {
  local file=$1 what=$2 secs=$3 pid
  alive "$file" || { rm -f "$file"; return 0; }
  pid=$(cat "$file")
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 $((secs * 5))); do
    kill -0 "$pid" 2>/dev/null || { rm -f "$file"; return 0; }
    sleep 0.2
  done
  echo "cluster.sh: $what did not stop within $secs s: killed" >&2
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$file"
}

stop_all() {
  local n
  # The nodes first (they drain: up to DRAIN_S for running matches), in parallel; the
  # balancer after them, so that their players can finish; the databases last, so
  # that the nodes' last records are written.
  for n in "${NODES[@]}"; do stop_pid "$dir/$n.pid" "node $n" $((DRAIN_S + 10)) & done
  wait
  stop_pid "$dir/haproxy.pid" HAProxy 10
  bash scripts/services.sh stop "$dir" >/dev/null 2>&1 || echo "cluster.sh: stopping PostgreSQL/Redis in $dir failed" >&2
  rm -f "$dir"/*.port "$dir/mode" "$dir/server"
}

# The EXIT trap of a start: a start that fails stops what it began.
start_failed() {
  local rc=$?
  [ $rc -eq 0 ] && return 0
  echo "cluster.sh: start failed: stopping what it started" >&2
  stop_all
  exit $rc
}

services_up() {
  [ "$(cat "$dir/mode" 2>/dev/null)" = standalone ] && return 0
  alive "$dir/redis/redis.pid" || return 1
  [ -f "$dir/pg/postmaster.pid" ] && kill -0 "$(head -n1 "$dir/pg/postmaster.pid")" 2>/dev/null
}

print_address() {
  local n
  echo "thue cluster: ${#NODES[@]} nodes ($(sed 's/postgres/PostgreSQL + Redis/; s/standalone/standalone SQLite files, no Redis/' "$dir/mode")) behind HAProxy"
  echo "  open http://localhost:$port"
  for n in "${NODES[@]}"; do
    echo "  $n: http://localhost:$port/n/$n/ (directly http://127.0.0.1:$(cat "$dir/$n.port")), log $dir/$n.log"
  done
  echo "  balancer status: http://127.0.0.1:$(cat "$dir/stats.port")/stats, log $dir/haproxy.log"
  if [ "$(cat "$dir/mode")" = postgres ]; then
    echo "  PostgreSQL $(cat "$dir/pg.url") (log $dir/pg/server.log), Redis $(cat "$dir/redis.url") (log $dir/redis/server.log)"
  fi
  echo "  bash scripts/cluster.sh status | drain NODE | stop$([ "$dir" = "${TMPDIR:-/tmp}/thue-cluster-$(id -un)" ] || echo " --dir $dir")"
}

# ---- the commands -------------------------------------------------------------------------

do_status() {
  [ -f "$dir/mode" ] || { echo "no cluster runs from $dir"; exit 3; }
  port=$(cat "$dir/balancer.port")
  local n r bad=0 status
  if alive "$dir/haproxy.pid"; then echo "balancer  http://localhost:$port  up (pid $(cat "$dir/haproxy.pid"))"
  else echo "balancer  http://localhost:$port  DOWN (log $dir/haproxy.log)"; bad=1; fi
  for n in "${NODES[@]}"; do
    r=$(http_get "http://127.0.0.1:$port/n/$n/healthz")
    status=$(sed -n 's/.*"status":"\([a-z]*\)".*/\1/p' <<<"$r")
    case ${r%% *} in
      200) echo "$n        ${r%% *} $status (pid $(cat "$dir/$n.pid" 2>/dev/null || echo ?))" ;;
      503) if [ -n "$status" ]; then echo "$n        503 $status: gets no new players; its running matches go on"
           else echo "$n        503 down (the balancer reaches no node $n; log $dir/$n.log)"; fi
           bad=1 ;;
      *) echo "$n        ${r%% *} no answer through the balancer"; bad=1 ;;
    esac
  done
  if [ "$(cat "$dir/mode")" = postgres ]; then
    if services_up; then echo "stores    PostgreSQL and Redis up"; else echo "stores    PostgreSQL or Redis DOWN (logs $dir/pg/server.log, $dir/redis/server.log)"; bad=1; fi
  fi
  exit $bad
}

do_drain() {
  [ -f "$dir/mode" ] || die "no cluster runs from $dir"
  local n ok=0
  for n in "${NODES[@]}"; do [ "$n" = "$drain_node" ] && ok=1; done
  [ $ok = 1 ] || { echo "cluster.sh: no node '$drain_node' (${NODES[*]})" >&2; exit 2; }
  alive "$dir/$drain_node.pid" || die "node $drain_node is not running"
  kill -TERM "$(cat "$dir/$drain_node.pid")"
  say "$drain_node drains: running matches go on for up to $DRAIN_S s, the balancer sends it nobody new; it exits when they end (bash scripts/cluster.sh start brings it back)"
}

do_start() {
  command -v haproxy >/dev/null 2>&1 || die "haproxy is not installed (Debian: apt-get install haproxy)"
  command -v curl >/dev/null 2>&1 || die "curl is not installed (Debian: apt-get install curl)"
  local n missing=() want=postgres
  [ $standalone = 1 ] && want=standalone

  if [ -f "$dir/mode" ]; then
    local was
    was=$(cat "$dir/mode")
    port=$(cat "$dir/balancer.port")
    for n in "${NODES[@]}"; do alive "$dir/$n.pid" || missing+=("$n"); done
    if [ "$was" = "$want" ] && alive "$dir/haproxy.pid" && services_up; then
      if [ ${#missing[@]} -eq 0 ]; then
        say "the cluster already runs"
        print_address
        return 0
      fi
      say "starting ${missing[*]} again (the rest runs)"
      for n in "${missing[@]}"; do start_node "$n"; done
      for n in "${missing[@]}"; do wait_node "$n"; done
      wait_balancer
      print_address
      return 0
    fi
    say "a cluster from $dir is partly running or in the other mode: stopping it to start afresh"
    stop_all
  fi

  port_free "$port" || die "port $port is in use (another program, or a cluster from another --dir): choose one with --port N"
  # From here on, a failure stops whatever this start began.
  trap start_failed EXIT

  if [ -z "$server" ]; then
    server=$root/build/server/thue-server
    if [ $build = 1 ] || [ ! -x "$server" ]; then
      say "building thue-server in build/ with scripts/build.sh (later starts reuse it; --build rebuilds)"
      bash scripts/build.sh
    fi
  fi
  [ -x "$server" ] || die "no thue-server at $server"
  (cd "$(dirname "$server")" && echo "$(pwd)/$(basename "$server")") >"$dir/server"

  echo "$want" >"$dir/mode"
  echo "$port" >"$dir/balancer.port"
  if [ "$want" = postgres ]; then
    local line
    line=$(bash scripts/services.sh postgres "$dir") || die "PostgreSQL did not start (log: $dir/pg/server.log)"
    echo "${line#*=}" >"$dir/pg.url"
    # Redis asks for a password of its own (made here, kept in a mode-600 file): nobody
    # else on this machine reads resume tokens or forges the nodes' events there.
    [ -s "$dir/redis.pass" ] || (umask 077 && od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$dir/redis.pass")
    line=$(THUE_REDIS_REQUIREPASS=$(cat "$dir/redis.pass") bash scripts/services.sh redis "$dir") ||
      die "Redis did not start (log: $dir/redis/server.log)"
    echo "${line#*=}" >"$dir/redis.url"
    # The cluster secret the nodes share and Redis never sees (32 random bytes as hex, in a
    # mode-600 file): they seal their messages with it and keep resume tokens in Redis
    # only under its HMAC, so whoever reads or writes Redis forges no event and steals no
    # session (docs/cluster.md, "Security"). Kept across restarts, like redis.pass.
    [ -s "$dir/cluster.secret" ] || (umask 077 && od -An -N32 -tx1 /dev/urandom | tr -d ' \n' >"$dir/cluster.secret")
  else
    rm -f "$dir"/n*.db "$dir"/n*.db-wal "$dir"/n*.db-shm
  fi

  for n in "${NODES[@]}"; do start_node "$n"; done
  for n in "${NODES[@]}"; do wait_node "$n"; done

  local stats args=()
  stats=$(free_port)
  echo "$stats" >"$dir/stats.port"
  for n in "${NODES[@]}"; do args+=("$n=127.0.0.1:$(cat "$dir/$n.port")"); done
  # maxconn: what the open-files limit allows (two descriptors per proxied connection).
  local nofile maxconn
  nofile=$(ulimit -n)
  [ "$nofile" = unlimited ] && nofile=1048576
  maxconn=$(( (nofile - 200) / 2 ))
  [ $maxconn -gt 50000 ] && maxconn=50000
  [ $maxconn -lt 100 ] && maxconn=100
  bash scripts/haproxy-config.sh --port "$port" --bind 127.0.0.1 --stats "127.0.0.1:$stats" \
    --maxconn "$maxconn" "${args[@]}" >"$dir/haproxy.cfg"
  haproxy -c -q -f "$dir/haproxy.cfg" || die "haproxy -c rejects $dir/haproxy.cfg"
  setsid haproxy -db -f "$dir/haproxy.cfg" >"$dir/haproxy.log" 2>&1 </dev/null &
  echo $! >"$dir/haproxy.pid"
  wait_balancer
  trap - EXIT
  print_address
}

case $cmd in
  start) do_start ;;
  status) do_status ;;
  drain) do_drain ;;
  stop)
    if [ -f "$dir/mode" ] || alive "$dir/haproxy.pid"; then
      say "stopping the cluster in $dir (nodes drain for up to $DRAIN_S s)"
      stop_all
      say "stopped"
    else
      say "no cluster runs from $dir"
      bash scripts/services.sh stop "$dir" >/dev/null 2>&1 || true
    fi ;;
esac
