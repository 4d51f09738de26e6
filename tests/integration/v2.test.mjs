// v2.test.mjs: the subprotocol thue.v2 (PROTOCOL.md section 18) through the real server,
// beside thue.v1 in the same rooms.
//
// The handshake picks thue.v2 when offered, hello's protocol must match the subprotocol,
// and thue.v1 is served as before. In a room watched by a thue.v1 spectator and a thue.v2
// spectator, with a thue.v1 player and a thue.v2 player, every game is played to its end
// by random listed moves: after every change the thue.v2 clients' model (the web
// client's roommodel.js, fed only their own messages) must equal, member for member, the
// state the thue.v1 spectator received for the same version (thue.v1's text is the
// independent reference), every `played` reaches every thue.v2 recipient as the same
// bytes, and a `sync` now and then answers the whole state, equal to the model. A Thue
// match against a bot with a clock covers `thinking`, the clocks, the round's end and the
// result. Also: sync's errors, a version gap the model notices, and the bytes a
// spectator receives per move under each (thue.v2 at most an eighth of thue.v1's).
import assert from "node:assert/strict";
import { Client, moveMessage, rng, run, startServer, test } from "./lib.mjs";
import { RoomModel } from "../../clients/web/roommodel.js";

const FAST = ["--rate", "2000", "--burst", "4000"];

/** A client of subprotocol proto (1 or 2) that said hello as name; it keeps the raw
 * texts it received (c.raw) and, under thue.v2, a room model (c.model) fed with them. */
async function connect(server, name, proto) {
  const c = await Client.connect(server.ws, name, proto === 2 ? ["thue.v2", "thue.v1"] : ["thue.v1"]);
  assert.equal(c.ws.protocol, proto === 2 ? "thue.v2" : "thue.v1", `${name}: the subprotocol`);
  c.raw = [];
  c.ws.on("message", (d) => c.raw.push(d.toString()));
  c.welcome = await c.ok({ type: "hello", protocol: proto, name });
  assert.equal(c.welcome.protocol, proto);
  if (proto === 2) c.model = new RoomModel(() => c.welcome.player.name);
  return c;
}

/** The v2 client's model of room once pred holds for it: feeds it the client's
 * room_state, played and watchers messages of that room in order until then. */
async function modelUntil(c, room, pred, what) {
  for (;;) {
    const cur = [...c.model.byRef.values()].find((s) => s.room === room);
    if (cur && pred(cur)) return cur;
    const ref = cur ? cur.ref : null;
    const m = await c.next((x) => (x.type === "room_state" && x.room === room) || ((x.type === "played" || x.type === "watchers") && x.ref === ref), `${what}: a change of ${room}`);
    const out = c.model.apply(m);
    assert.ok(!out.sync, `${what}: the model lost its way at ${JSON.stringify(m)}`);
  }
}

/** The model of room at thue.v2's version v (it must not go past it). */
function modelAt(c, room, v, what) {
  return modelUntil(c, room, (s) => {
    assert.ok(s.version <= v, `${what}: the model went past version ${v} (${s.version})`);
    return s.version === v;
  }, `${what} toward v${v}`);
}

/** A state without what differs by design: thue.v2's ref, the version (thue.v1's also
 * counts spectators coming and going: PROTOCOL.md section 18), the grace period's count. */
function comparable(s) {
  const x = structuredClone(s);
  delete x.ref;
  delete x.version;
  for (const p of x.players || []) if (p) delete p.away_left_ms;
  return x;
}

/** a's clocks set to b's when each is within a millisecond of b's: the two texts read the
 * running clock a moment apart (within one change, but not at one instant). */
function clocksWithin(a, b, what) {
  const ca = a.match && a.match.clocks, cb = b.match && b.match.clocks;
  if (!ca || !cb) return a;
  for (let i = 0; i < 2; i++) assert.ok(Math.abs(ca[i] - cb[i]) <= 1, `${what}: clock ${i}: ${ca[i]} against ${cb[i]}`);
  return { ...a, match: { ...a.match, clocks: cb.slice() } };
}

