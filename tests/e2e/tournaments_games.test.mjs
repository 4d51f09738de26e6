// tournaments_games.test.mjs: tournaments of the other games in the browser client,
// against the real server in Debian's Chromium. An account creates a Nim round robin from
// the form (the game selector and Nim's own option fields, the room form's widgets),
// enters the perfect and the random bot and itself, starts it and plays its games on the
// Nim board (each tournament room opens in the game's board), and the finished
// tournament's page shows the standings. The list and the page name the game and its
// options; a bad option is refused beside its field before anything is sent.
//   node tests/e2e/tournaments_games.test.mjs --server build/server/thue-server [--only NAME-PART]
import { test, run, tid, assert, account, pageLoaded, withWorld as world } from "./lib.mjs";
import { get } from "../integration/lib.mjs";

const LIFTS = ["--claims-per-ip", "100", "--tournaments-per-account", "100", "--tournaments-per-ip", "100",
  "--tournament-rate", "100", "--rate", "1000", "--burst", "1000"];

const withWorld = (fn) => world(fn, LIFTS);

const loaded = pageLoaded;

/** Opens #/tournaments from the lobby's link and fills the form for a Nim round robin. */
async function fillNimForm(page, { name, heaps, misere = false, enterMe = true }) {
  await tid(page, "tournaments-link").click();
  await tid(page, "t-create").waitFor();
  await tid(page, "t-name").fill(name);
  await tid(page, "t-format").selectOption("round_robin");
  await tid(page, "t-game").selectOption("nim");
  await tid(page, "tgo-heaps").fill(heaps);
  await (misere ? tid(page, "tgo-misere").check() : tid(page, "tgo-misere").uncheck());
  await tid(page, "t-clock").fill("0");
  await tid(page, "t-max").fill("4");
  if (!enterMe) await tid(page, "t-enter").uncheck();
}

/** The move to make on the Nim board: the last token of the biggest heap (one token). */
function nimMove() {
  const b = document.querySelector("[data-testid=gboard]");
  let best = null;
  for (const h of b.querySelectorAll(".heap")) {
    const n = Number(h.dataset.size);
    if (n > 0 && (!best || n > Number(best.dataset.size))) best = h;
  }
  return best ? `token-${best.dataset.testid.slice(5)}-${Number(best.dataset.size) - 1}` : null;
}

/** Plays page's games of tournament id on the Nim board until the server says it is
 * finished; "Go to the game" when the banner offers it. Resolves to the rooms played in
 * (each checked to be a Nim board of that tournament). */
async function playNimTournament(page, server, id) {
  const rooms = new Set();
  for (let i = 0; ; i++) {
    assert(i < 300, `${page.label}: the tournament ends`);
    const what = await page.waitForFunction(() => {
      const next = document.querySelector("[data-testid=next-game]");
      if (next && !next.hidden) return "next";
      const game = document.querySelector("[data-testid=game]");
      const b = document.querySelector("[data-testid=gboard]");
      const r = document.querySelector("[data-testid=result]");
      if (!game || game.hidden || !b || b.hidden || (r && !r.hidden)) return false;
      return b.dataset.turn === "mine" && b.dataset.moves === b.dataset.shown ? "move" : false;
    }, null, { timeout: 1500, polling: 50 }).then((h) => h.jsonValue()).catch(() => null);
    if (what === null) {
      const t = (await get(server, `/api/tournaments/${id}`)).json;
      if (t.status === "finished") return rooms;
      continue;
    }
    if (what === "next") {
      await tid(page, "next-game-go").click();
      await tid(page, "game").waitFor();
      continue;
    }
    const room = await tid(page, "game").getAttribute("data-room");
    if (!rooms.has(room)) {
      rooms.add(room);
      // A tournament room of Nim opens in Nim's board, with the tournament's options.
      assert(await tid(page, "gboard").getAttribute("data-game") === "nim", "the tournament room shows the Nim board");
      assert(await tid(page, "word").isHidden(), "no Thue word in a Nim room");
      const info = await tid(page, "room-info").textContent();
      assert(info.includes("heaps 1 2") && info.includes("normal play"), `the room's options: ${info}`);
    }
    const before = await tid(page, "gboard").getAttribute("data-moves");
    const token = await page.evaluate(nimMove);
    assert(token, "a token to take on my turn");
    await tid(page, token).click();
    await page.waitForFunction((m) => {
      const b = document.querySelector("[data-testid=gboard]");
      const r = document.querySelector("[data-testid=result]");
      return (r && !r.hidden) || !b || b.dataset.moves !== m;
    }, before, { timeout: 10000 });
  }
}

