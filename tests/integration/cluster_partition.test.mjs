// cluster_partition.test.mjs: partitions, not only kills (issue 31). Three nodes on one
// PostgreSQL and one Redis (clusterlib.mjs), each reaching them through proxies of its
// own (partition.mjs), so that one node can be cut off from Redis, or from PostgreSQL,
// while the others stay connected. A cut is a black hole (nothing forwarded, nothing
// refused: the node's own timeouts decide); a reset refuses instead. Players play rated
// Nim matches meanwhile: accounts of different nodes against each other (the one of
// another node follows `moved` to the room's node and logs in there), accounts against
// the `random` bot, on the cut node and on the others.
//
//  (a) n3 cut off from Redis for 30 s while its players play: its rooms play on; an
//      account claimed on n3 during the cut logs in on n1 (the nodes read the database's
//      changes each second); every node's ladder equals the database during the cut and
//      within 5 s of the heal; n3's rooms are found from the others again;
//  (b) n3 cut off from PostgreSQL for 15 s while its players finish matches: each
//      match_end comes only once its match is stored (the database is asked the moment
//      it arrives); n3's matches finished during the cut are announced after the heal,
//      none lost, and play goes on;
//  (c) no seat held twice: a player of n3 who reconnects through n1 during a cut is sent
//      back to n3 or told bad_resume, never given a second copy of her session, and finds
//      her seat again after the heal; a player waiting for a quick match on n3 when its
//      Redis link is cut, paired meanwhile by a player of n1, is seated in one running
//      room at most (every node's /api/rooms, sampled every 250 ms), and after the heal
//      plays it;
//  (c') the same quick match when n3's Redis connections are reset instead: fails today.
//      The "match" message to n3 is lost (pub/sub), and at the reconnection n3 puts the
//      ticket back into the pool before the kept pair is read: the player is paired again
//      and seated in two running rooms (docs/operations.md, "Partitions").
// After each, scripts/check-store.mjs (checkStore) over the database, every announced
// match_end and every node's ladder must pass. Every wait is bounded.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Client, run, test, withTimeout } from "./lib.mjs";
import { follow, hello, startCluster, until } from "./clusterlib.mjs";
import { tcpProxy } from "./partition.mjs";
import { checkLadders, checkStore, report } from "../../scripts/check-store.mjs";

const NIM = { game: "nim", game_options: { heaps: [2, 3] } }; // 2 to 5 moves a match
const FLAGS = ["--rate", "1000", "--burst", "1000", "--api-rate", "1000", "--api-burst", "1000",
  "--claims-per-ip", "1000", "--rated-pair-max", "100000", "--room-rate-per-ip", "100000", "--bot-seats-per-ip", "1000"];
const LONG = 45000; // a wait that may span a cut
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const say = (s) => console.log(`     ${s}`);
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;

// ---- the cluster behind its proxies ----------------------------------------------------------

/** A proxied URL: the same URL with 127.0.0.1:PORT for its host and port. */
function via(url, port) {
  const u = new URL(url);
  const auth = u.username ? `${u.username}${u.password ? `:${u.password}` : ""}@` : "";
  return `${u.protocol}//${auth}127.0.0.1:${port}${u.pathname}${u.search}`;
}

/**
 * Three nodes, each with a proxy of its own to Redis (cl.proxies.nI.redis) and one to
 * PostgreSQL (cl.proxies.nI.pg). cl.log(node) is that node's log lines with the time each
 * arrived here ({at, line}); cl.stop() stops the nodes and closes the proxies.
 */
async function partitionedCluster() {
  const proxies = {};
  const proxy = async (name, kind, url) => {
    const u = new URL(url);
    const p = await tcpProxy(u.hostname, Number(u.port), { name: `${name}-${kind}` });
    (proxies[name] ||= {})[kind] = p;
    return via(url, p.port);
  };
  const closeProxies = async () => {
    for (const ps of Object.values(proxies)) for (const p of Object.values(ps)) await p.close();
  };
  let cl;
  try {
    cl = await startCluster(3, FLAGS, {
      redisUrl: (name, svc) => proxy(name, "redis", svc.redis),
      pgUrl: (name, svc) => proxy(name, "pg", svc.pg),
    });
  } catch (e) {
    await closeProxies();
    throw e;
  }
  const logs = {};
  for (const [name, s] of Object.entries(cl.nodes)) {
    logs[name] = [];
    let part = "";
    const take = (d) => {
      const lines = (part + d).split("\n");
      part = lines.pop();
      for (const line of lines) if (line) logs[name].push({ at: Date.now(), line });
    };
    s.proc.stdout.on("data", take);
    s.proc.stderr.on("data", take);
  }
  const stopNodes = cl.stop;
  return Object.assign(cl, {
    proxies,
    log: (name) => logs[name],
    /** The first line of node's log matching re that arrived at or after `since`. */
    logged: (name, re, since = 0) => logs[name].find((l) => l.at >= since && re.test(l.line)),
    async stop() {
      try {
        await stopNodes();
      } finally {
        await closeProxies();
      }
    },
  });
}

