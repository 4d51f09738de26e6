// games_play.test.mjs: every other game this server hosts, played to its end by clicks in
// Chromium: two people (each move read off the board and clicked: pieces, squares,
// fields, the Rims split), and one person against the perfect bot (seat_bot "perfect"),
// who keeps playing legal moves when they cannot win; the result and its reason shown.
// Run:
//   node tests/e2e/games_play.test.mjs --server build/server/thue-server [--only NAME-PART]
import { test, run, newPage, enter, shot, tid, assert, withWorld } from "./lib.mjs";
import { createGameRoom, playGameToEnd } from "./gameslib.mjs";

// The games on the server, with small boards so that a match by clicks stays short.
const GAMES = [
  ["nim", { heaps: "3 4 5" }],
  ["nim", { heaps: "2 3 4", misere: true }],
  ["rims", { heaps: "4 5" }],
  ["northcott", { rows: 3, cols: 5 }],
  ["circle", { fields: 8, white: 2, black: 2, move_cap: 40 }],
];
const WITH_BOTS = process.env.THUE_GAME_BOTS !== "0";

const REASONS = /has no move left|took the last token|Draw: the move cap/;

for (const [game, opts] of GAMES) {
  const label = `${game}${opts.misere ? " (misère)" : ""}`;
  test(`two people play ${label} to its end by clicks`, () => withWorld(async (browser, server) => {
    const ann = await newPage(browser, server, "ann");
    const bob = await newPage(browser, server, "bob");
    await enter(ann, "Ann");
    await enter(bob, "Bob");
    const room = await createGameRoom(ann, game, opts);
    await tid(bob, "join-room").fill(room);
    await tid(bob, "join").click();
    await tid(bob, "game").waitFor();
    await tid(ann, "ready").click();
    await tid(bob, "ready").click();
    const [a, b] = await Promise.all([playGameToEnd(ann), playGameToEnd(bob)]);
    const ra = await tid(ann, "result").textContent();
    const rb = await tid(bob, "result").textContent();
    assert(REASONS.test(ra), `Ann sees the result with its reason: ${ra}`);
    assert(ra.replace(/^You (win!|lose\.) /, "") === rb.replace(/^You (win!|lose\.) /, ""), `both see one result: ${ra} / ${rb}`);
    assert(Math.abs(a - b) <= 1, `the players alternated: ${a} and ${b} moves`);
    await shot(ann, `gp-${game}-people`);
    // The finished match replays from its first state.
    await tid(bob, "g-replay-first").click();
    await tid(bob, "g-replay-pos").filter({ hasText: "move 0 of" }).waitFor();
    console.log(`     ${label}: ${a + b} moves; ${ra}`);
  }));

  if (!WITH_BOTS) continue;
  test(`a person plays ${label} against the perfect bot to its end`, () => withWorld(async (browser, server) => {
    const cleo = await newPage(browser, server, "cleo");
    await enter(cleo, "Cleo");
    await createGameRoom(cleo, game, opts);
    await tid(cleo, "bot-spec").selectOption("perfect");
    await tid(cleo, "bot-think").fill("20");
    await tid(cleo, "seat-bot").click();
    await tid(cleo, "seat-1").filter({ hasText: "perfect" }).waitFor();
    await tid(cleo, "ready").click();
    const n = await playGameToEnd(cleo);
    const text = await tid(cleo, "result").textContent();
    assert(REASONS.test(text), `the result with its reason: ${text}`);
    assert(/^You (win|lose)/.test(text), `the result is Cleo's: ${text}`);
    assert((await tid(cleo, "last-move").textContent()).startsWith("Last move:"), "the last move is shown");
    await shot(cleo, `gp-${game}-bot`);
    console.log(`     ${label} against perfect: Cleo made ${n} moves; ${text}`);
  }));
}

await run();
