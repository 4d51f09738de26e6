// attack_identity.test.mjs: issue 15's attacks on identity and ratings, replayed small on
// loopback.
//
//   - look-alike names (other scripts, fullwidth, dotless i, a Hangul filler, case beyond
//     ASCII) beside the original: each is refused, with bad_name or name_taken;
//   - bot names (greedy in any case, uct, perfect, nested, levels, Bot-...) are reserved;
//   - rating farming: 40 resign-and-rematch loops between two accounts move no rating; a
//     pair that plays real matches is rated at most --rated-pair-max times;
//   - a rated room of two bots is not rated (nobody moves the bots' ratings);
//   - accounts claimed from one address are limited (--claims-per-ip);
//   - a private room's match is hidden from strangers on /api/matches, shown to its
//     players with their token;
//   - a uct bot is shown by its SPEC, as other bots are;
//   - /api/ladder flooded on a database of 20,000 rated accounts (written with python3's
//     sqlite3): the ladder's pages come from a cache, and a WebSocket ping's round trip
//     during the flood is printed (figures only: timings are not asserted).
//
// Clients act as several addresses by binding to other loopback addresses (127.0.0.x).
// Every loop is bounded in count; figures are printed. Flags the server does not know
// (the code before issue 15) are left out, so that the test reports what that code does.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client, SERVER, get, run, startServer, test } from "./lib.mjs";

const HELP = SERVER ? spawnSync(SERVER, ["--help"], { encoding: "utf8" }).stdout || "" : "";
/** The flag and its value, when the server knows the flag. */
function flag(name, value) {
  return HELP.includes(name) ? [name, String(value)] : [];
}
const COMMON = ["--rate", "1000", "--burst", "1000", ...flag("--claims-per-ip", 1000)];

async function guest(server, name, addr = "127.0.0.1") {
  const c = await Client.connect(server.ws, name || "guest", ["thue.v1"], { localAddress: addr });
  const hello = { type: "hello", protocol: 1 };
  if (name) hello.name = name;
  c.welcome = await c.ok(hello);
  return c;
}

async function account(server, name, addr) {
  const c = await guest(server, null, addr);
  c.account = await c.ok({ type: "claim_name", name });
  return c;
}

function count(map, key) {
  map[key] = (map[key] || 0) + 1;
}

test("look-alike names are refused beside the original", async () => {
  const server = await startServer(COMMON);
  try {
    await account(server, "Alice");
    await account(server, "Zoë-ü471");
    const lookalikes = [
      ["\u0410lice", "Cyrillic A", ["bad_name", "name_taken"]],
      ["\u0391lice", "Greek Alpha", ["bad_name", "name_taken"]],
      ["\uff21\uff4c\uff49\uff43\uff45", "fullwidth", ["name_taken"]],
      ["Al\u0131ce", "dotless i", ["name_taken"]],
      ["Alice\u3164", "Hangul filler after", ["bad_name"]],
      ["\u3164", "a Hangul filler alone", ["bad_name"]],
      ["ZOË-Ü471", "upper case beyond ASCII", ["name_taken"]],
      ["ALICE", "upper case", ["name_taken"]],
    ];
    let accepted = 0;
    const answers = [];
    for (const [name, what, codes] of lookalikes) {
      const g = await guest(server, null, "127.0.0.2");
      const r = await g.request({ type: "claim_name", name });
      answers.push(`${what}: ${r.type === "error" ? r.code : "ACCEPTED"}`);
      if (r.type !== "error") accepted++;
      await g.close();
      lookalikes.find((x) => x[0] === name).got = r;
    }
    console.log(`     ${accepted} of ${lookalikes.length} look-alikes accepted (${answers.join("; ")})`);
    for (const [, what, codes, r] of lookalikes.map((x) => [...x, x.got])) {
      assert.equal(r.type, "error", `${what} must be refused`);
      assert.ok(codes.includes(r.code), `${what}: ${r.code}, expected ${codes.join(" or ")}`);
    }
    // A guest's hello obeys the same rules.
    const c = await Client.connect(server.ws, "impostor");
    const r = await c.request({ type: "hello", protocol: 1, name: "\u0410lice" });
    assert.ok(r.type === "error" && ["bad_name", "name_taken"].includes(r.code), "hello with a look-alike");
    // Ordinary names in one script, and Latin with Han, are fine.
    const fine = ["Алиса", "Αλίκη", "李小龍", "Ann Lee", "Jürgen_2", "ゆき", "김민준", "Wang李"];
    for (const name of fine) {
      const g = await guest(server, null, "127.0.0.3");
      const a = await g.request({ type: "claim_name", name });
      assert.equal(a.type, "account", `${name}: ${a.code} ${a.message}`);
      await g.close();
    }
  } finally {
    await server.stop();
  }
});

