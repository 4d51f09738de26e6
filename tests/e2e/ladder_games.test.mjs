// ladder_games.test.mjs: the ladder page for every game, against the real server in
// Debian's Chromium. The page chooses a game and its pool (Thue's variant and k; Nim's
// misère box; Northcott's rows and columns; the circle's fields; Rims's one pool) by its
// form and by its address, and asks GET /api/ladder for that pool (game and game_options).
// Two accounts play a rated misère Nim match by clicks: their seat cards show the ratings
// and the change, and the misère Nim ladder lists both with the ratings the match gave,
// while the normal Nim ladder and the Thue ladder do not. A rated quick match of Nim
// against the server's bot puts both on normal Nim's ladder.
//   node tests/e2e/ladder_games.test.mjs --server build/server/thue-server [--only NAME-PART]
import * as lib from "./lib.mjs";
import { test, run, newPage, tid, assert, withWorld as world } from "./lib.mjs";
import { get } from "../integration/lib.mjs";
import { createGameRoom, playGameToEnd } from "./gameslib.mjs";

const withWorld = (fn) => world(fn, ["--claims-per-ip", "100", "--rate", "1000", "--burst", "1000"]);

const loaded = (page) => page.waitForFunction(() => {
  const body = document.getElementById("page-body");
  const out = document.querySelector("[data-testid=ladder]");
  return body.dataset.loaded === "1" && out && out.dataset.loaded === "1";
});

/** The query of the page's address (after #/ladder?) as an object. */
const hashQuery = (page) => page.evaluate(() => Object.fromEntries(new URLSearchParams(location.hash.split("?")[1] || "")));

/** Resolves to the game and parsed game_options of the next /api/ladder request page makes
 * while act() runs (Thue's: variant and k). */
async function ladderRequest(page, act) {
  const [req] = await Promise.all([page.waitForRequest((r) => r.url().includes("/api/ladder?"), { timeout: 10000 }), act()]);
  const q = new URL(req.url()).searchParams;
  return { game: q.get("game"), options: q.get("game_options") ? JSON.parse(q.get("game_options")) : null, variant: q.get("variant"), k: q.get("k"), kind: q.get("kind") };
}

