// lib.mjs: what the integration tests share: the real thue-server started on an
// ephemeral loopback port, WebSocket clients written with npm's `ws` (not our C codec),
// and a small sequential test runner.
//
// The server binary comes from --server PATH (ctest passes it) or $THUE_SERVER, and each
// test starts its own server, so tests cannot disturb one another. Nothing here sleeps to
// wait for something: every wait is for a message, an event or a process exit, with a
// watchdog timeout that fails the test instead of hanging it.
import { spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import process from "node:process";
import WebSocket from "ws";

export const WAIT_MS = Number(process.env.THUE_TEST_WAIT_MS || 10000);

function argValue(name) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

export const SERVER = argValue("--server") || process.env.THUE_SERVER;

/** The `thue` command: --cli PATH, $THUE_CLI, or the one built beside the server. */
export const CLI =
  argValue("--cli") ||
  process.env.THUE_CLI ||
  (SERVER ? path.resolve(path.dirname(SERVER), "..", "clients", "cli", "thue") : undefined);

/** A promise that rejects after ms with a message saying what was awaited. */
export function withTimeout(promise, ms, what) {
  let timer;
  const watchdog = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, watchdog]).finally(() => clearTimeout(timer));
}

/**
 * Starts thue-server on 127.0.0.1 and an ephemeral port. extra: more flags. Resolves to
 * {proc, port, url, ws, stderr(), stop(signal)} once the server printed its
 * "thue-server listening on http://HOST:PORT" line.
 */
