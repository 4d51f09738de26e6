// games.test.mjs: rooms of the games other than Thue (server/games/) through the real
// server: a Nim match between two people to its end, the errors a move can get, the
// room lists per game, and Thue's messages unchanged for clients that name no game.
import assert from "node:assert/strict";
import { account, get, player, run, startServer, test } from "./lib.mjs";

/** Ann creates a room of `game` with options, Bob joins, both are ready; resolves to
 * {room, s} with the first playing state as Ann sees it. */
async function gameRoom(ann, bob, game, game_options, extra = {}) {
  const created = await ann.ok({ type: "create_room", game, game_options, first_builder: "creator", ...extra });
  const room = created.room;
  await bob.ok({ type: "join", room });
  await ann.ok({ type: "ready", room });
  await bob.ok({ type: "ready", room });
  const s = await ann.state(room, (x) => x.status === "playing");
  return { room, s };
}

test("two people play Nim to the end: the state follows every move, match_end names the winner", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const bob = await player(server, "Bob");
    const { room, s } = await gameRoom(ann, bob, "nim", { heaps: [1, 2] });
    assert.equal(s.options.game, "nim");
    assert.deepEqual(s.options.game_options, { heaps: [1, 2], misere: false });
    assert.equal(s.options.variant, undefined);
    assert.equal(s.match.first, 0);
    assert.equal(s.match.step, "move");
    assert.equal(s.match.to_move, 0);
    assert.deepEqual(s.match.state.heaps, [1, 2]);
    // Ann takes 1 from heap 1 (nim-sum 0 for Bob), Bob empties heap 0, Ann empties heap 1.
    await ann.ok({ type: "move", room, move: { heap: 1, take: 1 } });
    let t = await bob.state(room, (x) => x.match && x.match.moves === 1);
    assert.deepEqual(t.match.state.heaps, [1, 1]);
    assert.equal(t.match.to_move, 1);
    assert.deepEqual(t.match.last_move.move, { heap: 1, take: 1 });
    assert.equal(t.match.last_move.seat, 0);
    await bob.ok({ type: "move", room, move: { heap: 0, take: 1 } });
    await ann.state(room, (x) => x.match && x.match.moves === 2);
    await ann.ok({ type: "move", room, move: { heap: 1, take: 1 } });
    const end = await bob.next("match_end");
    assert.equal(end.game, "nim");
    assert.equal(end.result.winner, 0);
    assert.equal(end.result.reason, "no_moves");
    assert.deepEqual(end.points, [1, 0]);
    assert.deepEqual(end.state.heaps, [0, 0]);
    t = await bob.state(room, (x) => x.status === "finished");
    assert.equal(t.match.step, "over");
    assert.equal(t.match.to_move, null);
    assert.deepEqual(t.match.result, { winner: 0, reason: "no_moves" });
  } finally {
    await server.stop();
  }
});

test("a start position that is already over ends the match at once, by the rules", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const bob = await player(server, "Bob");
    // One row, white on column 0 and black on column 1: white, to move, has no move.
    const created = await ann.ok({ type: "create_room", game: "northcott", game_options: { rows: 1, cols: 2, start: [[0, 1]] }, first_builder: "creator" });
    const room = created.room;
    await bob.ok({ type: "join", room });
    await ann.ok({ type: "ready", room });
    await bob.ok({ type: "ready", room });
    const end = await ann.next("match_end");
    assert.equal(end.result.winner, 1);
    assert.equal(end.result.reason, "no_moves");
    const s = await ann.state(room, (x) => x.status === "finished");
    assert.equal(s.match.moves, 0);
    assert.equal(s.match.to_move, null);
  } finally {
    await server.stop();
  }
});

