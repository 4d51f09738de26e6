// board.test.mjs: the key moments shown on the board itself (issue 16): the newest symbol
// ringed where it went, a round not yet played said to be so, the result winner first
// with the winner's points first, a loss not in the winning colour, the replay crediting
// points to the painter. Two people play a short, fully determined match by clicks. Run:
//   node tests/e2e/board.test.mjs --server build/server/thue-server
import {
  test, run, newPage, enter, createRoom, paint, shot, tid, withWorld, installHitProbe,
} from "./lib.mjs";
import assert from "node:assert/strict";

function tilesOf(page) {
  return page.locator("[data-testid=word] .tile").allTextContents();
}

async function waitWord(page, text) {
  await page.waitForFunction((t) => [...document.querySelectorAll("[data-testid=word] .tile")]
    .map((e) => e.textContent).join("") === t, text);
}

/** The indexes of the tiles ringed as the newest. */
function newestOf(page) {
  return page.evaluate(() => [...document.querySelectorAll("[data-testid=word] .tile")]
    .map((e, i) => (e.classList.contains("newest") ? i : -1)).filter((i) => i >= 0));
}

async function placeAt(page, gap) {
  await page.locator(`[data-testid=gap-${gap}]:not([disabled])`).click();
}

/** Eve and Finn in Eve's room (k = 3, to 5 points, Eve builds first), both ready. */
async function eveAndFinn(browser, server) {
  const eve = await newPage(browser, server, "eve");
  const finn = await newPage(browser, server, "finn");
  await enter(eve, "Eve");
  await enter(finn, "Finn");
  const room = await createRoom(eve, { k: 3, limit: 5, first: "creator" });
  await tid(finn, "join-room").fill(room);
  await tid(finn, "join").click();
  await tid(eve, "ready").click();
  await tid(finn, "ready").click();
  return [eve, finn];
}

