// legal_moves.test.mjs: the legal moves the server offers (PROTOCOL.md section 5, "Legal
// moves"), for every game, through the real server. A bot that plays only what the server
// lists must never be refused, and a move that is not listed must be: each game is played
// to its end three times by two clients that pick listed moves at random, and before every move the
// one to move also sends a move the list leaves out (a listed move with one number
// changed), which must be refused and change nothing. Every listed move, every position
// (room_state's match.state, and analysis_started's for Thue) passes the game's JSON
// Schemas of /api/games (ajv, an independent validator), and a move one past a schema's
// bound fails it and gets bad_move while one at the bound passes. Also: get_legal_moves by a
// spectator, its errors, hello's opt-in (and its absence), the finished match's empty
// list, and Wythoff's cut list from big heaps, whose first move wins.
import assert from "node:assert/strict";
import Ajv2020 from "../protocol/node_modules/ajv/dist/2020.js";
import { Client, get, moveMessage, player, rng, run, startServer, test } from "./lib.mjs";

// A higher message rate than the default: every move here is four messages.
const FAST = ["--rate", "2000", "--burst", "4000"];

/** Connects and says hello as name, asking for legal_moves after every state when opt. */
async function bot(server, name, opt = true) {
  const c = await Client.connect(server.ws, name);
  c.welcome = await c.ok({ type: "hello", protocol: 1, name, ...(opt ? { legal_moves: true } : {}) });
  return c;
}

/** The paths of a move's integer leaves (["heap"], ["take", 1], ...). */
function intPaths(v, path = []) {
  if (Number.isInteger(v)) return [path];
  if (v && typeof v === "object") return Object.entries(v).flatMap(([k, x]) => intPaths(x, [...path, Array.isArray(v) ? Number(k) : k]));
  return [];
}

/** The form of move m that a list holds: Rims lists each split once, split <= (heap - take)
 * / 2, since split X and heap - take - X give the same position (PROTOCOL.md section 5). */
function listedForm(game, state, m) {
  if (game !== "rims" || !Number.isInteger(m.heap) || !Number.isInteger(m.take) || !Number.isInteger(m.split)) return m;
  const rest = (state.heaps[m.heap] ?? 0) - m.take;
  return m.split > rest / 2 && m.split <= rest ? { ...m, split: rest - m.split } : m;
}

/** A move the list leaves out: a listed move with one integer changed; null if none found. */
function notListed(list, pick, form = (m) => m) {
  const seen = new Set(list.map((m) => JSON.stringify(m)));
  for (let tries = 0; tries < 40; tries++) {
    const m = structuredClone(list[pick(list.length)]);
    const paths = intPaths(m);
    if (paths.length === 0) return null;
    const p = paths[pick(paths.length)];
    let o = m;
    for (const k of p.slice(0, -1)) o = o[k];
    o[p.at(-1)] += [1, -1, 2, 7][pick(4)];
    if (!seen.has(JSON.stringify(form(m)))) return m;
  }
  return null;
}

const GAMES = [
  { name: "thue", create: { k: 3, limit: 12 } },
  { name: "nim", create: { game: "nim", game_options: { heaps: [3, 4, 2] } } },
  { name: "circle", create: { game: "circle", game_options: { fields: 9, white: 2, black: 2, move_cap: 40 } } },
  { name: "northcott", create: { game: "northcott", game_options: { rows: 3, cols: 5, move_cap: 40 } } },
  { name: "rims", create: { game: "rims", game_options: { heaps: [4, 3] } } },
  { name: "wythoff", create: { game: "wythoff", game_options: { heaps: [5, 7] } } },
  { name: "dots", create: { game: "dots", game_options: { rows: 2, cols: 2 } } },
];

/** Each game's compiled move and position schemas from /api/games. */
async function gameSchemas(server) {
  const res = await get(server, "/api/games");
  assert.equal(res.status, 200);
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  const out = {};
  for (const g of res.json.games) {
    assert.equal(typeof g.move_schema, "object", `${g.name}: move_schema`);
    assert.equal(typeof g.position_schema, "object", `${g.name}: position_schema`);
    out[g.name] = { move: ajv.compile(g.move_schema), position: ajv.compile(g.position_schema), raw: g };
  }
  return out;
}