test("a move's errors: shape, turn, the rules, the wrong kind of move; nothing changes", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const bob = await player(server, "Bob");
    const { room } = await gameRoom(ann, bob, "nim", { heaps: [3, 4, 5], misere: true });
    const cases = [
      [bob, { heap: 0, take: 1 }, "not_your_turn"],
      [ann, { heap: 0 }, "bad_move"],
      [ann, { heap: 0, take: 1, extra: 2 }, "bad_move"],
      [ann, { heap: 5, take: 1 }, "illegal_move"],
      [ann, { heap: 0, take: 4 }, "illegal_move"],
    ];
    for (const [who, move, code] of cases) {
      const r = await who.request({ type: "move", room, move });
      assert.equal(r.type, "error", JSON.stringify(move));
      assert.equal(r.code, code, `${JSON.stringify(move)}: ${r.message}`);
      assert.ok(r.message.length > 10, r.message);
    }
    const wrong = await ann.request({ type: "place", room, position: 0 });
    assert.equal(wrong.code, "bad_move");
    assert.match(wrong.message, /Nim/);
    const notObject = await ann.request({ type: "move", room, move: [1, 2] });
    assert.equal(notObject.code, "bad_message");
    // The refused moves changed nothing: the first accepted move is move 1, on the start.
    await ann.ok({ type: "move", room, move: { heap: 2, take: 5 } });
    const s = await ann.state(room, (x) => x.match && x.match.moves > 0);
    assert.equal(s.match.moves, 1);
    assert.deepEqual(s.match.state.heaps, [3, 4, 0]);
    assert.equal(s.match.to_move, 1);
  } finally {
    await server.stop();
  }
});

test("create_room refuses an unknown game, bad options, Thue with game_options, a guest's rated play", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const cases = [
      [{ game: "chess" }, "unknown_game", "game"],
      [{ game: "nim", game_options: { heaps: [] } }, "bad_options", "game_options/heaps"],
      [{ game: "nim", game_options: { heaps: [1001] } }, "bad_options", "game_options/heaps"],
      [{ game: "nim", game_options: { misere: 1 } }, "bad_options", "game_options/misere"],
      [{ game: "nim", game_options: { size: 3 } }, "bad_options", "game_options/size"],
      [{ game: "thue", game_options: { k: 3 } }, "bad_options", "game_options"],
      [{ game: "nim", rated: true }, "not_allowed", null], // rated play is for accounts
    ];
    for (const [extra, code, field] of cases) {
      const r = await ann.request({ type: "create_room", ...extra });
      assert.equal(r.type, "error", JSON.stringify(extra));
      if (code) assert.equal(r.code, code, `${JSON.stringify(extra)}: ${r.message}`);
      if (field) assert.equal(r.field, field, JSON.stringify(extra));
    }
    const list = await ann.ok({ type: "list_rooms", game: "nim" });
    assert.equal(list.rooms.length, 0);
  } finally {
    await server.stop();
  }
});

test("list_rooms: no game lists Thue's rooms only, game filters; summaries carry the game", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const nim = (await ann.ok({ type: "create_room", game: "nim", game_options: { heaps: [7] }, name: "Nim table" })).room;
    const thue = (await ann.ok({ type: "create_room", k: 4, name: "Thue table" })).room;
    const plain = await ann.ok({ type: "list_rooms" });
    assert.deepEqual(plain.rooms.map((r) => r.room), [thue]);
    assert.equal(plain.rooms[0].game, undefined);
    assert.equal(plain.rooms[0].k, 4);
    const games = await ann.ok({ type: "list_rooms", game: "nim" });
    assert.deepEqual(games.rooms.map((r) => r.room), [nim]);
    assert.equal(games.rooms[0].game, "nim");
    assert.deepEqual(games.rooms[0].game_options, { heaps: [7], misere: false });
    assert.equal(games.rooms[0].k, undefined);
    const none = await ann.request({ type: "list_rooms", game: "nosuch" });
    assert.equal(none.type, "rooms");
    assert.equal(none.rooms.length, 0);
  } finally {
    await server.stop();
  }
});

test("resigning a Nim match ends it for the other seat", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const bob = await player(server, "Bob");
    const { room } = await gameRoom(ann, bob, "nim", {});
    await bob.ok({ type: "resign", room });
    const end = await ann.next("match_end");
    assert.equal(end.result.winner, 0);
    assert.equal(end.result.reason, "resign");
    const s = await ann.state(room, (x) => x.status === "finished");
    assert.equal(s.match.step, "over");
  } finally {
    await server.stop();
  }
});

