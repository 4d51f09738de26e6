// cli.test.mjs: the `thue` network commands (bot, watch, play) and the Node example bot
// (clients/examples/bot.mjs) against the real server.
//
// The commands speak thue.v2 by default (their room model turns `played` back into the
// room's state): the tests at the end run them with the hidden --check-sync N, which
// asks the server for the room's whole state (sync) after every N-th move and exits 3
// when it differs from the model's, and compare `thue watch`'s output under thue.v2
// with its output under thue.v1 (--protocol 1); a fake server that selects thue.v1
// checks the fallback.
//
// The thue binary comes from --cli PATH, $THUE_CLI, or next to the server binary
// (BUILD/server/thue-server -> BUILD/clients/cli/thue). Without it the tests fail.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { WebSocketServer } from "ws";
import { CLI, player, rng, run, startServer, test, withTimeout } from "./lib.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const GAME_MS = 120000;


/** Starts a process; resolves .done to {code, stdout, stderr}. onLine(line) sees stdout. */
function start(cmd, args, { input, onLine } = {}) {
  const proc = spawn(cmd, args, { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let partial = "";
  proc.stdout.on("data", (d) => {
    stdout += d;
    partial += d;
    let nl;
    while ((nl = partial.indexOf("\n")) >= 0) {
      const line = partial.slice(0, nl);
      partial = partial.slice(nl + 1);
      if (onLine) onLine(line);
    }
  });
  proc.stderr.on("data", (d) => (stderr += d));
  proc.stdin.on("error", () => {}); // a process that exits before reading all input
  if (input !== undefined) proc.stdin.end(input);
  // "close", not "exit": the output may still be on its way when the process exits.
  const exited = once(proc, "close");
  const done = exited.then(([code, signal]) => ({ code, signal, stdout, stderr }));
  return { proc, done };
}

async function finish(p, what, ms = GAME_MS) {
  try {
    return await withTimeout(p.done, ms, what);
  } catch (e) {
    p.proc.kill("SIGKILL");
    throw e;
  }
}

/** A missing binary is a failure, never a skip: build the `thue` target first. */
function skipWithoutCli() {
  if (!CLI || !fs.existsSync(CLI))
    throw new Error(`no thue binary (${CLI}): build the thue target, or pass --cli PATH or set THUE_CLI`);
  return false;
}

test("thue bot: two processes play two queued games each and exit 0", async () => {
  if (skipWithoutCli()) return;
  const server = await startServer();
  try {
    const a = start(CLI, ["bot", "--bot", "nested:1", "--server", server.ws, "--games", "2", "--think-ms", "100"]);
    const b = start(CLI, ["bot", "--bot", "greedy", "--server", server.ws, "--games", "2", "--think-ms", "100", "--json"]);
    const ra = await finish(a, "thue bot A");
    const rb = await finish(b, "thue bot B");
    assert.equal(ra.code, 0, ra.stderr);
    assert.equal(rb.code, 0, rb.stderr);
    assert.equal((ra.stdout.match(/^game \d+: room /gm) || []).length, 2, ra.stdout);
    assert.match(ra.stdout, /^2 games: /m);
    const lines = rb.stdout.trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(lines.length, 3, rb.stdout);
    assert.equal(lines[2].games, 2);
    assert.ok(["win", "draw", "loss"].includes(lines[0].result));
  } finally {
    await server.stop();
  }
});

test("thue bot: bad arguments exit 2, an unreachable server exits 1", async () => {
  if (skipWithoutCli()) return;
  let r = await finish(start(CLI, ["bot"]), "thue bot without --bot");
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--bot/);
  r = await finish(start(CLI, ["bot", "--bot", "nosuchbot"]), "thue bot --bot nosuchbot");
  assert.equal(r.code, 2);
  r = await finish(start(CLI, ["bot", "--bot", "greedy", "--queue", "circle,3"]), "bad --queue");
  assert.equal(r.code, 2);
  r = await finish(start(CLI, ["watch"]), "thue watch without ROOM");
  assert.equal(r.code, 2);
  r = await finish(start(CLI, ["play", "--room", "a", "--queue", "square,3"]), "play with two modes");
  assert.equal(r.code, 2);
  for (const bad of ["3", "0", "v2", ""]) {
    r = await finish(start(CLI, ["watch", "r1", "--protocol", bad]), `thue watch --protocol '${bad}'`);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--protocol must be 1 \(thue\.v1\) or 2/);
  }
  r = await finish(start(CLI, ["bot", "--bot", "greedy", "--check-sync", "0"]), "thue bot --check-sync 0");
  assert.equal(r.code, 2);
  r = await finish(start(CLI, ["bot", "--bot", "greedy", "--server", "ws://127.0.0.1:1/ws"]), "thue bot, no server");
  assert.equal(r.code, 1);
  assert.match(r.stderr, /connect/);
  for (const cmd of ["bot", "watch", "play"]) {
    r = await finish(start(CLI, [cmd, "--help"]), `thue ${cmd} --help`);
    assert.equal(r.code, 0);
    assert.match(r.stdout, new RegExp(`^Usage: thue ${cmd}`));
    assert.match(r.stdout, /--protocol/);
  }
});

