// game.test.mjs: the web client end to end: the real server, Debian's Chromium, clicks
// and keys only (no WebSocket shortcuts). Run:
//   node tests/e2e/game.test.mjs --server build/server/thue-server [--only NAME-PART]
// Screenshots are written under the OS temp dir (the path is printed at the end).
import {
  startServer, test, run, launch, newPage, enter, createRoom, placeLast, paint, shot, tid,
  assert, SHOTS, withWorld, playToEnd,
} from "./lib.mjs";

function tilesOf(page, testid = "word") {
  return page.locator(`[data-testid=${testid}] .tile`).allTextContents();
}

async function waitTiles(page, n, testid = "word") {
  await page.waitForFunction(([id, n]) => document.querySelectorAll(`[data-testid=${id}] .tile`).length === n, [testid, n]);
}

test("two people play a whole match by clicks, a spectator watches", () => withWorld(async (browser, server) => {
  const ann = await newPage(browser, server, "ann");
  const bob = await newPage(browser, server, "bob");
  const carl = await newPage(browser, server, "carl");
  await enter(ann, "Ann");
  await enter(bob, "Bob");
  await enter(carl, "Carl");
  const room = await createRoom(ann, { k: 3, limit: 5, first: "creator" });
  assert(room, "the game view names its room");

  // Bob finds the room in the list; Carl types its id and watches.
  await tid(bob, "refresh").click();
  await tid(bob, `join-${room}`).click();
  await tid(bob, "game").waitFor();
  await tid(carl, "join-room").fill(room);
  await tid(carl, "spectate").click();
  await tid(carl, "game").waitFor();

  await tid(ann, "ready").click();
  await tid(bob, "ready").click();
  await tid(ann, "turn").filter({ hasText: "your move" }).waitFor();
  await shot(ann, "1-ann-start");

  // Round 1: Ann appends, Bob paints 1 2 1 2: 01212 ends it (a square, or the limit).
  for (const [i, sym] of [1, 2, 1, 2].entries()) {
    await placeLast(ann);
    await bob.locator(".gap.placed").waitFor();
    await ann.locator(".gap.placed").waitFor();
    if (i === 3) {
      // The training aid: on 0121 with the gap at the end, 1 (0121 1) and 2 (01212) lose.
      await tid(bob, "mark-losing").check();
      const losing = await bob.locator("[data-testid^=sym-].losing").allTextContents();
      assert(losing.join(",") === "1,2", `losing symbols marked: ${losing}`);
      await shot(bob, "1-bob-losing-marked");
    }
    await paint(bob, sym);
    if (i === 1) {
      await waitTiles(carl, 3);
      assert((await tilesOf(carl)).join("") === "012", "the spectator sees the word 012");
      await shot(carl, "1-carl-watching");
    }
  }
  await tid(carl, "round-word-0").waitFor();
  assert((await tilesOf(carl, "round-word-0")).join("") === "01212", "round 1's final word");

  // Round 2: Bob builds, Ann paints 0: 00 is a square at once.
  await placeLast(bob);
  await paint(ann, 0);

  for (const p of [ann, bob, carl]) await tid(p, "result").filter({ hasText: "Bob wins" }).waitFor();
  const annResult = await tid(ann, "result").textContent();
  const bobResult = await tid(bob, "result").textContent();
  assert(annResult.includes("You lose"), `Ann sees her loss: ${annResult}`);
  assert(bobResult.includes("You win"), `Bob sees his win: ${bobResult}`);
  assert(await ann.locator("[data-testid=round-word-1] .tile.rep").count() === 2, "round 2's repetition 00 is highlighted");
  await tid(ann, "rematch").waitFor();

  // Chat reaches the room, the spectator included.
  await tid(ann, "chat-text").fill("good game!");
  await tid(ann, "chat-send").click();
  for (const p of [bob, carl]) await tid(p, "chat-log").filter({ hasText: "Ann: good game!" }).waitFor();
  await shot(ann, "1-ann-result");
  await shot(carl, "1-carl-result");

  // A rematch swaps round 1's roles: Bob builds first now.
  await tid(ann, "rematch").click();
  await tid(bob, "rematch").click();
  await tid(ann, "result").waitFor({ state: "hidden" });
  await tid(ann, "role-1").filter({ hasText: "builder" }).waitFor();
  await tid(bob, "turn").filter({ hasText: "your move" }).waitFor();
  await placeLast(bob);
  await paint(ann, 2);
  await waitTiles(carl, 2);

  // Leaving a running match forfeits it, once Bob says yes.
  bob.once("dialog", (d) => { assert(/counts as a loss/.test(d.message()), d.message()); d.accept(); });
  await tid(bob, "leave").click();
  await tid(bob, "refresh").waitFor();
  await tid(ann, "result").filter({ hasText: "You win" }).waitFor();
}));

