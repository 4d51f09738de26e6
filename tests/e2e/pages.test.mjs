// pages.test.mjs: accounts, the ladder, match replay and tournament pages of the web
// client, against the real server (one per test) in Debian's Chromium. Run:
//   node tests/e2e/pages.test.mjs --server build/server/thue-server [--only NAME-PART]
// The tournament's data is made with a WebSocket client (tests/integration/lib.mjs); the
// rest is clicks and keys.
import { test, run, newPage, enter, createRoom, tid, shot, assert, withWorld, playToEnd, installHitProbe } from "./lib.mjs";
import { player, get } from "../integration/lib.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function goto(page, server, hash) {
  const same = await page.evaluate((h) => location.hash === h, hash).catch(() => false);
  await page.goto(`${server.url}/${hash}`);
  if (same) await page.reload(); // the same hash again: no hashchange, so load it afresh
  await page.waitForFunction(() => document.getElementById("page-body").dataset.loaded === "1");
}

/** The replay word's symbols (the `?` of a placed gap left out). */
function replayWord(page) {
  return page.locator("[data-testid=replay-word] .tile:not(.placed-mark)").allTextContents().then((a) => a.map(Number));
}

test("a person claims a name, reloads and is still the account; the token logs in elsewhere", () => withWorld(async (browser, server) => {
  const ann = await newPage(browser, server, "ann");
  await enter(ann, "Ann");
  await tid(ann, "me-kind").filter({ hasText: "guest" }).waitFor();
  await tid(ann, "claim").click();
  const token = (await tid(ann, "account-token").textContent()).trim();
  assert(token.length > 0, "the token is shown");
  await tid(ann, "me-kind").filter({ hasText: "account" }).waitFor();
  assert(await tid(ann, "claim").isHidden(), "no second claim");
  assert(await ann.evaluate(() => localStorage.getItem("thue.token")) === token, "the token is stored");
  // Copy puts the token on the clipboard.
  await ann.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
  await tid(ann, "copy-token").click();
  await tid(ann, "copy-token").filter({ hasText: "Copied" }).waitFor();
  assert(await ann.evaluate(() => navigator.clipboard.readText()) === token, "the clipboard holds the token");
  await shot(ann, "p1-claimed");

  await ann.reload();
  await tid(ann, "me").filter({ hasText: "Ann" }).waitFor();
  await tid(ann, "me-kind").filter({ hasText: "account" }).waitFor();

  // Without a resume token the stored account token is used.
  await ann.evaluate(() => localStorage.removeItem("thue.resume"));
  await ann.reload();
  await tid(ann, "me-kind").filter({ hasText: "account" }).waitFor();
  assert((await tid(ann, "me").textContent()) === "Ann", "same name by token");

  // Another browser logs in with the token from the start screen.
  const other = await newPage(browser, server, "other");
  await tid(other, "token-input").fill(token);
  await tid(other, "token-login").click();
  await tid(other, "me").filter({ hasText: "Ann" }).waitFor();
  await tid(other, "me-kind").filter({ hasText: "account" }).waitFor();
}));