test("quick match pairs players of the same game and options only", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const bob = await player(server, "Bob");
    const cyd = await player(server, "Cyd");
    await ann.ok({ type: "queue_join", game: "nim", game_options: { heaps: [4, 5] } });
    // Another game's options, and Thue, are other queues.
    await bob.ok({ type: "queue_join", game: "nim", game_options: { heaps: [4, 6] } });
    await cyd.ok({ type: "queue_join", variant: "square", k: 3 });
    // The same options written otherwise (defaults spelled out) are the same queue.
    const dan = await player(server, "Dan");
    await dan.ok({ type: "queue_join", game: "nim", game_options: { misere: false, heaps: [4, 5] } });
    const found = await ann.next("match_found");
    const s = await ann.state(found.room);
    assert.equal(s.options.game, "nim");
    assert.deepEqual(s.options.game_options, { heaps: [4, 5], misere: false });
    assert.deepEqual(s.players.map((p) => p.name).sort(), ["Ann", "Dan"]);
    assert.equal(s.status, "playing");
    const bad = await bob.request({ type: "queue_join", game: "nim", game_options: { heaps: [0] } });
    assert.equal(bad.code, "bad_options");
    const none = await bob.request({ type: "queue_join", game: "go" });
    assert.equal(none.code, "unknown_game");
  } finally {
    await server.stop();
  }
});

test("a person plays Nim against the perfect bot, which wins when the nim-sum says it can", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    // Ann moves first from [1,2,3] (nim-sum 0): whatever she does, the bot wins.
    const created = await ann.ok({ type: "create_room", game: "nim", game_options: { heaps: [1, 2, 3] }, first_builder: "creator" });
    const room = created.room;
    const seated = await ann.request({ type: "seat_bot", room, bot: "perfect", think_ms: 1000 });
    assert.equal(seated.type, "ok", JSON.stringify(seated));
    await ann.ok({ type: "ready", room });
    let s = await ann.state(room, (x) => x.status === "playing");
    assert.equal(s.players[1].bot, "perfect");
    for (let moves = 0; moves < 20 && s.status === "playing"; moves++) {
      if (s.match.to_move === 0) {
        const heaps = s.match.state.heaps;
        const heap = heaps.findIndex((h) => h > 0);
        await ann.ok({ type: "move", room, move: { heap, take: 1 } });
      }
      s = await ann.state(room, (x) => x.status === "finished" || (x.match.to_move === 0 && x.match.thinking === null));
      if (s.status === "playing") assert.equal(s.match.state.nim_sum, 0, "the bot leaves nim-sum 0");
    }
    assert.equal(s.status, "finished");
    assert.equal(s.match.result.winner, 1);
    assert.equal(s.match.result.reason, "no_moves");
    const bad = await ann.request({ type: "seat_bot", room, bot: "nested:2" });
    assert.equal(bad.type, "error");
  } finally {
    await server.stop();
  }
});

test("bots play every game to its end while a spectator watches", async () => {
  const server = await startServer();
  try {
    const ann = await account(server, "Ann");
    const games = [
      ["nim", { heaps: [3, 4, 5], misere: true }],
      // Fixed starts (a random one may leave white no move: the match would end at once).
      ["northcott", { rows: 3, cols: 5, start: [[0, 4], [1, 3], [0, 2]] }],
      ["rims", { heaps: [4, 3] }],
      ["circle", { fields: 9, start: "W.B.W.B.." }],
    ];
    for (const [game, game_options] of games) {
      const created = await ann.ok({ type: "create_room", game, game_options, seat: false });
      const room = created.room;
      await ann.ok({ type: "spectate", room });
      await ann.ok({ type: "seat_bot", room, bot: "perfect", think_ms: 500, seat: 0 });
      await ann.ok({ type: "seat_bot", room, bot: "random", think_ms: 500, seat: 1 });
      const end = await ann.next((m) => m.type === "match_end" && m.room === room, `${game}'s match_end`, 30000);
      assert.equal(end.game, game);
      assert.ok(["no_moves", "took_last", "move_cap"].includes(end.result.reason), end.result.reason);
      const s = await ann.state(room, (x) => x.status === "finished");
      assert.ok(s.match.moves > 0);
      assert.deepEqual(end.state, s.match.state);
      await ann.ok({ type: "leave", room }); /* its bots stop counting against Ann */
    }
  } finally {
    await server.stop();
  }
});

