// chat.test.mjs: the players' and the spectators' chat (issue 30: "spectator and player
// chat are one stream"). Ann plays Bob (a WebSocket client) in Chromium; Eve watches in
// Chromium. While the match runs Eve's texts reach the spectators only: Eve's page turns to
// the "Spectators" tab to show hers, Ann's never shows them (Ann's next line is Bob's, sent after);
// Ann's and Bob's texts reach Eve under "Players". After the match Eve's text reaches
// Ann, whose page then offers the spectators' stream as a tab.
// Run:
//   node tests/e2e/chat.test.mjs --server build/server/thue-server
import assert from "node:assert/strict";
import { test, run, newPage, enter, shot, tid, withWorld } from "./lib.mjs";
import { player } from "../integration/lib.mjs";
import { createGameRoom } from "./gameslib.mjs";

const lines = (page) => page.locator("[data-testid=chat-log] > div").allTextContents();
const say = async (page, text) => { await tid(page, "chat-text").fill(text); await tid(page, "chat-send").click(); };

test("spectators talk among themselves while the match runs; everyone reads them after it", () => withWorld(async (browser, server) => {
  const ann = await newPage(browser, server, "Ann");
  await enter(ann, "Ann");
  const room = await createGameRoom(ann, "nim", { heaps: "3 4 5" });
  const bob = await player(server, "Bob");
  try {
    await bob.ok({ type: "join", room });
    await tid(ann, "ready").click();
    await bob.ok({ type: "ready", room });
    await ann.locator("[data-testid=game][data-status=playing]").waitFor();
    const eve = await newPage(browser, server, "Eve");
    await enter(eve, "Eve");
    await eve.evaluate((r) => { location.hash = `#/room/${r}`; }, room);
    await eve.locator("[data-testid=game][data-status=playing]").waitFor();
    // Eve starts on the players' stream, with the spectators' one a tab away, and is told
    // who reads what she writes; her text turns her to the spectators' stream.
    await tid(eve, "chat-tabs").waitFor();
    assert.equal(await tid(eve, "chat-tab-players").getAttribute("aria-selected"), "true");
    assert.match(await tid(eve, "chat-note").textContent(), /reaches the other spectators only/);
    assert.equal(await tid(eve, "chat-text").getAttribute("placeholder"), "Message to the spectators");
    await say(eve, "take 2 from heap 1!");
    await eve.locator("[data-testid=chat-log] .chat-spectator").filter({ hasText: "take 2 from heap 1!" }).waitFor();
    assert.equal(await tid(eve, "chat-tab-spectators").getAttribute("aria-selected"), "true");
    // Bob speaks after Eve's text was sent: Ann's page gets Bob's line, never Eve's.
    await bob.ok({ type: "chat", room, text: "good luck" });
    await ann.locator("[data-testid=chat-log] > div").filter({ hasText: "good luck" }).waitFor();
    assert.deepEqual(await lines(ann), ["Bob: good luck"], "a player does not read the spectators during the match");
    assert.equal(await tid(ann, "chat-tabs").isHidden(), true, "no spectators' stream to offer a player yet");
    await say(ann, "thanks");
    await tid(eve, "chat-tab-spectators").filter({ hasText: "Spectators (1)" }).waitFor();
    await tid(eve, "chat-tab-players").click();
    await eve.locator("[data-testid=chat-log] > div").filter({ hasText: "thanks" }).waitFor();
    assert.deepEqual(await lines(eve), ["Bob: good luck", "Ann: thanks"]);
    await shot(eve, "chat-spectator-players-tab");

    // After the match, Eve's text reaches the players too; Ann's page offers it.
    await bob.ok({ type: "resign", room });
    await tid(ann, "result").waitFor();
    await eve.locator("[data-testid=game] [data-testid=result]").waitFor();
    await tid(eve, "chat-note").waitFor({ state: "hidden" });
    await tid(eve, "chat-tab-spectators").click();
    await say(eve, "well played");
    await tid(ann, "chat-tab-spectators").filter({ hasText: "Spectators (1)" }).waitFor();
    assert.deepEqual(await lines(ann), ["Bob: good luck", "Ann: thanks"], "the players' stream stays the players'");
    await tid(ann, "chat-tab-spectators").click();
    assert.deepEqual(await lines(ann), ["Eve: well played"]);
    // The tabs by keyboard: Left goes back to the players' stream, focus on its tab.
    await ann.keyboard.press("ArrowLeft");
    assert.equal(await tid(ann, "chat-tab-players").getAttribute("aria-selected"), "true");
    assert.equal(await ann.evaluate(() => document.activeElement.dataset.testid), "chat-tab-players");
    assert.deepEqual(await lines(ann), ["Bob: good luck", "Ann: thanks"]);
    await shot(ann, "chat-player-spectators-tab");
  } finally {
    await bob.close();
  }
}));

await run();
