// games.test.mjs: the other games (Nim, Rims, Northcott's game, the circle game) in the
// web client end to end: the real server, Debian's Chromium, clicks and keys only. Two
// people play Nim to its end (a spectator watching, a click out of turn refused with the
// server's sentence, one move by keyboard, the finished match replayed from the kept
// states); the create form's checks and the server's refusal; the lobby's list per game.
// Run:
//   node tests/e2e/games.test.mjs --server build/server/thue-server [--only NAME-PART]
import {
  test, run, newPage, enter, shot, tid, assert, withWorld,
} from "./lib.mjs";
import { createGameRoom, fillGameForm } from "./gameslib.mjs";

/** The heap sizes the board shows. */
function heapsOf(page) {
  return page.locator("[data-testid=gboard] .heap").evaluateAll((hs) => hs.map((h) => Number(h.dataset.size)));
}

async function waitHeaps(page, want) {
  await page.waitForFunction((w) => {
    const hs = [...document.querySelectorAll("[data-testid=gboard] .heap")].map((h) => Number(h.dataset.size));
    return hs.join(",") === w;
  }, want.join(","));
}

async function waitMyTurn(page) {
  await page.locator("[data-testid=gboard][data-turn=mine]").waitFor();
}

test("two people play Nim by clicks to the end; a spectator watches; the match replays", () => withWorld(async (browser, server) => {
  const ann = await newPage(browser, server, "ann");
  const bob = await newPage(browser, server, "bob");
  const carl = await newPage(browser, server, "carl");
  await enter(ann, "Ann");
  await enter(bob, "Bob");
  await enter(carl, "Carl");
  const room = await createGameRoom(ann, "nim", { heaps: "2 3", misere: false });
  assert(room, "the room view names its room");
  assert(await ann.locator("[data-testid=game]").getAttribute("data-game") === "nim", "the room is a Nim room");
  const info = await tid(ann, "room-info").textContent();
  assert(info.includes("Nim: heaps 2 3, normal play"), `the header names the game and options: ${info}`);

  // Bob finds the room in the lobby's Nim list (not in Thue's), Carl watches it.
  await tid(bob, "refresh").click();
  await tid(bob, "rooms").filter({ hasText: "No open seats" }).waitFor();
  await tid(bob, "l-game").selectOption("nim");
  await tid(bob, `room-game-${room}`).filter({ hasText: "heaps 2 3" }).waitFor();
  await tid(bob, `join-${room}`).click();
  await tid(bob, "game").waitFor();
  await tid(carl, "join-room").fill(room);
  await tid(carl, "spectate").click();
  await tid(carl, "game").waitFor();
  await tid(ann, "room-info").filter({ hasText: "1 watching" }).waitFor();

  await tid(ann, "ready").click();
  await tid(bob, "ready").click();
  await waitMyTurn(ann);
  assert((await tid(ann, "turn").textContent()).startsWith("Your move (white)"), "Ann moves first, as white");
  assert((await tid(ann, "role-0").textContent()).includes("white"), "seat 1 plays white");
  assert((await tid(bob, "turn").textContent()).includes("Ann (white) to move"), "Bob sees whose move it is");
  assert(JSON.stringify(await heapsOf(carl)) === "[2,3]", "the spectator sees the heaps 2 3");

  // Bob clicks out of turn: the server refuses and the page says why; nothing changes.
  await bob.locator("[data-testid=token-0-0]").click();
  await bob.locator("[data-testid=error][data-code=not_your_turn]").waitFor();
  await tid(bob, "gboard-hint").filter({ hasText: "not your turn" }).waitFor();
  assert(JSON.stringify(await heapsOf(bob)) === "[2,3]", "the refused click changed nothing");
  await shot(bob, "g1-bob-refused");

  // Ann takes 1 from heap 2 (token 2 of 3 and the ones after it): 2 2, nim-sum 0 for Bob.
  await ann.locator("[data-testid=token-1-2]").click();
  for (const p of [ann, bob, carl]) await waitHeaps(p, [2, 2]);
  await carl.locator("[data-testid=ghost-1-0]").waitFor();
  assert(await carl.locator("[data-testid^=ghost-1-]").count() === 1, "the taken token shows as a ghost");
  await tid(carl, "last-move").filter({ hasText: "Ann took 1 from heap 2" }).waitFor();

  // Bob moves by keyboard: focus the board, Right to the first token, Enter: takes heap 1.
  await waitMyTurn(bob);
  await tid(bob, "gboard").focus();
  await bob.keyboard.press("ArrowRight");
  const focused = await bob.evaluate(() => document.activeElement.dataset.testid);
  assert(focused === "token-0-0", `Right focuses the first token: ${focused}`);
  await bob.keyboard.press("Enter");
  for (const p of [ann, bob, carl]) await waitHeaps(p, [0, 2]);

  // Ann takes 1 (leaving 1), Bob takes the last one: Ann has no move and loses.
  await waitMyTurn(ann);
  await ann.locator("[data-testid=token-1-1]").click();
  await waitMyTurn(bob);
  await shot(carl, "g1-carl-watching");
  await bob.locator("[data-testid=token-1-0]").click();
  for (const p of [ann, bob, carl]) await tid(p, "result").filter({ hasText: "Bob wins: Ann has no move left." }).waitFor();
  assert((await tid(ann, "result").textContent()).startsWith("You lose."), "Ann sees her loss");
  assert((await tid(bob, "result").textContent()).startsWith("You win!"), "Bob sees his win");
  assert(await tid(bob, "result").getAttribute("data-reason") === "no_moves", "the reason is no_moves");
  assert((await tid(carl, "points-1").textContent()) === "1 pt", "Bob's point");
  await shot(ann, "g1-ann-result");

  // The replay: from the start (2 3) through every move the page saw.
  await tid(carl, "g-replay-first").click();
  await waitHeaps(carl, [2, 3]);
  await tid(carl, "g-replay-pos").filter({ hasText: "move 0 of 4" }).waitFor();
  await tid(carl, "g-replay-next").click();
  await waitHeaps(carl, [2, 2]);
  await tid(carl, "g-replay-pos").filter({ hasText: "Ann took 1 from heap 2" }).waitFor();
  await carl.keyboard.press("ArrowRight");
  await waitHeaps(carl, [0, 2]);
  await carl.keyboard.press("End");
  await waitHeaps(carl, [0, 0]);
  await carl.keyboard.press("Home");
  await waitHeaps(carl, [2, 3]);
  await shot(carl, "g1-carl-replay");

  // A rematch: both ask, and the new match starts from the options' heaps.
  await tid(ann, "rematch").click();
  await tid(bob, "rematch").click();
  await tid(ann, "result").waitFor({ state: "hidden" });
  await waitHeaps(ann, [2, 3]);
}));

