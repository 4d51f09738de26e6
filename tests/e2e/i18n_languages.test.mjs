// i18n_languages.test.mjs: the client in Polish, Serbian and Romanian (issue 33). A
// browser context in each locale (pl-PL, sr, ro-RO), with no stored choice, opens the first
// screen: <html lang> is the language's, the headings and buttons are the catalogue's words;
// it plays Thue against the computer until the painter has points, and the seat's points are
// the plural form Intl.PluralRules gives for the number. The header's switcher changes the
// language, and the choice is remembered after a reload. Screenshots at 1280 x 800 and
// 390 x 844 (docs/web.md, "Languages"). Run:
//   node tests/e2e/i18n_languages.test.mjs --server build/server/thue-server
import assert from "node:assert/strict";
import fs from "node:fs";
import { test, run, shot, tid, withWorld, SHOTS } from "./lib.mjs";

const WEB = new URL("../../clients/web/", import.meta.url);
const words = (lang) => JSON.parse(fs.readFileSync(new URL(`i18n/${lang}/app.json`, WEB), "utf8"));
const EN = words("en");

const CASES = [
  { locale: "pl-PL", lang: "pl", tag: "pl" },
  { locale: "sr", lang: "sr", tag: "sr-Cyrl" },
  { locale: "ro-RO", lang: "ro", tag: "ro" },
];

/** The plural form of key for count in lang, as the client must write it. */
function plural(w, tag, key, count) {
  const forms = w[key];
  return forms[new Intl.PluralRules(tag).select(count)].replace("{count}", String(count));
}

for (const c of CASES) {
  test(`${c.locale}: the first screen and a game against the computer in ${c.lang}`, () => withWorld(async (browser, server) => {
    const W = words(c.lang);
    for (const [w, h, label] of [[1280, 800, "desktop"], [390, 844, "phone"]]) {
      const touch = label === "phone";
      const context = await browser.newContext({ locale: c.locale, viewport: { width: w, height: h }, hasTouch: touch, isMobile: touch });
      const page = await context.newPage();
      page.setDefaultTimeout(10000);
      page.on("pageerror", (e) => console.log(`[${c.lang}] page error: ${e.message}`));
      await page.goto(server.url + "/");
      await tid(page, "card-thue").waitFor();
      assert.equal(await page.getAttribute("html", "lang"), c.tag);
      assert.equal(await page.locator("#cards-title").textContent(), W["app.home.cards_title"]);
      assert.notEqual(W["app.home.cards_title"], EN["app.home.cards_title"]);
      assert.equal(await tid(page, "nav-lobby").textContent(), W["app.nav.lobby"]);
      assert.equal(await tid(page, "card-thue-computer").textContent(), W["app.home.play_computer"]);
      assert.equal(await page.title(), W["app.title"]);
      assert.equal(await tid(page, "lang-select").inputValue(), c.lang);
      // Nothing wider than the screen (long words wrap).
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      assert(wide <= w, `${label}: the page is ${wide} px wide on a ${w} px screen`);
      await shot(page, `i18n-${c.lang}-${label}-start`);

      // A game: Thue against the Beginner; the player builds first.
      await tid(page, "card-thue-computer").click();
      await tid(page, "card-thue-level-beginner").click();
      await page.locator("[data-testid=word] .gap:not([disabled])").first().waitFor();
      assert.match(await tid(page, "seat-1").textContent(), new RegExp(`^${W["app.player.computer"].replace("{level}", W["app.level.beginner"]).replace(/[()]/g, "\\$&")}`));
      assert.match(await tid(page, "room-info").textContent(), new RegExp(plural(W, c.tag, "app.thue.options_square", 4)));
      // Play until the painter (the computer, in round 1) has at least 2 points: 2 to 4
      // are "few" in all three languages.
      for (let i = 0; i < 40; i++) {
        const pts = Number((await tid(page, "points-1").textContent()).match(/\d+/)[0]);
        if (pts >= 2) break;
        const gap = page.locator("[data-testid=word] .gap:not([disabled])").first();
        await gap.waitFor();
        await gap.click();
        await page.waitForFunction((n) => {
          const e = document.querySelector("[data-testid=points-1]");
          return e && Number(e.textContent.match(/\d+/)[0]) > n || document.querySelector("[data-testid=word] .gap:not([disabled])");
        }, pts);
      }
      const pts = Number((await tid(page, "points-1").textContent()).match(/\d+/)[0]);
      assert.equal(await tid(page, "points-1").textContent(), plural(W, c.tag, "app.points.short", pts));
      assert.equal(await tid(page, "points-0").textContent(), plural(W, c.tag, "app.points.short", 0));
      const wide2 = await page.evaluate(() => document.documentElement.scrollWidth);
      assert(wide2 <= w, `${label}: the game page is ${wide2} px wide on a ${w} px screen`);
      await shot(page, `i18n-${c.lang}-${label}-game`);

      if (label === "desktop") {
        // The switcher: English, then the page reloads in it and stays so after a reload.
        await tid(page, "lang-select").selectOption("en");
        await page.waitForFunction(() => document.documentElement.lang === "en");
        await tid(page, "nav-lobby").filter({ hasText: EN["app.nav.lobby"] }).waitFor();
        await page.reload();
        await tid(page, "nav-lobby").filter({ hasText: EN["app.nav.lobby"] }).waitFor();
        assert.equal(await page.getAttribute("html", "lang"), "en");
        assert.equal(await page.evaluate(() => localStorage.getItem("thue.lang")), "en");
        // And back, by the keyboard.
        await tid(page, "lang-select").focus();
        await tid(page, "lang-select").selectOption(c.lang);
        await page.waitForFunction((tag) => document.documentElement.lang === tag, c.tag);
        await tid(page, "nav-lobby").filter({ hasText: W["app.nav.lobby"] }).waitFor();
      }
      await context.close();
    }
  }));
}

console.log(`     screenshots: ${SHOTS}`);
await run();
