// passwords.test.mjs: account passwords and login from another device (PROTOCOL.md
// section 9, "Passwords"): set_password on a claimed account, login from a fresh
// connection (the account message with a token that works with hello), a wrong password
// and an unknown name answered alike, old_password required to change one, failed logins
// rate limited per address and per name, a login taking over the account's live session,
// nothing of a password in the server's output (at log level debug, bad messages
// included), and a password that survives a restart (SQLite).
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client, account, player, run, startServer, test } from "./lib.mjs";

// Cheap hashes (1 pass, 8 MiB) keep the test fast; the costs are the server's flags.
const CHEAP = ["--password-ops", "1", "--password-mem-mib", "8", "--rate", "1000", "--burst", "1000"];
const PW = "correct horse battery staple";
const PW2 = "Grüße, Zoë! ☕ 日本語 pass";

/** A fresh guest connection (hello without a name), from addr when given. */
async function guest(server, name = "guest", addr) {
  const c = await Client.connect(server.ws, name, ["thue.v1"], addr ? { localAddress: addr } : {});
  c.welcome = await c.ok({ type: "hello", protocol: 1 });
  return c;
}

test("set a password, log in from a second connection, and the token works", async () => {
  const server = await startServer(CHEAP);
  try {
    const ann = await account(server, "Ann");
    const ok = await ann.request({ type: "set_password", password: PW });
    assert.equal(ok.type, "ok", JSON.stringify(ok));

    const phone = await guest(server, "phone");
    assert.equal(phone.welcome.player.kind, "guest");
    const acc = await phone.request({ type: "login", name: "Ann", password: PW });
    assert.equal(acc.type, "account", JSON.stringify(acc));
    assert.equal(acc.name, "Ann");
    assert.match(acc.token, /^t_[0-9a-f]{64}$/);
    assert.match(acc.resume, /^[0-9a-f]{32}$/);
    // Ann's first connection is still alive: the login took its session over.
    const bye = await ann.next("goodbye");
    assert.equal(bye.reason, "replaced");

    // The session is Ann's now: claiming another name is refused, and a second login too.
    const again = await phone.request({ type: "login", name: "Ann", password: PW });
    assert.equal(again.code, "not_allowed");

    // The token of the login works with hello, as claim_name's does, and so does Ann's
    // own (the login added a token; it replaced none).
    const laptop = await Client.connect(server.ws, "laptop");
    const w = await laptop.ok({ type: "hello", protocol: 1, token: acc.token });
    assert.deepEqual(w.player, { name: "Ann", kind: "account" });
    // Names are compared as names: a login with another case finds the account.
    const tablet = await guest(server, "tablet");
    const acc2 = await tablet.request({ type: "login", name: "ANN", password: PW });
    assert.equal(acc2.type, "account");
    assert.equal(acc2.name, "Ann");
    assert.notEqual(acc2.token, acc.token);
  } finally {
    await server.stop();
  }
});

test("a login with no session of the account alive makes the guest's session the account's", async () => {
  // With no grace period, Bo's session ends with its connection.
  const s2 = await startServer([...CHEAP, "--grace-s", "0"]);
  try {
    const bo = await account(s2, "Bo");
    await bo.ok({ type: "set_password", password: PW });
    bo.ws.close();
    await bo.closed;
    const g = await guest(s2, "g");
    const { room } = await g.ok({ type: "create_room", k: 3 });
    const acc = await g.request({ type: "login", name: "bo", password: PW });
    assert.equal(acc.type, "account", JSON.stringify(acc));
    assert.equal(acc.name, "Bo");
    assert.equal(acc.resume, g.welcome.resume, "the guest's session carries on as Bo's");
    // Its room now shows Bo as an account.
    const st = await g.state(room, (s) => s.players.some((p) => p && p.name === "Bo"));
    assert.equal(st.players.find((p) => p && p.name === "Bo").kind, "account");
  } finally {
    await s2.stop();
  }
});

