// attack_search.test.mjs: issue 29's attacks on the searches, replayed on loopback: no
// option, bot or analysis lets one user stall the others.
//
// A victim at one address (127.0.0.2) plays Nim against the `random` bot (think_ms 1000)
// the whole time: its bot's move costs nothing, so its answer time is the wait for a
// worker. Attackers at other addresses ask for the biggest searches the server allows:
//   - bots of every game at its largest options (uct thinking its whole think_ms,
//     perfect, dots' strong), each of which must answer by its think_ms and a margin;
//     Rims with 16 heaps of 1000 (4,008,000 moves a position) is refused;
//   - analyses: slots per owner and per address, a stop answered within a slice, the
//     CPU-time bound, tree messages bounded in bytes (dots 10x10 and a long Thue word
//     with max_nodes 50000), the memory budgets and their figures in /metrics;
//   - SIGTERM under all of it.
// Figures are printed (the issue's before/after); timings are asserted with wide bounds
// only (ASan, a loaded machine: think + 1500 ms, as attack_bots does). Every loop is
// bounded in count and time, every wait has a timeout.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import { SERVER, player, account, run, startServer as start, test, withTimeout } from "./lib.mjs";

const THINK_MS = 1000;
const MARGIN_MS = 1500; // sanitizers and a loaded 2-core machine
const ANALYSIS_S = 3; // --analysis-seconds-max in the analyses' test
const FLAGS = ["--threads", "2", "--rate", "1000", "--burst", "1000", "--room-rate-per-ip", "100000", "--max-rooms-per-player", "50"];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A server with the flags (and values) this binary knows, of those given: an older
 * build runs the same attacks and shows what it did (the issue's before figures). */
function startServer(flags) {
  const help = spawnSync(SERVER, ["--help"], { encoding: "utf8" }).stdout || "";
  const out = [];
  for (let i = 0; i < flags.length; i += 2) if (help.includes(`${flags[i]} `)) out.push(flags[i], flags[i + 1]);
  return start(out);
}

function stats(a) {
  if (!a.length) return "none";
  const s = [...a].sort((x, y) => x - y);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))].toFixed(0);
  return `n=${s.length} median ${q(0.5)} p90 ${q(0.9)} max ${s[s.length - 1].toFixed(0)} ms`;
}

/** The CPU time the server's process has used, in seconds (user and system, all threads). */
function cpuSeconds(server) {
  const t = fs.readFileSync(`/proc/${server.proc.pid}/stat`, "utf8");
  const f = t.slice(t.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / 100; // utime, stime: clock ticks (USER_HZ 100)
}

/** The server's resident and peak memory, in MiB. */
function rss(server) {
  const t = fs.readFileSync(`/proc/${server.proc.pid}/status`, "utf8");
  const g = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(t)[1]) / 1024;
  return { rss: g("VmRSS"), peak: g("VmHWM") };
}

/** Every value of metric `name` in /metrics, by its label text ("" without labels). */
async function metrics(server, name) {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const out = {};
  for (const m of text.matchAll(new RegExp(`^thue_${name}(\\{[^}]*\\})? (\\d+)$`, "gm"))) out[m[1] || ""] = Number(m[2]);
  return out;
}

/** n copies of heap h, as game options. */
const heaps = (n, h) => ({ heaps: Array(n).fill(h) });
/** Rims' legal moves a position of heaps can have (as the server counts them): taking t
 * dots from a heap of h leaves h - t, split in two (or not) in floor((h-t)/2)+1 ways. */
function rimsMoves(hs) {
  let n = 0;
  for (const h of hs) for (let t = 1; t <= h; t++) n += Math.floor((h - t) / 2) + 1;
  return n;
}
/** The largest 16 equal Rims heaps whose moves the default --search-moves-max (100000) allows. */
function rimsLargest() {
  let h = 1;
  while (h < 1000 && rimsMoves(Array(16).fill(h + 1)) <= 100000) h++;
  return heaps(16, h);
}