test("bot names and SPECs are reserved in any case", async () => {
  const server = await startServer(COMMON);
  try {
    const names = ["GREEDY", "Greedy", "greedy", "uct", "UCT", "Perfect", "nested", "0", "3", "Bot-1a2b3c4d", "BOT"];
    const answers = {};
    const accepted = [];
    for (const name of names) {
      const g = await guest(server, null, "127.0.0.2");
      const r = await g.request({ type: "claim_name", name });
      count(answers, r.type === "error" ? r.code : "accepted");
      if (r.type !== "error") accepted.push(name);
      await g.close();
    }
    console.log(`     ${names.length} bot names claimed: ${JSON.stringify(answers)}${accepted.length ? ` (accepted: ${accepted.join(", ")})` : ""}`);
    assert.deepEqual(accepted, [], "no bot name can be claimed");
    assert.equal(answers.bad_name, names.length);
    // And a rated game against greedy still works.
    const ann = await account(server, "Ann", "127.0.0.3");
    const { room } = await ann.ok({ type: "create_room", k: 3, rated: true });
    const seat = await ann.request({ type: "seat_bot", room, bot: "greedy" });
    assert.equal(seat.type, "ok", `seat_bot greedy in a rated room: ${seat.code}`);
  } finally {
    await server.stop();
  }
});

/** A rated room of a and b, its matches resigned by b once each player has made `moves`
 * moves (build at the end, paint a symbol unlike its neighbours). Resolves to
 * {ratings: [a's rating after each rated match], reasons: {unrated reason: count}}. */
async function farm(a, b, loops, moves) {
  const k = 4;
  const { room } = await a.ok({ type: "create_room", k, rated: true, first_builder: "creator", limit: 1000 });
  await b.ok({ type: "join", room });
  await a.ok({ type: "ready", room });
  await b.ok({ type: "ready", room });
  const ratings = [];
  const reasons = {};
  for (let i = 0; i < loops; i++) {
    const number = i + 1;
    let s = await a.state(room, (x) => x.status === "playing" && x.match.number === number);
    const seatA = s.you;
    const made = [0, 0];
    while (s.status === "playing" && (made[0] < moves || made[1] < moves)) {
      const m = s.match;
      const c = m.to_move === seatA ? a : b;
      if (m.step === "place") await c.ok({ type: "place", room, position: m.word.length });
      else {
        const w = m.word;
        const p = m.placed;
        let sym = 0;
        while (sym < k && (w[p - 1] === sym || w[p] === sym)) sym++;
        await c.ok({ type: "paint", room, symbol: sym % k });
      }
      made[m.to_move]++;
      s = await a.state(room, (x) => x.version > s.version);
    }
    if (s.status === "playing") await b.ok({ type: "resign", room });
    const end = await a.next((m) => m.type === "match_end" && m.room === room && m.number === number);
    await b.next((m) => m.type === "match_end" && m.room === room && m.number === number);
    b.inbox = b.inbox.filter((m) => m.type !== "room_state");
    if (end.ratings) ratings.push(end.ratings[seatA].after);
    else count(reasons, end.unrated_reason || "null");
    await a.ok({ type: "rematch", room });
    await b.ok({ type: "rematch", room });
  }
  return { ratings, reasons, room };
}

test("rating farming: resign-and-rematch loops move no rating; a pair is rated a bounded number of times", async () => {
  const server = await startServer([...COMMON, ...flag("--rated-pair-max", 5), ...flag("--rated-min-moves", 2)]);
  try {
    const a = await account(server, "Farmer", "127.0.0.2");
    const b = await account(server, "Feeder", "127.0.0.3");
    const t0 = Date.now();
    const quick = await farm(a, b, 40, 0);
    const lad = await get(server, "/api/ladder?variant=square&k=4");
    const top = lad.json.entries[0];
    console.log(`     40 resign-at-once rematches in ${Date.now() - t0} ms: ${quick.ratings.length} rated, unrated ${JSON.stringify(quick.reasons)}; ` +
      `ladder top: ${top ? `${top.name} ${top.rating.toFixed(1)}` : "empty"}`);
    assert.equal(quick.ratings.length, 0, "a match resigned before any play is never rated");
    assert.ok(lad.json.total === 0 || lad.json.entries.every((e) => e.rating === 1500), "no rating moved");

    // Real play (2 moves each), then resign: at most --rated-pair-max (5) rated.
    const c = await account(server, "Farmer2", "127.0.0.4");
    const d = await account(server, "Feeder2", "127.0.0.5");
    const t1 = Date.now();
    const real = await farm(c, d, 12, 2);
    console.log(`     12 rematches with 2 moves each in ${Date.now() - t1} ms: ${real.ratings.length} rated (Farmer2 ${real.ratings.length ? real.ratings[real.ratings.length - 1].toFixed(1) : 1500}), unrated ${JSON.stringify(real.reasons)}`);
    assert.ok(real.ratings.length <= 5, `at most 5 rated matches for one pair, got ${real.ratings.length}`);
    assert.ok(real.ratings.length >= 1, "a match with real play is rated");
    assert.equal(real.reasons.pair_limit, 12 - real.ratings.length);
  } finally {
    await server.stop();
  }
});