/** Prints node's log lines from `since` to `until` that match re (at most max), with the
 * time since t0. */
function showLog(cl, name, since, until, re, t0, max = 14) {
  const lines = cl.log(name).filter((l) => l.at >= since && l.at <= until && re.test(l.line));
  for (const l of lines.slice(0, max)) say(`  ${name} +${secs(l.at - t0)}: ${l.line.replace(/^\S+\s+/, "")}`);
  if (lines.length > max) say(`  ${name}: ... ${lines.length - max} more`);
}

// ---- players -----------------------------------------------------------------------------------

/** c notes when each match of its rooms is shown finished: c.finishedAt.get("ROOM/N"). */
function track(c) {
  c.finishedAt = new Map();
  c.ws.on("message", (data, binary) => {
    if (binary) return;
    const m = JSON.parse(data.toString());
    const k = m.type === "room_state" && m.status === "finished" && m.match ? `${m.room}/${m.match.number}` : null;
    if (k && !c.finishedAt.has(k)) c.finishedAt.set(k, Date.now());
  });
  return c;
}

/** A new account on node: {name, token, c (its session there), home}. */
async function account(cl, node, name) {
  const c = track(await hello(cl.nodes[node], name));
  const { token } = await c.ok({ type: "claim_name", name });
  return { name, token, c, home: node };
}

/** A session of the account on node n (hello with its token, once n knows the account). */
function login(cl, n, token, ms) {
  return until(() => hello(cl.nodes[n], { token }).then(track).catch(() => false), `the account's token on ${n}`, ms);
}

/** who (an account) joins room from its session c; a `moved` (room) is followed: a session
 * of the account on the room's node, which joins. Resolves to the client seated. */
async function joinRoom(cl, who, c, room) {
  const r = await c.request({ type: "join", room });
  if (r.type === "ok") return c;
  assert.equal(r.type, "moved", `${who.name}'s join of ${room}: ${JSON.stringify(r)}`);
  assert.equal(r.reason, "room");
  const there = await login(cl, r.node, who.token);
  await there.ok({ type: "join", room });
  return there;
}

/** A rated Nim room on node made by a (a's session there), auto_start: b (an account) joins it
 * from its home node, following `moved`; or the random bot when b is null. */
async function makeRoom(cl, node, a, b) {
  const ca = a.home === node ? a.c : await login(cl, node, a.token);
  const { room } = await ca.ok({ type: "create_room", ...NIM, rated: true, auto_start: true, first_builder: "creator" });
  const seats = [ca];
  if (b) seats.push(await joinRoom(cl, b, b.c, room));
  else await ca.ok({ type: "seat_bot", room, bot: "random", think_ms: 10 });
  return { room, node, seats, names: [a.name, b ? b.name : "random"] };
}

/**
 * Plays a room's matches (random legal moves on its people's turns; a rematch after each)
 * until ctl.stop is true at a match's end, pausing there while ctl.gate is set. Each
 * match_end (every seat's copy) goes to ctl.ends as {m, room, node, at, lastMove, over:
 * when the seat was shown the match finished}, and ctl.onEnd (when set) is called with
 * it. ctl.thinkMs before each move and each rematch; per message, at most ctl.waitMs.
 */
