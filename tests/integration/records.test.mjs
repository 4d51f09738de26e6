// records.test.mjs: every game's matches are stored and served over HTTP: a Nim match
// between two people, recorded at its end (GET /api/matches/{id} with the game, its
// options, the start and final states and every move's JSON; moves.csv; the lists by
// player and game), the room list per game, the registry (GET /api/games), the 400s for
// games that do not exist, and a Thue match's record in the shape it always had.
import assert from "node:assert/strict";
import { account, get, player, run, startServer, test } from "./lib.mjs";

/** Ann creates a room of `game`, Bob joins, both are ready; resolves to the room id. */
async function gameRoom(ann, bob, game, game_options) {
  const { room } = await ann.ok({ type: "create_room", game, game_options, first_builder: "creator" });
  await bob.ok({ type: "join", room });
  await ann.ok({ type: "ready", room });
  await bob.ok({ type: "ready", room });
  await ann.state(room, (x) => x.status === "playing");
  return room;
}

/** The fields of one CSV line (RFC 4180 quoting). */
function csvFields(line) {
  const out = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let v = "";
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) throw new Error(`unterminated quote in ${line}`);
        v += line.slice(i, q);
        if (line[q + 1] === '"') {
          v += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      out.push(v);
      i++; // the comma
    } else {
      const c = line.indexOf(",", i);
      const end = c < 0 ? line.length : c;
      out.push(line.slice(i, end));
      i = end + 1;
    }
  }
  return out;
}

