// cluster_ratings.test.mjs: no rating update is lost across nodes (issue 31). Three nodes
// on one PostgreSQL and one Redis (clusterlib.mjs):
//  - one account plays rated Nim matches against the `random` bot on all three nodes at
//    once (a session of it on each node, after a first rated match alone), and so does a
//    second account that has no rating yet: the two accounts' rating rows and the shared
//    bot's are written from three nodes at the same moments. Then scripts/check-store.mjs
//    must find every rating chain whole (each rated result rated from the previous one's
//    rating, the ratings row at the chain's end with every game counted) and every
//    announced match_end stored as announced, and every node's /api/ladder must equal
//    the database within 10 s;
//  - two accounts play each other rated on three nodes at once with --rated-pair-max 3:
//    at most 3 of their matches are rated in all, not 3 per node.
// Every loop is bounded (a number of matches, and a deadline).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { run, test, withTimeout } from "./lib.mjs";
import { hello, startCluster, until } from "./clusterlib.mjs";
import { checkLadders } from "../../scripts/check-store.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CHECKER = path.resolve(HERE, "..", "..", "scripts", "check-store.mjs");
const NODES = ["n1", "n2", "n3"];
const NIM = { game: "nim", game_options: { heaps: [2, 3] } }; // 2 to 5 moves a match
const FLAGS = ["--rate", "1000", "--burst", "1000", "--api-rate", "1000", "--api-burst", "1000"];

/** A session of the account on node n: hello with its token, once n knows the account. */
function login(cl, n, token) {
  return until(() => hello(cl.nodes[n], { token }).catch(() => false), `the account's token on ${n}`);
}

/**
 * Plays c's rated Nim room (the first match starts by itself: auto_start): random legal
 * moves on c's turns, a rematch after each match, until `count` matches are over or
 * until(end) says stop (at most `count`). Resolves to the match_end messages, in order.
 */
async function playMatches(c, room, count, until = () => false) {
  const ends = [];
  for (let number = 1; number <= count; number++) {
    let moved = -1;
    for (let guard = 0; guard < 100; guard++) {
      const m = await c.next(
        (x) =>
          x.room === room &&
          ((x.type === "match_end" && x.number === number) ||
            (x.type === "room_state" && x.status === "playing" && x.match && x.match.number === number && x.match.to_move === x.you && x.match.moves > moved)),
        `${c.name}: match ${number} of ${room}: my turn or its end`,
      );
      if (m.type === "match_end") {
        ends.push(m);
        break;
      }
      c.inbox = c.inbox.filter((x) => !(x.type === "room_state" && x.room === room && x.version <= m.version));
      moved = m.match.moves;
      const heaps = m.match.state.heaps.map((h, heap) => ({ heap, h })).filter((x) => x.h > 0);
      const { heap, h } = heaps[Math.floor(Math.random() * heaps.length)];
      await c.ok({ type: "move", room, move: { heap, take: 1 + Math.floor(Math.random() * h) } });
    }
    if (ends.length !== number) throw new Error(`${c.name}: match ${number} of ${room} did not end within 100 turns`);
    if (number === count || until(ends[number - 1])) break;
    await c.ok({ type: "rematch", room });
  }
  return ends;
}

/** c's rated Nim room against the random bot: count matches (or until end(match_end)),
 * then c leaves the room (its bot seat ends with it). */
async function againstBot(c, count, end) {
  const { room } = await c.ok({ type: "create_room", ...NIM, rated: true, auto_start: true, first_builder: "creator" });
  await c.ok({ type: "seat_bot", room, bot: "random", think_ms: 10 });
  const ends = await playMatches(c, room, count, end);
  await c.ok({ type: "leave", room });
  return ends;
}

/** Runs scripts/check-store.mjs with args; resolves to {code, out}. */
function checker(args) {
  return new Promise((resolve) => {
    execFile(process.execPath, [CHECKER, ...args], { timeout: 120000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, out: stdout + stderr });
    });
  });
}

/** Each node's ladder equals the database within ms (polled); the last check's result. */
async function laddersSettle(cl, ms = 10000) {
  const urls = Object.values(cl.nodes).map((s) => s.url);
  const end = Date.now() + ms;
  let r;
  for (;;) {
    r = await checkLadders(cl.svc.pg, urls);
    if (r.ok || Date.now() > end) return r;
    await new Promise((res) => setTimeout(res, 250));
  }
}

/**
 * After the last match: every node's /api/ladder must equal the database within 10 s
 * (polled), then the checker runs over the database, the announced results and every
 * node's ladder. Resolves to {ladders (the last poll), code, out (the checker's report)}.
 */
async function checkCluster(cl, ends, tag) {
  const t0 = Date.now();
  const ladders = await laddersSettle(cl, 10000);
  console.log(`     the nodes' ladders ${ladders.ok ? `equal the database after ${Date.now() - t0} ms` : "still differ from the database after 10 s"}`);
  const file = path.join(cl.svc.dir, `announced-${tag}-${process.pid}.jsonl`);
  fs.writeFileSync(file, ends.map((m) => JSON.stringify(m)).join("\n") + "\n");
  const urls = Object.values(cl.nodes).flatMap((s) => ["--ladder", s.url]);
  const r = await checker(["--db", cl.svc.pg, "--announced", file, ...urls, "--max", "30"]);
  console.log(`     check-store.mjs (exit ${r.code}):\n${r.out.trimEnd().replace(/^/gm, "       ")}`);
  return { ladders, ...r };
}

