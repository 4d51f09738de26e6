// analysis_match.test.mjs: "Analyse" after a match, as a player meets it (issue 30, flow
// 5). Ann plays Nim in Chromium against Bob (a WebSocket client) from heaps 1 and 3 and
// blunders on her first move (1 from heap 2, where 2 from heap 2 wins); Bob wins. Her
// Analyse button then opens the analysis page on the stored match, not on its final
// position: the moves as the board writes them (heaps counted from 1), the last one
// picked and searched at once, the research settings folded away; picking her first move
// searches the position before it, and the page says the search prefers the winning move
// over hers. At desktop and phone sizes. Also: a bare #/analysis opens on Thue.
// Run:
//   node tests/e2e/analysis_match.test.mjs --server build/server/thue-server
import assert from "node:assert/strict";
import { test, run, newPage, enter, shot, tid, withWorld } from "./lib.mjs";
import { player } from "../integration/lib.mjs";
import { createGameRoom } from "./gameslib.mjs";

/** Ann's page after the match: its Analyse button pressed, the page on the match. */
async function playAndAnalyse(browser, server, size, names) {
  const [annName, bobName] = names;
  const page = await newPage(browser, server, annName);
  await page.setViewportSize(size);
  await enter(page, annName);
  const room = await createGameRoom(page, "nim", { heaps: "1 3" });
  const bob = await player(server, bobName);
  try {
    await bob.ok({ type: "join", room });
    await tid(page, "ready").click();
    await bob.ok({ type: "ready", room });
    const turn = (n) => page.waitForFunction((n) => {
      const b = document.querySelector("[data-testid=gboard]");
      return b && b.dataset.turn === "mine" && b.dataset.moves === String(n) && b.dataset.shown === String(n);
    }, n);
    await turn(0);
    assert.equal(await tid(page, "analyse").isHidden(), true, "no analysis for a player while the match runs");
    await tid(page, "token-1-2").click(); // the blunder: 1 from heap 2, leaving 1 and 2
    await bob.next((m) => m.type === "room_state" && m.room === room && m.match && m.match.state.moves === 1, "Ann's move");
    await bob.ok({ type: "move", room, move: { heap: 1, take: 1 } }); // 1 and 1: Bob wins
    await turn(2);
    await tid(page, "token-0-0").click();
    await bob.next((m) => m.type === "room_state" && m.room === room && m.match && m.match.state.moves === 3, "Ann's second move");
    await bob.ok({ type: "move", room, move: { heap: 1, take: 1 } });
    await tid(page, "result").waitFor();
    // match_end (with the stored match's id) follows the room's "over" once the store has it.
    await page.waitForFunction(() => /[?&]match=/.test(document.querySelector("[data-testid=analyse]").getAttribute("href") || ""));
    await tid(page, "analyse").click();
  } finally {
    await bob.close();
  }
  await page.locator("[data-testid=an-canvas][data-ready='1']").waitFor();
  return page;
}

const verdict = (page) => tid(page, "an-verdict").textContent();
const waitVerdict = (page, re) => page.waitForFunction((src) => new RegExp(src).test(document.querySelector("[data-testid=an-verdict]").textContent), re.source, { timeout: 20000 });

for (const [label, size] of [["desktop", { width: 1280, height: 800 }], ["phone", { width: 390, height: 844 }]]) {
  test(`${label}: Analyse after a match opens on its moves, the last picked and searched; a blunder is named`, () => withWorld(async (browser, server) => {
    const names = label === "desktop" ? ["Ann", "Bob"] : ["Ann2", "Bob2"];
    const page = await playAndAnalyse(browser, server, size, names);
    const q = new URLSearchParams(page.url().split("?")[1]);
    assert.ok(q.get("match"), "the address names the match");
    // The moves as the board writes them, heaps from 1; the last one picked.
    const moves = await tid(page, "an-moves").locator("li").allTextContents();
    assert.deepEqual(moves, [`1. ${names[0]} took 1 from heap 2`, `2. ${names[1]} took 1 from heap 2`,
      `3. ${names[0]} took 1 from heap 1`, `4. ${names[1]} took 1 from heap 2`]);
    assert.equal(await tid(page, "an-move-4").getAttribute("aria-current"), "step");
    // The research settings are folded away; the search started by itself.
    assert.equal(await page.locator("#an-research").evaluate((d) => d.open), false, "research settings folded");
    assert.equal(await tid(page, "an-iterations").isVisible(), false);
    // Move 4 had one legal move: the search agrees.
    await waitVerdict(page, /The search agrees/);
    assert.match(await verdict(page), new RegExp(`^Move 4: ${names[1]} took 1 from heap 2\\. The search agrees`));
    await shot(page, `analysis-match-${label}-last`);

    // Ann picks her first move: the position before it (heaps 1 and 3) is searched.
    await tid(page, "an-move-1").click();
    assert.equal(new URLSearchParams(page.url().split("?")[1]).get("at"), "1");
    assert.equal(await tid(page, "an-move-1").getAttribute("aria-current"), "step");
    assert.equal(await tid(page, "an-move-4").getAttribute("aria-current"), null);
    assert.equal(await page.locator("[data-testid=an-board] [data-testid=heap-1] .htoken:not(.ghost)").count(), 3, "the board: the start, 3 in heap 2");
    await waitVerdict(page, /prefers/);
    await page.waitForFunction(() => document.querySelector("[data-testid=an-live-status]").dataset.status === "done", null, { timeout: 30000 });
    await waitVerdict(page, /prefers the move that took 2 from heap 2/); // the one winning move (nim-sum 0 after it)
    const v = await verdict(page);
    assert.match(v, new RegExp(`^Move 1: ${names[0]} took 1 from heap 2\\. The search prefers the move that took 2 from heap 2 \\(\\d+ % of the search's visits, scoring [01]\\.\\d\\d for ${names[0]}\\); ${names[0]}'s move had \\d+ %`));
    assert.equal(await tid(page, "an-live-status").getAttribute("data-best"), "{heap:1,take:2}");
    assert.match(await tid(page, "an-live-status").textContent(), /best move took 2 from heap 2/);
    assert.doesNotMatch(await tid(page, "an-live-status").textContent(), /\{heap/, "moves in words, not JSON");
    await shot(page, `analysis-match-${label}-blunder`);
    // The research settings open on request, with the picked position in them.
    await page.locator("#an-research summary").click();
    assert.equal(await tid(page, "an-iterations").isVisible(), true);
    assert.deepEqual(JSON.parse(await tid(page, "an-position").inputValue()).heaps, [1, 3]);
    if (label === "phone") {
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `the page fits the phone's width (overflow ${overflow} px)`);
    }
  }));
}

test("a bare #/analysis opens on Thue, its settings open, with a pointer to one's matches", () => withWorld(async (browser, server) => {
  const page = await newPage(browser, server, "Cy");
  await page.evaluate(() => { location.hash = "#/analysis"; });
  await page.locator("[data-testid=an-canvas][data-ready='1']").waitFor();
  assert.equal(await tid(page, "an-game").inputValue(), "thue");
  assert.equal(await page.locator("#an-research").evaluate((d) => d.open), true);
  assert.equal(await tid(page, "an-verdict").isHidden(), true);
  assert.equal(await page.locator("#page-body a[href='#/matches']").count(), 1);
}));

await run();
