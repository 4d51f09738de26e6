// ratings_games.test.mjs: ratings of the games other than Thue through the real server and
// its SQLite store: a rated Nim match between two accounts moves both ratings in the pool
// of its options (misere play) and in no other pool, and they survive a restart; a rated
// room with a bot rates the bot's account; rated quick match of another game; tournaments
// seed by the pool's ratings; and the errors of get_ladder and /api/ladder.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client, account, get, player, run, startServer, test } from "./lib.mjs";

const FLAGS = ["--rate", "1000", "--burst", "1000"];

/** A temporary database file in its own directory. */
function tempDb() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thue-ratings-games-"));
  return { dir, db: path.join(dir, "thue.db") };
}

/** Sends a move; one refused by the connection's rate limit is sent again. */
async function move(c, room, m) {
  for (let tries = 0; tries < 20; tries++) {
    const r = await c.request({ type: "move", room, move: m });
    if (r.type !== "error" || r.code !== "rate_limited") return r;
    await new Promise((res) => setTimeout(res, 250));
  }
  throw new Error("rate limited 20 times in a row");
}

/** Plays c's seat of a running Nim match to its end (one token from the first non-empty
 * heap each turn); resolves to match_end. */
async function playNim(c, room) {
  const ended = c.next((m) => m.type === "match_end" && m.room === room, "match_end", 30000);
  for (;;) {
    const s = await c.state(room, (x) => x.status === "finished" || (x.match && x.match.to_move === x.you));
    if (s.status === "finished") return ended;
    const heap = s.match.state.heaps.findIndex((h) => h > 0);
    const r = await move(c, room, { heap, take: 1 });
    assert.ok(r.type === "ok" || r.code === "not_your_turn" || r.code === "match_over", JSON.stringify(r));
  }
}

const ladderPath = (game, options, extra = "") =>
  `/api/ladder?game=${game}${options ? `&game_options=${encodeURIComponent(JSON.stringify(options))}` : ""}${extra}`;

/** Zed (seat 0, moving first) and Amy play rated misere Nim on [1, 2]: Zed empties heap
 * 1, Amy must take the last token and loses. Resolves to Amy's match_end. */
async function zedBeatsAmy(zed, amy) {
  const { room } = await zed.ok({ type: "create_room", game: "nim", game_options: { heaps: [1, 2], misere: true }, rated: true, first_builder: "creator" });
  await amy.ok({ type: "join", room });
  await zed.ok({ type: "ready", room });
  await amy.ok({ type: "ready", room });
  const s = await amy.state(room, (x) => x.status === "playing");
  assert.equal(s.options.rated, true);
  assert.deepEqual(s.players.map((x) => x.rating), [1500, 1500], "each seat shows its rating in the room's pool");
  const ended = amy.next((m) => m.type === "match_end" && m.room === room, "match_end");
  assert.equal((await move(zed, room, { heap: 1, take: 2 })).type, "ok");
  await amy.state(room, (x) => x.match.moves === 1);
  assert.equal((await move(amy, room, { heap: 0, take: 1 })).type, "ok");
  return ended;
}