test("a Nim match is recorded: its JSON, moves.csv, the lists by game", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const bob = await player(server, "Bob");
    const room = await gameRoom(ann, bob, "nim", { heaps: [1, 2] });
    const t0 = Date.now();
    // Ann takes 1 from heap 1, Bob empties heap 0, Ann empties heap 1: Bob cannot move.
    const played = [
      [ann, { heap: 1, take: 1 }, 0],
      [bob, { heap: 0, take: 1 }, 1],
      [ann, { heap: 1, take: 1 }, 0],
    ];
    for (const [who, move] of played) await who.ok({ type: "move", room, move });
    const end = await ann.next("match_end");
    assert.match(end.match_id, /^m[A-Za-z0-9]+$/);
    assert.equal(end.game, "nim");

    let r = await get(server, `/api/matches/${end.match_id}`);
    assert.equal(r.status, 200, r.body);
    assert.match(r.headers.get("content-type"), /application\/json/);
    const m = r.json;
    assert.deepEqual(Object.keys(m), ["match", "room", "number", "game", "game_options", "options", "players",
      "first", "result", "points", "start", "final", "moves", "ratings", "started_at", "ended_at", "tournament",
      "tournament_round"]);
    assert.equal(m.match, end.match_id);
    assert.equal(m.room, room);
    assert.equal(m.number, 1);
    assert.equal(m.game, "nim");
    assert.deepEqual(m.game_options, { heaps: [1, 2], misere: false });
    assert.deepEqual(m.options, { clock: null, rated: false, private: false, first_builder: "creator" });
    assert.deepEqual(m.players, [
      { name: "Ann", kind: "guest", bot: null },
      { name: "Bob", kind: "guest", bot: null },
    ]);
    assert.equal(m.first, 0);
    assert.deepEqual(m.result, { winner: 0, reason: "no_moves" });
    assert.deepEqual(m.result, end.result);
    assert.deepEqual(m.points, [1, 0]);
    assert.deepEqual(m.points, end.points);
    assert.deepEqual(m.start.heaps, [1, 2]);
    assert.equal(m.start.to_move, 0);
    assert.deepEqual(m.final, end.state);
    assert.deepEqual(m.final.heaps, [0, 0]);
    assert.equal(m.moves.length, played.length);
    m.moves.forEach((mv, i) => {
      assert.deepEqual(Object.keys(mv), ["ply", "seat", "move", "think_ms"]);
      assert.equal(mv.ply, i);
      assert.equal(mv.seat, played[i][2]);
      assert.deepEqual(mv.move, played[i][1]);
      assert.ok(typeof mv.think_ms === "number" && mv.think_ms >= 0);
    });
    assert.equal(m.ratings, null);
    assert.ok(m.started_at <= m.ended_at && m.ended_at >= t0 - 60000);
    assert.equal(m.tournament, null);
    assert.equal(m.tournament_round, null);

    r = await get(server, `/api/matches/${end.match_id}/moves.csv`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get("content-type"), /text\/csv/);
    const lines = r.body.split("\n");
    assert.equal(lines.pop(), "");
    assert.equal(lines[0], "ply,seat,move,think_ms");
    assert.equal(lines.length, played.length + 1);
    assert.ok(lines[1].startsWith('0,0,"{""heap"":1,""take"":1}",'), lines[1]);
    lines.slice(1).forEach((line, i) => {
      const f = csvFields(line);
      assert.equal(f.length, 4, line);
      assert.equal(Number(f[0]), i);
      assert.equal(Number(f[1]), played[i][2]);
      assert.deepEqual(JSON.parse(f[2]), played[i][1]);
      assert.ok(Math.abs(Number(f[3]) - m.moves[i].think_ms) < 0.001);
    });

    r = await get(server, "/api/matches?player=Ann&game=nim");
    assert.equal(r.status, 200);
    assert.equal(r.json.matches.length, 1);
    const s = r.json.matches[0];
    assert.equal(s.match, end.match_id);
    assert.equal(s.game, "nim");
    assert.deepEqual(s.game_options, { heaps: [1, 2], misere: false });
    assert.equal(s.variant, undefined);
    assert.deepEqual(s.result, { winner: 0, reason: "no_moves" });
    assert.deepEqual(s.players, [{ name: "Ann", kind: "guest" }, { name: "Bob", kind: "guest" }]);
    r = await get(server, "/api/matches?player=bob&game=nim");
    assert.deepEqual(r.json.matches.map((x) => x.match), [end.match_id]);
    r = await get(server, "/api/matches?player=Ann&game=thue");
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, { matches: [], page: 1, pages: 1 });
    r = await get(server, "/api/matches?player=Ann");
    assert.deepEqual(r.json.matches.map((x) => x.match), [end.match_id]);
    r = await get(server, "/api/matches?player=Ann&game=chess");
    assert.equal(r.status, 400);
    assert.equal(r.json.error.code, "unknown_game");
    assert.match(r.json.error.message, /^game must be one of thue, nim(, [a-z]+)*$/);
  } finally {
    await server.stop();
  }
});

test("a resigned Nim match is recorded with the table's reason and the state it stopped in", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const bob = await player(server, "Bob");
    const room = await gameRoom(ann, bob, "nim", { heaps: [3, 4, 5], misere: true });
    await ann.ok({ type: "move", room, move: { heap: 2, take: 5 } });
    await bob.ok({ type: "resign", room });
    const end = await ann.next("match_end");
    assert.equal(end.result.reason, "resign");
    const r = await get(server, `/api/matches/${end.match_id}`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.result, { winner: 0, reason: "resign" });
    assert.deepEqual(r.json.game_options, { heaps: [3, 4, 5], misere: true });
    assert.deepEqual(r.json.start.heaps, [3, 4, 5]);
    assert.deepEqual(r.json.final.heaps, [3, 4, 0]);
    assert.deepEqual(r.json.final, end.state);
    assert.deepEqual(r.json.points, end.points);
    assert.deepEqual(r.json.moves.map((m) => [m.ply, m.seat, m.move]), [[0, 0, { heap: 2, take: 5 }]]);
    const csv = await get(server, `/api/matches/${end.match_id}/moves.csv`);
    assert.equal(csv.body.split("\n").length, 3); // the header, one move, the final newline
  } finally {
    await server.stop();
  }
});

