#!/usr/bin/env bash
# Builds, runs and tests the server's image (the repository's Dockerfile) on a machine
# without a Docker engine or a registry: podman and buildah with the vfs storage driver
# and chroot isolation, as root, the Debian 12 base made locally with debootstrap.
#
#   bash scripts/image.sh build [--mirror URL] [--remake-base]
#                                                  the bases (once) and the image
#   bash scripts/image.sh run [--port P] [--data DIR]
#                                                  serve the image until Ctrl-C
#   bash scripts/image.sh test [--port P]          test the image as a user would
#   bash scripts/image.sh COMMAND --help           one command's options
#
# The image is localhost/thue-server:latest (THUE_IMAGE overrides it). Packages:
#   apt-get install -y podman buildah debootstrap curl
# (`test` also needs node and tests/integration's npm packages: npm ci --prefix
# tests/integration). `podman run` does not work here (crun: setrlimit, "cgroups in
# hybrid mode"), so `run` and `test` start the image's thue-server with `buildah run
# --isolation chroot`, in the host's network: the server's port is the host's port.
# Exit status: 0 done, 1 a failure, 2 bad arguments or a missing tool.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD

IMAGE=${THUE_IMAGE:-localhost/thue-server:latest}
BASE=docker.io/library/debian:bookworm
BASE_SLIM=docker.io/library/debian:bookworm-slim
PODMAN=(podman --storage-driver vfs)
BUILDAH=(buildah --storage-driver vfs)
NICE=(nice -n 10)

usage_main() { sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
say() { echo "image.sh: $*"; }
die() { echo "image.sh: $*" >&2; exit 1; }
bad() { echo "image.sh: $*" >&2; exit 2; }
need() { [ $# -ge 2 ] && [ -n "$2" ] && [ "${2:0:2}" != "--" ] || bad "$1 needs a value"; }

need_root() {
  [ "$(id -u)" -eq 0 ] || bad "run me as root (podman's and buildah's vfs storage in /var/lib/containers, debootstrap): sudo bash scripts/image.sh $*"
}

# need_tools TOOL=PACKAGE...: says which apt-get command installs the missing ones.
need_tools() {
  local missing=() pkgs=() t
  for t in "$@"; do
    command -v "${t%%=*}" >/dev/null 2>&1 || { missing+=("${t%%=*}"); pkgs+=("${t#*=}"); }
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  bad "missing: ${missing[*]}; install with: apt-get install -y ${pkgs[*]}"
}

# A duration in whole seconds since $1 (date +%s).
since() { echo "$(( $(date +%s) - $1 )) s"; }

human() { numfmt --to=iec --suffix=B --format='%.1f' "$1" 2>/dev/null || echo "$1 bytes"; }

image_size() { "${PODMAN[@]}" image inspect --format '{{.Size}}' "$1"; }

# ---------------------------------------------------------------------------------------
# build

usage_build() {
  cat <<'EOF'
bash scripts/image.sh build [--mirror URL] [--remake-base]

Builds the image localhost/thue-server:latest from the repository's Dockerfile with
`podman build --isolation chroot --pull=never` (vfs storage), at nice 10.
The Dockerfile's bases debian:bookworm and debian:bookworm-slim are made once, when
missing: `debootstrap --variant=minbase bookworm` from the Debian mirror this machine's
apt uses (a minute or two), set up as Debian's own images are (apt keeps no .debs,
caches or translations; bookworm, -updates and -security sources), imported into
podman; the slim one also without documentation, manuals and translations. Running it again
reuses the base and podman's layer cache: only what changed is rebuilt (but the
Dockerfile copies the whole repository into its build stage, so any changed file
compiles the server again). Then it checks that the image's user runs thue-server and
thue in it, and prints the image's size against the base's. With vfs every layer is a
full copy: each rebuilt build stage leaves about 1 GB behind in /var/lib/containers,
which `podman --storage-driver vfs image prune -f` removes.

  --mirror URL   the Debian mirror for debootstrap and the bases' apt (default: the
                 first one in /etc/apt/sources.list or /etc/apt/sources.list.d/*,
                 else http://deb.debian.org/debian)
  --remake-base  make the bases again (then the whole image is rebuilt)
  -h, --help     this text

Needs root and: apt-get install -y podman buildah debootstrap
EOF
}

# The Debian mirror apt uses (not the security archive, not another vendor's).
apt_mirror() {
  local f u
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -r "$f" ] || continue
    # one-line format: deb [opts] URI SUITE ...; deb822: URIs: URI
    u=$(sed -n -E -e 's/^[[:space:]]*deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([a-z]+:[^[:space:]]+)[[:space:]]+bookworm([[:space:]].*)?$/\2/p' \
                  -e 's/^[[:space:]]*URIs:[[:space:]]*([a-z]+:[^[:space:]]+).*/\1/p' "$f" |
        grep -E '/debian/?$' | grep -v -- '-security' | head -n1 || true)
    [ -n "$u" ] && { echo "${u%/}"; return 0; }
  done
  echo http://deb.debian.org/debian
}