/** Asserts that v passes the compiled schema check (what: for the message). */
function valid(check, v, what) {
  assert.ok(check(v), `${what}: ${JSON.stringify(v)} fails its schema: ${JSON.stringify(check.errors)}`);
}

/** A listed Thue move in the game table's form ({"place":P} / {"paint":S}). */
const tableForm = (name, m) => (name !== "thue" ? m : "position" in m ? { place: m.position } : { paint: m.symbol });

test("every game: each listed move is accepted, a move left out is refused and changes nothing", async () => {
  const server = await startServer(FAST);
  try {
    const schemas = await gameSchemas(server);
    const totals = {}; // game -> {played, refused} over its three matches
    for (const [gi, g] of GAMES.flatMap((x) => [x, x, x]).entries()) {
      const ann = await bot(server, `Ann${gi}`);
      const bob = await bot(server, `Bob${gi}`);
      const seats = [ann, bob];
      const pick = rng(0x9e3779b9 + gi * 7919);
      const { room } = await ann.ok({ type: "create_room", first_builder: "creator", ...g.create });
      await bob.ok({ type: "join", room });
      await ann.ok({ type: "ready", room });
      await bob.ok({ type: "ready", room });
      let refused = 0;
      let played = 0;
      let s;
      for (let turn = 0; turn < 400; turn++) {
        s = await ann.state(room, (x) => x.status !== "waiting");
        // The pushed list of this very state, to both players.
        const lists = await Promise.all(
          seats.map((c) => c.next((m) => m.type === "legal_moves" && m.room === room && m.version === s.version, `${g.name}: legal_moves of v${s.version}`)),
        );
        assert.deepEqual(lists[0], lists[1], `${g.name}: both players get the same list`);
        const lm = lists[0];
        if (s.status === "finished") {
          assert.equal(lm.step, "over");
          assert.equal(lm.to_move, null);
          assert.deepEqual(lm.moves, []);
          break;
        }
        assert.equal(lm.to_move, s.match.to_move, `${g.name}: to_move as the state's`);
        assert.equal(lm.step, s.match.step, `${g.name}: step as the state's`);
        assert.equal(lm.complete, true, `${g.name}: small positions are listed whole`);
        assert.ok(lm.moves.length > 0, `${g.name}: a running match has a legal move (v${s.version})`);
        assert.equal(new Set(lm.moves.map((m) => JSON.stringify(m))).size, lm.moves.length, `${g.name}: no move twice`);
        for (const m of lm.moves) valid(schemas[g.name].move, tableForm(g.name, m), `${g.name} move`);
        if (g.name !== "thue") valid(schemas[g.name].position, s.match.state, `${g.name} position`);
        const mover = seats[lm.to_move];
        const bad = notListed(lm.moves, pick, (m) => listedForm(g.name, s.match.state, m));
        if (bad !== null) {
          const r = await mover.request(moveMessage(room, bad));
          assert.equal(r.type, "error", `${g.name}: ${JSON.stringify(bad)} is not listed but was accepted (v${s.version})`);
          refused++;
          const again = await mover.ok({ type: "get_legal_moves", room });
          assert.equal(again.version, s.version, `${g.name}: a refused move changed the room`);
          assert.deepEqual(again.moves, lm.moves);
        }
        const m = lm.moves[pick(lm.moves.length)];
        const r = await mover.request(moveMessage(room, m));
        assert.equal(r.type, "ok", `${g.name}: listed move ${JSON.stringify(m)} refused: ${r.code}: ${r.message}`);
        played++;
      }
      assert.equal(s.status, "finished", `${g.name}: over within 400 moves`);
      if (g.name !== "thue") valid(schemas[g.name].position, s.match.state, `${g.name} final position`);
      const an = await ann.ok({ type: "analyze", room, max_nodes: 10 });
      valid(schemas[g.name].position, an.position, `${g.name} analysed position`);
      await ann.ok({ type: "analyze_close", analysis: an.analysis });
      // A random start may be over at once (the circle game's, now and then): the three
      // matches of a game together must have played and refused moves.
      const t = (totals[g.name] ||= { played: 0, refused: 0 });
      t.played += played;
      t.refused += refused;
      console.log(`  ${g.name}: ${played} listed moves accepted, ${refused} unlisted refused`);
      await ann.close();
      await bob.close();
    }
    for (const [name, t] of Object.entries(totals))
      assert.ok(t.played > 0 && t.refused > 0, `${name}: ${t.played} moves played, ${t.refused} refused`);
  } finally {
    await server.stop();
  }
});