test("bots' matches of every game are recorded; a Nim record replays to its final state", async () => {
  const server = await startServer();
  try {
    const ann = await account(server, "Ann"); // a bot against a bot is for accounts
    const games = [
      ["nim", { heaps: [3, 4, 5], misere: true }],
      // A small board: now and then a random start leaves no move at all (a record of no moves).
      ["northcott", { rows: 2, cols: 4 }],
      ["rims", { heaps: [4, 3] }],
    ];
    for (const [game, game_options] of games) {
      const { room } = await ann.ok({ type: "create_room", game, game_options, seat: false });
      await ann.ok({ type: "spectate", room });
      await ann.ok({ type: "seat_bot", room, bot: "perfect", think_ms: 200, seat: 0 });
      await ann.ok({ type: "seat_bot", room, bot: "random", think_ms: 200, seat: 1 });
      const end = await ann.next((m) => m.type === "match_end" && m.room === room, `${game}'s match_end`, 30000);
      const s = await ann.state(room, (x) => x.status === "finished");
      const r = await get(server, `/api/matches/${end.match_id}`);
      assert.equal(r.status, 200, game);
      const m = r.json;
      assert.equal(m.game, game);
      assert.deepEqual(m.players.map((p) => [p.kind, p.bot]), [["bot", "perfect"], ["bot", "random"]], game);
      assert.deepEqual(m.result, end.result, game);
      assert.deepEqual(m.points, end.points, game);
      assert.deepEqual(m.final, s.match.state, game);
      assert.equal(m.moves.length, s.match.moves, game);
      assert.equal(m.first, s.match.first, game);
      // Seats alternate from the first mover (these games have one move per turn).
      m.moves.forEach((mv, i) => assert.equal(mv.seat, (m.first + i) % 2, `${game} move ${i}`));
      if (game === "nim") {
        const heaps = [...m.start.heaps];
        for (const mv of m.moves) {
          assert.ok(mv.move.take >= 1 && mv.move.take <= heaps[mv.move.heap], JSON.stringify(mv));
          heaps[mv.move.heap] -= mv.move.take;
        }
        assert.deepEqual(heaps, m.final.heaps);
        assert.deepEqual(heaps, [0, 0, 0]);
      }
      const csv = await get(server, `/api/matches/${end.match_id}/moves.csv`);
      assert.equal(csv.body.trim().split("\n").length, m.moves.length + 1, game);
      await ann.ok({ type: "leave", room });
    }
    const list = await get(server, "/api/matches?player=perfect");
    assert.deepEqual(list.json.matches.map((x) => x.game).sort(), ["nim", "northcott", "rims"]);
    const one = await get(server, "/api/matches?player=random&game=rims");
    assert.deepEqual(one.json.matches.map((x) => x.game), ["rims"]);
  } finally {
    await server.stop();
  }
});

test("/api/rooms?game=G lists that game's rooms; no game lists Thue's; a game no game has lists none, as list_rooms", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const nim = (await ann.ok({ type: "create_room", game: "nim", game_options: { heaps: [7] }, name: "Nim table" })).room;
    const thue = (await ann.ok({ type: "create_room", k: 4, name: "Thue table" })).room;
    let r = await get(server, "/api/rooms?game=nim");
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.rooms.map((x) => x.room), [nim]);
    assert.equal(r.json.rooms[0].game, "nim");
    assert.deepEqual(r.json.rooms[0].game_options, { heaps: [7], misere: false });
    r = await get(server, "/api/rooms");
    assert.deepEqual(r.json.rooms.map((x) => x.room), [thue]);
    assert.equal(r.json.rooms[0].game, undefined);
    r = await get(server, "/api/rooms?game=thue");
    assert.deepEqual(r.json.rooms.map((x) => x.room), [thue]);
    r = await get(server, "/api/rooms?game=nim&status=waiting");
    assert.deepEqual(r.json.rooms.map((x) => x.room), [nim]);
    for (const bad of ["chess", "", "NIM", "x".repeat(100)]) {
      r = await get(server, `/api/rooms?game=${bad}`);
      assert.equal(r.status, 200, bad);
      assert.deepEqual(r.json, { rooms: [] }, bad);
    }
    const listed = await ann.ok({ type: "list_rooms", game: "chess" });
    assert.deepEqual(listed.rooms, []);
  } finally {
    await server.stop();
  }
});