async function playRoom(ctl, r) {
  const [a] = r.seats;
  for (let number = 1; ; number++) {
    let moved = -1;
    let lastMove = 0;
    for (let guard = 0; ; guard++) {
      if (guard > 50) throw new Error(`match ${number} of ${r.room} did not end within 50 turns`);
      const m = await a.next(
        (x) =>
          x.room === r.room &&
          ((x.type === "match_end" && x.number === number) ||
            (x.type === "room_state" && x.status === "playing" && x.match && x.match.number === number && x.match.moves > moved &&
              (r.seats.length === 2 || x.match.to_move === x.you))),
        `${a.name}: match ${number} of ${r.room}: a turn or its end`,
        ctl.waitMs,
      );
      if (m.type === "match_end") {
        const e = { m, room: r.room, node: r.node, at: Date.now(), lastMove, over: a.finishedAt.get(`${r.room}/${number}`) };
        ctl.ends.push(e);
        if (ctl.onEnd) ctl.onEnd(e);
        break;
      }
      a.inbox = a.inbox.filter((x) => !(x.type === "room_state" && x.room === r.room && x.version <= m.version));
      moved = m.match.moves;
      const mover = r.seats.length === 2 && m.match.to_move !== m.you ? r.seats[1] : a;
      const heaps = m.match.state.heaps.map((h, heap) => ({ heap, h })).filter((x) => x.h > 0);
      const { heap, h } = heaps[Math.floor(Math.random() * heaps.length)];
      await sleep(ctl.thinkMs); // people think: a few matches a second, not hundreds
      lastMove = Date.now();
      await mover.ok({ type: "move", room: r.room, move: { heap, take: 1 + Math.floor(Math.random() * h) } }, ctl.waitMs);
    }
    for (const b of r.seats.slice(1)) {
      const m = await b.next((x) => x.type === "match_end" && x.room === r.room && x.number === number, `${b.name}: the end of match ${number} of ${r.room}`, ctl.waitMs);
      b.inbox = b.inbox.filter((x) => !(x.room === r.room && x.type === "room_state"));
      const e = { m, room: r.room, node: r.node, at: Date.now(), lastMove, over: b.finishedAt.get(`${r.room}/${number}`) };
      ctl.ends.push(e);
      if (ctl.onEnd) ctl.onEnd(e);
    }
    r.played = number;
    if (ctl.gate) {
      ctl.idle++;
      await ctl.gate.promise;
      ctl.idle--;
    }
    if (ctl.stop) return;
    await sleep(ctl.thinkMs);
    for (const c of r.seats) await c.ok({ type: "rematch", room: r.room });
  }
}

/** The players of rooms, playing until finish(): the ctl of playRoom with pause(),
 * resume(), finish() and done. */
function play(rooms, waitMs = LONG) {
  const ctl = { ends: [], stop: false, gate: null, idle: 0, waitMs, thinkMs: 100, onEnd: null, errors: [] };
  const done = Promise.all(rooms.map((r) => playRoom(ctl, r).catch((e) => {
    ctl.errors.push(e);
    throw e;
  })));
  done.catch(() => {});
  return Object.assign(ctl, {
    done,
    /** Every room stops at its next match's end (resolves once all wait there). */
    async pause(ms = 20000) {
      let open;
      ctl.gate = { promise: new Promise((r) => (open = r)), open };
      await until(async () => ctl.errors.length > 0 || ctl.idle === rooms.length, "every room to finish its match", ms).catch((e) => {
        for (const r of rooms)
          say(`${r.room} on ${r.node} (${r.names.join(" v ")}): ${r.played || 0} played; inbox: ${r.seats.map((c) => JSON.stringify(c.inbox.slice(-3))).join(" | ")}`);
        throw e;
      });
      if (ctl.errors.length) throw ctl.errors[0];
    },
    resume() {
      const g = ctl.gate;
      ctl.gate = null;
      if (g) g.open();
    },
    /** Each room stops at its next match's end; resolves when all have. */
    async finish(ms = LONG) {
      ctl.stop = true;
      ctl.resume();
      await withTimeout(done, ms, "every room to finish its last match");
    },
  });
}

/** The room's matches that ended in [from, to) (each once, by its first copy). */
function endedBetween(ctl, room, from, to) {
  const seen = new Set();
  return ctl.ends.filter((e) => e.room === room && e.at >= from && e.at < to && !seen.has(e.m.number) && seen.add(e.m.number));
}

// ---- checks ------------------------------------------------------------------------------------

/** Polls every node's ladder against the database until equal (every 200 ms, at most ms):
 * {ok, ms (until equal, or the whole wait), violations}. */
async function laddersEqual(cl, ms) {
  const urls = Object.values(cl.nodes).map((s) => s.url);
  const t0 = Date.now();
  for (;;) {
    const r = await checkLadders(cl.svc.pg, urls);
    if (r.ok || Date.now() - t0 > ms) return { ok: r.ok, ms: Date.now() - t0, violations: r.violations };
    await sleep(200);
  }
}

/** scripts/check-store.mjs over the database, the announced match_ends and every node's
 * ladder: its report is printed, and it must pass. */
async function checker(cl, ends, tag) {
  const file = path.join(cl.svc.dir, `announced-partition-${tag}-${process.pid}.jsonl`);
  fs.writeFileSync(file, ends.map((e) => JSON.stringify(e.m)).join("\n") + "\n");
  const r = await checkStore({ db: cl.svc.pg, announced: [file], ladders: Object.values(cl.nodes).map((s) => s.url) });
  say(`check-store.mjs:\n${report(r, 30).map((l) => `       ${l}`).join("\n")}`);
  assert.ok(r.ok, "check-store.mjs found broken invariants (its report is above)");
  return r;
}

