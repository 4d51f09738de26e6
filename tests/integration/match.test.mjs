// match.test.mjs: whole matches through the real server: two humans to a result, a
// human against a bot, two bots watched by a spectator, a rematch, and rooms whose first
// match starts by itself (auto_start: a friend's invite, a bot).
import assert from "node:assert/strict";
import { get, player, run, startServer, test } from "./lib.mjs";

// RULES.md's worked example as round 1 (Ann builds): 02, 012, 0121, then 01212 holds the
// square 12|12 at 1..4. Bob paints 3 points.
const ROUND1 = [
  [1, 2],
  [1, 1],
  [3, 1],
  [4, 2],
];
// Round 2 (Bob builds at the end, Ann paints 1,2,0,2,1): 01 012 0120 01202 012021 are
// square-free, then a 1 at the end makes 11. Ann paints 5 points.
const ROUND2 = [
  [1, 1],
  [2, 2],
  [3, 0],
  [4, 2],
  [5, 1],
  [6, 1],
];

/** Plays one insertion: builder places i, painter paints c; both wait for the state
 * after the paint. Returns that state (as the painter saw it). */
async function insertion(room, builder, painter, i, c) {
  await builder.ok({ type: "place", room, position: i });
  const before = await painter.state(room, (s) => s.match && s.match.step === "paint" && s.match.placed === i);
  assert.equal(before.match.to_move, before.match.painter);
  await painter.ok({ type: "paint", room, symbol: c });
  return painter.state(room, (s) => s.match && s.match.last_move && s.match.last_move.kind === "paint" && s.version > before.version);
}

test("two humans play a full match to a result", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const bob = await player(server, "Bob");
    assert.equal(ann.welcome.player.name, "Ann");
    assert.match(ann.welcome.resume, /^[0-9a-f]{32}$/);
    const created = await ann.ok({ type: "create_room", k: 3, first_builder: "creator", name: "Ann vs Bob" });
    const room = created.room;
    let s = await ann.state(room);
    assert.equal(s.status, "waiting");
    assert.equal(s.you, 0);
    assert.equal(s.match, null);
    await bob.ok({ type: "join", room });
    s = await bob.state(room);
    assert.equal(s.you, 1);
    assert.equal(s.players[1].name, "Bob");
    await ann.ok({ type: "ready", room });
    await bob.ok({ type: "ready", room });
    s = await ann.state(room, (x) => x.status === "playing");
    assert.deepEqual(s.match.word, [0]);
    assert.equal(s.match.builder, 0);
    assert.equal(s.match.to_move, 0);

    let last;
    for (const [i, c] of ROUND1) last = await insertion(room, ann, bob, i, c);
    assert.equal(last.match.round, 1, "round 2 started");
    const r1 = last.match.rounds[0];
    assert.equal(r1.end, "repetition");
    assert.equal(r1.points, 3);
    assert.deepEqual(r1.repetition, { start: 1, period: 2, length: 4 });
    assert.deepEqual(r1.word, [0, 1, 2, 1, 2]);
    assert.equal(last.match.builder, 1);
    assert.deepEqual(last.match.word, [0]);

    for (const [i, c] of ROUND2) last = await insertion(room, bob, ann, i, c);
    assert.equal(last.status, "finished");
    assert.equal(last.match.step, "over");
    assert.deepEqual(last.match.points, [5, 3]);
    assert.deepEqual(last.match.result, { winner: 0, reason: "score" });
    const end = await ann.next("match_end");
    assert.deepEqual(end.result, { winner: 0, reason: "score" });
    assert.deepEqual(end.points, [5, 3]);
    assert.deepEqual(end.rounds[1].repetition, { start: 5, period: 1, length: 2 });
    await bob.next("match_end");
    // versions only grow
    assert.ok(last.version > s.version);
  } finally {
    await server.stop();
  }
});

