// faults.mjs: thue-server under faults, with a database file and players at work.
//
//   node tests/faults/faults.mjs --server build/server/thue-server [--only NAME-PART]
//
// Players: pairs of accounts playing rated matches of random moves as fast as the server
// answers (and asking for a rematch as soon as a match is over), plus people against the
// server's bots. Every match_end they receive is remembered: the server sends it only once
// the record is committed, so after any fault each of them must be in the database, and
// each player's rating must be the one of its newest stored match.
//
//   1. kill -9 in the middle of the load, restart on the same file: nothing announced is
//      lost, ratings agree with the stored records.
//   2. SIGTERM in the middle of the load: goodbye "shutdown" to everyone, exit 0 within
//      5 s, then the same check after a restart.
//   3. The disk fills up (the database on a small tmpfs, filled with a file): play goes on,
//      /healthz and /metrics say the store is failing, the records wait; space comes back
//      and every waiting record is saved and announced.
//      SIGTERM while the disk is still full: exit 0 within 5 s, the records that could
//      not be written are logged as lost, everything announced is there.
//   4. The file system turns read-only (strace injects EROFS into the server's pwrite64
//      calls, what a read-only remount gives; a real remount is refused while the file is
//      open): the same.
// 3 and 4 need root (mount, ptrace) and strace; the script says so and fails without them.
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import process from "node:process";
import { startServer, player, get, test, run, withTimeout } from "../integration/lib.mjs";
import { checkStore, report } from "../../scripts/check-store.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// Every player here comes from 127.0.0.1: the per-address room rate is lifted; checkStored
// reads every stored match through /api: past the default /api rate limit. Accounts are
// claimed and pairs rematch rated faster than an address or a pair may on the open
// internet: those limits (--claims-per-ip, --rated-pair-max) are lifted too.
const FLAGS = ["--rate", "2000", "--burst", "2000", "--max-rooms-per-player", "50", "--room-rate-per-ip", "100000", "--bot-seats-per-owner", "100000", "--bot-seats-per-ip", "100000",
  "--log-level", "info", "--api-rate", "100000", "--api-burst", "1000000",
  "--claims-per-ip", "100000", "--rated-pair-max", "100000"];
const rand = (n) => Math.floor(Math.random() * n);

/** Waits until pred() (sync or async) is true, polling every 100 ms, for at most ms. */
async function until(pred, ms, what) {
  const end = Date.now() + ms;
  for (;;) {
    if (await pred()) return;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(100);
  }
}

/**
 * The load: `pairs` rooms of two accounts, `bots` rooms of an account against nested:1.
 * Each client plays its own moves on every room_state and asks for a rematch when the
 * match is over. Keeps every match_end, counts moves and goodbyes.
 */
class Load {
  constructor(server, prefix) {
    this.server = server;
    this.prefix = prefix;
    this.clients = [];
    this.ends = new Map(); // match_id -> match_end
    this.moves = 0;
    this.finishedStates = 0; // matches seen over in a room_state (match_end may wait)
    this.goodbyes = 0;
    this.errors = [];
    this.stopped = false;
  }

  async account(name) {
    const c = await player(this.server, name);
    await c.ok({ type: "claim_name", name });
    this.clients.push(c);
    return c;
  }

  drive(c, room) {
    let moved = 0;
    let rematched = 0;
    c.ws.on("message", (data) => {
      c.inbox.length = 0; // the recorder's copy is not needed here
      const m = JSON.parse(data.toString());
      if (m.type === "goodbye") this.goodbyes++;
      else if (m.type === "error" && m.code !== "rate_limited" && m.code !== "not_your_turn" && m.code !== "not_running")
        this.errors.push(`${c.name}: ${m.code}: ${m.message}`);
      else if (m.type === "match_end" && m.match_id) this.ends.set(m.match_id, m);
      if (m.type !== "room_state" || m.room !== room || this.stopped) return;
      const mt = m.match;
      if (m.status === "finished" && mt && mt.number > rematched) {
        rematched = mt.number;
        if (m.you === 0) this.finishedStates++;
        c.send({ type: "rematch", room });
        return;
      }
      if (m.status !== "playing" || !mt || mt.to_move !== m.you || m.version <= moved) return;
      moved = m.version;
      this.moves++;
      if (mt.step === "place") c.send({ type: "place", room, position: rand(mt.word.length + 1) });
      else c.send({ type: "paint", room, symbol: rand(m.options.k) });
    });
  }