/** Whether match id is stored, asked of PostgreSQL directly (not through a proxy). */
function stored(cl, id) {
  assert.match(id, /^[a-z0-9]+$/);
  return new Promise((resolve) => {
    execFile("psql", [cl.svc.pg, "-w", "-Atc", `SELECT count(*) FROM matches WHERE id = '${id}'`], { timeout: 20000 }, (err, out) =>
      resolve(err ? `error: ${err.message}` : Number(out.trim())),
    );
  });
}

/** Each node's own running (status playing) rooms of a game that seat `name`: the node's
 * /api/rooms lists its own rooms first, then what the others told it; a room is counted by
 * the node that holds it (its /api/rooms/ID answers). Resolves to [{room, node, players}]. */
async function seatsOf(cl, name, game = "nim") {
  const found = new Map();
  await Promise.all(
    Object.entries(cl.nodes).map(async ([n, s]) => {
      const list = await (await fetch(`${s.url}/api/rooms?game=${game}&status=playing`)).json();
      for (const r of list.rooms) {
        if (!r.players.some((p) => p && p.name === name) || found.has(r.room)) continue;
        const own = await fetch(`${s.url}/api/rooms/${r.room}`);
        if (own.status === 200) {
          const j = await own.json();
          if (j.status === "playing") found.set(r.room, { room: r.room, node: n, players: j.players.map((p) => p && p.name) });
        }
      }
    }),
  );
  return [...found.values()];
}

// ---- (a) ------------------------------------------------------------------------------------------

test("(a) n3 cut off from Redis for 30 s while its players play: its rooms play on, accounts and ladders follow through the database, all equal within 5 s of the heal", async () => {
  const cl = await partitionedCluster();
  let ctl;
  try {
    const ann = await account(cl, "n1", "Ann");
    const fay = await account(cl, "n1", "Fay");
    const gus = await account(cl, "n2", "Gus");
    const hal = await account(cl, "n2", "Hal");
    const bob = await account(cl, "n3", "Bob");
    const cy = await account(cl, "n3", "Cy");
    const rooms = [
      await makeRoom(cl, "n3", bob, ann), // Ann (n1) follows moved to n3
      await makeRoom(cl, "n3", cy, null),
      await makeRoom(cl, "n1", fay, gus), // Gus (n2) follows moved to n1
      await makeRoom(cl, "n2", hal, null),
      await makeRoom(cl, "n1", ann, null), // Ann on two nodes at once
    ];
    ctl = play(rooms);
    // every room has finished a match (the bot's account exists) before the cut
    await until(async () => rooms.every((r) => r.played >= 1), "a first match in every room", 20000);

    const cut = Date.now();
    cl.proxies.n3.redis.cut();
    say(`n3's Redis link cut (a black hole); playing in ${rooms.length} rooms, 2 of them on n3`);
    // n3 finds out by itself: its commands get no answer
    const down = await until(async () => cl.logged("n3", /Redis is down/, cut), "n3 to see Redis go", 15000);
    say(`n3 saw Redis go after ${secs(down.at - cut)}`);
    // an account claimed on n3 meanwhile logs in on n1 (the database's changes, not Redis)
    const neu = await account(cl, "n3", "Neu");
    const claimed = Date.now();
    const onN1 = await login(cl, "n1", neu.token, 5000);
    assert.equal(onN1.welcome.player.kind, "account");
    say(`Neu, claimed on n3 during the cut, logs in on n1 after ${secs(Date.now() - claimed)}`);
    await onN1.close();
    // and the other way: an account claimed on n1 logs in on the cut node
    const ola = await account(cl, "n1", "Ola");
    const claimed1 = Date.now();
    const onN3 = await login(cl, "n3", ola.token, 5000);
    say(`Ola, claimed on n1 during the cut, logs in on n3 after ${secs(Date.now() - claimed1)}`);
    await onN3.close();

    // the ladders during the cut: every room stops at its match's end, then every node's
    // ladder must equal the database within 5 s (n3 reads the others' ratings from it)
    await sleep(Math.max(0, cut + 14000 - Date.now()));
    await ctl.pause();
    const mid = await laddersEqual(cl, 5000);
    say(`during the cut, with play paused: every node's ladder ${mid.ok ? `equals the database after ${secs(mid.ms)}` : `differs from the database after ${secs(mid.ms)}`}`);
    assert.ok(mid.ok, `a ladder differs during the cut:\n  ${mid.violations.join("\n  ")}`);
    ctl.resume();

    await sleep(Math.max(0, cut + 30000 - Date.now()));
    ctl.stop = true; // each room stops at its match's end: the ladders settle after the heal
    const heal = Date.now();
    cl.proxies.n3.redis.heal();
    say(`healed after ${secs(heal - cut)}; n3's Redis proxy: ${JSON.stringify(cl.proxies.n3.redis.stats())}`);
    for (const r of rooms.slice(0, 2)) {
      const during = endedBetween(ctl, r.room, down.at, heal);
      say(`n3's room ${r.room} (${r.names.join(" v ")}): ${during.length} matches ended between n3 seeing Redis go and the heal`);
      assert.ok(during.length >= 3, `n3's room ${r.room} played ${during.length} matches during the cut`);
    }
    await ctl.finish();

    // after the heal: the ladders, Neu on n2, n3's rooms found from n1 again
    const after = await laddersEqual(cl, Math.max(0, heal + 5000 - Date.now()));
    say(`after the heal, every node's ladder ${after.ok ? "equals" : "still differs from"} the database ${secs(Date.now() - heal)} after the heal`);
    assert.ok(after.ok, `a ladder differs 5 s after the heal:\n  ${after.violations.join("\n  ")}`);
    const onN2 = await login(cl, "n2", neu.token, Math.max(500, heal + 5000 - Date.now()));
    await onN2.close();
    const probe = await hello(cl.nodes.n1, "Probe");
    await until(async () => (await probe.request({ type: "spectate", room: rooms[0].room })).type === "moved", "n1 to find n3's room", Math.max(500, heal + 5000 - Date.now()));
    const up = cl.logged("n3", /Redis is up/, heal);
    say(`n3 back in the cluster ${up ? secs(up.at - heal) : "(not logged)"} after the heal; Neu logs in on n2 and n1 finds n3's room ${secs(Date.now() - heal)} after it`);
    showLog(cl, "n3", cut, heal + 3000, /cluster:|redis:/, cut);

    const ended = new Set(ctl.ends.map((e) => e.m.match_id)).size;
    const unrated = ctl.ends.filter((e) => !e.m.ratings).length;
    say(`${ended} matches in all, ${unrated} match_end copies unrated`);
    await checker(cl, ctl.ends, "a");
  } finally {
    if (ctl) ctl.stop = true;
    await cl.stop();
  }
});

