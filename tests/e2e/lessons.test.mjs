// lessons.test.mjs: the lessons pages (#/lessons, #/lessons/<game>) in Chromium (locale
// en-US): the index lists every game; in each lesson the learner plays a key position and
// the perfect bot's answer (get_best_move) is the winning one: Nim's bot restores a
// nim-sum of 0, Wythoff's returns to a P-position, Thue's builder makes a square by the
// fifth symbol at k = 3, dots' bot double-deals two chains of three to win 4 to 2, and
// the other lessons judge their key positions as their sources do. Screenshots at
// 1280x800 and 390x844.
import { SHOTS, assert, launch, run, startServer, test } from "./lib.mjs";
import path from "node:path";

/** A page of the server's client at a viewport, in American English. */
async function open(browser, server, hash, viewport = { width: 1280, height: 800 }) {
  const context = await browser.newContext({ viewport, locale: "en-US" });
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  page.on("pageerror", (e) => console.log(`[lessons] page error: ${e.message}`));
  page.on("console", (m) => { if (m.type() === "error") console.log(`[lessons] console: ${m.text()}`); });
  await page.goto(`${server.url}/${hash}`);
  return page;
}

const tid = (page, id) => page.getByTestId(id);

/** Waits until the board id is the learner's to play, and returns its state. */
async function myTurn(page, id) {
  await page.waitForFunction((id) => {
    const b = document.querySelector(`[data-testid="lesson-gboard-${id}"]`);
    return b && b.dataset.turn === "mine";
  }, id);
  return JSON.parse(await tid(page, `lesson-gboard-${id}`).getAttribute("data-state"));
}

