// analysis.test.mjs: the analysis page (#/analysis, clients/web/analysis.js) in Chromium,
// with tree files: docs/uct.md's CSV example and a 20,000-iteration tree made here by
// the CLI (`thue bestmove ... --tree`, in both formats). The page must show the file's
// own node count, root visits and best move (the CLI's move), export the very bytes it
// loaded (CSV and .tree, and the CSV of a binary file equal to the CLI's CSV), refuse a
// broken file naming the byte while keeping its tree, walk and fold the tree by keyboard
// and mouse, and fit a desktop and a phone screen (screenshots written). The live part
// (the server's `analyze`) is tests/e2e/analysis_live.test.mjs. Run:
//   node tests/e2e/analysis.test.mjs --server build/server/thue-server
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test, run, tid, SHOTS, withWorld, newPage, enter } from "./lib.mjs";
import { SERVER, player } from "../integration/lib.mjs";
import { createGameRoom } from "./gameslib.mjs";

const CLI = process.env.THUE_CLI || (SERVER ? path.resolve(path.dirname(SERVER), "..", "clients", "cli", "thue") : "");
const DIR = process.env.THUE_SHOTS || SHOTS;
const WORK = fs.mkdtempSync(path.join(os.tmpdir(), "thue-analysis-"));
const DOC = fs.readFileSync(new URL("../../docs/uct.md", import.meta.url), "utf8");

/** docs/uct.md's CSV example (the indented block after "Example (`thue bestmove"). */
function docCsv() {
  const at = DOC.indexOf("    move,visits,visits2,payoff,state,children", DOC.indexOf("Example (`thue bestmove"));
  const lines = [];
  for (const l of DOC.slice(at).split("\n")) { if (!l.startsWith("    ")) break; lines.push(l.slice(4)); }
  return lines.join("\n") + "\n";
}