// ---- (b) ------------------------------------------------------------------------------------------

test("(b) n3 cut off from PostgreSQL for 15 s while its players finish matches: match_end only once stored, nothing finished lost, play goes on", async () => {
  const cl = await partitionedCluster();
  let ctl;
  try {
    const ann = await account(cl, "n1", "Ann");
    const dee = await account(cl, "n1", "Dee");
    const bob = await account(cl, "n3", "Bob");
    const cy = await account(cl, "n3", "Cy");
    const rooms = [
      await makeRoom(cl, "n3", bob, ann), // Ann (n1) follows moved to n3
      await makeRoom(cl, "n3", cy, null),
      await makeRoom(cl, "n1", dee, null), // n1's: untouched by the cut
    ];
    ctl = play(rooms);
    // each match_end: is its match in the database at the moment it arrives?
    const asked = [];
    ctl.onEnd = (e) => {
      if (!e.m.match_id) {
        e.storedWhenAnnounced = "no match_id";
        return;
      }
      asked.push(stored(cl, e.m.match_id).then((n) => (e.storedWhenAnnounced = n)));
    };
    await until(async () => rooms.every((r) => r.played >= 1), "a first match in every room", 20000);

    const cut = Date.now();
    cl.proxies.n3.pg.cut();
    say("n3's PostgreSQL link cut (a black hole); playing in 3 rooms, 2 of them on n3");
    // what n3's players and /healthz see meanwhile
    await sleep(3000);
    const health = await (await fetch(`${cl.nodes.n3.url}/healthz`)).json();
    const overFirst = rooms.slice(0, 2).map((r) => r.seats[0].inbox.some((x) => x.type === "room_state" && x.room === r.room && x.status === "finished"));
    say(`3 s into the cut: n3's /healthz says store ${JSON.stringify(health.store)}; n3's rooms show their match finished, match_end not come: ${JSON.stringify(overFirst)}`);
    const claimer = await hello(cl.nodes.n3, "Late");
    const claimAt = Date.now();
    const claim = claimer.request({ type: "claim_name", name: "Late" }, LONG).then((m) => ({ m, at: Date.now() }));
    // 10 s into the cut, the link dies: n3's connection is reset, new ones are refused
    await sleep(Math.max(0, cut + 10000 - Date.now()));
    const reset = Date.now();
    cl.proxies.n3.pg.reset();
    await sleep(2000);
    const health2 = await (await fetch(`${cl.nodes.n3.url}/healthz`)).json();
    say(`2 s after the reset: n3's /healthz says store ${JSON.stringify(health2.store)}`);
    await sleep(Math.max(0, cut + 15000 - Date.now()));
    const heal = Date.now();
    cl.proxies.n3.pg.heal();
    say(`the link reset after ${secs(reset - cut)} (connections refused), healed after ${secs(heal - cut)}`);
    // play goes on: each of n3's rooms finishes more matches after the heal
    const before = rooms.map((r) => r.played);
    await until(async () => rooms.every((r, i) => r.played >= before[i] + 3), "three more matches in every room after the heal", 20000);
    const resumed = Date.now() - heal;
    await ctl.finish();
    await Promise.all(asked);
    const c = await withTimeout(claim, LONG, "the claim's answer");
    say(`a claim_name sent to n3 ${secs(claimAt - cut)} into the cut was answered ${c.m.type}${c.m.code ? ` (${c.m.code})` : ""} ${secs(c.at - heal)} after the heal`);

    for (const r of rooms) {
      const during = endedBetween(ctl, r.room, cut, heal);
      // the matches its room showed finished during the cut, and when they were announced
      const waited = ctl.ends.filter((e) => e.room === r.room && e.over >= cut && e.over < heal);
      const delays = waited.map((e) => e.at - e.over);
      say(`${r.node}'s room ${r.room} (${r.names.join(" v ")}): ${during.length} match_end during the cut; ${waited.length / r.seats.length} matches finished in it, each match_end ${delays.length ? `${secs(Math.min(...delays))} to ${secs(Math.max(...delays))}` : "-"} after its room showed it finished`);
      if (r.node === "n3") {
        // (a commit on its way when the link was cut may still arrive in the first second)
        const early = ctl.ends.filter((e) => e.room === r.room && e.at >= cut + 1000 && e.at < heal);
        assert.deepEqual(early.map((e) => `${e.m.match_id} announced ${secs(e.at - cut)} into the cut`), [], `n3's room ${r.room} announced a match while it could not store it`);
        assert.ok(waited.some((e) => e.at >= heal), `none of n3's matches in ${r.room} finished during the cut and was announced after the heal`);
      } else {
        assert.ok(during.length >= 3, `n1's room ${r.room} finished only ${during.length} matches during n3's cut`);
      }
    }
    say(`play resumed: every room finished 3 more matches within ${secs(resumed)} of the heal`);
    const notStored = ctl.ends.filter((e) => e.storedWhenAnnounced !== 1);
    assert.deepEqual(notStored.map((e) => `${e.m.match_id}: ${e.storedWhenAnnounced}`), [], "match_end announced before its match was stored");
    say(`${ctl.ends.length} match_end copies, each one's match in the database when it arrived`);
    const settled = await laddersEqual(cl, 10000);
    say(`every node's ladder equals the database after ${secs(settled.ms)}`);
    await checker(cl, ctl.ends, "b");
  } finally {
    if (ctl) ctl.stop = true;
    await cl.stop();
  }
});