/** A TCP proxy to port that cuts the first connection through which the server sent
 * `cutAfter`, 20 ms later; what the server sends meanwhile is lost (so the client's
 * game cannot end before the cut, however fast it goes). Resolves to {port, cuts(),
 * close()}. */
async function cuttingProxy(port, cutAfter) {
  let cuts = 0;
  const sockets = new Set();
  const srv = net.createServer((client) => {
    const upstream = net.connect(port, "127.0.0.1");
    sockets.add(client);
    sockets.add(upstream);
    client.on("error", () => {});
    upstream.on("error", () => {});
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.pipe(upstream);
    let cutting = false;
    upstream.on("data", (d) => {
      if (cutting) return;
      client.write(d);
      if (cuts === 0 && d.includes(cutAfter)) {
        cuts++;
        cutting = true;
        setTimeout(() => {
          client.destroy();
          upstream.destroy();
        }, 20);
      }
    });
  });
  srv.listen(0, "127.0.0.1");
  await once(srv, "listening");
  return {
    port: srv.address().port,
    cuts: () => cuts,
    close: () => {
      for (const s of sockets) s.destroy();
      srv.close();
    },
  };
}

test("thue bot resumes its session after a lost connection and finishes the game", async () => {
  if (skipWithoutCli()) return;
  const server = await startServer();
  const proxy = await cuttingProxy(server.port, "match_found");
  try {
    const url = `ws://127.0.0.1:${proxy.port}/ws`;
    const a = start(CLI, ["bot", "--bot", "greedy", "--server", url, "--think-ms", "50"]);
    const b = start(CLI, ["bot", "--bot", "nested:1", "--server", server.ws, "--think-ms", "50"]);
    const ra = await finish(a, "thue bot behind the proxy");
    const rb = await finish(b, "thue bot");
    assert.equal(proxy.cuts(), 1);
    assert.equal(ra.code, 0, ra.stderr);
    assert.equal(rb.code, 0, rb.stderr);
    assert.match(ra.stderr, /resumed the session/);
    assert.match(ra.stdout, /^game 1: .* \(score\)/m);
    assert.match(rb.stdout, /^game 1: .* \(score\)/m);
  } finally {
    proxy.close();
    await server.stop();
  }
});

test("thue watch follows a bot-vs-bot room to the end", async () => {
  if (skipWithoutCli()) return;
  const server = await startServer(["--guest-bot-vs-bot", "1"]); // a guest hosts it
  try {
    const host = await player(server, "Host");
    const created = await host.ok({ type: "create_room", k: 3, limit: 6, seat: false });
    const room = created.room;
    let firstLine;
    const seen = new Promise((resolve) => (firstLine = resolve));
    const w = start(CLI, ["watch", room, "--server", server.ws], { onLine: (l) => firstLine(l) });
    await withTimeout(seen, 10000, "thue watch's first line");
    await host.ok({ type: "seat_bot", room, bot: "greedy", think_ms: 10 });
    await host.ok({ type: "seat_bot", room, bot: "nested:1", think_ms: 10 });
    const r = await finish(w, "thue watch to exit");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^v\d+ playing match 1 round 1 builder /m);
    assert.match(r.stdout, /^v\d+ finished .* result /m);
    assert.match(r.stdout, /^result: .*\(score\), points /m);
    host.close();
  } finally {
    await server.stop();
  }
});