test("a person plays the bot nested:1 to the end", () => withWorld(async (browser, server) => {
  const dana = await newPage(browser, server, "dana");
  await enter(dana, "Dana");
  await createRoom(dana, { k: 3, limit: 5, first: "creator", clockMinutes: 5, incrementS: 2 });
  await tid(dana, "bot-spec").selectOption("nested:1");
  await tid(dana, "bot-think").fill("50");
  await tid(dana, "seat-bot").click();
  await tid(dana, "seat-1").filter({ hasText: "nested:1" }).waitFor();
  await tid(dana, "ready").click();
  await playToEnd(dana);
  const text = await tid(dana, "result").textContent();
  assert(/^\d+:\d\d/.test(await tid(dana, "clock-0").textContent()), "Dana's clock is shown");
  assert(/wins|Draw/.test(text), `a result is shown: ${text}`);
  assert(await tid(dana, "last-move").textContent() !== "", "the last move is shown");
  await shot(dana, "2-dana-vs-bot");
}));

test("a reload mid-match keeps the seat and the page can move", () => withWorld(async (browser, server) => {
  const eve = await newPage(browser, server, "eve");
  const finn = await newPage(browser, server, "finn");
  await enter(eve, "Eve");
  await enter(finn, "Finn");
  const room = await createRoom(eve, { k: 3, limit: 20, first: "creator" });
  await tid(finn, "join-room").fill(room);
  await tid(finn, "join").click();
  await tid(eve, "ready").click();
  await tid(finn, "ready").click();
  await placeLast(eve);
  await paint(finn, 1);
  await waitTiles(eve, 2);

  await eve.reload();
  await tid(eve, "game").waitFor();
  assert(await eve.locator("[data-testid=game]").getAttribute("data-room") === room, "the same room after the reload");
  assert((await tilesOf(eve)).join("") === "01", "the word survives the reload");
  assert((await tid(eve, "seat-0").textContent()).includes("(you)"), "Eve still holds seat 1");
  await placeLast(eve);
  await paint(finn, 2);
  await waitTiles(finn, 3);
  assert((await tilesOf(finn)).join("") === "012", "Eve moved after her reload");
  await shot(eve, "4-eve-after-reload");
}));

/** Gus creates a room of k symbols and builds first, Hal joins; both ready, focus on the
 * page. Resolves to both pages once it is Gus's move. */
async function keyboardRoom(browser, server, k) {
  const gus = await newPage(browser, server, "gus");
  const hal = await newPage(browser, server, "hal");
  await enter(gus, "Gus");
  await enter(hal, "Hal");
  const room = await createRoom(gus, { k, limit: 20, first: "creator" });
  await tid(hal, "join-room").fill(room);
  await tid(hal, "join").click();
  await tid(gus, "ready").click();
  await tid(hal, "ready").click();
  await tid(gus, "turn").filter({ hasText: "your move" }).waitFor();
  await gus.keyboard.press("Escape");
  await hal.keyboard.press("Escape");
  return { gus, hal };
}

test("keyboard-only moves: arrows and Enter place, digits paint", () => withWorld(async (browser, server) => {
  const { gus, hal } = await keyboardRoom(browser, server, 4);

  // Gus: the cursor starts after the last tile; Enter appends. Hal paints 1.
  await gus.keyboard.press("ArrowRight");
  await gus.keyboard.press("Enter");
  await hal.locator(".gap.placed").waitFor();
  await hal.keyboard.press("1");
  await waitTiles(gus, 2);
  // Gus: one step left, between 0 and 1. Hal paints 2: 021.
  await tid(gus, "turn").filter({ hasText: "your move" }).waitFor();
  await gus.keyboard.press("ArrowLeft");
  await gus.keyboard.press("Enter");
  await hal.locator("[data-testid=gap-1].placed").waitFor();
  await hal.keyboard.press("2");
  await waitTiles(gus, 3);
  assert((await tilesOf(gus)).join("") === "021", "the keyboard's moves built 021");
  // Gus: Home puts the cursor before everything. Hal paints 3: 3021.
  await tid(gus, "turn").filter({ hasText: "your move" }).waitFor();
  await gus.keyboard.press("Home");
  await gus.keyboard.press("Enter");
  await hal.locator("[data-testid=gap-0].placed").waitFor();
  await hal.keyboard.press("3");
  await waitTiles(hal, 4);
  assert((await tilesOf(hal)).join("") === "3021", "the keyboard's moves built 3021");
  await gus.keyboard.press("Escape");
  assert(await gus.evaluate(() => document.activeElement === document.body), "Escape leaves the focus");
  await shot(gus, "5-gus-keyboard");
}));