export async function startServer(extra = [], env = {}) {
  if (!SERVER) throw new Error("no server binary: pass --server PATH or set THUE_SERVER");
  // Each server keeps its database in memory unless the test names a file.
  const db = extra.includes("--db") ? [] : ["--db", ":memory:"];
  const args = ["--port", "0", "--bind", "127.0.0.1", "--log-level", "warn", ...db, ...extra];
  const proc = spawn(SERVER, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  proc.stderr.on("data", (d) => (err += d));
  const exited = once(proc, "exit");
  const port = await withTimeout(
    new Promise((resolve, reject) => {
      proc.stdout.on("data", (d) => {
        out += d;
        const m = /thue-server listening on http:\/\/[^:\s]+:(\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      exited.then(([code, sig]) => reject(new Error(`server exited (${code ?? sig}) before listening:\n${err}`)));
    }),
    WAIT_MS,
    "the server to listen",
  );
  const server = {
    proc,
    args,
    port,
    url: `http://127.0.0.1:${port}`,
    ws: `ws://127.0.0.1:${port}/ws`,
    stderr: () => err,
    stdout: () => out,
    exited,
    /** Sends signal and resolves to {code, signal} when the process has exited. */
    async stop(signal = "SIGTERM", ms = WAIT_MS) {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      const [code, sig] = await withTimeout(exited, ms, `the server to exit after ${signal}`);
      return { code, signal: sig };
    },
  };
  return server;
}

/** Runs the server binary to completion with args; resolves to {code, stdout, stderr}. */
export async function runServer(args, env = {}, ms = WAIT_MS) {
  const proc = spawn(SERVER, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  proc.stdout.on("data", (d) => (stdout += d));
  proc.stderr.on("data", (d) => (stderr += d));
  const [code] = await withTimeout(once(proc, "exit"), ms, `thue-server ${args.join(" ")} to exit`);
  return { code, stdout, stderr };
}

/**
 * A WebSocket client that records everything it receives. Messages are parsed JSON;
 * `next(pred)` returns the first received message matching pred that no earlier
 * `next` took, waiting for it if needed.
 */
export class Client {
  constructor(ws, name) {
    this.ws = ws;
    this.name = name;
    this.inbox = [];
    this.waiters = [];
    this.nextId = 1;
    this.closeInfo = null;
    this.closed = new Promise((resolve) => {
      ws.on("close", (code, reason) => {
        this.closeInfo = { code, reason: reason.toString() };
        resolve(this.closeInfo);
        for (const w of this.waiters) w.reject(new Error(`${this.name}: connection closed (${code}) while waiting for ${w.what}`));
        this.waiters = [];
      });
    });
    ws.on("message", (data, isBinary) => {
      const msg = isBinary ? { binary: data } : JSON.parse(data.toString());
      this.inbox.push(msg);
      this.dispatch();
    });
  }

  static async connect(url, name = "client", protocols = ["thue.v1"], options = {}) {
    const ws = new WebSocket(url, protocols, options);
    const c = new Client(ws, name);
    await withTimeout(
      new Promise((resolve, reject) => {
        ws.once("open", resolve);
        ws.once("error", reject);
        ws.once("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      }),
      WAIT_MS,
      `${name} to connect`,
    );
    return c;
  }

  dispatch() {
    for (let i = 0; i < this.waiters.length; ) {
      const w = this.waiters[i];
      const j = this.inbox.findIndex(w.pred);
      if (j >= 0) {
        const [m] = this.inbox.splice(j, 1);
        this.waiters.splice(i, 1);
        w.resolve(m);
      } else {
        i++;
      }
    }
  }

  /** The next message matching pred (a function or a type name). */
  next(pred, what, ms = WAIT_MS) {
    const p = typeof pred === "string" ? (m) => m.type === pred : pred;
    const label = what || (typeof pred === "string" ? `a ${pred} message` : "a message");
    const j = this.inbox.findIndex(p);
    if (j >= 0) return Promise.resolve(this.inbox.splice(j, 1)[0]);
    if (this.closeInfo) return Promise.reject(new Error(`${this.name}: closed (${this.closeInfo.code}) before ${label}`));
    return withTimeout(
      new Promise((resolve, reject) => this.waiters.push({ pred: p, resolve, reject, what: label })),
      ms,
      `${this.name}: ${label}`,
    );
  }

  /** Sends a raw text or an object. */
  send(msg) {
    this.ws.send(typeof msg === "string" ? msg : JSON.stringify(msg));
  }

  /** Sends obj with a fresh id and resolves to the reply carrying that id. */
  async request(obj, ms = WAIT_MS) {
    const id = this.nextId++;
    this.send({ ...obj, id });
    return this.next((m) => m.id === id, `the reply to ${obj.type} #${id}`, ms);
  }

  /** request() that must not fail: resolves to the reply, throws on an error reply. */
  async ok(obj, ms = WAIT_MS) {
    const r = await this.request(obj, ms);
    if (r.type === "error") throw new Error(`${this.name}: ${obj.type} failed: ${r.code}: ${r.message}`);
    return r;
  }

  /** The next room_state of room (optionally matching pred). States of that room
   * received before it are dropped: they are older. */
  async state(room, pred = () => true, what) {
    const s = await this.next((m) => m.type === "room_state" && m.room === room && pred(m), what || `a room_state of ${room}`);
    this.inbox = this.inbox.filter((m) => !(m.type === "room_state" && m.room === room && m.version < s.version));
    return s;
  }

  /** Drops every queued room_state of room but the latest, and returns that one (or waits). */
  async latestState(room) {
    const mine = this.inbox.filter((m) => m.type === "room_state" && m.room === room);
    if (mine.length === 0) return this.state(room);
    this.inbox = this.inbox.filter((m) => !(m.type === "room_state" && m.room === room));
    return mine[mine.length - 1];
  }

  close() {
    this.ws.close();
    return this.closed;
  }
}

/** Connects (from the local address addr, 127.0.0.x, when given) and says hello as name;
 * resolves to the client, with .welcome set. */
export async function player(server, name, addr) {
  const c = await Client.connect(server.ws, name, ["thue.v1"], addr ? { localAddress: addr } : {});
  c.welcome = await c.ok({ type: "hello", protocol: 1, name });
  return c;
}

/** A player that claimed its name (an account), from addr when given. */
export async function account(server, name, addr) {
  const c = await player(server, name, addr);
  await c.ok({ type: "claim_name", name });
  return c;
}

/** The value of a metric in /metrics (a line "name value"), or NaN. */
export async function metric(server, name) {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const m = new RegExp(`^${name} (\\d+)$`, "m").exec(text);
  return m ? Number(m[1]) : NaN;
}

/** GET path from the server: {status, headers, body (text), json (parsed or undefined)}. */
export async function get(server, path, init = {}) {
  const res = await fetch(server.url + path, init);
  const body = await res.text();
  let json;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, body, json };
}

/** A Thue room of k = 3 made by a (its creator builds first; opts add to create_room),
 * b joined, both ready: resolves to the room's id once a's state says playing. */
export async function startMatch(a, b, opts = {}) {
  const { room } = await a.ok({ type: "create_room", k: 3, first_builder: "creator", ...opts });
  await b.ok({ type: "join", room });
  await a.ok({ type: "ready", room });
  await b.ok({ type: "ready", room });
  await a.state(room, (s) => s.status === "playing");
  return room;
}

/** Plays c's games of a tournament as they come: every room_state where c is to move
 * gets a move (build at the end; paint the lowest symbol unlike both neighbours). */
export function autoplay(c, k) {
  let stopped = false;
  (async () => {
    while (!stopped) {
      let s;
      try {
        s = await c.next((m) => m.type === "room_state" && m.match && m.match.to_move === m.you && m.status === "playing", "a move to make", 600000);
      } catch {
        return;
      }
      const m = s.match;
      const msg = m.step === "place" ? { type: "place", room: s.room, position: m.word.length } : (() => {
        let sym = 0;
        while (sym < k && (m.word[m.placed - 1] === sym || m.word[m.placed] === sym)) sym++;
        return { type: "paint", room: s.room, symbol: sym % k };
      })();
      c.send({ ...msg, id: `auto-${s.room}-${s.version}` }); // a stale state is answered with an error: fine
    }
  })();
  return () => (stopped = true);
}

/** A small random generator (a fixed seed: a failure replays): n -> 0..n-1. */
export function rng(seed) {
  let x = seed >>> 0 || 1;
  return (n) => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % n;
  };
}

/** The message that plays listed move m (a legal_moves entry) in room: Thue's place or
 * paint, another game's move. */
export function moveMessage(room, m) {
  if ("position" in m && Object.keys(m).length === 1) return { type: "place", room, position: m.position };
  if ("symbol" in m && Object.keys(m).length === 1) return { type: "paint", room, symbol: m.symbol };
  return { type: "move", room, move: m };
}

// ---- a sequential test runner --------------------------------------------------------------

const tests = [];
export function test(name, fn) {
  tests.push({ name, fn });
}

/** Runs the registered tests in order (a filter from --only NAME-PART); exits 1 on failure. */
export async function run() {
  const only = argValue("--only");
  let failed = 0;
  let ran = 0;
  for (const t of tests) {
    if (only && !t.name.includes(only)) continue;
    ran++;
    const t0 = Date.now();
    try {
      await t.fn();
      console.log(`ok   ${t.name} (${Date.now() - t0} ms)`);
    } catch (e) {
      failed++;
      console.log(`FAIL ${t.name}\n     ${e && e.stack ? e.stack.split("\n").join("\n     ") : e}`);
    }
  }
  console.log(`${ran - failed} of ${ran} passed`);
  process.exit(failed ? 1 : 0);
}
