// review.test.mjs: the exact review of finished matches (GET /api/matches/{id}/review,
// PROTOCOL.md section 13, "Reviews"). Matches are played over the WebSocket; their reviews,
// computed in the background once stored, are checked against references written here
// that share nothing with the server's solvers: Nim by Bouton's nim-sum, Wythoff's game by
// a P-table from plain dynamic programming, Thue (k = 3, short words) by a plain minimax of
// the painter's points. Also: a private match's review is its players' only, an unknown
// id is 404, and a review is what the store keeps (the same after a restart).
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { CLI, get, player, run, startServer, test, WAIT_MS } from "./lib.mjs";

async function gameRoom(ann, bob, game, game_options, extra = {}) {
  const { room } = await ann.ok({ type: "create_room", game, game_options, first_builder: "creator", ...extra });
  await bob.ok({ type: "join", room, ...(extra.invite ? { invite: extra.invite } : {}) });
  await ann.ok({ type: "ready", room });
  await bob.ok({ type: "ready", room });
  started.set(room, await ann.state(room, (x) => x.status === "playing"));
  return room;
}
const started = new Map(); // room -> its first playing state (Ann's)

/** GET the review until it is done (it is computed in the background). */
async function review(server, id, init = {}) {
  const until = Date.now() + WAIT_MS * 3;
  for (;;) {
    const r = await get(server, `/api/matches/${id}/review`, init);
    if (r.status !== 200 || r.json.status !== "pending") return r;
    if (Date.now() > until) throw new Error(`the review of ${id} stayed pending`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

const xor = (h) => h.reduce((a, b) => a ^ b, 0);
/** Nim (normal play) for the player to move: 1 win, -1 loss (Bouton). */
const nimValue = (h) => (xor(h) !== 0 ? 1 : -1);
const VERDICTS = ["best", "good", "mistake", "blunder", "unknown"];

test("a Nim match's review: every value by the nim-sum, a blunder found, the best moves keep the win", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const bob = await player(server, "Bob");
    const room = await gameRoom(ann, bob, "nim", { heaps: [3, 4, 5] });
    // nim-sum 2: Ann could win (take 2 from heap 0); she takes 1 from heap 2 instead
    // (heaps 3,4,4: nim-sum 3, a won position handed over: a blunder), Bob takes 3 from
    // heap 0 (4,4 on the rest: nim-sum 0, best), then both empty heaps one at a time.
    const plan = [
      [ann, { heap: 2, take: 1 }], [bob, { heap: 0, take: 3 }], [ann, { heap: 1, take: 4 }],
      [bob, { heap: 2, take: 4 }],
    ];
    for (const [who, move] of plan) await who.ok({ type: "move", room, move });
    const end = await ann.next("match_end");
    const r = await review(server, end.match_id);
    assert.equal(r.status, 200, r.body);
    const v = r.json;
    assert.equal(v.match, end.match_id);
    assert.equal(v.game, "nim");
    assert.equal(v.status, "done");
    assert.equal(v.values, "result");
    assert.equal(v.moves.length, plan.length);
    let heaps = [3, 4, 5];
    const counts = [{}, {}];
    for (const [i, m] of v.moves.entries()) {
      assert.equal(m.ply, i);
      assert.deepEqual(m.move, plan[i][1]);
      assert.equal(m.seat, i % 2);
      assert.equal(m.before, nimValue(heaps));
      const next = heaps.slice();
      next[m.move.heap] -= m.move.take;
      const after = next.every((x) => x === 0) ? 1 : -nimValue(next);
      assert.equal(m.after, after);
      const drop = m.before - m.after;
      assert.equal(m.verdict, drop === 0 ? "best" : drop === 1 ? "mistake" : "blunder");
      counts[m.seat][m.verdict] = (counts[m.seat][m.verdict] || 0) + 1;
      if (m.before === 1) {
        // the best move keeps the win: nim-sum 0 after it
        assert.equal(m.best.length, 1);
        const b = heaps.slice();
        b[m.best[0].heap] -= m.best[0].take;
        assert.equal(xor(b), 0);
      }
      heaps = next;
    }
    assert.equal(v.moves[0].verdict, "blunder");
    for (const seat of [0, 1])
      for (const k of VERDICTS) assert.equal(v.summary[seat][k], counts[seat][k] || 0, `seat ${seat} ${k}`);
    assert.equal(v.solved, v.positions);
    // Ann's blunder came from a position with exactly one winning move (3,4,5: take 2 from
    // the first heap): the review offers it, and it becomes a puzzle from a real game.
    const until = Date.now() + WAIT_MS;
    let found;
    while (!found && Date.now() < until) {
      const p = await get(server, "/api/puzzles?game=nim");
      found = p.status === 200 && p.json.puzzles.find((x) => x.source === `match:${end.match_id}`);
      if (!found) await new Promise((res) => setTimeout(res, 100));
    }
    assert.ok(found, "the blunder's position is a puzzle");
    assert.deepEqual(found.position.heaps, [3, 4, 5]);
    assert.deepEqual(found.solution, { heap: 0, take: 2 });
  } finally {
    await server.stop();
  }
});

test("Wythoff's review against a P-table; dots' margins and their verdicts", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const bob = await player(server, "Bob");
    // Wythoff (a = 1) from (5, 8): random play, checked with a P-table by DP.
    const N = 16;
    const P = Array.from({ length: N }, () => Array(N).fill(false));
    for (let x = 0; x < N; x++)
      for (let y = 0; y < N; y++) {
        let p = true;
        for (let t = 1; p && t <= x; t++) p = !P[x - t][y];
        for (let t = 1; p && t <= y; t++) p = !P[x][y - t];
        for (let t = 1; p && t <= Math.min(x, y); t++) p = !P[x - t][y - t];
        P[x][y] = p;
      }
    let seed = 7;
    const rnd = (n) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
    /** Plays room to its end with random listed moves (the creator, Ann, moves first). */
    const playOut = async (room) => {
      let s = started.get(room);
      while (s.status === "playing") {
        const who = s.match.to_move === 0 ? ann : bob;
        const lm = await who.ok({ type: "get_legal_moves", room });
        await who.ok({ type: "move", room, move: lm.moves[rnd(lm.moves.length)] });
        s = await ann.state(room, (z) => z.version > s.version);
      }
      return (await ann.next("match_end")).match_id;
    };
    let id = await playOut(await gameRoom(ann, bob, "wythoff", { heaps: [5, 8] }));
    let r = await review(server, id);
    assert.equal(r.status, 200, r.body);
    const rec = (await get(server, `/api/matches/${id}`)).json;
    let h = rec.start.heaps.slice();
    const take = (h, t) => [h[0] - t[0], h[1] - t[1]];
    assert.equal(r.json.moves.length, rec.moves.length);
    for (const m of r.json.moves) {
      assert.equal(m.before, P[h[0]][h[1]] ? -1 : 1);
      if (m.before === 1) {
        const b = take(h, m.best[0].take);
        assert.ok(P[b[0]][b[1]], `the best move ${JSON.stringify(m.best)} from ${h} leads to a P-position`);
      } else {
        assert.deepEqual(m.best.length, 1); // a lost position's move that loses no more
      }
      h = take(h, m.move.take);
      assert.equal(m.after, P[h[0]][h[1]] ? 1 : -1);
      const drop = m.before - m.after;
      assert.equal(m.verdict, drop === 0 ? "best" : "blunder");
    }

    // Dots 1x2: margins for every move, verdicts by result, then margin.
    id = await playOut(await gameRoom(ann, bob, "dots", { rows: 1, cols: 2 }));
    r = await review(server, id);
    assert.equal(r.json.values, "result_margin");
    for (const m of r.json.moves) {
      assert.equal(typeof m.margin_before, "number");
      assert.equal(typeof m.margin_after, "number");
      assert.ok(m.margin_after <= m.margin_before);
      const sign = (x) => Math.sign(x);
      assert.equal(m.before, sign(m.margin_before));
      assert.equal(m.after, sign(m.margin_after));
      const drop = m.before - m.after;
      const want = drop > 0 ? (drop === 1 ? "mistake" : "blunder") : m.margin_after < m.margin_before ? "good" : "best";
      assert.equal(m.verdict, want);
    }
  } finally {
    await server.stop();
  }
});

