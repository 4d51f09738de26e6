// puzzles.test.mjs: the puzzles over HTTP (PROTOCOL.md section 13, GET /api/puzzles...).
// A server with a database generates its puzzles at start; every listed Nim, Wythoff and
// Thue puzzle is checked here by brute force that shares nothing with the server's solvers
// (Bouton's nim-sum for Nim, a memoised search for misere Nim, a P-table for Wythoff's
// game with any a): the position is won for the mover and the stored solution is its
// one winning move; for Thue (a memoised minimax over words checked for squares and
// overlaps factor by factor) the solution is the one move that keeps the painter points
// the mover can force. Also: one puzzle by id, the day's puzzle (the same on every call, of
// today's UTC date), the 400s and 404s, puzzles that stay the same across a restart, and
// --puzzles 0.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { get, run, startServer, test } from "./lib.mjs";

const GAMES = ["thue", "nim", "circle", "northcott", "rims", "wythoff", "dots"];
const TARGET = 12;

/** Every puzzle of game, all pages. */
async function allPuzzles(server, game) {
  const out = [];
  for (let page = 1; ; page++) {
    const r = await get(server, `/api/puzzles?game=${game}&page=${page}`);
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json.game, game);
    assert.equal(r.json.page, page);
    out.push(...r.json.puzzles);
    if (page >= r.json.pages) {
      assert.equal(out.length, r.json.total);
      return out;
    }
  }
}