test("a rated match against nested:1 moves the ladder; its replay steps through every move", () => withWorld(async (browser, server) => {
  const ann = await newPage(browser, server, "ann");
  await enter(ann, "Ann");
  await tid(ann, "claim").click();
  await tid(ann, "me-kind").filter({ hasText: "account" }).waitFor();

  // The ladder is empty first (and says so).
  await goto(ann, server, "#/ladder");
  await tid(ann, "lp-k").fill("3");
  await tid(ann, "lp-show").click();
  await tid(ann, "ladder").filter({ hasText: "Nobody is rated" }).waitFor();
  await ann.goto(`${server.url}/#/lobby`);
  await tid(ann, "me").filter({ hasText: "Ann" }).waitFor();

  await tid(ann, "c-k").fill("3");
  await tid(ann, "c-limit").fill("5");
  await tid(ann, "c-first").selectOption("creator");
  await tid(ann, "c-rated").check();
  await tid(ann, "create").click();
  await tid(ann, "game").waitFor();
  await tid(ann, "room-info").filter({ hasText: "rated" }).waitFor();
  await tid(ann, "bot-spec").selectOption("nested:1");
  await tid(ann, "bot-think").fill("10");
  await tid(ann, "seat-bot").click();
  await tid(ann, "seat-1").filter({ hasText: "nested:1" }).waitFor();
  await tid(ann, "ready").click();
  await playToEnd(ann);
  await tid(ann, "replay-link").waitFor();
  await tid(ann, "result").filter({ hasText: "Your rating" }).waitFor();
  await shot(ann, "p2-rated-over");

  // The ladder has both now.
  await goto(ann, server, "#/ladder");
  await tid(ann, "lp-k").fill("3");
  await tid(ann, "lp-show").click();
  await tid(ann, "ladder-table").waitFor();
  const rows = await ann.locator("[data-testid=ladder-table] tbody tr").allTextContents();
  assert(rows.length === 2, `two rated entries: ${rows}`);
  assert(rows.some((r) => r.includes("Ann")) && rows.some((r) => r.includes("nested:1")), `names: ${rows}`);
  await tid(ann, "lp-kind").selectOption("bot");
  await ann.waitForFunction(() => document.querySelectorAll("[data-testid=ladder-table] tbody tr").length === 1);
  await shot(ann, "p2-ladder");

  // The replay, from the result panel.
  await tid(ann, "page-back").click(); // back to the room's view
  await tid(ann, "game").waitFor();
  await tid(ann, "replay-link").click();
  await tid(ann, "replay-word").waitFor();
  const id = decodeURIComponent((await ann.evaluate(() => location.hash)).replace("#/match/", ""));
  const rec = (await get(server, `/api/matches/${encodeURIComponent(id)}`)).json;
  assert(rec && rec.moves.length > 0, "the record has moves");
  const n = rec.moves.length;
  await tid(ann, "replay-pos").filter({ hasText: `Move ${n} of ${n}` }).waitFor();
  await tid(ann, "replay-first").click();
  await tid(ann, "replay-pos").filter({ hasText: `Move 0 of ${n}` }).waitFor();
  assert(JSON.stringify(await replayWord(ann)) === "[0]", "a round starts from [0]");
  const finals = {};
  for (let i = 1; i <= n; i++) {
    await tid(ann, "replay-next").click();
    await tid(ann, "replay-pos").filter({ hasText: `Move ${i} of ${n}` }).waitFor();
    const round = Number(await tid(ann, "replay-pos").getAttribute("data-round"));
    assert(round === rec.moves[i - 1].round, `round of move ${i}`);
    finals[round] = await replayWord(ann);
  }
  rec.rounds.forEach((r, i) => {
    if (!r.word || !(i in finals)) return;
    assert(JSON.stringify(finals[i]) === JSON.stringify(r.word), `round ${i + 1}: ${finals[i]} vs ${r.word}`);
  });
  assert(Object.keys(finals).length >= 1, "some rounds replayed");
  if (rec.rounds[rec.rounds.length - 1].end === "repetition") await tid(ann, "replay-rep").filter({ hasText: "The round ended on a" }).waitFor();
  // The final line names the winner first, with the winner's points first.
  const w = rec.result.winner;
  await tid(ann, "replay-final").filter({ hasText: w === null ? `Draw` : `${rec.players[w].name} wins ${rec.points[w]}–${rec.points[1 - w]}` }).waitFor();
  if (w === null) await tid(ann, "replay-final").filter({ hasText: `${rec.points[0]}–${rec.points[1]}` }).waitFor();
  // Arrow keys.
  await ann.locator("body").press("ArrowLeft");
  await tid(ann, "replay-pos").filter({ hasText: `Move ${n - 1} of ${n}` }).waitFor();
  await ann.locator("body").press("Home");
  await tid(ann, "replay-pos").filter({ hasText: `Move 0 of ${n}` }).waitFor();
  await ann.locator("body").press("End");
  await tid(ann, "replay-pos").filter({ hasText: `Move ${n} of ${n}` }).waitFor();
  await shot(ann, "p3-replay");

  // My matches lists it.
  await goto(ann, server, "#/matches/Ann");
  await tid(ann, `replay-${id}`).waitFor();
}));

test("a player's matches page through more than one page of stored matches", () => withWorld(async (browser, server) => {
  // 52 short bot matches (one page holds 50), set up over a WebSocket.
  const org = await player(server, "Org");
  for (let i = 0; i < 52; i++) {
    const { room } = await org.ok({ type: "create_room", k: 2, limit: 3, seat: false });
    await org.ok({ type: "seat_bot", room, bot: "greedy", think_ms: 10 });
    await org.ok({ type: "seat_bot", room, bot: "nested:1", think_ms: 10 });
  }
  let j;
  for (let i = 0; i < 100; i++) {
    j = (await get(server, "/api/matches?player=greedy&page=2")).json;
    if (j && j.matches && j.matches.length === 2) break;
    await sleep(200);
  }
  assert(j && j.pages === 2 && j.matches.length === 2, `52 stored matches: ${JSON.stringify(j)}`);
  org.close();

  const page = await newPage(browser, server, "viewer");
  await goto(page, server, "#/matches/greedy");
  await tid(page, "matches-pager").filter({ hasText: "Page 1 of 2" }).waitFor();
  assert((await page.locator("[data-testid=matches] tbody tr").count()) === 50, "50 matches on page 1");
  assert((await tid(page, "matches-newer").count()) === 0, "no newer page before page 1");
  await tid(page, "matches-older").click();
  await tid(page, "matches-pager").filter({ hasText: "Page 2 of 2" }).waitFor();
  await page.waitForFunction(() => document.querySelectorAll("[data-testid=matches] tbody tr").length === 2);
  assert((await tid(page, "matches-older").count()) === 0, "no older page after the last");
  await tid(page, "matches-newer").click();
  await tid(page, "matches-pager").filter({ hasText: "Page 1 of 2" }).waitFor();
  await shot(page, "p5-matches-pages");
}, ["--max-rooms-per-player", "100", "--rate", "1000", "--burst", "1000", "--room-rate-per-ip", "1000",
    "--guest-bot-vs-bot", "1", "--bot-seats-per-owner", "1000", "--bot-seats-per-ip", "1000"]));

