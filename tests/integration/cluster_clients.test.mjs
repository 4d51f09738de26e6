// cluster_clients.test.mjs: the project's own clients through the balancer of several
// nodes (issue 31: "the project's own bots cannot play across nodes"). Three nodes on one
// PostgreSQL and one Redis, HAProxy in front (clusterlib.mjs). Each client is pointed at
// a different node's path through the balancer, so quick match pairs players of two
// nodes and one of them is sent `moved` (reason match); before, `thue bot` never followed
// it and the match ended by abandon 60 s later. Here:
//   - two `thue bot` processes on n1 and n2 play 3 games and both exit 0;
//   - clients/examples/bot.mjs on n1 plays `thue bot` on n2;
//   - `thue watch` asked through n3 for a room of n1 follows `moved` (reason room) and
//     prints the match to its end.
// Every process has a deadline; the balancer and the nodes are stopped at the end.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { CLI, run, test, withTimeout } from "./lib.mjs";
import { hello, startBalancer, startCluster } from "./clusterlib.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const GAMES_MS = 120000;

/** Runs cmd args; resolves to {code, stdout, stderr}, killing it past ms. */
async function runProc(cmd, args, what, ms = GAMES_MS) {
  const proc = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "", stderr = "";
  proc.stdout.on("data", (d) => (stdout += d));
  proc.stderr.on("data", (d) => (stderr += d));
  try {
    const [code] = await withTimeout(once(proc, "exit"), ms, what);
    return { code, stdout, stderr };
  } catch (e) {
    proc.kill("SIGKILL");
    throw new Error(`${e.message}\n${what} stdout:\n${stdout}\nstderr:\n${stderr}`);
  }
}

function needCli() {
  if (!CLI || !fs.existsSync(CLI))
    throw new Error(`no thue binary (${CLI}): build the thue target, or pass --cli PATH or set THUE_CLI`);
}

