// analysis_contract.test.mjs: the analysis page's live part against the analysis protocol
// (PROTOCOL.md "analyze") message by message. The page talks to the real server, but the
// four analysis commands are answered here, by a scripted stand-in on the page's WebSocket
// (Playwright's routeWebSocket), so every event the contract allows can be sent on cue:
// trees in order and out of order, a capped tree with hidden children, stopped, resumed,
// done, a refusal naming a field, an unknown analysis. The page must send exactly the
// contract's members, draw the newest tree (keeping what was folded and selected), and
// keep its buttons and status line true. The real search: analysis_live.test.mjs. Run:
//   node tests/e2e/analysis_contract.test.mjs --server build/server/thue-server
import assert from "node:assert/strict";
import fs from "node:fs";
import { test, run, tid, withWorld, enter } from "./lib.mjs";

/** A protocol NODE. */
const node = (move, name, visits, value, children = [], hidden = 0) =>
  ({ move, name, to_move: move === null ? 0 : 1, visits, ended: Math.floor(visits / 2), value, children, hidden });

function tree(k) {
  // The root's children in the game's move order; the second is the most visited.
  return node(null, "3,4,5", 10 * k, 0.4, [
    node({ heap: 0, take: 1 }, "2,4,5", 2 * k, 0.3, [node({ heap: 1, take: 1 }, "2,3,5", k, 0.6)]),
    node({ heap: 0, take: 3 }, "0,4,5", 7 * k, 0.7, [node({ heap: 1, take: 4 }, "0,0,5", 3 * k, 0.2), node({ heap: 2, take: 1 }, "0,4,4", 3 * k, 0.8)], 2),
    node({ heap: 2, take: 5 }, "3,4,0", k, 0.5),
  ]);
}

