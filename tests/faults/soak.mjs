// soak.mjs: a long mixed session against one thue-server, watching for errors and for
// memory growth.
//
//   node tests/faults/soak.mjs --server build-asan/server/thue-server [--minutes 10]
//        [--rss-bound-mib 24] [--json]
//
// The players, all paced like people (0.05-0.8 s per move):
//   - pairs of players in their own rooms (k 3..5, square or overlap, limits 20..60;
//     half of the pairs are accounts playing rated), asking for a rematch after each match;
//   - people against a bot the server seats (greedy, nested:1 or nested:2, 30-300 ms per
//     move); after a match they sometimes leave, disconnect and are replaced by a new
//     person in a new room;
//   - quick-match players (queue_join with bot_after_s 1), back in the queue after each
//     match;
//   - spectators hopping from room to room, and a little chat.
// Every couple of seconds one connection is cut without a close handshake (as a network
// drop would) and, 0.2-3 s later, resumed with its token: the seat must still be there.
//
// Passes when: no client received an error or lost its session, every resume worked, no
// player went 30 s without news of its room, the server's RSS at the end is at most the
// bound above its RSS at the end of the warm-up (the first fifth of the run, at least
// 30 s: an ASan server's quarantine fills first), and SIGTERM ends the server with status
// 0 (an ASan build also exits non-zero on any leak or memory error it found). Prints the
// figures.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import process from "node:process";
import { Client, get, startServer } from "../integration/lib.mjs";

function argValue(name, def) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : def;
}
const MINUTES = Number(argValue("--minutes", "10"));
const RSS_BOUND_MIB = Number(argValue("--rss-bound-mib", "24"));
const JSON_OUT = process.argv.includes("--json");
function usage(msg) {
  console.error(`soak.mjs: ${msg}`);
  process.exit(2);
}
if (!(MINUTES >= 0.1 && MINUTES <= 1440)) usage("--minutes takes 0.1..1440");
if (!(RSS_BOUND_MIB > 0 && RSS_BOUND_MIB <= 100000)) usage("--rss-bound-mib takes a positive number of MiB");

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rand = (n) => Math.floor(Math.random() * n);
const pick = (a) => a[rand(a.length)];
const between = (lo, hi) => lo + Math.random() * (hi - lo);

const stats = {
  moves: 0, matches: 0, botMatches: 0, quickMatches: 0, drops: 0, resumes: 0, replaced: 0,
  spectates: 0, chats: 0, errors: [],
};
let stopping = false;
let server;
let seq = 0;
const agents = new Set();

function fail(what) {
  if (!stopping) stats.errors.push(what);
}

/** One person: a connection (resumed after drops), at most one room at a time. */
class Agent {
  constructor(kind, account) {
    this.kind = kind; // "pair", "bot", "quick", "watch"
    this.name = `${kind[0]}${++seq}`;
    this.account = account;
    this.room = null;
    this.latest = null; // the room's latest state
    this.moved = 0; // the state version we moved in
    this.rematched = 0;
    this.dropping = false;
    this.seen = Date.now(); // the latest room_state of its room
    agents.add(this);
  }

  async connect() {
    this.c = await Client.connect(server.ws, this.name);
    const hello = this.resume ? { type: "hello", protocol: 1, resume: this.resume } : { type: "hello", protocol: 1, name: this.name };
    const w = await this.c.ok(hello);
    this.resume = w.resume;
    if (this.account && !this.claimed) {
      await this.c.ok({ type: "claim_name", name: this.name });
      this.claimed = true;
    }
    // Messages that came with the welcome (a resumed session's room states) are in the
    // recorder's inbox already; later ones come through the listener.
    const early = this.c.inbox.splice(0);
    this.c.ws.on("message", (d) => this.onMessage(JSON.parse(d.toString())));
    this.c.ws.on("close", () => this.onClose());
    for (const m of early) this.onMessage(m);
  }

  send(msg) {
    if (this.c && this.c.ws.readyState === 1) this.c.send(msg);
  }

