// games_play.test.mjs: every other game this server hosts, played to its end by clicks in
// Chromium: two people (each move read off the board and clicked: pieces, squares,
// fields, the Rims split), and one person against the perfect bot (seat_bot "perfect"),
// who keeps playing legal moves when they cannot win; the result and its reason shown.
// Run:
//   node tests/e2e/games_play.test.mjs --server build/server/thue-server [--only NAME-PART]
import { test, run, newPage, enter, shot, tid, assert, withWorld, startServer } from "./lib.mjs";
import { player } from "../integration/lib.mjs";
import { createGameRoom, playGameToEnd } from "./gameslib.mjs";

// The games on the server, with small boards so that a match by clicks stays short. The
// people play from a set start (opts, where the game has one) and begin with a click the
// rules refuse (illegal: the test ids clicked, on the first mover's page); the bot
// matches start from random positions (botOpts).
const GAMES = [
  ["nim", { heaps: "3 4 5" }],
  ["nim", { heaps: "2 3 4", misere: true }],
  ["rims", { heaps: "4 5" }],
  // Row 1: white on column 1, black on 3: column 4 is past the black piece.
  ["northcott", { rows: 3, cols: 5, start: "[[0,2],[1,4],[3,0]]" }, ["sq-0-0", "sq-0-3"], { rows: 3, cols: 5 }],
  // White on 0 and 5, black on 3 and 7: from 0, field 4 is behind the black piece on 3
  // one way and behind the one on 7 the other way.
  ["circle", { fields: 8, start: "W..B.W.B", move_cap: 40 }, ["field-0", "field-4"], { fields: 8, white: 2, black: 2, move_cap: 40 }],
];
/** Which of the games this server hosts, and whether it seats their bots: the games land
 * on the server one by one (Nim first), so the file plays each one the server has (Nim
 * must be there) and says which it left out. Asked once, over a WebSocket, before the
 * browser tests. */
async function probe() {
  const server = await startServer();
  try {
    const c = await player(server, "Probe");
    const have = new Set();
    for (const game of new Set(GAMES.map(([g]) => g))) {
      const r = await c.request({ type: "create_room", game });
      if (r.type !== "error") { have.add(game); await c.request({ type: "leave", room: r.room }); }
      else assert(r.code === "unknown_game", `${game}: ${r.code} ${r.message}`);
    }
    const r = await c.request({ type: "create_room", game: "nim" });
    const bot = await c.request({ type: "seat_bot", room: r.room, bot: "perfect", think_ms: 20 });
    await c.close();
    return { have, bots: bot.type !== "error" };
  } finally {
    await server.stop();
  }
}

const found = await probe();
// Every game of this client is on the server, with its bots: nothing is skipped.
const missing = GAMES.filter(([g]) => !found.have.has(g)).map(([g]) => g);
assert(missing.length === 0, `games missing on the server: ${missing.join(", ")}`);
assert(found.bots, "seat_bot seats the perfect bot in a Nim room");
const WITH_BOTS = process.env.THUE_GAME_BOTS !== "0";
console.log(`games on this server: ${[...found.have].join(", ")}${missing.length ? `; not yet: ${missing.join(", ")}` : ""}; ` +
  `their bots: ${found.bots ? "yes" : "not yet (seat_bot answers not_available)"}`);

const REASONS = /has no move left|took the last token|Draw: the move cap/;