  async start(pairs, bots) {
    const jobs = [];
    for (let i = 0; i < pairs; i++) {
      jobs.push((async () => {
        const a = await this.account(`${this.prefix}a${i}`);
        const b = await this.account(`${this.prefix}b${i}`);
        const { room } = await a.ok({ type: "create_room", k: 3, limit: 12, rated: true, first_builder: "creator" });
        await b.ok({ type: "join", room });
        this.drive(a, room);
        this.drive(b, room);
        await a.ok({ type: "ready", room });
        await b.ok({ type: "ready", room });
      })());
    }
    for (let i = 0; i < bots; i++) {
      jobs.push((async () => {
        const a = await this.account(`${this.prefix}h${i}`);
        const { room } = await a.ok({ type: "create_room", k: 3, limit: 12, rated: true, first_builder: "creator" });
        await a.ok({ type: "seat_bot", room, bot: "nested:1", think_ms: 20 });
        this.drive(a, room);
        await a.ok({ type: "ready", room });
      })());
    }
    await Promise.all(jobs);
  }

  names() {
    return this.clients.map((c) => c.name);
  }

  close() {
    this.stopped = true;
    for (const c of this.clients) c.ws.terminate();
  }
}

/** All stored matches of name (every page). */
async function storedMatches(server, name) {
  const all = [];
  for (let page = 1; ; page++) {
    const r = await get(server, `/api/matches?player=${encodeURIComponent(name)}&page=${page}`);
    assert.equal(r.status, 200, r.body);
    all.push(...r.json.matches);
    if (page >= r.json.pages) return all;
  }
}

/**
 * Every announced match is stored as announced, and every player's ladder entry agrees
 * with its stored rated matches (their count, and the rating after the newest). Returns
 * {announced, stored}.
 */
async function checkStored(server, load) {
  for (const [id, end] of load.ends) {
    const r = await get(server, `/api/matches/${id}`);
    assert.equal(r.status, 200, `announced match ${id} is stored`);
    assert.deepEqual(r.json.points, end.points, `match ${id}: points`);
    assert.deepEqual(r.json.result, end.result, `match ${id}: result`);
    assert.deepEqual(r.json.players.map((p) => p.name), end.players.map((p) => p.name));
  }
  const ladder = (await get(server, "/api/ladder?variant=square&k=3&count=200")).json;
  const entry = new Map(ladder.entries.map((e) => [e.name, e]));
  let stored = 0;
  for (const name of load.names()) {
    const mine = await storedMatches(server, name);
    stored += mine.length;
    const e = entry.get(name);
    if (mine.length === 0) {
      assert.ok(!e || e.games === 0, `${name}: rated games without stored matches`);
      continue;
    }
    assert.ok(e, `${name} is on the ladder`);
    assert.equal(e.games, mine.length, `${name}: ladder games = stored matches`);
    const newest = (await get(server, `/api/matches/${mine[0].match}`)).json;
    const seat = newest.players.findIndex((p) => p.name === name);
    assert.ok(Math.abs(newest.ratings[seat].after - e.rating) < 0.05,
      `${name}: ladder rating ${e.rating} = after its newest match ${newest.ratings[seat].after}`);
  }
  await checkDatabase(server, load);
  return { announced: load.ends.size, stored };
}

/**
 * scripts/check-store.mjs over the server's database file: every rating chain unbroken,
 * each match stored once, every announced match stored as announced, the ladder equal to
 * the ratings table.
 */