  onMessage(m) {
    this.c.inbox.length = 0;
    if (m.type === "error") fail(`${this.name}: error ${m.code}: ${m.message}`);
    else if (m.type === "goodbye" && m.reason !== "shutdown") fail(`${this.name}: goodbye ${m.reason}`);
    else if (m.type === "match_found") this.enter(m.room);
    else if (m.type === "match_end" && m.room === this.room && this.kind !== "watch") this.onEnd(m);
    else if (m.type === "room_state" && m.room === this.room) this.onState(m);
  }

  enter(room) {
    this.room = room;
    this.latest = null;
    this.moved = 0;
    this.rematched = 0;
  }

  onState(s) {
    if (this.latest && s.version <= this.latest.version) return;
    this.latest = s;
    this.seen = Date.now();
    if (this.kind === "watch") return;
    const mt = s.match;
    // What comes after a match follows the state, not match_end: a match_end sent while
    // the connection was cut is not sent again.
    if (s.status === "finished" && mt && mt.number > this.rematched) this.afterMatch(mt.number);
    if (!mt || s.status !== "playing" || mt.to_move !== s.you || s.version <= this.moved) return;
    this.moved = s.version;
    const v = s.version;
    setTimeout(() => {
      const now = this.latest;
      if (stopping || !now || now.version !== v || this.room !== s.room) return;
      stats.moves++;
      if (mt.step === "place") this.send({ type: "place", room: s.room, position: rand(mt.word.length + 1) });
      else this.send({ type: "paint", room: s.room, symbol: rand(s.options.k) });
      if (Math.random() < 0.01) {
        stats.chats++;
        this.send({ type: "chat", room: s.room, text: pick(["gg", "nice one", "hmm…", "über"]) });
      }
    }, between(50, 800));
  }

  onEnd(m) {
    if (this.kind === "pair" && m.players[0].name === this.name) stats.matches++;
    else if (this.kind === "bot") stats.botMatches++;
    else if (this.kind === "quick") stats.quickMatches++;
  }

  /** A rematch a little later, if the match is still the finished one by then. */
  rematchLater(number) {
    setTimeout(() => {
      const s = this.latest;
      if (s && s.status === "finished" && s.match && s.match.number === number)
        this.send({ type: "rematch", room: this.room });
    }, between(200, 1500));
  }

  afterMatch(number) {
    this.rematched = number;
    if (this.kind === "pair") {
      this.rematchLater(number);
    } else if (this.kind === "bot") {
      if (Math.random() < 0.3) this.replace();
      else this.rematchLater(number);
    } else if (this.kind === "quick") {
      const room = this.room;
      setTimeout(() => {
        if (this.room !== room) return; // left already (the state came again after a resume)
        this.send({ type: "leave", room });
        this.room = null;
        this.queue();
      }, between(200, 1500));
    }
  }

  queue() {
    this.send({ type: "queue_join", variant: "square", k: pick([3, 4]), limit: 30, bot_after_s: 1 });
  }

  /** Leaves for good: a new person takes the place in a new room. */
  async replace() {
    stats.replaced++;
    agents.delete(this);
    this.gone = true;
    await this.c.request({ type: "leave", room: this.room }).catch(() => {});
    await this.c.close();
    if (!stopping) await startBotRoom().catch((e) => fail(`replacement: ${e.message}`));
  }

  /** Cuts the connection without a close handshake and resumes it a little later. */
  drop() {
    if (this.dropping || this.gone || !this.c) return;
    this.dropping = true;
    stats.drops++;
    this.c.ws.terminate();
  }

  async onClose() {
    if (stopping || this.gone) return;
    if (!this.dropping) {
      fail(`${this.name}: the server closed the connection (${this.c.closeInfo && this.c.closeInfo.code})`);
      return;
    }
    await sleep(between(200, 3000));
    try {
      this.latest = null;
      // The state comes again: a move or a rematch lost in the cut is made again (asking
      // for a rematch twice does no harm).
      this.moved = 0;
      this.rematched = 0;
      await this.connect();
      stats.resumes++;
      if (this.kind === "quick" && !this.room) this.queue(); // the queue forgets a lost connection
    } catch (e) {
      // A resume the soak's own stop cut short (the server was told to stop meanwhile)
      // stays a drop in flight: the final count of resumes leaves it out.
      if (stopping) return;
      fail(`${this.name}: resume failed: ${e.message}`);
    }
    this.dropping = false;
  }
}