test("a wrong password and an unknown name get the same answer", async () => {
  const server = await startServer(CHEAP);
  try {
    const ann = await account(server, "Ann");
    await ann.ok({ type: "set_password", password: PW });
    await account(server, "Bob"); // an account without a password
    const c = await guest(server);
    const answers = [];
    // A wrong password, an unknown name, an account without a password, a bot's name.
    for (const [name, password] of [["Ann", "wrong password"], ["Nobody", PW], ["Bob", PW], ["greedy", PW]])
      answers.push(await c.request({ type: "login", name, password }));
    for (const r of answers) {
      assert.equal(r.type, "error");
      assert.equal(r.code, "bad_password");
      assert.equal(r.message, answers[0].message);
      assert.equal(r.field, undefined);
    }
    // Nor does the message ever hold the password, nor the name.
    assert.ok(!answers[0].message.includes("wrong password"));
    // A guest without an account cannot set a password.
    const g = await guest(server, "g2");
    const r = await g.request({ type: "set_password", password: PW });
    assert.equal(r.code, "not_allowed");
    // Form errors name the member, not its value.
    const short = await g.request({ type: "set_password", password: "short" });
    assert.equal(short.code, "bad_message");
    assert.equal(short.field, "password");
    assert.ok(!short.message.includes("short\""), short.message);
    const empty = await g.request({ type: "login", name: "Ann", password: "" });
    assert.equal(empty.code, "bad_message");
    assert.equal(empty.field, "password");
  } finally {
    await server.stop();
  }
});

test("changing a password needs the old one", async () => {
  const server = await startServer(CHEAP);
  try {
    const ann = await account(server, "Ann");
    await ann.ok({ type: "set_password", password: PW });
    let r = await ann.request({ type: "set_password", password: PW2 });
    assert.equal(r.code, "bad_message");
    assert.equal(r.field, "old_password");
    r = await ann.request({ type: "set_password", password: PW2, old_password: "not it at all" });
    assert.equal(r.code, "bad_password");
    assert.equal(r.field, "old_password");
    r = await ann.request({ type: "set_password", password: PW2, old_password: PW });
    assert.equal(r.type, "ok", JSON.stringify(r));
    const c = await guest(server);
    assert.equal((await c.request({ type: "login", name: "Ann", password: PW })).code, "bad_password");
    assert.equal((await c.request({ type: "login", name: "Ann", password: PW2 })).type, "account");
  } finally {
    await server.stop();
  }
});

test("failed logins are rate limited per address and per name", async () => {
  const server = await startServer([...CHEAP, "--login-fails-per-ip", "4", "--login-fails-per-name", "3"]);
  try {
    const ann = await account(server, "Ann");
    await ann.ok({ type: "set_password", password: PW });
    // Per name: three failures for Ann (from two addresses), then even the right password
    // waits.
    const a1 = await guest(server, "a1", "127.0.0.2");
    const a2 = await guest(server, "a2", "127.0.0.3");
    for (const c of [a1, a2, a1])
      assert.equal((await c.request({ type: "login", name: "Ann", password: "nope nope" })).code, "bad_password");
    const limited = await a2.request({ type: "login", name: "Ann", password: PW });
    assert.equal(limited.code, "rate_limited");
    assert.match(limited.message, /try again in \d+ minutes/);
    assert.ok(!limited.message.includes(PW));
    // Per address: 127.0.0.2 has two failures left (4 - 2): unknown names use them up.
    assert.equal((await a1.request({ type: "login", name: "Zed", password: "nope nope" })).code, "bad_password");
    assert.equal((await a1.request({ type: "login", name: "Yan", password: "nope nope" })).code, "bad_password");
    const r = await a1.request({ type: "login", name: "Xi", password: "nope nope" });
    assert.equal(r.code, "rate_limited");
    assert.match(r.message, /your address/);
    // Another address and another name are not limited.
    const a3 = await guest(server, "a3", "127.0.0.4");
    assert.equal((await a3.request({ type: "login", name: "Zed", password: "nope nope" })).code, "bad_password");
    // One request at a time per connection.
    a3.send({ type: "login", id: "x1", name: "Yan", password: "one" });
    a3.send({ type: "login", id: "x2", name: "Yan", password: "two" });
    const [x1, x2] = [await a3.next((m) => m.id === "x1"), await a3.next((m) => m.id === "x2")];
    assert.equal(x1.code, "bad_password");
    assert.equal(x2.code, "rate_limited");
  } finally {
    await server.stop();
  }
});

