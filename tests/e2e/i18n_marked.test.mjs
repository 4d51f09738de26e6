// i18n_marked.test.mjs: every word the page shows comes from a catalogue (issue 33). The
// catalogue requests (clients/web/i18n/<lang>/<area>.json) are answered through playwright
// with every value wrapped in markers, so that a text the client composes from catalogue
// words carries them; then every visible text node (and every placeholder) of the page is
// walked, the marked parts taken out (innermost first: words fill words), and what is left
// must be data: numbers, clocks, symbols, names the test typed, guest names, engine specs,
// the languages' own names in the switcher. Views walked: the first screen with a card's
// levels and rules open, the name step, the lobby, a game of Thue against the computer, a
// game of Nim against the computer (while it runs), the ladder, the tournaments, my matches,
// a stored match's replay with its review, the lessons (the index and Nim's), the puzzles
// (the day's and Nim's page) and the analysis page. Run:
//   node tests/e2e/i18n_marked.test.mjs --server build/server/thue-server
import assert from "node:assert/strict";
import { test, run, tid, withWorld } from "./lib.mjs";

const OPEN = "\u27e6", CLOSE = "\u27e7"; // ⟦ ⟧

// A lesson's text is shown as paragraphs split at blank lines (lessons.js): each paragraph
// is marked on its own.
function mark(v) {
  if (typeof v === "string") return v.split(/(\n\n+)/).map((p, i) => (i % 2 ? p : OPEN + p + CLOSE)).join("");
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mark(x)]));
  return v;
}

async function markedPage(browser, server, locale) {
  const context = await browser.newContext({ locale, viewport: { width: 1280, height: 900 } });
  await context.route(/\/i18n\/[a-z]+\/[a-z]+\.json$/, async (route) => {
    const res = await route.fetch();
    const body = await res.json();
    await route.fulfill({ response: res, json: mark(body) });
  });
  const page = await context.newPage();
  page.setDefaultTimeout(10000);
  page.on("pageerror", (e) => console.log(`[marked] page error: ${e.message}`));
  return page;
}

/** The visible texts of the page that are not catalogue words or data. */
function unmarked(page, names) {
  return page.evaluate(({ OPEN, CLOSE, names }) => {
    const inner = new RegExp(`${OPEN}[^${OPEN}${CLOSE}]*${CLOSE}`, "g");
    const strip = (s) => { let prev; do { prev = s; s = s.replace(inner, " "); } while (s !== prev); return s; };
    const DATA = [
      /^[\s\d.,:;·()\-–—+−→←×/#|?…′″%!=<>«»▶◀♛'"[\]_]*$/u,       // numbers, clocks, punctuation, symbols
      /^(English|Polski|Српски|Română)$/,                          // the switcher: each language in itself
      /^(greedy|nested:\d|uct|perfect|random|heuristic|strong|uct:iterations=\d+)$/, // engine specs
      /^Guest-\d+$/,                                               // guest names the server gives
      /^[rt][0-9a-z]{4,}$/,                                        // room and tournament ids
      /^(a|k|[WB.]+)$/,                                            // option names that are symbols
      /^_ - \.$/,                                                   // the name rule's characters
      /^[\w.-]+\.(csv|tree)$/,                                      // file names
      /^\{.*\}$/,                                                   // JSON (an example in a placeholder)
    ];
    const isData = (s) => DATA.some((re) => re.test(s)) || names.includes(s);
    const bad = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      // Code (a command line) and dates and times (Intl's words: <time>) are data.
      if (!el || el.closest("script, style, code, time, [hidden], [aria-hidden=true]") || !el.checkVisibility()) continue;
      // A composed text may be split over nodes (a name in <strong>): judge the element's text.
      const own = strip(n.textContent);
      for (const piece of own.split(/[\s·,()]+/).map((x) => x.replace(/:$/, "")).filter((x) => x !== "")) {
        if (!isData(piece)) bad.push(`${piece}  in  "${n.textContent.trim().slice(0, 80)}"`);
      }
    }
    for (const e of document.querySelectorAll("input[placeholder]")) {
      if (!e.checkVisibility()) continue;
      const rest = strip(e.placeholder).trim();
      if (rest && !isData(rest)) bad.push(`placeholder ${rest}`);
    }
    return [...new Set(bad)];
  }, { OPEN, CLOSE, names });
}

