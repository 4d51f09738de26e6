// a11y.test.mjs: axe-core (npm, run inside the page) over the client's pages and states,
// at 1280x800 and on a 390x844 phone: no critical and no serious violation anywhere.
// The states: the game cards (closed and open), an invite's card (live and expired), a
// friend's room waiting, a tab another one replaced, every game against the computer while
// it runs and once it is over (Thue while painting too), the lobby after the name step,
// the ladder, the tournaments and a tournament's page, a stored match's replay, a
// player's matches, and the analysis page with a tree. Each violation found is printed
// with its rule and the elements. Run:
//   node tests/e2e/a11y.test.mjs --server build/server/thue-server
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { pageLoaded, run, test, tid, withWorld } from "./lib.mjs";

const AXE = fs.readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), "node_modules", "axe-core", "axe.min.js"), "utf8");
const DEVICES = [["desktop", { viewport: { width: 1280, height: 800 } }], ["phone", { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true }]];

/** The critical and serious violations axe finds on page now (evaluated in the page, so
 * the server's CSP, which allows no injected script, does not stand in the way). */
async function violations(page) {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.filter((v) => v.impact === "critical" || v.impact === "serious")
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join("; ")}${v.nodes.length > 3 ? ` and ${v.nodes.length - 3} more` : ""}`);
  });
}

/** Collects the violations of each state checked: label -> list. */
function checker() {
  const found = {};
  let states = 0;
  return {
    async check(page, label) {
      states++;
      const v = await violations(page);
      if (v.length) found[label] = v;
    },
    report(what) {
      console.log(`     ${what}: ${states} states checked, ${Object.keys(found).length} with critical or serious violations`);
      for (const [label, v] of Object.entries(found)) console.log(`       ${label}: ${v.join(" | ")}`);
      assert.deepEqual(found, {}, "no critical or serious violation");
    },
  };
}

async function opened(browser, server, device, hash = "/") {
  const context = await browser.newContext(device);
  const page = await context.newPage();
  page.setDefaultTimeout(10000);
  page.on("pageerror", (e) => console.log(`page error: ${e.message}`));
  await page.goto(server.url + hash);
  return page;
}

/**
 * Against the computer from the cards: the card's levels open, the level chosen. The
 * room's status once its match has begun: "playing", or "finished" when the computer's
 * first move already won (the circle game's random start allows it).
 */
async function playComputer(page, game, level) {
  await page.goto(page.url().replace(/#.*$/, "#/"));
  await tid(page, `card-${game}`).waitFor();
  if (!(await tid(page, `card-${game}-levels`).isVisible())) await tid(page, `card-${game}-computer`).click();
  await tid(page, `card-${game}-level-${level}`).click();
  try {
    await page.locator("[data-testid=game][data-status=playing], [data-testid=game][data-status=finished]").waitFor();
    return await tid(page, "game").getAttribute("data-status");
  } catch (e) {
    const seen = await page.evaluate(() => ({
      hash: location.hash,
      status: document.querySelector("[data-testid=game]")?.dataset.status,
      error: document.querySelector("[data-testid=error]")?.textContent,
      title: document.title,
    }));
    throw new Error(`${game} against the computer did not start: ${JSON.stringify(seen)}\n${e.message}`);
  }
}

test("the first screen, invitations, a friend's room, a replaced tab: no critical or serious violation", () => withWorld(async (browser, server) => {
  const c = checker();
  for (const [label, device] of DEVICES) {
    const page = await opened(browser, server, device);
    await tid(page, "card-dots").waitFor();
    await c.check(page, `${label} cards`);
    await tid(page, "card-nim-computer").click();
    await tid(page, "card-wythoff-rules").click();
    await c.check(page, `${label} cards open`);
    // Ann's friend room, waiting; its link on another device.
    await tid(page, "name").fill(`Ann${label}`);
    await tid(page, "card-nim-friend").click();
    await page.locator("[data-testid=game][data-status=waiting]").waitFor();
    await c.check(page, `${label} friend's room waiting`);
    const link = await tid(page, "invite-link").inputValue();
    const friend = await opened(browser, server, device, link.slice(link.indexOf("/#")));
    await tid(friend, "invite-title").filter({ hasText: "Join" }).waitFor();
    await c.check(friend, `${label} invite card`);
    const stale = await opened(browser, server, device, "/#/room/rnosuchroom?code=abc");
    await tid(stale, "invite-title").filter({ hasText: "expired" }).waitFor();
    await c.check(stale, `${label} expired invite`);
    // A second tab replaces the first.
    const second = await page.context().newPage();
    await second.goto(server.url + "/");
    await tid(page, "replaced").waitFor();
    await c.check(page, `${label} replaced tab`);
    await page.context().close();
    await friend.context().close();
    await stale.context().close();
  }
  c.report("first screen");
}));