/** thue.v1's version less thue.v2's for room: constant once nobody comes or goes (taken at
 * the match's first state, s1 being thue.v1's). */
async function offset(c, room, s1, what) {
  const first = await modelUntil(c, room, (s) => s.status === "playing", `${what}: the match's start`);
  assert.equal(first.match.last_move, null, `${what}: the first state of the match`);
  return s1.version - first.version;
}

const GAMES = [
  { name: "thue", create: { k: 3, limit: 12 } },
  { name: "thue-overlap", create: { variant: "overlap", k: 3, limit: 20 } },
  { name: "nim", create: { game: "nim", game_options: { heaps: [3, 4, 2] } } },
  { name: "nim-misere", create: { game: "nim", game_options: { heaps: [2, 3], misere: true } } },
  { name: "circle", create: { game: "circle", game_options: { fields: 9, white: 2, black: 2, move_cap: 40 } } },
  { name: "northcott", create: { game: "northcott", game_options: { rows: 3, cols: 5, move_cap: 40 } } },
  { name: "rims", create: { game: "rims", game_options: { heaps: [4, 3] } } },
  { name: "wythoff", create: { game: "wythoff", game_options: { heaps: [5, 7] } } },
  { name: "dots", create: { game: "dots", game_options: { rows: 2, cols: 3 } } },
];

test("the handshake: thue.v2 when offered, hello's protocol as the subprotocol's, thue.v1 as before", async () => {
  const server = await startServer();
  try {
    const v2 = await Client.connect(server.ws, "v2", ["thue.v2", "thue.v1"]);
    assert.equal(v2.ws.protocol, "thue.v2");
    const bad = await v2.request({ type: "hello", protocol: 1, name: "Ann" });
    assert.equal(bad.type, "error");
    assert.equal(bad.code, "bad_protocol");
    assert.equal(bad.field, "protocol");
    const w = await v2.ok({ type: "hello", protocol: 2, name: "Ann" });
    assert.equal(w.protocol, 2);
    const only2 = await Client.connect(server.ws, "only2", ["thue.v2"]);
    assert.equal(only2.ws.protocol, "thue.v2");
    const v1 = await Client.connect(server.ws, "v1", ["thue.v1"]);
    assert.equal(v1.ws.protocol, "thue.v1");
    assert.equal((await v1.request({ type: "hello", protocol: 2, name: "Bob" })).code, "bad_protocol");
    assert.equal((await v1.ok({ type: "hello", protocol: 1, name: "Bob" })).protocol, 1);
    const none = await Client.connect(server.ws, "none", []);
    assert.equal(none.ws.protocol, "");
    assert.equal((await none.ok({ type: "hello", protocol: 1, name: "Cy" })).protocol, 1);
    await assert.rejects(Client.connect(server.ws, "v3", ["thue.v3"]), /HTTP 400/);
    for (const c of [v2, only2, v1, none]) await c.close();
  } finally {
    await server.stop();
  }
});

