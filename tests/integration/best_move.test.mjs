// best_move.test.mjs: get_best_move (PROTOCOL.md section 16) against the real server: its
// answers checked against brute force (Nim: the nim-sum, Bouton's theorem; Wythoff: the
// P-positions computed here by a plain table; Thue: the painter's points at k = 3 and
// k = 4 from the thesis's figures), a position that is over, the undecided answer, and
// every limit and error (one search per connection, four per address, a closed
// connection's search released).
import assert from "node:assert/strict";
import { WAIT_MS, player, run, startServer, test } from "./lib.mjs";

/** Stops the server; it must exit 0 with no sanitizer report. */
async function stopClean(server) {
  const { code } = await server.stop("SIGTERM");
  assert.doesNotMatch(server.stderr(), /Sanitizer|runtime error/);
  assert.equal(code, 0, server.stderr());
}

/** A deterministic stream of small numbers (no Math.random: a failure repeats). */
function lcg(seed) {
  let x = seed >>> 0;
  return (n) => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x % n;
  };
}

// Many questions in a row: a rate limit that lets them through.
const FAST = ["--rate", "1000", "--burst", "1000"];

test("Nim: value 1 exactly when the nim-sum is not 0, and the winning move makes it 0", async () => {
  const server = await startServer(FAST);
  try {
    const ann = await player(server, "Ann");
    const rnd = lcg(7);
    let wins = 0;
    for (let i = 0; i < 60; i++) {
      const heaps = Array.from({ length: 2 + rnd(3) }, () => rnd(9));
      if (heaps.every((h) => h === 0)) heaps[0] = 1;
      const r = await ann.ok({ type: "get_best_move", game: "nim", game_options: { heaps }, position: { heaps } });
      assert.equal(r.type, "best_move");
      assert.equal(r.game, "nim");
      assert.equal(r.to_move, 0);
      assert.equal(r.exact, true);
      const sum = heaps.reduce((a, b) => a ^ b, 0);
      assert.equal(r.value, sum !== 0 ? 1 : -1, `heaps ${heaps}`);
      const { heap, take } = r.move;
      assert.ok(take >= 1 && take <= heaps[heap], `a legal move in ${heaps}: ${JSON.stringify(r.move)}`);
      const after = heaps.slice();
      after[heap] -= take;
      if (sum !== 0) {
        wins++;
        assert.equal(after.reduce((a, b) => a ^ b, 0), 0, `Bouton: ${heaps} -> ${after}`);
      }
    }
    assert.ok(wins > 10 && wins < 60, `both kinds of position were asked (${wins} wins)`);
  } finally {
    await stopClean(server);
  }
});

test("Wythoff: the value and move agree with P-positions found by a plain table", async () => {
  const N = 24;
  // p[x][y]: no move from (x, y) reaches a P-position.
  const p = Array.from({ length: N }, () => new Array(N).fill(false));
  for (let s = 0; s < 2 * N; s++)
    for (let x = 0; x < N; x++) {
      const y = s - x;
      if (y < 0 || y >= N) continue;
      let reachesP = false;
      for (let t = 1; t <= x && !reachesP; t++) reachesP = p[x - t][y];
      for (let t = 1; t <= y && !reachesP; t++) reachesP = p[x][y - t];
      for (let t = 1; t <= Math.min(x, y) && !reachesP; t++) reachesP = p[x - t][y - t];
      p[x][y] = !reachesP;
    }
  // The golden ratio's pairs: (floor(n phi), floor(n phi^2)).
  const phi = (1 + Math.sqrt(5)) / 2;
  for (let n = 0; Math.floor(n * phi * phi) < N; n++)
    assert.ok(p[Math.floor(n * phi)][Math.floor(n * phi * phi)], `pair ${n} is a P-position`);
  const server = await startServer(FAST);
  try {
    const ann = await player(server, "Ann");
    const rnd = lcg(11);
    for (let i = 0; i < 50; i++) {
      const heaps = [rnd(N), rnd(N)];
      if (heaps[0] + heaps[1] === 0) heaps[1] = 1;
      const r = await ann.ok({ type: "get_best_move", game: "wythoff", game_options: { heaps: [20, 20] }, position: { heaps } });
      assert.equal(r.exact, true);
      const [x, y] = heaps;
      assert.equal(r.value, p[x][y] ? -1 : 1, `(${x}, ${y})`);
      const [tx, ty] = r.move.take;
      assert.ok(tx >= 0 && ty >= 0 && tx + ty > 0 && tx <= x && ty <= y, `legal: ${JSON.stringify(r.move)}`);
      assert.ok(tx === 0 || ty === 0 || tx === ty, `legal for a = 1: ${JSON.stringify(r.move)}`);
      if (!p[x][y]) assert.ok(p[x - tx][y - ty], `(${x}, ${y}) -> (${x - tx}, ${y - ty}) is a P-position`);
    }
  } finally {
    await stopClean(server);
  }
});