test("the tournaments page pages through more than 50 tournaments", () => withWorld(async (browser, server) => {
  const org = await player(server, "Org");
  await org.ok({ type: "claim_name", name: "Org" });
  const made = [];
  for (let i = 0; i < 52; i++)
    made.push((await org.ok({ type: "create_tournament", name: `Cup ${i}`, format: "round_robin", variant: "square", k: 3, max_players: 4 })).tournament);
  org.close();
  const page = await newPage(browser, server, "viewer");
  await goto(page, server, "#/tournaments");
  await tid(page, "tournaments-pager").filter({ hasText: "Page 1 of 2" }).waitFor();
  assert((await page.locator("[data-testid=tournaments] tbody tr").count()) === 50, "50 tournaments on page 1");
  assert((await tid(page, `tournament-${made[51]}`).count()) === 1, "the newest first");
  assert((await tid(page, "tournaments-newer").count()) === 0, "no newer page before page 1");
  await tid(page, "tournaments-older").click();
  await tid(page, "tournaments-pager").filter({ hasText: "Page 2 of 2" }).waitFor();
  await page.waitForFunction(() => document.querySelectorAll("[data-testid=tournaments] tbody tr").length === 2);
  assert((await tid(page, `tournament-${made[0]}`).count()) === 1, "the oldest last");
  assert((await tid(page, "tournaments-older").count()) === 0, "no older page after the last");
  await shot(page, "p6-tournaments-pages");
}, ["--tournaments-per-account", "100", "--tournaments-per-ip", "100", "--tournament-rate", "100",
    "--rate", "1000", "--burst", "1000"]));

/** Asserts that nothing on the page is wider than the screen (tables scroll inside their
 * own box) and that the named controls are big enough to tap: 24 x 24 CSS px at least,
 * WCAG 2.2's minimum target size. */
async function fitsPhone(page, what, tapIds = []) {
  await installHitProbe(page);
  const r = await page.evaluate((ids) => ({
    scroll: document.documentElement.scrollWidth,
    width: window.innerWidth,
    small: ids.flatMap((id) => [...document.querySelectorAll(`[data-testid^="${id}"]`)]
      .filter((e) => e.offsetParent !== null)
      .map((e) => [e, e.getBoundingClientRect()])
      // A gap's touch area reaches past its box (style.css): 44 x 44 px, probed (null: off
      // the screen, not judged); other controls: a box of 24 px at least (WCAG 2.2).
      .filter(([e, b]) => (id === "gap-" ? window.__hitProbe(e, 21) === false : b.width < 24 || b.height < 24))
      .map(([, b]) => `${id} ${Math.round(b.width)}x${Math.round(b.height)}`)),
  }), tapIds);
  assert(r.scroll <= r.width, `${what}: the page is ${r.scroll} px wide on a ${r.width} px screen`);
  assert(r.small.length === 0, `${what}: too small to tap: ${r.small.join(", ")}`);
}

