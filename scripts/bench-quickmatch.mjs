// bench-quickmatch.mjs: how fast quick match pairs players, on one node or across
// nodes (docs/bench.md, "Several nodes"). P pairings, C at a time; each pairing is two
// fresh guests: the first says hello on --first and joins a queue, and once its `ok` is
// back the second says hello on --second and joins the same queue. A pairing is done
// when both players hold the new room's `room_state`. The room is made on the node of
// the ticket that reached the queue last: the second player's as a rule, and its player
// hears `match_found`; the other hears `match_found` too when both are on one node, or
// `moved` (reason match) when the room is on another node, and then connects to that
// node (--node NAME=URL: how to reach it, as the balancer's /n/NAME/ws would), says
// hello with the resume token of `moved` and gets the state there. The first player's
// `ok` can come before its ticket is in Redis, so now and then the second is the one
// moved (counted apart: moved_second). The latency of a pairing runs from the second
// `queue_join` sent to the later of the two states. The first player then resigns and
// all close.
//
// Each pipeline of the C has a queue of its own (square, k 12, limit 100 + its index),
// so that its two players always pair with each other: a pair on two nodes is never
// paired by chance with a player of its own node. Loopback servers only.
//
//   node scripts/bench-quickmatch.mjs --first ws://127.0.0.1:P1/ws --second ws://127.0.0.1:P2/ws \
//        --node n1=ws://127.0.0.1:P1/ws --node n2=ws://127.0.0.1:P2/ws [--pairs 400] [--json]
//
// The server must allow the load: --rate and --burst (a guest sends a few messages),
// --room-rate-per-ip and --max-connections-per-ip above what P pairings from one address
// make. Needs the ws package of tests/integration (npm ci --prefix tests/integration).
// Exit status: 0 when every pairing completed without an error, 1 when one did not (the
// report names the errors), 2 on a bad flag.
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const HELP = `Usage: node scripts/bench-quickmatch.mjs --first URL --second URL [options]

Pairs P couples of guests through quick match, C at a time, and reports pairings/s
and the latency of a pairing (second queue_join sent -> both players hold the room's
state, the moved player after resuming on the room's node).

  --first URL        ws://127.0.0.1:PORT/ws: the node of the player who waits
  --second URL       the node of the player who joins last (may equal --first)
  --node NAME=URL    where node NAME is reached when \`moved\` names it (repeat per node)
  --pairs P          1..100000 pairings in all (default 200)
  --concurrency C    1..1000 pairings at once (default 10)
  --time-limit S     1..3600: stop starting pairings after S seconds (default 60)
  --wait-ms MS       100..60000: the longest wait for one message (default 10000)
  --json             print the report as one JSON object
  -h, --help         this text

Exit status: 0 when every pairing completed, 1 when one failed, 2 on a bad flag.`;

function usage(msg) {
  process.stderr.write(`bench-quickmatch.mjs: ${msg}\n(--help lists the options)\n`);
  process.exit(2);
}

function loopbackUrl(flag, v) {
  let u;
  try {
    u = new URL(v);
  } catch {
    usage(`${flag}: '${v}' is not a URL (ws://127.0.0.1:PORT/ws)`);
  }
  if (u.protocol !== "ws:") usage(`${flag}: '${v}' is not a ws:// URL`);
  if (!["127.0.0.1", "localhost", "[::1]"].includes(u.hostname))
    usage(`${flag}: '${u.hostname}' is not a loopback address (127.0.0.1, localhost, [::1])`);
  return v;
}

function intArg(flag, v, lo, hi) {
  if (!/^[0-9]{1,9}$/.test(v ?? "") || +v < lo || +v > hi) usage(`${flag} must be an integer ${lo}..${hi}, not '${v ?? ""}'`);
  return +v;
}

const opt = { first: null, second: null, nodes: {}, pairs: 200, concurrency: 10, timeLimit: 60, waitMs: 10000, json: false };
{
  const a = process.argv.slice(2);
  for (let i = 0; i < a.length; i++) {
    let f = a[i];
    let v;
    const eq = f.indexOf("=");
    if (f.startsWith("--") && eq > 0) {
      v = f.slice(eq + 1);
      f = f.slice(0, eq);
    }
    const val = () => {
      if (v !== undefined) return v;
      if (i + 1 >= a.length) usage(`${f} needs a value`);
      return a[++i];
    };
    switch (f) {
      case "-h":
      case "--help":
        process.stdout.write(HELP + "\n");
        process.exit(0);
        break;
      case "--json":
        opt.json = true;
        break;
      case "--first":
        opt.first = loopbackUrl(f, val());
        break;
      case "--second":
        opt.second = loopbackUrl(f, val());
        break;
      case "--node": {
        const nv = val();
        const m = /^([a-z0-9-]{1,32})=(.+)$/.exec(nv);
        if (!m) usage(`--node must be NAME=URL with NAME of 1..32 of a-z, 0-9, -; not '${nv}'`);
        opt.nodes[m[1]] = loopbackUrl("--node", m[2]);
        break;
      }
      case "--pairs":
        opt.pairs = intArg(f, val(), 1, 100000);
        break;
      case "--concurrency":
        opt.concurrency = intArg(f, val(), 1, 1000);
        break;
      case "--time-limit":
        opt.timeLimit = intArg(f, val(), 1, 3600);
        break;
      case "--wait-ms":
        opt.waitMs = intArg(f, val(), 100, 60000);
        break;
      default:
        usage(`unknown option '${f}'`);
    }
  }
  if (!opt.first) usage("--first is required");
  if (!opt.second) usage("--second is required");
}