test("a rated Nim match moves both ratings in its pool only, and they survive a restart", async () => {
  const { dir, db } = tempDb();
  let server = await startServer(["--db", db, ...FLAGS]);
  let token;
  try {
    const zed = await player(server, "Zed");
    token = (await zed.ok({ type: "claim_name", name: "Zed" })).token;
    const amy = await account(server, "Amy");
    const end = await zedBeatsAmy(zed, amy);
    assert.equal(end.game, "nim");
    assert.deepEqual(end.result, { winner: 0, reason: "took_last" });
    assert.ok(Array.isArray(end.ratings), "a rated match of another game reports its rating changes");
    assert.equal(end.ratings[0].before, 1500);
    assert.ok(end.ratings[0].after > 1500 && end.ratings[1].after < 1500);
    assert.ok(end.ratings[0].rd_after < 350);

    // The misere pool has both, best first; its options may be any that name the pool.
    const lad = await amy.ok({ type: "get_ladder", game: "nim", game_options: { misere: true, heaps: [7] } });
    assert.equal(lad.game, "nim");
    assert.equal(lad.pool, "misere");
    assert.deepEqual(lad.game_options, { heaps: [7], misere: true });
    assert.equal(lad.variant, undefined);
    assert.equal(lad.total, 2);
    assert.deepEqual(lad.entries.map((e) => [e.name, e.games, e.wins, e.losses]), [["Zed", 1, 1, 0], ["Amy", 1, 0, 1]]);
    assert.equal(lad.entries[0].rating, end.ratings[0].after);
    // Other pools did not move: Nim's normal play, Thue's (square, 3), the circle game's.
    for (const [req, what] of [
      [{ game: "nim" }, "nim normal"],
      [{ variant: "square", k: 3 }, "thue square 3"],
      [{ game: "thue", variant: "square", k: 3 }, "thue named"],
      [{ game: "circle", game_options: { fields: 12 } }, "circle 12"],
    ]) {
      const r = await amy.ok({ type: "get_ladder", ...req });
      assert.equal(r.total, 0, what);
    }
    // The HTTP API says the same.
    let r = await get(server, ladderPath("nim", { misere: true }));
    assert.equal(r.status, 200);
    assert.equal(r.json.pool, "misere");
    assert.deepEqual(r.json.entries.map((e) => e.name), ["Zed", "Amy"]);
    assert.equal(r.json.type, undefined);
    // Byte for byte the ladder message's members (without type and id) as the socket gets them.
    const same = await amy.ok({ type: "get_ladder", game: "nim", game_options: { misere: true } });
    const { type: _t, id: _i, ...members } = same;
    assert.equal(r.body, JSON.stringify(members));
    r = await get(server, ladderPath("nim", { misere: true }, "&kind=human&offset=1&count=1"));
    assert.deepEqual(r.json.entries.map((e) => [e.rank, e.name]), [[2, "Amy"]]);
    r = await get(server, ladderPath("nim"));
    assert.equal(r.json.pool, "normal");
    assert.equal(r.json.total, 0);
    // The stored record has the changes.
    r = await get(server, `/api/matches/${end.match_id}`);
    assert.equal(r.status, 200);
    assert.equal(r.json.options.rated, true);
    assert.equal(r.json.ratings.length, 2);
    for (let i = 0; i < 2; i++) {
      for (const k of ["before", "after", "rd_before", "rd_after"]) {
        assert.ok(Math.abs(r.json.ratings[i][k] - end.ratings[i][k]) < 1e-9, `record ratings[${i}].${k}`);
      }
    }
  } finally {
    await server.stop();
  }
  // After a restart: the same ladder, and Zed's session shows his rating in a new room.
  server = await startServer(["--db", db, ...FLAGS]);
  try {
    const r = await get(server, ladderPath("nim", { misere: true }));
    assert.deepEqual(r.json.entries.map((e) => [e.name, e.games]), [["Zed", 1], ["Amy", 1]]);
    const z = await Client.connect(server.ws, "Zed");
    const w = await z.ok({ type: "hello", protocol: 1, token });
    assert.deepEqual(w.player, { name: "Zed", kind: "account" });
    const { room } = await z.ok({ type: "create_room", game: "nim", game_options: { heaps: [3], misere: true }, rated: true });
    const s = await z.state(room);
    assert.equal(s.players[0].rating, r.json.entries[0].rating, "the loaded rating is the seat's");
    z.close();
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a bot in a rated room of another game plays as its SPEC's account and is rated", async () => {
  const server = await startServer(FLAGS);
  try {
    const ann = await account(server, "Ann");
    const { room } = await ann.ok({ type: "create_room", game: "nim", game_options: { heaps: [3, 4, 5] }, rated: true, first_builder: "creator" });
    await ann.ok({ type: "seat_bot", room, bot: "perfect", think_ms: 50 });
    await ann.ok({ type: "ready", room });
    const end = await playNim(ann, room);
    assert.ok(Array.isArray(end.ratings), JSON.stringify(end));
    assert.deepEqual(end.players.map((p) => p.kind), ["account", "bot"]);
    const lad = await ann.ok({ type: "get_ladder", game: "nim", kind: "bot" });
    assert.equal(lad.pool, "normal");
    assert.deepEqual(lad.entries.map((e) => [e.name, e.kind, e.games]), [["perfect", "bot", 1]]);
    const all = await ann.ok({ type: "get_ladder", game: "nim" });
    assert.equal(all.total, 2);
    const winner = end.result.winner;
    assert.equal(all.entries[0].name, winner === 0 ? "Ann" : "perfect", "the winner ranks first");
  } finally {
    await server.stop();
  }
});

test("rated quick match of another game pairs two accounts; an early resign is not rated", async () => {
  const server = await startServer(FLAGS);
  try {
    const ann = await account(server, "Ann");
    const bob = await account(server, "Bob");
    const guest = await player(server, "Gus");
    // Rims from fixed regions (a random start, as Northcott's, may be over at once).
    const ask = { type: "queue_join", game: "rims", game_options: { heaps: [3, 4] }, rated: true };
    const refused = await guest.request(ask);
    assert.equal(refused.code, "not_allowed", "rated play is for accounts, in every game");
    await ann.ok(ask);
    await bob.ok(ask);
    const found = await ann.next("match_found");
    await bob.next("match_found");
    const s = await ann.state(found.room, (x) => x.status === "playing");
    assert.equal(s.options.game, "rims");
    assert.equal(s.options.rated, true);
    assert.deepEqual(s.players.map((p) => p.rating), [1500, 1500]);
    const ended = bob.next((m) => m.type === "match_end" && m.room === found.room, "match_end");
    await ann.ok({ type: "resign", room: found.room });
    const end = await ended;
    assert.equal(end.ratings, null);
    assert.equal(end.unrated_reason, "too_short");
    const lad = await ann.ok({ type: "get_ladder", game: "rims" });
    assert.equal(lad.pool, "normal");
    assert.equal(lad.total, 0);
    const nc = await ann.ok({ type: "get_ladder", game: "northcott", game_options: { rows: 2, cols: 4 } });
    assert.equal(nc.pool, "2x4");
  } finally {
    await server.stop();
  }
});

test("a tournament of another game seeds its entrants by their ratings in its pool", async () => {
  const server = await startServer(FLAGS);
  try {
    const zed = await account(server, "Zed");
    const amy = await account(server, "Amy");
    await zedBeatsAmy(zed, amy); // misere pool: Zed above 1500, Amy below
    const entrantsAtStart = async (misere) => {
      const { tournament } = await amy.ok({ type: "create_tournament", name: misere ? "Misere cup" : "Normal cup", format: "round_robin", game: "nim", game_options: { heaps: [1, 1], misere }, max_players: 3 });
      await amy.ok({ type: "join_tournament", tournament });
      await zed.ok({ type: "join_tournament", tournament });
      await amy.ok({ type: "join_tournament", tournament, bot: "random" });
      await amy.ok({ type: "start_tournament", tournament });
      const t = await amy.ok({ type: "get_tournament", tournament });
      return t.entrants.map((e) => e.name);
    };
    // By rating: Zed, the unrated bot (1500), Amy. Without ratings (normal play): by name.
    assert.deepEqual(await entrantsAtStart(true), ["Zed", "random", "Amy"]);
    assert.deepEqual(await entrantsAtStart(false), ["Amy", "Zed", "random"]);
  } finally {
    await server.stop();
  }
});

test("get_ladder and /api/ladder answer a bad pool with a clear error", async () => {
  const server = await startServer(FLAGS);
  try {
    const ann = await player(server, "Ann");
    const cases = [
      [{ game: "chess" }, "unknown_game", "game"],
      [{ game: "nim", game_options: { misere: "yes" } }, "bad_options", "game_options/misere"],
      [{ game: "northcott", game_options: { rows: 0 } }, "bad_options", "game_options/rows"],
      [{ variant: "square", k: 3, game_options: {} }, "bad_options", "game_options"],
      [{ game: "thue", variant: "square" }, "bad_message", "k"],
      [{ game: "nim", game_options: [1] }, "bad_message", "game_options"],
    ];
    for (const [req, code, field] of cases) {
      const r = await ann.request({ type: "get_ladder", ...req });
      assert.equal(r.type, "error", JSON.stringify(req));
      assert.equal(r.code, code, JSON.stringify(r));
      assert.equal(r.field, field, JSON.stringify(r));
      assert.ok(r.message.length > 10, r.message);
    }
    const http = [
      ["/api/ladder?game=chess", "unknown_game"],
      ["/api/ladder?game=nim&game_options=%7B", "bad_options"],
      [ladderPath("nim", { misere: 1 }), "bad_options"],
      [ladderPath("nim", [1]), "bad_options"],
      ["/api/ladder?game=nim&count=0", "bad_request"],
      ["/api/ladder", "bad_request"],
      ["/api/ladder?variant=square&k=3&game_options=%7B%7D", "bad_options"],
    ];
    for (const [p, code] of http) {
      const r = await get(server, p);
      assert.equal(r.status, 400, p);
      assert.equal(r.json.error.code, code, `${p}: ${r.body}`);
      assert.ok(r.json.error.message.length > 10, r.body);
    }
    // Nothing was made by the refusals: the pools are still empty.
    const ok = await get(server, ladderPath("nim", { misere: true }));
    assert.equal(ok.json.total, 0);
  } finally {
    await server.stop();
  }
});

await run();