test("no password in the server's output, at log level debug", async () => {
  const secret = "Sekr3t-Pa55w0rd-do-not-log";
  const server = await startServer([...CHEAP, "--log-level", "debug"]);
  try {
    const ann = await account(server, "Ann");
    await ann.ok({ type: "set_password", password: secret });
    await ann.ok({ type: "set_password", password: secret + "2", old_password: secret });
    const c = await guest(server);
    await c.request({ type: "login", name: "Ann", password: secret });
    await c.request({ type: "login", name: "Nobody", password: secret });
    await c.request({ type: "login", name: "Ann", password: secret + "2" });
    // Bad messages: cut short (jansson would quote the text near the error), a control
    // character, too long, a number.
    const bad = await guest(server, "bad");
    for (const text of [
      `{"type":"login","name":"Ann","password":"${secret}`,
      `{"type":"login","name":"Ann","password":"${secret}\\u0001"}`,
      `{"type":"set_password","password":"${secret.repeat(20)}"}`,
      `{"type":"login","name":"Ann","password":"${secret}",}`,
    ]) {
      bad.send(text);
      const e = await bad.next("error");
      assert.ok(!JSON.stringify(e).includes("Sekr3t"), JSON.stringify(e));
    }
    await bad.ok({ type: "ping" });
  } finally {
    await server.stop();
  }
  const out = server.stdout() + server.stderr();
  assert.ok(out.includes("password"), "the log says what happened (password set, logged in)");
  assert.ok(!out.includes("Sekr3t"), out);
});

test("a connection that goes while its login is out, and a server stopped meanwhile", async () => {
  // One hashing slot (--password-jobs 1). The guest who stays sends its login first (the
  // pong after it says the server has it), so its hash takes the slot; three others send
  // theirs and vanish at once, while their logins are out (read from the store, or
  // waiting for the slot behind it), and are never answered. The test waits for one hash
  // at a time, its own: before, the one who stayed asked last and waited behind the
  // vanished ones too, and with costly hashes (4 passes over 64 MiB) on a busy machine
  // that took more than the 30 s it was given.
  const server = await startServer(["--password-ops", "1", "--password-mem-mib", "32", "--password-jobs", "1"]);
  try {
    const ann = await account(server, "Ann");
    await ann.ok({ type: "set_password", password: PW });
    const c = await guest(server, "stays");
    const gone = [];
    for (let i = 0; i < 3; i++) gone.push(await guest(server, `gone${i}`));
    const answer = c.request({ type: "login", name: "Ann", password: PW });
    await c.ok({ type: "ping" });
    for (const [i, g] of gone.entries()) {
      g.send({ type: "login", id: 1, name: "Ann", password: i === 0 ? PW : "wrong one" });
      g.ws.terminate();
    }
    const acc = await answer;
    assert.equal(acc.type, "account", JSON.stringify(acc));
    // Nobody logged in as Ann from a vanished connection: the one who stayed has her
    // session, and the server still answers.
    assert.deepEqual((await c.ok({ type: "ping" })).type, "pong");
    // Stopped while a login is out: it exits cleanly.
    const d = await guest(server, "late");
    d.send({ type: "login", id: 1, name: "Ann", password: PW });
  } finally {
    const { code } = await server.stop("SIGTERM");
    assert.equal(code, 0);
  }
});

test("a password survives a restart (SQLite)", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thue-pw-"));
  const db = path.join(dir, "thue.db");
  try {
    let server = await startServer([...CHEAP, "--db", db]);
    let token;
    try {
      const ann = await account(server, "Ann");
      await ann.ok({ type: "set_password", password: PW });
      const c = await guest(server);
      token = (await c.ok({ type: "login", name: "Ann", password: PW })).token;
    } finally {
      await server.stop();
    }
    // Other costs after the restart: the old hash still verifies (and is hashed again).
    server = await startServer(["--password-ops", "2", "--password-mem-mib", "9", "--db", db]);
    try {
      const c = await guest(server);
      const acc = await c.request({ type: "login", name: "Ann", password: PW });
      assert.equal(acc.type, "account", JSON.stringify(acc));
      const d = await guest(server, "d");
      assert.equal((await d.request({ type: "login", name: "Ann", password: PW2 })).code, "bad_password");
      // The login token of before the restart still logs in.
      const t = await Client.connect(server.ws, "t");
      const w = await t.ok({ type: "hello", protocol: 1, token });
      assert.equal(w.player.name, "Ann");
    } finally {
      await server.stop();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

await run();
