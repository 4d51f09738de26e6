// dots.test.mjs: dots and boxes in Chromium (clients/web/dots.js): a person against the
// heuristic bot on a 2x2 board, lines drawn by clicks and by the keyboard (arrow keys,
// Enter), the move-again banner after a completed box, the box coloured by its owner,
// the last line marked, the match to its end with the result in words, and the client's
// own rules (applyMove, for replays) agreeing with the server on every state.
// Run:
//   node tests/e2e/dots.test.mjs --server build/server/thue-server
import { test, run, newPage, enter, shot, tid, assert, withWorld } from "./lib.mjs";
import { createGameRoom, waitTurnOrEnd } from "./gameslib.mjs";

/** The line to draw, read off the board: one that completes a box if any, else one that
 * gives no box its third side, else the first undrawn. */
function pickLine() {
  const b = document.querySelector("[data-testid=gboard]");
  const grid = b.querySelector(".dots-board");
  const R = Number(grid.style.getPropertyValue("--rows")), C = Number(grid.style.getPropertyValue("--cols"));
  const drawn = (id) => b.querySelector(`[data-testid="${id}"]`).classList.contains("drawn");
  const sides = (r, c) => [`line-h-${r}-${c}`, `line-h-${r + 1}-${c}`, `line-v-${r}-${c}`, `line-v-${r}-${c + 1}`];
  const count = (r, c) => sides(r, c).filter(drawn).length;
  const free = [...b.querySelectorAll(".dline:not([disabled])")].map((x) => x.dataset.testid);
  const boxesOf = (id) => {
    const [, d, rs, cs] = id.split("-");
    const r = Number(rs), c = Number(cs), out = [];
    if (d === "h") { if (r > 0) out.push([r - 1, c]); if (r < R) out.push([r, c]); } else { if (c > 0) out.push([r, c - 1]); if (c < C) out.push([r, c]); }
    return out;
  };
  const takes = free.find((id) => boxesOf(id).some(([r, c]) => count(r, c) === 3));
  if (takes) return { id: takes, takes: true };
  const safe = free.find((id) => boxesOf(id).every(([r, c]) => count(r, c) < 2));
  return { id: safe || free[0], takes: false };
}