test("thue watch opens a cut connection again and follows the room to its result", async () => {
  if (skipWithoutCli()) return;
  const server = await startServer();
  const proxy = await cuttingProxy(server.port, '"playing"');
  try {
    const host = await player(server, "Host");
    const guest = await player(server, "Guest");
    const { room } = await host.ok({ type: "create_room", k: 3, limit: 6, seat: true });
    await guest.ok({ type: "join", room });
    let text = "";
    let reconnected;
    const back = new Promise((resolve) => (reconnected = resolve));
    const w = start(CLI, ["watch", room, "--server", `ws://127.0.0.1:${proxy.port}/ws`]);
    w.proc.stderr.on("data", (d) => {
      text += d;
      if (/reconnected/.test(text)) reconnected();
    });
    await host.ok({ type: "ready", room });
    await guest.ok({ type: "ready", room });
    await withTimeout(back, 10000, "thue watch to reconnect after the cut");
    await host.ok({ type: "resign", room });
    const r = await finish(w, "thue watch to exit");
    assert.equal(r.code, 0, r.stderr);
    assert.equal(proxy.cuts(), 1);
    assert.match(r.stderr, /reconnecting/);
    assert.match(r.stdout, /^v\d+ playing match 1 round 1 builder /m);
    assert.match(r.stdout, /^result: Guest wins \(resign\), points /m);
    host.close();
    guest.close();
  } finally {
    proxy.close();
    await server.stop();
  }
});

test("thue play, driven through stdin, plays a match against thue bot", async () => {
  if (skipWithoutCli()) return;
  const server = await startServer();
  try {
    const bot = start(CLI, ["bot", "--bot", "nested:1", "--server", server.ws, "--think-ms", "50"]);
    // Builder: position 0; painter: symbol 0. Both are always legal.
    const play = start(CLI, ["play", "--server", server.ws, "--name", "Pia", "--queue", "square,3"], {
      input: "0\n".repeat(400),
    });
    const rp = await finish(play, "thue play");
    const rb = await finish(bot, "thue bot");
    assert.equal(rp.code, 0, rp.stderr + rp.stdout.slice(-2000));
    assert.equal(rb.code, 0, rb.stderr);
    assert.match(rp.stdout, /Matched: room /);
    assert.match(rp.stdout, /\(builder\) plays position \d+ {2}\[[\d.]+ ms\]/);
    assert.match(rp.stdout, /wins the match|The match is a draw/);
    assert.match(rb.stdout, /^game 1: .* vs Pia: /m);
  } finally {
    await server.stop();
  }
});

test("thue play --create and thue play --room play a match; a slow answer and a cut connection keep the seat", async () => {
  if (skipWithoutCli()) return;
  // Pings after 1 s of silence and drops after 2 s: a prompt answered after 3 s only
  // survives when the client services its connection while it waits for stdin.
  const server = await startServer(["--ping-s", "1", "--idle-s", "2"]);
  const proxy = await cuttingProxy(server.port, '"playing"');
  try {
    let prompts = 0;
    let roomSeen;
    const roomId = new Promise((resolve) => (roomSeen = resolve));
    const url = `ws://127.0.0.1:${proxy.port}/ws`;
    const host = start(CLI, ["play", "--server", url, "--name", "Hana", "--create", "k=3,limit=6,variant=square"]);
    let text = "";
    host.proc.stdout.on("data", (d) => {
      text += d;
      const m = /Created room (\S+?);/.exec(text);
      if (m) roomSeen(m[1]);
      const n = (text.match(/\(or resign\): /g) || []).length;
      while (prompts < n) {
        prompts++;
        // The first answer waits longer than the server's idle limit.
        const delay = prompts === 1 ? 3000 : 0;
        setTimeout(() => host.proc.stdin.write("0\n"), delay);
      }
    });
    const room = await withTimeout(roomId, 10000, "the room created by thue play --create");
    const guest = start(CLI, ["play", "--server", server.ws, "--name", "Gil", "--room", room], {
      input: "0\n".repeat(400),
    });
    const rg = await finish(guest, "thue play --room");
    const rh = await finish(host, "thue play --create");
    assert.equal(rg.code, 0, rg.stderr + rg.stdout.slice(-2000));
    assert.equal(rh.code, 0, rh.stderr + rh.stdout.slice(-2000));
    assert.equal(proxy.cuts(), 1);
    // One loss of connection (the proxy's cut), taken back; none from the slow answer.
    assert.equal((rh.stderr.match(/reconnecting/g) || []).length, 1, rh.stderr);
    assert.match(rh.stderr, /reconnected/);
    for (const r of [rg, rh]) {
      assert.match(r.stdout, /The match: (Hana|Gil) builds first, (Hana|Gil) paints first\. k=3, square\./);
      assert.match(r.stdout, /Round 1 over \((repetition|length limit)\)/);
      assert.match(r.stdout, /Round 2 over \((repetition|length limit)\)/);
      assert.match(r.stdout, /(wins the match|The match is a draw) \(score\): points /);
    }
    assert.ok(prompts >= 2, `${prompts} prompts`);
  } finally {
    proxy.close();
    await server.stop();
  }
});

