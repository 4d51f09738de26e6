// trusted_network.test.mjs (issue 31): --trusted-proxy naming a network, as the shipped
// Kubernetes cluster does with the pod network (deploy/k8s/cluster/configmap.yaml).
// Loopback stands in for the pod network: every connection of the test comes from
// 127.0.0.0/8. The per-address room limit (--room-rate-per-ip) shows whom the server
// counted a connection as:
//   - trusted 127.0.0.0/8: a connection counts as the client X-Forwarded-For names, the
//     rightmost address there that is not in a trusted network (a forged left part
//     changes nothing; a hop inside 127.0.0.0/8 is skipped); one header split over two
//     lines (what HAProxy's option forwardfor adds after a client's own) reads as one list;
//   - trusted 10.0.0.0/8, which loopback is not in: X-Forwarded-For is ignored;
//   - through HAProxy with the configuration scripts/haproxy-config.sh prints (the one
//     deploy/k8s/cluster/haproxy.cfg is): a client inside the trusted network (which the
//     balancer's own X-Forwarded-For hop would skip) cannot have a forged header believed.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client, run, startServer, test } from "./lib.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const RATE = 3; // rooms one address may make at once (--room-rate-per-ip, a minute's worth)

/** A guest connected with the given X-Forwarded-For (a string, or an array: one header
 * line each) from localAddress, after hello. */
async function guest(server, name, xff, localAddress = "127.0.0.1", url = server.ws) {
  const options = { localAddress };
  if (xff !== undefined) options.headers = { "X-Forwarded-For": xff };
  const c = await Client.connect(url, name, ["thue.v1"], options);
  await c.ok({ type: "hello", protocol: 1, name });
  return c;
}

/** create_room from c: "ok" or the error's code. */
async function makeRoom(c) {
  const r = await c.request({ type: "create_room", k: 3, first_builder: "creator" });
  return r.type === "error" ? r.code : "ok";
}

/** n rooms from c: their answers. */
async function makeRooms(c, n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await makeRoom(c));
  return out;
}

const FULL = Array(RATE).fill("ok");
const clients = [];
let seq = 0;
async function as(server, xff, localAddress, url) {
  const c = await guest(server, `G${++seq}`, xff, localAddress, url);
  clients.push(c);
  return c;
}
async function closeAll() {
  await Promise.all(clients.splice(0).map((c) => c.close()));
}

test("--trusted-proxy 127.0.0.0/8: each forwarded client has its own room limit", async () => {
  const server = await startServer(["--trusted-proxy", "127.0.0.0/8", "--room-rate-per-ip", String(RATE)]);
  try {
    // 203.0.113.1 uses up its rooms; another connection naming it is refused too.
    const a = await as(server, "203.0.113.1");
    assert.deepEqual(await makeRooms(a, RATE), FULL);
    assert.equal(await makeRoom(a), "rate_limited");
    assert.equal(await makeRoom(await as(server, "203.0.113.1", "127.0.0.2")), "rate_limited",
      "the same forwarded client through another proxy address of the network");
    // 203.0.113.2, through the same proxy address, is not affected.
    const b = await as(server, "203.0.113.2");
    assert.deepEqual(await makeRooms(b, RATE), FULL);
    assert.equal(await makeRoom(b), "rate_limited");
    // The proxy's own connections (no header) count as the proxy's address.
    assert.deepEqual(await makeRooms(await as(server, undefined, "127.0.0.9"), RATE), FULL);
    assert.equal(await makeRoom(await as(server, undefined, "127.0.0.9")), "rate_limited");
    assert.equal(await makeRoom(await as(server, undefined, "127.0.0.10")), "ok");
  } finally {
    await closeAll();
    await server.stop();
  }
});

test("a forged chain counts as its rightmost untrusted address; trusted hops are skipped", async () => {
  const server = await startServer(["--trusted-proxy", "127.0.0.0/8", "--room-rate-per-ip", String(RATE)]);
  try {
    // "1.2.3.4, 5.6.7.8": 1.2.3.4 is whatever the client wrote, 5.6.7.8 what the proxy saw.
    const forged = await as(server, "1.2.3.4, 5.6.7.8");
    assert.deepEqual(await makeRooms(forged, RATE), FULL);
    assert.equal(await makeRoom(forged), "rate_limited");
    assert.equal(await makeRoom(await as(server, "5.6.7.8")), "rate_limited", "it was 5.6.7.8's");
    assert.equal(await makeRoom(await as(server, "1.2.3.4")), "ok", "1.2.3.4 was not charged");
    // Hops inside the trusted network (proxies in a row) are skipped, whatever their
    // address in 127.0.0.0/8, an IPv4-mapped one included.
    const chained = await as(server, "198.51.100.7, 127.0.0.5, ::ffff:127.3.2.1");
    assert.deepEqual(await makeRooms(chained, RATE), FULL);
    assert.equal(await makeRoom(await as(server, "198.51.100.7")), "rate_limited", "counted as 198.51.100.7");
    assert.equal(await makeRoom(await as(server, "127.0.0.5")), "ok", "not as the proxy hop");
    // One list over two header lines (a proxy that appends a line of its own): the last
    // line's address is the rightmost.
    const split = await as(server, ["192.0.2.1", "192.0.2.2"]);
    assert.deepEqual(await makeRooms(split, RATE), FULL);
    assert.equal(await makeRoom(await as(server, "192.0.2.2")), "rate_limited", "counted as 192.0.2.2");
    assert.equal(await makeRoom(await as(server, "192.0.2.1")), "ok", "not as the first line's");
  } finally {
    await closeAll();
    await server.stop();
  }
});