test("/api/games: the registry, Thue first", async () => {
  const server = await startServer();
  try {
    const r = await get(server, "/api/games");
    assert.equal(r.status, 200);
    assert.match(r.headers.get("content-type"), /application\/json/);
    const games = r.json.games;
    assert.deepEqual(games.map((g) => g.name).slice(0, 2), ["thue", "nim"]);
    assert.equal(new Set(games.map((g) => g.name)).size, games.length);
    // The 400 for an unknown game names exactly these games, in this order.
    const bad = await get(server, "/api/matches?player=Ann&game=chess");
    assert.equal(bad.json.error.message, `game must be one of ${games.map((g) => g.name).join(", ")}`);
    for (const g of games) {
      assert.deepEqual(Object.keys(g), ["name", "title", "summary", "move", "position", "move_schema", "position_schema", "options", "flags", "bots"]);
      assert.ok(g.summary.length > 20, g.name);
      for (const o of g.options) {
        assert.deepEqual(Object.keys(o), ["name", "type", "default", "help"]);
        assert.ok(o.help.length > 5);
      }
    }
    // Each game's bots are SPECs that seat_bot takes there (the grammar's placeholders
    // filled in), each with a line of help.
    const concrete = (spec) => spec.replace("nested:L", "nested:2").replace(/^uct\[.*\]$/, "uct:iterations=50,playout=20")
      .replace("perfect[:depth=D]", "perfect:depth=2");
    for (const [i, g] of games.entries()) {
      assert.ok(g.bots.length >= 3, g.name);
      const host = await player(server, `Bo${i}`);
      for (const b of g.bots) {
        assert.deepEqual(Object.keys(b), ["spec", "help"]);
        assert.ok(b.help.length > 10, `${g.name} ${b.spec}`);
        const { room } = await host.ok(g.name === "thue" ? { type: "create_room", k: 3 } : { type: "create_room", game: g.name });
        const r = await host.request({ type: "seat_bot", room, bot: concrete(b.spec), think_ms: 100 });
        assert.equal(r.type, "ok", `${g.name}: ${b.spec} as ${concrete(b.spec)}: ${JSON.stringify(r)}`);
        await host.ok({ type: "leave", room });
      }
    }
    assert.deepEqual(games.find((g) => g.name === "dots").bots.map((b) => b.spec), ["random", "uct[:iterations=N,ms=T,playout=M,c=X]", "perfect", "heuristic", "strong"]);
    const [thue, nim] = games;
    // Every game but Thue can be hosted: a room of each is made with its defaults (by a
    // host of its own: a player may have only so many open rooms, fewer than the games).
    for (const [i, g] of games.slice(1).entries()) {
      const host = await player(server, `Eve${i}`);
      const { room } = await host.ok({ type: "create_room", game: g.name });
      const listed = await get(server, `/api/rooms?game=${g.name}`);
      assert.deepEqual(listed.json.rooms.map((x) => x.room), [room], g.name);
      assert.deepEqual(listed.json.rooms[0].game_options,
        Object.fromEntries(g.options.map((o) => [o.name, o.default])), g.name);
    }
    assert.equal(thue.title, "Thue");
    assert.deepEqual(thue.options.map((o) => [o.name, o.type, o.default]), [
      ["variant", "string", "square"],
      ["k", "integer", 3],
      ["limit", "integer", 100],
    ]);
    assert.deepEqual(thue.flags, { acyclic: true, draws: true });
    assert.equal(nim.title, "Nim");
    assert.equal(nim.move, '{"heap":I,"take":N}');
    assert.deepEqual(nim.options.map((o) => [o.name, o.type, o.default]), [
      ["heaps", "array of integers", [3, 4, 5]],
      ["misere", "boolean", false],
    ]);
    assert.deepEqual(nim.flags, { acyclic: true, draws: false });
    // A room made with the defaults the registry names has exactly those options.
    const ann = await player(server, "Ann");
    await ann.ok({ type: "create_room", game: "nim" });
    const rooms = await get(server, "/api/rooms?game=nim");
    assert.deepEqual(rooms.json.rooms[0].game_options,
      Object.fromEntries(nim.options.map((o) => [o.name, o.default])));
  } finally {
    await server.stop();
  }
});

