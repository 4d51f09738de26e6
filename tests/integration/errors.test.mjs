// errors.test.mjs: every error code the server can send today, bad input of every kind,
// and abuse: binary frames, oversized messages, floods.
import assert from "node:assert/strict";
import { Client, player, run, startServer, test } from "./lib.mjs";

// PROTOCOL.md section 10's codes, and those this server cannot send: not_available only
// comes from a lobby without a database (test_lobby_matches covers it; the server always has
// one), bad_chat is for a rule beyond the text's form, which the server has none of yet,
// and internal is a bug.
const ALL_CODES = [
  "bad_json", "bad_message", "unknown_type", "hello_first", "already_hello", "bad_protocol",
  "bad_resume", "bad_token", "bad_name", "name_taken", "no_such_room", "bad_invite",
  "room_full", "not_in_room", "not_seated", "already_seated", "not_running", "not_over",
  "too_many_rooms", "bad_bot", "not_your_turn", "wrong_step", "bad_position", "bad_symbol",
  "match_over", "bad_chat", "rate_limited", "not_available", "no_such_tournament",
  "tournament_closed", "not_allowed", "server_busy", "internal",
];
const NOT_YET = ["bad_chat", "not_available", "internal"];
// Codes the server no longer sends: a wrong invite is no_such_room (PROTOCOL.md section 4).
const NO_LONGER_SENT = ["bad_invite"];