test("an account makes a Nim round robin with two bots from the form, plays it on the Nim board, and sees the standings", () => withWorld(async (browser, server) => {
  const ann = await account(browser, server, "Ann");
  await fillNimForm(ann, { name: "Nim cup", heaps: "1 2" });
  await ann.setViewportSize({ width: 375, height: 800 }); // the form with Nim's fields fits a phone
  const wide = await ann.evaluate(() => document.documentElement.scrollWidth);
  assert(wide <= 375, `the tournament form is ${wide} px wide on a 375 px phone`);
  await ann.setViewportSize({ width: 900, height: 900 });
  // The game's own fields replace Thue's.
  assert(await tid(ann, "t-variant").isHidden() && await tid(ann, "t-k").isHidden() && await tid(ann, "t-limit").isHidden(), "Thue's fields hide for Nim");
  await tid(ann, "t-create-submit").click();
  await ann.waitForFunction(() => location.hash.startsWith("#/tournament/"), null, { timeout: 10000 });
  await loaded(ann);
  const id = await ann.evaluate(() => decodeURIComponent(location.hash.slice("#/tournament/".length)));

  const made = (await get(server, `/api/tournaments/${id}`)).json;
  assert(made.game === "nim" && JSON.stringify(made.game_options.heaps) === "[1,2]" && made.game_options.misere === false,
    `the server made a Nim tournament of heaps 1 2: ${JSON.stringify(made)}`);
  await tid(ann, "tournament-info").filter({ hasText: "Nim: heaps 1 2, normal play" }).waitFor();
  await tid(ann, "entrant-Ann").waitFor();

  // The bot select offers the game's bots, not Thue's.
  const bots = await ann.locator("[data-testid=t-bot] option").evaluateAll((os) => os.map((o) => o.value));
  assert(bots.includes("perfect") && bots.includes("random") && !bots.includes("greedy"), `Nim's bots: ${bots}`);
  for (const bot of ["perfect", "random"]) {
    await tid(ann, "t-bot").selectOption(bot);
    await tid(ann, "t-add-bot").click();
    await tid(ann, `entrant-${bot}`).waitFor();
  }

  // The list names the game with its options.
  await ann.goto(`${server.url}/#/tournaments`);
  await loaded(ann);
  await ann.locator(`[data-testid=tournaments] tr:has([data-testid="tournament-${id}"])`).filter({ hasText: "Nim: heaps 1 2, normal play" }).waitFor();
  await tid(ann, `tournament-${id}`).click();
  await tid(ann, "tournament-name").waitFor();
  await loaded(ann);
  await ann.evaluate(() => { window.thueNoReload = true; });

  await tid(ann, "t-start").click();
  await tid(ann, "tournament-info").filter({ hasText: /running|finished/ }).waitFor();
  const rooms = await playNimTournament(ann, server, id);
  assert(rooms.size === 2, `Ann played her two games on the Nim board: ${[...rooms]}`);

  const t = (await get(server, `/api/tournaments/${id}`)).json;
  assert(t.status === "finished" && t.round_list.length === 3 && t.standings.length === 3, `a finished 3-round round robin: ${JSON.stringify(t)}`);
  for (const r of t.round_list) for (const p of r.pairings) assert(p.result !== null, `every pairing has a result: ${JSON.stringify(p)}`);
  // Ann's last game is on screen: a result, no Rematch (a tournament game is played once),
  // and the way to the standings, which the page shows as the server has them.
  await tid(ann, "result").waitFor();
  assert(await tid(ann, "rematch").isHidden(), "no rematch in a Nim tournament room");
  await tid(ann, "tour-link").click();
  await tid(ann, "tournament-info").filter({ hasText: "finished" }).waitFor();
  await loaded(ann);
  const rows = await ann.locator("[data-testid=standings] tbody tr").allTextContents();
  assert(rows.length === 3, `three standings rows: ${rows}`);
  t.standings.forEach((s, i) => assert(rows[i].includes(s.name) && rows[i].includes(String(s.points)), `row ${i}: ${rows[i]} (${JSON.stringify(s)})`));
  // Three games of one point each (Nim has no draw) and three byes of one point each.
  const total = t.standings.reduce((a, s) => a + s.points, 0);
  assert(total === 6, `three games and three byes, a point each: ${total}`);
  assert(t.standings.every((s) => s.games === 2), `each entrant played two games: ${JSON.stringify(t.standings)}`);
}));

test("a tournament of bots only plays itself out; a bad Nim option is refused beside its field", () => withWorld(async (browser, server) => {
  const ann = await account(browser, server, "Ann");
  await fillNimForm(ann, { name: "Bad heaps", heaps: "3 x 5", enterMe: false });
  await tid(ann, "t-create-submit").click();
  await tid(ann, "tgo-heaps-err").filter({ hasText: "whole numbers" }).waitFor();
  await tid(ann, "t-error").filter({ hasText: "Check the options" }).waitFor();
  assert((await get(server, "/api/tournaments")).json.total === 0, "nothing was sent");

  // Fixed, misère, three bots and not Ann: it runs to its end by itself.
  await tid(ann, "tgo-heaps").fill("2 3");
  await tid(ann, "tgo-misere").check();
  await tid(ann, "t-create-submit").click();
  await ann.waitForFunction(() => location.hash.startsWith("#/tournament/"), null, { timeout: 10000 });
  await loaded(ann);
  const id = await ann.evaluate(() => decodeURIComponent(location.hash.slice("#/tournament/".length)));
  await tid(ann, "tournament-info").filter({ hasText: "misère" }).waitFor();
  assert(await tid(ann, "entrant-Ann").count() === 0, "Ann did not enter");
  for (const bot of ["perfect", "random", "uct:iterations=2000"]) {
    await tid(ann, "t-bot").selectOption(bot);
    await tid(ann, "t-add-bot").click();
    await ann.locator("[data-testid=entrants] li").filter({ hasText: bot.split(":")[0] }).first().waitFor();
  }
  assert(await ann.locator("[data-testid=entrants] li").count() === 3, "three bots entered");
  await tid(ann, "t-start").click();
  // Bots' games finish quickly; the page follows the tournament's events (bounded wait).
  await tid(ann, "tournament-info").filter({ hasText: "finished" }).waitFor({ timeout: 60000 });
  await loaded(ann);
  const t = (await get(server, `/api/tournaments/${id}`)).json;
  assert(t.status === "finished" && t.game === "nim" && t.game_options.misere === true, `finished misère Nim: ${JSON.stringify(t)}`);
  const rows = await ann.locator("[data-testid=standings] tbody tr").allTextContents();
  assert(rows.length === 3, `three standings rows: ${rows}`);
  t.standings.forEach((s, i) => assert(rows[i].includes(s.name) && rows[i].includes(String(s.points)), `row ${i}: ${rows[i]}`));
}));

await run();