test("the create form checks the options as the server does and shows the server's refusal", () => withWorld(async (browser, server) => {
  const dana = await newPage(browser, server, "dana");
  await enter(dana, "Dana");
  await tid(dana, "c-game").selectOption("nim");
  assert(await tid(dana, "c-k").isHidden(), "Thue's fields hide for Nim");
  assert(await tid(dana, "go-heaps").inputValue() === "3 4 5", "the default heaps");
  const cases = [
    [{ heaps: "3 x 5" }, "heaps", "whole numbers"],
    [{ heaps: "" }, "heaps", "1 to 16 heaps"],
    [{ heaps: Array(17).fill(1).join(" ") }, "heaps", "1 to 16 heaps (this is 17)"],
    [{ heaps: "0 0" }, "heaps", "no token at all"],
    [{ heaps: "3 1001" }, "heaps", "0 to 1000"],
  ];
  for (const [opts, field, text] of cases) {
    await fillGameForm(dana, "nim", opts);
    await tid(dana, `go-${field}-err`).filter({ hasText: text }).waitFor();
    await tid(dana, "c-error").filter({ hasText: text }).waitFor();
    assert(await tid(dana, `go-${field}`).getAttribute("aria-invalid") === "true", `${field} is marked invalid`);
    assert(await tid(dana, "game").isHidden(), `no room for ${JSON.stringify(opts)}`);
  }
  await shot(dana, "g2-form-error");
  for (const [game, opts, field, text] of [
    ["northcott", { rows: 17 }, "rows", "Rows: 1 to 16"],
    ["northcott", { cols: 1 }, "cols", "Columns: 2 to 32"],
    ["northcott", { rows: 2, cols: 4, start: "[[0,0],[1,2]]" }, "start", "2 pairs"],
    ["northcott", { rows: 3, move_cap: 0 }, "move_cap", "1 to 100000"],
    ["circle", { fields: 2 }, "fields", "Fields: 3 to 64"],
    ["circle", { fields: 6, white: 4, black: 3 }, "black", "at most 6 together"],
    ["circle", { fields: 5, start: "WB." }, "start", "5 characters"],
    ["rims", { heaps: "0" }, "heaps", "no dot at all"],
  ]) {
    await tid(dana, "c-game").selectOption(game);
    await fillGameForm(dana, game, opts);
    await tid(dana, `go-${field}-err`).filter({ hasText: text }).waitFor();
    assert(await tid(dana, "game").isHidden(), `no ${game} room for ${JSON.stringify(opts)}`);
  }

  // What the server refuses comes back as its sentence, under the form and at the top: a
  // game this server does not have (added to the selector as a client without the list
  // would offer it).
  await dana.evaluate(() => {
    const sel = document.querySelector("[data-testid=c-game]");
    const o = document.createElement("option");
    o.value = "chess";
    o.textContent = "Chess";
    sel.append(o);
  });
  await tid(dana, "c-game").selectOption("chess");
  await tid(dana, "create").click();
  await tid(dana, "c-error").filter({ hasText: "The server refused the room" }).waitFor();
  const said = await tid(dana, "c-error").textContent();
  assert(said.includes("/api/games"), `the server's own sentence: ${said}`);
  await dana.locator("[data-testid=error][data-code=unknown_game]").waitFor();

  // A valid form makes the room, misère included.
  const room = await createGameRoom(dana, "nim", { heaps: "1, 2, 3", misere: true });
  assert(room, "a room");
  await tid(dana, "room-info").filter({ hasText: "heaps 1 2 3, misère" }).waitFor();
}));

