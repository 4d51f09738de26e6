// analysis_live.test.mjs: the analysis page's live part in Chromium against the real
// server (PROTOCOL.md "analyze"): a Nim position analysed with a fixed seed and iteration
// count shows the root visits and best move of `thue bestmove --game nim ... --seed S
// --json` (the same search), its tree exports as CSV with the live tree's numbers; a long
// analysis stops, resumes for more iterations and closes from the buttons; a seated
// player of a running match is refused with the server's words; a bad field is refused
// by the page naming it. Needs the server's analysis commands. Run:
//   node tests/e2e/analysis_live.test.mjs --server build/server/thue-server
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test, run, tid, withWorld, newPage, enter, createRoom, playToEnd, pageLoaded } from "./lib.mjs";
import { SERVER, player } from "../integration/lib.mjs";
import { createGameRoom } from "./gameslib.mjs";

const CLI = process.env.THUE_CLI || (SERVER ? path.resolve(path.dirname(SERVER), "..", "clients", "cli", "thue") : "");
const POSITION = { heaps: [3, 4, 5] };
const LONG = { heaps: [200, 300, 400, 100] }; // a thousand tokens: within the default options' bound
const ITERATIONS = 3000;
const SEED = 5;

/** The CLI's move for the position, and its whole search tree as CSV (--tree). */
function cliMove() {
  assert.ok(CLI && fs.existsSync(CLI), `the thue CLI at ${CLI}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thue-an-live-"));
  const csv = path.join(dir, "tree.csv");
  try {
    const r = spawnSync(CLI, ["bestmove", "--game", "nim", "--position", JSON.stringify(POSITION), "--bot", `uct:iterations=${ITERATIONS}`, "--seed", String(SEED), "--tree", csv, "--json"], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    return { move: JSON.parse(r.stdout).move, csv: fs.readFileSync(csv, "utf8") };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const moveName = (mv) => JSON.stringify(mv).replace(/"/g, "");
const status = (page) => page.locator("[data-testid=an-live-status]").evaluate((e) => ({ status: e.dataset.status, best: e.dataset.best, iterations: Number(e.dataset.iterations) }));
/** Waits for the live status `want`; a refusal shown meanwhile fails at once, with its words. */
async function waitStatus(page, want) {
  await page.waitForFunction((w) => document.querySelector("[data-testid=an-live-status]").dataset.status === w ||
    document.querySelector("[data-testid=an-live-error]").textContent !== "", want, { timeout: 60000 });
  const err = await tid(page, "an-live-error").textContent();
  assert.equal(err, "", `waiting for "${want}", the page says: ${err}`);
}

async function analysisPage(browser, server, name, hash) {
  const page = await newPage(browser, server, name);
  await enter(page, name);
  await page.evaluate((h) => { location.hash = h; }, hash);
  await page.locator("[data-testid=an-canvas][data-ready='1']").waitFor();
  return page;
}

test("a Nim position with a fixed seed: the CLI's root visits and best move; its export; stop, resume, close", () => withWorld(async (browser, server) => {
  const { move: want, csv: cliCsv } = cliMove();
  const page = await analysisPage(browser, server, "Ann", `#/analysis?game=nim&position=${encodeURIComponent(JSON.stringify(POSITION))}`);
  await tid(page, "an-iterations").fill(String(ITERATIONS));
  await tid(page, "an-seed").fill(String(SEED));
  await tid(page, "an-max-nodes").fill("50000"); // the whole tree, to compare with the CLI's
  await tid(page, "an-start").click();
  await waitStatus(page, "done");
  const st = await status(page);
  assert.equal(st.iterations, ITERATIONS);
  assert.equal(st.best, moveName(want), "the server's best move is the CLI's");
  const shown = await page.locator("[data-testid=an-canvas]").evaluate((c) => ({ rootVisits: Number(c.dataset.rootVisits), best: c.dataset.best, nodes: Number(c.dataset.nodes) }));
  assert.equal(shown.rootVisits, ITERATIONS, "the root's visits are the iterations");
  assert.equal(shown.best, moveName(want), "the tree's most visited root child is the CLI's move");
  assert.equal(shown.nodes, cliCsv.trim().split("\n").length - 1, "the whole tree is shown: as many nodes as the CLI's");
  assert.match(page.url(), /#\/analysis\?game=nim&options=.*&position=/, "the address names the analysed position");
  // The live tree as CSV: the same numbers, move names quoted (they hold commas), as the C exporter writes them.
  const [dl] = await Promise.all([page.waitForEvent("download"), tid(page, "an-export-csv").click()]);
  const rows = fs.readFileSync(await dl.path(), "utf8").trim().split("\n");
  assert.equal(rows[0], "move,visits,visits2,payoff,state,children");
  assert.equal(rows.length - 1, shown.nodes);
  assert.match(rows[1], new RegExp(`^root,${ITERATIONS},`));
  assert.ok(rows.some((r) => r.startsWith(`"${moveName(want)}",`)), "the best move's row");
  assert.equal(fs.readFileSync(await dl.path(), "utf8"), cliCsv, "the page's CSV is the CLI's --tree CSV, byte for byte");

  // A long analysis: stopped, resumed for 500 more iterations, closed. Of a position big
  // enough that 1,000,000 iterations take seconds (about 13 s here; [3, 4, 5]'s take
  // half a second, and the stop came after the end now and then).
  await page.evaluate((h) => { location.hash = h; }, `#/analysis?game=nim&position=${encodeURIComponent(JSON.stringify(LONG))}`);
  await page.waitForFunction((want) => document.querySelector("[data-testid=an-canvas]").dataset.ready === "1" && location.hash.includes(want), encodeURIComponent(JSON.stringify(LONG)));
  await tid(page, "an-iterations").fill("1000000");
  await tid(page, "an-start").click();
  // The status line shows the done analysis until the new one's reply comes: wait for
  // the new one (running), then for its first iterations.
  await page.waitForFunction(() => {
    const d = document.querySelector("[data-testid=an-live-status]").dataset;
    return d.status === "running" && Number(d.iterations) > 0;
  }, null, { timeout: 30000 });
  await tid(page, "an-stop").click();
  await waitStatus(page, "stopped");
  const stopped = await status(page);
  assert.ok(stopped.iterations > 0 && stopped.iterations < 1000000, `stopped after ${stopped.iterations} iterations`);
  assert.equal(await tid(page, "an-stop").isDisabled(), true);
  await tid(page, "an-more").fill("500");
  await tid(page, "an-resume").click();
  await waitStatus(page, "done");
  assert.equal((await status(page)).iterations, stopped.iterations + 500, "the same tree grew by 500 iterations");
  assert.equal(Number(await page.locator("[data-testid=an-canvas]").getAttribute("data-root-visits")), stopped.iterations + 500);
  await tid(page, "an-close").click();
  await waitStatus(page, "none");
  assert.equal(await tid(page, "an-close").isDisabled(), true);

  // A bad field: named by the page, nothing sent.
  await tid(page, "an-seed").fill("-1");
  await tid(page, "an-start").click();
  assert.match(await tid(page, "an-seed-err").textContent(), /seed is a whole number from 0 to 9007199254740991/);
  assert.equal((await status(page)).status, "none");
}));