test("the Node example bot plays a game against thue bot", async () => {
  if (skipWithoutCli()) return;
  const server = await startServer();
  // bot.mjs imports `ws`: run a copy next to this directory's node_modules.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thue-bot-mjs-"));
  try {
    fs.copyFileSync(path.join(HERE, "..", "..", "clients", "examples", "bot.mjs"), path.join(dir, "bot.mjs"));
    fs.symlinkSync(path.join(HERE, "node_modules"), path.join(dir, "node_modules"));
    const bot = start(CLI, ["bot", "--bot", "greedy", "--server", server.ws, "--think-ms", "50"]);
    const ex = start(process.execPath, [path.join(dir, "bot.mjs"), "--server", server.ws, "--name", "example", "--games", "1", "--check-every", "4"]);
    const re = await finish(ex, "bot.mjs");
    const rb = await finish(bot, "thue bot");
    assert.equal(re.code, 0, re.stderr);
    assert.equal(rb.code, 0, rb.stderr);
    assert.match(re.stdout, /^game 1: room \S+: (win|loss|draw) \(score\)/m);
    // It spoke thue.v2, and its copy of the room held against the server's every 4 moves.
    assert.match(re.stdout, /^checked room \S+ at version \d+: my copy is the server's$/m);
    assert.match(rb.stdout, /^game 1: .* vs example: /m);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await server.stop();
  }
});

// ---- thue.v2: the room model ------------------------------------------------------------

const FAST = ["--rate", "2000", "--burst", "4000"];

/** The counts of --check-sync's summary line on stderr ({checks, moves} and the unchecked
 * moves' left, refused, unanswered, unsent), or null. */
function checked(stderr) {
  const m = new RegExp(
    "--check-sync: (\\d+) synced states equal to the model's \\(thue\\.v2, (\\d+) moves applied; not checked: " +
      "(\\d+) of rooms left, (\\d+) refused, (\\d+) unanswered, (\\d+) unsent\\)",
  ).exec(stderr);
  if (!m) return null;
  const [checks, moves, left, refused, unanswered, unsent] = m.slice(1).map(Number);
  return { checks, moves, left, refused, unanswered, unsent };
}

/** Starts `thue watch room` with more args; resolves .first once it printed a line. */
function watcher(server, room, args) {
  let seen;
  const first = new Promise((resolve) => (seen = resolve));
  const w = start(CLI, ["watch", room, "--server", server.ws, ...args], { onLine: () => seen() });
  w.first = withTimeout(first, 10000, `thue watch ${args.join(" ")}'s first line`);
  return w;
}


function moveMessage(room, m) {
  if ("position" in m && Object.keys(m).length === 1) return { type: "place", room, position: m.position };
  if ("symbol" in m && Object.keys(m).length === 1) return { type: "paint", room, symbol: m.symbol };
  return { type: "move", room, move: m };
}

/** The lines of a watch's output from version v on ("vN ..." lines and the result). */
/** thue watch's lines from the match's first state (the first "playing" one) on, without
 * their versions. */
function fromStart(stdout) {
  const lines = stdout.trim().split("\n");
  const at = lines.findIndex((l) => /^v\d+ playing /.test(l));
  return at < 0 ? [] : lines.slice(at).map((l) => l.replace(/^v\d+ /, ""));
}

test("thue.v2: thue bot and thue play keep their model equal to sync's whole states (--check-sync)", async () => {
  if (skipWithoutCli()) return;
  const server = await startServer(FAST);
  try {
    const a = start(CLI, ["bot", "--bot", "greedy", "--server", server.ws, "--games", "2", "--think-ms", "20", "--check-sync", "1"]);
    const b = start(CLI, ["bot", "--bot", "nested:1", "--server", server.ws, "--games", "2", "--think-ms", "20", "--check-sync", "3"]);
    const ra = await finish(a, "thue bot A");
    const rb = await finish(b, "thue bot B");
    assert.equal(ra.code, 0, ra.stderr);
    assert.equal(rb.code, 0, rb.stderr);
    assert.match(ra.stdout, /^2 games: /m);
    const ca = checked(ra.stderr);
    const cb = checked(rb.stderr);
    assert.ok(ca && cb, ra.stderr + rb.stderr);
    // Every move was applied and (A) checked, or (B) every third: a room is kept until
    // the answer to its leave, which comes after those of the syncs sent before it (the
    // last moves' syncs can still be out at a match's end). Only the process's wait for
    // the answers at exit (2 s) may run out on a busy machine.
    for (const [c, err] of [[ca, ra.stderr], [cb, rb.stderr]])
      assert.ok(c.left === 0 && c.refused === 0 && c.unsent === 0 && c.unanswered <= 1, err);
    assert.ok(ca.moves >= 8 && ca.checks + ca.unanswered === ca.moves, ra.stderr);
    assert.ok(cb.moves === ca.moves && cb.checks + cb.unanswered === Math.floor(cb.moves / 3), rb.stderr);

    const bot = start(CLI, ["bot", "--bot", "nested:1", "--server", server.ws, "--think-ms", "20", "--check-sync", "1"]);
    const play = start(CLI, ["play", "--server", server.ws, "--name", "Vera", "--queue", "square,3", "--check-sync", "1"], {
      input: "0\n".repeat(400),
    });
    const rp = await finish(play, "thue play --check-sync 1");
    const rbot = await finish(bot, "thue bot --check-sync 1");
    assert.equal(rp.code, 0, rp.stderr + rp.stdout.slice(-2000));
    assert.equal(rbot.code, 0, rbot.stderr);
    assert.match(rp.stdout, /Round 2 over \((repetition|length limit)\)/);
    assert.match(rp.stdout, /(wins the match|The match is a draw) \(score\): points /);
    const cp = checked(rp.stderr);
    assert.ok(cp && cp.moves > 0 && cp.checks >= cp.moves - 2, rp.stderr);
  } finally {
    await server.stop();
  }
});

test("thue.v2: thue watch of two bots with a clock: thinking, clocks and rounds checked against sync", async () => {
  if (skipWithoutCli()) return;
  const server = await startServer([...FAST, "--guest-bot-vs-bot", "1"]);
  try {
    const host = await player(server, "Host");
    const { room } = await host.ok({ type: "create_room", k: 3, limit: 8, seat: false, clock: { initial_ms: 600000, increment_ms: 500 } });
    const w = watcher(server, room, ["--check-sync", "1"]);
    await w.first;
    await host.ok({ type: "seat_bot", room, bot: "greedy", think_ms: 10 });
    await host.ok({ type: "seat_bot", room, bot: "nested:1", think_ms: 10 });
    const r = await finish(w, "thue watch --check-sync 1");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, / clocks \d+\.\ds \d+\.\ds /);
    assert.match(r.stdout, /^result: .*\(score\), points /m);
    const c = checked(r.stderr);
    assert.ok(c && c.moves >= 4 && c.checks >= c.moves - 2, r.stderr);
    host.close();
  } finally {
    await server.stop();
  }
});

