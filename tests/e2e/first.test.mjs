// first.test.mjs: a newcomer's first minute (issue 16, and issue 30's cards). A fresh
// browser opens the page, sees every game as a card and Thue explained in three
// illustrated steps, and plays the computer in two taps (Play the computer, Beginner): its
// first move is possible within 10 s of opening the page. Also: watching a live game with
// one click, and the lobby listing open seats and live games only. Run:
//   node tests/e2e/first.test.mjs --server build/server/thue-server
import assert from "node:assert/strict";
import { test, run, newPage, enter, createRoom, shot, tid, withWorld } from "./lib.mjs";

test("a newcomer plays the computer within 10 seconds of opening the page", () => withWorld(async (browser, server) => {
  for (const [w, h, label] of [[1280, 800, "desktop"], [390, 844, "phone"]]) {
    const context = await browser.newContext({ viewport: { width: w, height: h }, hasTouch: label === "phone", isMobile: label === "phone" });
    const page = await context.newPage();
    page.setDefaultTimeout(10000);
    const t0 = Date.now();
    await page.goto(server.url + "/");
    // Thue's three steps, the third animated (a square ending a round); its card's Play
    // the computer above the fold, then the levels by strength with the engine's spec in
    // small print (the same four below the steps).
    for (const id of ["demo-place", "demo-paint", "demo-square"]) assert((await tid(page, id).locator(".tile").count()) >= 3, id);
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=demo-square] .tile.rep").length === 4, null, { timeout: 6000 });
    assert.equal(await tid(page, "play-greedy").textContent(), "Beginnergreedy");
    const play = tid(page, "card-thue-computer");
    const box = await play.boundingBox();
    assert(box.y + box.height <= h, `${label}: Thue's Play the computer is above the fold (${box.y + box.height} > ${h})`);
    assert.equal(await page.locator("footer a[href='/healthz']").count(), 0);
    await shot(page, `first-${label}-start`);
    await (label === "phone" ? play.tap() : play.click());
    const level = tid(page, "card-thue-level-beginner");
    assert.equal(await level.textContent(), "Beginnergreedy");
    await (label === "phone" ? level.tap() : level.click());
    // The room: square-free, 4 symbols, against greedy; the newcomer builds first.
    await page.locator("[data-testid=word] .gap:not([disabled])").first().waitFor();
    const ms = Date.now() - t0;
    console.log(`     ${label}: first move possible ${ms} ms after opening the page`);
    assert(ms < 10000, `${label}: the first move took ${ms} ms to become possible`);
    assert.match(await tid(page, "seat-1").textContent(), /^Beginner \(computer\)greedy/);
    assert.match(await tid(page, "room-info").textContent(), /Thue, square-free, 4 symbols/);
    assert.equal(await page.title(), "● Your turn · Thue game");
    await shot(page, `first-${label}-game`);
    await context.close();
  }
}));

test("watch a live game with one click; the lobby lists open seats and live games only", () => withWorld(async (browser, server) => {
  const ann = await newPage(browser, server, "ann");
  await enter(ann, "Ann");
  // A finished room: Ann resigns at once against greedy.
  await createRoom(ann, { k: 4, limit: 5, first: "creator" });
  await tid(ann, "bot-spec").selectOption("greedy");
  await tid(ann, "seat-bot").click();
  await tid(ann, "seat-1").filter({ hasText: "greedy" }).waitFor();
  await tid(ann, "ready").click();
  ann.once("dialog", (d) => d.accept());
  await tid(ann, "resign").click();
  await tid(ann, "result").waitFor();
  const finished = await ann.locator("[data-testid=game]").getAttribute("data-room");
  // A live game: Bob against nested:1, waiting for Bob's move.
  const bob = await newPage(browser, server, "bob");
  await enter(bob, "Bob");
  const live = await createRoom(bob, { k: 4, limit: 50, first: "creator" });
  await tid(bob, "bot-spec").selectOption("nested:1");
  await tid(bob, "seat-bot").click();
  await tid(bob, "seat-1").filter({ hasText: "nested:1" }).waitFor();
  await tid(bob, "ready").click();
  await bob.locator("[data-testid=word] .gap:not([disabled])").first().waitFor();
  // A visitor: the lobby lists the live game, not the finished one; Watch joins it.
  const cy = await newPage(browser, server, "cy");
  await enter(cy, "Cy");
  await tid(cy, `room-${live}`).waitFor();
  assert.equal(await tid(cy, `room-${finished}`).count(), 0, "a finished room is not listed");
  await tid(cy, "nav-games").click(); // the first screen's "Watch a live game"
  await tid(cy, "play-watch").click();
  await cy.locator(`[data-testid=game][data-room="${live}"]`).waitFor();
  assert.match(await tid(cy, "room-info").textContent(), /you are watching/);
  await shot(cy, "first-watching");
}));

await run();
