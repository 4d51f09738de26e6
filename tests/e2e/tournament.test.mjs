// tournament.test.mjs: tournaments in the browser client (issue 16), against the real
// server in Debian's Chromium. Three people create, join, leave, start and play a round
// robin to its end by clicks, never reloading: each new round's game comes on screen by
// itself (or through the "your next game is ready" banner when a page is on screen), a
// tournament room offers no rematch, and the final standings link every game's replay. A
// player busy in another room gets a banner instead of a switch.
//   node tests/e2e/tournament.test.mjs --server build/server/thue-server [--only NAME-PART]
// With THUE_SHOTS=DIR, each new screen is also saved there at 1280x800 and 390x844.
import fs from "node:fs";
import path from "node:path";
import { test, run, newPage, enter, tid, assert, account, pageLoaded, withWorld as world } from "./lib.mjs";
import { get } from "../integration/lib.mjs";

const LIFTS = ["--claims-per-ip", "100", "--tournaments-per-account", "100", "--tournaments-per-ip", "100",
  "--tournament-rate", "100", "--rate", "1000", "--burst", "1000"];

/** A fresh server (with the limits lifted) and browser for fn. */
const withWorld = (fn) => world(fn, LIFTS);

const SIZES = [["desktop", 1280, 800], ["phone", 390, 844]];

/** Saves the page at both sizes into $THUE_SHOTS (nothing when it is unset). */
async function shots(page, name) {
  const dir = process.env.THUE_SHOTS;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  const was = page.viewportSize();
  for (const [label, width, height] of SIZES) {
    await page.setViewportSize({ width, height });
    await page.screenshot({ path: path.join(dir, `tour-${name}-${label}.png`), fullPage: true });
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    assert(wide <= width, `${name}: ${wide} px wide on a ${width} px screen`);
  }
  await page.setViewportSize(was);
}

const loaded = pageLoaded;

/** From the lobby to a tournament's page by its links. */
async function openTournament(page, id) {
  await tid(page, "tournaments-link").click();
  await loaded(page);
  await tid(page, `tournament-${id}`).click();
  await tid(page, "tournament-name").waitFor();
  await loaded(page);
}

/** Creates a round robin from #/tournaments; resolves to its id once its page shows. */
async function createTournament(page, { name, k = 2, limit = 3, clockMinutes = 5, max = 4, enterMe = true, onForm }) {
  await tid(page, "tournaments-link").click();
  await tid(page, "t-create").waitFor();
  await tid(page, "t-name").fill(name);
  await tid(page, "t-format").selectOption("round_robin");
  await tid(page, "t-variant").selectOption("square");
  await tid(page, "t-k").fill(String(k));
  await tid(page, "t-limit").fill(String(limit));
  await tid(page, "t-clock").fill(String(clockMinutes));
  await tid(page, "t-max").fill(String(max));
  if (!enterMe) await tid(page, "t-enter").uncheck();
  if (onForm) await onForm();
  await tid(page, "t-create-submit").click();
  await page.waitForFunction(() => location.hash.startsWith("#/tournament/"));
  await loaded(page);
  return page.evaluate(() => decodeURIComponent(location.hash.slice("#/tournament/".length)));
}

/** Plays page's part of a tournament by clicks until the server says it is finished:
 * the last gap and the first symbol, as soon as it is page's turn; "Go to the game" when
 * the banner offers it. Notes every room page played in and how it got there. */
