// analysis.test.mjs: the analysis commands (PROTOCOL.md "Analysis") against the real
// server: the tree of a fixed position and seed equals `thue bestmove --bot uct` (best
// move, root visits, nodes made), stop and resume grow one tree, the max_nodes cap, who
// may analyse a room, every error code, close, replacement and the end of a connection
// (the thue_analyses_running gauge).
//
// The thue binary comes from --cli PATH, $THUE_CLI, or next to the server binary, as in
// cli.test.mjs; without it the tests fail.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import { promisify } from "node:util";
import { CLI, WAIT_MS, metric, player, run, startServer, test, withTimeout } from "./lib.mjs";

const exec = promisify(execFile);


/** thue bestmove's --json answer for a position of game. */
async function bestmove(game, options, position, iterations, seed, playout = 100) {
  if (!CLI || !fs.existsSync(CLI))
    throw new Error(`no thue binary (${CLI}): build the thue target, or pass --cli PATH or set THUE_CLI`);
  const { stdout } = await exec(CLI, [
    "bestmove", "--game", game, "--options", JSON.stringify(options), "--position", JSON.stringify(position),
    "--bot", `uct:iterations=${iterations},playout=${playout}`, "--seed", String(seed), "--json",
  ]);
  return JSON.parse(stdout);
}

/** The next analysis_tree of analysis key whose status is one of statuses. */
function tree(c, key, statuses = ["done"]) {
  return c.next((m) => m.type === "analysis_tree" && m.analysis === key && statuses.includes(m.status),
    `an analysis_tree (${statuses.join("/")}) of ${key}`, 4 * WAIT_MS);
}

/** Every node of a NODE tree, depth first. */
function nodes(root) {
  const out = [];
  const walk = (n) => {
    out.push(n);
    n.children.forEach(walk);
  };
  walk(root);
  return out;
}

/** Polls /metrics until the gauge reads want (the server frees on the loop, soon after). */
async function gaugeBecomes(server, want) {
  await withTimeout((async () => {
    for (;;) {
      if ((await metric(server, "thue_analyses_running")) === want) return;
      await new Promise((r) => setImmediate(r));
    }
  })(), WAIT_MS, `thue_analyses_running to read ${want}`);
}

/** Stops the server; it must exit 0 with no sanitizer report (a leaked or misused tree
 * shows in an ASan build). */
async function stopClean(server) {
  const { code } = await server.stop("SIGTERM");
  assert.doesNotMatch(server.stderr(), /Sanitizer|runtime error/);
  assert.equal(code, 0, server.stderr());
}

test("a Nim position with a fixed seed: the tree, its best move and visits equal thue bestmove's", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const started = await ann.ok({
      type: "analyze", game: "nim", game_options: { heaps: [3, 4, 5] }, position: { heaps: [3, 4, 5] },
      iterations: 3000, seed: 42,
    });
    assert.equal(started.type, "analysis_started");
    assert.equal(started.game, "nim");
    assert.deepEqual(started.game_options, { heaps: [3, 4, 5], misere: false });
    assert.deepEqual(started.position.heaps, [3, 4, 5]);
    assert.equal(started.iterations, 3000);
    assert.equal(started.playout, 100);
    assert.equal(started.c, Math.SQRT2);
    assert.equal(started.seed, 42);
    assert.equal(started.max_nodes, 5000);
    const done = await tree(ann, started.analysis);
    const cli = await bestmove("nim", { heaps: [3, 4, 5] }, { heaps: [3, 4, 5] }, 3000, 42);
    assert.deepEqual(done.best, cli.move);
    assert.equal(done.iterations, 3000);
    assert.equal(done.tree.visits, 3000);
    assert.equal(done.nodes, cli.nodes + 1); // the CLI counts the nodes made, not the root
    assert.equal(done.tree.move, null);
    assert.equal(done.tree.to_move, 0);
    assert.equal(done.tree.name, JSON.stringify(started.position).replace(/"/g, ""));
    assert.ok(!done.tree.name.includes('"'));
    // The root's children: the legal moves in the game's order (heap 0 take 1..3, ...).
    assert.equal(done.tree.children.length + done.tree.hidden, 12);
    assert.deepEqual(done.tree.children.slice(0, 3).map((n) => n.move), [1, 2, 3].map((take) => ({ heap: 0, take })));
    assert.equal(done.tree.children.reduce((s, n) => s + n.visits, 0), 3000);
    // The most visited child is the best move.
    const top = done.tree.children.reduce((a, b) => (b.visits > a.visits ? b : a));
    assert.deepEqual(top.move, done.best);
    for (const n of nodes(done.tree)) {
      assert.ok(n.ended <= n.visits);
      assert.ok(n.value >= 0 && n.value <= 1);
      assert.ok(n.children.reduce((s, k) => s + k.visits, 0) <= n.visits);
    }
    assert.equal(nodes(done.tree).length, done.shown);
    assert.ok(done.shown <= 5000);
  } finally {
    await stopClean(server);
  }
});

