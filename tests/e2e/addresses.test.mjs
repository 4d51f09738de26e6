// addresses.test.mjs: names, addresses, ratings and chat in the web client (issue 16),
// against the real server (one per test) in Debian's Chromium. Run:
//   node tests/e2e/addresses.test.mjs --server build/server/thue-server [--only NAME-PART]
// With THUE_SHOTS=DIR set, each new screen is written there at desktop (1280x800) and
// phone (390x844) sizes.
import fs from "node:fs";
import path from "node:path";
import { test, run, newPage, enter, createRoom, tid, assert, withWorld, playToEnd } from "./lib.mjs";

const SHOTS = process.env.THUE_SHOTS || "";
if (SHOTS) fs.mkdirSync(SHOTS, { recursive: true });

/** Writes page at desktop and phone sizes to $THUE_SHOTS (nothing when it is unset). */
async function shots(page, name) {
  if (!SHOTS) return;
  const was = page.viewportSize();
  for (const [tag, w, h] of [["desktop", 1280, 800], ["phone", 390, 844]]) {
    await page.setViewportSize({ width: w, height: h });
    await page.screenshot({ path: path.join(SHOTS, `addr-${name}-${tag}.png`), fullPage: true });
  }
  await page.setViewportSize(was);
}

const hash = (page) => page.evaluate(() => location.hash);

test("a taken name keeps the name form, with the reason beside the field", () => withWorld(async (browser, server) => {
  const ann = await newPage(browser, server, "ann");
  await enter(ann, "Ann");
  const other = await newPage(browser, server, "other");
  await tid(other, "name").fill("ann"); // one name, ignoring case
  await tid(other, "connect").click();
  await tid(other, "name-error").filter({ hasText: "taken" }).waitFor();
  assert(await tid(other, "name").isVisible(), "the name form stays");
  assert(await tid(other, "me").isHidden(), "no lobby under a guest name");
  assert(await tid(other, "name").getAttribute("aria-invalid") === "true", "the field is marked");
  assert(await other.evaluate(() => document.activeElement.id) === "name", "the field has the focus");
  assert(await other.evaluate(() => !localStorage.getItem("thue.name")), "the refused name is not remembered");
  await shots(other, "name-taken");
  // Another name goes in, and the error goes.
  await tid(other, "name").fill("Bea");
  await tid(other, "connect").click();
  await tid(other, "me").filter({ hasText: "Bea" }).waitFor();
  assert(await tid(other, "name-error").textContent() === "", "the error is gone");
  assert((await tid(other, "me").textContent()) === "Bea", "the chosen name, not a guest name");
}));

/** Waits for the page view of an HTTP page (the ladder, a replay) to be filled. */
async function pageLoaded(page) {
  await page.waitForFunction(() => document.getElementById("page-body").dataset.loaded === "1" && !document.getElementById("page").hidden);
}

