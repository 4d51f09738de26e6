// review.test.mjs: the exact review of a finished match in the web client (review.js on
// the replay page #/match/ID), in Debian's Chromium against the real server. A Nim match
// with a deliberate blunder is played over the WebSocket (tests/integration/lib.mjs); the
// page must show the one-line summary, the blunder on the move list and on the board's
// step, and the best move that the blunder missed. Run:
//   node tests/e2e/review.test.mjs --server build/server/thue-server
import { test, run, tid, shot, assert, withWorld } from "./lib.mjs";
import { player } from "../integration/lib.mjs";

test("a Nim match with a blunder: the summary, the verdicts on the list and the board, the best move", () => withWorld(async (browser, server) => {
  const ann = await player(server, "Ann");
  const bob = await player(server, "Bob");
  const { room } = await ann.ok({ type: "create_room", game: "nim", game_options: { heaps: [3, 4, 5] }, first_builder: "creator" });
  await bob.ok({ type: "join", room });
  await ann.ok({ type: "ready", room });
  await bob.ok({ type: "ready", room });
  await ann.state(room, (x) => x.status === "playing");
  // Heaps 3,4,5 (nim-sum 2) are won for Ann by taking 2 from the first heap; she takes 1
  // from the third (a blunder: 3,4,4 is won for Bob), Bob answers right (3 from the first).
  const plan = [[ann, { heap: 2, take: 1 }], [bob, { heap: 0, take: 3 }], [ann, { heap: 1, take: 4 }], [bob, { heap: 2, take: 4 }]];
  for (const [who, move] of plan) await who.ok({ type: "move", room, move });
  const end = await ann.next("match_end");

  for (const [w, h, label] of [[1280, 800, "desktop"], [390, 844, "phone"]]) {
    const context = await browser.newContext({ viewport: { width: w, height: h }, locale: "en-US" });
    const page = await context.newPage();
    page.setDefaultTimeout(15000);
    page.on("pageerror", (e) => console.log(`[${label}] page error: ${e.message}`));
    await page.goto(`${server.url}/#/match/${end.match_id}`);
    const summary = tid(page, "review-summary");
    await summary.waitFor();
    const text = await summary.textContent();
    assert(/Ann: 1 blunder/.test(text), `Ann's line says one blunder: ${text}`);
    assert(/Bob: no mistakes/.test(text), `Bob's line: ${text}`);
    assert((await tid(page, "review-verdict-1").textContent()) === "blunder", "move 1 is marked a blunder");
    for (const i of [2, 3, 4]) assert((await tid(page, `review-verdict-${i}`).textContent()) === "best", `move ${i} is best`);
    // Step to the blunder from the list: the replay's board and the step's verdict follow.
    await tid(page, "review-move-1").click();
    await page.waitForFunction(() => document.querySelector("[data-testid=replay-pos]").dataset.step === "1");
    assert((await tid(page, "review-step-verdict").textContent()) === "blunder", "the review's step shows the blunder");
    assert((await tid(page, "replay-verdict").textContent()) === "blunder", "and so does the line above the board");
    const values = await tid(page, "review-step").textContent();
    assert(/Before the move: a win; after it: a loss/.test(values), `the values: ${values}`);
    // Back to the start: the best move there is the one Ann missed.
    await tid(page, "replay-first").click();
    await page.waitForFunction(() => document.querySelector("[data-testid=replay-pos]").dataset.step === "0");
    assert((await tid(page, "review-best-move").textContent()) === "", "the best move is hidden until asked for");
    await tid(page, "review-best").click();
    const best = await tid(page, "review-best-move").textContent();
    assert(best === "took 2 from heap 1", `the best move: ${best}`);
    await shot(page, `review-nim-${label}`);
    await context.close();
  }
}));

