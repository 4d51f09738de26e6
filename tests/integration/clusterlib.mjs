// clusterlib.mjs: several nodes for the tests: a throw-away PostgreSQL and Redis
// (scripts/services.sh, in a temporary directory of the test's own, on loopback) and N
// servers started with --node nI --redis --db postgres:// and the cluster secret they
// share (--cluster-secret-file, a mode-600 file in that directory: svc.secretFile). A
// client follows `moved` the way the balancer routes /n/NODE/ws: to that node's own port.
import { execFileSync, spawn } from "node:child_process";
import crypto from "node:crypto";
import net from "node:net";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client, startServer, withTimeout, WAIT_MS } from "./lib.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SERVICES = path.resolve(HERE, "..", "..", "scripts", "services.sh");

export function services(cmd, dir) {
  return execFileSync("bash", [SERVICES, cmd, dir], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** PostgreSQL and Redis in a new temporary directory: {dir, pg, redis, stop()}. */
export function startServices() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thue-cluster-"));
  const pg = /THUE_TEST_PG=(\S+)/.exec(services("postgres", dir))[1];
  const redis = /THUE_TEST_REDIS=(\S+)/.exec(services("redis", dir))[1];
  return {
    dir,
    pg,
    redis,
    stop() {
      try {
        services("stop", dir);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

// One PostgreSQL and one Redis for all the clusters of a test file (started at the first,
// stopped when the process exits): each cluster gets a database of its own and an empty
// Redis (FLUSHALL), so tests do not see each other's state.
let shared = null;
let clusters = 0;
function sharedServices() {
  if (shared === null) {
    shared = startServices();
    process.on("exit", () => shared.stop());
  }
  return shared;
}

/** n nodes n1..nN on the services: {svc, nodes: {n1: server, ...}, add(name), stop()}.
 * urls (optional): {redisUrl(name, svc), pgUrl(name, svc)}, each (async) the URL node
 * `name` is given instead of svc.redis / svc.pg (partition.mjs's proxies, one a node). */
export async function startCluster(n, extra = [], urls = {}) {
  const base = sharedServices();
  const db = `cluster_${process.pid}_${++clusters}`;
  execFileSync("psql", [base.pg, "-qc", `CREATE DATABASE ${db}`], { stdio: ["ignore", "pipe", "pipe"] });
  execFileSync("redis-cli", ["-u", base.redis, "FLUSHALL"], { stdio: ["ignore", "pipe", "pipe"] });
  const svc = { dir: base.dir, redis: base.redis, pg: base.pg.replace(/\/thue$/, `/${db}`), secretFile: clusterSecret(base.dir) };
  const nodes = {};
  const stopNodes = async () => {
    for (const s of Object.values(nodes)) await s.stop("SIGKILL").catch(() => {});
  };
  try {
    for (let i = 1; i <= n; i++) await addNode(svc, nodes, `n${i}`, extra, urls);
  } catch (e) {
    await stopNodes();
    throw e;
  }
  return { svc, nodes, add: (name) => addNode(svc, nodes, name, extra, urls), stop: stopNodes };
}

/** The cluster secret of the nodes started in dir (a file): 32 random bytes as hex, made once. */
export function clusterSecret(dir) {
  const file = path.join(dir, "cluster.secret");
  if (!fs.existsSync(file)) fs.writeFileSync(file, crypto.randomBytes(32).toString("hex") + "\n", { mode: 0o600 });
  return file;
}

async function addNode(svc, nodes, name, extra, urls = {}) {
  const redis = urls.redisUrl ? await urls.redisUrl(name, svc) : svc.redis;
  const pg = urls.pgUrl ? await urls.pgUrl(name, svc) : svc.pg;
  const s = await startServer(["--node", name, "--redis", redis, "--db", pg, "--cluster-secret-file", svc.secretFile, "--log-level", "info", ...extra]);
  s.name = name;
  nodes[name] = s;
  await until(async () => (await (await fetch(`${s.url}/healthz`)).json()).node === name && /one of several/.test(s.stdout() + s.stderr()), `${name} to join the cluster`);
  return s;
}

/** Polls fn (async, truthy when done) every 100 ms, at most ms. */
export async function until(fn, what, ms = WAIT_MS) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => false);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Connects to node s and says hello (name, or {resume}/{token}); client.welcome is set. */
export async function hello(s, who) {
  const c = await Client.connect(s.ws, typeof who === "string" ? who : "client");
  const extra = typeof who === "string" ? { name: who } : who;
  c.welcome = await c.ok({ type: "hello", protocol: 1, ...extra });
  c.node = s.name;
  return c;
}

/** What a client does with `moved`: connect to that node and resume there. */
export async function follow(cluster, moved, resume) {
  const s = cluster.nodes[moved.node];
  if (!s) throw new Error(`moved to an unknown node ${moved.node}`);
  if (moved.path !== `/n/${moved.node}/ws`) throw new Error(`moved's path is ${moved.path}`);
  return hello(s, { resume: moved.resume || resume });
}

/** A free loopback port. */
export async function freePort() {
  const srv = net.createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

/**
 * HAProxy in front of the cluster's nodes, from scripts/haproxy-config.sh (the shipped
 * configuration's generator): {url, ws, stop()}, once every node answers through its
 * /n/NAME/ prefix.
 */
export async function startBalancer(cluster) {
  const port = await freePort();
  const nodes = Object.values(cluster.nodes);
  const cfg = execFileSync("bash", [path.resolve(HERE, "..", "..", "scripts", "haproxy-config.sh"),
    "--port", String(port), "--bind", "127.0.0.1", "--maxconn", "2000", ...nodes.map((s) => `${s.name}=127.0.0.1:${s.port}`)], { encoding: "utf8" });
  const file = path.join(cluster.svc.dir, "haproxy.cfg");
  fs.writeFileSync(file, cfg);
  let log = "";
  const proc = spawn("haproxy", ["-db", "-f", file], { stdio: ["ignore", "pipe", "pipe"] });
  proc.stdout.on("data", (d) => (log += d));
  proc.stderr.on("data", (d) => (log += d));
  const lb = {
    url: `http://127.0.0.1:${port}`,
    ws: `ws://127.0.0.1:${port}/ws`,
    async stop() {
      if (proc.exitCode === null) proc.kill("SIGKILL");
    },
  };
  try {
    await until(async () => {
      if (proc.exitCode !== null) return false;
      for (const s of nodes) {
        const h = await (await fetch(`${lb.url}/n/${s.name}/healthz`)).json();
        if (h.node !== s.name) return false;
      }
      return true;
    }, "haproxy to reach every node");
  } catch (e) {
    await lb.stop();
    throw new Error(`${e.message}; haproxy's log:\n${log}`);
  }
  return lb;
}

export { withTimeout };