test("a rated room of two bots is not rated", async () => {
  const server = await startServer(COMMON);
  try {
    const ann = await account(server, "Ann", "127.0.0.2");
    const { room } = await ann.ok({ type: "create_room", k: 3, limit: 20, rated: true, seat: false });
    await ann.ok({ type: "spectate", room });
    await ann.ok({ type: "seat_bot", room, seat: 0, bot: "greedy", think_ms: 10 });
    const r = await ann.request({ type: "seat_bot", room, seat: 1, bot: "nested:1", think_ms: 10 });
    if (r.type === "error") {
      console.log(`     the second bot is refused: ${r.code} (${r.message})`);
      return;
    }
    const end = await ann.next((m) => m.type === "match_end" && m.room === room, "match_end", 30000);
    const lad = await get(server, "/api/ladder?variant=square&k=3&kind=bot");
    console.log(`     greedy vs nested:1 in a rated room: ratings ${JSON.stringify(end.ratings && end.ratings.map((x) => Math.round(x.after)))}, unrated_reason ${end.unrated_reason}; bots on the ladder: ${lad.json.total}`);
    assert.equal(end.ratings, null, "two bots are never rated");
    assert.equal(end.unrated_reason, "bots");
    assert.equal(lad.json.total, 0);
  } finally {
    await server.stop();
  }
});

test("accounts claimed from one address are limited", async () => {
  const server = await startServer(["--rate", "1000", "--burst", "1000", ...flag("--claims-per-ip", 5)]);
  try {
    const answers = {};
    const t0 = Date.now();
    for (let i = 0; i < 30; i++) {
      const g = await guest(server, null, "127.0.0.2");
      const r = await g.request({ type: "claim_name", name: `Sock${i}` });
      count(answers, r.type === "error" ? r.code : "account");
      if (r.code === "rate_limited") assert.match(r.message, /claim 5 accounts an hour.*\d+ minutes/);
      await g.close();
    }
    console.log(`     30 claims from one address in ${Date.now() - t0} ms: ${JSON.stringify(answers)}`);
    assert.equal(answers.account, 5);
    assert.equal(answers.rate_limited, 25);
    // Another address is not affected.
    const other = await account(server, "Elsewhere", "127.0.0.3");
    assert.equal(other.account.type, "account");
  } finally {
    await server.stop();
  }
});

test("a private room's match is shown only to its players", async () => {
  const server = await startServer(COMMON);
  try {
    const a = await account(server, "Priv", "127.0.0.2");
    const b = await account(server, "Vate", "127.0.0.3");
    const created = await a.ok({ type: "create_room", k: 3, private: true });
    const room = created.room;
    await b.ok({ type: "join", room, invite: created.invite });
    await a.ok({ type: "ready", room });
    await b.ok({ type: "ready", room });
    await a.state(room, (x) => x.status === "playing");
    await b.ok({ type: "resign", room });
    const end = await a.next((m) => m.type === "match_end" && m.room === room);
    assert.ok(end.match_id);
    const auth = (c) => ({ headers: { authorization: `Bearer ${c.account.token}` } });
    const stranger = await get(server, "/api/matches?player=Priv");
    const one = await get(server, `/api/matches/${end.match_id}`);
    const csv = await get(server, `/api/matches/${end.match_id}/moves.csv`);
    const wrong = await get(server, `/api/matches/${end.match_id}`, { headers: { authorization: "Bearer t_" + "0".repeat(64) } });
    const mine = await get(server, "/api/matches?player=Priv", auth(a));
    const theirs = await get(server, `/api/matches/${end.match_id}`, auth(b));
    console.log(`     a stranger: list ${stranger.json.matches.length} match(es), GET ${one.status}, moves.csv ${csv.status}, wrong token ${wrong.status}; ` +
      `the players: list ${mine.json.matches.length}, GET ${theirs.status}`);
    assert.equal(stranger.json.matches.length, 0, "a stranger does not see the private match listed");
    assert.equal(one.status, 404);
    assert.equal(csv.status, 404);
    assert.equal(wrong.status, 404);
    assert.equal(mine.json.matches.length, 1, "a player sees it with the token");
    assert.equal(theirs.status, 200);
    assert.equal(theirs.json.match, end.match_id);
  } finally {
    await server.stop();
  }
});

