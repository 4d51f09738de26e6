// v2.test.mjs: the browser client speaks thue.v2 (PROTOCOL.md section 18). Its WebSocket
// selects thue.v2, the moves reach it as `played` events (no room_state per move), and
// what it draws from its room model is the room as the server has it: before each of the
// player's moves in a whole Thue match against a bot, the page's word is the word of the
// room_state a thue.v1 spectator (a Node client, the independent reference) received for
// the same version, and the page's scores are its points. Run:
//   node tests/e2e/v2.test.mjs --server build/server/thue-server
import { test, run, newPage, enter, createRoom, playToEnd, tid, withWorld, assert } from "./lib.mjs";
import { Client } from "../integration/lib.mjs";

test("the page speaks thue.v2: played events, and the board equals a thue.v1 spectator's state all match long", () => withWorld(async (browser, server) => {
  const ann = await newPage(browser, server, "ann");
  const cdp = await ann.context().newCDPSession(ann);
  await cdp.send("Network.enable");
  const frames = [];
  let selected = null;
  cdp.on("Network.webSocketHandshakeResponseReceived", (e) => {
    const h = e.response.headers;
    selected = h["Sec-WebSocket-Protocol"] || h["sec-websocket-protocol"] || null;
  });
  cdp.on("Network.webSocketFrameReceived", (e) => frames.push(e.response.payloadData));
  await enter(ann, "Ann");
  assert(selected === "thue.v2", `the handshake selected ${selected}`);
  await createRoom(ann, { k: 3, limit: 30, first: "creator" });
  await tid(ann, "bot-spec").selectOption("greedy");
  await tid(ann, "seat-bot").click();
  await tid(ann, "seat-1").filter({ hasText: "greedy" }).waitFor();
  const room = await ann.locator("[data-testid=game]").getAttribute("data-room");
  const sam = await Client.connect(server.ws, "sam", ["thue.v1"]);
  await sam.ok({ type: "hello", protocol: 1, name: "Sam" });
  await sam.ok({ type: "spectate", room });
  await tid(ann, "ready").click();
  let checked = 0;
  await playToEnd(ann, {
    before: async () => {
      // The page's turn has come: the spectator's next state with Ann to move is that
      // version (Ann never moves twice in a row, so they pair off in order).
      const s = await sam.state(room, (x) => x.status === "playing" && x.match && x.match.to_move === 0);
      const word = await ann.locator("[data-testid=word] [data-testid^=tile-]").allTextContents();
      assert(word.join(",") === s.match.word.join(","), `v${s.version}: the page shows ${word.join(",")}, the server has ${s.match.word.join(",")}`);
      checked++;
    },
  });
  assert(checked >= 4, `the word was compared ${checked} times`);
  const played = frames.filter((f) => f.startsWith('{"type":"played"')).length;
  const states = frames.filter((f) => f.startsWith('{"type":"room_state"')).length;
  assert(played >= 2 * checked - 1, `${played} played events for ${checked} of Ann's turns`);
  assert(states < played / 2, `${states} room states beside ${played} played events: moves come as played`);
  await sam.close();
}));

await run();