async function playTournament(page, server, id, seen) {
  for (let i = 0; ; i++) {
    assert(i < 400, `${page.label}: the tournament ends`);
    const what = await page.waitForFunction(() => {
      const next = document.querySelector("[data-testid=next-game]");
      if (next && !next.hidden) return "next";
      const game = document.querySelector("[data-testid=game]");
      if (!game || game.hidden) return false;
      if (document.querySelector("[data-testid=word] .gap:not([disabled])")) return "place";
      if (document.querySelector("[data-testid^=sym-]:not([disabled])")) return "paint";
      return false;
    }, null, { timeout: 1500, polling: 50 }).then((h) => h.jsonValue()).catch(() => null);
    if (what === null) {
      const t = (await get(server, `/api/tournaments/${id}`)).json;
      if (t.status === "finished") return;
      continue;
    }
    if (what === "next") {
      seen.banners++;
      if (seen.onBanner) { await seen.onBanner(); seen.onBanner = null; }
      await tid(page, "next-game-go").click();
      await tid(page, "game").waitFor();
      continue;
    }
    const room = await tid(page, "game").getAttribute("data-room");
    if (!seen.rooms.has(room)) {
      seen.rooms.add(room);
      assert(await tid(page, "clock-0").isVisible(), `${page.label}: the tournament room shows its clock`);
      if (seen.onGame) { await seen.onGame(); seen.onGame = null; }
    }
    const target = what === "place" ? page.locator("[data-testid=word] .gap:not([disabled])").last()
      : page.locator("[data-testid^=sym-]:not([disabled])").first();
    await target.click();
    seen.moves++;
  }
}

test("three people create, join, leave, start and play a round robin to its end without a reload", () => withWorld(async (browser, server) => {
  const [ann, bob, cid] = [await account(browser, server, "Ann"), await account(browser, server, "Bob"), await account(browser, server, "Cid")];

  const id = await createTournament(ann, { name: "Browser cup", onForm: () => shots(ann, "create") });
  await tid(ann, "entrant-Ann").waitFor();
  await tid(ann, "tournament-info").filter({ hasText: "open" }).waitFor();
  await tid(ann, "tournament-info").filter({ hasText: "a round ends at" }).waitFor(); // the points limit, said as such
  await tid(ann, "t-leave").waitFor();
  await tid(ann, "t-start").waitFor(); // its creator may start it
  await shots(ann, "created");

  // Bob joins: Ann's page shows him without a refresh (a tournament_event redraws it).
  await openTournament(bob, id);
  assert(await tid(bob, "t-start").count() === 0, "no Start for another's tournament");
  await tid(bob, "t-join").click();
  await tid(bob, "entrant-Bob").waitFor();
  await tid(bob, "t-leave").waitFor();
  await tid(ann, "entrant-Bob").waitFor();

  // Cid joins, leaves (before the start) and joins again.
  await openTournament(cid, id);
  await tid(cid, "t-join").click();
  await tid(cid, "entrant-Cid").waitFor();
  await tid(cid, "t-leave").click();
  await tid(cid, "t-join").waitFor();
  assert(await tid(cid, "entrant-Cid").count() === 0, "Cid left");
  await tid(ann, "entrant-Cid").waitFor({ state: "detached" });
  await tid(cid, "t-join").click();
  await tid(cid, "entrant-Cid").waitFor();
  await tid(ann, "entrant-Cid").waitFor();
  await shots(bob, "open");

  await tid(ann, "t-start").click();
  await tid(ann, "tournament-info").filter({ hasText: "running" }).waitFor();

  const stats = new Map([ann, bob, cid].map((p) => [p, { rooms: new Set(), moves: 0, banners: 0 }]));
  stats.get(ann).onBanner = () => shots(ann, "banner");
  stats.get(bob).onGame = () => shots(bob, "game");
  await Promise.all([ann, bob, cid].map((p) => playTournament(p, server, id, stats.get(p))));

  const t = (await get(server, `/api/tournaments/${id}`)).json;
  assert(t.status === "finished" && t.round_list.length === 3, `a 3-round round robin: ${JSON.stringify(t)}`);
  const all = new Set();
  let banners = 0;
  for (const [p, s] of stats) {
    assert(s.rooms.size === 2, `${p.label} played two games: ${[...s.rooms]}`);
    assert(s.moves > 0, `${p.label} moved`);
    for (const r of s.rooms) all.add(r);
    banners += s.banners;
    assert(await p.evaluate(() => window.thueNoReload === true), `${p.label} never reloaded`);
    // Its last game is over: a result, no Rematch, a way to the standings.
    await tid(p, "result").waitFor();
    assert(await tid(p, "rematch").isHidden(), `${p.label}: no rematch in a tournament room`);
    await tid(p, "tour-link").waitFor();
  }
  assert(all.size === 3, `three games: ${[...all]}`);
  assert(banners < 6, `some games came on screen by themselves (${banners} banners for 6 seats)`);
  console.log(`     6 games entered: ${banners} through the banner, ${6 - banners} by themselves`);
  await shots(cid, "finished-room");

  // The standings, from the finished room's link, with every game's replay.
  await tid(ann, "tour-link").click();
  await tid(ann, "tournament-info").filter({ hasText: "finished" }).waitFor();
  await loaded(ann);
  const rows = await ann.locator("[data-testid=standings] tbody tr").allTextContents();
  assert(rows.length === 3, `three standings rows: ${rows}`);
  t.standings.forEach((s, i) => assert(rows[i].includes(s.name) && rows[i].includes(String(s.points)), `row ${i}: ${rows[i]}`));
  const replays = ann.locator("[data-testid^=t-replay-]");
  assert(await replays.count() === 3, `three replay links: ${await replays.count()}`);
  assert(await tid(ann, "t-join").count() === 0 && await tid(ann, "t-start").count() === 0, "no joining or starting a finished tournament");
  await shots(ann, "standings");
  // On a 360 px phone every column of the standings shows (no table scrolled or clipped).
  const was = ann.viewportSize();
  await ann.setViewportSize({ width: 360, height: 740 });
  const clipped = await ann.locator("[data-testid=standings]").evaluate((w) => w.scrollWidth - w.clientWidth);
  assert(clipped <= 0, `the standings are ${clipped} px wider than a 360 px phone`);
  await ann.setViewportSize(was);
  const room = [...all][0];
  await tid(ann, `t-replay-${room}`).click();
  await tid(ann, "replay-result").waitFor();
  await loaded(ann);
  const rec = (await get(server, `/api/matches/${await ann.evaluate(() => decodeURIComponent(location.hash.slice("#/match/".length)))}`)).json;
  assert(rec.room === room && rec.tournament === id, `the replay is that game's: ${rec.room} ${rec.tournament}`);
}));

