// session.test.mjs: hello, reconnection within and after the grace period, a session
// taken over by a new connection, clocks running out, quick match, chat (the spectators'
// kept among them while a match runs), and messages that arrive together.
import assert from "node:assert/strict";
import { Client, player, run, startServer, test } from "./lib.mjs";

/** Ann and Bob seated and ready in a k=3 room (Ann builds first); resolves to the room. */
async function twoPlayers(server, options = {}) {
  const ann = await player(server, "Ann");
  const bob = await player(server, "Bob");
  const { room } = await ann.ok({ type: "create_room", k: 3, first_builder: "creator", ...options });
  await bob.ok({ type: "join", room });
  await ann.ok({ type: "ready", room });
  await bob.ok({ type: "ready", room });
  await ann.state(room, (s) => s.status === "playing");
  await bob.state(room, (s) => s.status === "playing");
  return { ann, bob, room };
}

test("hello gives a guest name, a resume token and the limits", async () => {
  const server = await startServer();
  try {
    const c = await Client.connect(server.ws, "anon");
    const w = await c.ok({ type: "hello", protocol: 1 });
    assert.equal(w.type, "welcome");
    assert.equal(w.protocol, 1);
    assert.equal(w.player.kind, "guest");
    assert.ok(w.player.name.length > 0);
    assert.equal(w.resumed, false);
    assert.equal(w.limits.max_message, 16384);
    const p = await c.request({ type: "ping" });
    assert.equal(p.type, "pong");
  } finally {
    await server.stop();
  }
});

/** Client frames (masked, RFC 6455 5.3) of texts, one after another in one buffer. */
function maskedFrames(texts) {
  const parts = [];
  for (const t of texts) {
    const payload = Buffer.from(t);
    assert.ok(payload.length < 126);
    const mask = Buffer.from([0x12, 0x34, 0x56, 0x78]);
    const head = Buffer.from([0x81, 0x80 | payload.length]);
    const body = Buffer.alloc(payload.length);
    for (let i = 0; i < payload.length; i++) body[i] = payload[i] ^ mask[i % 4];
    parts.push(head, mask, body);
  }
  return Buffer.concat(parts);
}

test("messages that arrive together are all answered, in their order", async () => {
  const server = await startServer();
  try {
    const c = await Client.connect(server.ws, "burst");
    // One TCP write: hello and 30 pings. The server reads them in one turn and holds the
    // replies until the turn ends, then writes them as one buffer of frames (a long one,
    // welcome, among short ones): each must arrive whole and in order.
    const texts = [JSON.stringify({ type: "hello", protocol: 1, id: 0 })];
    for (let i = 1; i <= 30; i++) texts.push(JSON.stringify({ type: "ping", id: i }));
    c.ws._socket.write(maskedFrames(texts));
    const welcome = await c.next((m) => m.id === 0, "welcome");
    assert.equal(welcome.type, "welcome");
    for (let i = 1; i <= 30; i++) {
      const m = await c.next(() => true, `reply ${i}`);
      assert.equal(m.type, "pong");
      assert.equal(m.id, i, "the replies keep the order of the messages");
    }
    assert.equal((await c.request({ type: "ping" })).type, "pong", "the connection goes on");
  } finally {
    await server.stop();
  }
});

test("a reconnection within the grace period keeps the seat and resends the state", async () => {
  const server = await startServer(["--grace-s", "30"]);
  try {
    const { ann, bob, room } = await twoPlayers(server);
    const token = ann.welcome.resume;
    await ann.close();
    const away = await bob.state(room, (s) => s.players[0].connected === false);
    assert.equal(away.players[0].name, "Ann");
    const again = await Client.connect(server.ws, "Ann again");
    const w = await again.ok({ type: "hello", protocol: 1, resume: token });
    assert.equal(w.resumed, true);
    assert.equal(w.player.name, "Ann");
    assert.notEqual(w.resume, token, "a resume token is spent once used");
    assert.deepEqual(w.rooms, [room]);
    const s = await again.state(room);
    assert.equal(s.you, 0);
    await bob.state(room, (x) => x.players[0].connected === true);
    await again.ok({ type: "place", room, position: 1 }); // the seat still plays
    // the old token is spent
    const third = await Client.connect(server.ws, "thief");
    const r = await third.request({ type: "hello", protocol: 1, resume: token });
    assert.equal(r.code, "bad_resume");
  } finally {
    await server.stop();
  }
});