test("Back and Forward move between the lobby, a room, its replay and the ladder", () => withWorld(async (browser, server) => {
  const ann = await newPage(browser, server, "ann");
  await enter(ann, "Ann");
  assert(await hash(ann) === "#/lobby", `the lobby's address: ${await hash(ann)}`);
  const room = await createRoom(ann, { k: 3, limit: 2 });
  assert(await hash(ann) === `#/room/${room}`, `the room has its address: ${await hash(ann)}`);
  await tid(ann, "bot-spec").selectOption("greedy");
  await tid(ann, "bot-think").fill("10");
  await tid(ann, "seat-bot").click();
  await tid(ann, "seat-1").filter({ hasText: "greedy" }).waitFor();
  await tid(ann, "ready").click();
  await playToEnd(ann);
  await tid(ann, "replay-link").click();
  await pageLoaded(ann);
  await tid(ann, "replay-word").waitFor();
  const replayHash = await hash(ann);
  assert(replayHash.startsWith("#/match/"), `the replay's address: ${replayHash}`);

  // Back: the room, still with its result; Forward: the replay again.
  await ann.goBack();
  await tid(ann, "game").waitFor();
  assert(await hash(ann) === `#/room/${room}`, "Back leads to the room");
  await tid(ann, "result").waitFor();
  await ann.goForward();
  await pageLoaded(ann);
  await tid(ann, "replay-word").waitFor();

  // The site's Lobby link leads to the lobby, which links back to the room; then the ladder.
  await tid(ann, "nav-lobby").click();
  await tid(ann, "me").waitFor();
  await tid(ann, "in-room").waitFor();
  assert(await tid(ann, "game").isHidden(), "the lobby, not the room");
  await shots(ann, "lobby-in-room");
  await tid(ann, "ladder-link").click();
  await pageLoaded(ann);
  await tid(ann, "ladder").waitFor();
  await ann.waitForFunction(() => /^#\/ladder\?variant=square&k=4&kind=all$/.test(location.hash)); // the first screen's pool

  // Back through all of it: lobby, replay, room; Forward to the ladder again.
  await ann.goBack();
  await tid(ann, "me").waitFor();
  assert(await ann.locator("#lobby").isVisible(), "the lobby");
  await ann.goBack();
  await pageLoaded(ann);
  assert(await hash(ann) === replayHash, "Back to the replay");
  await ann.goBack();
  await tid(ann, "game").waitFor();
  assert(await hash(ann) === `#/room/${room}`, "Back to the room");
  await ann.goForward();
  await ann.goForward();
  await ann.goForward();
  await pageLoaded(ann);
  await tid(ann, "ladder").waitFor();
  // The page's own Back link leads to the room you are in.
  await tid(ann, "page-back").click();
  await tid(ann, "game").waitFor();

  // Leaving turns the room's address into the lobby's (where the room was made).
  await tid(ann, "leave").click();
  await tid(ann, "me").waitFor();
  assert(await hash(ann) === "#/lobby", `the lobby after leaving: ${await hash(ann)}`);
  assert(await tid(ann, "in-room").isHidden(), "no room to go back to");
}));

test("an invite link joins the private room in one click, after the name step without a session", () => withWorld(async (browser, server) => {
  const ann = await newPage(browser, server, "ann");
  await enter(ann, "Ann");
  const room = await createRoom(ann, { k: 3, limit: 5, isPrivate: true });
  await tid(ann, "invite-box").waitFor();
  const link = await tid(ann, "invite-link").inputValue();
  assert(link.startsWith(`${server.url}/#/room/${room}?code=`), `the invite link: ${link}`);
  await ann.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
  await tid(ann, "invite-copy").click();
  await tid(ann, "invite-copy").filter({ hasText: "Copied" }).waitFor();
  assert(await ann.evaluate(() => navigator.clipboard.readText()) === link, "the clipboard holds the link");
  await shots(ann, "private-room");

  // Bea has a session already: the link seats her at once.
  const bea = await newPage(browser, server, "bea");
  await enter(bea, "Bea");
  await bea.goto(link);
  await tid(bea, "game").waitFor();
  await tid(bea, "seat-1").filter({ hasText: "Bea (you)" }).waitFor();
  await tid(ann, "seat-1").filter({ hasText: "Bea" }).waitFor();

  // Cy has none: the invite's card first (whose game, a name), then the room (watching:
  // both seats are taken).
  const ctx = await browser.newContext({ viewport: { width: 900, height: 900 } });
  const cy = await ctx.newPage();
  cy.on("pageerror", (e) => console.log(`[cy] page error: ${e.message}`));
  await cy.goto(link);
  await tid(cy, "invite-title").filter({ hasText: "Join Ann's game" }).waitFor();
  await tid(cy, "invite-what").filter({ hasText: "Both seats are taken" }).waitFor();
  await shots(cy, "invite-name-step");
  await tid(cy, "invite-name").fill("Cy");
  await tid(cy, "invite-join").click();
  await tid(cy, "game").waitFor();
  await tid(cy, "room-info").filter({ hasText: "you are watching" }).waitFor();
  assert(await tid(cy, "error").textContent() === "", "no error for a full room");

  // Chat lines survive a reload.
  await tid(ann, "chat-text").fill("hello Bea");
  await tid(ann, "chat-send").click();
  await tid(bea, "chat-log").filter({ hasText: "hello Bea" }).waitFor();
  await tid(bea, "chat-text").fill("hi Ann");
  await tid(bea, "chat-send").click();
  await tid(bea, "chat-log").filter({ hasText: "hi Ann" }).waitFor();
  await bea.reload();
  await tid(bea, "game").waitFor();
  await tid(bea, "seat-1").filter({ hasText: "Bea (you)" }).waitFor();
  const lines = await bea.locator("[data-testid=chat-log] > div").allTextContents();
  assert(lines.length === 2 && lines[0] === "Ann: hello Bea" && lines[1] === "Bea: hi Ann", `the chat after the reload: ${lines}`);
  await tid(ann, "chat-text").fill("welcome back");
  await tid(ann, "chat-send").click();
  await tid(bea, "chat-log").filter({ hasText: "welcome back" }).waitFor();
  assert(await bea.locator("[data-testid=chat-log] > div").count() === 3, "no line twice");
  await shots(bea, "chat-after-reload");
}));

test("the seat card shows the new rating after a rated match; the ladder opens on that pool", () => withWorld(async (browser, server) => {
  const ann = await newPage(browser, server, "ann");
  await enter(ann, "Ann");
  await tid(ann, "claim").click();
  await tid(ann, "me-kind").filter({ hasText: "account" }).waitFor();
  await tid(ann, "c-k").fill("4"); // not the ladder's default pool
  await tid(ann, "c-limit").fill("4");
  await tid(ann, "c-first").selectOption("creator");
  await tid(ann, "c-rated").check();
  await tid(ann, "create").click();
  await tid(ann, "game").waitFor();
  await tid(ann, "bot-spec").selectOption("nested:1");
  await tid(ann, "bot-think").fill("10");
  await tid(ann, "seat-bot").click();
  await tid(ann, "seat-1").filter({ hasText: "nested:1" }).waitFor();
  const before = await tid(ann, "role-0").textContent();
  const m = /rating (\d+)/.exec(before);
  assert(m, `a rating on the card before: ${before}`);
  await tid(ann, "ready").click();
  await playToEnd(ann);
  await tid(ann, "result").filter({ hasText: "Your rating" }).waitFor();
  const said = /Your rating: (\d+) → (\d+)/.exec(await tid(ann, "result").textContent());
  assert(said && said[1] !== said[2], `the rating moved: ${said}`);
  const after = await tid(ann, "role-0").textContent();
  assert(after.includes(`rating ${said[2]} (`), `the card shows the new rating ${said[2]}: ${after}`);
  await shots(ann, "rated-over");

  // A bare #/ladder opens on the pool with players (square-free, k = 4), and says so in its address.
  await tid(ann, "nav-lobby").click();
  await tid(ann, "ladder-link").click();
  await pageLoaded(ann);
  await tid(ann, "ladder-table").waitFor();
  assert(await hash(ann) === "#/ladder?variant=square&k=4&kind=all", `the pool's address: ${await hash(ann)}`);
  assert(await tid(ann, "lp-k").inputValue() === "4", "the form shows the pool");
  const rows = await ann.locator("[data-testid=ladder-table] tbody tr").allTextContents();
  assert(rows.length === 2 && rows.some((r) => r.includes(`Ann`) && r.includes(said[2])), `the ladder: ${rows}`);
  await shots(ann, "ladder-pool");
  // Another pool is another address; Back returns to this one.
  await tid(ann, "lp-kind").selectOption("bot");
  await ann.waitForFunction(() => location.hash === "#/ladder?variant=square&k=4&kind=bot");
  await ann.waitForFunction(() => document.querySelectorAll("[data-testid=ladder-table] tbody tr").length === 1);
  await ann.goBack();
  await ann.waitForFunction(() => document.querySelectorAll("[data-testid=ladder-table] tbody tr").length === 2);
  assert(await tid(ann, "lp-kind").inputValue() === "all", "the pool of the address");
}));

test("the length limit is labelled as the points limit it is", () => withWorld(async (browser, server) => {
  const ann = await newPage(browser, server, "ann");
  await enter(ann, "Ann");
  const label = ann.locator("label", { has: tid(ann, "c-limit") });
  const text = await label.textContent();
  assert(/points limit/i.test(text) && !/length/i.test(text), `the form's label: ${text}`);
  const help = await tid(ann, "c-limit-help").textContent();
  assert(/the round ends at N points/.test(help) && await tid(ann, "c-limit").getAttribute("aria-describedby") === "c-limit-help", `the field's help: ${help}`);
  assert(/scored this many points/.test(await label.getAttribute("title")), "its help text");
  await shots(ann, "create-form");
  await createRoom(ann, { k: 3, limit: 7 });
  const info = await tid(ann, "room-info").textContent();
  assert(info.includes("a round ends at 7 points") && !/limit 7/.test(info), `the room's header: ${info}`);
  assert(/scored this many points/.test(await tid(ann, "room-info").getAttribute("title")), "the header's help text");
  await shots(ann, "points-limit");
}));

run();