test("every error code the server can send, each answering the request's id", async () => {
  const server = await startServer(["--max-rooms-per-player", "2", "--max-rooms", "3"]);
  const seen = new Map();
  /** Sends msg from c and checks the reply is error `code` with the same id. */
  async function expect(c, msg, code, field) {
    const r = await c.request(msg);
    assert.equal(r.type, "error", `${JSON.stringify(msg)} should fail with ${code}, got ${JSON.stringify(r)}`);
    assert.equal(r.code, code, `${JSON.stringify(msg)}: ${r.message}`);
    if (field !== undefined) assert.equal(r.field, field);
    assert.ok(typeof r.message === "string" && r.message.length > 0);
    seen.set(code, (seen.get(code) || 0) + 1);
    return r;
  }
  try {
    const raw = await Client.connect(server.ws, "raw");
    // before hello
    await expect(raw, { type: "create_room" }, "hello_first");
    const pong = await raw.request({ type: "ping" });
    assert.equal(pong.type, "pong", "ping is allowed before hello");
    await expect(raw, { type: "hello", protocol: 2 }, "bad_protocol");
    await expect(raw, { type: "hello", protocol: 1, resume: "0123456789abcdef0123456789abcdef" }, "bad_resume");
    await expect(raw, { type: "hello", protocol: 1, token: "t_nobody" }, "bad_token", "token");
    await expect(raw, { type: "hello", protocol: 1, name: "A", token: "x" }, "bad_message");
    await expect(raw, { type: "no_such_thing" }, "unknown_type", "type");
    await expect(raw, { type: "hello", protocol: "1" }, "bad_message", "protocol");
    await expect(raw, { type: "hello", protocol: 1, name: "nested" }, "bad_name", "name");
    const ann = await player(server, "Ann");
    await expect(raw, { type: "hello", protocol: 1, name: "ann" }, "name_taken");
    await raw.ok({ type: "hello", protocol: 1, name: "Raw" });
    await expect(raw, { type: "hello", protocol: 1 }, "already_hello");

    // rooms
    const bob = await player(server, "Bob");
    const cy = await player(server, "Cy");
    const none = await expect(ann, { type: "join", room: "nosuchroom" }, "no_such_room", "room");
    const priv = await ann.ok({ type: "create_room", k: 3, private: true, first_builder: "creator" });
    // A wrong invite, no invite, or a command for a private room one is not in: the same
    // answer as a room that does not exist, so that a stranger learns nothing.
    for (const msg of [{ type: "join", room: priv.room, invite: "wrong" }, { type: "join", room: priv.room },
      { type: "spectate", room: priv.room, invite: priv.invite.slice(1) }, { type: "ready", room: priv.room },
      { type: "chat", room: priv.room, text: "hi" }, { type: "seat_bot", room: priv.room, bot: "greedy" }]) {
      const r = await expect(bob, msg, "no_such_room", "room");
      assert.equal(r.message, none.message, `${msg.type}: the same sentence as for a room that does not exist`);
    }
    await bob.ok({ type: "join", room: priv.room, invite: priv.invite });
    await expect(cy, { type: "join", room: priv.room, invite: priv.invite }, "room_full");
    await expect(bob, { type: "join", room: priv.room, invite: priv.invite }, "already_seated");
    await cy.ok({ type: "spectate", room: priv.room, invite: priv.invite });
    await expect(cy, { type: "ready", room: priv.room }, "not_seated");
    await expect(cy, { type: "seat_bot", room: priv.room, bot: "greedy" }, "not_allowed");
    await expect(ann, { type: "seat_bot", room: priv.room, bot: "wizard" }, "bad_bot");
    await expect(ann, { type: "place", room: priv.room, position: 0 }, "not_running");
    await expect(ann, { type: "rematch", room: priv.room }, "not_over");
    const pub = await ann.ok({ type: "create_room", k: 3 });
    await expect(cy, { type: "ready", room: pub.room }, "not_in_room"); // a public room
    await expect(ann, { type: "create_room", k: 3 }, "too_many_rooms");
    await bob.ok({ type: "create_room", k: 3 });
    await expect(cy, { type: "create_room", k: 3 }, "server_busy");
    await expect(ann, { type: "create_room", rated: true }, "not_allowed"); // a guest
    await expect(ann, { type: "claim_name", name: "Bob" }, "name_taken", "name");
    await expect(ann, { type: "claim_name", name: "perfect" }, "bad_name", "name");
    await expect(ann, { type: "get_tournament", tournament: "tnope" }, "no_such_tournament", "tournament");
    const { token } = await ann.ok({ type: "claim_name", name: "Ann" });
    assert.match(token, /^t_/);
    const { tournament } = await ann.ok({ type: "create_tournament", name: "T", format: "round_robin", variant: "square", k: 3, max_players: 2 });
    await ann.ok({ type: "join_tournament", tournament, bot: "greedy" });
    await ann.ok({ type: "join_tournament", tournament, bot: "nested:1" });
    await ann.ok({ type: "start_tournament", tournament });
    await expect(ann, { type: "leave_tournament", tournament, bot: "greedy" }, "tournament_closed");
    await expect(ann, { type: "create_room", k: 65 }, "bad_message", "k");
    await expect(ann, { type: "create_room", clock: { initial_ms: 10, increment_ms: 0 } }, "bad_message", "clock/initial_ms");

    // the game
    await ann.ok({ type: "ready", room: priv.room });
    await bob.ok({ type: "ready", room: priv.room });
    await ann.state(priv.room, (s) => s.status === "playing");
    await expect(bob, { type: "place", room: priv.room, position: 0 }, "not_your_turn");
    await expect(ann, { type: "paint", room: priv.room, symbol: 0 }, "wrong_step");
    await expect(ann, { type: "place", room: priv.room, position: 2 }, "bad_position", "position");
    await ann.ok({ type: "place", room: priv.room, position: 1 });
    await expect(bob, { type: "paint", room: priv.room, symbol: 5 }, "bad_symbol", "symbol");
    await ann.ok({ type: "resign", room: priv.room });
    await expect(ann, { type: "place", room: priv.room, position: 0 }, "match_over");

    // bad text
    raw.send("{not json");
    let r = await raw.next("error");
    assert.equal(r.code, "bad_json");
    seen.set("bad_json", 1);
    raw.send("[1,2,3]");
    r = await raw.next("error");
    assert.equal(r.code, "bad_json");
    raw.send(JSON.stringify({ type: "ping", id: 7, extra: { unknown: [1, 2] } }));
    r = await raw.next((m) => m.id === 7);
    assert.equal(r.type, "pong", "unknown members are ignored");
    // still usable after all that
    assert.equal((await raw.request({ type: "ping" })).type, "pong");

    const missing = ALL_CODES.filter((c) => !seen.has(c) && !NOT_YET.includes(c) && !NO_LONGER_SENT.includes(c) && c !== "rate_limited");
    assert.deepEqual(missing, [], "codes never produced");
  } finally {
    await server.stop();
  }
});

test("a binary frame is refused with close 1003", async () => {
  const server = await startServer();
  try {
    const c = await Client.connect(server.ws, "binary");
    c.ws.send(Buffer.from([1, 2, 3]));
    const { code } = await c.closed;
    assert.equal(code, 1003);
  } finally {
    await server.stop();
  }
});

test("a message over 16 KiB closes with 1009; 16 KiB exactly is read", async () => {
  const server = await startServer();
  try {
    const ok = await Client.connect(server.ws, "fits");
    const pad = (n) => {
      const base = JSON.stringify({ type: "ping", id: 1, pad: "" });
      return JSON.stringify({ type: "ping", id: 1, pad: "x".repeat(n - base.length) });
    };
    const exact = pad(16384);
    assert.equal(Buffer.byteLength(exact), 16384);
    ok.send(exact);
    assert.equal((await ok.next((m) => m.id === 1)).type, "pong");
    const big = await Client.connect(server.ws, "big");
    big.send(pad(16385));
    const { code } = await big.closed;
    assert.equal(code, 1009);
  } finally {
    await server.stop();
  }
});