/**
 * The victim: plays Nim (16 heaps of 1000) against `random` with think_ms 1000, taking one
 * token at a time, a new room when one ends; stop() resolves to the bot's answer times.
 */
async function victim(server, addr, name = "Vic") {
  const v = await player(server, name, addr);
  const times = [];
  let stopped = false;
  let failure = null;
  const loop = (async () => {
    for (let game = 0; game < 20 && !stopped; game++) {
      const { room } = await v.ok({ type: "create_room", game: "nim", game_options: heaps(16, 1000), first_builder: "creator" });
      await v.ok({ type: "seat_bot", room, bot: "random", think_ms: THINK_MS });
      await v.ok({ type: "ready", room });
      let s = await v.state(room, (x) => x.status === "playing" && x.match.to_move === 0);
      for (let move = 0; move < 2000 && !stopped && s.status === "playing"; move++) {
        const heap = s.match.state.heaps.findIndex((h) => h > 0);
        const m0 = s.match.moves;
        const t = performance.now();
        v.send({ type: "move", room, move: { heap, take: 1 } });
        s = await v.next((x) => x.type === "room_state" && x.room === room && (x.status !== "playing" || x.match.moves >= m0 + 2), "the bot's answer", 60000);
        times.push(performance.now() - t);
        v.inbox = v.inbox.filter((x) => !(x.type === "room_state" && x.room === room));
        await sleep(20);
      }
      await v.ok({ type: "leave", room });
    }
  })().catch((e) => (failure = e));
  return {
    async stop() {
      stopped = true;
      await withTimeout(loop, 70000, "the victim to stop");
      v.ws.terminate();
      if (failure) throw failure;
      return times;
    },
  };
}

/** Checks the victim's answers: each by its bot's think time and the margin. */
function checkVictim(label, times) {
  console.log(`     ${label}: the victim's bot (think_ms ${THINK_MS}) answered ${stats(times)}`);
  assert.ok(times.length > 0, "the victim played");
  assert.ok(Math.max(...times) <= THINK_MS + MARGIN_MS, `${label}: the victim's bot waited ${Math.max(...times).toFixed(0)} ms`);
}

/**
 * c seats bot `spec` (think_ms THINK_MS) in a new room of game/options and times its first
 * move. firstMove: a move c makes first (the bot answers it), else the bot moves first.
 * Resolves to the bot's answer time in ms, or the refusal {code, message}.
 */
async function botAnswer(c, game, game_options, spec, firstMove) {
  const { room } = await c.ok({ type: "create_room", game, game_options, first_builder: firstMove ? "creator" : "opponent" });
  try {
    const seated = await c.request({ type: "seat_bot", room, bot: spec, think_ms: THINK_MS });
    if (seated.type === "error") return { code: seated.code, field: seated.field, message: seated.message };
    await c.ok({ type: "ready", room });
    await c.state(room, (x) => x.status !== "waiting");
    let t = performance.now();
    if (firstMove) {
      await c.ok({ type: "move", room, move: firstMove });
      t = performance.now();
    }
    const s = await c.next((x) => x.type === "room_state" && x.room === room && (x.status === "finished" || (x.match.last_move && x.match.last_move.seat === 1)), `${game} ${spec}'s move`, 120000);
    const took = performance.now() - t;
    return s.match.last_move && s.match.last_move.seat === 1 ? took : { code: "finished", message: "the match ended first" };
  } finally {
    await c.request({ type: "leave", room });
    c.inbox = [];
  }
}