async function startPair(rated) {
  const a = new Agent("pair", rated);
  const b = new Agent("pair", rated);
  await a.connect();
  await b.connect();
  const { room } = await a.c.ok({
    type: "create_room", k: pick([3, 4, 5]), variant: pick(["square", "overlap"]), limit: pick([20, 40, 60]),
    rated, first_builder: "random",
  });
  a.enter(room);
  b.enter(room);
  await b.c.ok({ type: "join", room });
  await a.c.ok({ type: "ready", room });
  await b.c.ok({ type: "ready", room });
}

async function startBotRoom() {
  const a = new Agent("bot", Math.random() < 0.5);
  await a.connect();
  const { room } = await a.c.ok({ type: "create_room", k: pick([3, 4]), limit: pick([20, 40]), rated: a.account, first_builder: "random" });
  a.enter(room);
  await a.c.ok({ type: "seat_bot", room, bot: pick(["greedy", "nested:1", "nested:2"]), think_ms: 30 + rand(270) });
  await a.c.ok({ type: "ready", room });
}

async function startQuick() {
  const a = new Agent("quick", false);
  await a.connect();
  a.queue();
}

async function startWatcher() {
  const a = new Agent("watch", false);
  await a.connect();
  (async () => {
    while (!stopping && !a.gone) {
      await sleep(between(2000, 6000));
      if (a.dropping) continue;
      const rooms = ((await get(server, "/api/rooms").catch(() => ({ json: null }))).json || {}).rooms || [];
      const playing = rooms.filter((r) => r.status === "playing" && !r.private);
      if (playing.length === 0) continue;
      if (a.room) a.send({ type: "leave", room: a.room });
      const r = pick(playing);
      a.enter(r.room);
      stats.spectates++;
      a.send({ type: "spectate", room: r.room });
    }
  })();
}

function rssMiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thue-soak-"));
  const env = { ASAN_OPTIONS: "detect_leaks=1:quarantine_size_mb=16:abort_on_error=0" };
  // Every player here comes from 127.0.0.1: the per-address room rate is lifted.
  server = await startServer(["--db", path.join(dir, "thue.db"), "--grace-s", "30", "--log-level", "warn",
    "--room-rate-per-ip", "100000", "--claims-per-ip", "100000", "--rated-pair-max", "100000",
    "--bot-seats-per-owner", "100000", "--bot-seats-per-ip", "100000"], env);
  const pid = server.proc.pid;
  const t0 = Date.now();
  const total = MINUTES * 60000;
  const warm = Math.max(total / 5, Math.min(30000, total / 2));
  const samples = [];
  try {
    for (let i = 0; i < 12; i++) await startPair(i % 2 === 0);
    for (let i = 0; i < 8; i++) await startBotRoom();
    for (let i = 0; i < 6; i++) await startQuick();
    for (let i = 0; i < 3; i++) await startWatcher();
    let nextDrop = Date.now() + 2000;
    let nextSample = Date.now();
    let lastReport = Date.now();
    while (Date.now() - t0 < total) {
      await sleep(250);
      if (server.proc.exitCode !== null || server.proc.signalCode !== null)
        throw new Error(`the server died (${server.proc.exitCode ?? server.proc.signalCode}):\n${server.stderr().slice(-3000)}`);
      if (Date.now() >= nextDrop) {
        const live = [...agents].filter((a) => !a.dropping && a.c && a.c.ws.readyState === 1);
        if (live.length) pick(live).drop();
        nextDrop = Date.now() + between(1000, 3000);
      }
      if (Date.now() >= nextSample) {
        samples.push({ t: (Date.now() - t0) / 1000, rss: rssMiB(pid) });
        nextSample = Date.now() + 5000;
      }
      if (!JSON_OUT && Date.now() - lastReport >= 60000) {
        lastReport = Date.now();
        const s = samples[samples.length - 1];
        console.log(`  ${Math.round(s.t)} s: ${stats.moves} moves, ${stats.matches + stats.botMatches + stats.quickMatches} matches, ` +
          `${stats.drops} drops, ${stats.errors.length} errors, RSS ${s.rss.toFixed(1)} MiB`);
      }
    }
    samples.push({ t: (Date.now() - t0) / 1000, rss: rssMiB(pid) });
  } finally {
    stopping = true;
  }
  // Everyone who plays must still be playing: no room_state for 30 s means stuck.
  const stuck = [...agents].filter((a) => a.kind !== "watch" && !a.dropping && !a.gone && Date.now() - a.seen > 30000)
    .map((a) => `${a.name} (${a.kind}, room ${a.room}, quiet ${Math.round((Date.now() - a.seen) / 1000)} s, last state: ` +
      (a.latest ? `v${a.latest.version} ${a.latest.status} match ${a.latest.match && a.latest.match.number} ` +
        `to_move ${a.latest.match && a.latest.match.to_move} you ${a.latest.you})` : "none)"));
  const metrics = (await get(server, "/metrics")).body;
  const ts = Date.now();
  const { code, signal } = await server.stop("SIGTERM", 60000);
  const stopMs = Date.now() - ts;
  for (const a of agents) if (a.c) a.c.ws.terminate();
  fs.rmSync(dir, { recursive: true, force: true });

  const warmRss = samples.filter((s) => s.t * 1000 <= warm).map((s) => s.rss);
  const atWarm = warmRss[warmRss.length - 1];
  const end = samples[samples.length - 1].rss;
  const max = Math.max(...samples.map((s) => s.rss));
  const asanReport = /ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:/.test(server.stderr());
  const figures = {
    minutes: MINUTES, moves: stats.moves, pair_matches: stats.matches, bot_matches: stats.botMatches,
    quick_matches: stats.quickMatches, drops: stats.drops, resumes: stats.resumes, replaced: stats.replaced,
    spectates: stats.spectates, errors: stats.errors.length, stuck: stuck.length,
    rss_mib: { after_warmup: +atWarm.toFixed(1), end: +end.toFixed(1), max: +max.toFixed(1), bound: RSS_BOUND_MIB },
    moves_total_metric: Number((/^thue_moves_total (\d+)/m.exec(metrics) || [])[1]),
    sigterm: { status: code, signal, ms: stopMs }, sanitizer_report: asanReport,
  };
  if (JSON_OUT) console.log(JSON.stringify(figures));
  else {
    console.log(`soak: ${MINUTES} min; ${stats.moves} moves; matches: ${stats.matches} between people, ` +
      `${stats.botMatches} against bots, ${stats.quickMatches} quick; ${stats.drops} drops, ${stats.resumes} resumed; ` +
      `${stats.replaced} people replaced; ${stats.spectates} spectates, ${stats.chats} chats`);
    console.log(`soak: RSS ${atWarm.toFixed(1)} MiB after the warm-up, ${end.toFixed(1)} at the end ` +
      `(max ${max.toFixed(1)}; bound: +${RSS_BOUND_MIB} MiB); SIGTERM: status ${code} after ${stopMs} ms; ` +
      `sanitizer reports: ${asanReport ? "YES" : "none"}; errors: ${stats.errors.length}; players stuck: ${stuck.length}`);
  }
  assert.equal(stats.errors.length, 0, `errors:\n${stats.errors.slice(0, 20).join("\n")}`);
  assert.equal(stuck.length, 0, `players stuck: ${stuck.join(", ")}`);
  assert.equal(stats.resumes, stats.drops - [...agents].filter((a) => a.dropping).length, "every drop resumed");
  assert.ok(end - atWarm <= RSS_BOUND_MIB, `RSS grew by ${(end - atWarm).toFixed(1)} MiB after the warm-up`);
  assert.ok(!asanReport, `sanitizer report:\n${server.stderr().slice(-4000)}`);
  assert.equal(code, 0, `exit status after SIGTERM (signal ${signal}):\n${server.stderr().slice(-3000)}`);
  assert.ok(stats.matches > 0 && stats.botMatches > 0 && stats.quickMatches > 0, "every kind of match was played");
}

main().then(() => process.exit(0), (e) => {
  console.log(`soak FAILED: ${e && e.stack ? e.stack : e}`);
  if (server) server.proc.kill("SIGKILL");
  process.exit(1);
});