test("thue bot, bot.mjs and thue watch follow moved through the balancer", async () => {
  needCli();
  const cl = await startCluster(3);
  let lb = null;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thue-cluster-clients-"));
  try {
    lb = await startBalancer(cl);
    const at = (node) => lb.ws.replace(/\/ws$/, `/n/${node}/ws`);

    // Two thue bots on two nodes: three games, each pairing made across the nodes.
    const bot = (node, name) => runProc(CLI, ["bot", "--bot", "greedy", "--name", name, "--server", at(node),
      "--games", "3", "--queue", "square,3", "--think-ms", "50", "--json"], `thue bot on ${node}`);
    const [a, b] = await Promise.all([bot("n1", "BotOne"), bot("n2", "BotTwo")]);
    for (const [r, name] of [[a, "BotOne"], [b, "BotTwo"]]) {
      assert.equal(r.code, 0, `${name}: ${r.stderr}`);
      const sum = JSON.parse(r.stdout.trim().split("\n").pop());
      assert.equal(sum.games, 3, `${name} played 3 games: ${r.stdout}`);
    }
    const moves = (a.stderr + b.stderr).match(/the match is on node n[12]: moved there/g) || [];
    assert.ok(moves.length >= 1, `a bot followed moved at least once: ${a.stderr}${b.stderr}`);
    assert.doesNotMatch(a.stdout + b.stdout, /abandon/, "no game ended by abandon");
    console.log(`     thue bot x2: 3 games each, ${moves.length} moves followed`);

    // The Node example bot on n1 against thue bot on n2.
    fs.copyFileSync(path.join(HERE, "..", "..", "clients", "examples", "bot.mjs"), path.join(dir, "bot.mjs"));
    fs.symlinkSync(path.join(HERE, "node_modules"), path.join(dir, "node_modules"));
    const [ex, tb] = await Promise.all([
      runProc(process.execPath, [path.join(dir, "bot.mjs"), "--server", at("n1"), "--name", "example", "--games", "1", "--queue", "square,3"], "bot.mjs on n1"),
      runProc(CLI, ["bot", "--bot", "greedy", "--server", at("n2"), "--games", "1", "--queue", "square,3", "--think-ms", "50"], "thue bot on n2"),
    ]);
    assert.equal(ex.code, 0, ex.stderr);
    assert.equal(tb.code, 0, tb.stderr);
    assert.match(ex.stdout, /^game 1: room \S+: (win|loss|draw) \(score\)/m);

    // thue watch through n3 of a room that lives on n1: moved (room) is followed.
    const ann = await hello(cl.nodes.n1, "Ann");
    const bob = await hello(cl.nodes.n1, "Bob");
    const { room } = await ann.ok({ type: "create_room", k: 3, limit: 2, first_builder: "creator" });
    await bob.ok({ type: "join", room });
    const watch = runProc(CLI, ["watch", room, "--server", at("n3")], "thue watch through n3", 60000);
    await ann.ok({ type: "ready", room });
    await bob.ok({ type: "ready", room });
    await ann.state(room, (s) => s.status === "playing");
    // The watcher is in the room once it counts as a spectator; then the match ends.
    await ann.state(room, (s) => s.spectators >= 1, "thue watch to watch");
    await bob.ok({ type: "resign", room });
    const w = await watch;
    assert.equal(w.code, 0, w.stderr);
    assert.match(w.stdout, /resign/, `the watcher saw the end: ${w.stdout}`);
    await ann.close(); await bob.close();
  } finally {
    if (lb) await lb.stop();
    await cl.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** Starts cmd args; {proc, out(), err(), done: {code, stdout, stderr}} (killed past ms). */
function startProc(cmd, args, what, ms = GAMES_MS) {
  const proc = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "", stderr = "";
  proc.stdout.on("data", (d) => (stdout += d));
  proc.stderr.on("data", (d) => (stderr += d));
  const done = withTimeout(once(proc, "exit"), ms, what).then(([code]) => ({ code, stdout, stderr }),
    (e) => {
      proc.kill("SIGKILL");
      throw new Error(`${e.message}\n${what} stdout:\n${stdout}\nstderr:\n${stderr}`);
    });
  return { proc, out: () => stdout, err: () => stderr, done };
}

test("two thue bots play 5 quick matches each through the balancer while a node is killed with -9 between matches", async () => {
  needCli();
  const cl = await startCluster(3);
  let lb = null;
  try {
    lb = await startBalancer(cl);
    const at = (node) => lb.ws.replace(/\/ws$/, `/n/${node}/ws`);
    const bot = (node, name) => startProc(CLI, ["bot", "--bot", "greedy", "--name", name, "--server", at(node),
      "--games", "5", "--queue", "square,3", "--think-ms", "30", "--json"], `thue bot on ${node}`);
    const a = bot("n1", "KillOne"), b = bot("n2", "KillTwo");
    const games = (p) => p.out().split("\n").filter((l) => l.startsWith("{\"game\"")).map((l) => JSON.parse(l));
    // After two games, between matches, the node KillOne's connection is on (its own, or
    // the one a match moved it to) is killed.
    await withTimeout((async () => {
      while (games(a).length < 2 || games(b).length < 2) await new Promise((r) => setTimeout(r, 20));
    })(), GAMES_MS, "two games each");
    const moves = [...a.err().matchAll(/the match is on node (n\d): moved there/g)];
    const victim = moves.length ? moves[moves.length - 1][1] : "n1";
    cl.nodes[victim].proc.kill("SIGKILL");
    await cl.nodes[victim].exited;
    delete cl.nodes[victim];
    const [ra, rb] = await Promise.all([a.done, b.done]);
    for (const [r, name] of [[ra, "KillOne"], [rb, "KillTwo"]]) {
      assert.equal(r.code, 0, `${name}: ${r.stderr}`);
      const sum = JSON.parse(r.stdout.trim().split("\n").pop());
      assert.equal(sum.games, 5, `${name} played 5 games: ${r.stdout}`);
    }
    // KillOne's node died: it came back (through the balancer's /ws when it was its own)
    assert.match(ra.stderr, /reconnecting/, ra.stderr);
    assert.match(ra.stderr, /started a new one|resumed the session/, ra.stderr);
    const abandoned = [...games(a), ...games(b)].filter((g) => g.reason === "abandon");
    assert.equal(abandoned.length, 0, `no game ended by abandon: ${JSON.stringify(abandoned)}`);
    console.log(`     5 games each; ${victim} killed; KillOne after the kill: ${(ra.stderr.match(/thue bot: [^\n]*/g) || []).slice(-3).join(" / ")}`);
  } finally {
    if (lb) await lb.stop();
    await cl.stop();
  }
});

await run();