test("a bot of every game at its largest options moves by its think time; the other owner's bot is not held up", async () => {
  const server = await startServer(FLAGS);
  const clients = [];
  try {
    const vic = await victim(server, "127.0.0.2");
    const atk = await player(server, "Atk", "127.0.0.3");
    clients.push(atk);
    // Two analyses of the largest Rims from another address keep the pool contended.
    const busy = [];
    for (let i = 0; i < 2; i++) {
      const b = await player(server, `Busy${i}`, "127.0.0.4");
      clients.push(b);
      const r = await b.request({ type: "analyze", game: "rims", game_options: rimsLargest(), iterations: 1000000, max_nodes: 100 });
      busy.push(r.type);
    }
    console.log(`     two analyses of Rims ${JSON.stringify(rimsLargest().heaps.slice(0, 1))}x16 beside: ${busy.join(", ")}`);
    // Rims with 16 heaps of 1000: 4,008,000 legal moves a position, refused for bots.
    const huge = await botAnswer(atk, "rims", heaps(16, 1000), "uct:iterations=0,ms=60000");
    console.log(`     Rims 16 heaps of 1000, uct: ${typeof huge === "number" ? `answered in ${huge.toFixed(0)} ms` : `${huge.code}: ${huge.message}`}`);
    const cases = [
      ["rims", rimsLargest(), "uct:iterations=0,ms=60000"],
      ["rims", rimsLargest(), "perfect"],
      ["nim", heaps(16, 1000), "uct:iterations=0,ms=60000"],
      ["northcott", { rows: 16, cols: 32 }, "uct:iterations=0,ms=60000"],
      ["circle", { fields: 64, white: 20, black: 20 }, "uct:iterations=0,ms=60000"],
      ["wythoff", { a: 1000, heaps: [9007199254740991, 9007199254740991] }, "uct:iterations=0,ms=60000"],
      ["dots", { rows: 10, cols: 10 }, "uct:iterations=0,ms=60000"],
      ["dots", { rows: 10, cols: 10 }, "strong"],
      ["dots", { rows: 10, cols: 10 }, "perfect"],
      ["dots", { rows: 4, cols: 4 }, "perfect"],
      ["dots", { rows: 3, cols: 4 }, "perfect", { dir: "h", row: 0, col: 0 }],
    ];
    const answers = [];
    for (const [game, opts, spec, first] of cases) {
      const a = await botAnswer(atk, game, opts, spec, first);
      const label = `${game} ${JSON.stringify(opts).slice(0, 40)} ${spec}`;
      answers.push([label, a]);
      console.log(`     ${label}: ${typeof a === "number" ? `${a.toFixed(0)} ms` : `${a.code}: ${a.message}`}`);
    }
    const times = await vic.stop();
    console.log(`     memory: ${JSON.stringify(rss(server))} MiB`);
    checkVictim("beside every game's biggest bots", times);
    assert.equal(huge.code, "bad_bot", "Rims 16x1000 is too big to search");
    assert.match(huge.message, /4008000 legal moves.*search-moves-max/);
    for (const [label, a] of answers) {
      if (a.code === "finished") continue; // a random start with no move for the bot
      assert.equal(typeof a, "number", `${label}: ${JSON.stringify(a)}`);
      assert.ok(a <= THINK_MS + MARGIN_MS, `${label} answered in ${a.toFixed(0)} ms (think_ms ${THINK_MS})`);
    }
  } finally {
    for (const c of clients) c.ws.terminate();
    await server.stop();
  }
});

