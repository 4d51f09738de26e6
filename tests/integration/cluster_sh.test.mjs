// cluster_sh.test.mjs: the one command of issue 19, `bash scripts/cluster.sh`, started in
// a temporary directory on a free port with this build's server, and driven through its
// HAProxy only: quick match across nodes (the moved player follows /n/NODE/ws), the
// ladder the same through every node's prefix, a node killed with SIGKILL while the
// others play on, `start` bringing it back, `status`, `drain` and `stop`.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { Client, SERVER, run, test } from "./lib.mjs";
import { freePort, until } from "./clusterlib.mjs";

const SCRIPT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "scripts", "cluster.sh");

function cluster(args, dir) {
  return execFileSync("bash", [SCRIPT, ...args, "--dir", dir], { encoding: "utf8", timeout: 120000, stdio: ["ignore", "pipe", "pipe"] });
}

/** `cluster.sh status`: {code (0 all well, 1 something down), text}. */
function status(dir) {
  const r = spawnSync("bash", [SCRIPT, "status", "--dir", dir], { encoding: "utf8", timeout: 60000 });
  return { code: r.status, text: r.stdout };
}

test("scripts/cluster.sh: three nodes on PostgreSQL and Redis behind HAProxy, driven through it", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thue-cluster-sh-"));
  const port = await freePort();
  const base = `127.0.0.1:${port}`;
  try {
    const out = cluster(["start", "--port", String(port), "--server", SERVER], dir);
    assert.match(out, new RegExp(`open http://localhost:${port}`));
    assert.match(out, /3 nodes \(PostgreSQL \+ Redis\)/);
    const again = cluster(["start", "--port", String(port), "--server", SERVER], dir);
    assert.match(again, /runs/i, "a second start says the cluster runs");

    // Redis asks for its password: nobody else on the machine reads or writes it; the
    // password sits in a mode-600 file and on no command line.
    const redisPort = new URL(fs.readFileSync(path.join(dir, "redis.url"), "utf8").trim()).port;
    const pass = fs.readFileSync(path.join(dir, "redis.pass"), "utf8").trim();
    assert.match(pass, /^[0-9a-f]{32}$/);
    assert.equal(fs.statSync(path.join(dir, "redis.pass")).mode & 0o777, 0o600);
    const cli = (env) => spawnSync("redis-cli", ["-p", redisPort, "ping"], { encoding: "utf8", env: { ...process.env, ...env } });
    assert.match(cli({}).stdout + cli({}).stderr, /NOAUTH/, "Redis refuses a client without the password");
    assert.match(cli({ REDISCLI_AUTH: pass }).stdout, /PONG/);
    // The cluster secret (issue 31): random, in a mode-600 file the nodes are given by its
    // path; on no command line, in no node's environment, and not in Redis.
    const secretFile = path.join(dir, "cluster.secret");
    const secret = fs.readFileSync(secretFile, "utf8").trim();
    assert.match(secret, /^[0-9a-f]{64}$/);
    assert.equal(fs.statSync(secretFile).mode & 0o777, 0o600);
    for (const n of ["n1", "n2", "n3"]) {
      const pid = fs.readFileSync(path.join(dir, `${n}.pid`), "utf8").trim();
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
      assert.doesNotMatch(cmdline, new RegExp(pass), `${n}'s command line`);
      assert.doesNotMatch(cmdline, new RegExp(secret), `${n}'s command line`);
      assert.match(cmdline, /--cluster-secret-file\0[^\0]*cluster\.secret\0/, `${n} is given the secret's file`);
      assert.doesNotMatch(fs.readFileSync(`/proc/${pid}/environ`, "utf8"), new RegExp(secret), `${n}'s environment`);
    }
    const dump = spawnSync("redis-cli", ["-p", redisPort, "--no-auth-warning", "--scan"], { encoding: "utf8", env: { ...process.env, REDISCLI_AUTH: pass } });
    assert.equal(dump.status, 0);
    assert.doesNotMatch(dump.stdout, new RegExp(secret), "no key of Redis holds the secret");

    const hello = async (p, who) => {
      const c = await Client.connect(`ws://${base}${p}`, JSON.stringify(who));
      c.welcome = await c.ok({ type: "hello", protocol: 1, ...who });
      return c;
    };
    // quick match: Ann on n1, Bob on n2 (through their prefixes); whoever is moved follows
    const ann = await hello("/n/n1/ws", { name: "Ann" });
    const bob = await hello("/n/n2/ws", { name: "Bob" });
    await ann.ok({ type: "claim_name", name: "Ann" });
    await bob.ok({ type: "claim_name", name: "Bob" });
    await ann.ok({ type: "queue_join", variant: "square", k: 4, rated: true });
    await new Promise((r) => setTimeout(r, 300));
    await bob.ok({ type: "queue_join", variant: "square", k: 4, rated: true });
    const mv = await ann.next("moved");
    assert.equal(mv.node, "n2");
    const ann2 = await hello(mv.path, { resume: mv.resume });
    const st = await ann2.state(mv.room, (s) => s.status === "playing");
    const first = st.match.builder === st.you ? ann2 : bob;
    const second = first === ann2 ? bob : ann2;
    for (const sym of [1, 2]) { // two insertions: a resigned rated match needs 2 moves each
      await first.ok({ type: "place", room: mv.room, position: 1 });
      await second.state(mv.room, (s) => s.match && s.match.step === "paint");
      await second.ok({ type: "paint", room: mv.room, symbol: sym });
      await first.state(mv.room, (s) => s.match && s.match.step === "place" && s.match.word.length === 1 + sym);
    }
    await second.ok({ type: "resign", room: mv.room });
    const end = await first.next("match_end");
    assert.ok(end.match_id && end.ratings);

    // the ladder and the record, the same through every node's prefix
    const ladders = [];
    for (const n of ["n1", "n2", "n3"])
      ladders.push(await until(async () => {
        const t = await (await fetch(`http://${base}/n/${n}/api/ladder?variant=square&k=4`)).text();
        return JSON.parse(t).total === 2 && t;
      }, `the ladder through /n/${n}/`));
    assert.equal(new Set(ladders).size, 1);
    assert.equal((await fetch(`http://${base}/n/n3/api/matches/${end.match_id}`)).status, 200);

    // n3 killed: the others play on; status says so; start brings it back
    const pid = Number(fs.readFileSync(path.join(dir, "n3.pid"), "utf8"));
    process.kill(pid, "SIGKILL");
    const cy = await hello("/n/n1/ws", { name: "Cy" });
    const dee = await hello("/n/n1/ws", { name: "Dee" });
    const { room } = await cy.ok({ type: "create_room", k: 3 });
    await dee.ok({ type: "join", room });
    await until(async () => {
      const st = status(dir);
      return st.code === 1 && /n3 +503 down/.test(st.text) && /n1 +200 ok/.test(st.text);
    }, "status to see n3 gone");
    const restarted = cluster(["start", "--port", String(port), "--server", SERVER], dir);
    await until(async () => (await (await fetch(`http://${base}/n/n3/healthz`)).json()).node === "n3", "n3 back", 30000).catch((e) => {
      throw new Error(`${e.message}\n${restarted}\n${status(dir).text}`);
    });
    const back = status(dir);
    assert.equal(back.code, 0, back.text);
    assert.match(back.text, /n3 +200 ok/);

    // drain n2 (no match runs there now: it exits), then stop everything
    cluster(["drain", "n2"], dir);
    await until(async () => (await fetch(`http://${base}/n/n2/healthz`)).status === 503, "n2 to drain away");
    const stopped = cluster(["stop"], dir);
    assert.match(stopped, /stopped/);
    await until(async () => !(await fetch(`http://${base}/healthz`).then(() => true).catch(() => false)), "the balancer to stop");
  } finally {
    try {
      cluster(["stop"], dir);
    } catch {
      // already stopped
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

await run();