test("a stored Nim match: the result links its replay, stepped on the board; the matches list names the game", () => withWorld(async (browser, server) => {
  // Other games' matches are stored where the server says so: GET /api/games came with
  // them (PROTOCOL.md section 13). A server without either has nothing to show here.
  const games = await fetch(`${server.url}/api/games`);
  assert(games.ok, `GET /api/games: ${games.status}`);
  const gus = await newPage(browser, server, "gus");
  const hal = await newPage(browser, server, "hal");
  await enter(gus, "Gus");
  await enter(hal, "Hal");
  // The form's game list is the server's now.
  const listed = await tid(gus, "c-game").locator("option").allTextContents();
  assert(listed[0] === "Thue" && listed.includes("Nim"), `the games from /api/games: ${listed}`);
  const room = await createGameRoom(gus, "nim", { heaps: "1 2" });
  await tid(hal, "join-room").fill(room);
  await tid(hal, "join").click();
  await tid(gus, "ready").click();
  await tid(hal, "ready").click();
  await waitMyTurn(gus);
  await gus.locator("[data-testid=token-1-1]").click(); // 1 1
  await waitMyTurn(hal);
  await hal.locator("[data-testid=token-0-0]").click(); // 0 1
  await waitMyTurn(gus);
  await gus.locator("[data-testid=token-1-0]").click(); // 0 0: Hal cannot move
  await tid(hal, "result").filter({ hasText: "Gus wins: Hal has no move left." }).waitFor();
  await tid(hal, "replay-link").click();
  await tid(hal, "replay-result").filter({ hasText: "Gus wins: Hal has no move left." }).waitFor();
  const heaps = () => hal.locator("[data-testid=replay-board] .heap").evaluateAll((hs) => hs.map((h) => Number(h.dataset.size)).join(","));
  assert(await heaps() === "0,0", "the replay opens on the final position");
  await tid(hal, "replay-first").click();
  assert(await heaps() === "1,2", "the start");
  await tid(hal, "replay-next").click();
  assert(await heaps() === "1,1", "after Gus's first move");
  assert((await tid(hal, "replay-pos").textContent()).includes("Gus took 1 from heap 2"), "the move in words");
  await hal.keyboard.press("ArrowRight");
  await hal.locator("[data-testid=replay-pos][data-step='2']").waitFor();
  assert(await heaps() === "0,1", "the arrow key steps");
  await shot(hal, "g3-hal-record");
  await hal.goto(`${server.url}/#/matches/Hal`);
  await tid(hal, "matches").filter({ hasText: "Nim: heaps 1 2" }).waitFor();
  assert((await tid(hal, "matches").textContent()).includes("Gus wins"), "the list words the result");
}));