const WATCHED = [
  { name: "thue", create: { k: 3, limit: 10 }, every: "1" },
  { name: "nim", create: { game: "nim", game_options: { heaps: [3, 4, 5] } }, every: "1" },
  { name: "dots", create: { game: "dots", game_options: { rows: 2, cols: 3 } }, every: "2" },
  { name: "wythoff", create: { game: "wythoff", game_options: { heaps: [6, 9] } }, every: "1" },
];

test("thue.v2: thue watch prints what it printed under thue.v1, its model checked against sync (Thue, Nim, dots, Wythoff)", async () => {
  if (skipWithoutCli()) return;
  const server = await startServer(FAST);
  try {
    for (const [gi, g] of WATCHED.entries()) {
      const seats = [await player(server, `Ann${gi}`), await player(server, `Bob${gi}`)];
      const { room } = await seats[0].ok({ type: "create_room", first_builder: "creator", ...g.create });
      await seats[1].ok({ type: "join", room });
      const w1 = watcher(server, room, ["--protocol", "1", "--check-sync", "1"]);
      await w1.first;
      const w2 = watcher(server, room, ["--check-sync", g.every]);
      await w2.first;
      await seats[0].ok({ type: "ready", room });
      await seats[1].ok({ type: "ready", room });
      const pick = rng(0xc11 + gi * 7919);
      let want = 0;
      let moves = 0;
      for (let turn = 0; turn < 400; turn++) {
        const s = await seats[0].state(room, (x) => x.version >= want && x.status !== "waiting");
        if (s.status === "finished") break;
        want = s.version + 1;
        const mover = seats[s.match.to_move];
        const lm = await mover.ok({ type: "get_legal_moves", room });
        await mover.ok(moveMessage(room, lm.moves[pick(lm.moves.length)]));
        moves++;
      }
      const r1 = await finish(w1, `${g.name}: thue watch --protocol 1`);
      const r2 = await finish(w2, `${g.name}: thue watch (thue.v2)`);
      assert.equal(r1.code, 0, r1.stderr);
      assert.equal(r2.code, 0, r2.stderr);
      // From the match's first state on, both printed the same lines but for the versions
      // (thue.v1's also count the watchers' arrivals: PROTOCOL.md section 18).
      const lines = fromStart(r2.stdout);
      assert.ok(lines.length >= moves, `${g.name}: ${lines.length} lines for ${moves} moves`);
      assert.deepEqual(fromStart(r1.stdout), lines, `${g.name}: the output under thue.v1 and thue.v2`);
      assert.match(r1.stderr, /--check-sync: nothing checked: the server spoke thue\.v1/);
      const c = checked(r2.stderr);
      const every = Number(g.every);
      assert.ok(c && c.moves === moves && c.checks >= Math.floor(moves / every) - 1, `${g.name}: ${r2.stderr}`);
      for (const p of seats) p.close();
    }
  } finally {
    await server.stop();
  }
});