test("every game: the thue.v2 model equals thue.v1's state after every change; one text for every thue.v2 recipient", async () => {
  const server = await startServer(FAST);
  try {
    const bytes = {}; // game -> {v1, v2, moves}
    for (const [gi, g] of GAMES.entries()) {
      const ann = await connect(server, `Ann${gi}`, 2);
      const bob = await connect(server, `Bob${gi}`, 1);
      const sv1 = await connect(server, `Sam${gi}`, 1);
      const sv2 = await connect(server, `Sue${gi}`, 2);
      const seats = [ann, bob];
      const pick = rng(0x51ed27 + gi * 7919);
      const { room } = await ann.ok({ type: "create_room", first_builder: "creator", ...g.create });
      await bob.ok({ type: "join", room });
      await sv1.ok({ type: "spectate", room });
      await sv2.ok({ type: "spectate", room });
      await ann.ok({ type: "ready", room });
      await bob.ok({ type: "ready", room });
      const rawAt = [sv1.raw.length, sv2.raw.length];
      let moves = 0;
      let want = 0;
      let s;
      let off = null;
      for (let turn = 0; turn < 400; turn++) {
        s = await sv1.state(room, (x) => x.version >= want && x.status !== "waiting");
        const ref = comparable(s);
        if (off === null) off = await offset(sv2, room, s, g.name);
        const mine = await modelAt(sv2, room, s.version - off, `${g.name} spectator`);
        assert.deepEqual(comparable(mine), ref, `${g.name} v${s.version}: the spectator's model`);
        const annS = await modelAt(ann, room, s.version - off, `${g.name} player`);
        assert.deepEqual(comparable({ ...annS, you: null }), ref, `${g.name} v${s.version}: the player's model`);
        assert.equal(annS.you, 0, "the model finds the player's seat by its name");
        if (turn % 5 === 4) {
          // A sync answers ok, then the whole state of this same version.
          await sv2.ok({ type: "sync", room });
          const full = await sv2.next((x) => x.type === "room_state" && x.room === room, "the synced state");
          assert.equal(full.version, s.version - off);
          assert.deepEqual(comparable({ ...sv2.model.apply(full).state }), ref, `${g.name} v${s.version}: the synced state`);
        }
        if (s.status === "finished") break;
        const mover = seats[s.match.to_move];
        const lm = await mover.ok({ type: "get_legal_moves", room });
        assert.ok(lm.moves.length > 0, `${g.name}: a running match has moves`);
        await mover.ok(moveMessage(room, lm.moves[pick(lm.moves.length)]));
        moves++;
        want = s.version + 1;
      }
      assert.equal(s.status, "finished", `${g.name}: the match ended`);
      // Both thue.v2 recipients got every played as the very same text.
      const played = (c) => c.raw.filter((t) => t.startsWith('{"type":"played"'));
      assert.equal(played(sv2).length, moves, `${g.name}: one played per move`);
      assert.deepEqual(played(ann), played(sv2), `${g.name}: the same bytes to the player and the spectator`);
      // What the spectators received from the start to the end (chat none; match_end both).
      const sum = (c, from) => c.raw.slice(from).reduce((n, t) => n + Buffer.byteLength(t), 0);
      bytes[g.name] = { v1: sum(sv1, rawAt[0]), v2: sum(sv2, rawAt[1]), moves };
      for (const c of [ann, bob, sv1, sv2]) await c.close();
    }
    // (The bytes per move with the syncs above included: scripts/bench-deflate.mjs and
    // docs/bench.md measure them in long matches.)
    for (const [n, b] of Object.entries(bytes)) assert.ok(b.v2 < b.v1, `${n}: thue.v2 sent less (${b.v2} of ${b.v1} bytes)`);
  } finally {
    await server.stop();
  }
});