test("a uct bot is shown by its SPEC", async () => {
  const server = await startServer(COMMON);
  try {
    const g = await guest(server, "Ann");
    const { room } = await g.ok({ type: "create_room", k: 3 });
    await g.ok({ type: "seat_bot", room, bot: "uct", think_ms: 50 });
    await g.ok({ type: "seat_bot", room: (await g.ok({ type: "create_room", k: 3 })).room, bot: "uct:ms=500", think_ms: 50 });
    const s = await g.state(room, (x) => x.players[1] !== null);
    console.log(`     seat_bot uct is shown as ${JSON.stringify(s.players[1].name)} (bot ${s.players[1].bot})`);
    assert.equal(s.players[1].name, "uct");
    const others = g.inbox.filter((m) => m.type === "room_state" && m.room !== room && m.players[1]);
    if (others.length) assert.equal(others[others.length - 1].players[1].name, "uct:ms=500");
  } finally {
    await server.stop();
  }
});

/** Writes n rated accounts (square, k 3) into the database file db, whose schema the
 * server has made. False when python3 is not there. */
function fillAccounts(db, n) {
  const script = `
import sqlite3, sys, os
db = sqlite3.connect(sys.argv[1]); n = int(sys.argv[2])
db.execute("BEGIN")
db.executemany("INSERT INTO accounts (id, name, name_key, kind, bot, token_hash, created_ms) VALUES (?,?,?,1,NULL,?,1)",
  ((i, "Player%06d" % i, "player%06d" % i, os.urandom(32)) for i in range(1, n + 1)))
db.executemany("INSERT INTO ratings (account, game, pool, rating, rd, vol, games, wins, draws, losses) VALUES (?, 'thue', 'square-k3', ?, 80, 0.06, 1, 1, 0, 0)",
  ((i, 1500.0 + (i * 7919) % 997) for i in range(1, n + 1)))
db.commit()
`;
  const r = spawnSync("python3", ["-c", script, db, String(n)], { encoding: "utf8" });
  if (r.error || r.status !== 0) {
    console.log(`     python3 could not write the accounts: ${r.error || r.stderr}`);
    return false;
  }
  return true;
}

function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN;
}

test("a flood of /api/ladder on 20,000 rated accounts: pages from the cache, the loop stays free", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thue-ladder-flood-"));
  const db = path.join(dir, "thue.db");
  const flags = ["--db", db, ...flag("--api-rate", 100000), ...flag("--api-burst", 100000), "--rate", "1000", "--burst", "1000"];
  try {
    let server = await startServer(flags);
    await server.stop();
    const N = 20000;
    if (!fillAccounts(db, N)) return;
    server = await startServer(flags);
    try {
      const first = await get(server, "/api/ladder?variant=square&k=3&count=5");
      assert.equal(first.json.total, N);
      const ann = await guest(server, "Ann");
      const pings = [];
      const latencies = [];
      const until = Date.now() + 2000;
      let requests = 0;
      const flooder = async (w) => {
        let offset = w * 997;
        while (Date.now() < until && requests < 100000) {
          const t = performance.now();
          const r = await fetch(`${server.url}/api/ladder?variant=square&k=3&offset=${offset % 99000}&count=50`);
          await r.arrayBuffer();
          latencies.push(performance.now() - t);
          requests++;
          offset += 50;
        }
      };
      const pinger = async () => {
        while (Date.now() < until && pings.length < 2000) {
          const t = performance.now();
          await ann.request({ type: "ping" });
          pings.push(performance.now() - t);
          await new Promise((r) => setTimeout(r, 10));
        }
      };
      await Promise.all([flooder(0), flooder(1), flooder(2), flooder(3), pinger()]);
      console.log(`     ${requests} ladder pages in 2 s by 4 clients (median ${percentile(latencies, 0.5).toFixed(2)} ms, ` +
        `p95 ${percentile(latencies, 0.95).toFixed(2)} ms); ${pings.length} WebSocket pings meanwhile: ` +
        `median ${percentile(pings, 0.5).toFixed(2)} ms, p95 ${percentile(pings, 0.95).toFixed(2)} ms`);
      assert.ok(pings.length > 0, "pings are answered during the flood");
      // The pages are the sorted ladder: ranks run on, ratings never go up.
      const a = await get(server, "/api/ladder?variant=square&k=3&offset=100&count=50");
      const b = await get(server, "/api/ladder?variant=square&k=3&offset=150&count=50");
      const all = [...a.json.entries, ...b.json.entries];
      all.forEach((e, i) => assert.equal(e.rank, 101 + i));
      for (let i = 1; i < all.length; i++) assert.ok(all[i].rating <= all[i - 1].rating);
    } finally {
      await server.stop();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

await run();