// ---- (c) ------------------------------------------------------------------------------------------

/** Samples seatsOf(name) for each name every 250 ms until stop(): w.max[name] is the most
 * running rooms seating name at one sample, w.worst[name] that sample's rooms. */
function watchSeats(cl, names) {
  const w = { max: {}, worst: {}, samples: 0, stopped: false };
  const loop = (async () => {
    while (!w.stopped) {
      for (const n of names) {
        const seats = await seatsOf(cl, n).catch(() => null);
        if (seats && seats.length > (w.max[n] ?? 0)) {
          w.max[n] = seats.length;
          w.worst[n] = { at: Date.now(), seats };
        }
      }
      w.samples++;
      await sleep(250);
    }
  })();
  w.stop = async () => {
    w.stopped = true;
    await loop;
  };
  return w;
}

/** Plays match `number` of room (two people's seats, the first seat's client given first)
 * to its end; its match_ends go to ends. */
async function playOut(room, node, seats, ends) {
  const ctl = { ends, stop: true, gate: null, idle: 0, waitMs: LONG, thinkMs: 0, onEnd: null };
  await playRoom(ctl, { room, node, seats, names: seats.map((c) => c.name) });
}

/** Drops the room's states older than s from c's inbox. */
function dropOlder(c, room, s) {
  c.inbox = c.inbox.filter((x) => !(x.type === "room_state" && x.room === room && x.version < s.version));
}

/**
 * Quick match across a fault of n3's Redis link (fault: "cut" or "reset"): Uma (n3) waits,
 * the link goes, Yul (n1) joins within the second (n3's record still lives: Redis pairs
 * them, the room is made on n1, Uma's seat there away), the link is healed 8 s later and
 * Wes (n2) joins the same queue a second after. Uma must be seated in one running room at
 * most at every moment, and be sent to her match (moved) after the heal.
 */