for (const [game, opts, illegal, botOpts] of GAMES.filter(([g]) => found.have.has(g))) {
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
    if (illegal) {
      // A click the rules refuse: the server's sentence shows, and the move is still Ann's.
      await ann.locator("[data-testid=gboard][data-turn=mine]").waitFor();
      for (const id of illegal) await tid(ann, id).click();
      await ann.locator("[data-testid=error][data-code=illegal_move]").waitFor();
      const said = await tid(ann, "gboard-hint").textContent();
      assert(said.length > 10, `the refusal under the board: ${said}`);
      await ann.locator("[data-testid=gboard][data-turn=mine][data-moves='0']").waitFor();
      await shot(ann, `gp-${game}-illegal`);
      console.log(`     ${game}: a refused click: ${said}`);
      // Escape drops a chosen piece (keyboard: the board keeps the focus).
      await tid(ann, illegal[0]).click();
      await ann.locator("[data-testid=gboard] .selected").waitFor();
      assert(await ann.locator("[data-testid=gboard] .target").count() > 0, "the reachable squares or fields are marked");
      await ann.keyboard.press("Escape");
      await ann.locator("[data-testid=gboard] .selected").waitFor({ state: "detached" });
    }
    const [a, b] = await Promise.all([playGameToEnd(ann), playGameToEnd(bob)]);
    const ra = await tid(ann, "result").textContent();
    const rb = await tid(bob, "result").textContent();
    assert(REASONS.test(ra), `Ann sees the result with its reason: ${ra}`);
    assert(ra.replace(/^You (win!|lose\.) /, "") === rb.replace(/^You (win!|lose\.) /, ""), `both see one result: ${ra} / ${rb}`);
    assert(Math.abs(a - b) <= 1, `the players alternated: ${a} and ${b} moves`);
    await shot(ann, `gp-${game}-people`);
    // The client's own rules (games.js applyMove, which replays stored matches) agree
    // with the server on every state of the match.
    const check = await bob.evaluate(async (g) => {
      const { applyMove } = await import("/games.js");
      const canon = (v) => JSON.stringify(v, (k, x) => (x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort()) : x));
      const list = window.thueClient.keptStates();
      const wrong = [];
      for (let i = 1; i < list.length; i++) {
        const got = applyMove(g, list[i - 1].state, list[i].last.move);
        if (canon(got) !== canon(list[i].state)) wrong.push(`${canon(list[i - 1].state)} + ${canon(list[i].last.move)}: ${canon(got)}, server ${canon(list[i].state)}`);
      }
      return { n: list.length, wrong };
    }, game);
    assert(check.n === a + b + 1, `Bob's page kept every state: ${check.n} for ${a + b} moves`);
    assert(check.wrong.length === 0, `applyMove agrees with the server: ${check.wrong.join("; ")}`);
    // The finished match replays from its first state.
    await tid(bob, "g-replay-first").click();
    await tid(bob, "g-replay-pos").filter({ hasText: "move 0 of" }).waitFor();
    console.log(`     ${label}: ${a + b} moves; ${ra}`);
  }));

  if (!WITH_BOTS) continue;
  test(`a person plays ${label} against the perfect bot to its end`, () => withWorld(async (browser, server) => {
    const cleo = await newPage(browser, server, "cleo");
    await enter(cleo, "Cleo");
    await createGameRoom(cleo, game, botOpts || opts, { clockMinutes: 5 });
    await tid(cleo, "bot-spec").selectOption("perfect");
    await tid(cleo, "bot-think").fill("20");
    await tid(cleo, "seat-bot").click();
    await tid(cleo, "seat-1").filter({ hasText: "perfect" }).waitFor();
    await tid(cleo, "ready").click();
    const n = await playGameToEnd(cleo);
    const text = await tid(cleo, "result").textContent();
    assert(REASONS.test(text), `the result with its reason: ${text}`);
    assert(/^(You (win!|lose\.)|Draw)/.test(text), `the result as Cleo sees it: ${text}`);
    // (A random start can be over at once: Northcott's first player may have no move.)
    const moves = Number(await cleo.locator("[data-testid=gboard]").getAttribute("data-moves"));
    if (moves > 0) assert((await tid(cleo, "last-move").textContent()).startsWith("Last move:"), "the last move is shown");
    // Both clocks are shown, and Cleo's ran: she moved, through clicks that take
    // milliseconds each (the display floors). The bot's may still read 5:00: the server
    // counts clocks in whole ms, and a perfect bot's few moves can take under half of
    // one in all.
    const moved = await cleo.evaluate(() => [...new Set(window.thueClient.keptStates().filter((k) => k.last).map((k) => k.last.seat))]);
    for (const seat of [0, 1]) {
      const c = await tid(cleo, `clock-${seat}`).textContent();
      assert(/^[0-5]:\d\d/.test(c), `seat ${seat + 1}'s clock is shown: ${c}`);
      const mine = (await tid(cleo, `seat-${seat}`).textContent()).includes("Cleo");
      if (mine && moved.includes(seat)) assert(c !== "5:00", `Cleo (seat ${seat + 1}) moved, and her clock ran: ${c}`);
    }
    await shot(cleo, `gp-${game}-bot`);
    console.log(`     ${label} against perfect: Cleo made ${n} moves; ${text}`);
  }));
}

await run();
