// cluster_security.test.mjs (issue 31): two nodes on one PostgreSQL and one Redis
// (clusterlib.mjs, with their cluster secret), and the test as the attacker who reaches
// Redis (the tests' Redis has no password: the attacker can do whatever one with the
// password could). It publishes forged events on the nodes' real channels: a `rating`
// event putting an account at 2999 with 1000 games, an `account` event for an account
// PostgreSQL lacks with a login token of the attacker's, a `token` event giving the
// attacker's token to a real account, and a `seat` event meant to send a connected player
// `moved` into the attacker's room; in the form nodes used before issue 31 (unsigned) and
// in the sealed form with a made-up HMAC. Then it SCANs Redis for tokens. Expected: every
// ladder unchanged (and the next rated match stored from the real ratings), both forged
// logins refused on both nodes, nobody moved, the drops counted in /metrics, and no key
// or value in Redis holding a live resume or login token.
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import assert from "node:assert/strict";
import { Client, run, startMatch as playing, test } from "./lib.mjs";
import { follow, hello, startCluster, until } from "./clusterlib.mjs";

const redis = (cl, ...args) =>
  execFileSync("redis-cli", ["-u", cl.svc.redis, "--no-auth-warning", ...args], { encoding: "utf8" }).replace(/\n$/, "");
const psql = (cl, sql) => execFileSync("psql", [cl.svc.pg, "-Atc", sql], { encoding: "utf8" }).trim();
const sha256 = (text) => crypto.createHash("sha256").update(text).digest("hex");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function insertion(room, builder, painter, c) {
  await builder.ok({ type: "place", room, position: 1 });
  await painter.state(room, (s) => s.match && s.match.step === "paint");
  await painter.ok({ type: "paint", room, symbol: c });
  await builder.state(room, (s) => s.match && s.match.step !== "paint");
}

/** A rated match of k = 3 between a and b (a builds first), resigned by b. */
async function ratedMatch(a, b) {
  const room = await playing(a, b, { rated: true });
  await insertion(room, a, b, 1);
  await insertion(room, a, b, 2);
  await b.ok({ type: "resign", room });
  const end = await a.next((m) => m.type === "match_end" && m.room === room);
  assert.ok(end.ratings, "the match is rated");
  return end;
}

async function ladder(node) {
  return (await fetch(`${node.url}/api/ladder?variant=square&k=3`)).text();
}

async function drops(node) {
  const text = await (await fetch(`${node.url}/metrics`)).text();
  const out = {};
  for (const reason of ["unsigned", "bad_signature", "replayed"]) {
    const m = new RegExp(`^thue_cluster_dropped_total\\{reason="${reason}"\\} (\\d+)$`, "m").exec(text);
    assert.ok(m, `/metrics has thue_cluster_dropped_total{reason="${reason}"}`);
    out[reason] = Number(m[1]);
  }
  return out;
}

/** Every key of Redis with every string it holds (values, fields, members). A key that
 * expired between the scan and its reading (a rate limit's bucket lives burst / rate
 * seconds; one redis-cli per key takes a while on a busy machine) is "none" by then: its
 * name is still checked, it holds nothing. */
function everything(cl) {
  const keys = redis(cl, "--scan").split("\n").filter(Boolean);
  return keys.map((key) => {
    const type = redis(cl, "TYPE", key);
    if (type === "none") return { key, values: [] };
    const cmd = { string: ["GET", key], hash: ["HGETALL", key], set: ["SMEMBERS", key], zset: ["ZRANGE", key, "0", "-1"] }[type];
    assert.ok(cmd, `${key}: a ${type}, which the cluster does not write`);
    return { key, values: redis(cl, ...cmd).split("\n") };
  });
}

