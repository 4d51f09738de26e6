// cluster_redis_tls.test.mjs (issue 31): Redis across hosts with TLS, as
// deploy/k8s/cluster ships it. hiredis 0.14 (Debian 12) has no TLS, so each node talks
// plaintext to a stunnel client next to it (redis://127.0.0.1:PORT), and stunnel speaks
// TLS to Redis's tls-port, verifying Redis's certificate against a CA (verifyChain,
// checkHost) and showing a client certificate of its own (tls-auth-clients yes). Redis
// has no plaintext port (--port 0) and a password (requirepass).
//
// Everything runs in a temporary directory, on 127.0.0.1 only: a throw-away CA, Redis's
// server certificate and the nodes' client certificate (openssl), a second CA that signed
// nothing here, Redis, PostgreSQL (scripts/services.sh), one stunnel per node and two
// nodes. Checked: Redis answers only TLS with a client certificate and the password (a
// plaintext PING gets no answer, redis-cli without --tls nothing, TLS without a client
// certificate nothing, no password NOAUTH); the nodes form a cluster through stunnel (both
// in the registry, a room of n1 listed on n2); n2's stunnel replaced by one that trusts
// the other CA, then by one expecting another host name: n2 reports Redis down, stays
// down, and stunnel logs the failed verification; with the right configuration again n2
// is back. Every process started here is killed at the end, pass or fail.
//
// Needs stunnel (Debian's stunnel4): `bash scripts/test.sh` installs it.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { run, startServer, test, withTimeout, WAIT_MS } from "./lib.mjs";
import { clusterSecret, freePort, hello, services, until } from "./clusterlib.mjs";

const REDIS_HOST = "redis.thue.test"; // the name in Redis's certificate (checkHost)

function have(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  return r.error ? null : (r.stdout || "") + (r.stderr || "");
}

// stunnel missing is a failure, not a skip: the README's test command installs it.
const stunnelVersion = have("stunnel", ["-version"]);
if (stunnelVersion === null) {
  console.log("FAIL cluster_redis_tls: stunnel is not installed (Debian package stunnel4).\n" +
    "     Run the README's test command, `bash scripts/test.sh`, which installs it\n" +
    "     (or `apt-get install -y stunnel4`).\n0 of 1 passed");
  process.exit(1);
}
for (const [cmd, args, pkg] of [["openssl", ["version"], "openssl"], ["redis-server", ["--version"], "redis-server"], ["redis-cli", ["--version"], "redis-tools"]]) {
  if (have(cmd, args) === null) {
    console.log(`FAIL cluster_redis_tls: ${cmd} is not installed (Debian package ${pkg}); run \`bash scripts/test.sh\`.\n0 of 1 passed`);
    process.exit(1);
  }
}

// ---- the processes this file starts, all killed at exit --------------------------------

const procs = new Set();
function track(proc) {
  procs.add(proc);
  proc.once("exit", () => procs.delete(proc));
  return proc;
}
process.on("exit", () => {
  for (const p of procs) {
    try {
      p.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
});

async function kill(proc, signal = "SIGKILL") {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = once(proc, "exit");
  proc.kill(signal);
  await withTimeout(exited, WAIT_MS, `process ${proc.pid} to exit after ${signal}`);
}

/** Spawns cmd, its output kept (log()); resolves once ready matches it, within WAIT_MS. */
async function startProcess(cmd, args, ready, what, opts = {}) {
  const proc = track(spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], ...opts }));
  let log = "";
  proc.stdout.on("data", (d) => (log += d));
  proc.stderr.on("data", (d) => (log += d));
  proc.log = () => log;
  try {
    await until(async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`${what} exited (${proc.exitCode ?? proc.signalCode})`);
      return ready.test(log);
    }, what);
  } catch (e) {
    await kill(proc).catch(() => {});
    throw new Error(`${e.message}; its output:\n${log}`);
  }
  return proc;
}

// ---- certificates ---------------------------------------------------------------------

function openssl(dir, ...args) {
  execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
}

const EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

/** A CA (NAME.key, NAME.crt) valid for 2 days. */
function makeCA(dir, name) {
  openssl(dir, "req", "-x509", ...EC, "-keyout", `${name}.key`, "-out", `${name}.crt`, "-days", "2",
    "-subj", `/CN=thue test CA ${name}`, "-addext", "basicConstraints=critical,CA:TRUE",
    "-addext", "keyUsage=critical,keyCertSign,cRLSign");
}