test("every game against the computer, while it runs and once it is over: no critical or serious violation", () => withWorld(async (browser, server) => {
  const c = checker();
  const levels = { thue: "beginner", nim: "beginner", rims: "beginner", northcott: "beginner", circle: "beginner", wythoff: "beginner", dots: "casual" };
  for (const [label, device] of DEVICES) {
    const page = await opened(browser, server, device);
    for (const [game, level] of Object.entries(levels)) {
      if (await playComputer(page, game, level) === "finished") {
        await c.check(page, `${label} ${game} over at once`);
        await tid(page, "leave").click();
        await tid(page, "card-nim").waitFor();
        continue;
      }
      if (game === "thue") {
        // The builder's step, then the painter's after a gap is chosen.
        await c.check(page, `${label} thue placing`);
        await page.locator("[data-testid=word] .gap:not([disabled])").last().click();
        await page.locator("[data-testid=game][data-status=playing]").waitFor();
      }
      await c.check(page, `${label} ${game} playing`);
      page.once("dialog", (d) => d.accept());
      await tid(page, "resign").click();
      await tid(page, "result").waitFor();
      await c.check(page, `${label} ${game} over`);
      await tid(page, "leave").click(); // the match is over: no question

      await tid(page, "card-nim").waitFor();
    }
    await page.context().close();
  }
  c.report("games");
}));

test("the lobby, ladder, tournaments, a replay, a player's matches, the analysis page: no critical or serious violation", () => withWorld(async (browser, server) => {
  const c = checker();
  for (const [label, device] of DEVICES) {
    const page = await opened(browser, server, device);
    await tid(page, "name").fill(`Lee${label}`);
    await tid(page, "connect").click();
    await tid(page, "me").filter({ hasText: `Lee${label}` }).waitFor();
    await c.check(page, `${label} lobby`);
    // A finished match to replay (and analyse): Lee places once, then resigns against greedy.
    await playComputer(page, "thue", "beginner");
    await page.locator("[data-testid=word] .gap:not([disabled])").last().click();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=word] .gap:not([disabled])").length > 0);
    page.once("dialog", (d) => d.accept());
    await tid(page, "resign").click();
    await tid(page, "result").waitFor();
    // A spectator of the finished room: the chat's two streams as tabs.
    const room = await tid(page, "game").getAttribute("data-room");
    const sue = await opened(browser, server, device);
    await tid(sue, "name").fill(`Sue${label}`);
    await tid(sue, "connect").click();
    await tid(sue, "me").filter({ hasText: `Sue${label}` }).waitFor();
    await sue.goto(`${server.url}/#/room/${room}`);
    await tid(sue, "chat-tabs").waitFor();
    await c.check(sue, `${label} spectator's chat tabs`);
    await sue.context().close();
    // The account's password form, open.
    await page.goto(`${server.url}/#/lobby`);
    await tid(page, "claim").click();
    await tid(page, "pw-set-open").click();
    await c.check(page, `${label} lobby, an account's password form`);
    for (const hash of ["#/ladder", "#/tournaments", `#/matches/Lee${label}`]) {
      await page.goto(`${server.url}/${hash}`);
      await pageLoaded(page);
      await c.check(page, `${label} ${hash}`);
    }
    const replay = tid(page, "page-body").locator("a[href^='#/match/']").first();
    if (await replay.count()) {
      await replay.click();
      await pageLoaded(page);
      await c.check(page, `${label} replay`);
      await tid(page, "replay-analyse").click(); // the analysis page on the match
      await tid(page, "an-moves").waitFor();
      await page.waitForTimeout(1000);
      await c.check(page, `${label} analysis of a match`);
    }
    await page.goto(`${server.url}/#/analysis`);
    await tid(page, "page-body").locator("canvas").first().waitFor();
    await page.waitForTimeout(1500); // a tree or two
    await c.check(page, `${label} analysis`);
    await page.context().close();
  }
  c.report("pages");
}));

await run();
