// balancer.test.mjs: three nodes (--node n1..n3, each its own in-memory SQLite) behind
// HAProxy run from the configuration that scripts/haproxy-config.sh prints, the same
// script that made the shipped deploy/haproxy/haproxy.cfg. Checks the routing design of
// docs/operations.md ("Several nodes"): /n/NAME/... reaches NAME with the prefix
// stripped, /ws spreads over the nodes, a draining node gets no new connections while
// its prefix still reaches it (and its running match goes on through the balancer), a
// killed node's prefix answers 503 and new connections reach the live nodes only.
//
// Needs haproxy (Debian's package; scripts/test.sh installs it): without it the test
// fails and says so. Every process it starts is killed at exit, failure or not, and its
// files live in a temporary directory that is removed. Every wait is bounded.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { Client, WAIT_MS, get, metric, player, run, startServer, test, withTimeout } from "./lib.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const GENERATOR = path.join(ROOT, "scripts", "haproxy-config.sh");
const NAMES = ["n1", "n2", "n3"];

const haproxyVersion = spawnSync("haproxy", ["-v"], { encoding: "utf8" });
if (haproxyVersion.error || haproxyVersion.status !== 0) {
  console.log(
    "FAIL balancer: haproxy is not installed or does not run (Debian: apt-get install haproxy; " +
      `scripts/test.sh installs it): ${haproxyVersion.error ? haproxyVersion.error.message : haproxyVersion.stderr}`,
  );
  process.exit(1);
}

// ---- processes, files, cleanup ------------------------------------------------------------

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thue-balancer-"));
const started = []; // every child process, killed at exit
const clients = []; // every WebSocket client, closed between tests