test("a move out of turn or out of range changes nothing", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const bob = await player(server, "Bob");
    const { room } = await ann.ok({ type: "create_room", k: 3, first_builder: "creator" });
    await bob.ok({ type: "join", room });
    await ann.ok({ type: "ready", room });
    await bob.ok({ type: "ready", room });
    const s = await ann.state(room, (x) => x.status === "playing");
    let r = await bob.request({ type: "place", room, position: 0 });
    assert.equal(r.code, "not_your_turn");
    r = await ann.request({ type: "paint", room, symbol: 1 });
    assert.equal(r.code, "wrong_step");
    r = await ann.request({ type: "place", room, position: 5 });
    assert.equal(r.code, "bad_position");
    assert.equal(r.field, "position");
    await ann.ok({ type: "place", room, position: 1 });
    r = await bob.request({ type: "paint", room, symbol: 3 });
    assert.equal(r.code, "bad_symbol");
    const after = await ann.latestState(room);
    assert.equal(after.version, s.version + 1, "only the accepted place changed the room");
  } finally {
    await server.stop();
  }
});

test("a human against a bot, then a rematch with the roles swapped", async () => {
  // Ann answers at machine speed: more than the default 20 messages a second.
  const server = await startServer(["--rate", "1000", "--burst", "1000"]);
  try {
    const ann = await player(server, "Ann");
    const { room } = await ann.ok({ type: "create_room", k: 3, first_builder: "creator" });
    await ann.ok({ type: "seat_bot", room, bot: "nested:1", think_ms: 500 });
    await ann.ok({ type: "ready", room });
    let s = await ann.state(room, (x) => x.status === "playing");
    assert.equal(s.players[1].kind, "bot");
    assert.equal(s.players[1].bot, "nested:1");
    // Ann builds round 1: always the last position; the bot paints. Every state is read
    // in order: while Ann is to move nothing else changes the room.
    while (s.status !== "finished") {
      const m = s.match;
      if (m.to_move === 0) {
        if (m.step === "place") await ann.ok({ type: "place", room, position: m.word.length });
        else {
          // Ann paints: the lowest symbol that differs from its neighbours (may still lose).
          const w = m.word;
          const p = m.placed;
          let c = 0;
          while (c < 3 && (w[p - 1] === c || w[p] === c)) c++;
          await ann.ok({ type: "paint", room, symbol: c % 3 });
        }
      }
      s = await ann.state(room, (x) => x.version > s.version);
    }
    assert.ok(s.match.result, "the match has a result");
    assert.ok(s.match.last_move.think_ms >= 0);
    const end = await ann.next("match_end");
    assert.equal(end.players[1].kind, "bot");
    // rematch: the bot always agrees; round 1's roles swap
    await ann.ok({ type: "rematch", room });
    const again = await ann.state(room, (x) => x.match && x.match.number === 2);
    assert.equal(again.match.builder, 1, "the bot builds round 1 of the rematch");
  } finally {
    await server.stop();
  }
});

test("two bots play to the end while a spectator watches every state", async () => {
  const server = await startServer(["--guest-bot-vs-bot", "1"]); // a guest hosts it
  try {
    const host = await player(server, "Host");
    const { room } = await host.ok({ type: "create_room", k: 4, seat: false, name: "bots" });
    // Eve watches before the bots sit down: their match may take only milliseconds.
    const eve = await player(server, "Eve");
    await eve.ok({ type: "spectate", room });
    const first = await eve.state(room);
    assert.equal(first.you, null);
    assert.equal(first.match, null);
    await host.ok({ type: "seat_bot", room, bot: "greedy", seat: 0 });
    await host.ok({ type: "seat_bot", room, bot: "nested:1", seat: 1 });
    const end = await eve.next("match_end", "the end of the bots' match", 30000);
    assert.ok(end.result);
    const states = eve.inbox.filter((m) => m.type === "room_state" && m.room === room);
    const versions = [first.version, ...states.map((x) => x.version)];
    for (let i = 1; i < versions.length; i++) assert.ok(versions[i] > versions[i - 1], "versions grow");
    const r = await eve.request({ type: "place", room, position: 0 });
    assert.equal(r.code, "not_seated");
  } finally {
    await server.stop();
  }
});

