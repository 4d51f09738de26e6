#!/usr/bin/env bash
# Throw-away PostgreSQL and Redis servers for the tests and scripts/cluster.sh, each in a
# directory of its own, on loopback only. Nothing here touches the machine's own
# services (the Debian packages may run a system PostgreSQL or Redis on the usual ports:
# these use free ports).
#
#   bash scripts/services.sh postgres DIR [PORT]   initdb + pg_ctl start in DIR/pg
#   bash scripts/services.sh redis DIR [PORT]      redis-server in DIR/redis
#   bash scripts/services.sh stop DIR              stops whatever of the two runs in DIR
#   bash scripts/services.sh restart-postgres DIR  pg_ctl restart (the fault tests)
#   bash scripts/services.sh restart-redis DIR     stop and start on the same port
#   bash scripts/services.sh stop-redis DIR        stop it, keeping its port
#   bash scripts/services.sh start-redis DIR       start it again (after stop-redis)
#   bash scripts/services.sh stop-postgres DIR     pg_ctl stop, keeping the data and port
#   bash scripts/services.sh start-postgres DIR    pg_ctl start again (after stop-postgres)
#   bash scripts/services.sh --help
#
# A start prints one shell line to stdout, to be eval'ed:
#   export THUE_TEST_PG=postgres://thue@127.0.0.1:PORT/thue
#   export THUE_TEST_REDIS=redis://127.0.0.1:PORT
# and writes the same line to DIR/pg.env or DIR/redis.env. PORT 0 or absent: a free one.
#
# With THUE_REDIS_REQUIREPASS=PASSWORD in the environment, Redis asks for that password
# (requirepass, in DIR/redis/redis.conf, mode 600: never on a command line); its restarts
# keep it. scripts/cluster.sh does so; the tests' Redis has none.
#
# PostgreSQL refuses to run as root: as root, the cluster runs as the user "postgres"
# (made by Debian's postgresql package) or, failing that, "nobody", and DIR is handed to
# that user. Authentication is "trust" on 127.0.0.1 only: a test cluster, never a real
# one. Durability settings are PostgreSQL's defaults (fsync and synchronous_commit on),
# so figures measured against it compare fairly with SQLite's synchronous=FULL.
set -euo pipefail

usage() { sed -n '2,/^set -euo/{/^#/p}' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

die() { echo "services.sh: $*" >&2; exit 1; }

pg_bin() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/initdb" ] && { echo "$d"; return; }
  done
  command -v initdb >/dev/null 2>&1 && { dirname "$(command -v initdb)"; return; }
  die "PostgreSQL's initdb is not installed (Debian: apt-get install postgresql)"
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Runs a command as the cluster's owner.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u "$owner" -- "$@"
  else
    "$@"
  fi
}

pick_owner() {
  owner=$(id -un)
  if [ "$(id -u)" -eq 0 ]; then
    if id postgres >/dev/null 2>&1; then owner=postgres; else owner=nobody; fi
  fi
}

start_postgres() {
  local dir=$1 port=${2:-0} bin
  bin=$(pg_bin)
  [ "$port" = 0 ] && port=$(free_port)
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  pick_owner
  if [ -f "$dir/pg/postmaster.pid" ] && as_owner "$bin/pg_ctl" -D "$dir/pg" status >/dev/null 2>&1; then
    die "a PostgreSQL already runs in $dir/pg (stop it first: services.sh stop $dir)"
  fi
  rm -rf "$dir/pg"
  mkdir -p "$dir/pg"
  # The owner must be able to reach DIR (a mktemp directory is 0700).
  chmod 755 "$dir"
  [ "$(id -u)" -eq 0 ] && chown "$owner" "$dir/pg"
  as_owner "$bin/initdb" -D "$dir/pg" -U thue --auth=trust -E UTF8 --locale=C >"$dir/pg-init.log" 2>&1 ||
    { cat "$dir/pg-init.log" >&2; die "initdb failed"; }
  as_owner "$bin/pg_ctl" -D "$dir/pg" -l "$dir/pg/server.log" -w -t 30 \
    -o "-p $port -k $dir/pg -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null ||
    { cat "$dir/pg/server.log" >&2; die "PostgreSQL did not start"; }
  as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U thue thue
  echo "$port" >"$dir/pg.port"
  local line="export THUE_TEST_PG=postgres://thue@127.0.0.1:$port/thue"
  echo "$line" >"$dir/pg.env"
  echo "$line"
}