test("a Thue match's review: points, the painter's lost points marked, the best symbol", () => withWorld(async (browser, server) => {
  const ann = await player(server, "Ann");
  const bob = await player(server, "Bob");
  const { room } = await ann.ok({ type: "create_room", k: 3, limit: 20, first_builder: "creator" });
  await bob.ok({ type: "join", room });
  await ann.ok({ type: "ready", room });
  await bob.ok({ type: "ready", room });
  await ann.state(room, (x) => x.status === "playing");
  // Round 1 (Ann builds, Bob paints): [0] -> 0 1 -> 0 1 0 -> at the end Bob paints 1,
  // making 0101 (a square: the round ends on 2 points) where 2 was safe (0102).
  // Round 2 (Bob builds, Ann paints): Ann paints 0 next to the 0: a square at once.
  const plan = [
    [ann, { type: "place", position: 1 }], [bob, { type: "paint", symbol: 1 }],
    [ann, { type: "place", position: 2 }], [bob, { type: "paint", symbol: 0 }],
    [ann, { type: "place", position: 3 }], [bob, { type: "paint", symbol: 1 }],
    [bob, { type: "place", position: 1 }], [ann, { type: "paint", symbol: 0 }],
  ];
  for (const [who, msg] of plan) await who.ok({ ...msg, room });
  const end = await ann.next("match_end");
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: "en-US" });
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  await page.goto(`${server.url}/#/match/${end.match_id}`);
  await tid(page, "review-summary").waitFor();
  assert((await tid(page, "review-verdict-6").textContent()) !== "best", "Bob's square-making paint lost points");
  assert((await tid(page, "review-verdict-8").textContent()) !== "best", "Ann's square-making paint lost points");
  await tid(page, "review-move-6").click();
  await page.waitForFunction(() => document.querySelector("[data-testid=replay-pos]").dataset.step === "6");
  const values = await tid(page, "review-step").textContent();
  assert(/after it: 2 points/.test(values), `the points after the square: ${values}`);
  // From step 5 (the builder placed at 3), the best paint is 2.
  await tid(page, "replay-prev").click();
  await tid(page, "review-best").click();
  const best = await tid(page, "review-best-move").textContent();
  assert(best === "paint 2", `the best move there: ${best}`);
  await shot(page, "review-thue-desktop");
  await context.close();
}));

// The same review in each language of the client, from the browser's own language (no
// choice stored): the lang attribute, the title, the plural forms of the summary and the
// verdicts' words come from the catalogues (clients/web/i18n/<lang>/review.json).
const LANGS = [
  { locale: "pl-PL", lang: "pl", title: "Analiza partii", ann: /Ann: 2 poważne błędy/, blunder: "poważny błąd", best: "najlepszy" },
  { locale: "sr", lang: "sr-Cyrl", title: "Анализа партије", ann: /Ann: 2 грубе грешке/, blunder: "груба грешка", best: "најбољи" },
  { locale: "ro-RO", lang: "ro", title: "Analiza partidei", ann: /Ann: 2 gafe/, blunder: "gafă", best: "cea mai bună" },
  { locale: "en-US", lang: "en", title: "Review", ann: /Ann: 2 blunders/, blunder: "blunder", best: "best" },
];

test("a review in Polish, Serbian, Romanian and English: plural forms, verdicts, the lang attribute", () => withWorld(async (browser, server) => {
  const ann = await player(server, "Ann");
  const bob = await player(server, "Bob");
  const { room } = await ann.ok({ type: "create_room", game: "nim", game_options: { heaps: [3, 4, 5] }, first_builder: "creator" });
  await bob.ok({ type: "join", room });
  await ann.ok({ type: "ready", room });
  await bob.ok({ type: "ready", room });
  await ann.state(room, (x) => x.status === "playing");
  // 3,4,5 is won for Ann: she hands it over (3,4,4), Bob hands it back (2,4,4), she hands
  // it over again (2,3,4); then Bob plays right to the end. Ann: 2 blunders, Bob: 1.
  const plan = [[ann, { heap: 2, take: 1 }], [bob, { heap: 0, take: 1 }], [ann, { heap: 1, take: 1 }],
    [bob, { heap: 2, take: 3 }], [ann, { heap: 0, take: 2 }], [bob, { heap: 1, take: 2 }],
    [ann, { heap: 1, take: 1 }], [bob, { heap: 2, take: 1 }]];
  for (const [who, move] of plan) await who.ok({ type: "move", room, move });
  const end = await ann.next("match_end");
  for (const L of LANGS) {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: L.locale });
    const page = await context.newPage();
    page.setDefaultTimeout(15000);
    page.on("pageerror", (e) => console.log(`[${L.locale}] page error: ${e.message}`));
    await page.goto(`${server.url}/#/match/${end.match_id}`);
    const summary = tid(page, "review-summary");
    await summary.waitFor();
    assert((await page.evaluate(() => document.documentElement.lang)) === L.lang, `${L.locale}: lang="${L.lang}"`);
    assert((await page.locator("[data-testid=review] h3").textContent()) === L.title, `${L.locale}: the title`);
    const text = await summary.textContent();
    assert(L.ann.test(text), `${L.locale}: Ann's plural: ${text}`);
    assert((await tid(page, "review-verdict-1").textContent()) === L.blunder, `${L.locale}: move 1's verdict`);
    assert((await tid(page, "review-verdict-4").textContent()) === L.best, `${L.locale}: move 4's verdict`);
    await shot(page, `review-nim-${L.lang}-phone`);
    await context.close();
  }
}));

await run();