/** Thue k = 3, square: the painter's further points from a clean word (builder to move),
 * capped by the limit (a word of n symbols holds n - 1 points: rounds start at [0]): min
 * over places of the best 1 + V over safe symbols (0: none). */
function thueRef(limit) {
  const memo = new Map();
  const square = (w) => {
    for (let p = 1; 2 * p <= w.length; p++)
      for (let i = 0; i + 2 * p <= w.length; i++) {
        let eq = true;
        for (let j = 0; eq && j < p; j++) eq = w[i + j] === w[i + p + j];
        if (eq) return true;
      }
    return false;
  };
  const painter = (w, i) => {
    let best = 0;
    for (let c = 0; c < 3; c++) {
      const x = [...w.slice(0, i), c, ...w.slice(i)];
      if (square(x)) continue;
      best = Math.max(best, 1 + (x.length - 1 < limit ? builder(x) : 0));
    }
    return best;
  };
  const builder = (w) => {
    const key = w.join("");
    if (memo.has(key)) return memo.get(key);
    let best = Infinity;
    for (let i = 0; i <= w.length; i++) best = Math.min(best, painter(w, i));
    memo.set(key, best);
    return best;
  };
  return { builder, painter, square };
}

test("a Thue match's review: the painter's points before and after each move, by plain minimax", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const bob = await player(server, "Bob");
    const { room } = await ann.ok({ type: "create_room", k: 3, limit: 12, first_builder: "creator" });
    await bob.ok({ type: "join", room });
    await ann.ok({ type: "ready", room });
    await bob.ok({ type: "ready", room });
    let s = await ann.state(room, (x) => x.status === "playing");
    let seed = 3;
    const rnd = (n) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
    while (s.status === "playing") {
      const m = s.match;
      const c = m.to_move === 0 ? ann : bob;
      const msg = m.step === "place" ? { type: "place", room, position: rnd(m.word.length + 1) } : { type: "paint", room, symbol: rnd(3) };
      await c.ok(msg);
      s = await ann.state(room, (z) => z.version > s.version);
    }
    const end = await ann.next("match_end");
    const r = await review(server, end.match_id);
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json.values, "points");
    const ref = thueRef(12);
    let w = [0], round = 0, place = -1, solved = 0;
    for (const m of r.json.moves) {
      if (m.round !== round) (round = m.round), (w = [0]);
      let before, after;
      const pts = w.length - 1;
      if (m.kind === "place") {
        before = pts + ref.builder(w);
        place = m.value;
        after = pts + ref.painter(w, place);
        // The same word's value from `thue solve` (uncapped: k = 3 ends long before 12).
        if (CLI && fs.existsSync(CLI)) {
          const out = JSON.parse(execFileSync(CLI, ["solve", w.join(""), "--k", "3", "--json", "--hash", "16"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));
          assert.ok(out.exact);
          assert.equal(pts + out.value, m.before, `thue solve ${w.join("")}`);
          solved++;
        }
      } else {
        before = pts + ref.painter(w, place);
        const x = [...w.slice(0, place), m.value, ...w.slice(place)];
        if (ref.square(x)) after = pts;
        else (w = x), (after = pts + 1 + (pts + 1 < 12 ? ref.builder(w) : 0));
      }
      assert.equal(m.before, before, JSON.stringify(m));
      assert.equal(m.after, after, JSON.stringify(m));
      assert.ok(VERDICTS.includes(m.verdict));
      if (m.before === m.after) assert.equal(m.verdict, "best");
      else assert.notEqual(m.verdict, "best");
    }
    assert.ok(!CLI || !fs.existsSync(CLI) || solved > 0, "the builder's positions were checked with thue solve");
  } finally {
    await server.stop();
  }
});