test("the newest symbol is ringed, round 2 is not 'playing' early, the result names the winner first, the title and sound tell the turn", () => withWorld(async (browser, server) => {
  const [eve, finn] = await eveAndFinn(browser, server);

  // Round 1: Eve builds, Finn paints. The first word is "0". The tab's title says whose
  // move it is; Finn turns the sound on (a chime marks the switch, then each turn).
  await tid(eve, "round-1").filter({ hasText: "not started yet" }).waitFor();
  await eve.waitForFunction(() => document.title === "● Your turn · Thue game");
  assert.equal(await finn.title(), "Thue game");
  await tid(finn, "sound").check();
  const chimes = () => finn.evaluate(() => [Number(document.body.dataset.chimes || 0), document.body.dataset.lastChime]);
  assert.deepEqual(await chimes(), [1, "turn"]);
  assert(!/playing/.test(await tid(eve, "round-1").textContent()), "round 2 is not listed as playing");
  // On a desktop the gap under the pointer is the target: it widens and fills.
  const gapLook = () => eve.evaluate(() => {
    const g = getComputedStyle(document.querySelector("[data-testid=gap-0]"));
    return [parseFloat(g.width), g.backgroundColor];
  });
  const [w0, bg0] = await gapLook();
  await tid(eve, "gap-0").hover();
  const [w1, bg1] = await gapLook();
  assert(w1 > w0 + 5, `the hovered gap widens (${w0} -> ${w1} px)`);
  assert.notEqual(bg1, bg0, "and fills with the accent colour");
  await placeAt(eve, 0);
  await finn.waitForFunction(() => document.title === "● Your turn · Thue game");
  assert.deepEqual(await chimes(), [2, "turn"], "Finn's turn chimes once");
  await paint(finn, 1);
  for (const p of [eve, finn]) {
    await waitWord(p, "10");
    assert.deepEqual(await newestOf(p), [0], `${p.label}: the 1 painted at gap 0 is the newest`);
  }
  assert(/newest symbol: 1 at position 0/.test(await tid(eve, "tile-0").getAttribute("title")), "its title says so");
  // Placing at the end, then a 0: "100" ends round 1 with the square 00, Finn 1 point.
  await placeAt(eve, 2);
  await eve.locator("[data-testid=gap-2].placed").waitFor();
  assert.deepEqual(await newestOf(eve), [], "no newest tile while the next paint is awaited");
  await paint(finn, 0);

  // Round 1 is over: the board keeps its final word with the square outlined, under a
  // banner with the points, before round 2 is shown.
  await eve.locator("[data-testid=word][data-showing=round-1-final]").waitFor();
  assert.equal(await eve.locator("[data-testid=word] .tile.rep").count(), 2, "both halves of the square outlined on the board");
  assert.equal(await tid(eve, "round-banner").textContent(),
    "Round 1 over: Finn scored 1 point; a square (0 0) ended it. Round 2: Finn builds, Eve paints.");
  assert.equal(await finn.locator("[data-testid=word] .gap:not([disabled])").count(), 0, "no move during the pause");
  await shot(eve, "board-round-over");
  // Round 2: Finn builds, Eve paints; "0" then a 0 at the end is a square: Eve 0 points.
  await tid(finn, "round-0").filter({ hasText: "ended by a repetition" }).waitFor();
  await finn.locator("[data-testid=word][data-showing=current]").waitFor();
  await placeAt(finn, 1);
  await paint(eve, 0);
  await tid(eve, "result").waitFor();
  await tid(finn, "result").waitFor();
  const lost = await tid(eve, "result").locator("strong").textContent();
  const won = await tid(finn, "result").locator("strong").textContent();
  assert.equal(lost, "You lose. Finn wins 1–0 on points.", `Eve's result: ${lost}`);
  assert.equal(won, "You win! Finn wins 1–0 on points.", `Finn's result: ${won}`);
  assert.equal((await chimes())[1], "end", "the end chimes");
  assert.equal(await eve.locator("[data-testid=word] .tile.rep").count(), 2, "the last round's square outlined on the board");
  assert.match(await tid(eve, "round-banner").textContent(), /^Round 2 over: Eve scored 0 points; a square \(0 0\) ended it\.$/);
  assert.equal(await finn.title(), "Thue game", "no 'your turn' once the match is over");
  assert.equal(await tid(eve, "result").getAttribute("data-outcome"), "loss");
  assert.equal(await tid(finn, "result").getAttribute("data-outcome"), "win");
  const colours = await Promise.all([eve, finn].map((p) => p.evaluate(() =>
    getComputedStyle(document.querySelector("[data-testid=result]")).borderTopColor)));
  assert.notEqual(colours[0], colours[1], "a loss is not shown in the winning colour");
  await shot(eve, "board-eve-lost");
  await shot(finn, "board-finn-won");
  assert.equal(await eve.locator("footer a[href='/healthz']").count(), 0, "no /healthz link in the footer");

  // The replay credits each round's points to its painter, and words the result the same.
  await tid(eve, "replay-link").click();
  await tid(eve, "replay-final").waitFor();
  assert.equal(await tid(eve, "replay-score-0").textContent(), "Round 1: Finn paints: 1 pt (Eve builds)");
  assert.equal(await tid(eve, "replay-score-1").textContent(), "Round 2: Eve paints: 0 pt (Finn builds)");
  assert.equal(await tid(eve, "replay-final").textContent(), "Final: Finn wins 1–0 on points");
}));