async function shot(page, name) {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

const nimSum = (heaps) => heaps.reduce((a, b) => a ^ b, 0);

function wythoffP(x, y) {
  const [a, b] = x <= y ? [x, y] : [y, x];
  const n = b - a;
  return Math.floor(n * (1 + Math.sqrt(5)) / 2) === a;
}

let server, browser;

test("the index lists a lesson per game", async () => {
  const page = await open(browser, server, "#/lessons");
  await tid(page, "lesson-list").waitFor();
  for (const g of ["thue", "nim", "northcott", "rims", "circle", "wythoff", "dots"]) await tid(page, `lesson-link-${g}`).waitFor();
  await tid(page, "lesson-link-nim").click();
  await tid(page, "lesson-title").filter({ hasText: "Nim" }).waitFor();
  await page.context().close();
});

test("Nim: from 1, 2, 3 the bot restores a nim-sum of 0 after every move; from 3, 4, 5 the learner wins", async () => {
  const page = await open(browser, server, "#/lessons/nim");
  let st = await myTurn(page, "lose");
  assert(nimSum(st.heaps) === 0, "the key position has nim-sum 0");
  await tid(page, "lesson-status-lose").filter({ hasText: "nim-sum is 0" }).waitFor();
  // Take 1 from the heap of 3: the bot answers.
  await page.locator('[data-testid="lesson-gboard-lose"] [data-testid="token-2-2"]').click();
  st = await myTurn(page, "lose");
  assert(st.moves === 2, `one move each (${st.moves})`);
  assert(nimSum(st.heaps) === 0, `the bot restored nim-sum 0: ${st.heaps}`);
  assert((await tid(page, "lesson-bot-lose").getAttribute("data-value")) === "1", "the bot knows it wins");
  // The working under the board: each heap in binary and the nim-sum, 0 again.
  assert((await tid(page, "lesson-working-lose").getAttribute("data-sum")) === "0", "the working shows nim-sum 0");
  await tid(page, "lesson-working-lose").filter({ hasText: "nim-sum: 00 (0)" }).waitFor();
  // The winning board: play the nim-sum strategy to the end and win.
  await shot(page, "lessons-nim-1280");
  for (let i = 0; i < 20; i++) {
    st = await myTurn(page, "win");
    const s = nimSum(st.heaps);
    assert(s !== 0, `the bot left a nonzero nim-sum (${st.heaps})`);
    const h = st.heaps.findIndex((x) => (x ^ s) < x);
    const take = st.heaps[h] - (st.heaps[h] ^ s);
    await page.locator(`[data-testid="lesson-gboard-win"] [data-testid="token-${h}-${st.heaps[h] - take}"]`).click();
    if (st.heaps.reduce((a, b) => a + b, 0) === take) break;
  }
  await page.waitForFunction(() => document.querySelector('[data-testid="lesson-status-win"]').dataset.result === "won");
  await page.context().close();
});

test("Wythoff: from (4, 7) the bot moves back to a P-position; the three methods agree", async () => {
  const page = await open(browser, server, "#/lessons/wythoff");
  let st = await myTurn(page, "lose");
  assert(wythoffP(st.heaps[0], st.heaps[1]), "(4, 7) is a P-position");
  await page.locator('[data-testid="lesson-gboard-lose"] [data-testid="wy-4-5"]').click();
  st = await myTurn(page, "lose");
  assert(st.moves === 2 && wythoffP(st.heaps[0], st.heaps[1]), `the bot reached a P-position: ${st.heaps}`);
  const rows = await page.locator('[data-testid="wythoff-table"] tbody tr').allTextContents();
  assert(rows.length === 14, "fourteen rows");
  for (const r of rows) {
    const pairs = r.match(/\(\d+, \d+\)/g);
    assert(pairs.length === 3 && pairs[0] === pairs[1] && pairs[1] === pairs[2], `the methods agree: ${r}`);
  }
  assert(rows[5].includes("(8, 13)"), "the fifth pair is (8, 13)");
  await tid(page, "wythoff-time").click();
  await tid(page, "wythoff-timing").filter({ hasText: "n = 20,000" }).waitFor();
  await page.context().close();
});

test("Thue: at k = 3 the perfect builder makes a square by the fifth symbol, whatever the learner paints; k = 4 gives 5 points", async () => {
  const page = await open(browser, server, "#/lessons/thue");
  const status = tid(page, "lesson-status-k3-paint");
  for (let n = 0; n < 10; n++) {
    await page.waitForFunction(() => {
      const b = document.querySelector('[data-testid="lesson-gboard-k3-paint"]');
      return b && (b.dataset.turn === "mine" || b.dataset.turn === "over");
    });
    if ((await tid(page, "lesson-gboard-k3-paint").getAttribute("data-turn")) === "over") break;
    // The first symbol not marked as making a square at once (the best the painter can
    // do locally); the bot still forces one by the fifth symbol.
    const safe = page.locator('[data-testid^="lesson-paint-k3-paint-"]:not(.losing):not([disabled])');
    if (await safe.count()) await safe.first().click();
    else await page.locator('[data-testid^="lesson-paint-k3-paint-"]:not([disabled])').first().click();
  }
  const word = await tid(page, "lesson-gboard-k3-paint").getAttribute("data-word");
  const points = Number(await status.getAttribute("data-result"));
  assert(word.length === 5 && points === 3, `the square comes with the fifth symbol (${word}, ${points} points)`);
  await page.waitForFunction(() => document.querySelector('[data-testid="lesson-status-k4-paint"]').dataset.points === "5");
  await page.waitForFunction(() => document.querySelector('[data-testid="lesson-status-k3-build"]').dataset.points === "3");
  await shot(page, "lessons-thue-1280");
  await page.context().close();
});

test("Dots: the bot double-deals two chains of three and wins 4 to 2", async () => {
  const page = await open(browser, server, "#/lessons/dots");
  await myTurn(page, "chains");
  await page.locator('[data-testid="lesson-gboard-chains"] [data-testid="line-v-0-0"]').click();
  for (let i = 0; i < 12; i++) {
    const turn = await page.waitForFunction(() => {
      const b = document.querySelector('[data-testid="lesson-gboard-chains"]');
      return b && (b.dataset.turn === "mine" || b.dataset.turn === "over") && b.dataset.turn;
    });
    if ((await turn.jsonValue()) === "over") break;
    await page.locator('[data-testid="lesson-gboard-chains"] button[data-testid^="line-"]:not([disabled])').first().click();
  }
  const st = JSON.parse(await tid(page, "lesson-gboard-chains").getAttribute("data-state"));
  assert(st.score[1] === 4 && st.score[0] === 2, `4 to 2 for the bot: ${st.score}`);
  await tid(page, "lesson-status-chains").filter({ hasText: "you 2, the bot 4" }).waitFor();
  await page.context().close();
});

test("Northcott, Rims and the circle game: each key position judged as its source says", async () => {
  for (const [game, id, value] of [["northcott", "gaps", "1"], ["rims", "lose", "-1"], ["rims", "win", "1"], ["circle", "pairs", "1"]]) {
    const page = await open(browser, server, `#/lessons/${game}`);
    await myTurn(page, id);
    await page.waitForFunction(([id, value]) => document.querySelector(`[data-testid="lesson-status-${id}"]`).dataset.value === value, [id, value]);
    if (game === "northcott") {
      // Close the middle row's gap (the winning move): the bot's answer leaves the learner winning.
      await page.locator('[data-testid="lesson-gboard-gaps"] [data-testid="sq-1-1"]').click();
      await page.locator('[data-testid="lesson-gboard-gaps"] [data-testid="sq-1-3"]').click();
      const st = await myTurn(page, id);
      assert(st.moves === 2, "one move each");
      await page.waitForFunction(() => document.querySelector('[data-testid="lesson-status-gaps"]').dataset.value === "1");
    }
    await page.context().close();
  }
});

test("screenshots at 390x844", async () => {
  for (const g of ["nim", "thue"]) {
    const page = await open(browser, server, `#/lessons/${g}`, { width: 390, height: 844 });
    await tid(page, "lesson-title").waitFor();
    await page.waitForFunction(() => [...document.querySelectorAll(".lesson-status")].every((s) => s.textContent && !s.textContent.includes("thinking")));
    await shot(page, `lessons-${g}-390`);
    await page.context().close();
  }
  console.log(`screenshots in ${SHOTS}`);
});

test("the browser and the server stop", async () => {
  await browser.close();
  await server.stop();
});

server = await startServer(); // the server's default limits: the page must live with them
browser = await launch();
await run();