test("the page follows the contract: analyze, trees by seq, stop, resume, close, refusals", () => withWorld(async (browser, server) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  page.setDefaultTimeout(10000);
  page.on("pageerror", (e) => console.log(`[contract] page error: ${e.message}`));
  const sent = [];
  const waiters = [];
  /** Resolves once the page has sent a command of that type (after `after` commands). */
  const sentOf = (type, after = sent.length) => new Promise((resolve) => {
    const check = () => { const m = sent.slice(after).find((x) => x.type === type); if (m) { resolve(m); return true; } return false; };
    if (!check()) waiters.push(check);
  });
  let toPage = null;
  await page.routeWebSocket(/\/ws$/, (ws) => {
    const real = ws.connectToServer();
    toPage = (obj) => ws.send(JSON.stringify(obj));
    ws.onMessage((text) => {
      const m = JSON.parse(text);
      if (!String(m.type).startsWith("analyze")) { real.send(text); return; }
      sent.push(m);
      for (let i = waiters.length - 1; i >= 0; i--) if (waiters[i]()) waiters.splice(i, 1);
      if (m.type === "analyze" && m.iterations === 13) { toPage({ type: "error", id: m.id, code: "bad_message", field: "iterations", message: "iterations is 1..1000000 (the test's refusal)" }); return; }
      if (m.type === "analyze") {
        toPage({ type: "analysis_started", id: m.id, analysis: "a1", game: "nim", game_options: { heaps: [3, 4, 5], misere: false }, position: { heaps: [3, 4, 5], to_move: 0, moves: 0, nim_sum: 2 }, iterations: m.iterations || 20000, playout: 100, c: Math.SQRT2, seed: 77, max_nodes: 5000 });
        return;
      }
      if (m.analysis !== "a1") { toPage({ type: "error", id: m.id, code: "not_found", message: "no analysis a9" }); return; }
      toPage({ type: "ok", id: m.id });
    });
    real.onMessage((text) => ws.send(text));
  });
  await page.goto(server.url + "/");
  await enter(page, "Ann");
  await page.evaluate(() => { location.hash = "#/analysis?game=nim"; });
  await page.locator("[data-testid=an-canvas][data-ready='1']").waitFor();
  const live = () => page.locator("[data-testid=an-live-status]").evaluate((e) => ({ status: e.dataset.status, best: e.dataset.best, iterations: Number(e.dataset.iterations), text: e.textContent }));
  const canvas = () => page.locator("[data-testid=an-canvas]").evaluate((c) => ({ nodes: Number(c.dataset.nodes), rootVisits: Number(c.dataset.rootVisits), best: c.dataset.best, drawn: Number(c.dataset.shown) }));

  // Bad fields: named beside them, nothing sent.
  await tid(page, "an-iterations").fill("abc");
  await tid(page, "an-c").fill("1001");
  await tid(page, "an-position").fill("{heaps:");
  await tid(page, "an-start").click();
  assert.match(await tid(page, "an-iterations-err").textContent(), /^iterations is a whole number from 1 to 1000000\.$/);
  assert.match(await tid(page, "an-c-err").textContent(), /^c is a number from 0 to 1000\.$/);
  assert.match(await tid(page, "an-position-err").textContent(), /not JSON/);
  assert.match(await tid(page, "an-live-error").textContent(), /^Check the form: /);
  assert.equal(sent.length, 0, "nothing sent");
  await tid(page, "an-c").fill("");
  await tid(page, "an-position").fill("");

  // A refusal naming a field: written beside it.
  await tid(page, "an-iterations").fill("13");
  await tid(page, "an-start").click();
  await tid(page, "an-iterations-err").filter({ hasText: /the test's refusal/ }).waitFor();
  assert.equal((await live()).status, "none");

  // analyze: exactly the contract's members.
  await tid(page, "an-iterations").fill("500");
  await tid(page, "an-seed").fill("77");
  await tid(page, "an-playout").fill("10");
  await tid(page, "an-c").fill("0.5");
  await tid(page, "an-max-nodes").fill("300");
  await tid(page, "an-start").click();
  await page.waitForFunction(() => document.querySelector("[data-testid=an-live-status]").dataset.status === "running");
  const a = sent[sent.length - 1];
  assert.deepEqual(Object.keys(a).sort(), ["c", "game", "game_options", "id", "iterations", "max_nodes", "playout", "seed", "type"]);
  assert.deepEqual({ ...a, id: 0 }, { type: "analyze", id: 0, game: "nim", game_options: { heaps: [3, 4, 5], misere: false }, iterations: 500, playout: 10, c: 0.5, seed: 77, max_nodes: 300 });
  assert.match(page.url(), /#\/analysis\?game=nim&options=%7B%22heaps%22%3A%5B3%2C4%2C5%5D%2C%22misere%22%3Afalse%7D&position=/);

  // Trees: seq 2 then a late seq 1 (ignored), then one for another analysis (ignored).
  toPage({ type: "analysis_tree", analysis: "a1", seq: 2, status: "running", iterations: 20, nodes: 9, shown: 7, best: { heap: 0, take: 3 }, tree: tree(2) });
  await page.waitForFunction(() => document.querySelector("[data-testid=an-canvas]").dataset.rootVisits === "20");
  toPage({ type: "analysis_tree", analysis: "a1", seq: 1, status: "running", iterations: 10, nodes: 7, shown: 7, best: { heap: 0, take: 1 }, tree: tree(1) });
  toPage({ type: "analysis_tree", analysis: "zz", seq: 5, status: "running", iterations: 50, nodes: 7, shown: 7, best: null, tree: tree(5) });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 50))));
  assert.deepEqual(await canvas(), { nodes: 7, rootVisits: 20, best: "{heap:0,take:3}", drawn: 7 });
  let st = await live();
  assert.equal(st.iterations, 20);
  assert.equal(st.best, "{heap:0,take:3}");
  assert.match(st.text, /Running · iterations 20 of 500 · nodes 9 · shown 7 · best move took 3 from heap 1 · seed 77/);
  assert.equal(await tid(page, "an-stop").isDisabled(), false);
  assert.equal(await tid(page, "an-resume").isDisabled(), true);

  // Select and fold the best child by keyboard; the next tree keeps both.
  await page.locator("[data-testid=an-canvas]").focus();
  await page.keyboard.press("ArrowDown");
  assert.equal(await tid(page, "an-d-move").textContent(), "took 3 from heap 1", "the move as the board writes it");
  assert.equal(await tid(page, "an-d-children").textContent(), "2 (+2 not sent)");
  assert.equal(await tid(page, "an-d-to-move").textContent(), "player 1");
  assert.equal(await tid(page, "an-d-ended").textContent(), "7 (50.0 %)");
  await page.keyboard.press("Enter");
  assert.equal((await canvas()).drawn, 5);
  toPage({ type: "analysis_tree", analysis: "a1", seq: 3, status: "running", iterations: 30, nodes: 9, shown: 7, best: { heap: 0, take: 3 }, tree: tree(3) });
  await page.waitForFunction(() => document.querySelector("[data-testid=an-canvas]").dataset.rootVisits === "30");
  assert.equal((await canvas()).drawn, 5, "still folded");
  assert.equal(await tid(page, "an-d-visits").textContent(), "21", "the selection follows the node into the new tree");

  // Stop: the command, then the stopped tree.
  const stop = sentOf("analyze_stop");
  await tid(page, "an-stop").click();
  assert.deepEqual({ ...(await stop), id: 0 }, { type: "analyze_stop", id: 0, analysis: "a1" });
  toPage({ type: "analysis_tree", analysis: "a1", seq: 4, status: "stopped", iterations: 40, nodes: 9, shown: 7, best: { heap: 0, take: 3 }, tree: tree(4) });
  await page.waitForFunction(() => document.querySelector("[data-testid=an-live-status]").dataset.status === "stopped");
  assert.equal(await tid(page, "an-stop").isDisabled(), true);
  assert.equal(await tid(page, "an-resume").isDisabled(), false);

  // Resume: a bad count is named; 250 more is sent as iterations; an empty field sends none.
  await tid(page, "an-more").fill("0");
  await tid(page, "an-resume").click();
  assert.match(await tid(page, "an-more-err").textContent(), /More iterations: a whole number from 1 to 1000000/);
  assert.equal(sent[sent.length - 1].type, "analyze_stop", "nothing sent");
  await tid(page, "an-more").fill("250");
  await tid(page, "an-resume").click();
  await page.waitForFunction(() => document.querySelector("[data-testid=an-live-status]").dataset.status === "running");
  assert.deepEqual({ ...sent[sent.length - 1], id: 0 }, { type: "analyze_resume", id: 0, analysis: "a1", iterations: 250 });
  toPage({ type: "analysis_tree", analysis: "a1", seq: 5, status: "done", iterations: 750, nodes: 9, shown: 7, best: { heap: 0, take: 3 }, tree: tree(75) });
  await page.waitForFunction(() => document.querySelector("[data-testid=an-live-status]").dataset.status === "done");
  st = await live();
  assert.match(st.text, /^Done · iterations 750 of 500/);

  // The live tree exported: move names are the moves' JSON without quotes; moves and states are quoted for their commas, as the C exporter writes them.
  const [dl] = await Promise.all([page.waitForEvent("download"), tid(page, "an-export-csv").click()]);
  assert.equal(fs.readFileSync(await dl.path(), "utf8"), [
    "move,visits,visits2,payoff,state,children",
    "root,750,375,0.400000,\"3,4,5\",3",
    "\"{heap:0,take:1}\",150,75,0.300000,\"2,4,5\",1",
    "\"{heap:1,take:1}\",75,37,0.600000,\"2,3,5\",0",
    "\"{heap:0,take:3}\",525,262,0.700000,\"0,4,5\",2",
    "\"{heap:1,take:4}\",225,112,0.200000,\"0,0,5\",0",
    "\"{heap:2,take:1}\",225,112,0.800000,\"0,4,4\",0",
    "\"{heap:2,take:5}\",75,37,0.500000,\"3,4,0\",0",
  ].join("\n") + "\n");

  // Close: the command; the tree stays on screen to study; a second close is not_found.
  await tid(page, "an-close").click();
  await page.waitForFunction(() => document.querySelector("[data-testid=an-live-status]").dataset.status === "none");
  assert.deepEqual({ ...sent[sent.length - 1], id: 0 }, { type: "analyze_close", id: 0, analysis: "a1" });
  assert.equal((await canvas()).rootVisits, 750);
  // Leaving the page with an analysis running closes it.
  await tid(page, "an-start").click();
  await page.waitForFunction(() => document.querySelector("[data-testid=an-live-status]").dataset.status === "running");
  const closing = sentOf("analyze_close");
  await page.evaluate(() => { location.hash = "#/"; });
  assert.deepEqual({ ...(await closing), id: 0 }, { type: "analyze_close", id: 0, analysis: "a1" });
  await context.close();
}));

await run();
