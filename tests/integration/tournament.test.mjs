// tournament.test.mjs: tournaments through the real server: an 8-bot Swiss and a
// 5-player round robin (two people and three bots) run to completion, and a tournament
// killed with SIGKILL in the middle resumes after a restart; a tournament room's
// room_state names its tournament.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { autoplay, Client, get, player, run, startServer, test } from "./lib.mjs";

const FAST = ["--rate", "1000", "--burst", "1000", "--bot-think-ms", "20"];

/** An account named name; resolves to {client, token}. */
async function account(server, name) {
  const c = await player(server, name);
  const { token } = await c.ok({ type: "claim_name", name });
  return { client: c, token };
}

/** Waits until the tournament's status is `finished` (polling the HTTP API); returns it. */
async function finished(server, id, ms = 120000) {
  const t0 = Date.now();
  for (;;) {
    const r = await get(server, `/api/tournaments/${id}`);
    assert.equal(r.status, 200);
    if (r.json.status === "finished") return r.json;
    if (Date.now() - t0 > ms) throw new Error(`tournament ${id} not finished after ${ms} ms: round ${r.json.round}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}


test("a tournament room's room_state names its tournament; another room's has no such member", async () => {
  const server = await startServer(FAST);
  try {
    const { client: ann } = await account(server, "Ann");
    const { room: own } = await ann.ok({ type: "create_room", k: 3, limit: 5 });
    const plain = await ann.state(own);
    assert.equal("tournament" in plain, false, "an ordinary room has no tournament member");
    await ann.ok({ type: "leave", room: own });
    const { tournament } = await ann.ok({ type: "create_tournament", name: "Named", format: "round_robin", variant: "square", k: 3, limit: 5, max_players: 2 });
    await ann.ok({ type: "join_tournament", tournament });
    await ann.ok({ type: "join_tournament", tournament, bot: "greedy" });
    await ann.ok({ type: "start_tournament", tournament });
    const ev = await ann.next((m) => m.type === "tournament_event" && m.event === "round_started");
    const s = await ann.state(ev.rooms[0]);
    assert.equal(s.tournament, tournament);
    assert.notEqual(s.you, null, "Ann is seated in it");
    // A spectator's form has it too.
    const vic = await player(server, "Vic");
    await vic.ok({ type: "spectate", room: ev.rooms[0] });
    assert.equal((await vic.state(ev.rooms[0])).tournament, tournament);
  } finally {
    await server.stop();
  }
});

test("an 8-bot Swiss runs to completion with sound pairings", async () => {
  const server = await startServer(FAST);
  try {
    const { client: org } = await account(server, "Org");
    const { tournament } = await org.ok({ type: "create_tournament", name: "Bot Swiss", format: "swiss", variant: "square", k: 3, limit: 30, rounds: 4, max_players: 8 });
    for (const bot of ["greedy", "nested:1", "nested:2", "uct:iterations=200", "perfect:depth=4", "uct:iterations=100", "uct:iterations=50", "perfect:depth=2"])
      await org.ok({ type: "join_tournament", tournament, bot });
    const full = await org.request({ type: "join_tournament", tournament, bot: "nested:3" });
    assert.equal(full.code, "not_allowed");
    await org.ok({ type: "start_tournament", tournament });
    const again = await org.request({ type: "join_tournament", tournament, bot: "nested:3" });
    assert.equal(again.code, "tournament_closed");
    await org.next((m) => m.type === "tournament_event" && m.event === "round_started");
    const t = await finished(server, tournament);
    assert.equal(t.round, 4);
    assert.equal(t.round_list.length, 4);
    const met = new Set();
    for (const round of t.round_list) {
      assert.equal(round.pairings.length, 4);
      const seen = new Set();
      for (const p of round.pairings) {
        assert.ok(p.result, "every game has a result");
        for (const n of p.seats) {
          assert.ok(!seen.has(n), "nobody plays twice in a round");
          seen.add(n);
        }
        const key = [...p.seats].sort().join("|");
        assert.ok(!met.has(key), `no pair meets twice (${key})`);
        met.add(key);
      }
    }
    assert.equal(t.standings.length, 8);
    const points = t.standings.reduce((a, s) => a + s.points, 0);
    assert.equal(points, 16, "4 rounds of 4 games: 16 points in all");
    assert.ok(t.standings[0].points >= t.standings[7].points);
    // every game is stored as a match of the tournament (what a restart recovers results from)
    const mine = await get(server, "/api/matches?player=greedy");
    assert.equal(mine.json.matches.length, 4);
    for (const m of mine.json.matches) {
      const rec = await get(server, `/api/matches/${m.match}`);
      assert.equal(rec.json.tournament, tournament);
      assert.ok(rec.json.tournament_round >= 1 && rec.json.tournament_round <= 4);
    }
    const list = await get(server, "/api/tournaments");
    assert.equal(list.json.tournaments[0].status, "finished");
    await org.next((m) => m.type === "tournament_event" && m.event === "finished");
  } finally {
    await server.stop();
  }
});

test("a 5-player round robin with two people and three bots runs to completion", async () => {
  const server = await startServer(FAST);
  try {
    const { client: ann } = await account(server, "Ann");
    const { client: bob } = await account(server, "Bob");
    const { tournament } = await ann.ok({ type: "create_tournament", name: "RR five", format: "round_robin", variant: "square", k: 3, limit: 20, max_players: 5 });
    await ann.ok({ type: "join_tournament", tournament });
    await bob.ok({ type: "join_tournament", tournament });
    for (const bot of ["greedy", "nested:1", "nested:2"]) await bob.ok({ type: "join_tournament", tournament, bot });
    const notCreator = await bob.request({ type: "start_tournament", tournament });
    assert.equal(notCreator.code, "not_allowed");
    const stopA = autoplay(ann, 3);
    const stopB = autoplay(bob, 3);
    await ann.ok({ type: "start_tournament", tournament });
    const t = await finished(server, tournament);
    stopA();
    stopB();
    assert.equal(t.round_list.length, 5, "5 players: 5 rounds");
    const pairs = new Set();
    let byes = 0;
    for (const round of t.round_list)
      for (const p of round.pairings) {
        if (p.seats[1] === null) {
          byes++;
          assert.equal(p.result, "bye");
          continue;
        }
        pairs.add([...p.seats].sort().join("|"));
        assert.ok(["1-0", "0-1", "1/2-1/2"].includes(p.result));
      }
    assert.equal(pairs.size, 10, "every pair met exactly once");
    assert.equal(byes, 5, "one bye each");
    assert.equal(t.standings.reduce((a, s) => a + s.points, 0), 15, "10 games and 5 byes");
    const g = await ann.ok({ type: "get_tournament", tournament });
    assert.equal(g.status, "finished");
  } finally {
    await server.stop();
  }
});

test("an entrant who is not connected when a round starts forfeits that game", async () => {
  const server = await startServer([...FAST, "--grace-s", "0"]);
  try {
    const { client: org } = await account(server, "Org");
    const { client: cy } = await account(server, "Cy");
    const { tournament } = await org.ok({ type: "create_tournament", name: "Absent", format: "round_robin", variant: "square", k: 3, limit: 20, max_players: 4 });
    await cy.ok({ type: "join_tournament", tournament });
    for (const bot of ["greedy", "nested:1", "nested:2"]) await org.ok({ type: "join_tournament", tournament, bot });
    await cy.close(); // grace 0: Cy's session ends at once
    await org.ok({ type: "start_tournament", tournament });
    const t = await finished(server, tournament);
    let cyGames = 0;
    for (const round of t.round_list)
      for (const p of round.pairings) {
        const i = p.seats.indexOf("Cy");
        if (i < 0) continue;
        cyGames++;
        assert.equal(p.room, null, "no room for a game decided by absence");
        assert.equal(p.result, i === 0 ? "0-1" : "1-0", "Cy loses every game");
      }
    assert.equal(cyGames, 3);
    assert.equal(t.standings.find((x) => x.name === "Cy").points, 0);
  } finally {
    await server.stop();
  }
});

test("SIGKILL in the middle of a tournament, then a restart: it resumes and finishes", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thue-tour-"));
  const db = path.join(dir, "thue.db");
  // Slow bots (k = 5, a long limit): the first round is still being played when killed.
  const flags = ["--db", db, "--rate", "1000", "--burst", "1000", "--bot-think-ms", "300", "--grace-s", "5"];
  let server = await startServer(flags);
  let tournament;
  let before;
  try {
    const { client: org } = await account(server, "Org");
    ({ tournament } = await org.ok({ type: "create_tournament", name: "Crash", format: "round_robin", variant: "square", k: 5, limit: 40, max_players: 4 }));
    for (const bot of ["nested:1", "nested:2", "greedy", "nested:3"]) await org.ok({ type: "join_tournament", tournament, bot });
    await org.ok({ type: "start_tournament", tournament });
    // wait for one game of round 1 to finish (a recorded result), then kill
    const t0 = Date.now();
    for (;;) {
      const r = await get(server, `/api/tournaments/${tournament}`);
      const done = r.json.round_list.flatMap((x) => x.pairings).filter((p) => p.result !== null).length;
      if (done >= 1) {
        before = r.json;
        break;
      }
      if (Date.now() - t0 > 60000) throw new Error("no result within 60 s");
      await new Promise((res) => setTimeout(res, 20));
    }
  } finally {
    await server.stop("SIGKILL");
  }
  server = await startServer(flags);
  try {
    const r = await get(server, `/api/tournaments/${tournament}`);
    assert.equal(r.status, 200);
    assert.ok(["running", "finished"].includes(r.json.status));
    // every result known before the kill is intact
    for (const [i, round] of before.round_list.entries())
      for (const [b, p] of round.pairings.entries())
        if (p.result !== null) assert.equal(r.json.round_list[i].pairings[b].result, p.result);
    const t = await finished(server, tournament, 240000);
    assert.equal(t.round_list.length, 3);
    assert.equal(t.standings.reduce((a, s) => a + s.points, 0), 6);
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true });
  }
});

test("after a restart, a person's interrupted game waits for them and their token seats them", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thue-tour-"));
  const db = path.join(dir, "thue.db");
  const flags = ["--db", db, ...FAST, "--grace-s", "30"];
  let server = await startServer(flags);
  let tournament;
  let token;
  try {
    const acc = await account(server, "Ann");
    token = acc.token;
    const ann = acc.client;
    ({ tournament } = await ann.ok({ type: "create_tournament", name: "Wait for Ann", format: "round_robin", variant: "square", k: 3, limit: 10, max_players: 2 }));
    await ann.ok({ type: "join_tournament", tournament });
    await ann.ok({ type: "join_tournament", tournament, bot: "nested:1" });
    await ann.ok({ type: "start_tournament", tournament });
    // Ann's game starts; she does not move before the server is killed
    await ann.state((await ann.next((m) => m.type === "tournament_event" && m.event === "round_started")).rooms[0]);
  } finally {
    await server.stop("SIGKILL");
  }
  server = await startServer(flags);
  try {
    let r = await get(server, `/api/tournaments/${tournament}`);
    assert.equal(r.json.status, "running");
    const room = r.json.round_list[0].pairings[0].room;
    assert.ok(room, "the interrupted game has a new room");
    const ann = await Client.connect(server.ws, "Ann back");
    const stop = autoplay(ann, 3);
    const w = await ann.ok({ type: "hello", protocol: 1, token });
    assert.deepEqual(w.rooms, [room], "her token seats her in the replayed game");
    const t = await finished(server, tournament);
    stop();
    assert.ok(["1-0", "0-1", "1/2-1/2"].includes(t.round_list[0].pairings[0].result));
    const end = await ann.next("match_end");
    assert.equal(end.room, room);
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true });
  }
});

await run();