/** A certificate NAME.crt (key NAME.key) signed by the CA ca, with the extensions ext. */
function makeCert(dir, ca, name, cn, ext) {
  fs.writeFileSync(path.join(dir, `${name}.ext`), ext.join("\n") + "\n");
  openssl(dir, "req", ...EC, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${cn}`);
  openssl(dir, "x509", "-req", "-in", `${name}.csr`, "-CA", `${ca}.crt`, "-CAkey", `${ca}.key`, "-CAcreateserial",
    "-days", "2", "-out", `${name}.crt`, "-extfile", `${name}.ext`);
  fs.chmodSync(path.join(dir, `${name}.key`), 0o600);
}

// ---- Redis with TLS only, and stunnel --------------------------------------------------

/** redis-server with --port 0 and a tls-port, client certificates required, a password. */
async function startRedis(dir, pass) {
  const port = await freePort();
  const conf = path.join(dir, "redis.conf");
  // The password in a file of mode 600, not on the command line (ps would show it).
  fs.writeFileSync(conf, `requirepass "${pass}"\n`, { mode: 0o600 });
  const proc = await startProcess("redis-server", [conf, "--port", "0", "--tls-port", String(port), "--bind", "127.0.0.1",
    "--tls-cert-file", path.join(dir, "redis.crt"), "--tls-key-file", path.join(dir, "redis.key"),
    "--tls-ca-cert-file", path.join(dir, "ca.crt"), "--tls-auth-clients", "yes",
    "--save", "", "--appendonly", "no", "--dir", dir, "--protected-mode", "yes", "--logfile", ""],
  /Ready to accept connections/, "redis-server to accept TLS connections");
  return { proc, port };
}

/** redis-cli against Redis: {code, out}. tls: false, or {cert: bool} (the client certificate). */
function redisCli(dir, port, { tls = { cert: true }, pass = null } = {}, ...args) {
  const flags = ["-h", "127.0.0.1", "-p", String(port)];
  if (tls) {
    flags.push("--tls", "--cacert", path.join(dir, "ca.crt"), "--sni", REDIS_HOST);
    if (tls.cert) flags.push("--cert", path.join(dir, "client.crt"), "--key", path.join(dir, "client.key"));
  }
  const env = { ...process.env };
  delete env.REDISCLI_AUTH;
  if (pass !== null) env.REDISCLI_AUTH = pass;
  const r = spawnSync("redis-cli", [...flags, ...args], { encoding: "utf8", env, timeout: 5000 });
  return { code: r.status, out: `${r.stdout || ""}${r.stderr || ""}`.trim() };
}

/** A stunnel client: accept on 127.0.0.1:accept, TLS to Redis. opts: ca (the CA file's
 * name), host (checkHost). The configuration is deploy/k8s/cluster's (stunnel.conf in
 * configmap.yaml) with the test's addresses and files. */
async function startStunnel(dir, name, accept, redisPort, { ca = "ca", host = REDIS_HOST } = {}) {
  const conf = path.join(dir, `stunnel-${name}.conf`);
  fs.writeFileSync(conf, [
    "foreground = yes",
    `pid = ${path.join(dir, `stunnel-${name}.pid`)}`,
    "debug = info",
    "[redis]",
    "client = yes",
    `accept = 127.0.0.1:${accept}`,
    `connect = 127.0.0.1:${redisPort}`,
    `sni = ${REDIS_HOST}`,
    "delay = yes",
    "verifyChain = yes",
    `CAfile = ${path.join(dir, `${ca}.crt`)}`,
    `checkHost = ${host}`,
    `cert = ${path.join(dir, "client.crt")}`,
    `key = ${path.join(dir, "client.key")}`,
    "sslVersionMin = TLSv1.2",
    "",
  ].join("\n"));
  return startProcess("stunnel", [conf], /Configuration successful/, `stunnel ${name} to start`);
}

/** What a raw TCP client gets back, in 3 s, for a plaintext AUTH and PING. */
async function plaintext(port, pass) {
  const sock = net.connect(port, "127.0.0.1");
  const chunks = [];
  let closed = false;
  sock.on("data", (d) => chunks.push(d));
  sock.on("error", () => {});
  const done = new Promise((r) => sock.once("close", () => { closed = true; r(); }));
  await withTimeout(once(sock, "connect"), WAIT_MS, "a TCP connection to Redis's TLS port");
  sock.write(`AUTH ${pass}\r\nPING\r\n`);
  await Promise.race([done, new Promise((r) => setTimeout(r, 3000))]);
  sock.destroy();
  return { data: Buffer.concat(chunks), closed };
}

// ---- the test ---------------------------------------------------------------------------

test("Redis with TLS only, nodes through stunnel: plaintext refused, a cluster through TLS, a wrong CA or host name refused", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thue-redis-tls-"));
  let pgStarted = false;
  const nodes = {};
  try {
    // A small CA, Redis's certificate (its host name in subjectAltName), the nodes' client
    // certificate, and another CA that signed nothing here.
    makeCA(dir, "ca");
    makeCert(dir, "ca", "redis", REDIS_HOST, [`subjectAltName = DNS:${REDIS_HOST}`, "basicConstraints = CA:FALSE",
      "keyUsage = critical, digitalSignature", "extendedKeyUsage = serverAuth"]);
    makeCert(dir, "ca", "client", "thue-node", ["basicConstraints = CA:FALSE",
      "keyUsage = critical, digitalSignature", "extendedKeyUsage = clientAuth"]);
    makeCA(dir, "otherca");

    const pass = crypto.randomBytes(16).toString("hex");
    const redis = await startRedis(dir, pass);

    // TLS with the client certificate and the password: Redis answers; its plaintext port is off.
    assert.equal(redisCli(dir, redis.port, { pass }, "PING").out, "PONG");
    assert.deepEqual(redisCli(dir, redis.port, { pass }, "CONFIG", "GET", "port").out.split("\n"), ["port", "0"]);
    // TLS without the password: NOAUTH.
    assert.match(redisCli(dir, redis.port, {}, "PING").out, /NOAUTH/);
    // TLS without a client certificate: no answer (tls-auth-clients yes).
    const nocert = redisCli(dir, redis.port, { tls: { cert: false }, pass }, "PING");
    assert.doesNotMatch(nocert.out, /PONG|NOAUTH/, `TLS without a client certificate: ${nocert.out}`);
    // Plaintext redis-cli: nothing.
    const plainCli = redisCli(dir, redis.port, { tls: false, pass }, "PING");
    assert.doesNotMatch(plainCli.out, /PONG|NOAUTH/, `redis-cli without --tls: ${plainCli.out}`);
    // A raw TCP client sending AUTH and PING: no Redis reply (at most a TLS alert), the
    // connection closed.
    const raw = await plaintext(redis.port, pass);
    assert.ok(!/PONG|NOAUTH|ERR/.test(raw.data.toString("latin1")) && !(raw.data.length && "+-:$*".includes(String.fromCharCode(raw.data[0]))),
      `a plaintext client got a Redis reply: ${JSON.stringify(raw.data.toString("latin1"))}`);
    assert.ok(raw.closed, "Redis closes a plaintext connection to its TLS port");
    console.log(`     plaintext to the TLS port: ${raw.data.length} bytes back (${raw.data.toString("hex").slice(0, 32) || "none"}), closed; ` +
      `redis-cli without --tls: ${JSON.stringify(plainCli.out.split("\n")[0])}; TLS without a client certificate: ${JSON.stringify(nocert.out.split("\n")[0])}`);

    // PostgreSQL, the cluster secret, one stunnel per node, two nodes through them.
    const pg = /THUE_TEST_PG=(\S+)/.exec(services("postgres", dir))[1];
    pgStarted = true;
    const secretFile = clusterSecret(dir);
    const tunnels = {};
    const accepts = {};
    const joined = (s) => /one of several/.test(s.stdout() + s.stderr());
    for (const name of ["n1", "n2"]) {
      accepts[name] = await freePort();
      tunnels[name] = await startStunnel(dir, name, accepts[name], redis.port);
      const s = await startServer(["--node", name, "--redis", `redis://127.0.0.1:${accepts[name]}`, "--db", pg,
        "--cluster-secret-file", secretFile, "--log-level", "info"], { THUE_REDIS_PASSWORD: pass });
      track(s.proc);
      s.name = name;
      nodes[name] = s;
      await until(async () => (await (await fetch(`${s.url}/healthz`)).json()).node === name && joined(s), `${name} to join the cluster through stunnel`);
    }
    const { n1, n2 } = nodes;
    const registry = () => redisCli(dir, redis.port, { pass }, "ZRANGE", "thue:nodes", "0", "-1").out.split("\n").filter(Boolean).sort();

    // The cluster works through TLS: both nodes in Redis's registry, a room made on n1
    // listed on n2, and one made on n2 listed on n1.
    await until(async () => JSON.stringify(registry()) === '["n1","n2"]', "both nodes in Redis's registry");
    const ann = await hello(n1, "Ann");
    const annRoom = (await ann.ok({ type: "create_room", k: 3, name: "Room of Ann" })).room;
    const bob = await hello(n2, "Bob");
    const bobRoom = (await bob.ok({ type: "create_room", k: 3, name: "Room of Bob" })).room;
    const both = JSON.stringify([annRoom, bobRoom].sort());
    const listed = async (c) => JSON.stringify((await c.ok({ type: "list_rooms" })).rooms.map((x) => x.room).sort());
    await until(async () => (await listed(bob)) === both, "n1's room in n2's list");
    await until(async () => (await listed(ann)) === both, "n2's room in n1's list");

    // n2's stunnel replaced by one whose CA did not sign Redis's certificate, then by one
    // that expects another host name, each time from a working cluster: n2 loses Redis,
    // says so, stays without it (stunnel logs the refused certificate), and leaves the
    // registry. Each time the right configuration again brings n2 back: only the CA or
    // the host name made the difference.
    let swaps = 0;
    const swap = async (opts) => {
      const mark = n2.stdout().length + n2.stderr().length;
      await kill(tunnels.n2, "SIGTERM");
      tunnels.n2 = await startStunnel(dir, `n2-${++swaps}`, accepts.n2, redis.port, opts);
      return () => (n2.stdout() + n2.stderr()).slice(mark);
    };
    const accepted = () => (tunnels.n2.log().match(/Service \[redis\] accepted connection/g) || []).length;
    for (const [what, opts, refused] of [
      ["a CA that did not sign Redis's certificate", { ca: "otherca" }, /certificate verify failed|unable to get local issuer/i],
      ["another host name", { host: "wrong.thue.test" }, /certificate verify failed|host ?name|mismatch/i],
    ]) {
      const since = await swap(opts);
      await until(async () => /cluster: Redis is down/.test(since()), `n2 to report Redis down (stunnel with ${what})`);
      await until(async () => refused.test(tunnels.n2.log()), `stunnel with ${what} to log the refused certificate`);
      console.log(`     stunnel with ${what}: ${tunnels.n2.log().split("\n").find((l) => refused.test(l)).trim()}`);
      await until(async () => JSON.stringify(registry()) === '["n1"]', `n2 to leave the registry (stunnel with ${what})`);
      // n2 keeps trying (its backoff is at most 2 s): 4 s later it is still without Redis.
      const tries = accepted();
      await new Promise((r) => setTimeout(r, 4000));
      assert.doesNotMatch(since(), /cluster: Redis is up/, `n2 got Redis back through stunnel with ${what}`);
      assert.ok(accepted() > tries, `n2 kept trying meanwhile:\n${tunnels.n2.log()}`);
      assert.doesNotMatch(tunnels.n2.log(), /SSL connected/, `stunnel with ${what} completed a TLS handshake`);

      // The right configuration again: n2 is back, and the cluster with it.
      const again = await swap({});
      await until(async () => /cluster: Redis is up/.test(again()), `n2 to have Redis again after ${what}`, 15000);
      await until(async () => JSON.stringify(registry()) === '["n1","n2"]', `n2 back in the registry after ${what}`);
      const cy = await hello(n1, `Cy${swaps}`);
      await until(async () => (await listed(cy)) === both, `n2's room in n1's list again after ${what}`);
    }
  } finally {
    for (const p of [...procs]) await kill(p).catch(() => {});
    if (pgStarted) {
      try {
        services("stop", dir);
      } catch {
        // its own log says why
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

await run();
