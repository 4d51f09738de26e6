#!/usr/bin/env node
// bench-analysis.mjs: what an analysis sends under thue.v1 (a whole analysis_tree per
// update) and under thue.v2 (analysis_delta updates of what changed, in parts of at most
// 64 KiB): the largest message, the bytes per update, and the bytes in all.
//
//   node tests/integration/bench-analysis.mjs --server build/server/thue-server
//        [--game dots] [--options '{"rows":5,"cols":5}'] [--max-nodes 50000]
//        [--tree-kib 2048] [--seconds 30] [--iterations 1000000] [--seed 1]
//        [--step N --steps K] [--json]
//
// One server (started with --analysis-tree-max-kib TREE_KIB); one client per protocol, one
// after the other, each running the same analysis (same position, seed, max_nodes),
// reading everything as it comes; then analyze_close. An update is one analysis_tree
// (v1), or the parts of one seq (v2).
//   - By default the analysis runs ITERATIONS for SECONDS or until done, its updates as
//     the server paces them (every 250 ms plus 1 ms per KB of the last).
//   - With --step N, it runs N iterations, then K times N more (analyze_resume), each
//     run's end one update: the same tree N iterations apart under both protocols. The
//     figures per update are then those of the K resumed runs (the first, whole under
//     both, is left out).
// This is a benchmark: it asserts nothing; it prints the figures (and with --json one
// JSON object).
import process from "node:process";
import { Client, startServer } from "./lib.mjs";

function arg(name, def) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : def;
}
const GAME = arg("--game", "dots");
const OPTIONS = JSON.parse(arg("--options", GAME === "dots" ? '{"rows":5,"cols":5}' : "{}"));
const MAX_NODES = Number(arg("--max-nodes", "50000"));
const TREE_KIB = arg("--tree-kib", "2048");
const SECONDS = Number(arg("--seconds", "30"));
const ITERATIONS = Number(arg("--iterations", "1000000"));
const SEED = Number(arg("--seed", "1"));
const STEP = Number(arg("--step", "0"));
const STEPS = Number(arg("--steps", "10"));
const JSON_OUT = process.argv.includes("--json");
const log = (...a) => process.stderr.write(a.join(" ") + "\n");

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};

async function measure(server, proto) {
  const c = await Client.connect(server.ws, `v${proto}`, proto === 2 ? ["thue.v2", "thue.v1"] : ["thue.v1"]);
  await c.ok({ type: "hello", protocol: proto, name: `Bench${proto}` });
  const updates = []; // {seq, bytes, parts, largest, iterations, shown, status, at}
  let largest = 0, total = 0, key = null, t0 = 0, cur = null, doneAt = 0;
  const finished = new Promise((resolve) => {
    c.ws.on("message", (d) => {
      const head = d.toString("latin1", 0, 24);
      const tree = head.startsWith('{"type":"analysis_tree"'), delta = head === '{"type":"analysis_delta"';
      if (!tree && !delta) return;
      const m = JSON.parse(d.toString());
      if (m.analysis !== key) return;
      largest = Math.max(largest, d.length);
      total += d.length;
      if (tree || m.part === 1) cur = { seq: m.seq, bytes: 0, parts: 0, largest: 0, full: tree || m.full };
      cur.bytes += d.length;
      cur.parts++;
      cur.largest = Math.max(cur.largest, d.length);
      if (tree || m.last) {
        Object.assign(cur, { iterations: m.iterations, shown: m.shown, status: m.status, at: Date.now() - t0 });
        updates.push(cur);
        if (m.status === "done" && !STEP) { doneAt = Date.now() - t0; resolve(); }
      }
    });
  });
  const started = await c.ok({ type: "analyze", game: GAME, game_options: OPTIONS, iterations: STEP || ITERATIONS, seed: SEED, max_nodes: MAX_NODES });
  key = started.analysis;
  t0 = Date.now();
  let elapsed;
  if (STEP) {
    const doneUpdates = () => updates.filter((u) => u.status === "done").length;
    for (let k = 0; k <= STEPS; k++) {
      if (k > 0) await c.ok({ type: "analyze_resume", analysis: key, iterations: STEP }, 120000);
      while (doneUpdates() < k + 1) await new Promise((r) => setTimeout(r, 5));
    }
    elapsed = Date.now() - t0;
    updates.splice(0, updates.findIndex((u) => u.status === "done") + 1); // the first run's
  } else {
    await Promise.race([finished, new Promise((r) => setTimeout(r, SECONDS * 1000))]);
    elapsed = doneAt || Date.now() - t0;
  }
  await c.ok({ type: "analyze_close", analysis: key }, 120000);
  c.close();
  if (STEP) total = updates.reduce((sum, u) => sum + u.bytes, 0);
  const bytes = updates.map((u) => u.bytes);
  const last = updates[updates.length - 1] || {};
  return {
    protocol: `thue.v${proto}`, updates: updates.length, seconds: elapsed / 1000, iterations: last.iterations, shown: last.shown,
    largest_message: largest, bytes_total: total, bytes_per_update_mean: Math.round(total / Math.max(1, updates.length)),
    bytes_per_update_median: median(bytes), bytes_per_update_max: Math.max(0, ...bytes),
    parts_per_update_max: Math.max(0, ...updates.map((u) => u.parts)),
    bytes_per_kiteration: Math.round(total / ((STEP ? STEP * STEPS : last.iterations || NaN) / 1000)),
  };
}

const server = await startServer(["--analysis-tree-max-kib", TREE_KIB]);
try {
  log(`${GAME} ${JSON.stringify(OPTIONS)}, max_nodes ${MAX_NODES}, --analysis-tree-max-kib ${TREE_KIB}, seed ${SEED}, ` +
    (STEP ? `${STEP} iterations, then ${STEPS} times ${STEP} more` : `${SECONDS} s or ${ITERATIONS} iterations`));
  const out = [];
  for (const proto of [1, 2]) out.push(await measure(server, proto));
  const [a, b] = out;
  const ratio = (x, y) => Math.round((x / y) * 10) / 10;
  if (JSON_OUT) {
    console.log(JSON.stringify({ game: GAME, options: OPTIONS, max_nodes: MAX_NODES, tree_kib: Number(TREE_KIB), seed: SEED, runs: out }));
  } else {
    const cols = ["updates", "seconds", "iterations", "shown", "largest_message", "bytes_per_update_median", "bytes_per_update_mean", "bytes_per_update_max", "parts_per_update_max", "bytes_total", "bytes_per_kiteration"];
    console.log(`| | ${out.map((r) => r.protocol).join(" | ")} | v1 / v2 |`);
    console.log(`|---|${out.map(() => "---").join("|")}|---|`);
    for (const k of cols) {
      const r = typeof a[k] === "number" && typeof b[k] === "number" && b[k] > 0 && !["updates", "seconds", "iterations", "shown", "parts_per_update_max"].includes(k) ? ratio(a[k], b[k]) : "";
      console.log(`| ${k} | ${out.map((x) => x[k]).join(" | ")} | ${r} |`);
    }
  }
} finally {
  await server.stop();
}