test("analyses: fair slots per owner and address, a stop within a slice, bounded in CPU time", async () => {
  const server = await startServer([...FLAGS, "--analysis-seconds-max", String(ANALYSIS_S)]);
  const clients = [];
  try {
    const vic = await victim(server, "127.0.0.2");
    // Sixteen guests at one address: the guests of an address are one owner (2 analyses).
    const answers = {};
    const open = [];
    for (let i = 0; i < 16; i++) {
      const c = await player(server, `Gst${i}`, "127.0.0.3");
      clients.push(c);
      const r = await c.request({ type: "analyze", game: "rims", game_options: rimsLargest(), iterations: 1000000, max_nodes: 50 });
      answers[r.type === "error" ? r.code : "started"] = (answers[r.type === "error" ? r.code : "started"] || 0) + 1;
      if (r.type !== "error") open.push({ c, key: r.analysis });
    }
    // Accounts at the same address: the address holds at most 4 in all.
    const acct = {};
    for (let i = 0; i < 3; i++) {
      const c = await account(server, `Acc${i}`, "127.0.0.3");
      clients.push(c);
      const r = await c.request({ type: "analyze", game: "nim", iterations: 1000000, max_nodes: 50 });
      acct[r.type === "error" ? r.code : "started"] = (acct[r.type === "error" ? r.code : "started"] || 0) + 1;
      if (r.type !== "error") open.push({ c, key: r.analysis });
    }
    // Another address still gets one.
    const other = await player(server, "Other", "127.0.0.5");
    clients.push(other);
    const o = await other.request({ type: "analyze", game: "nim", iterations: 1000, max_nodes: 50 });
    console.log(`     16 guests at one address: ${JSON.stringify(answers)}; 3 accounts there: ${JSON.stringify(acct)}; another address: ${o.type}`);
    // A stop is answered within a slice: the stopped tree follows, before the server has
    // spent 2 s of CPU time (its 2 workers 1 s each: on an idle machine, 1000 ms). Counted
    // in CPU time, not wall time: the slice that sees the stop and builds the tree runs
    // at nice 10, and beside other work it took 1.6 s of wall time on a busy machine.
    const { c, key } = open[0];
    await c.next((m) => m.type === "analysis_tree" && m.analysis === key, "a first tree", 20000);
    const t0 = performance.now();
    const cpu0 = cpuSeconds(server);
    c.send({ type: "analyze_stop", id: "stop", analysis: key });
    await c.next((m) => m.type === "analysis_tree" && m.analysis === key && m.status === "stopped", "the stopped tree", 20000);
    const stopMs = performance.now() - t0;
    const stopCpu = cpuSeconds(server) - cpu0;
    console.log(`     analyze_stop -> stopped tree: ${stopMs.toFixed(0)} ms, ${stopCpu.toFixed(2)} s of the server's CPU`);
    // The CPU-time bound: the other one of that owner ends done after ANALYSIS_S s of
    // search. The bound is CPU time on the pool's workers, which run at nice 10: beside
    // other work they get a few percent of a core (3 s of search took 70 s of wall time
    // on a busy 2-core machine, past the 60 s this wait once had). So the wait is counted
    // in the server's CPU time: done must come before the server has spent every open
    // analysis's budget and 5 s more since; a tree comes every few slices, so 30 s
    // without one is a hang; and 180 s of wall time end the wait in any case.
    const { c: c2, key: k2 } = open[1];
    const t1 = performance.now();
    const cpu1 = cpuSeconds(server);
    const cpuMax = 4 * ANALYSIS_S + 5; // Gst1's, Acc0's, Acc1's and Other's budgets
    let done = null;
    for (let trees = 0; !done && trees < 100000 && performance.now() - t1 < 180000; trees++) {
      const m = await c2.next((x) => x.type === "analysis_tree" && x.analysis === k2, "a tree of the analysis", 30000);
      if (m.status === "done") done = m;
      else assert.ok(cpuSeconds(server) - cpu1 <= cpuMax, `no done tree after ${cpuMax} s of the server's CPU time`);
    }
    assert.ok(done, "a done tree");
    console.log(`     --analysis-seconds-max ${ANALYSIS_S}: done after ${((performance.now() - t1) / 1000).toFixed(1)} s of wall time, ${(cpuSeconds(server) - cpu1).toFixed(1)} s of the server's CPU, ${done.iterations} of 1000000 iterations`);
    const again = await c2.request({ type: "analyze_resume", analysis: k2 });
    const times = await vic.stop();
    checkVictim("beside 5 analyses of the largest Rims", times);
    assert.deepEqual(answers, { started: 2, not_allowed: 14 });
    assert.deepEqual(acct, { started: 2, not_allowed: 1 });
    assert.equal(o.type, "analysis_started");
    assert.ok(stopCpu <= 2, `a stop took ${stopCpu.toFixed(2)} s of the server's CPU (${stopMs.toFixed(0)} ms)`);
    assert.ok(done.iterations < 1000000);
    assert.equal(again.code, "not_allowed");
    assert.match(again.message, /analysis-seconds-max/);
  } finally {
    for (const c of clients) c.ws.terminate();
    await server.stop();
  }
});