test("a Thue match's record keeps its shape; /api/matches without game lists every game's", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const bob = await player(server, "Bob");
    const { room } = await ann.ok({ type: "create_room", k: 3, first_builder: "creator" });
    await bob.ok({ type: "join", room });
    await ann.ok({ type: "ready", room });
    await bob.ok({ type: "ready", room });
    await ann.state(room, (x) => x.status === "playing");
    await ann.ok({ type: "place", room, position: 0 });
    await bob.ok({ type: "paint", room, symbol: 1 });
    await ann.ok({ type: "resign", room });
    const end = await bob.next("match_end");
    assert.equal(end.result.reason, "resign");
    assert.equal((await ann.next("match_end")).match_id, end.match_id);
    let r = await get(server, `/api/matches/${end.match_id}`);
    assert.equal(r.status, 200);
    const m = r.json;
    assert.deepEqual(Object.keys(m), ["match", "room", "number", "options", "players", "result", "points",
      "rounds", "moves", "ratings", "started_at", "ended_at", "tournament", "tournament_round"]);
    assert.deepEqual(m.options, { variant: "square", k: 3, limit: m.options.limit, clock: null, rated: false,
      private: false, first_builder: "creator" });
    assert.deepEqual(m.result, { winner: 1, reason: "resign" });
    assert.equal(m.rounds.length, 2);
    assert.deepEqual(m.moves.map((x) => Object.keys(x)), [
      ["round", "ply", "seat", "kind", "value", "think_ms"],
      ["round", "ply", "seat", "kind", "value", "think_ms"],
    ]);
    assert.deepEqual(m.moves.map((x) => [x.round, x.ply, x.seat, x.kind, x.value]), [
      [0, 0, 0, "place", 0],
      [0, 1, 1, "paint", 1],
    ]);
    r = await get(server, `/api/matches/${end.match_id}/moves.csv`);
    assert.deepEqual(r.body.split("\n").slice(0, 3).map((l) => l.split(",").slice(0, 5).join(",")), [
      "round,ply,seat,role,move",
      "0,0,0,builder,0",
      "0,1,1,painter,1",
    ]);
    // A Nim match too: the plain list has both, newest first; game= picks one.
    const nimRoom = await gameRoom(ann, bob, "nim", { heaps: [1] });
    await ann.ok({ type: "move", room: nimRoom, move: { heap: 0, take: 1 } });
    const nimEnd = await ann.next("match_end");
    r = await get(server, "/api/matches?player=ann");
    assert.deepEqual(r.json.matches.map((x) => [x.match, x.game]), [
      [nimEnd.match_id, "nim"],
      [end.match_id, "thue"],
    ]);
    const thueSummary = r.json.matches[1];
    assert.deepEqual(Object.keys(thueSummary), ["match", "room", "number", "game", "variant", "k", "rated",
      "players", "result", "points", "ended_at"]);
    r = await get(server, "/api/matches?player=ann&game=thue");
    assert.deepEqual(r.json.matches.map((x) => x.match), [end.match_id]);
    r = await get(server, "/api/matches?player=ann&game=nim&page=2");
    assert.deepEqual(r.json, { matches: [], page: 2, pages: 1 });
  } finally {
    await server.stop();
  }
});

await run();