test("the ladder page chooses a game and its pool by its form and its address", () => withWorld(async (browser, server) => {
  const page = await newPage(browser, server, "ann");

  // An address names Nim's misère pool: the form shows it and the page asks for it.
  let r = await ladderRequest(page, () => page.goto(`${server.url}/#/ladder?game=nim&misere=1`));
  assert(r.game === "nim" && JSON.stringify(r.options) === '{"misere":true}' && r.kind === "all", `misère Nim's pool asked: ${JSON.stringify(r)}`);
  await loaded(page);
  assert(await tid(page, "lp-game").inputValue() === "nim", "the game select says Nim");
  assert(await tid(page, "lgo-misere").isChecked(), "the misère box is ticked");
  assert(await tid(page, "lp-k").count() === 0 && await tid(page, "lgo-heaps").count() === 0, "neither Thue's k nor the heaps (not in the pool's key)");
  await tid(page, "ladder-pool").filter({ hasText: "Nim, misère play" }).waitFor();

  // Unticking it is the normal pool's address.
  r = await ladderRequest(page, () => tid(page, "lgo-misere").uncheck());
  assert(r.game === "nim" && r.options.misere === false, `normal Nim asked: ${JSON.stringify(r)}`);
  await loaded(page);
  let q = await hashQuery(page);
  assert(q.game === "nim" && q.misere === "0", `the address: ${JSON.stringify(q)}`);
  await tid(page, "ladder-pool").filter({ hasText: "Nim, normal play" }).waitFor();

  // Northcott's game: rows and columns, its defaults first, then 6 x 8.
  r = await ladderRequest(page, () => tid(page, "lp-game").selectOption("northcott"));
  assert(r.game === "northcott" && JSON.stringify(r.options) === '{"rows":8,"cols":8}', `Northcott 8x8: ${JSON.stringify(r)}`);
  await loaded(page);
  await tid(page, "lgo-rows").fill("6");
  r = await ladderRequest(page, () => tid(page, "lp-show").click());
  assert(JSON.stringify(r.options) === '{"rows":6,"cols":8}', `Northcott 6x8: ${JSON.stringify(r)}`);
  await loaded(page);
  q = await hashQuery(page);
  assert(q.game === "northcott" && q.rows === "6" && q.cols === "8", `the address: ${JSON.stringify(q)}`);
  await tid(page, "ladder-pool").filter({ hasText: "6 × 8" }).waitFor();

  // The pool's fields fit a phone.
  await page.setViewportSize({ width: 375, height: 800 });
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  assert(wide <= 375, `the Northcott ladder is ${wide} px wide on a 375 px phone`);
  await page.setViewportSize({ width: 900, height: 900 });

  // A bad size is refused beside its field, and nothing is asked.
  await tid(page, "lgo-cols").fill("99");
  await tid(page, "lp-show").click();
  await tid(page, "lgo-cols-err").filter({ hasText: "Columns: 2 to 32" }).waitFor();
  q = await hashQuery(page);
  assert(q.cols === "8", `the address keeps the last good pool: ${JSON.stringify(q)}`);

  // The circle game's pool is its number of fields; Rims has one pool.
  r = await ladderRequest(page, () => tid(page, "lp-game").selectOption("circle"));
  assert(r.game === "circle" && JSON.stringify(r.options) === '{"fields":12}', `circle of 12: ${JSON.stringify(r)}`);
  await loaded(page);
  r = await ladderRequest(page, () => tid(page, "lp-game").selectOption("rims"));
  assert(r.game === "rims" && JSON.stringify(r.options) === "{}", `Rims: ${JSON.stringify(r)}`);
  await loaded(page);
  assert(await page.locator("[data-testid=lp-pool-fields] input").count() === 0, "Rims has no pool field");

  // The options written as JSON in the address; the kind kept.
  r = await ladderRequest(page, () => page.goto(`${server.url}/#/ladder?game=circle&options=${encodeURIComponent('{"fields":9}')}&kind=human`));
  assert(r.game === "circle" && r.options.fields === 9 && r.kind === "human", `circle of 9, people: ${JSON.stringify(r)}`);
  await loaded(page);
  assert(await tid(page, "lgo-fields").inputValue() === "9", "the fields box says 9");

  // Back to Thue: its fields and its addresses, as before.
  r = await ladderRequest(page, () => tid(page, "lp-game").selectOption("thue"));
  assert(r.game === null && r.variant && r.k, `Thue asked by variant and k: ${JSON.stringify(r)}`);
  await loaded(page);
  r = await ladderRequest(page, () => page.goto(`${server.url}/#/ladder?variant=overlap&k=3`));
  assert(r.game === null && r.variant === "overlap" && r.k === "3", `overlap-free k = 3: ${JSON.stringify(r)}`);
  await loaded(page);
  assert(await tid(page, "lp-game").inputValue() === "thue" && await tid(page, "lp-variant").inputValue() === "overlap" && await tid(page, "lp-k").inputValue() === "3", "the Thue form shows the address's pool");

  // Back returns to the previous pool, and again to the circle of 9.
  r = await ladderRequest(page, () => page.goBack());
  assert(r.game === null && r.variant === "square" && r.k === "4", `Back: square-free k = 4 (the first screen's pool): ${JSON.stringify(r)}`);
  await loaded(page);
  r = await ladderRequest(page, () => page.goBack());
  assert(r.game === "circle" && r.options.fields === 9, `Back: the circle of 9 again: ${JSON.stringify(r)}`);
  await loaded(page);
  assert(await tid(page, "lp-game").inputValue() === "circle", "the form says the circle game");
}));

/** A fresh account's page (this test moves between pages by address). */
const account = (browser, server, name) => lib.account(browser, server, name, { noReload: false });

/** The names and ratings of a page's ladder table. */
const ladderRows = (page) => page.locator("[data-testid=ladder-table] tbody tr").evaluateAll((rows) =>
  rows.map((r) => ({ name: r.children[1].textContent, rating: r.children[3].textContent })));