test("stop and resume grow one tree: seq and iterations go on, the final visits are the total", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    // The circle game's playouts are long: a million iterations take far longer than the test.
    const started = await ann.ok({ type: "analyze", game: "circle", iterations: 1000000, playout: 300, seed: 7, max_nodes: 50 });
    const first = await tree(ann, started.analysis, ["running"]);
    assert.equal(first.seq, 1);
    assert.ok(first.shown <= 50);
    assert.equal((await ann.request({ type: "analyze_stop", analysis: started.analysis })).type, "ok");
    const stopped = await tree(ann, started.analysis, ["stopped"]);
    assert.ok(stopped.seq > first.seq);
    assert.ok(stopped.iterations >= first.iterations && stopped.iterations < 1000000);
    assert.equal(stopped.tree.visits, stopped.iterations);
    // A stopped analysis stays stopped: nothing more comes until the resume (running
    // trees sent before the stopped one may still wait in the inbox: they are older).
    assert.equal((await ann.request({ type: "ping" })).type, "pong");
    assert.ok(ann.inbox.every((m) => m.type !== "analysis_tree" || (m.status === "running" && m.seq < stopped.seq)));
    ann.inbox = ann.inbox.filter((m) => m.type !== "analysis_tree");
    assert.equal((await ann.request({ type: "ping" })).type, "pong");
    assert.equal(ann.inbox.filter((m) => m.type === "analysis_tree").length, 0);
    assert.equal((await ann.request({ type: "analyze_resume", analysis: started.analysis, iterations: 300 })).type, "ok");
    const done = await tree(ann, started.analysis);
    assert.ok(done.seq > stopped.seq);
    assert.equal(done.iterations, stopped.iterations + 300);
    assert.equal(done.tree.visits, done.iterations);
    // The same tree as one uninterrupted search of as many iterations.
    const cli = await bestmove("circle", started.game_options, started.position, done.iterations, 7, 300);
    assert.deepEqual(done.best, cli.move);
    assert.equal(done.nodes, cli.nodes + 1);
    // A done analysis resumed without iterations runs its budget (300) again.
    await ann.ok({ type: "analyze_resume", analysis: started.analysis });
    const again = await tree(ann, started.analysis);
    assert.equal(again.iterations, done.iterations + 300);
  } finally {
    await stopClean(server);
  }
});

test("max_nodes caps the tree sent: the most visited nodes, hidden counts what is left out", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const started = await ann.ok({ type: "analyze", game: "nim", position: { heaps: [3, 4, 5] }, iterations: 2000, seed: 3, max_nodes: 10 });
    const done = await tree(ann, started.analysis);
    const all = nodes(done.tree);
    assert.equal(done.shown, 10);
    assert.equal(all.length, 10);
    assert.ok(done.nodes > 10);
    assert.equal(done.tree.children.length + done.tree.hidden, 12);
    const minShown = Math.min(...all.map((n) => n.visits));
    for (const n of all) for (const k of n.children) assert.ok(k.visits <= n.visits);
    // Every root child left out has no more visits than any node shown (the cap keeps the
    // most visited); the root's children shown are the most visited ones.
    assert.ok(done.tree.children.every((k) => k.visits >= minShown));
  } finally {
    await stopClean(server);
  }
});

test("a room: spectators may analyse a running match, its players only once it is over", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const bob = await player(server, "Bob");
    const cyd = await player(server, "Cyd");
    const room = (await ann.ok({ type: "create_room", game: "nim", game_options: { heaps: [2, 3] }, first_builder: "creator" })).room;
    let r = await cyd.request({ type: "analyze", room });
    assert.equal(r.code, "not_running");
    assert.equal(r.field, "room");
    await bob.ok({ type: "join", room });
    await ann.ok({ type: "ready", room });
    await bob.ok({ type: "ready", room });
    await cyd.ok({ type: "spectate", room });
    await ann.ok({ type: "move", room, move: { heap: 0, take: 1 } });
    r = await ann.request({ type: "analyze", room });
    assert.equal(r.code, "not_allowed");
    assert.match(r.message, /once the match is over/);
    r = await bob.request({ type: "analyze", room, iterations: 100 });
    assert.equal(r.code, "not_allowed");
    const watch = await cyd.ok({ type: "analyze", room, iterations: 500, seed: 1 });
    assert.equal(watch.game, "nim");
    assert.deepEqual(watch.position.heaps, [1, 3]);
    assert.equal(watch.position.to_move, 1);
    const t = await tree(cyd, watch.analysis);
    assert.equal(t.tree.to_move, 1);
    assert.equal(t.tree.visits, 500);
    // Anybody may type the position in by hand.
    await ann.ok({ type: "analyze", game: "nim", game_options: { heaps: [2, 3] }, position: watch.position, iterations: 10 });
    await bob.ok({ type: "resign", room });
    const after = await ann.ok({ type: "analyze", room, iterations: 50 });
    assert.deepEqual(after.position.heaps, [1, 3]);
    assert.equal((await tree(ann, after.analysis)).tree.visits, 50);
  } finally {
    await stopClean(server);
  }
});