test("past the grace period the absent player forfeits", async () => {
  const server = await startServer(["--grace-s", "1"]);
  try {
    const { ann, bob, room } = await twoPlayers(server);
    const token = ann.welcome.resume;
    await ann.close();
    const end = await bob.next("match_end", "the forfeit after the grace period");
    assert.deepEqual(end.result, { winner: 1, reason: "abandon" });
    const late = await Client.connect(server.ws, "late");
    const r = await late.request({ type: "hello", protocol: 1, resume: token });
    assert.equal(r.code, "bad_resume");
  } finally {
    await server.stop();
  }
});

test("a second connection with the resume token takes the session over", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const other = await Client.connect(server.ws, "other");
    const w = await other.ok({ type: "hello", protocol: 1, resume: ann.welcome.resume });
    assert.equal(w.resumed, true);
    const bye = await ann.next("goodbye");
    assert.equal(bye.reason, "replaced");
    const closed = await ann.closed;
    assert.equal(closed.code, 1001);
  } finally {
    await server.stop();
  }
});

test("a clock running out forfeits the match", async () => {
  const server = await startServer();
  try {
    const { bob, room } = await twoPlayers(server, { clock: { initial_ms: 1000, increment_ms: 0 } });
    // Ann is to move and never does: her second runs out.
    const end = await bob.next("match_end", "the flag to fall", 10000);
    assert.deepEqual(end.result, { winner: 1, reason: "timeout" });
    const s = await bob.latestState(room);
    assert.equal(s.match.clocks[0], 0);
  } finally {
    await server.stop();
  }
});

test("quick match pairs two players, and a bot after the wait asked for", async () => {
  const server = await startServer();
  try {
    const ann = await player(server, "Ann");
    const bob = await player(server, "Bob");
    await ann.ok({ type: "queue_join", variant: "square", k: 4 });
    await bob.ok({ type: "queue_join", variant: "square", k: 4 });
    const fa = await ann.next("match_found");
    const fb = await bob.next("match_found");
    assert.equal(fa.room, fb.room);
    const s = await ann.state(fa.room, (x) => x.status === "playing");
    assert.deepEqual(
      s.players.map((p) => p.name).sort(),
      ["Ann", "Bob"],
    );
    const cy = await player(server, "Cy");
    await cy.ok({ type: "queue_join", variant: "square", k: 5, bot_after_s: 1 });
    const fc = await cy.next("match_found", "a bot after a second");
    const sc = await cy.state(fc.room, (x) => x.status === "playing");
    assert.ok(sc.players.some((p) => p.kind === "bot"));
    // queue_leave is answered even when not queued
    const r = await cy.request({ type: "queue_leave" });
    assert.equal(r.type, "ok");
  } finally {
    await server.stop();
  }
});

test("chat reaches everyone in the room", async () => {
  const server = await startServer();
  try {
    const { ann, bob, room } = await twoPlayers(server);
    const eve = await player(server, "Eve");
    await eve.ok({ type: "spectate", room });
    await ann.ok({ type: "chat", room, text: "good luck ☺" });
    for (const c of [ann, bob, eve]) {
      const m = await c.next("chat_message");
      assert.equal(m.text, "good luck ☺");
      assert.equal(m.from.name, "Ann");
      assert.ok(Number.isInteger(m.at));
    }
    const outsider = await player(server, "Zed");
    const r = await outsider.request({ type: "chat", room, text: "hi" });
    assert.equal(r.code, "not_in_room");
  } finally {
    await server.stop();
  }
});

test("a spectator's chat stays among the spectators while the match runs, and reaches everyone after it", async () => {
  const server = await startServer();
  try {
    const { ann, bob, room } = await twoPlayers(server);
    const eve = await player(server, "Eve");
    const cy = await player(server, "Cy");
    await eve.ok({ type: "spectate", room });
    await cy.ok({ type: "spectate", room });
    await eve.ok({ type: "chat", room, text: "play 1 here" });
    for (const c of [eve, cy]) {
      const m = await c.next("chat_message");
      assert.equal(m.text, "play 1 here");
      assert.equal(m.spectator, true, "marked as a spectator's");
    }
    // Ann's text comes after Eve's was answered: had Eve's gone to the players, it would
    // be the players' next chat_message.
    await ann.ok({ type: "chat", room, text: "hello" });
    for (const c of [ann, bob, eve, cy]) {
      const m = await c.next("chat_message");
      assert.equal(m.text, "hello", `${m.from.name}'s text reached a player: ${m.text}`);
      assert.equal(m.spectator, undefined, "a player's text has no spectator member");
    }
    await bob.ok({ type: "resign", room });
    await ann.state(room, (s) => s.match && s.match.step === "over");
    await eve.ok({ type: "chat", room, text: "well played" });
    for (const c of [ann, bob, eve, cy]) {
      const m = await c.next("chat_message");
      assert.equal(m.text, "well played");
      assert.equal(m.spectator, true);
    }
  } finally {
    await server.stop();
  }
});

await run();