async function quickMatchAcross(cl, fault, ends) {
  const Q = { type: "queue_join", ...NIM, rated: true };
  const uma = await account(cl, "n3", "Uma");
  const yul = await account(cl, "n1", "Yul");
  const wes = await account(cl, "n2", "Wes");
  const watch = watchSeats(cl, ["Uma"]);
  try {
    await uma.c.ok(Q); // ok: her ticket is in Redis's pool
    const t0 = Date.now();
    cl.proxies.n3.redis[fault]();
    await sleep(300);
    await yul.c.ok(Q);
    const found = await yul.c.next("match_found", "Yul's match", 5000);
    const rq = found.room;
    const sq = await yul.c.state(rq, (s) => s.players.some((p) => p && p.name === "Uma"));
    const umaSeat = sq.players.find((p) => p.name === "Uma");
    say(`${fault}: Yul (n1) paired with Uma (n3) ${secs(Date.now() - t0)} after n3's Redis link went: room ${rq}, Uma's seat there ${umaSeat.connected ? "connected" : "away"}`);
    await sleep(Math.max(0, t0 + 8000 - Date.now()));
    const heal = Date.now();
    cl.proxies.n3.redis.heal();
    // Uma: sent to her match? Wes joins the same queue a second after the heal
    const sent = uma.c.next((m) => m.type === "moved" || m.type === "match_found", "Uma's match", 10000).then((m) => ({ m, at: Date.now() }), () => null);
    await sleep(1000);
    await wes.c.ok(Q);
    const got = await sent;
    const wesFound = await wes.c.next((m) => m.type === "match_found" || m.type === "moved", "Wes's match", 2000).catch(() => null);
    await sleep(1000); // (one more sample of the seats)
    await watch.stop();
    say(`${fault}: after the heal Uma got ${got ? `${got.m.type}${got.m.room ? ` to ${got.m.room}` : ""}${got.m.node ? ` on ${got.m.node}` : ""} after ${secs(got.at - heal)}` : "nothing in 10 s"}; Wes (n2, joined 1 s after the heal) ${wesFound ? `got ${wesFound.type} to ${wesFound.room}${wesFound.node ? ` on ${wesFound.node}` : ""}` : "waits"}`);
    const worst = watch.worst.Uma;
    say(`${fault}: at most ${watch.max.Uma ?? 0} running rooms seated Uma at once (${watch.samples} samples of every node's /api/rooms)${worst && worst.seats.length > 1 ? `: ${worst.seats.map((x) => `${x.room} on ${x.node} (${x.players.join(" v ")})`).join(", ")}, ${secs(worst.at - heal)} after the heal` : ""}`);
    for (const n of ["n1", "n2", "n3"]) showLog(cl, n, t0, Date.now(), /quick match|cluster: (Redis|node)/, t0);
    if (!wesFound) await wes.c.ok({ type: "queue_leave" });
    assert.ok((watch.max.Uma ?? 0) <= 1, `Uma was seated in ${watch.max.Uma} running rooms at once: ${JSON.stringify(worst)}`);
    assert.ok(got && got.m.type === "moved" && got.m.room === rq, `Uma was not sent to her match ${rq} within 10 s of the heal: ${JSON.stringify(got && got.m)}`);
    assert.ok(!wesFound, "Wes was paired with a player who had her match");
    // she follows it and they play it out
    const u1 = track(await follow(cl, got.m));
    assert.equal(u1.welcome.resumed, true);
    assert.deepEqual(u1.welcome.rooms, [rq]);
    const st = await u1.state(rq);
    u1.inbox.unshift(st); // (playOut starts from it)
    dropOlder(yul.c, rq, st);
    await playOut(rq, "n1", [u1, yul.c], ends);
    say(`${fault}: Uma and Yul played their match out (${secs(Date.now() - heal)} after the heal)`);
  } finally {
    if (!watch.stopped) await watch.stop();
  }
}