test("a seated player of a running match is refused the room's analysis; a spectator is not", () => withWorld(async (browser, server) => {
  const page = await newPage(browser, server, "Cid");
  await enter(page, "Cid");
  const room = await createGameRoom(page, "nim", { heaps: "3 4 5" });
  const dee = await player(server, "Dee");
  await dee.ok({ type: "join", room });
  await tid(page, "ready").click();
  await dee.ok({ type: "ready", room });
  await page.waitForFunction(() => document.querySelector("[data-testid=gboard]").dataset.moves === "0");
  await page.evaluate((r) => { location.hash = `#/analysis?game=nim&room=${r}`; }, room);
  await page.locator("[data-testid=an-canvas][data-ready='1']").waitFor();
  await tid(page, "an-iterations").fill("200");
  await tid(page, "an-start").click();
  await page.locator("[data-testid=an-live-error]").filter({ hasText: /players may analyse once the match is over/ }).waitFor();
  assert.equal((await status(page)).status, "none");

  const spectator = await analysisPage(browser, server, "Eve", `#/analysis?game=nim&room=${room}`);
  await tid(spectator, "an-iterations").fill("200");
  await tid(spectator, "an-seed").fill("1");
  await tid(spectator, "an-start").click();
  await waitStatus(spectator, "done");
  assert.equal(Number(await spectator.locator("[data-testid=an-canvas]").getAttribute("data-root-visits")), 200);
  assert.deepEqual(JSON.parse(new URLSearchParams(spectator.url().split("?")[1]).get("position")).heaps, [3, 4, 5]);
  await dee.close();
}));

test("Thue: every step of a replay analyses (its position as position_parse reads it), and a finished room's", () => withWorld(async (browser, server) => {
  const page = await newPage(browser, server, "Tia");
  await enter(page, "Tia");
  await createRoom(page, { k: 3, limit: 5, first: "creator" });
  await tid(page, "bot-spec").selectOption("greedy");
  await tid(page, "bot-think").fill("10");
  await tid(page, "seat-bot").click();
  await tid(page, "seat-1").filter({ hasText: "greedy" }).waitFor();
  await tid(page, "ready").click();
  await playToEnd(page);
  // The finished room: its final position.
  await tid(page, "analyse").waitFor();
  const roomHref = await tid(page, "analyse").getAttribute("href");
  await tid(page, "replay-link").click();
  await tid(page, "replay-final").waitFor();
  const n = Number(await tid(page, "replay-pos").getAttribute("data-step"));
  const hrefs = new Set([roomHref]);
  for (let step = n; step >= 0; step--) {
    hrefs.add(await tid(page, "replay-analyse").getAttribute("href"));
    if (step) await tid(page, "replay-prev").click();
  }
  assert.ok(hrefs.size >= n, `${hrefs.size} positions for ${n + 1} steps`);
  for (const href of hrefs) {
    // The analysis page shown before (kept in the page's body under the lobby's "#/")
    // shows again while the new one loads: wait until the route has begun (its
    // hashchange, which marks the body not loaded) and ended, or its canvas and settings
    // are taken for the new page's and swapped out under the clicks (on a busy machine).
    await page.evaluate((h) => new Promise((resolve) => {
      window.addEventListener("hashchange", () => resolve(), { once: true });
      location.hash = h;
    }), href);
    await pageLoaded(page);
    await page.locator("[data-testid=an-canvas][data-ready='1']").waitFor();
    // The page opens on the match and searches the picked move's position at once; a
    // short search of the same position, from its research settings, replaces it.
    await page.locator("#an-research summary").click();
    await tid(page, "an-iterations").fill("30");
    await tid(page, "an-start").click();
    await page.waitForFunction(() => {
      const st = document.querySelector("[data-testid=an-live-status]").dataset;
      return (st.status === "done" && st.iterations === "30") || document.querySelector("[data-testid=an-live-error]").textContent !== "";
    }, null, { timeout: 30000 });
    assert.equal(await tid(page, "an-live-error").textContent(), "", `${decodeURIComponent(href)}`);
    await page.evaluate(() => { location.hash = "#/"; });
  }
}));

await run();
