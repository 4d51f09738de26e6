// analysis_v2.test.mjs: the analysis page in Chromium when its connection speaks thue.v2
// (PROTOCOL.md section 16, "Under thue.v2"): the tree arrives as analysis_delta updates,
// which the page merges (analysisdelta.js) into the same tree as thue.v1's analysis_tree.
// The page's own connection offers thue.v1 only (conn.js), so an init script makes its
// WebSocket offer thue.v2 first and say hello with protocol 2.
//
// A Nim position with a fixed seed shows the CLI's tree: its root visits, best move, node
// count, and its CSV export is the CLI's, byte for byte (a tree of several parts). A long
// dots analysis grows through many updates while it runs; when done, the page's root
// visits, shown nodes and best move are those of a thue.v1 client's analysis of the same
// position and seed. Run:
//   node tests/e2e/analysis_v2.test.mjs --server build/server/thue-server
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test, run, tid, withWorld, enter } from "./lib.mjs";
import { SERVER, player } from "../integration/lib.mjs";

const CLI = process.env.THUE_CLI || (SERVER ? path.resolve(path.dirname(SERVER), "..", "clients", "cli", "thue") : "");
const POSITION = { heaps: [3, 4, 5] };
const ITERATIONS = 3000;
const SEED = 5;

/** The page's WebSocket offers thue.v2 first; hello says the subprotocol it got; the
 * analysis_delta parts received are counted in window.__deltaParts. */
function speakV2() {
  const Native = window.WebSocket;
  window.__deltaParts = 0;
  window.WebSocket = class extends Native {
    constructor(url) {
      super(url, ["thue.v2", "thue.v1"]);
      this.addEventListener("message", (ev) => {
        if (typeof ev.data === "string" && ev.data.startsWith('{"type":"analysis_delta"')) window.__deltaParts++;
      });
    }
    send(data) {
      if (this.protocol === "thue.v2" && typeof data === "string" && data.startsWith('{"type":"hello"'))
        data = data.replace('"protocol":1', '"protocol":2');
      super.send(data);
    }
  };
}

async function v2Page(browser, server, name, hash) {
  const context = await browser.newContext({ viewport: { width: 900, height: 900 } });
  await context.addInitScript(speakV2);
  const page = await context.newPage();
  page.setDefaultTimeout(10000);
  page.on("pageerror", (e) => console.log(`[${name}] page error: ${e.message}`));
  await page.goto(server.url + "/");
  await enter(page, name);
  await page.evaluate((h) => { location.hash = h; }, hash);
  await page.locator("[data-testid=an-canvas][data-ready='1']").waitFor();
  return page;
}

const moveName = (mv) => JSON.stringify(mv).replace(/"/g, "");
const status = (page) => page.locator("[data-testid=an-live-status]").evaluate((e) => ({ status: e.dataset.status, best: e.dataset.best, iterations: Number(e.dataset.iterations) }));
const canvas = (page) => page.locator("[data-testid=an-canvas]").evaluate((c) => ({ rootVisits: Number(c.dataset.rootVisits), best: c.dataset.best, nodes: Number(c.dataset.nodes) }));
async function waitStatus(page, want) {
  await page.waitForFunction((w) => document.querySelector("[data-testid=an-live-status]").dataset.status === w ||
    document.querySelector("[data-testid=an-live-error]").textContent !== "", want, { timeout: 60000 });
  assert.equal(await tid(page, "an-live-error").textContent(), "");
}

test("thue.v2: a Nim tree from its deltas is the CLI's, its CSV byte for byte", () => withWorld(async (browser, server) => {
  assert.ok(CLI && fs.existsSync(CLI), `the thue CLI at ${CLI}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thue-an-v2-"));
  let cli;
  try {
    const csv = path.join(dir, "tree.csv");
    const r = spawnSync(CLI, ["bestmove", "--game", "nim", "--position", JSON.stringify(POSITION), "--bot", `uct:iterations=${ITERATIONS}`, "--seed", String(SEED), "--tree", csv, "--json"], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    cli = { move: JSON.parse(r.stdout).move, csv: fs.readFileSync(csv, "utf8") };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const page = await v2Page(browser, server, "Ann", `#/analysis?game=nim&position=${encodeURIComponent(JSON.stringify(POSITION))}`);
  await tid(page, "an-iterations").fill(String(ITERATIONS));
  await tid(page, "an-seed").fill(String(SEED));
  await tid(page, "an-max-nodes").fill("50000");
  await tid(page, "an-start").click();
  await waitStatus(page, "done");
  assert.equal((await status(page)).best, moveName(cli.move));
  const shown = await canvas(page);
  assert.equal(shown.rootVisits, ITERATIONS);
  assert.equal(shown.nodes, cli.csv.trim().split("\n").length - 1, "the whole tree");
  const parts = await page.evaluate(() => window.__deltaParts);
  assert.ok(parts > 1, `the tree came as thue.v2 parts (${parts})`);
  const [dl] = await Promise.all([page.waitForEvent("download"), tid(page, "an-export-csv").click()]);
  assert.equal(fs.readFileSync(await dl.path(), "utf8"), cli.csv, "the page's CSV is the CLI's --tree CSV");
}));

test("thue.v2: a dots tree grown through many updates ends as thue.v1's", () => withWorld(async (browser, server) => {
  const options = { rows: 3, cols: 3 };
  const iterations = 200000, seed = 11, maxNodes = 3000;
  const page = await v2Page(browser, server, "Bo", `#/analysis?game=dots&options=${encodeURIComponent(JSON.stringify(options))}`);
  await tid(page, "an-iterations").fill(String(iterations));
  await tid(page, "an-seed").fill(String(seed));
  await tid(page, "an-max-nodes").fill(String(maxNodes));
  await tid(page, "an-start").click();
  await waitStatus(page, "done");
  const parts = await page.evaluate(() => window.__deltaParts);
  const ann = await player(server, "Ann");
  const a = await ann.ok({ type: "analyze", game: "dots", game_options: options, iterations, seed, max_nodes: maxNodes });
  const want = await ann.next((m) => m.type === "analysis_tree" && m.analysis === a.analysis && m.status === "done", "thue.v1's done tree", 60000);
  const shown = await canvas(page);
  assert.equal(shown.rootVisits, iterations);
  assert.equal(shown.nodes, want.shown);
  assert.equal((await status(page)).best, moveName(want.best));
  assert.ok(parts > 3, `updates while it ran (${parts} parts)`);
}));

run();