/** A clean word over {0,1,2} of n symbols (square-free: the 1s between the 0s of Thue-Morse). */
function ternaryWord(n) {
  const w = [];
  let ones = 0;
  for (let i = 1; w.length < n; i++) {
    let x = i, p = 0;
    while (x) { p ^= x & 1; x >>= 1; }
    if (p) ones++;
    else { w.push(ones); ones = 0; }
  }
  return w;
}

test("tree messages have a byte bound: big trees reach their clients, other bots are not held up", async () => {
  const server = await startServer([...FLAGS, "--max-analyses", "32"]);
  const clients = [];
  try {
    const vic = await victim(server, "127.0.0.2");
    // Sixteen dots 10x10 analyses showing up to 50000 nodes, from 8 addresses.
    const sizes = [];
    const trees = [];
    for (let i = 0; i < 16; i++) {
      const c = await player(server, `Dot${i}`, `127.0.0.${10 + (i >> 1)}`);
      clients.push(c);
      c.ws.on("message", (d) => { if (d.length > 1000) sizes.push(d.length); });
      const r = await c.ok({ type: "analyze", game: "dots", game_options: { rows: 10, cols: 10 }, iterations: 1000000, max_nodes: 50000 });
      trees.push({ c, key: r.analysis });
    }
    // A long Thue word (1937 symbols, a 4 KB request) showing up to 50000 nodes.
    const t = await player(server, "Long", "127.0.0.40");
    clients.push(t);
    let thueMax = 0;
    t.ws.on("message", (d) => (thueMax = Math.max(thueMax, d.length)));
    const word = ternaryWord(1937);
    const started = await t.ok({ type: "analyze", game: "thue", game_options: { k: 3, limit: 10000 }, position: { round: 0, step: "place", word, placed: null }, iterations: 1000000, max_nodes: 50000 });
    let shown = 0;
    for (let i = 0; i < 3; i++) shown = (await t.next((m) => m.type === "analysis_tree" && m.analysis === started.analysis, "a Thue tree", 60000)).shown;
    await sleep(8000);
    const mem = rss(server);
    const used = await metrics(server, "search_memory_bytes");
    const limits = await metrics(server, "search_memory_limit_bytes");
    const times = await vic.stop();
    console.log(`     16 dots 10x10 analyses (max_nodes 50000): ${sizes.length} trees, the largest ${(Math.max(...sizes) / 1024).toFixed(0)} KiB; ` +
      `Thue word of ${word.length}: the largest tree ${(thueMax / 1024).toFixed(0)} KiB, ${shown} nodes shown; connections closed: ${clients.filter((c) => c.closeInfo).length}`);
    console.log(`     server memory ${mem.rss.toFixed(0)} MiB (peak ${mem.peak.toFixed(0)}); searches hold ${(used[""] / 1048576).toFixed(0)} MiB of ${(limits['{budget="total"}'] / 1048576).toFixed(0)}`);
    checkVictim("beside 17 analyses building trees of up to 50000 nodes", times);
    assert.ok(Math.max(...sizes, thueMax) <= 2048 * 1024, "every tree message is within --analysis-tree-max-kib");
    assert.ok(shown > 0 && shown < 50000, "the long word's tree shows fewer nodes to fit");
    assert.equal(clients.filter((c) => c.closeInfo).length, 0, "no client was cut off");
    assert.ok(used[""] <= limits['{budget="total"}']);
  } finally {
    for (const c of clients) c.ws.terminate();
    await server.stop();
  }
});