test("a phone match with a 100-symbol word: 44 px gap targets, every 10th position numbered, scores, turn and palette in view, scroll back at round 2", () => withWorld(async (browser, server) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  const page = await context.newPage();
  page.setDefaultTimeout(10000);
  await page.goto(server.url + "/");
  await enter(page, "Pia");
  // Pia builds round 1, always at the end; greedy paints the lowest symbol that keeps the
  // word square-free, which with 8 symbols lasts 255 symbols. The word grows to the
  // points limit: 100 points, 101 symbols.
  await createRoom(page, { k: 8, limit: 100, first: "creator" });
  await tid(page, "bot-spec").selectOption("greedy");
  await tid(page, "bot-think").fill("10");
  await tid(page, "seat-bot").click();
  await tid(page, "seat-1").filter({ hasText: "greedy" }).waitFor();
  await tid(page, "ready").click();
  let checked = false;
  for (let n = 1; n <= 100; n++) {
    const gap = page.locator("[data-testid=word] .gap:not([disabled])").last();
    await gap.waitFor();
    assert.equal(await page.locator("[data-testid=word] .tile").count(), n, `${n} symbols before place ${n}`);
    if (n === 100) {
      // 100 symbols: the page scrolls (the word's end to the middle of the screen).
      assert.equal(await page.locator("[data-testid=word] .tile").count(), 100);
      await installHitProbe(page);
      const r = await page.evaluate(() => {
        const word = document.querySelector("[data-testid=word]");
        word.lastElementChild.scrollIntoView({ block: "center" });
        const rect = (sel) => document.querySelector(sel).getBoundingClientRect();
        const gaps = [...word.querySelectorAll(".gap")];
        // Each gap a 44 x 44 px target: taps 21 px around its centre land on it (those
        // on screen and not under the sticky bars).
        let probed = 0, missed = [];
        for (const e of gaps) {
          const ok = window.__hitProbe(e, 21);
          if (ok === null) continue;
          probed++;
          if (!ok) missed.push(e.dataset.testid);
        }
        return {
          scrollY: window.scrollY, width: document.documentElement.scrollWidth,
          head: rect("[data-testid=board-head]"), palette: rect("[data-testid=palette]"),
          turn: rect("[data-testid=turn]"), clockOrPoints: rect("[data-testid=points-0]"),
          tenth: [...word.querySelectorAll(".tile.tenth")].map((t) => t.dataset.pos),
          gapWidth: gaps[50].getBoundingClientRect().width, tileWidth: word.querySelectorAll(".tile")[50].getBoundingClientRect().width,
          probed, missed,
        };
      });
      console.log(`     100 symbols: page scrolled ${Math.round(r.scrollY)} px; gaps ${r.gapWidth} px wide between ${r.tileWidth} px tiles; ${r.probed} gaps probed, ${r.missed.length} missed`);
      assert(r.scrollY > 0, "a 100-symbol word is taller than the phone's screen");
      assert(r.width <= 390, `the page is ${r.width} px wide`);
      assert(r.gapWidth < r.tileWidth / 2, "gaps look narrow beside the tiles");
      assert(r.probed >= 20, `enough gaps probed (${r.probed})`);
      assert.deepEqual(r.missed, [], "every gap takes taps 21 px around its centre");
      assert.deepEqual(r.tenth, ["10", "20", "30", "40", "50", "60", "70", "80", "90", "100"]);
      assert(r.head.top >= 0 && r.head.top < 5, `the scores and turn stay at the top (${r.head.top})`);
      assert(r.turn.bottom <= r.head.bottom && r.clockOrPoints.top >= 0, "the turn line and the points are in the sticky bar");
      assert(r.palette.bottom <= 844 + 1, "the palette is in view");
      await shot(page, "board-phone-100");
      checked = true;
    }
    await gap.tap();
    if (n < 100) await page.locator(`[data-testid=word] .tile >> nth=${n}`).waitFor();
  }
  assert(checked);
  // Round 1 ends at 100 points; round 2 starts from one symbol at the top of the page.
  await tid(page, "round-0").filter({ hasText: "reached the points limit" }).waitFor();
  await page.waitForFunction(() => document.querySelectorAll("[data-testid=word] .tile").length === 1);
  assert.equal(await page.evaluate(() => window.scrollY), 0, "the page is scrolled back at round 2");
  await shot(page, "board-phone-round2");
}));

test("the opponent sees a rematch offer; a disconnected opponent's grace period counts down, then the match is won", () => withWorld(async (browser, server) => {
  const [eve, finn] = await eveAndFinn(browser, server);
  // Eve resigns at once; Finn asks for a rematch, and Eve sees the offer.
  await eve.locator("[data-testid=word] .gap:not([disabled])").first().waitFor();
  eve.once("dialog", (d) => d.accept());
  await tid(eve, "resign").click();
  await tid(finn, "rematch").click();
  await tid(eve, "rematch-offer").waitFor();
  assert.equal(await tid(eve, "rematch-offer").textContent(), "Finn offers a rematch: press Rematch to play again, roles swapped.");
  assert.equal(await tid(eve, "rematch").textContent(), "Accept the rematch");
  assert.equal(await tid(finn, "rematch-offer").count(), 0, "no offer shown to the one who asked");
  await shot(eve, "board-rematch-offer");
  await tid(eve, "rematch").click();
  // Match 2: Finn builds first; he disconnects (his tab closes) mid-match.
  await finn.locator("[data-testid=word] .gap:not([disabled])").first().waitFor();
  await finn.context().close();
  await tid(eve, "away-1").waitFor();
  const first = await tid(eve, "away-1").textContent();
  assert.match(first, /^0:0[0-4](\.\d)? to come back, or you win by abandonment$/, first);
  await shot(eve, "board-away");
  // The grace period runs out: the match is Eve's.
  await tid(eve, "result").waitFor({ timeout: 15000 });
  assert.match(await tid(eve, "result").locator("strong").textContent(), /^You win! Eve wins .*by abandonment\.$/);
}, ["--grace-s", "4"]));

await run();