test("a private match's review is its players' only; unknown ids are 404; reviews survive a restart", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thue-review-"));
  const db = path.join(dir, "thue.db");
  let server = await startServer(["--db", db]);
  let id;
  try {
    const ann = await player(server, "Ann");
    const bob = await player(server, "Bob");
    const { token } = await ann.ok({ type: "claim_name", name: "Ann" });
    await bob.ok({ type: "claim_name", name: "Bob" });
    const { room, invite } = await ann.ok({ type: "create_room", game: "nim", game_options: { heaps: [2] }, first_builder: "creator", private: true });
    await bob.ok({ type: "join", room, invite });
    await ann.ok({ type: "ready", room });
    await bob.ok({ type: "ready", room });
    await ann.state(room, (x) => x.status === "playing");
    await ann.ok({ type: "move", room, move: { heap: 0, take: 1 } });
    await bob.ok({ type: "move", room, move: { heap: 0, take: 1 } });
    id = (await ann.next("match_end")).match_id;
    const auth = { headers: { Authorization: `Bearer ${token}` } };
    let r = await get(server, `/api/matches/${id}/review`);
    assert.equal(r.status, 404);
    r = await review(server, id, auth);
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json.moves[0].verdict, "blunder"); // taking 1 of 2 hands over the win
    assert.deepEqual(r.json.moves[0].best, [{ heap: 0, take: 2 }]);
    r = await get(server, "/api/matches/mnosuchmatch/review");
    assert.equal(r.status, 404);
    assert.equal(r.json.error.code, "not_found");
    r = await get(server, "/api/matches/bad!id/review");
    assert.equal(r.status, 404);
    const before = r.body;
    await server.stop();
    server = await startServer(["--db", db]);
    const again = await get(server, `/api/matches/${id}/review`, auth);
    assert.equal(again.status, 200);
    assert.equal(again.json.status, "done");
    assert.equal(again.json.moves[0].verdict, "blunder");
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("--reviews 0: no match is reviewed, and the API says so (off) rather than pending", async () => {
  const server = await startServer(["--reviews", "0"]);
  try {
    const ann = await player(server, "Ann");
    const bob = await player(server, "Bob");
    const room = await gameRoom(ann, bob, "nim", { heaps: [1] });
    await ann.ok({ type: "move", room, move: { heap: 0, take: 1 } });
    const end = await ann.next("match_end");
    for (let i = 0; i < 3; i++) {
      const r = await get(server, `/api/matches/${end.match_id}/review`);
      assert.equal(r.status, 200);
      assert.deepEqual(r.json, { match: end.match_id, status: "off" });
    }
  } finally {
    await server.stop();
  }
});

await run();