test("every error: bad members, games, options, positions, rooms, keys, limits", async () => {
  const server = await startServer(["--max-analyses", "1", "--analysis-iterations-max", "1000"]);
  try {
    const ann = await player(server, "Ann");
    const bob = await player(server, "Bob");
    const cases = [
      [{ game: "nim", depth: 3 }, "bad_message", "depth"],
      [{ game: "nim", room: "r1" }, "bad_message", "game"],
      [{}, "bad_message", "game"],
      [{ room: "r1", position: {} }, "bad_message", "position"],
      [{ room: "r1", game_options: {} }, "bad_message", "game_options"],
      [{ game: "nim", iterations: 0 }, "bad_message", "iterations"],
      [{ game: "nim", iterations: 1000001 }, "bad_message", "iterations"],
      [{ game: "nim", iterations: 1001 }, "bad_message", "iterations"], // the server's limit
      [{ game: "nim", playout: 0 }, "bad_message", "playout"],
      [{ game: "nim", c: -1 }, "bad_message", "c"],
      [{ game: "nim", c: 1000.5 }, "bad_message", "c"],
      [{ game: "nim", seed: -1 }, "bad_message", "seed"],
      [{ game: "nim", seed: 9007199254740992 }, "bad_message", "seed"],
      [{ game: "nim", max_nodes: 50001 }, "bad_message", "max_nodes"],
      [{ game: "nim", position: [1] }, "bad_message", "position"],
      [{ game: "chess" }, "unknown_game", "game"],
      [{ game: "nim", game_options: { heaps: [] } }, "bad_options", "game_options/heaps"],
      [{ game: "nim", position: { heaps: "x" } }, "bad_state", null],
      [{ room: "nosuchroom" }, "no_such_room", "room"],
    ];
    for (const [members, code, field] of cases) {
      const r = await ann.request({ type: "analyze", ...members });
      assert.equal(r.type, "error", JSON.stringify(members));
      assert.equal(r.code, code, `${JSON.stringify(members)}: ${r.message}`);
      if (field) assert.equal(r.field, field, JSON.stringify(members));
      else assert.match(r.field, /^position/);
    }
    for (const type of ["analyze_stop", "analyze_resume", "analyze_close"]) {
      let r = await ann.request({ type, analysis: "anothing" });
      assert.equal(r.code, "not_found");
      assert.equal(r.field, "analysis");
      r = await ann.request({ type, analysis: "a1", extra: 1 });
      assert.equal(r.code, "bad_message");
      assert.equal(r.field, "extra");
      r = await ann.request({ type });
      assert.equal(r.code, "bad_message");
      assert.equal(r.field, "analysis");
    }
    assert.equal((await ann.request({ type: "analyze_resume", analysis: "a1", iterations: 0 })).field, "iterations");
    // Nothing refused above was started.
    assert.equal(await metric(server, "thue_analyses_running"), 0);
    // The server's limit of analyses (1 here): another session's is refused; a session's
    // own new analysis replaces its old one.
    const a = await ann.ok({ type: "analyze", game: "nim", iterations: 1000 });
    assert.equal((await bob.request({ type: "analyze", game: "nim", iterations: 10 })).code, "server_busy");
    const a2 = await ann.ok({ type: "analyze", game: "nim", iterations: 1000 });
    assert.notEqual(a2.analysis, a.analysis);
    assert.equal((await ann.request({ type: "analyze_stop", analysis: a.analysis })).code, "not_found");
    await tree(ann, a2.analysis);
    // At the limit of iterations per analysis, a resume is refused.
    const r = await ann.request({ type: "analyze_resume", analysis: a2.analysis });
    assert.equal(r.code, "not_allowed");
    // Someone else's analysis is not found.
    assert.equal((await bob.request({ type: "analyze_close", analysis: a2.analysis })).code, "not_found");
  } finally {
    await stopClean(server);
  }
});

test("close frees an analysis, and so does the end of its connection", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const bob = await player(server, "Bob");
    const a = await ann.ok({ type: "analyze", game: "circle", iterations: 1000000, seed: 5 });
    await bob.ok({ type: "analyze", game: "circle", iterations: 1000000, seed: 6 });
    await gaugeBecomes(server, 2);
    assert.equal((await ann.request({ type: "analyze_close", analysis: a.analysis })).type, "ok");
    await gaugeBecomes(server, 1);
    assert.equal((await ann.request({ type: "analyze_resume", analysis: a.analysis })).code, "not_found");
    await bob.close();
    await gaugeBecomes(server, 0);
    assert.equal(await metric(server, "thue_analyses_total"), 2);
  } finally {
    await stopClean(server);
  }
});

test("shutdown while analyses search: the server stops them and exits cleanly", async () => {
  const server = await startServer(["--log-level", "info"]);
  const ann = await player(server, "Ann");
  const bob = await player(server, "Bob");
  const a = await ann.ok({ type: "analyze", game: "circle", iterations: 1000000, seed: 1 });
  await bob.ok({ type: "analyze", game: "rims", iterations: 1000000, seed: 2 });
  await tree(ann, a.analysis, ["running"]);
  const { code } = await server.stop("SIGTERM");
  assert.equal(code, 0);
  assert.doesNotMatch(server.stderr(), /still open|closed with/);
  assert.match(server.stderr(), /stopped/);
});

run();