test("two accounts play a rated misère Nim match; its ladder shows them, normal Nim's and Thue's do not", () => withWorld(async (browser, server) => {
  const ann = await account(browser, server, "Ann");
  const bob = await account(browser, server, "Bob");
  // The create form offers rated for Nim too.
  await tid(ann, "c-game").selectOption("nim");
  assert(await tid(ann, "c-rated").isVisible() && await tid(ann, "c-rated").isEnabled(), "rated is offered for Nim to an account");
  await tid(ann, "c-rated").check();
  const room = await createGameRoom(ann, "nim", { heaps: "2 3", misere: true });
  await tid(ann, "room-info").filter({ hasText: "rated" }).waitFor();
  await tid(bob, "join-room").fill(room);
  await tid(bob, "join").click();
  await tid(bob, "game").waitFor();
  await tid(ann, "seat-1").filter({ hasText: "Bob" }).waitFor();
  for (const p of [ann, bob]) await tid(p, "role-0").filter({ hasText: /rating \d+/ }).waitFor();

  await tid(ann, "ready").click();
  await tid(bob, "ready").click();
  await Promise.all([playGameToEnd(ann), playGameToEnd(bob)]);

  // Each sees its new rating, with the change, in the result and on its seat card.
  const mine = {};
  for (const [p, seat, name] of [[ann, 0, "Ann"], [bob, 1, "Bob"]]) {
    await tid(p, "result").filter({ hasText: "Your rating" }).waitFor();
    const said = /Your rating: (\d+) → (\d+)/.exec(await tid(p, "result").textContent());
    assert(said && said[1] !== said[2], `${name}'s rating moved: ${said}`);
    const card = await tid(p, `role-${seat}`).textContent();
    assert(card.includes(`rating ${said[2]} (`), `${name}'s card shows ${said[2]}: ${card}`);
    mine[name] = Number(said[2]);
  }

  // The misère Nim ladder (from the lobby's link, then the form) lists both.
  await tid(ann, "nav-lobby").click();
  await tid(ann, "ladder-link").click();
  await loaded(ann);
  await ladderRequest(ann, () => tid(ann, "lp-game").selectOption("nim"));
  await loaded(ann);
  const r = await ladderRequest(ann, () => tid(ann, "lgo-misere").check());
  assert(r.game === "nim" && r.options.misere === true, `misère Nim asked: ${JSON.stringify(r)}`);
  await loaded(ann);
  assert((await hashQuery(ann)).misere === "1", "misère Nim's address");
  await tid(ann, "ladder-table").waitFor();
  const rows = await ladderRows(ann);
  assert(rows.length === 2, `two rated players: ${JSON.stringify(rows)}`);
  for (const n of ["Ann", "Bob"]) {
    const row = rows.find((x) => x.name === n);
    assert(row && Number(row.rating.replace("?", "")) === mine[n], `${n} at ${mine[n]}: ${JSON.stringify(rows)}`);
  }
  const api = (await get(server, `/api/ladder?game=nim&game_options=${encodeURIComponent('{"misere":true}')}&kind=all`)).json;
  assert(api.game === "nim" && api.total === 2 && typeof api.pool === "string", `the server's pool: ${JSON.stringify(api)}`);
  await tid(ann, "ladder-pool").filter({ hasText: api.pool }).waitFor();

  // Normal Nim's pool and Thue's do not have them.
  await ladderRequest(ann, () => tid(ann, "lgo-misere").uncheck());
  await loaded(ann);
  assert(await tid(ann, "ladder-table").count() === 0, "nobody in normal Nim's pool");
  await tid(ann, "ladder").filter({ hasText: "Nobody is rated" }).waitFor();
  await ladderRequest(ann, () => ann.goto(`${server.url}/#/ladder?variant=square&k=3`));
  await loaded(ann);
  const thue = await ann.locator("[data-testid=ladder-table] tbody tr").allTextContents();
  assert(!thue.some((t) => t.includes("Ann") || t.includes("Bob")), `not on Thue's ladder: ${thue}`);
}));

test("a rated quick match of Nim against the server's bot puts both on normal Nim's ladder", () => withWorld(async (browser, server) => {
  const ann = await account(browser, server, "Ann");
  await tid(ann, "q-game").selectOption("nim");
  assert(await tid(ann, "q-rated").isEnabled(), "rated quick match is offered to an account");
  await tid(ann, "q-rated").check();
  await tid(ann, "q-bot").fill("1");
  await tid(ann, "quick").click();
  await tid(ann, "game").waitFor({ timeout: 15000 });
  await tid(ann, "room-info").filter({ hasText: "rated" }).waitFor();
  await playGameToEnd(ann);
  await tid(ann, "result").filter({ hasText: "Your rating" }).waitFor();
  const said = /Your rating: (\d+) → (\d+)/.exec(await tid(ann, "result").textContent());
  assert(said && said[1] !== said[2], `Ann's rating moved: ${said}`);
  const bot = (await tid(ann, "seat-1").textContent()).includes("(you)") ? 0 : 1;
  const botName = (await tid(ann, `seat-${bot}`).locator(".seat-name").textContent()).replace(" (bot)", "");

  await ladderRequest(ann, () => ann.goto(`${server.url}/#/ladder?game=nim&misere=0`));
  await loaded(ann);
  const rows = await ladderRows(ann);
  assert(rows.length === 2 && rows.some((x) => x.name === "Ann" && Number(x.rating.replace("?", "")) === Number(said[2])) && rows.some((x) => x.name === botName),
    `Ann at ${said[2]} and ${botName}: ${JSON.stringify(rows)}`);
  await ladderRequest(ann, () => tid(ann, "lgo-misere").check());
  await loaded(ann);
  assert(await tid(ann, "ladder-table").count() === 0, "nobody in misère Nim's pool");
}));

await run();