test("a person plays 2x2 dots and boxes against the heuristic bot", () => withWorld(async (browser, server) => {
  const cleo = await newPage(browser, server, "cleo");
  await enter(cleo, "Cleo");
  await createGameRoom(cleo, "dots", { rows: 2, cols: 2 });
  const bots = await tid(cleo, "bot-spec").locator("option").allTextContents();
  assert(bots.includes("heuristic") && bots.includes("strong"), `the game's own bots are offered: ${bots.join(", ")}`);
  await tid(cleo, "bot-spec").selectOption("heuristic");
  await tid(cleo, "bot-think").fill("20");
  await tid(cleo, "seat-bot").click();
  await tid(cleo, "seat-1").filter({ hasText: "heuristic" }).waitFor();
  await tid(cleo, "ready").click();

  // The first move by the keyboard: focus a line, an arrow to the next, Enter draws it.
  assert(await waitTurnOrEnd(cleo) === "move", "Cleo moves first");
  assert(await cleo.locator(".dots-board .dline").count() === 12, "a 2x2 board has 12 lines");
  assert(await cleo.locator(".dots-board .dbox").count() === 4, "and 4 boxes");
  await tid(cleo, "line-h-0-0").focus();
  await cleo.keyboard.press("ArrowRight");
  const focused = await cleo.evaluate(() => document.activeElement.dataset.testid);
  assert(focused === "line-h-0-1", `ArrowRight goes to the next line: ${focused}`);
  await cleo.keyboard.press("Enter");
  await cleo.locator("[data-testid=gboard]:not([data-moves='0'])").waitFor();
  await cleo.locator("[data-testid=line-h-0-1].drawn.p0").waitFor();
  assert((await tid(cleo, "last-move").textContent()).includes("Last move:"), "the last move is written out");

  let again = false, n = 0;
  for (;;) {
    assert(n++ < 40, "the match ends");
    if (await waitTurnOrEnd(cleo) === "over") break;
    const mv = await cleo.evaluate(pickLine);
    const before = await cleo.locator("[data-testid=gboard]").getAttribute("data-moves");
    await tid(cleo, mv.id).click();
    await cleo.waitForFunction((m) => {
      const b = document.querySelector("[data-testid=gboard]");
      const r = document.querySelector("[data-testid=result]");
      return (r && !r.hidden) || (b && b.dataset.moves !== m);
    }, before);
    if (mv.takes && !again && await tid(cleo, "result").isHidden()) {
      // Cleo completed a box: the banner says she moves again, the box is hers, the line
      // she drew is the marked one, and it is still her turn.
      await tid(cleo, "dots-again").filter({ hasText: "move again" }).waitFor();
      await cleo.locator(".dots-board .dbox.owned.p0").first().waitFor();
      assert(await cleo.locator(`[data-testid=${mv.id}].last`).count() === 1, "the last line is marked");
      assert(await cleo.locator("[data-testid=gboard][data-turn=mine]").count() === 1, "it is Cleo's turn again");
      await shot(cleo, "dots-again");
      again = true;
    }
  }
  const text = await tid(cleo, "result").textContent();
  assert(/wins on boxes|Draw: equal boxes/.test(text), `the result in words: ${text}`);
  assert(await cleo.locator(".dots-board .dbox.owned").count() === 4, "every box has an owner at the end");
  const score = await tid(cleo, "dots-score").textContent();
  assert(/Boxes: .* \d .* \d/.test(score), `the score: ${score}`);
  // The heuristic takes whatever box it is offered, and Cleo's picks offer some; either
  // Cleo or the bot completed a box by the end, and the colours show whose.
  const owners = await cleo.locator(".dots-board .dbox").evaluateAll((xs) => xs.map((x) => x.dataset.owner));
  assert(owners.every((o) => o === "0" || o === "1"), `owners: ${owners.join(",")}`);
  // The client's rules agree with the server on every state it kept.
  const check = await cleo.evaluate(async () => {
    const { applyMove } = await import("/games.js");
    const canon = (v) => JSON.stringify(v, (k, x) => (x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort()) : x));
    const list = window.thueClient.keptStates();
    const wrong = [];
    for (let i = 1; i < list.length; i++) {
      const got = applyMove("dots", list[i - 1].state, list[i].last.move);
      if (canon(got) !== canon(list[i].state)) wrong.push(`${canon(list[i - 1].state)} + ${canon(list[i].last.move)}: ${canon(got)}, server ${canon(list[i].state)}`);
    }
    return { n: list.length, wrong };
  });
  assert(check.n >= 13, `the page kept every state: ${check.n}`);
  assert(check.wrong.length === 0, `applyMove agrees with the server: ${check.wrong.join("; ")}`);
  // The move-again turn in the replay too: step back to a state where a box was just
  // completed (two moves at least complete boxes on a 2x2 board, and the last line can
  // complete only two: one such state is not the end), whoever completed it.
  const k = await cleo.evaluate(() => window.thueClient.keptStates().findIndex((x) => x.state.again && x.state.moves < 12 &&
    x.state.lines.h.concat(x.state.lines.v).some((r) => r.some((d) => d < 0))));
  assert(k > 0, "some state has a completed box with play going on");
  await tid(cleo, "g-replay-first").click();
  for (let i = 0; i < k; i++) await tid(cleo, "g-replay-next").click();
  await tid(cleo, "dots-again").filter({ hasText: /move again|moves again/ }).waitFor();
  assert(await cleo.locator(".dots-board .dbox.owned").count() >= 1, "the completed box is coloured in the replay");
  await shot(cleo, "dots-replay-again");
  await shot(cleo, "dots-over");
  console.log(`     2x2 against heuristic: ${text}; Cleo saw the move-again banner: ${again}`);
}));

await run();