test("the move schemas' bounds are the server's: one past a maximum is bad_move, at it is not", async () => {
  const server = await startServer(FAST);
  try {
    const schemas = await gameSchemas(server);
    let checked = 0;
    for (const [gi, g] of GAMES.entries()) {
      if (g.name === "thue") continue; // the wire's place and paint have their own bounds
      const ann = await bot(server, `Ann${gi}`);
      const bob = await player(server, `Bob${gi}`);
      const { room } = await ann.ok({ type: "create_room", first_builder: "creator", ...g.create });
      await bob.ok({ type: "join", room });
      await ann.ok({ type: "ready", room });
      await bob.ok({ type: "ready", room });
      const s = await ann.state(room, (x) => x.status === "playing");
      const lm = await ann.next((m) => m.type === "legal_moves" && m.version === s.version);
      const props = schemas[g.name].raw.move_schema.properties;
      for (const [k, sub] of Object.entries(props)) {
        const base = lm.moves.find((m) => Number.isInteger(m[k]));
        const bound = sub.items ? sub.items : sub;
        if (!base || !Number.isInteger(bound.maximum)) continue;
        for (const [v, ok] of [[bound.maximum, true], [bound.maximum + 1, false], [bound.minimum - 1, false]]) {
          const m = sub.items ? { ...base, [k]: base[k].map((x, i) => (i === 0 ? v : x)) } : { ...base, [k]: v };
          assert.equal(schemas[g.name].move(m), ok, `${g.name}: ${JSON.stringify(m)} against the schema`);
          const r = await ann.request({ type: "move", room, move: m });
          if (ok) assert.notEqual(r.code, "bad_move", `${g.name}: ${JSON.stringify(m)} passes the schema, the server says ${r.message}`);
          else assert.equal(r.code, "bad_move", `${g.name}: ${JSON.stringify(m)} fails the schema, the server says ${r.type} ${r.code}`);
          checked++;
          if (r.type === "ok") break; // the bound was a legal move here: the position moved on
        }
      }
      await ann.close();
      await bob.close();
    }
    assert.ok(checked >= 20, `${checked} bounds checked`);
  } finally {
    await server.stop();
  }
});

test("get_legal_moves: the reply with its id, for a spectator too; its errors", async () => {
  const server = await startServer(FAST);
  try {
    const ann = await player(server, "Ann");
    const bob = await player(server, "Bob");
    const eve = await player(server, "Eve");
    const { room } = await ann.ok({ type: "create_room", game: "nim", game_options: { heaps: [1, 2] }, first_builder: "creator" });
    // Before the first match: not_running; not in the room: not_in_room; no such room.
    assert.equal((await ann.request({ type: "get_legal_moves", room })).code, "not_running");
    assert.equal((await eve.request({ type: "get_legal_moves", room })).code, "not_in_room");
    assert.equal((await eve.request({ type: "get_legal_moves", room: "nosuch" })).code, "no_such_room");
    assert.equal((await eve.request({ type: "get_legal_moves" })).code, "bad_message");
    await bob.ok({ type: "join", room });
    await eve.ok({ type: "spectate", room });
    await ann.ok({ type: "ready", room });
    await bob.ok({ type: "ready", room });
    const s = await eve.state(room, (x) => x.status === "playing");
    const lm = await eve.ok({ type: "get_legal_moves", room });
    assert.equal(lm.type, "legal_moves");
    assert.equal(lm.version, s.version);
    assert.equal(lm.to_move, 0);
    assert.equal(lm.step, "move");
    assert.equal(lm.complete, true);
    assert.deepEqual(lm.moves, [{ heap: 0, take: 1 }, { heap: 1, take: 1 }, { heap: 1, take: 2 }]);
    // Nobody asked in hello: no legal_moves comes unasked.
    await ann.ok({ type: "move", room, move: { heap: 1, take: 1 } });
    await eve.state(room, (x) => x.match.moves === 1);
    await ann.ok({ type: "ping" });
    for (const c of [ann, bob, eve]) assert.equal(c.inbox.filter((m) => m.type === "legal_moves").length, 0, `${c.name} got legal_moves unasked`);
    // Played out: step over, no moves.
    await bob.ok({ type: "move", room, move: { heap: 0, take: 1 } });
    await ann.ok({ type: "move", room, move: { heap: 1, take: 1 } });
    await eve.state(room, (x) => x.status === "finished");
    const over = await eve.ok({ type: "get_legal_moves", room });
    assert.deepEqual([over.step, over.to_move, over.complete, over.moves], ["over", null, true, []]);
  } finally {
    await server.stop();
  }
});

