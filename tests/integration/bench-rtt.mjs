#!/usr/bin/env node
// bench-rtt.mjs: a human client's move round trip while bots search on every core.
//
//   node tests/integration/bench-rtt.mjs --server build/server/thue-server [--moves N]
//                                        [--warm S] [--json]
//
// Two human clients play a k = 5 room as fast as they can (the builder always appends,
// the painter paints the lowest symbol that makes no square, checked here in JavaScript).
// A round trip is the time from sending `place` or `paint` to receiving its `ok`. It is
// measured twice in one run: first with the server otherwise idle (the baseline), then
// while two rooms of nested:2 against nested:2 keep the pool's two threads searching.
// /metrics is sampled during the second phase to show that the bots were searching.
// This is a benchmark: it asserts nothing about times; it prints them.
import { spawnSync } from "node:child_process";
import process from "node:process";
import { SERVER, get, player, startServer } from "./lib.mjs";

function arg(name, def) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : def;
}
const MOVES = Number(arg("--moves", "2000"));
const WARM_S = Number(arg("--warm", "10"));
const JSON_OUT = process.argv.includes("--json");
const log = (...a) => process.stderr.write(a.join(" ") + "\n");

/** Does the word w (an array of symbols) contain a square? Naive, fine for these words. */
function hasSquare(w) {
  const n = w.length;
  for (let p = 1; 2 * p <= n; p++)
    for (let s = 0; s + 2 * p <= n; s++) {
      let eq = true;
      for (let t = 0; t < p && eq; t++) eq = w[s + t] === w[s + p + t];
      if (eq) return true;
    }
  return false;
}

function percentile(sorted, q) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function summary(rtts) {
  const s = [...rtts].sort((a, b) => a - b);
  return { moves: s.length, p50: percentile(s, 0.5), p99: percentile(s, 0.99), max: s[s.length - 1] };
}

/** Plays `count` moves between two clients in a fresh room; resolves to the round trips. */
async function play(server, count, tag) {
  const a = await player(server, `Ann${tag}`);
  const b = await player(server, `Bob${tag}`);
  const { room } = await a.ok({ type: "create_room", k: 5, limit: 10000, first_builder: "creator" });
  await b.ok({ type: "join", room });
  await a.ok({ type: "ready", room });
  await b.ok({ type: "ready", room });
  const seat = { 0: a, 1: b };
  let s = await a.state(room, (x) => x.status === "playing");
  const rtts = [];
  // Every state is read in order: each accepted move makes exactly one.
  while (rtts.length < count) {
    const m = s.match;
    if (s.status === "finished") {
      await a.ok({ type: "rematch", room });
      await b.ok({ type: "rematch", room });
      s = await a.state(room, (x) => x.status === "playing" && x.match.number > m.number);
      continue;
    }
    const who = seat[m.to_move];
    let msg;
    if (m.step === "place") msg = { type: "place", room, position: m.word.length };
    else {
      let c = 0;
      for (; c < 5; c++) {
        const w = [...m.word];
        w.splice(m.placed, 0, c);
        if (!hasSquare(w)) break;
      }
      msg = { type: "paint", room, symbol: c % 5 };
    }
    const t0 = process.hrtime.bigint();
    await who.ok(msg);
    rtts.push(Number(process.hrtime.bigint() - t0) / 1e6);
    s = await a.state(room, (x) => x.version > s.version);
  }
  await a.close();
  await b.close();
  return rtts;
}

async function main() {
  // The clients move as fast as the server answers: far past the default rate limit.
  // A guest seats the bots against each other (an older server has no such flag).
  const help = spawnSync(SERVER, ["--help"], { encoding: "utf8" }).stdout || "";
  const guestBots = help.includes("--guest-bot-vs-bot") ? ["--guest-bot-vs-bot", "1"] : [];
  const server = await startServer(["--threads", "2", "--rate", "10000", "--burst", "10000", ...guestBots]);
  let keeper = Promise.resolve();
  try {
    log(`baseline: ${MOVES} moves with the server otherwise idle`);
    const base = summary(await play(server, MOVES, "0"));
    log(`  p50 ${base.p50.toFixed(3)} ms, p99 ${base.p99.toFixed(3)} ms, max ${base.max.toFixed(3)} ms`);

    // Two rooms where a nested:2 painter faces a greedy builder (k = 5, limit 10000): the
    // painter's words grow long, so its searches grow long and keep a worker busy. A room
    // whose match ends (round 2 swaps the roles) is replaced by a fresh one.
    log("starting two rooms with a nested:2 bot each (k = 5)");
    const host = await player(server, "Host");
    let keeping = true;
    const botRoom = async () => {
      const { room } = await host.ok({ type: "create_room", k: 5, limit: 10000, seat: false, first_builder: "creator" });
      await host.ok({ type: "spectate", room });
      await host.ok({ type: "seat_bot", room, bot: "greedy", seat: 0, think_ms: 60000 });
      await host.ok({ type: "seat_bot", room, bot: "nested:2", seat: 1, think_ms: 60000 });
    };
    for (let i = 0; i < 2; i++) await botRoom();
    keeper = (async () => {
      while (keeping) {
        try {
          await host.next("match_end", "a bot match to end", 3600e3);
        } catch {
          return;
        }
        if (keeping) await botRoom();
      }
    })();
    // Let the words grow until a decision takes a while, so that both threads stay busy.
    log(`  letting the bots play for ${WARM_S} s first`);
    await new Promise((r) => setTimeout(r, WARM_S * 1000));
    let samples = 0;
    let busy = 0;
    let running = 0;
    const sampler = setInterval(async () => {
      const r = await get(server, "/metrics");
      const m = /^thue_bot_jobs_running (\d+)/m.exec(r.body);
      samples++;
      if (m) {
        running += Number(m[1]);
        if (Number(m[1]) >= 2) busy++;
      }
    }, 50);
    log(`loaded: ${MOVES} moves while the bots search`);
    const loaded = summary(await play(server, MOVES, "1"));
    clearInterval(sampler);
    keeping = false;
    host.inbox = [];
    log(`  p50 ${loaded.p50.toFixed(3)} ms, p99 ${loaded.p99.toFixed(3)} ms, max ${loaded.max.toFixed(3)} ms`);
    const out = { baseline_ms: base, loaded_ms: loaded, p99_ratio: loaded.p99 / base.p99, bots_busy_samples: busy, samples, mean_jobs_running: running / samples };
    if (JSON_OUT) console.log(JSON.stringify(out));
    else {
      console.log("move round trip (send to ok), ms        p50      p99      max   moves");
      console.log(`server otherwise idle              ${base.p50.toFixed(3).padStart(8)} ${base.p99.toFixed(3).padStart(8)} ${base.max.toFixed(3).padStart(8)} ${String(base.moves).padStart(7)}`);
      console.log(`two nested:2 searches running     ${loaded.p50.toFixed(3).padStart(8)} ${loaded.p99.toFixed(3).padStart(8)} ${loaded.max.toFixed(3).padStart(8)} ${String(loaded.moves).padStart(7)}`);
      console.log(`p99 loaded / idle: ${(loaded.p99 / base.p99).toFixed(2)}x; /metrics every 50 ms: 2 bot jobs running in ${busy} of ${samples} samples (mean ${(running / samples).toFixed(2)})`);
    }
  } finally {
    await server.stop();
  }
  await keeper;
}

await main();