start_redis() {
  local dir=$1 port=${2:-0}
  command -v redis-server >/dev/null 2>&1 || die "redis-server is not installed (Debian: apt-get install redis-server)"
  [ "$port" = 0 ] && port=$(free_port)
  mkdir -p "$dir/redis"
  dir=$(cd "$dir" && pwd)
  if [ -f "$dir/redis/redis.pid" ] && kill -0 "$(cat "$dir/redis/redis.pid")" 2>/dev/null; then
    die "a Redis already runs in $dir/redis (stop it first: services.sh stop $dir)"
  fi
  # A password (THUE_REDIS_REQUIREPASS), kept in a file of its own for the restarts.
  local conf="$dir/redis/redis.conf"
  if [ -n "${THUE_REDIS_REQUIREPASS:-}" ]; then
    case "$THUE_REDIS_REQUIREPASS" in
      *[\"\\]* | *$'\n'*) die "THUE_REDIS_REQUIREPASS may not hold a quote, a backslash or a line break" ;;
    esac
    (umask 077 && printf 'requirepass "%s"\n' "$THUE_REDIS_REQUIREPASS" >"$conf")
  elif [ ! -f "$conf" ]; then
    (umask 077 && : >"$conf")
  fi
  local pass
  pass=$(sed -n 's/^requirepass "\(.*\)"$/\1/p' "$conf")
  # No persistence: what Redis holds here (the directory, queues, sessions) is rebuilt by
  # the nodes after a restart, which is what the fault tests check.
  redis-server "$conf" --bind 127.0.0.1 --port "$port" --dir "$dir/redis" --daemonize yes \
    --pidfile "$dir/redis/redis.pid" --logfile "$dir/redis/server.log" \
    --save '' --appendonly no --protected-mode yes
  local i
  for i in $(seq 1 100); do
    REDISCLI_AUTH="$pass" redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && break
    sleep 0.05
  done
  REDISCLI_AUTH="$pass" redis-cli -p "$port" ping 2>/dev/null | grep -q PONG || { cat "$dir/redis/server.log" >&2; die "Redis did not start"; }
  echo "$port" >"$dir/redis.port"
  local line="export THUE_TEST_REDIS=redis://127.0.0.1:$port"
  echo "$line" >"$dir/redis.env"
  echo "$line"
}

stop_redis() {
  local dir=$1 pid i
  [ -f "$dir/redis/redis.pid" ] || return 0
  pid=$(cat "$dir/redis/redis.pid")
  kill "$pid" 2>/dev/null || true
  for i in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$dir/redis/redis.pid"
}

stop_postgres() {
  local dir=$1 bin
  [ -f "$dir/pg/postmaster.pid" ] || return 0
  bin=$(pg_bin)
  pick_owner
  as_owner "$bin/pg_ctl" -D "$dir/pg" -m fast -w -t 30 stop >/dev/null 2>&1 || true
}

cmd=${1:-}
case "$cmd" in
  -h|--help|help) usage ;;
  postgres) [ $# -ge 2 ] || die "usage: services.sh postgres DIR [PORT]"; start_postgres "$2" "${3:-0}" ;;
  redis) [ $# -ge 2 ] || die "usage: services.sh redis DIR [PORT]"; start_redis "$2" "${3:-0}" ;;
  stop)
    [ $# -ge 2 ] || die "usage: services.sh stop DIR"
    [ -d "$2" ] || exit 0
    stop_redis "$2"; stop_postgres "$2" ;;
  restart-postgres)
    [ $# -ge 2 ] || die "usage: services.sh restart-postgres DIR"
    bin=$(pg_bin); pick_owner
    as_owner "$bin/pg_ctl" -D "$2/pg" -m fast -w -t 30 restart >/dev/null ;;
  stop-postgres)
    [ $# -ge 2 ] || die "usage: services.sh stop-postgres DIR"
    stop_postgres "$2" ;;
  start-postgres)
    [ $# -ge 2 ] || die "usage: services.sh start-postgres DIR"
    [ -f "$2/pg.port" ] || die "no PostgreSQL was started in $2"
    bin=$(pg_bin); pick_owner; port=$(cat "$2/pg.port"); dir=$(cd "$2" && pwd)
    as_owner "$bin/pg_ctl" -D "$dir/pg" -l "$dir/pg/server.log" -w -t 30 \
      -o "-p $port -k $dir/pg -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null ;;
  stop-redis)
    [ $# -ge 2 ] || die "usage: services.sh stop-redis DIR"
    stop_redis "$2" ;;
  start-redis)
    [ $# -ge 2 ] || die "usage: services.sh start-redis DIR"
    [ -f "$2/redis.port" ] || die "no Redis was started in $2"
    start_redis "$2" "$(cat "$2/redis.port")" >/dev/null ;;
  restart-redis)
    [ $# -ge 2 ] || die "usage: services.sh restart-redis DIR"
    [ -f "$2/redis.port" ] || die "no Redis was started in $2"
    port=$(cat "$2/redis.port")
    stop_redis "$2"; start_redis "$2" "$port" >/dev/null ;;
  "") usage >&2; exit 2 ;;
  *) echo "services.sh: unknown command \"$cmd\" (see --help)" >&2; exit 2 ;;
esac