async function checkDatabase(server, load) {
  const db = server.args[server.args.indexOf("--db") + 1];
  const file = path.join(os.tmpdir(), `thue-faults-announced-${process.pid}.jsonl`);
  fs.writeFileSync(file, [...load.ends.values()].map((m) => JSON.stringify(m)).join("\n") + "\n");
  try {
    const r = await checkStore({ db, announced: [file], ladders: [server.url] });
    assert.ok(r.ok, report(r).join("\n"));
    console.log(`     check-store: ${r.checks.map((c) => `(${c.key}) ${c.summary}`).join("; ")}`);
  } finally {
    fs.rmSync(file, { force: true });
  }
}

function tmpdir(tag) {
  return fs.mkdtempSync(path.join(os.tmpdir(), `thue-faults-${tag}-`));
}

test("kill -9 under load, then a restart: every announced match and rating is there", async () => {
  const dir = tmpdir("kill");
  const db = path.join(dir, "thue.db");
  let server = await startServer(["--db", db, ...FLAGS]);
  const load = new Load(server, "k");
  try {
    await load.start(40, 8);
    await until(() => load.ends.size >= 100, 30000, "100 finished matches");
    await sleep(rand(500));
    server.proc.kill("SIGKILL");
    await server.exited;
    load.close();
    server = await startServer(["--db", db, ...FLAGS]);
    const { announced, stored } = await checkStored(server, load);
    assert.equal(load.errors.length, 0, load.errors.slice(0, 5).join("\n"));
    console.log(`     ${load.clients.length} connections, ${load.moves} moves; ${announced} matches announced ` +
      `before the kill, all stored (${stored} player-matches stored in all); every rating agrees`);
  } finally {
    load.close();
    await server.stop("SIGKILL").catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("SIGTERM under load: goodbye to everyone, exit 0 within 5 s, nothing announced lost", async () => {
  const dir = tmpdir("term");
  const db = path.join(dir, "thue.db");
  let server = await startServer(["--db", db, ...FLAGS]);
  const load = new Load(server, "t");
  try {
    await load.start(60, 8);
    await until(() => load.ends.size >= 50, 30000, "50 finished matches");
    const t0 = Date.now();
    const { code, signal } = await server.stop("SIGTERM", 15000);
    const took = Date.now() - t0;
    assert.equal(code, 0, `exit status (signal ${signal})\n${server.stderr().slice(-2000)}`);
    assert.ok(took < 5000, `exited after ${took} ms`);
    await sleep(200);
    assert.equal(load.goodbyes, load.clients.length, "every client got goodbye");
    load.close();
    server = await startServer(["--db", db, ...FLAGS]);
    const { announced } = await checkStored(server, load);
    console.log(`     ${load.clients.length} connections, ${load.moves} moves; SIGTERM to exit ${took} ms; ` +
      `${announced} announced matches stored`);
  } finally {
    load.close();
    await server.stop("SIGKILL").catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

function needRoot(what) {
  if (process.getuid && process.getuid() !== 0)
    throw new Error(`${what} needs root (to mount a tmpfs or to attach strace); run the fault script as root`);
}

/** What a failed wait on the store prints: its counters, its threads' states (a thread left
 * stopped by a tracer cannot recover) and the server's last log lines. */
async function postmortem(server) {
  const lines = [];
  lines.push(`write failures ${await metric(server, "thue_store_write_failures_total").catch(() => "?")}, ` +
    `writes waiting ${await metric(server, "thue_store_writes_waiting").catch(() => "?")}`);
  try {
    const dir = `/proc/${server.proc.pid}/task`;
    const states = fs.readdirSync(dir).map((t) => {
      const stat = fs.readFileSync(`${dir}/${t}/stat`, "utf8");
      const comm = fs.readFileSync(`${dir}/${t}/comm`, "utf8").trim();
      return `${comm}:${stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0]}`;
    });
    lines.push(`threads (name:state) ${states.join(" ")}`);
    for (const t of fs.readdirSync(dir)) {
      const rd = (f) => { try { return fs.readFileSync(`${dir}/${t}/${f}`, "utf8").trim(); } catch (e) { return "?"; } };
      lines.push(`thread ${t}: wchan ${rd("wchan")}; syscall ${rd("syscall")}; stack ${rd("stack").replace(/\n/g, " | ")}`);
    }
    try {
      const { execFileSync } = await import("node:child_process");
      lines.push(execFileSync("gdb", ["-p", String(server.proc.pid), "-batch", "-ex", "thread apply all bt"],
        { encoding: "utf8", timeout: 20000, stdio: ["ignore", "pipe", "pipe"] }));
    } catch (e) { lines.push(`gdb: ${e.message}`); }
  } catch (e) {
    lines.push(`threads: ${e.message}`);
  }
  const log = server.stderr().split("\n");
  lines.push(`the server's last store lines:\n${log.filter((l) => /store/.test(l)).slice(-15).join("\n")}`);
  lines.push(`its last lines:\n${log.slice(-6).join("\n")}`);
  return lines.join("\n");
}

async function health(server) {
  return (await get(server, "/healthz")).json;
}

async function metric(server, name) {
  const m = new RegExp(`^${name} (\\S+)$`, "m").exec((await get(server, "/metrics")).body);
  return m ? Number(m[1]) : NaN;
}

/**
 * The common part of 3 and 4: with the load running, break() makes writes fail; play must
 * go on while the store says it is failing; mend() makes them work; every waiting record
 * is then saved and announced, and a restart finds them all.
 */
async function playThrough(server, load, brk, mend, restart) {
  await until(() => load.ends.size >= 5, 30000, "5 finished matches before the fault");
  await brk();
  await until(async () => (await health(server)).store === "failing", 30000, "/healthz to say the store is failing");
  assert.equal((await health(server)).status, "ok", "/healthz stays ok: play goes on");
  // Play goes on: moves are answered and matches finish, their records wait.
  const moves0 = load.moves;
  const over0 = load.finishedStates;
  const ends0 = load.ends.size;
  await until(() => load.moves > moves0 + 200 && load.finishedStates > over0 + 3, 30000, "play during the fault");
  const waiting = await metric(server, "thue_store_writes_waiting");
  assert.ok(waiting >= 1, `thue_store_writes_waiting ${waiting}`);
  assert.equal(await metric(server, "thue_store_failing"), 1);
  assert.ok(load.ends.size - ends0 <= 1, "no match_end while its record cannot be written");
  assert.match(server.stderr(), /cannot write \(the disk is full, read-only or failing\)/);
  // And it keeps trying (after 0.5 s, then 1 s, ...).
  await until(async () => (await metric(server, "thue_store_write_failures_total")) >= 3, 30000, "two retries");
  const duringMoves = load.moves - moves0;
  const duringOver = load.finishedStates - over0;
  await mend();
  await until(async () => (await health(server)).store === "ok", 30000, "the store to recover")
    .catch(async (e) => { throw new Error(`${e.message}\n${await postmortem(server)}`); });
  assert.match(server.stderr(), /writing works again/);
  // Every match seen over is announced, once its record is in.
  await until(() => load.ends.size >= load.finishedStates, 30000, "the waiting matches to be announced")
    .catch((e) => { throw new Error(`${e.message}: ${load.ends.size} of ${load.finishedStates} announced`); });
  assert.equal(await metric(server, "thue_store_writes_waiting"), 0);
  load.stopped = true;
  await sleep(300);
  const failures = await metric(server, "thue_store_write_failures_total");
  const { code } = await server.stop("SIGTERM");
  assert.equal(code, 0);
  load.close();
  server = await restart();
  try {
    const { announced } = await checkStored(server, load);
    assert.equal(load.errors.length, 0, load.errors.slice(0, 5).join("\n"));
    return { duringMoves, duringOver, failures, announced };
  } finally {
    await server.stop();
  }
}

test("the disk fills up: play goes on, records wait, and are saved when space returns", async () => {
  needRoot("the disk-full test");
  const dir = tmpdir("full");
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=24m", "tmpfs", dir]);
  const filler = path.join(dir, "filler");
  let server;
  try {
    const db = path.join(dir, "thue.db");
    const restart = () => startServer(["--db", db, ...FLAGS]);
    server = await restart();
    const load = new Load(server, "f");
    await load.start(8, 2);
    const r = await playThrough(server, load, async () => {
      // Fill the file system to the last byte.
      const fd = fs.openSync(filler, "w");
      const chunk = Buffer.alloc(1 << 16);
      try { for (;;) fs.writeSync(fd, chunk); } catch (e) { assert.equal(e.code, "ENOSPC"); }
      try { for (;;) fs.writeSync(fd, chunk, 0, 512); } catch (e) { assert.equal(e.code, "ENOSPC"); }
      fs.closeSync(fd);
    }, async () => fs.rmSync(filler), restart);
    console.log(`     while full: ${r.duringMoves} moves, ${r.duringOver} matches over; ${r.failures} failed ` +
      `write attempts; ${r.announced} announced matches stored`);
  } finally {
    if (server) await server.stop("SIGKILL").catch(() => {});
    execFileSync("umount", [dir]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("SIGTERM while the disk is still full: exit 0 within 5 s, the unsaved records logged as lost", async () => {
  needRoot("the disk-full shutdown test");
  const dir = tmpdir("fullterm");
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=24m", "tmpfs", dir]);
  let server;
  try {
    const db = path.join(dir, "thue.db");
    server = await startServer(["--db", db, ...FLAGS]);
    const load = new Load(server, "s");
    await load.start(8, 2);
    await until(() => load.ends.size >= 5, 30000, "5 finished matches");
    const fd = fs.openSync(path.join(dir, "filler"), "w");
    try { for (;;) fs.writeSync(fd, Buffer.alloc(1 << 16)); } catch (e) { assert.equal(e.code, "ENOSPC"); }
    try { for (;;) fs.writeSync(fd, Buffer.alloc(512)); } catch (e) { assert.equal(e.code, "ENOSPC"); }
    fs.closeSync(fd);
    await until(async () => (await metric(server, "thue_store_writes_waiting")) >= 2, 30000, "records waiting");
    const t0 = Date.now();
    const { code } = await server.stop("SIGTERM", 15000);
    const took = Date.now() - t0;
    load.close();
    assert.equal(code, 0, server.stderr().slice(-2000));
    assert.ok(took < 5000, `exited after ${took} ms`);
    assert.match(server.stderr(), /shutting down with the disk still failing: \d+ writes? (is|are) lost/);
    fs.rmSync(path.join(dir, "filler"));
    server = await startServer(["--db", db, ...FLAGS]);
    const { announced } = await checkStored(server, load);
    console.log(`     SIGTERM with records waiting: exit 0 after ${took} ms; ${announced} announced matches stored`);
  } finally {
    if (server) await server.stop("SIGKILL").catch(() => {});
    execFileSync("umount", [dir]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("the file system turns read-only (EROFS injected): play goes on, records are saved later", async () => {
  needRoot("the read-only test");
  const dir = tmpdir("ro");
  let server;
  let tracer;
  try {
    const db = path.join(dir, "thue.db");
    const restart = () => startServer(["--db", db, ...FLAGS]);
    server = await restart();
    const load = new Load(server, "r");
    await load.start(8, 2);
    const r = await playThrough(server, load, async () => {
      tracer = spawn("strace", ["-f", "-qq", "-o", "/dev/null", "-p", String(server.proc.pid),
        "-e", "trace=pwrite64", "-e", "inject=pwrite64:error=EROFS"], { stdio: ["ignore", "ignore", "pipe"] });
      tracer.on("error", (e) => { throw new Error(`cannot run strace: ${e.message} (apt-get install strace)`); });
    }, async () => {
      tracer.kill("SIGINT"); // strace detaches and the calls succeed again
      await once(tracer, "exit");
      tracer = null;
    }, restart);
    console.log(`     while read-only: ${r.duringMoves} moves, ${r.duringOver} matches over; ${r.failures} failed ` +
      `write attempts; ${r.announced} announced matches stored`);
  } finally {
    if (tracer) tracer.kill("SIGKILL");
    if (server) await server.stop("SIGKILL").catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

await run();
