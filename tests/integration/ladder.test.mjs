// ladder.test.mjs: accounts, rated play, the ladder and match records through the real
// server and its SQLite store, across a restart.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client, get, player, run, startServer, test } from "./lib.mjs";

/** Plays c's seat of a running match to its end, as fast as the server answers: build at
 * the end, paint the lowest symbol that differs from both neighbours. Resolves to the
 * last state. */
async function playOut(c, room, seat, k) {
  let s = await c.state(room, (x) => x.status === "playing");
  while (s.status !== "finished") {
    const m = s.match;
    if (m.to_move === seat) {
      if (m.step === "place") await c.ok({ type: "place", room, position: m.word.length });
      else {
        const w = m.word;
        const p = m.placed;
        let sym = 0;
        while (sym < k && (w[p - 1] === sym || w[p] === sym)) sym++;
        await c.ok({ type: "paint", room, symbol: sym % k });
      }
    }
    s = await c.state(room, (x) => x.version > s.version);
  }
  return s;
}

test("a claimed name, a rated match against a bot, the ladder and the stored record", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thue-ladder-"));
  const db = path.join(dir, "thue.db");
  const flags = ["--db", db, "--rate", "1000", "--burst", "1000"];
  let server = await startServer(flags);
  let token;
  let matchId;
  try {
    const ann = await player(server, "Ann");
    const acc = await ann.ok({ type: "claim_name", name: "Ann" });
    assert.equal(acc.type, "account");
    assert.equal(acc.name, "Ann");
    assert.match(acc.token, /^t_[0-9a-f]{64}$/);
    token = acc.token;
    assert.ok(!server.stderr().includes(token), "the token is never logged");
    const again = await ann.request({ type: "claim_name", name: "Annie" });
    assert.equal(again.code, "not_allowed", "one account per session");

    const { room } = await ann.ok({ type: "create_room", k: 3, rated: true, first_builder: "creator" });
    await ann.ok({ type: "seat_bot", room, bot: "nested:1", think_ms: 100 });
    await ann.ok({ type: "ready", room });
    const last = await playOut(ann, room, 0, 3);
    assert.ok(last.match.result);
    const end = await ann.next("match_end");
    assert.match(end.match_id, /^[A-Za-z0-9_-]+$/);
    matchId = end.match_id;
    assert.ok(Array.isArray(end.ratings), "a rated match reports rating changes");
    for (const r of end.ratings) {
      assert.equal(r.before, 1500);
      assert.equal(r.rd_before, 350);
      assert.ok(r.rd_after < 350);
    }
    const w = end.result.winner;
    if (w !== null) assert.ok(end.ratings[w].after > 1500 && end.ratings[1 - w].after < 1500);

    let r = await get(server, "/api/ladder?variant=square&k=3");
    assert.equal(r.status, 200);
    assert.equal(r.json.total, 2);
    const names = r.json.entries.map((e) => e.name).sort();
    assert.deepEqual(names, ["Ann", "nested:1"]);
    for (const e of r.json.entries) {
      assert.equal(e.games, 1);
      assert.equal(e.provisional, true);
    }
    r = await get(server, "/api/ladder?variant=square&k=3&kind=bot");
    assert.deepEqual(r.json.entries.map((e) => e.kind), ["bot"]);
    const lad = await ann.ok({ type: "get_ladder", variant: "square", k: 3, kind: "human" });
    assert.deepEqual(lad.entries.map((e) => e.name), ["Ann"]);

    r = await get(server, `/api/matches/${matchId}`);
    assert.equal(r.status, 200);
    assert.equal(r.json.match, matchId);
    // the same numbers in the record as in match_end: kept to nine decimals
    assert.deepEqual(r.json.ratings, end.ratings);
    for (const x of end.ratings) for (const v of [x.after, x.rd_after]) assert.equal(Math.round(v * 1e9) / 1e9, v);
    assert.deepEqual(r.json.players.map((p) => p.name), ["Ann", "nested:1"]);
    assert.deepEqual(r.json.points, end.points);
    const moves = r.json.moves.length;
    assert.ok(moves >= 2);
    assert.equal(r.json.moves.filter((m) => m.kind === "paint").length, end.points[0] + end.points[1] +
      r.json.rounds.filter((x) => x.end === "repetition").length);
    r = await get(server, `/api/matches/${matchId}/moves.csv`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get("content-type"), /text\/csv/);
    const lines = r.body.trim().split("\n");
    assert.equal(lines[0], "round,ply,seat,role,move,think_ms");
    assert.equal(lines.length, moves + 1);
    r = await get(server, "/api/matches?player=ann");
    assert.equal(r.json.matches.length, 1);
    assert.equal(r.json.matches[0].match, matchId);
  } finally {
    await server.stop();
  }

  // After a restart the token logs in, and the ladder and the record are still there.
  server = await startServer(flags);
  try {
    const c = await Client.connect(server.ws, "Ann again");
    const w = await c.ok({ type: "hello", protocol: 1, token });
    assert.deepEqual(w.player, { name: "Ann", kind: "account" });
    let r = await get(server, "/api/ladder?variant=square&k=3");
    assert.equal(r.json.total, 2);
    r = await get(server, `/api/matches/${matchId}`);
    assert.equal(r.status, 200);
    const guest = await player(server, "Guest1");
    const taken = await guest.request({ type: "claim_name", name: "ANN" });
    assert.equal(taken.code, "name_taken");
    const imp = await Client.connect(server.ws, "impostor");
    const no = await imp.request({ type: "hello", protocol: 1, name: "ann" });
    assert.equal(no.code, "name_taken", "a guest cannot take an account's name");
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true });
  }
});

test("rated play needs an account; a second login takes the account's session over", async () => {
  const server = await startServer();
  try {
    const guest = await player(server, "Guest2");
    let r = await guest.request({ type: "queue_join", variant: "square", k: 3, rated: true });
    assert.equal(r.code, "not_allowed");
    const bea = await player(server, "Bea");
    const { token } = await bea.ok({ type: "claim_name", name: "Bea" });
    const { room } = await bea.ok({ type: "create_room", k: 3, rated: true });
    r = await guest.request({ type: "join", room });
    assert.equal(r.code, "not_allowed", "a guest cannot sit in a rated room");
    const other = await Client.connect(server.ws, "Bea elsewhere");
    const w = await other.ok({ type: "hello", protocol: 1, token });
    assert.deepEqual(w.rooms, [room]);
    assert.equal((await bea.next("goodbye")).reason, "replaced");
  } finally {
    await server.stop();
  }
});

await run();