test("the fallback: offered thue.v2 and thue.v1, the CLI says hello in the version the server selects", async () => {
  if (skipWithoutCli()) return;
  // A fake server: it selects `select` among the offered subprotocols, records the offer
  // and the hello, and refuses the hello (the command then exits 1).
  let select = "thue.v1";
  const seen = [];
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1", handleProtocols: (offered) => (offered.has(select) ? select : false) });
  wss.on("connection", (ws, req) => {
    const rec = { offered: req.headers["sec-websocket-protocol"], selected: ws.protocol };
    seen.push(rec);
    ws.on("message", (d) => {
      const m = JSON.parse(d.toString());
      rec.hello = m;
      ws.send(JSON.stringify({ type: "error", id: m.id, code: "server_busy", message: "a fake server" }));
    });
  });
  await once(wss, "listening");
  const url = `ws://127.0.0.1:${wss.address().port}/ws`;
  try {
    const cases = [
      { select: "thue.v1", args: [], offered: "thue.v2,thue.v1", protocol: 1 },
      { select: "thue.v2", args: [], offered: "thue.v2,thue.v1", protocol: 2 },
      { select: "thue.v1", args: ["--protocol", "1"], offered: "thue.v1", protocol: 1 },
    ];
    for (const [i, c] of cases.entries()) {
      select = c.select;
      for (const cmd of [["watch", "r1"], ["bot", "--bot", "greedy"], ["play", "--room", "r1"]]) {
        const r = await finish(start(CLI, [...cmd, "--server", url, ...c.args]), `thue ${cmd[0]} against the fake`);
        assert.equal(r.code, 1, r.stderr);
        assert.match(r.stderr, /the server refused hello: a fake server/);
        const rec = seen.at(-1);
        assert.equal(rec.offered.replace(/ /g, ""), c.offered, `case ${i} ${cmd[0]}: the offer`);
        assert.equal(rec.selected, c.select);
        assert.equal(rec.hello.type, "hello");
        assert.equal(rec.hello.protocol, c.protocol, `case ${i} ${cmd[0]}: hello's protocol`);
      }
    }
  } finally {
    for (const ws of wss.clients) ws.terminate();
    wss.close();
  }
});

await run();