/** Waits until every game has at least n puzzles. */
async function waitForPuzzles(server, n) {
  const until = Date.now() + 60000;
  for (;;) {
    let short = null;
    for (const g of GAMES) {
      const r = await get(server, `/api/puzzles?game=${g}`);
      assert.equal(r.status, 200, r.body);
      if (r.json.total < n) short = `${g} has ${r.json.total}`;
    }
    if (short === null) return;
    if (Date.now() > until) throw new Error(`puzzles not generated in time: ${short}`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

// ---- the references ----------------------------------------------------------------------

/** Nim's moves from heaps: [heap, take] pairs. */
function nimMoves(heaps) {
  const out = [];
  heaps.forEach((h, i) => {
    for (let t = 1; t <= h; t++) out.push([i, t]);
  });
  return out;
}

/** Whether the mover wins Nim at heaps (misere: who takes the last token loses). */
function nimWins(heaps, misere, memo = new Map()) {
  if (!misere) return heaps.reduce((x, h) => x ^ h, 0) !== 0;
  const key = [...heaps].sort((a, b) => a - b).join(",");
  if (memo.has(key)) return memo.get(key);
  let win = false;
  if (heaps.every((h) => h === 0)) win = true; // the opponent took the last token and lost
  else
    for (const [i, t] of nimMoves(heaps)) {
      const next = heaps.slice();
      next[i] -= t;
      if (!nimWins(next, true, memo)) {
        win = true;
        break;
      }
    }
  memo.set(key, win);
  return win;
}

/** Wythoff's game with parameter a: P-positions (the mover loses) up to n by n. */
function wythoffP(a, n) {
  const p = Array.from({ length: n }, () => new Array(n).fill(false));
  for (let x = 0; x < n; x++)
    for (let y = 0; y < n; y++) {
      let lose = true;
      for (const [dx, dy] of wythoffMoves(a, x, y))
        if (p[x - dx][y - dy]) {
          lose = false;
          break;
        }
      p[x][y] = lose;
    }
  return p;
}

function wythoffMoves(a, x, y) {
  const out = [];
  for (let dx = 0; dx <= x; dx++)
    for (let dy = 0; dy <= y; dy++) {
      if (dx + dy === 0) continue;
      if (dx > 0 && dy > 0 && Math.abs(dx - dy) >= a) continue;
      out.push([dx, dy]);
    }
  return out;
}

function checkNim(pz) {
  const misere = pz.options.misere === true;
  const heaps = pz.position.heaps;
  assert.equal(pz.to_move, pz.position.to_move);
  assert.ok(nimWins(heaps, misere), `nim ${JSON.stringify(heaps)} is not won for the mover`);
  const winners = nimMoves(heaps).filter(([i, t]) => {
    const next = heaps.slice();
    next[i] -= t;
    return !nimWins(next, misere);
  });
  assert.equal(winners.length, 1, `nim ${JSON.stringify(heaps)} misere ${misere}: ${winners.length} winning moves`);
  assert.deepEqual(pz.solution, { heap: winners[0][0], take: winners[0][1] });
  assert.equal(pz.moves, nimMoves(heaps).length);
}

function checkWythoff(pz) {
  const a = pz.options.a;
  const [x, y] = pz.position.heaps;
  const p = wythoffP(a, Math.max(x, y) + 1);
  assert.ok(!p[x][y], `wythoff ${x},${y} a=${a} is not won for the mover`);
  const winners = wythoffMoves(a, x, y).filter(([dx, dy]) => p[x - dx][y - dy]);
  assert.equal(winners.length, 1, `wythoff ${x},${y} a=${a}: ${winners.length} winning moves`);
  assert.deepEqual(pz.solution, { take: winners[0] });
}

// Thue: a round's position (docs/puzzles.md). The painter's further points with best play
// by the definition, capped by the limit (a word of n symbols holds n - 1 points).

/** Whether word holds a square (uu) or, for overlaps, a factor of length 2p + 1 with
 * period p. */
function repeats(word, overlap) {
  const n = word.length;
  for (let p = 1; 2 * p <= n; p++) {
    const len = overlap ? 2 * p + 1 : 2 * p;
    for (let s = 0; s + len <= n; s++) {
      let ok = true;
      for (let j = s; j + p < s + len && ok; j++) ok = word[j] === word[j + p];
      if (ok) return true;
    }
  }
  return false;
}

function thueRef(k, limit, overlap) {
  const memo = new Map();
  const symbol = (w, i, c) => {
    const x = [...w.slice(0, i), c, ...w.slice(i)];
    return repeats(x, overlap) ? 0 : 1 + builder(x);
  };
  const place = (w, i) => {
    let best = 0;
    for (let c = 0; c < k; c++) best = Math.max(best, symbol(w, i, c));
    return best;
  };
  const builder = (w) => {
    if (w.length - 1 >= limit) return 0;
    const key = w.join("");
    if (memo.has(key)) return memo.get(key);
    let best = Infinity;
    for (let i = 0; i <= w.length; i++) best = Math.min(best, place(w, i));
    memo.set(key, best);
    return best;
  };
  return { symbol, place };
}

const thueRefs = new Map();

function checkThue(pz) {
  const { variant, k, limit } = pz.options;
  assert.ok(variant === "square" || variant === "overlap");
  const key = `${variant}/${k}/${limit}`;
  if (!thueRefs.has(key)) thueRefs.set(key, thueRef(k, limit, variant === "overlap"));
  const ref = thueRefs.get(key);
  const { word, step } = pz.position;
  assert.ok(Array.isArray(word) && word.length >= 1 && word.length - 1 < limit);
  assert.ok(!repeats(word, variant === "overlap"), `${word} is not clean`);
  let vals;
  if (step === "place") {
    assert.equal(pz.position.to_move_role, "builder");
    assert.equal(pz.to_move, 0);
    vals = Array.from({ length: word.length + 1 }, (_, i) => -ref.place(word, i));
  } else {
    assert.equal(step, "paint");
    assert.equal(pz.position.to_move_role, "painter");
    assert.equal(pz.to_move, 1);
    vals = Array.from({ length: k }, (_, c) => ref.symbol(word, pz.position.placed, c));
    assert.ok(vals.filter((v) => v > 0).length >= 2, "a painter's puzzle has two safe symbols");
  }
  // vals: the mover's gain per move (the builder's negated); exactly one is the best.
  const best = Math.max(...vals);
  const at = vals.indexOf(best);
  const what = `thue ${key} ${JSON.stringify(pz.position)}: ${JSON.stringify(vals)}`;
  assert.equal(vals.filter((v) => v === best).length, 1, what);
  assert.deepEqual(pz.solution, step === "place" ? { place: at } : { paint: at }, what);
  assert.equal(pz.value, word.length - 1 + Math.abs(best), what);
  assert.equal(pz.moves, vals.length);
}

// ---- the tests -----------------------------------------------------------------------------

test("generated puzzles: every Nim, Wythoff and Thue solution is the one saving move", async () => {
  const server = await startServer(["--puzzles", String(TARGET), "--puzzles-after-s", "0"]);
  try {
    await waitForPuzzles(server, TARGET);
    let misere = 0;
    const thueKinds = new Set();
    for (const game of GAMES) {
      const list = await allPuzzles(server, game);
      assert.ok(list.length >= TARGET && list.length < TARGET + 64, `${game}: ${list.length}`);
      const ids = new Set();
      for (const pz of list) {
        assert.equal(pz.game, game);
        assert.ok(Number.isInteger(pz.id) && pz.id > 0 && !ids.has(pz.id));
        ids.add(pz.id);
        if (game !== "thue") assert.equal(pz.value, 1);
        assert.ok(pz.difficulty >= 1 && pz.difficulty <= 5, `difficulty ${pz.difficulty}`);
        assert.ok(pz.moves >= 2);
        assert.match(pz.source, /^seed:\d+$/);
        assert.ok(pz.created_at > 1.7e12);
        if (game === "nim") {
          checkNim(pz);
          misere += pz.options.misere ? 1 : 0;
        }
        if (game === "wythoff") checkWythoff(pz);
        if (game === "thue") {
          checkThue(pz);
          thueKinds.add(pz.position.to_move_role);
        }
      }
    }
    assert.deepEqual([...thueKinds].sort(), ["builder", "painter"]);
    // One by id: the same object as in the list.
    const first = (await allPuzzles(server, "wythoff"))[0];
    const one = await get(server, `/api/puzzles/${first.id}`);
    assert.equal(one.status, 200);
    assert.deepEqual(one.json, first);
  } finally {
    await server.stop();
  }
});

test("the day's puzzle: one of the game's, the same on every call, today's date", async () => {
  const server = await startServer(["--puzzles", "6", "--puzzles-after-s", "0"]);
  try {
    await waitForPuzzles(server, 6);
    const today = new Date().toISOString().slice(0, 10);
    for (const game of GAMES) {
      const a = await get(server, `/api/puzzles/daily?game=${game}`);
      const b = await get(server, `/api/puzzles/daily?game=${game}`);
      assert.equal(a.status, 200, a.body);
      assert.deepEqual(a.json, b.json);
      assert.equal(a.json.date, today);
      assert.equal(a.json.game, game);
      const ids = (await allPuzzles(server, game)).map((p) => p.id);
      assert.ok(ids.includes(a.json.id));
      // Every puzzle here was stored today: the day's puzzle is the game's first.
      assert.equal(a.json.id, Math.min(...ids));
    }
  } finally {
    await server.stop();
  }
});

test("bad requests: 400 and 404 with a JSON error", async () => {
  const server = await startServer(["--puzzles", "0"]);
  try {
    const cases = [
      ["/api/puzzles", 400, "bad_request"],
      ["/api/puzzles?game=chess", 400, "unknown_game"],
      ["/api/puzzles?game=nim&page=0", 400, "bad_request"],
      ["/api/puzzles?game=nim&page=x", 400, "bad_request"],
      ["/api/puzzles/daily", 400, "bad_request"],
      ["/api/puzzles/daily?game=go", 400, "unknown_game"],
      ["/api/puzzles/0", 404, "not_found"],
      ["/api/puzzles/abc", 404, "not_found"],
      ["/api/puzzles/99999999999999999", 404, "not_found"],
      ["/api/puzzles/12", 404, "not_found"],
      ["/api/puzzles/daily?game=nim", 404, "not_found"], // --puzzles 0: none generated
    ];
    for (const [path, status, code] of cases) {
      const r = await get(server, path);
      assert.equal(r.status, status, `${path}: ${r.body}`);
      assert.equal(r.json.error.code, code, path);
      assert.ok(r.json.error.message.length > 0);
    }
    const msg = (await get(server, "/api/puzzles?game=chess")).json.error.message;
    assert.equal(msg, "game must be one of thue, nim, circle, northcott, rims, wythoff, dots");
    const empty = await get(server, "/api/puzzles?game=nim");
    assert.deepEqual(empty.json, { game: "nim", puzzles: [], page: 1, pages: 1, total: 0 });
  } finally {
    await server.stop();
  }
});

test("a stored puzzle never changes: the same puzzles after a restart", async () => {
  const dir = mkdtempSync(join(tmpdir(), "thue-puzzles-"));
  const db = join(dir, "thue.db");
  try {
    let server = await startServer(["--db", db, "--puzzles", "5", "--puzzles-after-s", "0"]);
    await waitForPuzzles(server, 5);
    await new Promise((res) => setTimeout(res, 300)); // the last writes of a batch
    const before = {};
    for (const g of GAMES) before[g] = await allPuzzles(server, g);
    await server.stop();
    // A higher target: the old puzzles stay as they were, new ones come after them.
    server = await startServer(["--db", db, "--puzzles", "8", "--puzzles-after-s", "0"]);
    try {
      await waitForPuzzles(server, 8);
      for (const g of GAMES) {
        const after = await allPuzzles(server, g);
        assert.deepEqual(after.slice(0, before[g].length), before[g]);
      }
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

await run();
