// attack_fd.test.mjs: more connections than file descriptors (issue 15). The server runs
// under a low open-file limit (prlimit --nofile=256) with no per-address limit in the way,
// and one address opens connections well past it. The server must not spin (at EMFILE lws
// retried accept() in a busy loop), must not flood its log (a line per try: ~30 MB/s),
// and must keep serving what it has: the WebSockets it holds still play, and /healthz
// still answers. Loopback only, 400 connections, a few seconds.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import net from "node:net";
import { Client, SERVER, WAIT_MS, get, run, test, withTimeout } from "./lib.mjs";

const NOFILE = 256;
const FLOOD = 400;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** thue-server under prlimit --nofile=N:N, on an ephemeral loopback port. */
async function startLimited(nofile, flags) {
  const args = [`--nofile=${nofile}:${nofile}`, SERVER, "--port", "0", "--bind", "127.0.0.1",
    "--db", ":memory:", "--log-level", "warn", ...flags];
  const proc = spawn("prlimit", args, { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let errBytes = 0;
  let errHead = "";
  proc.stderr.on("data", (d) => {
    errBytes += d.length;
    if (errHead.length < 4000) errHead += d;
  });
  const exited = once(proc, "exit");
  const port = await withTimeout(new Promise((resolve, reject) => {
    proc.stdout.on("data", (d) => {
      out += d;
      const m = /listening on http:\/\/[^:\s]+:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    exited.then(([code]) => reject(new Error(`server exited (${code}) before listening:\n${errHead}`)));
  }), WAIT_MS, "the server to listen");
  return {
    proc, port,
    url: `http://127.0.0.1:${port}`,
    ws: `ws://127.0.0.1:${port}/ws`,
    stderrBytes: () => errBytes,
    stderrHead: () => errHead,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
      await withTimeout(exited, WAIT_MS, "the server to exit").catch(() => proc.kill("SIGKILL"));
    },
  };
}

/** The process's CPU time in clock ticks (utime + stime, /proc/PID/stat). */
function cpuTicks(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
}

test("past the open-file limit: no busy loop, no log flood, held connections and /healthz still work", async () => {
  // prlimit runs the server itself (exec): its pid is the server's.
  const server = await startLimited(NOFILE, ["--max-connections-per-ip", "100000"]);
  const flood = [];
  try {
    const players = [];
    for (let i = 0; i < 10; i++) {
      const c = await Client.connect(server.ws, `p${i}`, ["thue.v1"], { localAddress: "127.0.0.3" });
      c.welcome = await c.ok({ type: "hello", protocol: 1, name: `p${i}` });
      players.push(c);
    }
    // The flood: FLOOD connections from one address, held open, never sending a byte.
    let refused = 0;
    for (let i = 0; i < FLOOD; i++) {
      const s = net.connect({ port: server.port, host: "127.0.0.1", localAddress: "127.0.0.2" });
      s.on("error", () => {});
      s.on("close", () => refused++);
      flood.push(s);
      if (i % 50 === 49) await sleep(50);
    }
    await sleep(500);
    const pid = server.proc.pid;
    const err0 = server.stderrBytes();
    const cpu0 = cpuTicks(pid);
    const t0 = Date.now();
    await sleep(2000);
    const cpu = (cpuTicks(pid) - cpu0) / 100 / ((Date.now() - t0) / 1000); // ticks are 1/100 s
    const logged = server.stderrBytes() - err0;
    // What it holds still works, and a probe from another address is answered.
    const t1 = Date.now();
    let health = 0;
    try {
      health = (await get(server, "/healthz", { signal: AbortSignal.timeout(2000) })).status;
    } catch (e) {
      health = String(e.message || e);
    }
    const healthMs = Date.now() - t1;
    let pongs = 0;
    for (const c of players) {
      try {
        if ((await c.request({ type: "ping" }, 2000)).type === "pong") pongs++;
      } catch {}
    }
    console.log(`     ulimit -n ${NOFILE}, ${FLOOD} connections opened, ${refused} closed by the server`);
    console.log(`     CPU over 2 s: ${(cpu * 100).toFixed(1)}% of a core; stderr: ${logged} bytes in 2 s`);
    console.log(`     /healthz: ${health} in ${healthMs} ms; held WebSockets answering: ${pongs} of ${players.length}`);
    if (logged > 0) console.log(`     the log began: ${JSON.stringify(server.stderrHead().slice(0, 300))}`);
    assert.ok(cpu < 0.5, `the server used ${(cpu * 100).toFixed(1)}% of a core while idle at its limit`);
    assert.ok(logged < 20000, `the server wrote ${logged} bytes of log in 2 s`);
    assert.equal(health, 200, "/healthz answers");
    assert.equal(pongs, players.length, "the held WebSockets still play");
  } finally {
    for (const s of flood) s.destroy();
    await server.stop();
  }
});

await run();