test("a spectator that asked in hello gets every list; Thue's place and paint lists", async () => {
  const server = await startServer(FAST);
  try {
    const ann = await player(server, "Ann");
    const bob = await player(server, "Bob");
    const eve = await bot(server, "Eve");
    const { room } = await ann.ok({ type: "create_room", k: 4, limit: 20, first_builder: "creator" });
    await bob.ok({ type: "join", room });
    await eve.ok({ type: "spectate", room });
    // Joined before the match: no list yet (nothing to list).
    await ann.ok({ type: "ready", room });
    await bob.ok({ type: "ready", room });
    const s = await eve.state(room, (x) => x.status === "playing");
    let lm = await eve.next((m) => m.type === "legal_moves" && m.version === s.version);
    assert.equal(lm.step, "place");
    assert.deepEqual(lm.moves, [{ position: 0 }, { position: 1 }], "a word of one symbol: two places");
    await ann.ok({ type: "place", room, position: 1 });
    const t = await eve.state(room, (x) => x.match.step === "paint");
    lm = await eve.next((m) => m.type === "legal_moves" && m.version === t.version);
    assert.equal(lm.to_move, 1);
    assert.deepEqual(lm.moves, [{ symbol: 0 }, { symbol: 1 }, { symbol: 2 }, { symbol: 3 }]);
    // A new connection of the same session (resume) without the opt-in gets none.
    const resumed = await Client.connect(server.ws, "Eve2");
    await resumed.ok({ type: "hello", protocol: 1, resume: eve.welcome.resume });
    await bob.ok({ type: "paint", room, symbol: 1 });
    await resumed.state(room, (x) => x.match.step === "place" && x.match.word.length === 2);
    await resumed.ok({ type: "ping" });
    assert.equal(resumed.inbox.filter((m) => m.type === "legal_moves").length, 0);
  } finally {
    await server.stop();
  }
});

test("Wythoff from big heaps: a cut list (complete false) whose first move wins", async () => {
  const server = await startServer(FAST);
  try {
    const ann = await bot(server, "Ann");
    const bob = await player(server, "Bob");
    const heaps = [1000000, 2000003];
    const { room } = await ann.ok({ type: "create_room", game: "wythoff", game_options: { heaps }, first_builder: "creator" });
    await bob.ok({ type: "join", room });
    await ann.ok({ type: "ready", room });
    await bob.ok({ type: "ready", room });
    const s = await ann.state(room, (x) => x.status === "playing");
    const lm = await ann.next((m) => m.type === "legal_moves" && m.version === s.version);
    assert.equal(lm.complete, false);
    assert.equal(lm.moves.length, 4096);
    // The first move leaves a P-position of Wythoff's game (a = 1): heaps (a_n, b_n) with
    // a_n = floor(n * phi), b_n = a_n + n, computed here independently of the server.
    const [x, y] = lm.moves[0].take;
    const left = [heaps[0] - x, heaps[1] - y].sort((p, q) => p - q);
    const n = left[1] - left[0];
    assert.equal(left[0], Math.floor((n * (1 + Math.sqrt(5))) / 2), `${JSON.stringify(left)} is not a P-position`);
    await ann.ok({ type: "move", room, move: lm.moves[0] });
  } finally {
    await server.stop();
  }
});

await run();
