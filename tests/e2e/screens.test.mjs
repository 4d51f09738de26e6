// screens.test.mjs: every screen of the client at a desktop (1280x800) and a phone
// (390x844, touch) size, each checked to fit its width without sideways scrolling and
// written as a screenshot (to $THUE_SHOTS when set, else to the run's temporary
// directory, named at the end): the first screen, the lobby, a game against a bot, its
// result, its replay, the player's matches, the ladder and the tournaments. Run:
//   node tests/e2e/screens.test.mjs --server build/server/thue-server
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test, run, enter, createRoom, tid, SHOTS, playToEnd, withWorld } from "./lib.mjs";

const DIR = process.env.THUE_SHOTS || SHOTS;
const SIZES = [["desktop", 1280, 800, false], ["phone", 390, 844, true]];

async function capture(page, label, name) {
  await page.waitForFunction(() => !document.getElementById("page-body") ||
    document.getElementById("page").hidden || document.getElementById("page-body").dataset.loaded === "1");
  const r = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: innerWidth }));
  assert(r.scroll <= r.width, `${name} (${label}): ${r.scroll} px wide on a ${r.width} px screen`);
  fs.mkdirSync(DIR, { recursive: true });
  await page.screenshot({ path: path.join(DIR, `screen-${name}-${label}.png`), fullPage: true });
}

test("every screen at desktop and phone sizes fits its width (screenshots written)", () => withWorld(async (browser, server) => {
  for (const [label, width, height, touch] of SIZES) {
    const context = await browser.newContext({ viewport: { width, height }, hasTouch: touch, isMobile: touch });
    const page = await context.newPage();
    page.setDefaultTimeout(10000);
    await page.goto(server.url + "/");
    await tid(page, "demo-square").locator(".tile").first().waitFor();
    await capture(page, label, "first");
    const name = `Sam${label === "phone" ? "P" : "D"}`;
    await enter(page, name);
    await tid(page, "claim").click();
    await tid(page, "account-token").waitFor();
    await capture(page, label, "lobby");
    // A game against greedy, played to its end by the last gap and the first symbol.
    await createRoom(page, { k: 4, limit: 5, first: "creator" });
    await tid(page, "bot-spec").selectOption("greedy");
    await tid(page, "bot-think").fill("10");
    await tid(page, "seat-bot").click();
    await tid(page, "seat-1").filter({ hasText: "greedy" }).waitFor();
    await tid(page, "ready").click();
    await page.locator("[data-testid=word] .gap:not([disabled])").first().waitFor();
    await capture(page, label, "game");
    await playToEnd(page, { tap: touch });
    await capture(page, label, "result");
    await tid(page, "replay-link").click();
    await tid(page, "replay-final").waitFor();
    await capture(page, label, "replay");
    for (const [hash, shotName] of [[`#/matches/${name}`, "matches"], ["#/ladder", "ladder"], ["#/tournaments", "tournaments"]]) {
      await page.evaluate((h) => { location.hash = h; }, hash);
      await page.waitForFunction(() => document.getElementById("page-body").dataset.loaded === "1");
      await capture(page, label, shotName);
    }
    await context.close();
  }
  console.log(`     screenshots in ${DIR}`);
}, ["--claims-per-ip", "100"]));

await run();