for (const locale of ["en-US", "pl-PL"]) {
  test(`${locale}: no page shows words from no catalogue`, () => withWorld(async (browser, server) => {
    const page = await markedPage(browser, server, locale);
    const names = ["Mara"];
    await page.goto(server.url + "/");
    await tid(page, "card-thue").waitFor();
    await page.waitForFunction(() => document.getElementById("cards-title").textContent.startsWith("\u27e6"));
    await tid(page, "card-nim-computer").click();
    await tid(page, "card-nim-rules").click();
    const report = {};
    report.first = await unmarked(page, names);
    // The name step and the lobby.
    await tid(page, "nav-lobby").click();
    await tid(page, "name").fill("Mara");
    await tid(page, "connect").click();
    await tid(page, "me").filter({ hasText: "Mara" }).waitFor();
    await tid(page, "rooms").waitFor();
    await page.waitForTimeout(300);
    report.lobby = await unmarked(page, names);
    // Thue against the computer, one move made.
    await tid(page, "nav-games").click();
    await tid(page, "card-thue-computer").click();
    await tid(page, "card-thue-level-beginner").click();
    const gap = page.locator("[data-testid=word] .gap:not([disabled])").first();
    await gap.waitFor();
    await gap.click();
    await page.locator("[data-testid=word] .gap:not([disabled])").first().waitFor();
    await tid(page, "last-move").filter({ hasText: /\S/ }).waitFor();
    report.thue = await unmarked(page, names);
    // Resigned: the result and its buttons.
    page.once("dialog", (d) => d.accept());
    await tid(page, "resign").click();
    await tid(page, "result").waitFor();
    report.thueOver = await unmarked(page, names);
    // Nim against the computer.
    // (The cards come back on screen first; the levels open unless the card's toggle says
    // they are open already: reading the levels' visibility before the cards were back
    // closed them now and then.)
    await tid(page, "nav-games").click();
    await tid(page, "card-nim-computer").waitFor();
    if ((await tid(page, "card-nim-computer").getAttribute("aria-expanded")) !== "true") await tid(page, "card-nim-computer").click();
    await tid(page, "card-nim-level-beginner").click();
    await page.locator("[data-testid=game][data-game=nim]").waitFor();
    await page.locator("[data-testid=gboard] .htoken:not([disabled])").first().waitFor();
    report.nim = await unmarked(page, names);
    // The pages: the ladder, the tournaments (and the create form, as a guest), my matches,
    // a stored match's replay, the analysis page.
    const loaded = () => page.waitForFunction(() => document.getElementById("page-body").dataset.loaded === "1");
    await page.locator("#site-nav a[data-page=ladder]").click();
    await loaded();
    await tid(page, "ladder").waitFor();
    report.ladder = await unmarked(page, names);
    await page.locator("#site-nav a[data-page=tournaments]").click();
    await loaded();
    report.tournaments = await unmarked(page, names);
    await page.locator("#site-nav a[data-page=matches]").click();
    await loaded();
    await tid(page, "matches").waitFor();
    report.matches = await unmarked(page, names);
    const replay = page.locator("[data-testid=matches] a[href^=\"#/match/\"]").first();
    if (await replay.count()) {
      await replay.click();
      await loaded();
      await tid(page, "replay-pos").waitFor();
      // The review under it (the server's exact review: its summary, list and step panel).
      await tid(page, "review-summary").waitFor();
      await tid(page, "review-best").click();
      report.replay = await unmarked(page, names);
    }
    // The lessons (the index and Nim's, whose boards ask the perfect bot) and the puzzles
    // (the day's of every game, and Nim's page; generated at once: --puzzles-after-s 0).
    await page.locator("#site-nav a[data-page=lessons]").click();
    await loaded();
    await tid(page, "lesson-list").waitFor();
    report.lessons = await unmarked(page, names);
    await tid(page, "lesson-link-nim").click();
    await loaded();
    report.lessonNim = await unmarked(page, names);
    await page.locator("#site-nav a[data-page=puzzles]").click();
    await loaded();
    report.puzzles = await unmarked(page, names);
    await page.goto(`${server.url}/#/puzzles/nim`);
    await loaded();
    await tid(page, "puzzle-board").first().waitFor();
    report.puzzleNim = await unmarked(page, names);
    await page.locator("#site-nav a[data-page=analysis]").click();
    await loaded();
    await tid(page, "an-form").waitFor();
    report.analysis = await unmarked(page, names);
    console.log(`     ${locale}: views walked: ${Object.keys(report).join(", ")}`);
    for (const k of ["first", "lobby", "thue", "thueOver", "nim", "ladder", "tournaments", "matches", "replay", "lessons", "lessonNim", "puzzles", "puzzleNim", "analysis"]) assert.ok(k in report, k);
    for (const [view, bad] of Object.entries(report)) if (bad.length) console.log(`     ${view}: ${bad.length} unmarked\n       ${bad.join("\n       ")}`);
    assert.deepEqual(Object.values(report).flat(), [], "texts from no catalogue");
    await page.context().close();
  }, ["--puzzles-after-s", "0"]));
}

await run();