test("keyboard painting with 12 symbols: two digits, one digit and Enter, a digit past k starts again", () => withWorld(async (browser, server) => {
  const { gus, hal } = await keyboardRoom(browser, server, 12);
  const appendAndWait = async (n) => {
    await tid(gus, "turn").filter({ hasText: "your move" }).waitFor();
    await gus.keyboard.press("End");
    await gus.keyboard.press("Enter");
    await hal.locator(`[data-testid=gap-${n}].placed`).waitFor();
  };
  // "1" could still become 10 or 11: it waits; the second "1" paints 11 at once.
  await appendAndWait(1);
  await hal.keyboard.press("1");
  await tid(hal, "digits").filter({ hasText: "Symbol 1" }).waitFor();
  await hal.keyboard.press("1");
  await waitTiles(gus, 2);
  // "1" and Enter paint 1 without waiting.
  await appendAndWait(2);
  await hal.keyboard.press("1");
  await hal.keyboard.press("Enter");
  await waitTiles(gus, 3);
  // "1" then "5": 15 is no symbol, so it starts again from "5", which paints at once.
  await appendAndWait(3);
  await hal.keyboard.press("1");
  await hal.keyboard.press("5");
  await waitTiles(gus, 4);
  assert((await tilesOf(gus)).join(",") === "0,11,1,5", `typed symbols built 0,11,1,5, not ${(await tilesOf(gus)).join(",")}`);
  assert((await tid(hal, "digits").textContent()) === "", "the typed digits are cleared");
}));

test("a private room by invite code; a dropped connection reconnects and keeps the seat", () => withWorld(async (browser, server) => {
  const ida = await newPage(browser, server, "ida");
  const jon = await newPage(browser, server, "jon");
  await enter(ida, "Ida");
  await enter(jon, "Jon");
  const room = await createRoom(ida, { k: 3, limit: 20, first: "opponent", isPrivate: true });
  // The code travels in the invite link (the room's header names no ids or codes).
  const linkText = await tid(ida, "invite-link").inputValue();
  const invite = /[?&]code=([A-Za-z0-9_-]+)/.exec(linkText);
  assert(invite, `the invite link carries the code: ${linkText}`);
  assert(!/invite code|Room r/.test(await tid(ida, "room-info").textContent()), "no room id or code in the header");
  await tid(jon, "refresh").click();
  assert(await tid(jon, `join-${room}`).count() === 0, "a private room is not listed");
  await tid(jon, "join-room").fill(room);
  await tid(jon, "join").click();
  await jon.locator("[data-testid=error][data-code=no_such_room]").waitFor();
  await tid(jon, "join-invite").fill(invite[1]);
  await tid(jon, "join").click();
  await tid(jon, "game").waitFor();
  await tid(ida, "ready").click();
  await tid(jon, "ready").click();
  await placeLast(jon); // the opponent builds first
  await paint(ida, 1);
  await waitTiles(jon, 2);

  await jon.evaluate(() => window.thueClient.dropConnection());
  await tid(ida, "seat-1").filter({ hasText: "disconnected" }).waitFor();
  await tid(jon, "conn").filter({ hasText: "Connected as Jon" }).waitFor();
  await tid(ida, "seat-1").filter({ hasNotText: "disconnected" }).waitFor();
  await placeLast(jon);
  await paint(ida, 2);
  await waitTiles(jon, 3);
  assert((await tilesOf(jon)).join("") === "012", "Jon moved after reconnecting");
  await shot(jon, "6-jon-reconnected");
}));

test("quick match falls back to a bot", async () => {
  const server = await startServer(["--bot-think-ms", "50"]);
  const browser = await launch();
  try {
    const kim = await newPage(browser, server, "kim");
    await enter(kim, "Kim");
    await tid(kim, "q-k").fill("2");
    await tid(kim, "q-bot").fill("1");
    await tid(kim, "quick").click();
    await tid(kim, "quick-status").filter({ hasText: "Waiting" }).waitFor();
    await tid(kim, "game").waitFor();
    await playToEnd(kim);
    await shot(kim, "7-kim-quick");
  } finally {
    await browser.close().catch(() => {});
    await server.stop();
  }
});

console.log(`screenshots in ${SHOTS}`);
await run();