test("Thue: k = 3 the painter scores 3 (five symbols), k = 4 scores 5 (seven), and the painter's side", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const k3 = await ann.ok({ type: "get_best_move", game: "thue", game_options: { k: 3 } });
    assert.equal(k3.exact, true);
    assert.equal(k3.value, null);
    assert.equal(k3.points, 3);
    assert.equal(k3.to_move, 0);
    assert.ok(Number.isInteger(k3.move.place) && k3.move.place >= 0 && k3.move.place <= 1);
    const k4 = await ann.ok({ type: "get_best_move", game: "thue", game_options: { k: 4 } });
    assert.equal(k4.exact, true);
    assert.equal(k4.points, 5);
    // The painter at [0, 1] with the builder's position 2 (k = 3): a symbol keeping 2 more points.
    const paint = await ann.ok({
      type: "get_best_move", game: "thue", game_options: { k: 3 },
      position: { round: 0, step: "paint", word: [0, 1], placed: 2 },
    });
    assert.equal(paint.to_move, 1);
    assert.equal(paint.exact, true);
    assert.equal(paint.points, 2);
    assert.notEqual(paint.move.paint, 1); // 0 1 1 is a square
  } finally {
    await stopClean(server);
  }
});

test("a position that is over: move and value null, at once; dots beyond the solver: exact false", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const over = await ann.ok({ type: "get_best_move", game: "nim", position: { heaps: [0, 0] } });
    assert.deepEqual([over.move, over.value, over.to_move, over.exact], [null, null, null, true]);
    const dots = await ann.ok({ type: "get_best_move", game: "dots", game_options: { rows: 5, cols: 5 } });
    assert.equal(dots.exact, false);
    assert.equal(dots.value, null);
    assert.equal(typeof dots.move.dir, "string");
  } finally {
    await stopClean(server);
  }
});

test("errors: unknown member, game, options and position change nothing", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const cases = [
      [{ type: "get_best_move", game: "nim", depth: 3 }, "bad_message", "depth"],
      [{ type: "get_best_move" }, "bad_message", "game"],
      [{ type: "get_best_move", game: "chess" }, "unknown_game", "game"],
      [{ type: "get_best_move", game: "nim", game_options: { heaps: "x" } }, "bad_options", undefined],
      [{ type: "get_best_move", game: "thue", game_options: { k: 3 }, position: { word: [0, 0] } }, "bad_state", undefined],
      [{ type: "get_best_move", game: "nim", position: [1] }, "bad_message", "position"],
    ];
    for (const [msg, code, field] of cases) {
      const r = await ann.request(msg);
      assert.equal(r.type, "error", JSON.stringify(msg));
      assert.equal(r.code, code, `${JSON.stringify(msg)}: ${r.message}`);
      if (field !== undefined) assert.equal(r.field, field);
      else assert.match(r.field, /^(game_options|position)/);
    }
    // Nothing was left counted: a search still runs.
    const r = await ann.ok({ type: "get_best_move", game: "nim", position: { heaps: [1, 2] } });
    assert.equal(r.value, 1);
  } finally {
    await stopClean(server);
  }
});

test("limits: one search per connection, four per address; an undecided Thue answer within its 2 s; a closed connection's search released", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann", "127.0.0.2");
    // Thue k = 5 cannot be decided: the answer comes at the budget, not exact.
    const t0 = Date.now();
    ann.send({ type: "get_best_move", id: "long", game: "thue", game_options: { k: 5 } });
    const second = await ann.request({ type: "get_best_move", game: "nim" });
    assert.equal(second.code, "rate_limited");
    const long = await ann.next((m) => m.id === "long", "the k = 5 answer", WAIT_MS);
    const took = Date.now() - t0;
    assert.equal(long.type, "best_move");
    assert.equal(long.exact, false);
    assert.ok(long.points >= 3, `a lower bound (${long.points})`);
    assert.ok(took >= 1500 && took < 6000, `answered at its budget (${took} ms)`);
    // Four connections of one address may each have one out; the fifth may not. (Every
    // connection is made first, so that what follows takes far less than the searches'
    // 2 s.)
    const others = [];
    for (let i = 0; i < 5; i++) others.push(await player(server, `P${i}`, "127.0.0.3"));
    const bob = await player(server, "Bob", "127.0.0.4");
    for (let i = 0; i < 4; i++) others[i].send({ type: "get_best_move", id: `k5-${i}`, game: "thue", game_options: { k: 5 } });
    // Each of the four is counted once the server has read it: a reply-bearing ping after it.
    for (let i = 0; i < 4; i++) await others[i].ok({ type: "ping" });
    const fifth = await others[4].request({ type: "get_best_move", game: "nim" });
    assert.equal(fifth.code, "rate_limited");
    assert.match(fifth.message, /4/);
    // Another address is not held up.
    assert.equal((await bob.ok({ type: "get_best_move", game: "nim", position: { heaps: [2, 2] } })).value, -1);
    // Closing two connections releases their searches at once: the fifth is accepted
    // while the other two still search (and is answered once the pool's fair share lets
    // its owner, the same address, run a third job: after them).
    await others[0].close();
    await others[1].close();
    const again = await others[4].ok({ type: "get_best_move", game: "nim", position: { heaps: [3] } });
    assert.deepEqual(again.move, { heap: 0, take: 3 });
    await others[2].next((m) => m.id === "k5-2", "k5-2's answer");
    await others[3].next((m) => m.id === "k5-3", "k5-3's answer");
  } finally {
    await stopClean(server);
  }
});

await run();