process.on("exit", () => {
  for (const p of started) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  fs.rmSync(dir, { recursive: true, force: true });
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => process.exit(1));

/** A free loopback port (bound and released: nothing else on this machine races for it in a test). */
async function freePort() {
  const srv = net.createServer();
  srv.listen(0, "127.0.0.1");
  await once(srv, "listening");
  const { port } = srv.address();
  srv.close();
  await once(srv, "close");
  return port;
}

/** Waits until fn() resolves truthy: at most `tries` looks, `every` ms apart; returns its value. */
async function until(fn, what, tries = 100, every = 100) {
  let last;
  for (let i = 0; i < tries; i++) {
    last = await fn();
    if (last) return last;
    await new Promise((r) => setTimeout(r, every));
  }
  throw new Error(`gave up after ${tries} looks ${every} ms apart waiting for ${what}`);
}

/** Runs the generator; {status, stdout, stderr}. */
function generate(args) {
  return spawnSync("bash", [GENERATOR, ...args], { encoding: "utf8", cwd: ROOT });
}

const nodes = {}; // name -> server (lib.mjs startServer), with .name and .listen port
async function startNode(name, port = 0) {
  const s = await startServer([
    "--node", name, "--drain-s", "60", "--trusted-proxy", "127.0.0.1",
    "--max-connections-per-ip", "4", "--port", String(port),
  ]);
  started.push(s.proc);
  s.name = name;
  nodes[name] = s;
  return s;
}

const lb = {}; // the balancer: url, ws, port, statsUrl, proc, log()
async function startBalancer() {
  lb.port = await freePort();
  const statsPort = await freePort();
  const cfg = generate([
    "--port", String(lb.port), "--bind", "127.0.0.1", "--stats", `127.0.0.1:${statsPort}`, "--maxconn", "2000",
    ...NAMES.map((n) => `${n}=127.0.0.1:${nodes[n].port}`),
  ]);
  assert.equal(cfg.status, 0, `haproxy-config.sh failed: ${cfg.stderr}`);
  const file = path.join(dir, "haproxy.cfg");
  fs.writeFileSync(file, cfg.stdout);
  const check = spawnSync("haproxy", ["-c", "-f", file], { encoding: "utf8" });
  assert.equal(check.status, 0, `haproxy -c rejects the generated configuration:\n${check.stdout}${check.stderr}`);
  let log = "";
  const proc = spawn("haproxy", ["-db", "-f", file], { stdio: ["ignore", "pipe", "pipe"] });
  started.push(proc);
  proc.stdout.on("data", (d) => (log += d));
  proc.stderr.on("data", (d) => (log += d));
  Object.assign(lb, {
    proc,
    log: () => log,
    url: `http://127.0.0.1:${lb.port}`,
    ws: `ws://127.0.0.1:${lb.port}/ws`,
    statsUrl: `http://127.0.0.1:${statsPort}/stats;csv`,
  });
  await until(async () => {
    if (proc.exitCode !== null) throw new Error(`haproxy exited (${proc.exitCode}):\n${log}`);
    const st = await stats().catch(() => null);
    return st && NAMES.every((n) => st[`nodes/${n}`] === "UP" && st[`node_${n}/${n}`] === "UP");
  }, "haproxy to see every node UP");
}

/** HAProxy's view: {"backend/server": status} from its CSV status page. */
async function stats() {
  const text = await (await fetch(lb.statsUrl)).text();
  const out = {};
  for (const line of text.split("\n")) {
    const f = line.split(",");
    if (f.length > 17 && !line.startsWith("#")) out[`${f[0]}/${f[1]}`] = f[17];
  }
  return out;
}

/** The balancer seen as a server by lib.mjs (optionally through /n/NAME). */
function via(name) {
  const base = name ? `/n/${name}` : "";
  return { url: `${lb.url}${base}`, ws: `${lb.url.replace("http", "ws")}${base}/ws` };
}

async function hello(name, through, addr) {
  const c = await player(through, name, addr);
  clients.push(c);
  return c;
}

async function closeClients() {
  await Promise.all(clients.splice(0).map((c) => (c.closeInfo ? null : withTimeout(c.close(), WAIT_MS, `${c.name} to close`))));
}

/** thue_connections_total of every live node: {name: n}. */
async function totals(names = NAMES) {
  const out = {};
  for (const n of names) out[n] = await metric(nodes[n], "thue_connections_total");
  return out;
}

// ---- the tests ------------------------------------------------------------------------------

test("the shipped configurations are the generator's output, and haproxy accepts them", async () => {
  for (const rel of ["deploy/haproxy/haproxy.cfg", "deploy/k8s/cluster/haproxy.cfg"]) {
    const text = fs.readFileSync(path.join(ROOT, rel), "utf8");
    const m = /^# generated by: bash scripts\/haproxy-config\.sh (.*)$/m.exec(text);
    assert.ok(m, `${rel} names the arguments it was generated with`);
    const again = generate(m[1].split(" "));
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stdout, text, `${rel} differs from the generator's output: regenerate it (${m[0]})`);
    const check = spawnSync("haproxy", ["-c", "-f", path.join(ROOT, rel)], { encoding: "utf8" });
    assert.equal(check.status, 0, `haproxy -c ${rel}:\n${check.stdout}${check.stderr}`);
  }
  // bad input: a clear error naming the part, exit 2, nothing printed on stdout
  for (const [args, said] of [
    [[], /no node given/],
    [["N1=127.0.0.1:1"], /node name 'N1'/],
    [["-x=127.0.0.1:1"], /unknown option -x=127.0.0.1:1/],
    [["n1=127.0.0.1"], /node address '127.0.0.1'/],
    [["n1=127.0.0.1:0"], /port 0/],
    [["n1=127.0.0.1:70000"], /port 70000/],
    [["n1=a:1", "n1=b:2"], /node n1 is named twice/],
    [["--port", "0", "n1=a:1"], /--port 0/],
    [["--port"], /--port needs a value/],
    [["--stats", "nowhere", "n1=a:1"], /--stats nowhere/],
    [["--maxconn", "many", "n1=a:1"], /--maxconn many/],
    [["n1"], /NAME=HOST:PORT/],
  ]) {
    const r = generate(args);
    assert.equal(r.status, 2, `haproxy-config.sh ${args.join(" ")} fails`);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, said);
  }
  const help = generate(["--help"]);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /NAME=HOST:PORT/);
});