test("memory: the budgets per search, per owner and in all hold, and /metrics shows them", async () => {
  const server = await startServer([...FLAGS, "--search-mem-mib", "16", "--owner-search-mem-mib", "24", "--search-mem-total-mib", "40"]);
  const clients = [];
  try {
    // Three addresses, each with an analysis and two uct bots of the largest Rims (one
    // expansion of its 100000 moves takes 7 MiB): each search would grow its tree past
    // 16 MiB, each owner's three past 24, the three owners past 40.
    const peaks = [];
    const runs = [];
    for (let a = 0; a < 3; a++) {
      const c = await player(server, `Mem${a}`, `127.0.0.${50 + a}`);
      clients.push(c);
      await c.ok({ type: "analyze", game: "rims", game_options: rimsLargest(), iterations: 1000000, max_nodes: 100 });
      for (let b = 0; b < 2; b++) {
        const { room } = await c.ok({ type: "create_room", game: "rims", game_options: rimsLargest(), first_builder: "opponent" });
        await c.ok({ type: "seat_bot", room, bot: "uct:iterations=0,ms=60000", think_ms: 4000 });
        await c.ok({ type: "ready", room });
        runs.push(c.next((x) => x.type === "room_state" && x.room === room && x.match && x.match.last_move, "the bot's move", 30000));
      }
    }
    for (let i = 0; i < 12; i++) {
      await sleep(300);
      peaks.push((await metrics(server, "search_memory_owner_max_bytes"))[""]);
    }
    await Promise.all(runs);
    const used = await metrics(server, "search_memory_peak_bytes");
    const refused = await metrics(server, "search_memory_refused_total");
    const limits = await metrics(server, "search_memory_limit_bytes");
    const mib = (x) => (x / 1048576).toFixed(1);
    console.log(`     budgets 16/24/40 MiB: all searches at most ${mib(used[""])} MiB, one owner at most ${mib(Math.max(...peaks))} MiB (sampled), refused ${JSON.stringify(refused)}; server ${JSON.stringify(rss(server))} MiB`);
    assert.equal(limits['{budget="search"}'], 16 << 20);
    assert.equal(limits['{budget="owner"}'], 24 << 20);
    assert.equal(limits['{budget="total"}'], 40 << 20);
    assert.ok(used[""] <= 40 << 20, "all searches within the total budget");
    assert.ok(Math.max(...peaks) <= 24 << 20, "an owner within its budget");
    // (Which budget refuses first depends on how the pool interleaves the searches; each
    // one's refusals are checked on their own in test_budget.)
    assert.ok(refused['{budget="owner"}'] + refused['{budget="total"}'] > 0, "the owner's or the total budget was reached and refused");
  } finally {
    for (const c of clients) c.ws.terminate();
    await server.stop();
  }
});

test("SIGTERM under these loads ends the server within 5 s", async () => {
  const server = await startServer([...FLAGS, "--max-analyses", "32"]);
  const clients = [];
  try {
    for (let i = 0; i < 16; i++) {
      const c = await player(server, `Load${i}`, `127.0.0.${60 + (i >> 1)}`);
      clients.push(c);
      await c.ok({ type: "analyze", game: "dots", game_options: { rows: 10, cols: 10 }, iterations: 1000000, max_nodes: 50000 });
      if (i % 4 === 0) {
        const { room } = await c.ok({ type: "create_room", game: "rims", game_options: rimsLargest(), first_builder: "opponent" });
        await c.ok({ type: "seat_bot", room, bot: "uct:iterations=0,ms=60000", think_ms: 30000 });
        await c.ok({ type: "ready", room });
      }
    }
    await sleep(3000);
    const t0 = performance.now();
    const { code } = await server.stop("SIGTERM", 30000);
    const took = performance.now() - t0;
    console.log(`     SIGTERM with 16 analyses and 4 bots searching: exit ${code} after ${took.toFixed(0)} ms`);
    assert.equal(code, 0);
    assert.ok(took <= 5000, `shutdown took ${took.toFixed(0)} ms`);
  } finally {
    for (const c of clients) c.ws.terminate();
    await server.stop("SIGKILL");
  }
});

await run();