/** A tree from the CLI: {json, file}; the same search for the same seed every time. */
function cliTree(name) {
  assert.ok(CLI && fs.existsSync(CLI), `the thue CLI at ${CLI} (next to the server's build)`);
  const file = path.join(WORK, name);
  const r = spawnSync(CLI, ["bestmove", "0102", "--k", "5", "--role", "builder", "--bot", "uct:iterations=20000", "--seed", "7", "--tree", file, "--json"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return { json: JSON.parse(r.stdout), file };
}

/** The CSV's own numbers, read without the page's code: rows, root visits, the root's most
 * visited child (rows at depth 1 follow from the child counts). */
function csvFacts(text) {
  const rows = text.trim().split("\n").slice(1).map((l) => {
    const f = l.match(/("[^"]*"|[^,]*)(?:,|$)/g).map((x) => x.replace(/,$/, "").replace(/^"|"$/g, ""));
    return { move: f[0], visits: Number(f[1]), children: Number(f[5]) };
  });
  const depth1 = [];
  const stack = [];
  rows.forEach((r, i) => {
    if (i > 0) {
      if (stack.length === 1) depth1.push(r);
      stack[stack.length - 1]--;
    }
    if (r.children) stack.push(r.children);
    while (stack.length && stack[stack.length - 1] === 0) stack.pop();
  });
  const best = depth1.reduce((b, r) => (!b || r.visits > b.visits ? r : b), null);
  return { nodes: rows.length, rootVisits: rows[0].visits, best: best ? best.move : "", bestVisits: best ? best.visits : 0 };
}

async function openPage(browser, server, { width = 1280, height = 800, touch = false } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, hasTouch: touch, isMobile: touch, acceptDownloads: true });
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  page.on("pageerror", (e) => console.log(`[analysis] page error: ${e.message}`));
  await page.goto(server.url + "/#/analysis");
  await page.locator("[data-testid=an-canvas][data-ready='1']").waitFor();
  return page;
}

async function load(page, file) {
  const before = await tid(page, "an-status").textContent();
  await tid(page, "an-file").setInputFiles(file);
  await page.waitForFunction((b) => document.querySelector("[data-testid=an-status]").textContent !== b ||
    document.querySelector("[data-testid=an-file-error]").textContent !== "", before);
}

async function shown(page) {
  return page.locator("[data-testid=an-canvas]").evaluate((c) => ({ nodes: Number(c.dataset.nodes), rootVisits: Number(c.dataset.rootVisits), best: c.dataset.best, drawn: Number(c.dataset.shown) }));
}

async function exported(page, which) {
  const [dl] = await Promise.all([page.waitForEvent("download"), tid(page, which).click()]);
  return fs.readFileSync(await dl.path());
}

test("tree files: the counts, root visits and best move shown are the file's; export gives back its bytes", () => withWorld(async (browser, server) => {
  const page = await openPage(browser, server);
  // docs/uct.md's example.
  const doc = path.join(WORK, "tiny.csv");
  fs.writeFileSync(doc, docCsv());
  await load(page, doc);
  assert.deepEqual(await shown(page), { nodes: 4, rootVisits: 3, best: "s1", drawn: 4 });
  assert.match(await tid(page, "an-status").textContent(), /tiny\.csv \(CSV\): 4 nodes · root visits 3 · best move s1/);
  assert.deepEqual(await exported(page, "an-export-csv"), fs.readFileSync(doc));

  // 20,000 iterations from the CLI, in both formats.
  const csv = cliTree("t.csv");
  const bin = cliTree("t.tree");
  const text = fs.readFileSync(csv.file, "utf8");
  const facts = csvFacts(text);
  const want = { nodes: facts.nodes, rootVisits: facts.rootVisits, best: facts.best, drawn: facts.nodes };
  assert.equal(facts.nodes, csv.json.nodes, "the CLI's node count is the file's rows");
  assert.equal(facts.rootVisits, 20000);
  assert.equal(facts.best, `p${csv.json.move}`, "the file's most visited root child is the CLI's move");
  await load(page, csv.file);
  assert.deepEqual(await shown(page), want);
  assert.deepEqual(await exported(page, "an-export-csv"), fs.readFileSync(csv.file));
  // (Its .tree is not the CLI's: the CSV holds payoffs to 6 decimals, the .tree exactly.)
  await load(page, bin.file);
  assert.deepEqual(await shown(page), want);
  assert.match(await tid(page, "an-status").textContent(), /t\.tree \(binary\): 20001 nodes/);
  assert.deepEqual(await exported(page, "an-export-tree"), fs.readFileSync(bin.file));
  assert.deepEqual(await exported(page, "an-export-csv"), fs.readFileSync(csv.file), "the binary tree as CSV is the CLI's CSV");

  // A broken file: refused with its byte named, the tree on screen kept.
  const broken = path.join(WORK, "broken.tree");
  fs.writeFileSync(broken, fs.readFileSync(bin.file).subarray(0, 1000));
  await load(page, broken);
  assert.match(await tid(page, "an-file-error").textContent(), /^broken\.tree: byte \d+: /);
  assert.equal((await shown(page)).nodes, facts.nodes);
  const junk = path.join(WORK, "junk.csv");
  fs.writeFileSync(junk, "move,visits,visits2,payoff,state,children\nroot,1,0,0.5,x,1\n");
  await load(page, junk);
  assert.match(await tid(page, "an-file-error").textContent(), /^junk\.csv: line 3: the file ends with 1 node missing/);

  // The keyboard: the tree walks from the root down the best line, Enter folds a subtree.
  await page.locator("[data-testid=an-canvas]").focus();
  await page.keyboard.press("ArrowDown");
  assert.equal(await tid(page, "an-d-move").textContent(), facts.best);
  assert.equal(await tid(page, "an-d-visits").textContent(), String(facts.bestVisits));
  assert.equal(await tid(page, "an-d-to-move").textContent(), "the painter (by the state name)");
  await page.keyboard.press("Enter");
  const folded = await shown(page);
  assert.ok(folded.drawn < facts.nodes && folded.drawn > 1, `folding the best child draws fewer nodes (${folded.drawn})`);
  assert.equal(folded.nodes, facts.nodes, "folding hides, it does not drop");
  assert.match(await tid(page, "an-toggle").textContent(), /Expand/);
  await tid(page, "an-toggle").click();
  assert.equal((await shown(page)).drawn, facts.nodes);
  assert.match(await tid(page, "an-toggle").textContent(), /Collapse/);
  await page.locator("[data-testid=an-canvas]").focus();
  await page.keyboard.press("ArrowUp");
  assert.equal(await tid(page, "an-d-move").textContent(), "(the root)");
  assert.equal(await tid(page, "an-d-visits").textContent(), "20000");

  // The mouse: with the best child selected (keyboard), a click on the root shows its
  // details, a second click folds it (one node drawn), a third unfolds it.
  await page.keyboard.press("ArrowDown");
  const canvas = page.locator("[data-testid=an-canvas]");
  await canvas.scrollIntoViewIfNeeded();
  await tid(page, "an-zoom-in").click();
  await tid(page, "an-fit").click();
  const box = await canvas.boundingBox();
  const at = (key) => page.evaluate((k) => window.thueAnalysis.nodeAt(k), key);
  const root = await at("");
  assert.ok(root.x > 0 && root.x < box.width && root.y > 0 && root.y < box.height, "the fitted root is on the canvas");
  assert.equal(await tid(page, "an-d-move").textContent(), facts.best);
  await page.mouse.click(box.x + root.x, box.y + root.y);
  assert.equal(await tid(page, "an-d-move").textContent(), "(the root)");
  await page.mouse.click(box.x + root.x, box.y + root.y);
  assert.equal((await shown(page)).drawn, 1, "a second click folds the root");
  await page.mouse.click(box.x + root.x, box.y + root.y);
  assert.equal((await shown(page)).drawn, facts.nodes, "a third unfolds it");
  // A drag pans: the root moves with the mouse.
  await page.mouse.move(box.x + 50, box.y + 50);
  await page.mouse.down();
  await page.mouse.move(box.x + 90, box.y + 70, { steps: 4 });
  await page.mouse.up();
  const moved = await at("");
  assert.ok(Math.abs(moved.x - root.x - 40) < 1 && Math.abs(moved.y - root.y - 20) < 1, `the drag moved the root by (40, 20): ${JSON.stringify([root, moved])}`);
  assert.equal(await tid(page, "an-d-move").textContent(), "(the root)", "a drag selects nothing");
  // A pinch (two pointers moving apart) zooms about their middle; the wheel zooms too.
  const dist = async () => { const [r0, c0] = [await at(""), await at(`/${facts.best}`)]; return Math.abs(c0.x - r0.x); };
  const d0 = await dist();
  await canvas.evaluate((c) => {
    const b = c.getBoundingClientRect();
    const ev = (type, id, x, y) => c.dispatchEvent(new PointerEvent(type, { pointerId: id, clientX: b.left + x, clientY: b.top + y, bubbles: true, isPrimary: id === 1, pointerType: "touch" }));
    ev("pointerdown", 1, 200, 200); ev("pointerdown", 2, 300, 200);
    ev("pointermove", 2, 400, 200); // the fingers' distance doubles
    ev("pointerup", 1, 200, 200); ev("pointerup", 2, 400, 200);
  });
  const d1 = await dist();
  assert.ok(Math.abs(d1 / d0 - 2) < 0.01, `the pinch doubled the zoom across (${d0} -> ${d1})`);
  await page.mouse.move(box.x + 100, box.y + 100);
  await page.mouse.wheel(0, 200);
  // (The wheel's event arrives on its own time: wait for the zoom it makes.)
  await page.waitForFunction(([k, d]) => { const a = window.thueAnalysis.nodeAt(""), b = window.thueAnalysis.nodeAt(k); return Math.abs(b.x - a.x) < d * 0.9; }, [`/${facts.best}`, d1]);
  await page.context().close();
}));

test("a tree of 50,000 nodes (a path 5,000 deep among them): loaded, drawn, folded, exported", () => withWorld(async (browser, server) => {
  // Made here with treefile.js's writer (its bytes are checked against the docs' in treefile.test.mjs).
  const { writeBinary } = await import("../../clients/web/treefile.js");
  let seed = 3;
  const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  const root = { move: null, state: "root", visits: 0, visits2: 0, payoff: 0.5, children: [] };
  const all = [root];
  for (let i = 1; i < 50000; i++) {
    const parent = i < 5000 ? all[i - 1] : all[Math.floor(rand() * all.length)];
    const v = { move: `m${parent.children.length}`, state: `s${i}`, visits: 1 + Math.floor(rand() * 100), visits2: 0, payoff: rand(), children: [] };
    parent.children.push(v);
    all.push(v);
  }
  root.visits = root.children.reduce((t, c) => t + c.visits, 0);
  const file = path.join(WORK, "big.tree");
  fs.writeFileSync(file, writeBinary(root));
  const page = await openPage(browser, server);
  await load(page, file);
  const s = await shown(page);
  assert.equal(s.nodes, 50000);
  assert.equal(s.drawn, 50000);
  assert.equal(s.rootVisits, root.visits);
  assert.ok(Number(await page.locator("[data-testid=an-canvas]").getAttribute("data-drawn")) > 0, "something is on the canvas");
  await page.locator("[data-testid=an-canvas]").focus();
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  assert.ok((await shown(page)).drawn < 50000, "folding the best child hides its subtree");
  assert.deepEqual(await exported(page, "an-export-tree"), fs.readFileSync(file));
  const csv = await exported(page, "an-export-csv");
  assert.equal(csv.toString().split("\n").length - 2, 50000);
  await page.context().close();
}));

test("the page fits a desktop and a phone screen (screenshots written)", () => withWorld(async (browser, server) => {
  const csv = cliTree("s.csv");
  for (const [label, width, height, touch] of [["desktop", 1280, 800, false], ["phone", 390, 844, true]]) {
    const page = await openPage(browser, server, { width, height, touch });
    await load(page, csv.file);
    await page.locator("[data-testid=an-canvas]").focus();
    await page.keyboard.press("ArrowDown");
    await page.waitForFunction(() => Number(document.querySelector("[data-testid=an-canvas]").dataset.drawn) > 0);
    const r = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: innerWidth }));
    assert.ok(r.scroll <= r.width, `analysis (${label}): ${r.scroll} px wide on a ${r.width} px screen`);
    fs.mkdirSync(DIR, { recursive: true });
    await page.screenshot({ path: path.join(DIR, `screen-analysis-${label}.png`), fullPage: true });
    await page.context().close();
  }
  console.log(`     screenshots in ${DIR}`);
}));