test("(c) no seat held twice: a player of n3 reconnecting through n1 during a Redis cut, and a quick match made across the cut", async () => {
  const cl = await partitionedCluster();
  const ends = [];
  const watch = watchSeats(cl, ["Pia"]);
  try {
    const pia = await account(cl, "n3", "Pia");
    const quin = await account(cl, "n3", "Quin");
    const { room } = await pia.c.ok({ type: "create_room", game: "nim", game_options: { heaps: [3, 4, 5] }, rated: true, auto_start: true, first_builder: "creator" });
    await quin.c.ok({ type: "join", room });
    await pia.c.state(room, (s) => s.status === "playing" && s.match.to_move === s.you);
    await pia.c.ok({ type: "move", room, move: { heap: 2, take: 1 } });
    await until(async () => (await seatsOf(cl, "Pia")).length === 1, "Pia's room in the lists");

    const cut = Date.now();
    cl.proxies.n3.redis.cut();
    await pia.c.close(); // her connection is lost; she comes back through n1 (the balancer's /ws)
    const resume = pia.c.welcome.resume;
    const answers = [];
    const ask = async () => {
      const c = await Client.connect(cl.nodes.n1.ws, "Pia@n1");
      const r = await c.request({ type: "hello", protocol: 1, resume });
      answers.push({ at: Date.now() - cut, what: `${r.type}${r.code ? ` ${r.code}` : ""}${r.node ? ` ${r.node}` : ""}` });
      return { c, r };
    };
    const first = await ask();
    await first.c.close();
    // while n3's record lives in Redis (3 heartbeats), n1 sends her back to n3; then it
    // cannot tell a node cut off from a dead one
    assert.notEqual(first.r.type, "welcome", "n1 resumed a session of n3's");
    const bad = await until(async () => {
      const { c, r } = await ask();
      await c.close();
      return (r.type === "welcome" || r.code === "bad_resume") && r;
    }, "n1 to answer bad_resume", 10000);
    const badAt = Date.now() - cut;
    const runs = [];
    for (const a of answers) {
      if (runs.length && runs[runs.length - 1].what === a.what) runs[runs.length - 1].to = a.at;
      else runs.push({ ...a, from: a.at, to: a.at });
    }
    say(`Pia's resume through n1 during the cut: ${runs.map((x) => `${x.what} (+${secs(x.from)}${x.to > x.from ? ` to +${secs(x.to)}` : ""})`).join(", ")}`);
    assert.ok(answers.every((a) => !/welcome/.test(a.what)), "n1 resumed a session of n3's");
    assert.equal(bad.code, "bad_resume");
    // she logs in to her account on n1: a session there, without her seat
    const pn1 = await hello(cl.nodes.n1, { token: pia.token });
    assert.ok(!pn1.welcome.rooms.includes(room));
    const j = await pn1.request({ type: "join", room });
    say(`${secs(badAt)} into the cut n1 says bad_resume; she logs in with her account on n1 (rooms ${JSON.stringify(pn1.welcome.rooms)}) and asks for her room: ${j.type}${j.code ? ` ${j.code}` : ""}${j.node ? ` ${j.node}` : ""}`);
    assert.notEqual(j.type, "ok", "n1 seated Pia in n3's room");
    // n3 itself still has her seat: a connection straight to it (the balancer's /n/n3/ws)
    // takes her session back, and she plays a move; then that connection is lost too
    const direct = await hello(cl.nodes.n3, { resume });
    assert.equal(direct.welcome.resumed, true);
    assert.deepEqual(direct.welcome.rooms, [room]);
    const ds = await direct.state(room, (x) => x.status === "playing");
    const seat = ds.players.findIndex((p) => p.name === "Pia");
    await (ds.match.to_move === seat ? direct : quin.c).ok({ type: "move", room, move: { heap: 1, take: 1 } });
    await direct.close();
    const quinSaw = quin.c.inbox.filter((x) => x.type === "room_state" && x.room === room).map((x) => x.players.find((p) => p.name === "Pia").connected);
    await sleep(Math.max(0, cut + 10000 - Date.now()));
    const heal = Date.now();
    cl.proxies.n3.redis.heal();
    // after the heal n1 finds her room on n3 again: she follows and takes her seat back
    const mv = await until(async () => {
      const r = await pn1.request({ type: "join", room });
      return r.type === "moved" && r;
    }, "n1 to send Pia to her room", 10000);
    assert.equal(mv.node, "n3");
    const p3 = track(await login(cl, "n3", pia.token));
    say(`healed after ${secs(heal - cut)}: n1 sends her to n3 (moved) ${secs(Date.now() - heal)} after; her account's session there has her seat: rooms ${JSON.stringify(p3.welcome.rooms)}; Quin saw her seat connected: ${JSON.stringify(quinSaw)}`);
    assert.deepEqual(p3.welcome.rooms, [room]);
    const st = await p3.state(room);
    p3.inbox.unshift(st); // (playOut starts from it)
    dropOlder(quin.c, room, st);
    await playOut(room, "n3", [p3, quin.c], ends);
    await watch.stop();
    say(`they played the match out; at most ${watch.max.Pia} running room seated Pia at once (${watch.samples} samples)`);
    assert.equal(watch.max.Pia, 1);

    await quickMatchAcross(cl, "cut", ends);
    await until(async () => (await laddersEqual(cl, 0)).ok, "the ladders", 10000);
    await checker(cl, ends, "c");
  } finally {
    if (!watch.stopped) await watch.stop();
    await cl.stop();
  }
});

test("(c') no seat held twice: a quick match made while the waiting player's node has lost its Redis connections", async () => {
  const cl = await partitionedCluster();
  const ends = [];
  try {
    await quickMatchAcross(cl, "reset", ends);
    await until(async () => (await laddersEqual(cl, 0)).ok, "the ladders", 10000);
    await checker(cl, ends, "c2");
  } finally {
    await cl.stop();
  }
});

await run();
