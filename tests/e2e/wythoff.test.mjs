// wythoff.test.mjs: Wythoff's game in Chromium (clients/web/wythoff.js): a person plays a
// room against the perfect bot from a set start by clicking the quarter-plane board (and
// once by the keyboard), each move the rules' winning one (the P-positions computed here
// from the mex definition, not from the client), so the person wins; a click the rules
// refuse shows the server's sentence and changes nothing; the board's marked squares are
// exactly the legal moves; the client's applyMove agrees with the server on every state.
// Then a room with heaps too big to draw: the counters take a move, and the bot answers.
// Run:
//   node tests/e2e/wythoff.test.mjs --server build/server/thue-server
import { test, run, newPage, enter, shot, tid, assert, withWorld } from "./lib.mjs";
import { createGameRoom, waitTurnOrEnd } from "./gameslib.mjs";

/** The P-positions (A_n, B_n) with A_n <= limit, by the mex definition. */
function pPositions(a, limit) {
  const used = new Set([0]);
  const pairs = [[0, 0]];
  for (let n = 1; ; n++) {
    let m = 0;
    while (used.has(m)) m++;
    if (m > limit) return pairs;
    pairs.push([m, m + a * n]);
    used.add(m).add(m + a * n);
  }
}

function isP(pairs, x, y) {
  return pairs.some(([p, q]) => (p === x && q === y) || (p === y && q === x));
}

function legal(x, y, a, tx, ty) {
  if (tx < 0 || ty < 0 || tx > x || ty > y || (tx === 0 && ty === 0)) return false;
  return tx === 0 || ty === 0 || Math.abs(tx - ty) < a;
}

/** The winning move's target square from (x, y), found by trying every move. */
function winningTarget(pairs, a, x, y) {
  for (let i = 0; i <= x; i++) for (let j = 0; j <= y; j++) {
    if (legal(x, y, a, x - i, y - j) && isP(pairs, i, j)) return [i, j];
  }
  return null;
}

const heapsOf = (page) => page.evaluate(() => {
  const k = window.thueClient.keptStates();
  return k[k.length - 1].state.heaps;
});