test("every game's board fits a 375 px phone without sideways scrolling", () => withWorld(async (browser, server) => {
  const ivy = await newPage(browser, server, "ivy");
  const jon = await newPage(browser, server, "jon");
  await ivy.setViewportSize({ width: 375, height: 812 });
  await enter(ivy, "Ivy");
  await enter(jon, "Jon");
  // Leaving a running game asks first; once Ivy has left, Jon's page may or may not know
  // the match is over when Jon leaves, so a question may come or not: one standing
  // answer per page (a "once" per leave left one unused now and then, and the next
  // question got two answers).
  for (const p of [ivy, jon]) p.on("dialog", (d) => d.accept());
  const boards = [
    ["nim", { heaps: "30 7 1000" }], ["rims", { heaps: "12 5" }],
    ["northcott", { rows: 16, cols: 32 }], ["northcott", { rows: 8, cols: 8 }],
    ["circle", { fields: 64, white: 20, black: 20 }], ["circle", { fields: 12 }],
    ["wythoff", { heaps: "16 27" }],
  ];
  for (const [game, opts] of boards) {
    await fillGameForm(ivy, game, opts);
    // The room shows, or the form says why not (a game this server does not have yet).
    const made = await ivy.waitForFunction(() => {
      if (!document.querySelector("[data-testid=game]").hidden) return "made";
      return document.querySelector("[data-testid=c-error]").textContent || false;
    }).then((h) => h.jsonValue()).then((v) => v === "made");
    const refused = made ? "" : await tid(ivy, "c-error").textContent();
    assert(made, `${game}: the room was not made: ${refused}`);
    const room = await ivy.locator("[data-testid=game]").getAttribute("data-room");
    await tid(jon, "join-room").fill(room);
    await tid(jon, "join").click();
    await tid(ivy, "ready").click();
    await tid(jon, "ready").click();
    await ivy.locator("[data-testid=gboard][data-moves='0'] button").first().waitFor();
    const wide = await ivy.evaluate(() => document.documentElement.scrollWidth);
    assert(wide <= 375, `${game} ${JSON.stringify(opts)}: the page is ${wide} px wide`);
    // The board itself fits too (no sideways scrolling inside it), and what one taps is
    // big enough: Northcott's 16 x 32 turned into lanes, the 64-field circle on a tall
    // track; Wythoff's 28 x 28 grid is a map, with counters to enter the move.
    const fit = await ivy.evaluate(() => {
      const b = document.querySelector("[data-testid=gboard]");
      const sizes = [...b.querySelectorAll(".square, .field, .htoken")].map((e) => { const r = e.getBoundingClientRect(); return Math.min(r.width, r.height); });
      return { over: b.scrollWidth - b.clientWidth, least: Math.min(...sizes), counters: Boolean(b.querySelector("[data-testid=wy-counters]")) };
    });
    assert(fit.over <= 0, `${game} ${JSON.stringify(opts)}: the board scrolls ${fit.over} px sideways`);
    if (game === "wythoff") assert(fit.counters, "a big Wythoff grid on a phone comes with the counters");
    else assert(fit.least >= 18, `${game} ${JSON.stringify(opts)}: the smallest square, field or token is ${fit.least.toFixed(1)} px`);
    // Neighbouring fields on the circle do not overlap (each stays clickable).
    const overlap = await ivy.evaluate(() => {
      const fs = [...document.querySelectorAll("[data-testid=gboard] .field")].map((f) => f.getBoundingClientRect());
      return fs.some((a, i) => { const b = fs[(i + 1) % fs.length]; return fs.length > 1 && a.right > b.left && b.right > a.left && a.bottom > b.top && b.bottom > a.top; });
    });
    assert(!overlap, `${game}: neighbouring fields overlap`);
    await shot(ivy, `g4-phone-${game}-${Object.values(opts).join("-").replace(/\s+/g, "_")}`);
    for (const p of [ivy, jon]) {
      await tid(p, "leave").click();
      await tid(p, "refresh").waitFor();
    }
  }
}));

