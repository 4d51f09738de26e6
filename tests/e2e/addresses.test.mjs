// addresses.test.mjs: names, addresses, ratings and chat in the web client (issue 16),
// against the real server (one per test) in Debian's Chromium. Run:
//   node tests/e2e/addresses.test.mjs --server build/server/thue-server [--only NAME-PART]
// With THUE_SHOTS=DIR set, each new screen is written there at desktop (1280x800) and
// phone (390x844) sizes.
import fs from "node:fs";
import path from "node:path";
import { startServer, test, run, launch, newPage, enter, createRoom, tid, assert } from "./lib.mjs";

const SHOTS = process.env.THUE_SHOTS || "";
if (SHOTS) fs.mkdirSync(SHOTS, { recursive: true });

async function withWorld(fn, flags = []) {
  const server = await startServer(flags);
  const browser = await launch();
  try {
    await fn(browser, server);
  } finally {
    await browser.close().catch(() => {});
    await server.stop();
  }
}

/** Writes page at desktop and phone sizes to $THUE_SHOTS (nothing when it is unset). */
async function shots(page, name) {
  if (!SHOTS) return;
  const was = page.viewportSize();
  for (const [tag, w, h] of [["desktop", 1280, 800], ["phone", 390, 844]]) {
    await page.setViewportSize({ width: w, height: h });
    await page.screenshot({ path: path.join(SHOTS, `addr-${name}-${tag}.png`), fullPage: true });
  }
  await page.setViewportSize(was);
}

const hash = (page) => page.evaluate(() => location.hash);

/** Plays page's moves (the last gap, the first symbol) until the result shows. */
async function playToEnd(page) {
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
    const target = what === "place" ? page.locator("[data-testid=word] .gap:not([disabled])").last()
      : page.locator("[data-testid^=sym-]:not([disabled])").first();
    await target.click();
  }
}

test("a taken name keeps the name form, with the reason beside the field", () => withWorld(async (browser, server) => {
  const ann = await newPage(browser, server, "ann");
  await enter(ann, "Ann");
  const other = await newPage(browser, server, "other");
  await tid(other, "name").fill("ann"); // one name, ignoring case
  await tid(other, "connect").click();
  await tid(other, "name-error").filter({ hasText: "taken" }).waitFor();
  assert(await tid(other, "name").isVisible(), "the name form stays");
  assert(await tid(other, "me").isHidden(), "no lobby under a guest name");
  assert(await tid(other, "name").getAttribute("aria-invalid") === "true", "the field is marked");
  assert(await other.evaluate(() => document.activeElement.id) === "name", "the field has the focus");
  assert(await other.evaluate(() => !localStorage.getItem("thue.name")), "the refused name is not remembered");
  await shots(other, "name-taken");
  // Another name goes in, and the error goes.
  await tid(other, "name").fill("Bea");
  await tid(other, "connect").click();
  await tid(other, "me").filter({ hasText: "Bea" }).waitFor();
  assert(await tid(other, "name-error").textContent() === "", "the error is gone");
  assert((await tid(other, "me").textContent()) === "Bea", "the chosen name, not a guest name");
}));

run();