test("--trusted-proxy 10.0.0.0/8 (not loopback): X-Forwarded-For is ignored", async () => {
  const server = await startServer(["--trusted-proxy", "10.0.0.0/8, fd00::/8", "--room-rate-per-ip", String(RATE)]);
  try {
    const a = await as(server, "203.0.113.1");
    assert.deepEqual(await makeRooms(a, RATE), FULL);
    // Every other header from 127.0.0.1 is 127.0.0.1 too: one limit for all of them.
    for (const xff of ["203.0.113.2", "10.1.2.3", "1.2.3.4, 5.6.7.8"])
      assert.equal(await makeRoom(await as(server, xff)), "rate_limited", `X-Forwarded-For: ${xff}`);
    // Another peer address has its own.
    assert.equal(await makeRoom(await as(server, "203.0.113.1", "127.0.0.2")), "ok");
  } finally {
    await closeAll();
    await server.stop();
  }
});

// ---- through HAProxy -----------------------------------------------------------------

function haproxyFound() {
  return spawnSync("haproxy", ["-v"], { encoding: "utf8" }).status === 0;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function until(fn, what, tries = 100, every = 100) {
  for (let i = 0; i < tries; i++) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, every));
  }
  throw new Error(`gave up waiting for ${what}`);
}

test("through HAProxy (haproxy-config.sh's configuration), a client's own X-Forwarded-For is dropped", async () => {
  if (!haproxyFound()) {
    console.log("     (haproxy is not installed: skipped)");
    return;
  }
  const server = await startServer(["--node", "n1", "--trusted-proxy", "127.0.0.0/8", "--room-rate-per-ip", String(RATE)]);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thue-trusted-"));
  let proc;
  let log = "";
  try {
    const port = await freePort();
    const cfg = spawnSync("bash", [path.join(ROOT, "scripts/haproxy-config.sh"), "--port", String(port),
      "--bind", "127.0.0.1", "--maxconn", "200", `n1=127.0.0.1:${server.port}`], { encoding: "utf8" });
    assert.equal(cfg.status, 0, cfg.stderr);
    const file = path.join(dir, "haproxy.cfg");
    fs.writeFileSync(file, cfg.stdout);
    proc = spawn("haproxy", ["-db", "-f", file], { stdio: ["ignore", "pipe", "pipe"] });
    proc.stdout.on("data", (d) => (log += d));
    proc.stderr.on("data", (d) => (log += d));
    const lb = `ws://127.0.0.1:${port}/ws`;
    await until(async () => {
      if (proc.exitCode !== null) throw new Error(`haproxy exited:\n${log}`);
      const r = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null);
      return r && r.status === 200;
    }, "haproxy to reach the node");

    // The client is at 127.0.0.21, inside the trusted network (as a pod is inside the pod
    // network) and forges a header. The balancer drops it and writes 127.0.0.21 itself:
    // had it kept it ("203.0.113.66, 127.0.0.21"), the node would skip the trusted hop
    // and believe 203.0.113.66.
    const forger = await as(server, "203.0.113.66", "127.0.0.21", lb);
    assert.deepEqual(await makeRooms(forger, RATE), FULL);
    assert.equal(await makeRoom(await as(server, undefined, "127.0.0.21", lb)), "rate_limited",
      "counted as 127.0.0.21, the address the balancer saw");
    assert.equal(await makeRoom(await as(server, undefined, "127.0.0.22", lb)), "ok", "another client is not");
    assert.equal(await makeRoom(await as(server, "203.0.113.66", "127.0.0.23", lb)), "ok",
      "the forged address was charged nothing");
  } finally {
    await closeAll();
    if (proc && proc.exitCode === null) {
      proc.kill("SIGTERM");
      await new Promise((r) => (proc.exitCode !== null ? r() : proc.once("exit", r)));
    }
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

await run();