test("/n/NAME/... reaches node NAME, the prefix stripped; an unknown name gets 404", async () => {
  for (const n of NAMES) await startNode(n);
  await startBalancer();
  for (const n of NAMES) {
    const h = await get(via(n), "/healthz");
    assert.equal(h.status, 200);
    assert.equal(h.json.node, n, `/n/${n}/healthz answered by ${h.json.node}`);
    assert.equal(h.json.status, "ok");
  }
  // the query string goes with it (the node's own 400 about it comes back)
  const q = await get(via("n2"), "/api/rooms?status=bogus");
  assert.equal(q.status, 400);
  assert.match(q.json.error.message, /status/);
  // /n/NAME alone is NAME's /
  const root = await fetch(`${lb.url}/n/n3`);
  assert.equal(root.status, 200);
  assert.match(await root.text(), /<html/i);
  // the prefix must be the whole name
  for (const p of ["/n/zz/healthz", "/n/n10/healthz", "/n/n1x", "/n/"]) {
    const r = await get({ url: lb.url }, p);
    assert.equal(r.status, 404, p);
    assert.equal(r.json.error.code, "not_found", p);
  }
  // unprefixed paths reach some node
  const any = await get({ url: lb.url }, "/healthz");
  assert.equal(any.status, 200);
  assert.ok(NAMES.includes(any.json.node));
  // a WebSocket through /n/n2/ws is on n2
  const before = await totals();
  const c = await hello("Ann", via("n2"));
  assert.equal(c.welcome.player.name, "Ann");
  const after = await totals();
  assert.deepEqual(
    NAMES.map((n) => after[n] - before[n]),
    NAMES.map((n) => (n === "n2" ? 1 : 0)),
  );
  await closeClients();
});

test("the nodes count clients by X-Forwarded-For: the per-address limit is per client, not per balancer", async () => {
  // --max-connections-per-ip 4 on every node: all through the balancer's one address,
  // the fifth would be refused whoever made it.
  for (let i = 0; i < 4; i++) await hello(`Ip${i}`, via("n1"), "127.0.0.9");
  await assert.rejects(Client.connect(via("n1").ws, "fifth", ["thue.v1"], { localAddress: "127.0.0.9" }), /HTTP 503/);
  const other = await hello("Other", via("n1"), "127.0.0.10");
  assert.equal(other.welcome.player.name, "Other");
  await closeClients();
  await until(async () => (await metric(nodes.n1, "thue_connections")) === 0, "n1's connections to close");
});

test("/ws connections spread over the three nodes (least connections)", async () => {
  const before = await totals();
  for (let i = 0; i < 9; i++) await hello(`P${i}`, via(), `127.0.1.${i + 1}`);
  const after = await totals();
  const got = NAMES.map((n) => after[n] - before[n]);
  assert.equal(got.reduce((a, b) => a + b, 0), 9);
  // leastconn with every connection held: each node gets its third
  assert.deepEqual(got, [3, 3, 3], `connections per node: ${got}`);
  for (const n of NAMES) assert.equal(await metric(nodes[n], "thue_connections"), 3);
  await closeClients();
  for (const n of NAMES) await until(async () => (await metric(nodes[n], "thue_connections")) === 0, `${n}'s connections to close`);
});