/** The analysis address's query: game, options, position (parsed) and room. */
async function analyseLink(page, testid) {
  const href = await tid(page, testid).getAttribute("href");
  assert.match(href, /^#\/analysis\?/);
  const q = new URLSearchParams(href.split("?")[1]);
  return { href, game: q.get("game"), options: q.get("options") && JSON.parse(q.get("options")), position: q.get("position") && JSON.parse(q.get("position")), room: q.get("room") };
}

test("entry points: a spectator's Analyse link, a player's only after the match, the replay's at any move", () => withWorld(async (browser, server) => {
  const ann = await player(server, "Ann");
  const room = (await ann.ok({ type: "create_room", game: "nim", game_options: { heaps: [3, 4, 5] }, first_builder: "creator" })).room;
  const bobPage = await newPage(browser, server, "Bob");
  await enter(bobPage, "Bob");
  await bobPage.evaluate((r) => { location.hash = `#/room/${r}`; }, room); // no invite: Bob watches
  await tid(bobPage, "game").waitFor();
  assert.equal(await tid(bobPage, "analyse").isHidden(), true, "no match yet, nothing to analyse");
  const sue = await player(server, "Sue");
  await sue.ok({ type: "join", room });
  await ann.ok({ type: "ready", room });
  await sue.ok({ type: "ready", room });
  await ann.ok({ type: "move", room, move: { heap: 0, take: 1 } });
  await bobPage.waitForFunction(() => document.querySelector("[data-testid=gboard]").dataset.moves === "1");
  const spect = await analyseLink(bobPage, "analyse");
  assert.equal(spect.game, "nim");
  assert.equal(spect.room, room, "a running match: the room's own position is offered");
  assert.deepEqual(spect.options, { heaps: [3, 4, 5], misere: false });
  assert.deepEqual(spect.position.heaps, [2, 4, 5]);
  assert.equal(spect.position.moves, 1);
  await tid(bobPage, "analyse").click();
  await bobPage.locator("[data-testid=an-canvas][data-ready='1']").waitFor();
  assert.equal(await tid(bobPage, "an-use-room").isChecked(), true);
  assert.equal(await tid(bobPage, "an-use-room").getAttribute("value"), room);
  assert.deepEqual(JSON.parse(await tid(bobPage, "an-position").inputValue()), spect.position);
  assert.equal(await tid(bobPage, "an-game").inputValue(), "nim");
  assert.equal(await tid(bobPage, "ao-heaps").inputValue(), "3 4 5");
  assert.ok(await bobPage.locator("[data-testid=an-board] *").count() > 3, "the position drawn");

  // A player: no link while the match runs; after it (Ann resigns), the final position.
  const annPage = await newPage(browser, server, "Cid");
  await enter(annPage, "Cid");
  const room2 = await createGameRoom(annPage, "nim", { heaps: "1 2" });
  const cid = await player(server, "Dee");
  await cid.ok({ type: "join", room: room2 });
  await tid(annPage, "ready").click();
  await cid.ok({ type: "ready", room: room2 });
  await annPage.waitForFunction(() => document.querySelector("[data-testid=gboard]") && !document.querySelector("[data-testid=gboard]").hidden && document.querySelector("[data-testid=gboard]").dataset.moves === "0");
  assert.equal(await tid(annPage, "analyse").isHidden(), true, "a player may not analyse a running match");
  await cid.ok({ type: "resign", room: room2 });
  await tid(annPage, "result").waitFor();
  await tid(annPage, "analyse").waitFor();
  // The room's state says "over" at once; match_end (with the id) follows once the store has
  // the record, and the link turns to the stored match then.
  await annPage.waitForFunction(() => /[?&]match=/.test(document.querySelector("[data-testid=analyse]").getAttribute("href")));
  const after = await tid(annPage, "analyse").getAttribute("href");
  assert.match(after, /^#\/analysis\?match=[^&]+$/, "a finished match: the stored match (at its last move), no room");

  // The replay of a stored match: the link follows the step (the move after it).
  await cid.ok({ type: "leave", room: room2 });
  await ann.ok({ type: "resign", room });
  const me = await ann.next((m) => m.type === "match_end" && m.room === room, "match_end");
  assert.ok(me.match_id, "the match is stored");
  await bobPage.evaluate((id) => { location.hash = `#/match/${id}`; }, me.match_id);
  await tid(bobPage, "replay-board").waitFor();
  const at = async () => new URLSearchParams((await tid(bobPage, "replay-analyse").getAttribute("href")).split("?")[1]);
  assert.equal((await at()).get("match"), me.match_id);
  assert.equal((await at()).get("at"), "1", "the last step: its one move, Ann's");
  await tid(bobPage, "replay-first").click();
  assert.equal((await at()).get("at"), "1", "the start: the first move");
  await tid(bobPage, "replay-analyse").click();
  await bobPage.locator("[data-testid=an-canvas][data-ready='1']").waitFor();
  assert.equal(await bobPage.locator("[data-testid=an-use-room]").count(), 0);
  assert.deepEqual(JSON.parse(await tid(bobPage, "an-position").inputValue()), { heaps: [3, 4, 5], to_move: 0, moves: 0, nim_sum: 2 });
  assert.equal(await tid(bobPage, "an-moves").locator("li").allTextContents().then((x) => x.join("|")), "1. Ann took 1 from heap 1");
  await ann.close(); await sue.close(); await cid.close();

  // A broken address: each problem said, the blank form shown.
  await bobPage.evaluate(() => { location.hash = "#/analysis?game=chess&options=%7Bx&position=%5B1"; });
  await bobPage.locator("[data-testid=an-canvas][data-ready='1']").waitFor();
  assert.deepEqual(await tid(bobPage, "an-address-error").allTextContents(),
    ["The address names no game \"chess\".", "The address's options is not JSON.", "The address's position is not JSON."]);
  assert.equal(await tid(bobPage, "an-game").inputValue(), "thue", "a bad address opens on Thue, as a bare one does");
}));

await run();