test("a reload mid-match keeps the seat and the board; the replay starts where the page came in", () => withWorld(async (browser, server) => {
  const kim = await newPage(browser, server, "kim");
  const lou = await newPage(browser, server, "lou");
  await enter(kim, "Kim");
  await enter(lou, "Lou");
  const room = await createGameRoom(kim, "nim", { heaps: "2 2 3" });
  await tid(lou, "join-room").fill(room);
  await tid(lou, "join").click();
  await tid(kim, "ready").click();
  await tid(lou, "ready").click();
  await waitMyTurn(kim);
  await kim.locator("[data-testid=token-2-2]").click(); // 2 2 2
  await waitMyTurn(lou);
  await lou.locator("[data-testid=token-0-0]").click(); // 0 2 2
  await waitHeaps(kim, [0, 2, 2]);

  await kim.reload();
  await tid(kim, "game").waitFor();
  assert(await kim.locator("[data-testid=game]").getAttribute("data-room") === room, "the same room after the reload");
  await waitHeaps(kim, [0, 2, 2]);
  assert((await tid(kim, "seat-0").textContent()).includes("(you)"), "Kim keeps seat 1");
  await waitMyTurn(kim);
  await kim.locator("[data-testid=token-1-0]").click(); // 0 0 2
  await waitMyTurn(lou);
  await lou.locator("[data-testid=token-2-0]").click(); // 0 0 0: Kim cannot move
  await tid(kim, "result").filter({ hasText: "Lou wins" }).waitFor();
  // Kim's page saw the match from move 2 on; Lou's from its start.
  await tid(kim, "g-replay-pos").filter({ hasText: "this page saw the match from move 2" }).waitFor();
  await tid(kim, "g-replay-first").click();
  await waitHeaps(kim, [0, 2, 2]);
  await tid(lou, "g-replay-first").click();
  await waitHeaps(lou, [2, 2, 3]);
  assert(!(await tid(lou, "g-replay-pos").textContent()).includes("saw the match from"), "Lou's page saw it all");
}));

test("Rims: a click asks how the rest splits; the regions the move left are marked", () => withWorld(async (browser, server) => {
  const max = await newPage(browser, server, "max");
  const noa = await newPage(browser, server, "noa");
  await enter(max, "Max");
  await enter(noa, "Noa");
  const room = await createGameRoom(max, "rims", { heaps: "5 3" });
  await tid(noa, "join-room").fill(room);
  await tid(noa, "join").click();
  await tid(max, "ready").click();
  await tid(noa, "ready").click();
  await waitMyTurn(max);
  // The third dot of region 1 takes 3 of its 5: the other 2 may split 1 + 1.
  await max.locator("[data-testid=token-0-2]").click();
  await tid(max, "split").filter({ hasText: "Take 3 from region 1" }).waitFor();
  assert((await tid(max, "split").locator("button").allTextContents()).join("|") === "keep 2 together|1 + 1|cancel", "the choices");
  await tid(max, "split-cancel").click();
  await tid(max, "split").waitFor({ state: "detached" });
  await waitHeaps(max, [5, 3]);
  await max.locator("[data-testid=token-0-2]").click();
  await tid(max, "split-1").click();
  await waitHeaps(noa, [3, 1, 1]);
  await tid(noa, "last-move").filter({ hasText: "Max took 3 from region 1 (of 5) and split the rest 1 + 1" }).waitFor();
  const marked = await noa.locator("[data-testid=gboard] .heap.last").evaluateAll((hs) => hs.map((h) => h.dataset.testid));
  assert(marked.join(",") === "heap-1,heap-2", `the two new regions are marked: ${marked}`);
  await shot(noa, "g5-rims-split");
}));