test("a flood is answered with rate_limited, then goodbye and close 1008", async () => {
  const server = await startServer(["--rate", "5", "--burst", "5"]);
  try {
    const c = await Client.connect(server.ws, "flood");
    for (let i = 0; i < 200; i++) c.send({ type: "ping", id: i });
    const limited = await c.next((m) => m.type === "error" && m.code === "rate_limited");
    assert.ok(Number.isInteger(limited.id), "the rate_limited error carries the request's id");
    const bye = await c.next("goodbye");
    assert.equal(bye.reason, "abuse");
    const { code } = await c.closed;
    assert.equal(code, 1008);
    // the server is fine
    const d = await player(server, "after");
    assert.equal((await d.request({ type: "ping" })).type, "pong");
  } finally {
    await server.stop();
  }
});

test("connection limits: past the limit per IP address, the handshake gets HTTP 503", async () => {
  const server = await startServer(["--max-connections-per-ip", "2"]);
  try {
    const a = await Client.connect(server.ws, "a");
    const b = await Client.connect(server.ws, "b");
    await assert.rejects(Client.connect(server.ws, "c"), /HTTP 503/);
    await a.close();
    // a closed connection frees its place
    const d = await Client.connect(server.ws, "d");
    assert.equal((await d.request({ type: "ping" })).type, "pong");
    assert.equal((await b.request({ type: "ping" })).type, "pong");
  } finally {
    await server.stop();
  }
});

test("behind a trusted proxy the per-address limit counts X-Forwarded-For's client", async () => {
  const xff = (v) => ({ headers: { "X-Forwarded-For": v } });
  // 127.0.0.1 (the test's own address) is the proxy.
  const server = await startServer(["--max-connections-per-ip", "2", "--trusted-proxy", "::1, 127.0.0.1"]);
  try {
    const a = await Client.connect(server.ws, "a", ["thue.v1"], xff("10.0.0.1"));
    await Client.connect(server.ws, "b", ["thue.v1"], xff("203.0.113.9, 10.0.0.1")); // forged left part
    await assert.rejects(Client.connect(server.ws, "c", ["thue.v1"], xff("10.0.0.1")), /HTTP 503/);
    // Another client through the proxy, a client behind two proxies, the proxy itself.
    const d = await Client.connect(server.ws, "d", ["thue.v1"], xff("10.0.0.2"));
    await Client.connect(server.ws, "e", ["thue.v1"], xff("10.0.0.3, 127.0.0.1"));
    await Client.connect(server.ws, "f");
    await Client.connect(server.ws, "g", ["thue.v1"], xff("not an address"));
    await assert.rejects(Client.connect(server.ws, "h"), /HTTP 503/, "f and g count as the proxy");
    await Client.connect(server.ws, "i", ["thue.v1"], xff("10.0.0.3")); // its second
    await assert.rejects(Client.connect(server.ws, "k", ["thue.v1"], xff("10.0.0.3")), /HTTP 503/);
    await a.close();
    await Client.connect(server.ws, "j", ["thue.v1"], xff("10.0.0.1"));
    assert.equal((await d.request({ type: "ping" })).type, "pong");
  } finally {
    await server.stop();
  }
  // Without --trusted-proxy the header changes nothing.
  const plain = await startServer(["--max-connections-per-ip", "2"]);
  try {
    await Client.connect(plain.ws, "a", ["thue.v1"], xff("10.0.0.1"));
    await Client.connect(plain.ws, "b", ["thue.v1"], xff("10.0.0.2"));
    await assert.rejects(Client.connect(plain.ws, "c", ["thue.v1"], xff("10.0.0.3")), /HTTP 503/);
  } finally {
    await plain.stop();
  }
});

test("a client that answers no ping is dropped; one that does stays", async () => {
  const server = await startServer(["--ping-s", "1", "--idle-s", "2"]);
  try {
    const silent = await Client.connect(server.ws, "silent", ["thue.v1"], { autoPong: false });
    const alive = await Client.connect(server.ws, "alive");
    const t0 = Date.now();
    await silent.closed;
    const waited = Date.now() - t0;
    assert.ok(waited >= 1500, `dropped after ${waited} ms, not before the idle time`);
    assert.equal(alive.closeInfo, null, "the client that answers pings is still connected");
    assert.equal((await alive.request({ type: "ping" })).type, "pong");
  } finally {
    await server.stop();
  }
});

await run();