# The security archive apt uses here, for the base's sources.
apt_security() {
  local u
  u=$(sed -n -E -e 's/^[[:space:]]*deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([a-z]+:[^[:space:]]+)[[:space:]]+bookworm-security.*/\2/p' \
                -e 's/^[[:space:]]*URIs:[[:space:]]*([a-z]+:[^[:space:]]*-security[^[:space:]]*).*/\1/p' \
                /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
      head -n1 || true)
  echo "${u:-http://deb.debian.org/debian-security}" | sed 's:/*$::'
}

# make_base MIRROR [REMAKE]: debian:bookworm and debian:bookworm-slim, made as Debian's own
# images are (debuerreotype): minbase, apt set to keep no .debs, caches or translations,
# the bookworm, bookworm-updates and bookworm-security sources; the slim one also
# without documentation, manuals and translations (dpkg's path-exclude, as Debian's).
# Every path written or removed below is inside the new root, $root (never empty).
make_base() {
  local mirror=$1 remake=${2:-0} root t0 security
  if [ "$remake" -eq 0 ] && "${PODMAN[@]}" image exists "$BASE" && "${PODMAN[@]}" image exists "$BASE_SLIM"; then
    say "bases $BASE and $BASE_SLIM are there"
    return 0
  fi
  root=$(mktemp -d /var/tmp/thue-debootstrap.XXXXXX)
  case $root in /var/tmp/thue-debootstrap.?*) ;; *) die "mktemp gave '$root'" ;; esac
  # mktemp makes it 0700, and tar records "." with that mode: the image's / would be
  # closed to its unprivileged user (exec: permission denied).
  chmod 0755 "$root"
  # shellcheck disable=SC2064
  trap "rm -rf '$root'" EXIT
  say "making the base: debootstrap --variant=minbase bookworm from $mirror (a minute or two; log: $root.log)"
  t0=$(date +%s)
  if ! "${NICE[@]}" debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1; then
    tail -n 20 "$root.log" >&2
    die "debootstrap failed (whole log: $root.log)"
  fi
  say "debootstrap done in $(since "$t0")"
  security=$(apt_security)
  rm -f "$root/etc/apt/sources.list"
  printf '%s\n' "Types: deb" "URIs: $mirror" "Suites: bookworm bookworm-updates" "Components: main" \
    "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" "" \
    "Types: deb" "URIs: $security" "Suites: bookworm-security" "Components: main" \
    "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" >"$root/etc/apt/sources.list.d/debian.sources"
  # Debian's images' apt settings: no downloaded packages or caches left in a layer.
  local clean='rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true'
  printf '%s\n' "DPkg::Post-Invoke { \"$clean\"; };" "APT::Update::Post-Invoke { \"$clean\"; };" \
    'Dir::Cache::pkgcache "";' 'Dir::Cache::srcpkgcache "";' >"$root/etc/apt/apt.conf.d/docker-clean"
  echo 'Acquire::Languages "none";' >"$root/etc/apt/apt.conf.d/docker-no-languages"
  echo 'Acquire::GzipIndexes "true";' >"$root/etc/apt/apt.conf.d/docker-gzip-indexes"
  echo 'Apt::AutoRemove::SuggestsImportant "false";' >"$root/etc/apt/apt.conf.d/docker-autoremove-suggests"
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/cache/apt/*.bin "$root"/var/lib/apt/lists/*
  "${PODMAN[@]}" image rm -f "$BASE" "$BASE_SLIM" >/dev/null 2>&1 || true
  tar -C "$root" -c . | "${PODMAN[@]}" import -q - "$BASE" >/dev/null
  say "imported it as $BASE"
  # slim: what Debian's bookworm-slim leaves out
  printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' \
    'path-exclude /usr/share/groff/*' 'path-exclude /usr/share/info/*' 'path-exclude /usr/share/linda/*' \
    'path-exclude /usr/share/lintian/overrides/*' 'path-exclude /usr/share/locale/*' \
    'path-exclude /usr/share/man/*' >"$root/etc/dpkg/dpkg.cfg.d/docker"
  find "$root/usr/share/doc" -mindepth 1 -not -type d -not -name copyright -delete
  find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
  local d
  for d in groff info linda lintian/overrides locale man; do
    [ -d "$root/usr/share/$d" ] && find "$root/usr/share/$d" -mindepth 1 -delete
  done
  tar -C "$root" -c . | "${PODMAN[@]}" import -q - "$BASE_SLIM" >/dev/null
  say "imported its slim form as $BASE_SLIM"
  rm -rf "$root" "$root.log"
  trap - EXIT
}

cmd_build() {
  local mirror="" remake=0
  while [ $# -gt 0 ]; do
    case $1 in
      -h|--help) usage_build; exit 0 ;;
      --mirror) need "$@"; mirror=$2; shift 2 ;;
      --mirror=*) mirror=${1#*=}; shift ;;
      --remake-base) remake=1; shift ;;
      *) bad "build: unknown argument '$1' (--help)" ;;
    esac
  done
  need_root build
  need_tools podman=podman buildah=buildah debootstrap=debootstrap
  [ -n "$mirror" ] || mirror=$(apt_mirror)
  local t0 log rc size base
  t0=$(date +%s)
  make_base "$mirror" "$remake"

  log=$(mktemp /var/tmp/thue-image-build.XXXXXX.log)
  say "building $IMAGE from the Dockerfile (podman build, nice 10; log: $log)"
  # The steps as they come; the rest (apt, cmake) only in the log, and its end on failure.
  set +e
  "${NICE[@]}" "${PODMAN[@]}" build --isolation chroot --pull=never -t "$IMAGE" -f Dockerfile . 2>&1 |
    tee "$log" | grep --line-buffered -E '^(\[[0-9]+/[0-9]+\] )?STEP [0-9]+/[0-9]+|^--> Using cache|^COMMIT|^Successfully tagged' |
    sed -u 's/^/  /'
  rc=${PIPESTATUS[0]}
  set -e
  if [ "$rc" -ne 0 ]; then
    tail -n 30 "$log" >&2
    die "podman build failed (status $rc; whole log: $log)"
  fi
  rm -f "$log"
  # The image's own user runs its programs (the entry point, and the thue command).
  local ctr v
  trap cleanup EXIT
  new_ctr; ctr=$NEW_CTR
  v=$("${BUILDAH[@]}" run --isolation chroot "$ctr" -- thue-server --version 2>&1) &&
    "${BUILDAH[@]}" run --isolation chroot "$ctr" -- thue --help >/dev/null 2>&1 ||
    { cleanup; die "the image's user (uid 10001) cannot run thue-server or thue in it: $v"; }
  cleanup
  say "the image runs: $v (as uid 10001)"
  size=$(image_size "$IMAGE")
  base=$(image_size "$BASE_SLIM")
  say "built $IMAGE in $(since "$t0")"
  say "size: $(human "$size") ($size bytes); its base $BASE_SLIM: $(human "$base") ($base bytes); the image adds $(human $((size - base)))"
}

# ---------------------------------------------------------------------------------------
# run and test: the server in a buildah working container

CTRS=()      # working containers made here (removed at the end)
PIDS=()      # buildah run processes started here (stopped at the end)

need_image() {
  "${PODMAN[@]}" image exists "$IMAGE" || die "no image $IMAGE yet: run bash scripts/image.sh build"
}

# new_ctr: a working container of the image, named in NEW_CTR (removed by cleanup).
# Open files: 65536 as in deploy/docker-compose.yml, or this shell's hard limit if lower
# (buildah's default is 1024, and it may not raise the hard limit here).
new_ctr() {
  local hard nofile=65536
  hard=$(ulimit -Hn)
  [ "$hard" != unlimited ] && [ "$hard" -lt "$nofile" ] && nofile=$hard
  NEW_CTR=thue-image-$$-${#CTRS[@]}
  "${BUILDAH[@]}" from --pull-never --ulimit "nofile=$nofile:$nofile" --name "$NEW_CTR" "$IMAGE" >/dev/null ||
    die "buildah from $IMAGE failed"
  CTRS+=("$NEW_CTR")
}

# The data directory, writable by the image's user (uid 10001), as a Docker volume is.
prepare_data() {
  local d=$1
  mkdir -p "$d"
  if [ "$(stat -c %u "$d")" != 10001 ]; then
    if [ -z "$(ls -A "$d")" ]; then
      chown 10001:10001 "$d"
    else
      die "the data directory $d is not owned by the image's user (uid 10001): chown -R 10001:10001 $d"
    fi
  fi
}

# The thue-server process under a buildah run process (buildah -> chroot helper -> server).
server_pid() {
  local p=$1 q c
  for c in $(pgrep -P "$p" 2>/dev/null); do
    if [ "$(cat /proc/"$c"/comm 2>/dev/null)" = thue-server ]; then echo "$c"; return 0; fi
    q=$(server_pid "$c") && { echo "$q"; return 0; }
  done
  return 1
}

alive() { local s; s=$(ps -o stat= -p "$1" 2>/dev/null) && [ -n "$s" ] && [ "${s:0:1}" != Z ]; }

# stop_run PID [SECONDS]: SIGTERM to the server under buildah run PID, SIGKILL to all
# that is left after SECONDS (default 10).
stop_run() {
  local p=$1 limit=${2:-10} s i
  alive "$p" || return 0
  s=$(server_pid "$p" || true)
  if [ -n "$s" ]; then kill -TERM "$s" 2>/dev/null || true; else kill -TERM "$p" 2>/dev/null || true; fi
  for ((i = 0; i < limit * 10; i++)); do alive "$p" || return 0; sleep 0.1; done
  s=$(server_pid "$p" || true)
  [ -n "$s" ] && kill -KILL "$s" 2>/dev/null || true
  kill -KILL "$p" 2>/dev/null || true
}

cleanup() {
  local p c
  for p in "${PIDS[@]}"; do stop_run "$p" 5; done
  for c in "${CTRS[@]}"; do "${BUILDAH[@]}" rm "$c" >/dev/null 2>&1 || true; done
  CTRS=(); PIDS=()
}

# start_server CTR PORT DATA LOG [ENV...]: thue-server in the background; its buildah
# run pid in START_PID.
start_server() {
  local ctr=$1 port=$2 data=$3 log=$4; shift 4
  local envs=(-e "THUE_PORT=$port") e
  for e in "$@"; do envs+=(-e "$e"); done
  setsid -w "${BUILDAH[@]}" run --isolation chroot "${envs[@]}" -v "$data:/var/lib/thue" "$ctr" -- thue-server \
    >"$log" 2>&1 </dev/null &
  START_PID=$!
  PIDS+=("$START_PID")
}

# wait_health PORT PID SECONDS: until /healthz answers ok (status 1 on timeout or exit).
wait_health() {
  local port=$1 p=$2 limit=$3 i
  for ((i = 0; i < limit * 5; i++)); do
    curl -fsS --max-time 2 "http://127.0.0.1:$port/healthz" 2>/dev/null | grep -q '"status":"ok"' && return 0
    alive "$p" || return 1
    sleep 0.2
  done
  return 1
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

check_port() {
  [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -ge 1 ] && [ "$1" -le 65535 ] || bad "--port wants 1..65535, not '$1'"
}

usage_run() {
  cat <<'EOF'
bash scripts/image.sh run [--port P] [--data DIR] [--bind ADDR] [-- SERVER-FLAGS...]

Serves the image localhost/thue-server:latest in the foreground, as
`docker run -p P:P -v DIR:/var/lib/thue thue-server` would: thue-server from the image,
run by `buildah run --isolation chroot` in the host's network, as the image's user
(uid 10001), with THUE_PORT=P, DIR mounted at /var/lib/thue (its database thue.db)
and 65536 open files (deploy/docker-compose.yml's ulimit; less if the hard limit here
is lower). Ctrl-C or SIGTERM stops it cleanly (the server's graceful shutdown, then the
working container is removed); the exit status is the server's.

  --port P       the port (default 8080)
  --data DIR     the data directory, made if missing and given to uid 10001 when empty
                 (default /var/lib/thue-image)
  --bind ADDR    the address to listen on (default: the image's THUE_BIND, 0.0.0.0)
  -- FLAGS       thue-server flags (thue-server --help), e.g. -- --log-level debug
  -h, --help     this text

Needs root, an image built by `bash scripts/image.sh build`, and:
apt-get install -y podman buildah curl
EOF
}

cmd_run() {
  local port=8080 data=/var/lib/thue-image bind="" extra=()
  while [ $# -gt 0 ]; do
    case $1 in
      -h|--help) usage_run; exit 0 ;;
      --port) need "$@"; port=$2; shift 2 ;;
      --port=*) port=${1#*=}; shift ;;
      --data) need "$@"; data=$2; shift 2 ;;
      --data=*) data=${1#*=}; shift ;;
      --bind) need "$@"; bind=$2; shift 2 ;;
      --bind=*) bind=${1#*=}; shift ;;
      --) shift; extra=("$@"); break ;;
      *) bad "run: unknown argument '$1' (--help)" ;;
    esac
  done
  check_port "$port"
  need_root run
  need_tools podman=podman buildah=buildah curl=curl
  need_image
  port_free "$port" || die "port $port is taken (--port P)"
  data=$(realpath -m "$data")
  prepare_data "$data"
  trap cleanup EXIT
  local ctr envs=(-e "THUE_PORT=$port") p s rc stopping=0
  [ -n "$bind" ] && envs+=(-e "THUE_BIND=$bind")
  new_ctr; ctr=$NEW_CTR
  say "serving $IMAGE on port $port, data in $data (Ctrl-C stops it)"
  # In a session of its own, so that a Ctrl-C reaches this script only: the server gets
  # one SIGTERM from it (a second signal would make it exit at once, status 1).
  setsid -w "${BUILDAH[@]}" run --isolation chroot "${envs[@]}" -v "$data:/var/lib/thue" "$ctr" -- \
    thue-server "${extra[@]}" </dev/null &
  p=$!
  PIDS+=("$p")
  # Ctrl-C and SIGTERM go to the server only (its graceful shutdown); a second one is
  # passed on too (the server then exits at once).
  on_signal() {
    stopping=$((stopping + 1))
    [ "$stopping" -eq 1 ] && say "stopping (SIGTERM to thue-server)"
    s=$(server_pid "$p" || true)
    [ -n "$s" ] && kill -TERM "$s" 2>/dev/null || true
  }
  trap on_signal INT TERM
  # wait returns early when a trapped signal arrives: wait again until buildah run ends
  # (the shutdown itself is bounded: at most about 2 s, or --drain-s).
  local r2
  while :; do
    wait "$p" && rc=0 || rc=$?
    [ "$rc" -gt 128 ] && alive "$p" && continue
    # A signal may have cut the wait short just as it ended: reap it for its status.
    if [ "$rc" -gt 128 ]; then
      wait "$p" 2>/dev/null && rc=0 || { r2=$?; [ "$r2" -eq 127 ] || rc=$r2; }
    fi
    break
  done
  trap - INT TERM
  PIDS=()
  say "thue-server exited with status $rc"
  exit "$rc"
}

# ---------------------------------------------------------------------------------------
# test

usage_test() {
  cat <<'EOF'
bash scripts/image.sh test [--port P] [--keep]

Tests the image localhost/thue-server:latest as a user would, all on 127.0.0.1 (the
server started with THUE_BIND=127.0.0.1 and a fresh data directory):
  1. /healthz answers 200 with "status":"ok";
  2. the page / is the web client (HTML that loads the app's script), with its four
     languages' catalogues (/i18n/LANG/app.json);
  3. a bot match through the image's own `thue` command: two `thue bot` run inside the
     image meet in the quick-match queue and play one match to the end;
  4. an account name is claimed over the WebSocket API (node, tests/integration's `ws`);
  5. SIGTERM: the server exits 0 within 10 s and logs "shutting down" and "stopped";
  6. started again in a new container on the same data directory, the name is still
     taken by the account and its token still logs in (the SQLite database lasted).
Everything it starts is stopped, and its containers and directories removed, at the
end, also on failure; every wait is bounded. Exit status 0 when every check passes.

  --port P       the port (default: a free one)
  --keep         keep the data directory and the server's logs (printed at the end)
  -h, --help     this text

Needs root, an image built by `bash scripts/image.sh build`, and:
apt-get install -y podman buildah curl nodejs; npm ci --prefix tests/integration
EOF
}

FAILS=0
pass() { echo "  ok    $*"; }
fail() { echo "  FAIL  $*"; FAILS=$((FAILS + 1)); }

# The WebSocket part, in Node with the `ws` package of tests/integration.
account_js() {
  cat <<'EOF'
// account.mjs MODE URL NAME [TOKEN]: claim NAME (prints the account's token) or, after a
// restart, check that NAME is still taken and that TOKEN still logs in as NAME.
import { createRequire } from "node:module";
const require = createRequire(process.env.THUE_WS_FROM + "/");
const WebSocket = require("ws");
const [mode, url, name, token] = process.argv.slice(2);
const timer = setTimeout(() => { console.error("account.mjs: timed out"); process.exit(1); }, 15000);

function connect() {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, "thue.v1");
    const queue = [], waiters = [];
    ws.on("message", (d) => {
      const m = JSON.parse(d.toString());
      const w = waiters.findIndex((x) => x.pred(m));
      if (w >= 0) waiters.splice(w, 1)[0].resolve(m); else queue.push(m);
    });
    ws.on("error", reject);
    ws.on("open", () => resolve({
      send: (m) => ws.send(JSON.stringify(m)),
      next: (pred) => {
        const i = queue.findIndex(pred);
        if (i >= 0) return Promise.resolve(queue.splice(i, 1)[0]);
        return new Promise((r) => waiters.push({ pred, resolve: r }));
      },
      close: () => ws.close(),
    }));
  });
}
const reply = (c, id) => c.next((m) => m.id === id || m.type === "error" && m.id === id);

async function hello(extra) {
  const c = await connect();
  c.send({ type: "hello", id: 1, protocol: 1, ...extra });
  const m = await reply(c, 1);
  return [c, m];
}
if (mode === "claim") {
  const [c, w] = await hello({});
  if (w.type !== "welcome") throw new Error("hello: " + JSON.stringify(w));
  c.send({ type: "claim_name", id: 2, name });
  const m = await reply(c, 2);
  if (m.type !== "account" || !m.token) throw new Error("claim_name: " + JSON.stringify(m));
  console.log(m.token);
  c.close();
} else {
  // A guest cannot have the name ...
  const [g, w] = await hello({});
  if (w.type !== "welcome") throw new Error("hello: " + JSON.stringify(w));
  g.send({ type: "claim_name", id: 2, name });
  const m = await reply(g, 2);
  if (m.type !== "error" || m.code !== "name_taken") throw new Error("claim_name of a taken name: " + JSON.stringify(m));
  g.close();
  // ... and the account's token logs in as it.
  const [c, a] = await hello({ token });
  if (a.type !== "welcome" || a.player?.name !== name || a.player?.kind !== "account")
    throw new Error("hello with the account's token: " + JSON.stringify(a));
  console.log("is still taken (name_taken), and the token logs in: player " + JSON.stringify(a.player));
  c.close();
}
clearTimeout(timer);
EOF
}

cmd_test() {
  local port="" keep=0
  while [ $# -gt 0 ]; do
    case $1 in
      -h|--help) usage_test; exit 0 ;;
      --port) need "$@"; port=$2; shift 2 ;;
      --port=*) port=${1#*=}; shift ;;
      --keep) keep=1; shift ;;
      *) bad "test: unknown argument '$1' (--help)" ;;
    esac
  done
  [ -z "$port" ] || check_port "$port"
  need_root test
  need_tools podman=podman buildah=buildah curl=curl node=nodejs
  [ -d tests/integration/node_modules/ws ] ||
    bad "tests/integration/node_modules/ws is missing: npm ci --prefix tests/integration"
  need_image
  if [ -z "$port" ]; then
    port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  fi
  port_free "$port" || die "port $port is taken (--port P)"

  local work t0 ctr p body out token name code s a b ra rb i
  t0=$(date +%s)
  work=$(mktemp -d /var/tmp/thue-image-test.XXXXXX)
  TEST_WORK=$work TEST_KEEP=$keep
  finish() {
    cleanup
    if [ "$TEST_KEEP" -eq 1 ]; then say "kept: $TEST_WORK"; else rm -rf "$TEST_WORK"; fi
  }
  trap finish EXIT
  trap 'exit 130' INT TERM
  prepare_data "$work/data"
  account_js >"$work/account.mjs"
  export THUE_WS_FROM="$ROOT/tests/integration"
  new_ctr; ctr=$NEW_CTR
  local url="http://127.0.0.1:$port" ws="ws://127.0.0.1:$port/ws"
  say "testing $IMAGE on 127.0.0.1:$port (data: $work/data)"

  # 1. health
  start_server "$ctr" "$port" "$work/data" "$work/server1.log" THUE_BIND=127.0.0.1
  p=$START_PID
  if wait_health "$port" "$p" 30; then
    pass "/healthz: $(curl -fsS --max-time 5 "$url/healthz")"
    s=$(server_pid "$p" || true)
    if [ -n "$s" ] && [ "$(awk '/^Uid:/ {print $2}' /proc/"$s"/status)" = 10001 ]; then
      pass "thue-server runs as the image's user, uid 10001 (open files: $(awk '/^Max open files/ {print $4}' /proc/"$s"/limits))"
    else
      fail "thue-server (pid ${s:-none}) does not run as uid 10001"
    fi
  else
    fail "/healthz did not answer ok within 30 s; the server's log:"
    sed 's/^/        /' "$work/server1.log"
    exit 1
  fi

  # 2. the page
  body=$(curl -fsS --max-time 5 "$url/" || true)
  if grep -qi '<!doctype html' <<<"$body" && grep -q '<script[^>]*src="[^"]*app[^"]*\.js"' <<<"$body"; then
    pass "/: the web client ($(wc -c <<<"$body") bytes of HTML, $(grep -o '<script[^>]*src="[^"]*"' <<<"$body" | head -n1))"
    s=$(grep -o '<script[^>]*src="[^"]*"' <<<"$body" | head -n1 | sed 's/.*src="\([^"]*\)"/\1/')
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$url/${s#/}")
    [ "$code" = 200 ] && pass "/${s#/}: 200" || fail "/${s#/}: HTTP $code"
    # The client's words in its four languages (clients/web/i18n, a folder of the web root).
    for l in en pl sr ro; do
      cat_body=$(curl -fsS --max-time 5 "$url/i18n/$l/app.json" || true)
      if grep -q '"app.nav.games"' <<<"$cat_body"; then
        pass "/i18n/$l/app.json: the $l catalogue ($(wc -c <<<"$cat_body") bytes)"
      else
        fail "/i18n/$l/app.json is not the $l catalogue: $(head -c 200 <<<"$cat_body")"
      fi
    done
  else
    fail "/ is not the web client's page: $(head -c 300 <<<"$body")"
  fi

  # 3. a bot match through the image's thue command
  "${BUILDAH[@]}" run --isolation chroot "$ctr" -- timeout 90 thue bot --bot greedy --games 1 \
    --think-ms 50 --server "$ws" >"$work/botA.log" 2>&1 </dev/null &
  a=$!; PIDS+=("$a")
  "${BUILDAH[@]}" run --isolation chroot "$ctr" -- timeout 90 thue bot --bot nested:1 --games 1 \
    --think-ms 50 --server "$ws" >"$work/botB.log" 2>&1 </dev/null &
  b=$!; PIDS+=("$b")
  for ((i = 0; i < 1000; i++)); do   # 100 s at most
    alive "$a" || alive "$b" || break
    sleep 0.1
  done
  ra=0; rb=0
  alive "$a" && ra=124 || { wait "$a" || ra=$?; }
  alive "$b" && rb=124 || { wait "$b" || rb=$?; }
  if [ "$ra" -eq 0 ] && [ "$rb" -eq 0 ]; then
    pass "thue bot (greedy) vs thue bot (nested:1) inside the image, one match to the end:"
    sed 's/^/        A: /' "$work/botA.log"; sed 's/^/        B: /' "$work/botB.log"
  else
    fail "thue bot in the image: statuses $ra and $rb (124: not done in 100 s); their output:"
    sed 's/^/        A: /' "$work/botA.log"; sed 's/^/        B: /' "$work/botB.log"
  fi

  # 4. an account
  name="imgtest$(date +%s | tail -c 6)"
  if token=$(timeout 20 node "$work/account.mjs" claim "$ws" "$name" 2>"$work/account1.err"); then
    pass "claim_name $name over the WebSocket: an account (token of ${#token} characters)"
  else
    fail "claim_name $name: $(cat "$work/account1.err")"
  fi

  # 5. a clean stop
  s=$(server_pid "$p" || true)
  if [ -z "$s" ]; then
    fail "no thue-server process under buildah run $p"
  else
    kill -TERM "$s"
    for ((i = 0; i < 100; i++)); do alive "$p" || break; sleep 0.1; done
    if alive "$p"; then
      fail "thue-server still runs 10 s after SIGTERM"
      stop_run "$p" 1
    else
      code=0; wait "$p" || code=$?
      if [ "$code" -eq 0 ] && grep -q 'shutting down' "$work/server1.log" && grep -q 'stopped' "$work/server1.log"; then
        pass "SIGTERM: exit 0 in $((i / 10)).$((i % 10)) s; the log:"
        grep -E 'shutting down|stopped' "$work/server1.log" | sed 's/^/        /'
      else
        fail "SIGTERM: exit status $code; the log's end:"
        tail -n 5 "$work/server1.log" | sed 's/^/        /'
      fi
    fi
  fi
  if [ -f "$work/data/thue.db" ]; then
    pass "the data directory holds thue.db ($(stat -c %s "$work/data/thue.db") bytes, owner uid $(stat -c %u "$work/data/thue.db"))"
  else
    fail "no thue.db in the data directory: $(ls -A "$work/data")"
  fi

  # 6. the database across a restart, in a new container (docker rm, then docker run
  # with the same volume): only the data directory carries it over
  port_free "$port" || { sleep 1; port_free "$port"; } || fail "port $port still taken after the stop"
  new_ctr; ctr=$NEW_CTR
  start_server "$ctr" "$port" "$work/data" "$work/server2.log" THUE_BIND=127.0.0.1
  p=$START_PID
  if ! wait_health "$port" "$p" 30; then
    fail "after the restart /healthz did not answer ok within 30 s; the log:"
    sed 's/^/        /' "$work/server2.log"
  elif [ -z "$token" ]; then
    fail "after the restart: no account to check (step 4 failed)"
  elif out=$(timeout 20 node "$work/account.mjs" check "$ws" "$name" "$token" 2>"$work/account2.err"); then
    pass "after a restart on the same data: $name $out"
  else
    fail "after the restart: $(cat "$work/account2.err")"
  fi
  stop_run "$p" 10

  if [ "$FAILS" -eq 0 ]; then
    say "test passed in $(since "$t0")"
  else
    say "test FAILED: $FAILS check(s) failed ($(since "$t0"))"
    exit 1
  fi
}

# ---------------------------------------------------------------------------------------

[ $# -ge 1 ] || { usage_main >&2; exit 2; }
cmd=$1; shift
case $cmd in
  -h|--help|help) usage_main ;;
  build) cmd_build "$@" ;;
  run) cmd_run "$@" ;;
  test) cmd_test "$@" ;;
  *) bad "unknown command '$cmd' (build, run, test; --help)" ;;
esac
