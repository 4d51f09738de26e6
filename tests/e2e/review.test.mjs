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
    assert((await tid(page, "review-step-verdict").textContent()) === "blunder", "the board's step shows the blunder");
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

await run();