test("a guest cannot create or join; an entrant on a page gets a banner or Go to your game; no Rematch after a reload", () => withWorld(async (browser, server) => {
  const ann = await account(browser, server, "Ann");
  const id = await createTournament(ann, { name: "Guest view", enterMe: false });
  await tid(ann, "t-join").waitFor(); // not entered: Join is offered
  await tid(ann, "entrants").filter({ hasText: "Nobody" }).waitFor();
  await tid(ann, "t-join").click();
  await tid(ann, "entrant-Ann").waitFor();

  const gus = await newPage(browser, server, "gus");
  await enter(gus, "Gus");
  await tid(gus, "tournaments-link").click();
  await tid(gus, "t-create-note").filter({ hasText: "claim" }).waitFor();
  await tid(gus, `tournament-${id}`).click();
  await tid(gus, "t-account-note").waitFor();
  assert(await tid(gus, "t-join").count() === 0, "no Join for a guest");

  // A bot entrant; Ann, watching another room when the game begins, gets the banner.
  await tid(ann, "t-bot").selectOption("nested:1");
  await tid(ann, "t-add-bot").click();
  await tid(ann, "entrant-nested:1").waitFor();
  await tid(ann, "t-remove-nested:1").click(); // a bot's entry taken out again
  await tid(ann, "entrant-nested:1").waitFor({ state: "detached" });
  await tid(ann, "t-bot").selectOption("greedy");
  await tid(ann, "t-add-bot").click();
  await tid(ann, "entrant-greedy").waitFor();
  await tid(ann, "t-start").click();
  await tid(ann, "next-game").waitFor();
  // "not now" keeps the page; its rounds offer "Go to your game" instead of Watch.
  await tid(ann, "next-game-dismiss").click();
  await tid(ann, "next-game").waitFor({ state: "hidden" });
  const play = ann.locator("[data-testid^=t-play-]");
  await play.waitFor();
  const room = (await play.getAttribute("data-testid")).slice("t-play-".length);
  assert(await tid(ann, `t-watch-${room}`).count() === 0, "no Watch for one's own game");
  await play.click();
  await ann.waitForFunction((r) => !document.getElementById("game").hidden && document.getElementById("game").dataset.room === r, room);
  await tid(ann, "room-info").filter({ hasText: "you are playing" }).waitFor();
  await tid(ann, "clock-0").filter({ hasText: /^[45]:/ }).waitFor(); // its 5-minute clock

  // Ann plays it out; after a reload into the finished room there is still no Rematch
  // (room_state names its tournament).
  for (let moves = 0; await tid(ann, "result").isHidden(); moves++) {
    assert(moves < 40, "the game ends");
    const what = await ann.waitForFunction(() => {
      if (!document.querySelector("[data-testid=result]").hidden) return "over";
      if (document.querySelector("[data-testid=word] .gap:not([disabled])")) return "place";
      if (document.querySelector("[data-testid^=sym-]:not([disabled])")) return "paint";
      return false;
    }).then((h) => h.jsonValue());
    if (what === "place") await ann.locator("[data-testid=word] .gap:not([disabled])").last().click();
    else if (what === "paint") await ann.locator("[data-testid^=sym-]:not([disabled])").last().click();
  }
  assert(await tid(ann, "rematch").isHidden(), "no rematch");
  await ann.reload();
  await ann.waitForFunction((r) => !document.getElementById("game").hidden && document.getElementById("game").dataset.room === r, room);
  await tid(ann, "result").waitFor();
  await tid(ann, "tour-link").waitFor();
  assert(await tid(ann, "rematch").isHidden(), "no rematch after a reload either");
}));