test("Thue against a bot with a clock: thinking, clocks, the round's end and the result in played", async () => {
  const server = await startServer(FAST);
  try {
    const ann = await connect(server, "Ann", 2);
    const sv1 = await connect(server, "Sam", 1);
    const { room } = await ann.ok({ type: "create_room", k: 3, limit: 30, first_builder: "creator", clock: { initial_ms: 600000, increment_ms: 1000 } });
    await sv1.ok({ type: "spectate", room });
    await ann.ok({ type: "seat_bot", room, bot: "greedy", think_ms: 10 });
    await ann.ok({ type: "ready", room });
    const seen = { thinking: 0, clocks: 0, round_end: 0, result: 0 };
    let want = 0;
    let s;
    let off = null;
    for (let turn = 0; turn < 200; turn++) {
      s = await sv1.state(room, (x) => x.version >= want && x.status !== "waiting");
      if (off === null) off = await offset(ann, room, s, "thue vs bot");
      const mine = clocksWithin(await modelAt(ann, room, s.version - off, "thue vs bot"), s, `v${s.version}`);
      assert.deepEqual(comparable({ ...mine, you: null }), comparable({ ...s, you: null }), `v${s.version}: the model`);
      if (s.status === "finished") break;
      want = s.version + 1;
      if (s.match.to_move !== 0) continue; // the bot's turn
      const lm = await ann.ok({ type: "get_legal_moves", room });
      await ann.ok(moveMessage(room, lm.moves[0]));
    }
    for (const t of ann.raw.filter((x) => x.startsWith('{"type":"played"'))) {
      const p = JSON.parse(t);
      for (const k of Object.keys(seen)) if (p[k] !== undefined) seen[k]++;
    }
    assert.ok(seen.thinking > 0, "a bot's turn shows as thinking");
    assert.ok(seen.clocks > 0, "a clock room's played carries the clocks");
    assert.ok(seen.round_end >= 1, "a round's end comes in a played");
    assert.ok(seen.result === 1, `the match's end comes in one played (${seen.result})`);
    await ann.close();
    await sv1.close();
  } finally {
    await server.stop();
  }
});

test("sync's errors; a version gap makes the model ask for sync", async () => {
  const server = await startServer(FAST);
  try {
    const ann = await connect(server, "Ann", 2);
    const bob = await connect(server, "Bob", 2);
    const eve = await connect(server, "Eve", 2);
    const { room } = await ann.ok({ type: "create_room", game: "nim", game_options: { heaps: [5, 5, 5] }, first_builder: "creator" });
    await bob.ok({ type: "join", room });
    assert.equal((await eve.request({ type: "sync", room })).code, "not_in_room");
    assert.equal((await eve.request({ type: "sync", room: "rNoSuchRoom0000000" })).code, "no_such_room");
    const bad = await eve.request({ type: "sync" });
    assert.equal(bad.code, "bad_message");
    assert.equal(bad.field, "room");
    await ann.ok({ type: "ready", room });
    await bob.ok({ type: "ready", room });
    const start = await bob.next((x) => x.type === "room_state" && x.status === "playing");
    const model = new RoomModel(() => "Bob");
    model.apply(start);
    await ann.ok({ type: "move", room, move: { heap: 0, take: 1 } });
    const p1 = await bob.next("played");
    await bob.ok({ type: "move", room, move: { heap: 1, take: 1 } });
    const p2 = await bob.next("played");
    // The first played lost: the second is a gap, and the model says to sync, once: a
    // gap noticed while that sync's state is still to come asks nothing more.
    assert.deepEqual(model.apply(p2), { sync: room });
    assert.deepEqual(model.apply(p2), {}, "one sync at a time");
    assert.ok(model.apply(p1).state, "in order it follows");
    assert.equal(model.apply(p2).state.match.state.heaps.join(), "4,4,5");
    // The sync's state (here the room's newest) ends the wait: the next gap asks again;
    // so does a failed sync.
    await bob.ok({ type: "sync", room });
    const synced = await bob.next((x) => x.type === "room_state" && x.room === room && x.version === p2.version,
      "the synced state");
    assert.ok(model.apply(synced).state);
    await ann.ok({ type: "move", room, move: { heap: 2, take: 1 } });
    const p3 = await bob.next("played");
    await bob.ok({ type: "move", room, move: { heap: 0, take: 1 } });
    const p4 = await bob.next("played");
    assert.deepEqual(model.apply(p4), { sync: room }, "after the state, a gap asks again");
    assert.deepEqual(model.apply(p4), {});
    model.syncFailed(room);
    assert.deepEqual(model.apply(p4), { sync: room }, "after a failed sync, a gap asks again");
    assert.ok(model.apply(p3).state && model.apply(p4).state);
    for (const c of [ann, bob, eve]) await c.close();
  } finally {
    await server.stop();
  }
});

await run();