let drained; // the node that drained and was restarted
test("a draining node gets no new /ws; /n/NODE/ws still reaches it; its match goes on through the balancer", async () => {
  // Dana (ann) connects without a prefix: the node she reaches hosts the match; Drew
  // (bob) joins it through that node's prefix. Names are unique in the file: a guest's
  // name stays taken for its grace period after it left.
  let before = await totals();
  const ann = await hello("Dana", via(), "127.0.2.1");
  let after = await totals();
  const d = NAMES.find((n) => after[n] === before[n] + 1);
  assert.ok(d, "Ann reached one node");
  drained = d;
  const bob = await hello("Drew", via(d), "127.0.2.2");
  const { room } = await ann.ok({ type: "create_room", k: 3, first_builder: "creator" });
  await bob.ok({ type: "join", room });
  await ann.ok({ type: "ready", room });
  await bob.ok({ type: "ready", room });
  await ann.state(room, (s) => s.status === "playing");

  nodes[d].proc.kill("SIGTERM");
  const h = await until(async () => {
    const r = await get(via(d), "/healthz");
    return r.status === 503 && r.json && r.json.status === "draining" ? r : null;
  }, `/n/${d}/healthz to say draining`);
  assert.equal(h.json.node, d);
  // the balancer takes it out of the pool (fall 2 at 1 s), but not out of its prefix
  await until(async () => (await stats())[`nodes/${d}`] === "DOWN", `haproxy to take ${d} out of the pool`, 100, 100);
  assert.equal((await stats())[`node_${d}/${d}`], "UP");

  const others = NAMES.filter((n) => n !== d);
  before = await totals();
  for (let i = 0; i < 6; i++) await hello(`New${i}`, via(), `127.0.3.${i + 1}`);
  after = await totals();
  assert.equal(after[d], before[d], `no new connection reached the draining ${d}`);
  assert.equal(others.reduce((a, n) => a + after[n] - before[n], 0), 6);

  const cy = await hello("Dora", via(d), "127.0.2.3");
  assert.equal(cy.welcome.player.name, "Dora");
  assert.equal(await metric(nodes[d], "thue_connections_total"), after[d] + 1, `/n/${d}/ws reached ${d}`);

  // Ann's tunnel (through the pool, where d is now down) is still open: the match goes on
  await ann.ok({ type: "place", room, position: 1 });
  await bob.state(room, (s) => s.match && s.match.step === "paint");
  await bob.ok({ type: "paint", room, symbol: 1 });
  await ann.state(room, (s) => s.match && s.match.last_move && s.match.last_move.kind === "paint");

  // the match ends: the node says goodbye and exits 0; its prefix then answers 503
  await ann.ok({ type: "resign", room });
  const [code] = await withTimeout(nodes[d].exited, WAIT_MS, `${d} to exit after its match`);
  assert.equal(code, 0);
  assert.equal((await ann.next("goodbye")).reason, "shutdown");
  const gone = await until(async () => {
    const r = await get(via(d), "/healthz");
    return r.status === 503 && r.json && r.json.error ? r : null;
  }, `/n/${d}/healthz to answer the balancer's 503`, 50, 100);
  assert.equal(gone.json.error.code, "unavailable");
  assert.match(gone.json.error.message, new RegExp(`node ${d}`));
  await closeClients();

  // started again on its port, it is back in the pool and under its prefix (rise 2)
  await startNode(d, nodes[d].port);
  await until(async () => {
    const st = await stats();
    return st[`nodes/${d}`] === "UP" && st[`node_${d}/${d}`] === "UP";
  }, `haproxy to see ${d} UP again`);
  assert.equal((await get(via(d), "/healthz")).json.node, d);
});

test("a killed node: /n/NODE/... answers 503 at once, new /ws reach the live nodes", async () => {
  const k = NAMES.find((n) => n !== drained);
  const live = NAMES.filter((n) => n !== k);
  nodes[k].proc.kill("SIGKILL");
  await withTimeout(nodes[k].exited, WAIT_MS, `${k} to die`);
  // at once, before the health checks have noticed: a 503 (the refused connection
  // takes the node out), not a hang
  const r = await withTimeout(get(via(k), "/healthz"), 5000, `/n/${k}/healthz to answer`);
  assert.equal(r.status, 503);
  assert.equal(r.json.error.code, "unavailable");
  await assert.rejects(withTimeout(Client.connect(via(k).ws, "toDead"), 5000, `/n/${k}/ws to fail`), /HTTP 503/);
  const before = await totals(live);
  for (let i = 0; i < 8; i++) {
    const c = await hello(`After${i}`, via(), `127.0.4.${i + 1}`);
    assert.equal(c.welcome.player.name, `After${i}`);
  }
  const after = await totals(live);
  assert.equal(live.reduce((a, n) => a + after[n] - before[n], 0), 8, "every new connection reached a live node");
  for (const n of live) assert.ok(after[n] - before[n] >= 3, `${n} got ${after[n] - before[n]} of 8`);
  await until(async () => (await stats())[`nodes/${k}`] === "DOWN", `haproxy to mark ${k} DOWN`);
  await closeClients();
  for (const n of live) {
    const { code } = await nodes[n].stop("SIGTERM");
    assert.equal(code, 0);
  }
  lb.proc.kill("SIGTERM");
  await withTimeout(once(lb.proc, "exit"), WAIT_MS, "haproxy to exit");
});

await run();
