// lib.mjs: what the browser tests share. The real thue-server comes from
// ../integration/lib.mjs (one server per test, ephemeral port, --db :memory:); the
// browser is Debian's Chromium driven by playwright-core (never a downloaded browser).
// Each player is its own browser context, so its localStorage (name, resume token) is its
// own. Screenshots go to a directory under the OS temp dir, never into the tree.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";

export { startServer, test, run, withTimeout, WAIT_MS } from "../integration/lib.mjs";
import { startServer } from "../integration/lib.mjs";

export const CHROMIUM = process.env.THUE_CHROMIUM || "/usr/bin/chromium";
export const SHOTS = fs.mkdtempSync(path.join(os.tmpdir(), "thue-e2e-shots-"));

const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

/** Starts one headless Chromium; close it with browser.close(). Its contexts are en-US
 * unless a test names another locale: the client speaks the browser's language (i18n.js),
 * and the tests that read its words read English. */
export async function launch() {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (opts = {}) => {
    const context = await newContext({ locale: "en-US", ...opts });
    const newPage = context.newPage.bind(context);
    context.newPage = async () => readyOnLoad(await newPage());
    return context;
  };
  return browser;
}

/** The client's module waits for its catalogues (i18n.js) before it runs, so a page's load
 * event can come before its handlers are wired: goto and reload also wait for the client's
 * ready mark (<html data-ready>), on pages that load the client. */
function readyOnLoad(page) {
  for (const name of ["goto", "reload"]) {
    const plain = page[name].bind(page);
    page[name] = async (...args) => {
      const res = await plain(...args);
      await page.waitForFunction(() => document.documentElement.dataset.ready === "1" || !document.querySelector("script[src='app.js']"),
        null, { timeout: 10000 }).catch(() => {});
      return res;
    };
  }
  return page;
}

/** A fresh context and page on server's client; page errors fail loudly in the log. */
export async function newPage(browser, server, label) {
  const context = await browser.newContext({ viewport: { width: 900, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(10000);
  page.label = label;
  page.on("pageerror", (e) => console.log(`[${label}] page error: ${e.message}`));
  page.on("console", (m) => { if (m.type() === "error") console.log(`[${label}] console: ${m.text()}`); });
  await page.goto(server.url + "/");
  return page;
}

/** Says hello as name through the login form and waits for the lobby. */
export async function enter(page, name) {
  await page.getByTestId("name").fill(name);
  await page.getByTestId("connect").click();
  await page.getByTestId("me").filter({ hasText: name }).waitFor();
}

export const tid = (page, id) => page.getByTestId(id);

/** A fresh page in the lobby as name, which it claims (an account). noReload marks the
 * document, so that a reload (which would lose the account's session) fails the test. */
export async function account(browser, server, name, { noReload = true } = {}) {
  const page = await newPage(browser, server, name);
  await enter(page, name);
  await tid(page, "claim").click();
  await tid(page, "me-kind").filter({ hasText: "account" }).waitFor();
  if (noReload) await page.evaluate(() => { window.thueNoReload = true; });
  return page;
}

/** Waits until an HTTP page (#/tournaments, #/ladder, ...) has loaded its data. */
export const pageLoaded = (page) => page.waitForFunction(() => document.getElementById("page-body").dataset.loaded === "1");

/** Creates a room from the lobby form; resolves to its id once the game view shows. */
export async function createRoom(page, { k = 3, limit = 5, first = "creator", variant = "square", isPrivate = false, seat = true, clockMinutes = 0, incrementS = 0 } = {}) {
  await tid(page, "c-variant").selectOption(variant);
  await tid(page, "c-k").fill(String(k));
  await tid(page, "c-limit").fill(String(limit));
  await tid(page, "c-first").selectOption(first);
  await tid(page, "c-clock").fill(String(clockMinutes));
  await tid(page, "c-inc").fill(String(incrementS));
  if (isPrivate) await tid(page, "c-private").check();
  if (!seat) await tid(page, "c-seat").uncheck();
  await tid(page, "create").click();
  await tid(page, "game").waitFor();
  return page.locator("[data-testid=game]").getAttribute("data-room");
}

/** The number of tiles in the current word. */
export function wordLength(page) {
  return page.locator("[data-testid=word] .tile").count();
}

/** Builder's move by mouse: clicks the last gap once it is its step. */
export async function placeLast(page) {
  const last = page.locator("[data-testid=word] .gap:not([disabled])").last();
  await last.click();
}

/** Painter's move by mouse. */
export async function paint(page, sym) {
  await page.locator(`[data-testid=sym-${sym}]:not([disabled])`).click();
}

export async function shot(page, name) {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

export function assert(cond, msg) {
  if (!cond) throw new Error(`assertion failed: ${msg}`);
}

/** Runs fn(browser, server) with a fresh server (started with flags) and browser, closing
 * both afterwards. */
export async function withWorld(fn, flags = []) {
  const server = await startServer(flags);
  const browser = await launch();
  try {
    await fn(browser, server);
  } finally {
    await browser.close().catch(() => {});
    await server.stop();
  }
}

/** Plays page's moves (the last gap, the first symbol) until the result shows; taps
 * instead of clicks with tap, and awaits before(what, n) before the n-th move of each
 * kind ("place", "paint"). */
export async function playToEnd(page, { tap = false, before } = {}) {
  const seen = { place: 0, paint: 0 };
  for (let moves = 0; ; moves++) {
    assert(moves < 80, "the match ends");
    const what = await page.waitForFunction(() => {
      const r = document.querySelector("[data-testid=result]");
      if (r && !r.hidden) return "over";
      if (document.querySelector("[data-testid=word] .gap:not([disabled])")) return "place";
      if (document.querySelector("[data-testid^=sym-]:not([disabled])")) return "paint";
      return false;
    }).then((h) => h.jsonValue());
    if (what === "over") return;
    if (before) await before(what, seen[what]++);
    const target = what === "place" ? page.locator("[data-testid=word] .gap:not([disabled])").last()
      : page.locator("[data-testid^=sym-]:not([disabled])").first();
    await (tap ? target.tap() : target.click());
  }
}

/** Defines window.__hitProbe(e, d) in the page (again after each navigation): whether taps
 * d px left, right, above and below element e's centre land on e (a gap's 44 px touch
 * area); null when a probe falls off the screen or under the sticky bars (not judged). */
export async function installHitProbe(page) {
  await page.evaluate(`window.__hitProbe = ${hitProbe}`);
}

function hitProbe(e, d) {
  const b = e.getBoundingClientRect();
  const cx = b.left + b.width / 2, cy = b.top + b.height / 2;
  const probes = [[cx, cy], [cx - d, cy], [cx + d, cy], [cx, cy - d], [cx, cy + d]];
  if (probes.some(([x, y]) => x < 0 || y < 0 || x >= innerWidth || y >= innerHeight)) return null;
  const hits = probes.map(([x, y]) => document.elementFromPoint(x, y));
  if (hits.some((h) => h && h.closest(".board-head, .palette"))) return null;
  return hits.every((h) => h && e.contains(h));
}