test("one account and the random bot on three nodes at once: no rating update is lost", async () => {
  const cl = await startCluster(3, FLAGS);
  try {
    const ria = await hello(cl.nodes.n1, "Ria");
    const { token: riaToken } = await ria.ok({ type: "claim_name", name: "Ria" });
    const sol = await hello(cl.nodes.n1, "Sol");
    const { token: solToken } = await sol.ok({ type: "claim_name", name: "Sol" });
    // First, alone on n1, until a match is rated (at most 5): the bot's account then
    // exists in the database and Ria has a rating to lose updates of. (A new bot's
    // account may not be committed when its first match ends: that match is stored
    // unrated, a matter apart from this test.)
    const ends = await againstBot(ria, 5, (m) => m.ratings);
    assert.ok(ends[ends.length - 1].ratings, `none of ${ends.length} matches against a new bot was rated: ${ends.map((m) => m.unrated_reason).join(", ")}`);
    const settled = await laddersSettle(cl);
    assert.ok(settled.ok, `every node knows the first result: ${settled.violations.join("; ")}`);

    // Ria and Sol on every node, 20 matches each against the random bot, all at once.
    const PER = 20;
    const sessions = [];
    for (const n of NODES) {
      sessions.push(n === "n1" ? ria : await login(cl, n, riaToken));
      sessions.push(n === "n1" ? sol : await login(cl, n, solToken));
    }
    const t0 = Date.now();
    const all = await withTimeout(Promise.all(sessions.map((c) => againstBot(c, PER))), 180000, "120 matches against the bot");
    console.log(`     ${all.length} x ${PER} matches against random on ${NODES.length} nodes at once in ${Date.now() - t0} ms`);
    const unrated = all.flat().filter((m) => !m.ratings);
    assert.equal(unrated.length, 0, `rated rooms' matches stored unrated: ${unrated.map((m) => `${m.match_id}: ${m.unrated_reason}`).join(", ")}`);
    ends.push(...all.flat());

    const r = await checkCluster(cl, ends, "bot");
    assert.ok(r.ladders.ok, `a node's /api/ladder still differs from the database 10 s after the last match:\n  ${r.ladders.violations.join("\n  ")}`);
    assert.equal(r.code, 0, "check-store.mjs found broken invariants (its report is above)");
    const rated = ends.filter((m) => m.ratings).length;
    assert.match(r.out, new RegExp(`^ok {3}\\(a\\) rating chains: 3 chains \\(account, pool\\), ${rated} rated matches`, "m"));
  } finally {
    await cl.stop();
  }
});

test("--rated-pair-max counts across the nodes: two accounts on three nodes get 3 rated matches in all", async () => {
  const MAX = 3;
  const PER = 3;
  const cl = await startCluster(3, [...FLAGS, "--rated-pair-max", String(MAX)]);
  try {
    const ann = await hello(cl.nodes.n1, "Ann");
    const { token: annToken } = await ann.ok({ type: "claim_name", name: "Ann" });
    const bob = await hello(cl.nodes.n1, "Bob");
    const { token: bobToken } = await bob.ok({ type: "claim_name", name: "Bob" });
    const pairs = [];
    for (const n of NODES) {
      const a = n === "n1" ? ann : await login(cl, n, annToken);
      const b = n === "n1" ? bob : await login(cl, n, bobToken);
      const { room } = await a.ok({ type: "create_room", ...NIM, rated: true, auto_start: true, first_builder: "creator" });
      pairs.push({ a, b, room });
    }
    // the three rooms start at once: Bob's joins
    await Promise.all(pairs.map((p) => p.b.ok({ type: "join", room: p.room })));
    const played = await withTimeout(
      Promise.all(pairs.map(async (p) => {
        const [ea, eb] = await Promise.all([playMatches(p.a, p.room, PER), playMatches(p.b, p.room, PER)]);
        return [...ea, ...eb];
      })),
      120000,
      "9 matches between Ann and Bob",
    );
    const ends = played.flat();
    const seen = new Map(ends.map((m) => [m.match_id, m])); // each match was heard by both players
    assert.equal(seen.size, NODES.length * PER);
    const rated = [...seen.values()].filter((m) => m.ratings);
    const reasons = [...seen.values()].filter((m) => !m.ratings).map((m) => m.unrated_reason);
    console.log(`     ${seen.size} matches between Ann and Bob on ${NODES.length} nodes: ${rated.length} rated, unrated: ${JSON.stringify(reasons)}`);
    const r = await checkCluster(cl, ends, "pair");
    assert.ok(r.ladders.ok, `a node's /api/ladder still differs from the database 10 s after the last match:\n  ${r.ladders.violations.join("\n  ")}`);
    assert.ok(rated.length <= MAX, `${rated.length} rated matches between two accounts within 24 h with --rated-pair-max ${MAX}`);
    assert.ok(rated.length >= 1, "no match was rated");
    assert.deepEqual(reasons, reasons.map(() => "pair_limit"));
    assert.equal(r.code, 0, "check-store.mjs found broken invariants (its report is above)");
  } finally {
    await cl.stop();
  }
});

await run();