test("a player in another room's game gets a banner, not a switch, when its tournament game begins", () => withWorld(async (browser, server) => {
  const bob = await account(browser, server, "Bob");
  const id = await createTournament(bob, { name: "Bob's cup", enterMe: false });
  await tid(bob, "t-bot").selectOption("greedy");
  await tid(bob, "t-add-bot").click();
  await tid(bob, "entrant-greedy").waitFor();

  const ann = await account(browser, server, "Ann");
  await openTournament(ann, id);
  await tid(ann, "t-join").click();
  await tid(ann, "entrant-Ann").waitFor();
  // Back in the lobby Ann sits down in a room of her own, waiting for an opponent.
  await tid(ann, "page-back").click();
  await tid(ann, "create").click();
  await tid(ann, "game").waitFor();
  const own = await tid(ann, "game").getAttribute("data-room");

  await tid(bob, "entrant-Ann").waitFor();
  await tid(bob, "t-start").click();
  await tid(ann, "next-game").filter({ hasText: "against Beginner (computer)" }).waitFor();
  assert(await tid(ann, "game").getAttribute("data-room") === own, "Ann's own room stays on screen");
  await shots(ann, "banner-in-room");
  await tid(ann, "next-game-go").click();
  await ann.waitForFunction((r) => document.getElementById("game").dataset.room !== r, own);
  await tid(ann, "room-info").filter({ hasText: "you are playing" }).waitFor();
  await tid(ann, "seat-0").filter({ hasText: /Ann|greedy/ }).waitFor();
  await tid(ann, "seat-1").filter({ hasText: /Ann|greedy/ }).waitFor();
  await tid(ann, "clock-0").waitFor();
  assert(await tid(ann, "next-game").isHidden(), "the banner is gone");
}));

test("a Swiss tournament is created with its number of rounds", () => withWorld(async (browser, server) => {
  const ann = await account(browser, server, "Ann");
  await tid(ann, "tournaments-link").click();
  await tid(ann, "t-create").waitFor();
  assert(await tid(ann, "t-rounds").isHidden(), "no rounds for a round robin");
  await tid(ann, "t-name").fill("Swiss night");
  await tid(ann, "t-format").selectOption("swiss");
  await tid(ann, "t-rounds").fill("4");
  await tid(ann, "t-variant").selectOption("overlap");
  await tid(ann, "t-k").fill("3");
  await tid(ann, "t-create-submit").click();
  await tid(ann, "tournament-info").filter({ hasText: "swiss" }).waitFor();
  const id = await ann.evaluate(() => decodeURIComponent(location.hash.slice("#/tournament/".length)));
  const t = (await get(server, `/api/tournaments/${id}`)).json;
  assert(t.format === "swiss" && t.rounds === 4 && t.variant === "overlap" && t.k === 3 && t.clock === null, `as asked: ${JSON.stringify(t)}`);
  await tid(ann, "entrant-Ann").waitFor();
}));

await run();
