// puzzles.test.mjs: the puzzle pages (clients/web/puzzles.js) in Chromium, locale en-US.
// A server makes its puzzles at start; on #/puzzles/nim one Nim puzzle is solved by
// clicking the token that makes the solution's move, and the next one is failed (a wrong
// move is said to be wrong, Try again gives the position back, Show the solution shows
// it); on #/puzzles/thue a Thue puzzle is solved (its gap or its symbol clicked) and the
// next one failed, then its solution shown; #/puzzles shows every game's puzzle of the day, the one GET /api/puzzles/daily
// names. Screenshots at 1280x800 and 390x844 go to the shots directory.
// Run: node tests/e2e/puzzles.test.mjs --server build/server/thue-server
import { test, run, shot, tid, assert, withWorld, launch, SHOTS } from "./lib.mjs";
import { get } from "../integration/lib.mjs";

const GAMES = ["thue", "nim", "circle", "northcott", "rims", "wythoff", "dots"];

async function waitForPuzzles(server, n) {
  const until = Date.now() + 60000;
  for (;;) {
    let short = false;
    for (const g of GAMES) if ((await get(server, `/api/puzzles?game=${g}`)).json.total < n) short = true;
    if (!short) return;
    assert(Date.now() < until, "puzzles generated in time");
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function openPage(browser, server, hash, viewport = { width: 1280, height: 800 }) {
  const context = await browser.newContext({ viewport, locale: "en-US" });
  const page = await context.newPage();
  page.setDefaultTimeout(10000);
  page.on("pageerror", (e) => console.log(`page error: ${e.message}`));
  await page.goto(`${server.url}/${hash}`);
  await page.waitForSelector('[data-testid="puzzles"][data-ready="1"]');
  return page;
}

/** The puzzle the page shows now (its id from the page, the rest from the API). */
async function shownPuzzle(page, server, within = "puzzle") {
  const id = await tid(page, within).getAttribute("data-id");
  const r = await get(server, `/api/puzzles/${id}`);
  assert(r.status === 200, `puzzle ${id}`);
  return r.json;
}

/** Clicks the Nim token that takes `take` from heap `heap` (take it and every token
 * after it). */
async function nimMove(page, pz, heap, take) {
  const h = pz.position.heaps[heap];
  await tid(page, `token-${heap}-${h - take}`).click();
}

test("a Nim puzzle solved, the next one failed, then its solution shown", async () => {
  await withWorld(async (browser, server) => {
    await waitForPuzzles(server, 8);
    const page = await openPage(browser, server, "#/puzzles/nim");
    const text = await tid(page, "puzzle-task").textContent();
    assert(/to move: find the only move that keeps the win\./.test(text), `task line: ${text}`);
    const pz = await shownPuzzle(page, server);
    assert(pz.game === "nim", "a Nim puzzle");
    await shot(page, "puzzles-nim-1280");
    await nimMove(page, pz, pz.solution.heap, pz.solution.take);
    await page.waitForSelector('[data-testid="puzzle"][data-mode="solved"]');
    const said = await tid(page, "puzzle-status").textContent();
    assert(said === "Solved! That is the only winning move.", `solved line: ${said}`);
    assert((await tid(page, "puzzle-pick-0").textContent()).includes("✓"), "the first puzzle ticked");
    await shot(page, "puzzles-nim-solved-1280");

    // The next one: a move that is not the solution.
    await tid(page, "puzzle-next").click();
    const pz2 = await shownPuzzle(page, server);
    assert(pz2.id !== pz.id, "another puzzle");
    let wrong = null;
    pz2.position.heaps.forEach((h, i) => {
      for (let take = 1; take <= h && !wrong; take++)
        if (!(i === pz2.solution.heap && take === pz2.solution.take)) wrong = [i, take];
    });
    assert(wrong, "a wrong move exists");
    await nimMove(page, pz2, wrong[0], wrong[1]);
    await page.waitForSelector('[data-testid="puzzle"][data-mode="wrong"]');
    assert((await tid(page, "puzzle-status").textContent()) === "Not that one: after this move the win is gone.", "wrong line");
    await shot(page, "puzzles-nim-wrong-1280");
    await tid(page, "puzzle-retry").click();
    await page.waitForSelector('[data-testid="puzzle"][data-mode="play"]');
    assert((await tid(page, `heap-${wrong[0]}`).getAttribute("data-size")) === String(pz2.position.heaps[wrong[0]]), "the position back");
    await nimMove(page, pz2, wrong[0], wrong[1]);
    await page.waitForSelector('[data-testid="puzzle"][data-mode="wrong"]');
    await tid(page, "puzzle-show").click();
    await page.waitForSelector('[data-testid="puzzle"][data-mode="shown"]');
    const after = pz2.position.heaps[pz2.solution.heap] - pz2.solution.take;
    assert((await tid(page, `heap-${pz2.solution.heap}`).getAttribute("data-size")) === String(after), "the solution on the board");
    assert(!(await tid(page, "puzzle-pick-1").textContent()).includes("✓"), "a shown solution is not solved");
    await shot(page, "puzzles-nim-shown-1280");
    await page.context().close();

    // A phone's screen.
    const phone = await openPage(browser, server, "#/puzzles/nim", { width: 390, height: 844 });
    await shot(phone, "puzzles-nim-390");
    await phone.context().close();
  }, ["--puzzles", "8", "--puzzles-after-s", "0"]);
});

/** Clicks a Thue move: the builder's gap or the painter's symbol. */
async function thueMove(page, mv) {
  await tid(page, mv.place !== undefined ? `puzzle-gap-${mv.place}` : `puzzle-sym-${mv.paint}`).click();
}

/** A Thue move of pz's mover that is not its solution. */
function thueWrong(pz) {
  const n = pz.position.step === "place" ? pz.position.word.length + 1 : pz.options.k;
  for (let x = 0; x < n; x++) {
    const mv = pz.position.step === "place" ? { place: x } : { paint: x };
    if (JSON.stringify(mv) !== JSON.stringify(pz.solution)) return mv;
  }
  return null;
}

test("a Thue puzzle solved, the next one failed, then its solution shown", async () => {
  await withWorld(async (browser, server) => {
    await waitForPuzzles(server, 6);
    const page = await openPage(browser, server, "#/puzzles/thue");
    const pz = await shownPuzzle(page, server);
    assert(pz.game === "thue", "a Thue puzzle");
    const role = pz.position.to_move_role;
    const text = await tid(page, "puzzle-task").textContent();
    assert(text.startsWith(`You are the ${role}: choose the only`), `task line: ${text}`);
    assert((await tid(page, "puzzle-board").getAttribute("data-word")) === pz.position.word.join(""), "the word drawn");
    await shot(page, "puzzles-thue-1280");
    await thueMove(page, pz.solution);
    await page.waitForSelector('[data-testid="puzzle"][data-mode="solved"]');
    const said = await tid(page, "puzzle-status").textContent();
    assert(said.startsWith("Solved! With best play from here") && said.includes(` ${pz.value} point`), `solved line: ${said}`);
    assert((await tid(page, "puzzle-pick-0").textContent()).includes("✓"), "the first puzzle ticked");
    await shot(page, "puzzles-thue-solved-1280");

    // Puzzles of the other role too: the next one, failed.
    await tid(page, "puzzle-next").click();
    const pz2 = await shownPuzzle(page, server);
    assert(pz2.id !== pz.id, "another puzzle");
    const wrong = thueWrong(pz2);
    assert(wrong, "a wrong move exists");
    await thueMove(page, wrong);
    await page.waitForSelector('[data-testid="puzzle"][data-mode="wrong"]');
    const bad = await tid(page, "puzzle-status").textContent();
    assert(bad === (pz2.position.step === "place"
      ? "Not that gap: there the painter can score at least one point more."
      : "Not that symbol: after it you can score at least one point less."), `wrong line: ${bad}`);
    await shot(page, "puzzles-thue-wrong-1280");
    await tid(page, "puzzle-retry").click();
    await page.waitForSelector('[data-testid="puzzle"][data-mode="play"]');
    assert((await tid(page, "puzzle-board").getAttribute("data-word")) === pz2.position.word.join(""), "the position back");
    await thueMove(page, wrong);
    await page.waitForSelector('[data-testid="puzzle"][data-mode="wrong"]');
    await tid(page, "puzzle-show").click();
    await page.waitForSelector('[data-testid="puzzle"][data-mode="shown"]');
    if (pz2.solution.place !== undefined) {
      assert((await tid(page, `puzzle-gap-${pz2.solution.place}`).getAttribute("class")).includes("placed"), "the solution's gap marked");
    } else {
      const w = pz2.position.word, at = pz2.position.placed;
      const shown = [...w.slice(0, at), pz2.solution.paint, ...w.slice(at)].join("");
      assert((await tid(page, "puzzle-board").getAttribute("data-word")) === shown, "the solution's symbol in the word");
    }
    await shot(page, "puzzles-thue-shown-1280");
    await page.context().close();

    const phone = await openPage(browser, server, "#/puzzles/thue", { width: 390, height: 844 });
    await shot(phone, "puzzles-thue-390");
    await phone.context().close();
  }, ["--puzzles", "6", "--puzzles-after-s", "0"]);
});

test("the puzzles of the day: every game's, the one the API names", async () => {
  await withWorld(async (browser, server) => {
    await waitForPuzzles(server, 3);
    const page = await openPage(browser, server, "#/puzzles");
    for (const g of GAMES) {
      const daily = (await get(server, `/api/puzzles/daily?game=${g}`)).json;
      const id = await tid(page, `daily-${g}-puzzle`).getAttribute("data-id");
      assert(id === String(daily.id), `${g}: the day's puzzle ${daily.id}, shown ${id}`);
    }
    await shot(page, "puzzles-daily-1280");
    await page.context().close();
    const phone = await openPage(browser, server, "#/puzzles", { width: 390, height: 844 });
    await shot(phone, "puzzles-daily-390");
    await phone.context().close();
  }, ["--puzzles", "3", "--puzzles-after-s", "0"]);
});

console.log(`screenshots: ${SHOTS}`);
await run();