let WebSocket;
try {
  WebSocket = createRequire(path.join(HERE, "..", "tests", "integration", "package.json"))("ws");
} catch {
  process.stderr.write("bench-quickmatch.mjs: the ws package is missing: npm ci --prefix tests/integration\n");
  process.exit(1);
}

/** One WebSocket speaking the protocol: requests with ids, messages awaited by predicate. */
class Conn {
  constructor(url) {
    this.inbox = [];
    this.waiters = [];
    this.nextId = 1;
    this.closed = false;
    this.ws = new WebSocket(url, ["thue.v1"]);
    this.ws.on("message", (data) => {
      let m;
      try {
        m = JSON.parse(data.toString());
      } catch {
        m = { type: "unparsable" };
      }
      this.inbox.push(m);
      this.dispatch();
    });
    this.ws.on("close", () => {
      this.closed = true;
      for (const w of this.waiters) w.reject(new Error(`closed while waiting for ${w.what}`));
      this.waiters = [];
    });
    this.ws.on("error", () => {});
    this.open = new Promise((resolve, reject) => {
      this.ws.once("open", resolve);
      this.ws.once("error", (e) => reject(new Error(`connect: ${e.message}`)));
      this.ws.once("unexpected-response", (_q, r) => reject(new Error(`connect: HTTP ${r.statusCode}`)));
    });
  }
  dispatch() {
    for (let i = 0; i < this.waiters.length; ) {
      const w = this.waiters[i];
      const j = this.inbox.findIndex(w.pred);
      if (j >= 0) {
        const [m] = this.inbox.splice(j, 1);
        this.waiters.splice(i, 1);
        clearTimeout(w.timer);
        w.resolve(m);
      } else i++;
    }
  }
  next(pred, what) {
    const j = this.inbox.findIndex(pred);
    if (j >= 0) return Promise.resolve(this.inbox.splice(j, 1)[0]);
    if (this.closed) return Promise.reject(new Error(`closed before ${what}`));
    return new Promise((resolve, reject) => {
      const w = { pred, resolve, reject, what };
      w.timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        reject(new Error(`timeout: ${what}`));
      }, opt.waitMs);
      this.waiters.push(w);
    });
  }
  send(obj) {
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ ...obj, id }));
    return id;
  }
  /** The reply to obj; an `error` reply throws with its code. */
  async ok(obj) {
    const id = this.send(obj);
    const r = await this.next((m) => m.id === id, `the reply to ${obj.type}`);
    if (r.type === "error") throw new Error(`${obj.type}: ${r.code}`);
    return r;
  }
  close() {
    try {
      this.ws.close();
    } catch {
      /* already closed */
    }
  }
}

async function guest(url, hello) {
  const c = new Conn(url);
  await c.open;
  c.welcome = await c.ok({ type: "hello", protocol: 1, ...hello });
  return c;
}

const stateOf = (room) => (m) => m.type === "room_state" && m.room === room;

const lat = [];
const errors = {};
const failures = []; // the first few failed pairings, in detail
let done = 0;
let moved = 0; // the first player (who waited) moved, as the protocol describes
let movedSecond = 0; // the second player moved instead (its ticket reached Redis first)
let connections = 0;
let started = 0;
const errorsAdd = (e) => {
  const k = String(e.message || e).replace(/[0-9]+/g, "N").slice(0, 80);
  errors[k] = (errors[k] || 0) + 1;
};