test("auto_start: a friend's join or a bot's seat starts the first match, nobody saying ready", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const bob = await player(server, "Bob");
    // Ann's private room for a friend: Bob comes by the invite and the match starts.
    const made = await ann.ok({ type: "create_room", k: 4, private: true, auto_start: true, first_builder: "creator" });
    const waiting = await ann.state(made.room);
    assert.equal(waiting.status, "waiting");
    assert.equal(waiting.options.auto_start, true);
    // What the invite link's page reads before Bob has a session: the room with its code,
    // and the same 404 without it, with a wrong one, or for no room at all.
    const peek = await get(server, `/api/rooms/${made.room}?code=${made.invite}`);
    assert.equal(peek.status, 200);
    assert.deepEqual([peek.json.room, peek.json.players[0].name, peek.json.players[1], peek.json.k, peek.json.private, peek.json.auto_start],
      [made.room, "Ann", null, 4, true, true]);
    const hidden = [await get(server, `/api/rooms/${made.room}`), await get(server, `/api/rooms/${made.room}?code=${made.invite}x`), await get(server, "/api/rooms/rnosuchroom")];
    assert.deepEqual(hidden.map((h) => h.status), [404, 404, 404]);
    assert.equal(new Set(hidden.map((h) => h.body)).size, 1, "one answer for all three");
    await bob.ok({ type: "join", room: made.room, invite: made.invite });
    const started = await ann.state(made.room, (s) => s.status === "playing");
    assert.equal(started.players[1].name, "Bob");
    const seen = await bob.state(made.room, (s) => s.status === "playing");
    assert.equal(seen.match.to_move, 0, "Ann builds first");
    // A plain room still waits for both to say ready.
    const plain = await ann.ok({ type: "create_room", k: 4 });
    await bob.ok({ type: "join", room: plain.room });
    const still = await bob.state(plain.room, (s) => s.players[1] !== null && s.players[1].name === "Bob");
    assert.equal(still.status, "waiting");
    assert.equal(still.options.auto_start, undefined);
    // A bot in an auto_start room: seat_bot starts it.
    const carl = await player(server, "Carl");
    const solo = await carl.ok({ type: "create_room", game: "nim", game_options: { heaps: [3, 4] }, auto_start: true, first_builder: "opponent" });
    await carl.ok({ type: "seat_bot", room: solo.room, bot: "perfect", think_ms: 100 });
    const moved = await carl.state(solo.room, (s) => s.status !== "waiting" && s.match.moves >= 1);
    assert.equal(moved.match.last_move.seat, 1, "the bot moved first, unasked");
  } finally {
    await server.stop();
  }
});

test("auto_start: a join that would start a match while the server drains is refused", async () => {
  const server = await startServer(["--drain-s", "60"]);
  try {
    const ann = await player(server, "Ann");
    const bob = await player(server, "Bob");
    const made = await ann.ok({ type: "create_room", k: 4, auto_start: true });
    // A running match keeps the drain going.
    const cy = await player(server, "Cy");
    const dee = await player(server, "Dee");
    const run1 = await cy.ok({ type: "create_room", k: 4, auto_start: true });
    await dee.ok({ type: "join", room: run1.room });
    await cy.state(run1.room, (s) => s.status === "playing");
    server.proc.kill("SIGTERM");
    // Once /healthz says draining, Bob's join (which would start Ann's match) is refused.
    let draining = false;
    for (let i = 0; i < 100 && !draining; i++) {
      draining = (await get(server, "/healthz")).status === 503;
      if (!draining) await new Promise((res) => setTimeout(res, 50));
    }
    assert.ok(draining, "the server drains");
    const refused = await bob.request({ type: "join", room: made.room });
    assert.equal(refused.type, "error");
    assert.equal(refused.code, "server_busy");
    assert.match(refused.message, /starts no new match/);
  } finally {
    await server.stop("SIGKILL");
  }
});

await run();
