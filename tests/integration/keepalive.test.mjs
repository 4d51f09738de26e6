// keepalive.test.mjs: the keep-alive as PROTOCOL.md section 1 writes it, with short
// timings (--ping-s 1 --idle-s 3):
//   - any message is a sign of life: a client that ignores WebSocket pings (no pong:
//     ws's autoPong off) but sends {"type":"ping"} now and then stays connected well past
//     idle-s (issue 15: it was dropped at idle-s, since only pongs counted);
//   - a client that answers pings (pongs) and sends nothing stays connected too, and so
//     does one that sends only WebSocket pings of its own (frames count);
//   - a silent client that does not answer pings gets goodbye `idle` and close 1001 (it
//     saw a bare 1006 before);
//   - welcome.limits announces ping_s and idle_s.
// The clients run side by side; each wait is bounded, and the figures are printed.
import assert from "node:assert/strict";
import { Client, WAIT_MS, run, startServer, test, withTimeout } from "./lib.mjs";

const PING_S = 1;
const IDLE_S = 3;
const HOLD_MS = 2 * IDLE_S * 1000 + 500; // stay connected this long

async function hello(server, name, options) {
  const c = await Client.connect(server.ws, name, ["thue.v1"], options);
  c.pings = 0;
  c.ws.on("ping", () => c.pings++);
  c.welcome = await c.ok({ type: "hello", protocol: 1, name });
  return c;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test("messages and pongs keep a connection alive; silence gets goodbye idle and 1001", async () => {
  const server = await startServer(["--ping-s", String(PING_S), "--idle-s", String(IDLE_S)]);
  try {
    const talker = await hello(server, "Talker", { autoPong: false });
    const ponger = await hello(server, "Ponger");
    const silent = await hello(server, "Silent", { autoPong: false });
    const pinger = await hello(server, "Pinger", { autoPong: false });
    const t0 = Date.now();
    const pingTimer = setInterval(() => pinger.ws.ping(), 700);

    // the talker: a protocol ping every 700 ms, never a pong
    const talk = (async () => {
      let pongs = 0;
      while (Date.now() - t0 < HOLD_MS && !talker.closeInfo) {
        const r = await talker.request({ type: "ping" });
        assert.equal(r.type, "pong");
        pongs++;
        await sleep(700);
      }
      return pongs;
    })();
    // the silent one: waits for its goodbye and close
    const silentEnd = (async () => {
      const bye = await silent.next("goodbye", "goodbye idle", IDLE_S * 1000 + WAIT_MS);
      const close = await withTimeout(silent.closed, WAIT_MS, "the silent client's close");
      return { bye, close, after: Date.now() - t0 };
    })();

    const [pongs, end] = await Promise.all([talk, silentEnd]);
    await sleep(Math.max(0, HOLD_MS - (Date.now() - t0)));
    const held = Date.now() - t0;
    clearInterval(pingTimer);
    console.log(
      `     talker: ${pongs} pongs over ${held} ms, ${talker.pings} WebSocket pings seen (none answered), ` +
        `closed: ${talker.closeInfo ? talker.closeInfo.code : "no"}; ponger: ${ponger.pings} pings answered, ` +
        `closed: ${ponger.closeInfo ? ponger.closeInfo.code : "no"}; pinger (WebSocket pings only): ` +
        `closed: ${pinger.closeInfo ? pinger.closeInfo.code : "no"}; silent: goodbye ${end.bye.reason}, ` +
        `close ${end.close.code} "${end.close.reason}" after ${end.after} ms`,
    );
    assert.equal(talker.closeInfo, null, "the client that sends messages was dropped");
    assert.equal(ponger.closeInfo, null, "the client that answers pings was dropped");
    assert.equal(pinger.closeInfo, null, "the client that sends WebSocket pings was dropped");
    assert.ok(ponger.pings >= 1, "the server never pinged the silent ponger");
    assert.ok(talker.pings >= 0);
    assert.equal(end.bye.reason, "idle");
    assert.equal(end.close.code, 1001);
    assert.ok(end.after >= IDLE_S * 1000 - 200, `dropped before idle-s (${end.after} ms)`);
    // both live clients still play their part
    assert.equal((await talker.request({ type: "ping" })).type, "pong");
    assert.equal((await ponger.request({ type: "ping" })).type, "pong");
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const idle = Number(/^thue_ws_idle_drops_total (\d+)$/m.exec(text)?.[1]);
    const pings = Number(/^thue_ws_pings_total (\d+)$/m.exec(text)?.[1]);
    console.log(`     /metrics: thue_ws_idle_drops_total ${idle}, thue_ws_pings_total ${pings}`);
    assert.equal(idle, 1);
    assert.ok(pings >= 2);
    talker.close();
    ponger.close();
    pinger.close();
  } finally {
    await server.stop();
  }
});

test("welcome.limits announces ping_s and idle_s", async () => {
  const server = await startServer(["--ping-s", "7", "--idle-s", "19"]);
  try {
    const c = await hello(server, "Ann");
    assert.equal(c.welcome.limits.ping_s, 7);
    assert.equal(c.welcome.limits.idle_s, 19);
    c.close();
  } finally {
    await server.stop();
  }
});

await run();