test("someone who reaches Redis forges rating, account, token and seat events and looks for tokens: nothing changes, nothing found", async () => {
  const cl = await startCluster(2);
  try {
    const { n1, n2 } = cl.nodes;
    // Two accounts and a rated match on n1: a ladder on both nodes.
    const gil = await hello(n1, "Gil");
    const gilAcc = await gil.ok({ type: "claim_name", name: "Gil" });
    const hal = await hello(n1, "Hal");
    const halAcc = await hal.ok({ type: "claim_name", name: "Hal" });
    await ratedMatch(gil, hal);
    const before = await until(async () => {
      const [a, b] = [await ladder(n1), await ladder(n2)];
      return a === b && JSON.parse(a).total === 2 && a;
    }, "the same ladder on both nodes");
    const gilId = Number(psql(cl, "SELECT id FROM accounts WHERE name = 'Gil'"));
    const [game, pool] = psql(cl, `SELECT game, pool FROM ratings WHERE account = ${gilId}`).split("|");
    assert.ok(game && pool, "Gil has a rating row");
    const storedBefore = psql(cl, "SELECT account, rating, games FROM ratings ORDER BY account");
    // Gil's login token works on n2 (a genuine token event reached it).
    await until(() => hello(n2, { token: gilAcc.token }).then((c) => c.close().then(() => true)).catch(() => false), "Gil's token on n2");

    // A quick match across the nodes: a session made on n2 for Ivy, its token sent to n1
    // in a `match` event, Ivy moved with it.
    const ivy = await hello(n1, "Ivy");
    const jon = await hello(n2, "Jon");
    await ivy.ok({ type: "queue_join", variant: "square", k: 4 });
    await jon.ok({ type: "queue_join", variant: "square", k: 4 });
    const mv = await ivy.next("moved");
    const ivy2 = await follow(cl, mv);
    assert.equal(ivy2.welcome.resumed, true);
    const live = [gil, hal, ivy, jon, ivy2].map((c) => c.welcome.resume);
    live.push(mv.resume, gilAcc.token, halAcc.token);
    for (const t of live) assert.ok(typeof t === "string" && t.length >= 16, "a token");

    // The forgeries, as issue 31 made them (unsigned, "FROM\nPAYLOAD"), and sealed-looking
    // with a made-up HMAC, on every channel the nodes listen to.
    const mallory = `t_mallory_${crypto.randomBytes(12).toString("hex")}`;
    const thief = `t_thief_${crypto.randomBytes(12).toString("hex")}`;
    const events = [
      // (a change number far ahead: a node that believed it would refuse the real ones after)
      { t: "rating", rows: [{ account: gilId, name: "Gil", game, pool, rating: 2999, rd: 30, vol: 0.06, games: 1000, wins: 1000, draws: 0, losses: 0, seq: 1e15 }] },
      { t: "account", id: gilId + 1000, name: "Mallory", kind: 1, bot: "", hash: sha256(mallory) },
      { t: "token", id: gilId, name: "Gil", hash: sha256(thief) },
      { t: "seat", name: "Hal", room: "r-evil", resume: crypto.randomBytes(16).toString("hex") },
    ];
    const channels = ["thue:ch:all", "thue:ch:node:n1", "thue:ch:node:n2"];
    let heard = 0;
    for (const ev of events)
      for (const ch of channels)
        for (const from of ["n1", "n2"]) {
          const payload = JSON.stringify(ev);
          heard += Number(redis(cl, "PUBLISH", ch, `${from}\n${payload}`));
          const sealed = `T1 ${from} ${crypto.randomBytes(16).toString("hex")} 1 ${Date.now()} ${crypto.randomBytes(32).toString("hex")}\n${payload}`;
          heard += Number(redis(cl, "PUBLISH", ch, sealed));
        }
    assert.ok(heard >= events.length * 2 * 4 * 2, `the nodes heard the forgeries (${heard} deliveries)`);
    await sleep(1500);

    // Every ladder unchanged, and the database's ratings.
    assert.equal(await ladder(n1), before, "n1's ladder");
    assert.equal(await ladder(n2), before, "n2's ladder");
    assert.equal(psql(cl, "SELECT account, rating, games FROM ratings ORDER BY account"), storedBefore);
    // The forged logins are refused on both nodes; no account Mallory anywhere.
    for (const node of [n1, n2])
      for (const token of [mallory, thief]) {
        const r = await Client.connect(node.ws, "attacker");
        const w = await r.request({ type: "hello", protocol: 1, token });
        assert.equal(w.type, "error", `${token.slice(0, 9)}... on ${node.name}`);
        assert.equal(w.code, "bad_token");
        await r.close();
      }
    assert.equal(psql(cl, "SELECT count(*) FROM accounts WHERE name = 'Mallory'"), "0");
    // The name is free on both nodes (no node believes in the account): a guest takes it
    // on n2; n1 refuses it only for that guest (a player of another node, not an account:
    // names are unique across the nodes); the guest claims it.
    const guest = await hello(n2, "Mallory");
    const onN1 = await Client.connect(n1.ws, "x");
    const r1 = await onN1.request({ type: "hello", protocol: 1, name: "Mallory" });
    assert.equal(r1.code, "name_taken", JSON.stringify(r1));
    assert.match(r1.message, /connected to another node/);
    await onN1.close();
    const claim = await guest.request({ type: "claim_name", name: "Mallory" });
    assert.notEqual(claim.type, "error", `the name Mallory is free: ${JSON.stringify(claim)}`);
    // Nobody was sent `moved` by the forged seat event.
    await sleep(200);
    for (const c of [gil, hal, ivy2, jon]) assert.equal(c.inbox.filter((m) => m.type === "moved").length, 0, `${c.name} was not moved`);
    // The drops are counted: unsigned and badly signed, on both nodes.
    for (const node of [n1, n2]) {
      const d = await drops(node);
      assert.ok(d.unsigned >= events.length * 2, `${node.name}: ${JSON.stringify(d)}`);
      assert.ok(d.bad_signature >= events.length * 2, `${node.name}: ${JSON.stringify(d)}`);
    }
    assert.match(n1.stdout() + n1.stderr(), /cluster: dropped \(unsigned\)/);
    assert.match(n1.stdout() + n1.stderr(), /cluster: dropped \(bad signature\)/);

    // SCAN: no key and no value of Redis holds a live token.
    const all = everything(cl);
    assert.ok(all.some((e) => e.key.startsWith("thue:sess:")), "session records are in Redis");
    for (const { key, values } of all)
      for (const t of live) {
        assert.ok(!key.includes(t), `key ${key} holds a live token`);
        for (const v of values) assert.ok(!v.includes(t), `${key} holds a live token in ${v.slice(0, 80)}`);
      }
    // What is there resumes nothing: a session key's name is no resume token.
    const sess = all.find((e) => e.key.startsWith("thue:sess:"));
    const guess = sess.key.slice("thue:sess:".length, "thue:sess:".length + 32);
    const r = await Client.connect(n1.ws, "attacker");
    const w = await r.request({ type: "hello", protocol: 1, resume: guess });
    assert.equal(w.type, "error");
    assert.equal(w.code, "bad_resume");
    await r.close();

    // The nodes still trust each other: the next rated match (on n2 this time) is rated
    // from the real ratings, and both ladders agree.
    const gil2 = await until(() => hello(n2, { token: gilAcc.token }).catch(() => false), "Gil on n2");
    const hal2 = await until(() => hello(n2, { token: halAcc.token }).catch(() => false), "Hal on n2");
    await ratedMatch(gil2, hal2);
    await until(async () => {
      const [a, b] = [await ladder(n1), await ladder(n2)];
      return a === b && a !== before;
    }, "both ladders after the second match");
    for (const row of psql(cl, "SELECT rating, games FROM ratings").split("\n")) {
      const [rating, games] = row.split("|").map(Number);
      assert.ok(rating < 2999 && games === 2, `a stored rating row: ${row}`);
    }
  } finally {
    await cl.stop();
  }
});

run();
