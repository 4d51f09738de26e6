// gameslib.mjs: what the browser tests of the other games share: the create form, and
// playing a whole match through the board's clicks (a legal move read off the board each
// turn, found by the rules themselves, so a board that marks or sends the wrong thing
// makes the match stall or the server refuse, and the test fail).
import { tid, assert } from "./lib.mjs";

/** Fills the create form for `game` (options: name -> text or boolean) and submits it. */
export async function fillGameForm(page, game, options = {}, { first = "creator", seat = true, clockMinutes = 0 } = {}) {
  await tid(page, "c-game").selectOption(game);
  for (const [name, value] of Object.entries(options)) {
    const f = tid(page, `go-${name}`);
    if (typeof value === "boolean") await (value ? f.check() : f.uncheck());
    else await f.fill(String(value));
  }
  await tid(page, "c-first").selectOption(first);
  await tid(page, "c-clock").fill(String(clockMinutes));
  if (!seat) await tid(page, "c-seat").uncheck();
  await tid(page, "create").click();
}

/** Creates a room of `game` from the lobby form; resolves to its id once the room shows. */
export async function createGameRoom(page, game, options, how) {
  await fillGameForm(page, game, options, how);
  await tid(page, "game").waitFor();
  return page.locator("[data-testid=game]").getAttribute("data-room");
}

/** Waits until page may move ("move") or the result shows ("over"). */
export async function waitTurnOrEnd(page) {
  const h = await page.waitForFunction(() => {
    const r = document.querySelector("[data-testid=result]");
    if (r && !r.hidden) return "over";
    const b = document.querySelector("[data-testid=gboard]");
    return b && b.dataset.turn === "mine" && b.dataset.moves === b.dataset.shown ? "move" : false;
  }, null, { timeout: 30000 });
  return h.jsonValue();
}

/** The move to make, read off the board (the rules applied to what it shows): the test
 * ids to click in order, and what a split or direction question is answered with. */
function pickMove() {
  const b = document.querySelector("[data-testid=gboard]");
  const game = b.dataset.game;
  const me = b.dataset.player;
  if (game === "nim" || game === "rims") {
    // Take one token (the last of the biggest heap), so matches last a while.
    let best = null;
    for (const h of b.querySelectorAll(".heap")) {
      const n = Number(h.dataset.size);
      if (n > 0 && (!best || n > Number(best.dataset.size))) best = h;
    }
    const i = best.dataset.testid.slice(5);
    return { clicks: [`token-${i}-${Number(best.dataset.size) - 1}`], note: `take 1 of heap ${i}` };
  }
  if (game === "northcott") {
    // Forward as far as possible (next to the other piece) in the first row that allows it.
    const rows = b.querySelectorAll(".grid-row");
    for (const row of rows) {
      const r = Number(row.dataset.testid.slice(4));
      const sq = [...row.querySelectorAll(".square")];
      const mine = sq.findIndex((x) => x.classList.contains(me));
      const other = sq.findIndex((x) => x.classList.contains("piece") && !x.classList.contains(me));
      const d = other > mine ? 1 : -1;
      if (Math.abs(other - mine) > 1) return { clicks: [`sq-${r}-${mine}`, `sq-${r}-${other - d}`], note: `row ${r}: ${mine} -> ${other - d}` };
    }
    for (const row of rows) { // no gap left: a step back
      const r = Number(row.dataset.testid.slice(4));
      const sq = [...row.querySelectorAll(".square")];
      const mine = sq.findIndex((x) => x.classList.contains(me));
      const other = sq.findIndex((x) => x.classList.contains("piece") && !x.classList.contains(me));
      const back = other > mine ? mine - 1 : mine + 1;
      if (back >= 0 && back < sq.length) return { clicks: [`sq-${r}-${mine}`, `sq-${r}-${back}`], note: `row ${r}: back to ${back}` };
    }
    return null;
  }
  if (game === "circle") {
    const fields = [...b.querySelectorAll(".field")];
    const n = fields.length;
    const free = (f) => !fields[f].classList.contains("piece");
    for (let f = 0; f < n; f++) {
      if (!fields[f].classList.contains(me)) continue;
      for (const d of [1, -1]) {
        const t = (f + d + n) % n;
        if (free(t)) return { clicks: [`field-${f}`, `field-${t}`], note: `${f} -> ${t}` };
      }
    }
    return null;
  }
  return null;
}

/** Plays page's moves by clicks until the result shows; resolves to the number of moves
 * it made. onMove(page, n) is awaited before each. */
export async function playGameToEnd(page, { maxMoves = 400, onMove } = {}) {
  for (let n = 0; ; n++) {
    assert(n < maxMoves, "the match ends");
    if (await waitTurnOrEnd(page) === "over") return n;
    if (onMove) await onMove(page, n);
    const mv = await page.evaluate(pickMove);
    assert(mv, "the board offers a move on my turn");
    const before = await page.locator("[data-testid=gboard]").getAttribute("data-moves");
    for (const id of mv.clicks) await tid(page, id).click();
    // Rims asks how the rest splits (when two dots or more are left); the circle, which
    // way, when both reach the field.
    const asked = await page.locator("[data-testid=split], [data-testid=dir-choice]").count();
    if (asked) {
      const answer = await page.locator("[data-testid=split-1]").count() ? "split-1"
        : await page.locator("[data-testid=dir-1]").count() ? "dir-1" : "split-0";
      await tid(page, answer).click();
    }
    await page.waitForFunction((m) => {
      const b = document.querySelector("[data-testid=gboard]");
      const r = document.querySelector("[data-testid=result]");
      return (r && !r.hidden) || (b && b.dataset.moves !== m);
    }, before);
  }
}