test("Northcott's game by keyboard: arrows across the grid, Enter chooses the piece and its square", () => withWorld(async (browser, server) => {
  const pat = await newPage(browser, server, "pat");
  const quin = await newPage(browser, server, "quin");
  await enter(pat, "Pat");
  await enter(quin, "Quin");
  // Row 1: white on column 1, black on 4; row 2: white on 2, black on 3.
  const room = await createGameRoom(pat, "northcott", { rows: 2, cols: 4, start: "[[0,3],[1,2]]" });
  await tid(quin, "join-room").fill(room);
  await tid(quin, "join").click();
  await tid(pat, "ready").click();
  await tid(quin, "ready").click();
  await waitMyTurn(pat);
  const focused = () => pat.evaluate(() => document.activeElement.dataset.testid || document.activeElement.id);
  await tid(pat, "gboard").focus();
  await pat.keyboard.press("ArrowRight");
  assert(await focused() === "sq-0-0", "Right enters the grid at its first square");
  await pat.keyboard.press("ArrowDown");
  assert(await focused() === "sq-1-0", "Down goes to the row below");
  await pat.keyboard.press("ArrowUp");
  await pat.keyboard.press("Enter");
  await pat.locator("[data-testid=sq-0-0].selected").waitFor();
  const targets = await pat.locator("[data-testid=gboard] .target").evaluateAll((t) => t.map((x) => x.dataset.testid));
  assert(targets.join(",") === "sq-0-1,sq-0-2", `the reachable squares: ${targets}`);
  assert(await focused() === "sq-0-0", "the focus stays on the chosen piece");
  await pat.keyboard.press("ArrowRight");
  await pat.keyboard.press("ArrowRight");
  assert(await focused() === "sq-0-2", "Right along the row");
  await pat.keyboard.press("Enter");
  await quin.locator("[data-testid=sq-0-2].white").waitFor();
  await tid(quin, "last-move").filter({ hasText: "Pat moved in row 1 from column 1 to column 3" }).waitFor();
  assert(await quin.locator("[data-testid=sq-0-2].last-to").count() === 1, "the square it went to is marked");
  assert(await quin.locator("[data-testid=sq-0-0].last-from").count() === 1, "and the one it came from");
}));

test("quick match per game: two people waiting for Nim are paired into a Nim room", () => withWorld(async (browser, server) => {
  const eve = await newPage(browser, server, "eve");
  const finn = await newPage(browser, server, "finn");
  await enter(eve, "Eve");
  await enter(finn, "Finn");
  for (const p of [eve, finn]) {
    await tid(p, "q-game").selectOption("nim");
    assert(await tid(p, "q-k").isHidden(), "Thue's k hides for Nim");
    await tid(p, "q-bot").fill("0");
    await tid(p, "quick").click();
    if (p === eve) await tid(p, "quick-status").filter({ hasText: "Waiting" }).waitFor();
  }
  for (const p of [eve, finn]) {
    await tid(p, "game").waitFor();
    await p.locator("[data-testid=game][data-game=nim]").waitFor();
    await waitHeaps(p, [3, 4, 5]);
  }
  const room = await eve.locator("[data-testid=game]").getAttribute("data-room");
  assert(room === await finn.locator("[data-testid=game]").getAttribute("data-room"), "one room for both");
  // Paired players are seated and ready: one of them has the move.
  const turns = await Promise.all([eve, finn].map((p) => p.locator("[data-testid=gboard]").getAttribute("data-turn")));
  assert(turns.filter((t) => t === "mine").length === 1, `exactly one may move: ${turns}`);
}));

await run();