test("a person beats the perfect bot on the quarter-plane board by clicks and keys", () => withWorld(async (browser, server) => {
  const a = 2;
  const pairs = pPositions(a, 200);
  const cleo = await newPage(browser, server, "cleo");
  await enter(cleo, "Cleo");
  // (7, 12) with a = 2: not a P-position ((4, 10) and (5, 13) are), so the first mover wins.
  assert(!isP(pairs, 7, 12), "the start is an N-position");
  await createGameRoom(cleo, "wythoff", { a: "2", heaps: "7 12" }, { clockMinutes: 5 });
  await tid(cleo, "bot-spec").selectOption("perfect");
  await tid(cleo, "bot-think").fill("20");
  await tid(cleo, "seat-bot").click();
  await tid(cleo, "seat-1").filter({ hasText: "perfect" }).waitFor();
  await tid(cleo, "ready").click();
  await cleo.locator("[data-testid=gboard][data-turn=mine]").waitFor();
  await tid(cleo, "wy-heaps").filter({ hasText: "Heap 1: 7 · Heap 2: 12 · a = 2" }).waitFor();

  // The marked squares are exactly the legal moves' targets.
  const marked = await cleo.evaluate(() => [...document.querySelectorAll("[data-testid=gboard] .target")].map((b) => b.dataset.testid).sort());
  const want = [];
  for (let i = 0; i <= 7; i++) for (let j = 0; j <= 12; j++) if (legal(7, 12, a, 7 - i, 12 - j)) want.push(`wy-${i}-${j}`);
  assert(JSON.stringify(marked) === JSON.stringify(want.sort()), `marked squares: ${marked.length}, legal moves: ${want.length}`);

  // A click the rules refuse: take 1 and 4 (|1 - 4| >= 2).
  await tid(cleo, "wy-6-8").click();
  await cleo.locator("[data-testid=error][data-code=illegal_move]").waitFor();
  const said = await tid(cleo, "gboard-hint").textContent();
  assert(/\|x - y\| < a/.test(said), `the server's sentence under the board: ${said}`);
  await cleo.locator("[data-testid=gboard][data-turn=mine][data-moves='0']").waitFor();
  await shot(cleo, "wy-illegal");

  let mine = 0;
  for (;;) {
    if (await waitTurnOrEnd(cleo) === "over") break;
    const [x, y] = await heapsOf(cleo);
    const t = winningTarget(pairs, a, x, y);
    assert(t, `(${x}, ${y}) is a won position for Cleo`);
    const before = await cleo.locator("[data-testid=gboard]").getAttribute("data-moves");
    if (mine === 1) {
      // The keyboard: focus the square, Enter.
      await tid(cleo, `wy-${t[0]}-${t[1]}`).focus();
      await cleo.keyboard.press("Enter");
    } else {
      await tid(cleo, `wy-${t[0]}-${t[1]}`).click();
    }
    mine++;
    await cleo.waitForFunction((m) => {
      const b = document.querySelector("[data-testid=gboard]");
      const r = document.querySelector("[data-testid=result]");
      return (r && !r.hidden) || (b && b.dataset.moves !== m);
    }, before);
  }
  const text = await tid(cleo, "result").textContent();
  assert(/^You win!/.test(text) && /has no move left/.test(text), `Cleo wins: ${text}`);
  await shot(cleo, "wy-won");

  // The client's own rules (games.js applyMove) agree with the server on every state.
  const check = await cleo.evaluate(async () => {
    const { applyMove } = await import("/games.js");
    const list = window.thueClient.keptStates();
    const wrong = [];
    for (let i = 1; i < list.length; i++) {
      const got = JSON.stringify(applyMove("wythoff", list[i - 1].state, list[i].last.move));
      const st = list[i].state;
      const want = JSON.stringify({ ...list[i - 1].state, ...st });
      if (got !== want) wrong.push(`${got} / ${want}`);
    }
    return { n: list.length, wrong };
  });
  assert(check.wrong.length === 0, `applyMove agrees with the server: ${check.wrong.join("; ")}`);
  console.log(`     Cleo won in ${mine} moves of ${check.n - 1}: ${text}`);
}));

test("heaps too big to draw: the counters take a move and the bot answers", () => withWorld(async (browser, server) => {
  const dan = await newPage(browser, server, "dan");
  await enter(dan, "Dan");
  await createGameRoom(dan, "wythoff", { heaps: "1000000 2000000" }, { clockMinutes: 5 });
  await tid(dan, "bot-spec").selectOption("perfect");
  await tid(dan, "bot-think").fill("20");
  await tid(dan, "seat-bot").click();
  await tid(dan, "seat-1").filter({ hasText: "perfect" }).waitFor();
  await tid(dan, "ready").click();
  await dan.locator("[data-testid=gboard][data-turn=mine]").waitFor();
  await tid(dan, "wy-counters").waitFor();
  assert(await dan.locator("[data-testid=gboard] .wy-sq").count() === 0, "no grid for a million squares");
  // First a take the rules refuse under a = 1 (unequal from both), then 5 from heap 2.
  await tid(dan, "wy-take-0").fill("3");
  await tid(dan, "wy-take-1").fill("4");
  await tid(dan, "wy-take").click();
  await dan.locator("[data-testid=error][data-code=illegal_move]").waitFor();
  await tid(dan, "wy-take-0").fill("0");
  await tid(dan, "wy-take-1").fill("5");
  await tid(dan, "wy-take").click();
  // Dan moved to (1000000, 1999995); the bot answered: two moves, Dan to move.
  await dan.locator("[data-testid=gboard][data-turn=mine][data-moves='2']").waitFor();
  const [x, y] = await heapsOf(dan);
  assert(x <= 1000000 && y <= 1999995 && x + y < 1000000 + 1999995, `the bot took tokens: ${x}, ${y}`);
  const last = await tid(dan, "last-move").textContent();
  assert(/took [\d,]+ from heap/.test(last), `the bot's move in words: ${last}`); // (big numbers grouped: i18n.js)
  await shot(dan, "wy-counters");
  console.log(`     after Dan's (0, 5) and the bot's answer: heaps ${x}, ${y}`);
}));

await run();