test("on a phone screen every view fits the width and its controls can be tapped", () => withWorld(async (browser, server) => {
  const context = await browser.newContext({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  const page = await context.newPage();
  page.setDefaultTimeout(10000);
  await page.goto(server.url + "/");
  await fitsPhone(page, "the lobby before entering", ["connect"]);
  await enter(page, "Pip");
  await tid(page, "claim").click();
  await tid(page, "account-token").waitFor();
  await fitsPhone(page, "the lobby with the account token", ["create", "copy-token"]);
  await shot(page, "m1-phone-lobby");
  await createRoom(page, { k: 5, limit: 12, first: "creator" });
  await tid(page, "bot-spec").selectOption("nested:1");
  await tid(page, "bot-think").fill("10");
  await tid(page, "seat-bot").click();
  await tid(page, "seat-1").filter({ hasText: "nested:1" }).waitFor();
  await tid(page, "ready").click();
  // Moves by taps, checking the view at the builder's and the painter's fourth step.
  await playToEnd(page, {
    tap: true,
    before: async (what, n) => {
      if (n !== 3) return;
      await fitsPhone(page, `the game at the ${what} step`, what === "place" ? ["gap-"] : ["sym-"]);
      await shot(page, `m2-phone-${what}`);
    },
  });
  await fitsPhone(page, "the game's result", ["rematch", "leave"]);
  await shot(page, "m3-phone-result");
  await tid(page, "replay-link").tap();
  await page.waitForFunction(() => document.getElementById("page-body").dataset.loaded === "1");
  await fitsPhone(page, "the replay");
  await shot(page, "m4-phone-replay");
  for (const hash of ["#/ladder", "#/tournaments", "#/matches/Pip"]) {
    await goto(page, server, hash);
    await fitsPhone(page, hash);
  }
  await shot(page, "m5-phone-matches");
}));

test("the tournaments page shows a finished 4-bot round robin's standings", () => withWorld(async (browser, server) => {
  const page = await newPage(browser, server, "viewer");
  await goto(page, server, "#/tournaments");
  await tid(page, "tournaments").filter({ hasText: "No tournaments" }).waitFor();

  const org = await player(server, "Org");
  await org.ok({ type: "claim_name", name: "Org" });
  const t = (await org.ok({ type: "create_tournament", name: "Bot cup", format: "round_robin", variant: "square", k: 2, limit: 5, max_players: 8 })).tournament;
  for (const bot of ["greedy", "nested:1", "nested:2", "nested:3"]) await org.ok({ type: "join_tournament", tournament: t, bot });
  await org.ok({ type: "start_tournament", tournament: t });
  let info;
  for (let i = 0; i < 150; i++) {
    info = (await get(server, `/api/tournaments/${t}`)).json;
    if (info.status === "finished") break;
    await sleep(200);
  }
  assert(info.status === "finished", "the tournament finishes");
  org.close();

  await goto(page, server, "#/tournaments");
  await tid(page, `tournament-${t}`).click();
  await tid(page, "standings").waitFor();
  await tid(page, "tournament-info").filter({ hasText: "finished" }).waitFor();
  const rows = await page.locator("[data-testid=standings] tbody tr").allTextContents();
  assert(rows.length === 4, `four standings rows: ${rows}`);
  info.standings.forEach((s, i) => assert(rows[i].includes(s.name) && rows[i].includes(String(s.points)), `row ${i}: ${rows[i]}`));
  const games = await page.locator("[data-testid=page-body] h4 + .table-wrap tbody tr").allTextContents();
  const rooms = info.round_list.flatMap((r) => r.pairings.map((p) => p.room));
  assert(games.length === 6, `six games: ${games}`);
  for (const id of rooms) assert(await tid(page, `t-replay-${id}`).count() === 1, `the game of room ${id} links to its replay`);
  await shot(page, "p4-tournament");
  // An unknown tournament does not crash the page.
  await goto(page, server, "#/tournament/nosuch");
  await tid(page, "page-error").waitFor();
}));

test("a running tournament's game is watched from the tournament page", () => withWorld(async (browser, server) => {
  // Org enters itself against a bot and never moves, so round 1 stays running.
  const org = await player(server, "Org");
  await org.ok({ type: "claim_name", name: "Org" });
  const t = (await org.ok({ type: "create_tournament", name: "Slow cup", format: "round_robin", variant: "square", k: 3, limit: 50, max_players: 4 })).tournament;
  await org.ok({ type: "join_tournament", tournament: t });
  await org.ok({ type: "join_tournament", tournament: t, bot: "greedy" });
  await org.ok({ type: "start_tournament", tournament: t });
  let info;
  for (let i = 0; i < 50; i++) {
    info = (await get(server, `/api/tournaments/${t}`)).json;
    if (info.round_list.length > 0 && info.round_list[0].pairings[0].room) break;
    await sleep(100);
  }
  const room = info.round_list[0].pairings[0].room;
  assert(room, "round 1 has its room");

  const viewer = await newPage(browser, server, "viewer");
  await enter(viewer, "Vic");
  await goto(viewer, server, `#/tournament/${t}`);
  await tid(viewer, "tournament-info").filter({ hasText: "running" }).waitFor();
  await shot(viewer, "p5-running");
  await tid(viewer, `t-watch-${room}`).click();
  await tid(viewer, "game").waitFor();
  await viewer.waitForFunction((r) => document.querySelector("[data-testid=game]").dataset.room === r, room);
  await tid(viewer, "room-info").filter({ hasText: "you are watching" }).waitFor();
  await tid(viewer, "seat-0").filter({ hasText: /Org|greedy/ }).waitFor();
  org.close();
}));

await run();