/** One pairing on pipeline w; resolves when done, throws on any failure. */
async function pairing(w, i) {
  const queue = { type: "queue_join", variant: "square", k: 12, limit: 100 + w };
  const conns = [];
  const t = Date.now();
  try {
    const a = await guest(opt.first, { name: `qa${i}` });
    conns.push(a);
    const b = await guest(opt.second, { name: `qb${i}` });
    conns.push(b);
    connections += 2;
    await a.ok(queue);
    const t0 = process.hrtime.bigint();
    const bJoin = b.ok(queue);
    // Each player hears match_found on its own node, or moved (match) to the room's node.
    // Which node gets the room is Redis's order of the two tickets, not the order of the
    // queue_join replies: `ok` is sent before the ticket reaches Redis, so when a node is
    // slow the first player's ticket may arrive last and the second player is moved.
    const side = (c, who) =>
      (async () => {
        if (c === b) await bJoin;
        const m = await c.next((x) => x.type === "match_found" || x.type === "moved", `match_found or moved (${who} player)`);
        if (m.type === "match_found") {
          await c.next(stateOf(m.room), `the room's state (${who} player)`);
          return { room: m.room, conn: c, moved: false };
        }
        if (m.reason !== "match" || !m.resume || !m.room) throw new Error(`moved without a match: ${JSON.stringify(m)}`);
        const url = opt.nodes[m.node];
        if (!url) throw new Error(`moved to node ${m.node}, which no --node names`);
        const c2 = await guest(url, { resume: m.resume });
        conns.push(c2);
        connections++;
        if (c2.welcome.resumed !== true) throw new Error("the moved player's hello was not resumed");
        await c2.next(stateOf(m.room), `the room's state (${who} player, moved)`);
        return { room: m.room, conn: c2, moved: true };
      })();
    const aSide = side(a, "first");
    const bSide = side(b, "second");
    const [aRes, bRes] = await Promise.all([aSide, bSide]).catch(async (e) => {
      // both sides' outcome, and what each player had heard and not used
      const why = await Promise.allSettled([aSide, bSide]);
      if (failures.length < 5)
        failures.push({
          pairing: i,
          queue: { limit: queue.limit },
          after_ms: Date.now() - t,
          first: why[0].status === "rejected" ? String(why[0].reason.message) : "ok",
          second: why[1].status === "rejected" ? String(why[1].reason.message) : "ok",
          unread: conns.map((c) => c.inbox.map((m) => m.type + (m.code ? ":" + m.code : "") + (m.reason ? ":" + m.reason : ""))),
        });
      throw e;
    });
    const t1 = process.hrtime.bigint();
    if (aRes.room !== bRes.room) throw new Error("the two players were paired into different rooms");
    if (aRes.moved && bRes.moved) throw new Error("both players were moved");
    lat.push(Number(t1 - t0) / 1e6);
    done++;
    if (aRes.moved) moved++;
    if (bRes.moved) movedSecond++;
    await aRes.conn.ok({ type: "resign", room: aRes.room });
  } finally {
    for (const c of conns) c.close();
  }
}

const t0 = Date.now();
const deadline = t0 + opt.timeLimit * 1000;
async function pipeline(w) {
  for (;;) {
    if (started >= opt.pairs || Date.now() > deadline) return;
    const i = started++;
    try {
      await pairing(w, i);
    } catch (e) {
      errorsAdd(e);
    }
  }
}
await Promise.all(Array.from({ length: Math.min(opt.concurrency, opt.pairs) }, (_, w) => pipeline(w)));
const wall = (Date.now() - t0) / 1000;

lat.sort((x, y) => x - y);
const q = (p) => (lat.length ? lat[Math.min(lat.length - 1, Math.ceil(p * lat.length) - 1)] : null);
const errorsTotal = Object.values(errors).reduce((s, x) => s + x, 0);
const report = {
  first: opt.first,
  second: opt.second,
  pairs: opt.pairs,
  concurrency: opt.concurrency,
  pairs_started: started,
  pairs_done: done,
  moved,
  moved_second: movedSecond,
  connections,
  wall_s: +wall.toFixed(3),
  pairs_per_s: +(done / wall).toFixed(2),
  latency_ms: { p50: q(0.5), p99: q(0.99), max: lat.length ? lat[lat.length - 1] : null },
  errors_total: errorsTotal,
  errors,
  failures,
};
for (const k of ["p50", "p99", "max"]) if (report.latency_ms[k] !== null) report.latency_ms[k] = +report.latency_ms[k].toFixed(3);
if (opt.json) {
  process.stdout.write(JSON.stringify(report) + "\n");
} else {
  const l = report.latency_ms;
  process.stdout.write(
    `${done} of ${opt.pairs} pairings in ${report.wall_s} s: ${report.pairs_per_s}/s; ` +
      `${moved} + ${movedSecond} moved (first + second player); ` +
      `latency p50 ${l.p50} ms, p99 ${l.p99} ms, max ${l.max} ms; ${errorsTotal} errors\n`,
  );
  for (const [k, v] of Object.entries(errors)) process.stdout.write(`  ${v} x ${k}\n`);
  for (const x of failures) process.stdout.write(`  failed: ${JSON.stringify(x)}\n`);
}
process.exit(errorsTotal || done < opt.pairs ? 1 : 0);