test("quick match with bot_after_s seats the game's bot", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    await ann.ok({ type: "queue_join", game: "rims", game_options: { heaps: [2, 2] }, bot_after_s: 1 });
    const found = await ann.next("match_found", undefined, 5000);
    const s = await ann.state(found.room);
    assert.equal(s.options.game, "rims");
    assert.equal(s.players.filter((p) => p.kind === "bot").length, 1);
  } finally {
    await server.stop();
  }
});

test("a round robin of Northcott: a person and two bots play every game to standings", async () => {
  const server = await startServer();
  try {
    const ann = await account(server, "Ann");
    const bad = await ann.request({ type: "create_tournament", name: "N", format: "round_robin", game: "northcott", game_options: { rows: 0 }, max_players: 3 });
    assert.equal(bad.code, "bad_options");
    const { tournament } = await ann.ok({ type: "create_tournament", name: "Northcott cup", format: "round_robin", game: "northcott", game_options: { rows: 2, cols: 4, move_cap: 30 }, max_players: 3 });
    await ann.ok({ type: "join_tournament", tournament });
    await ann.ok({ type: "join_tournament", tournament, bot: "perfect" });
    await ann.ok({ type: "join_tournament", tournament, bot: "random" });
    const wrong = await ann.request({ type: "join_tournament", tournament, bot: "nested:1" });
    assert.equal(wrong.code, "bad_bot");
    await ann.ok({ type: "start_tournament", tournament });
    // Ann plays her games: the first legal move of each state (a piece one square toward
    // the other, else away).
    let stopped = false;
    (async () => {
      while (!stopped) {
        let st;
        try {
          st = await ann.next((m) => m.type === "room_state" && m.match && m.match.to_move === m.you && m.status === "playing", "a move", 60000);
        } catch {
          return;
        }
        const g = st.match.state;
        const mine = st.match.first === st.you ? g.white : g.black;
        const theirs = st.match.first === st.you ? g.black : g.white;
        let move = null;
        for (let row = 0; row < g.rows && !move; row++) {
          for (const to of [mine[row] + (theirs[row] > mine[row] ? 1 : -1), mine[row] - (theirs[row] > mine[row] ? 1 : -1)]) {
            if (to >= 0 && to < g.cols && to !== theirs[row]) {
              move = { row, to };
              break;
            }
          }
        }
        // A stale state is answered not_your_turn or illegal_move (fine: a newer one comes);
        // a move refused for the connection's rate limit is sent again a moment later.
        for (let tries = 0; tries < 20; tries++) {
          const r = await ann.request({ type: "move", room: st.room, move });
          if (r.type !== "error" || r.code !== "rate_limited") break;
          await new Promise((res) => setTimeout(res, 250));
        }
      }
    })();
    const t0 = Date.now();
    let t;
    for (;;) {
      t = (await get(server, `/api/tournaments/${tournament}`)).json;
      if (t.status === "finished" || Date.now() - t0 > 20000) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    stopped = true;
    assert.equal(t.status, "finished", JSON.stringify(t.round_list));
    assert.equal(t.game, "northcott");
    assert.deepEqual(t.game_options.rows, 2);
    assert.equal(t.variant, undefined);
    assert.equal(t.standings.length, 3);
    const points = t.standings.reduce((a, x) => a + x.points, 0);
    assert.equal(points, 6, "three games and three byes (three players), a point each");
    // The perfect bot loses no game (draws by the move cap at worst).
    const perfect = t.standings.find((x) => x.name === "perfect");
    assert.ok(perfect.points >= 1, JSON.stringify(t.standings));
  } finally {
    await server.stop();
  }
});

await run();
