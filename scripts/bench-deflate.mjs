#!/usr/bin/env node
// bench-deflate.mjs: would permessage-deflate (RFC 7692) pay on thue-server's traffic?
//
//   node scripts/bench-deflate.mjs [--server build/server/thue-server] [--matches 20]
//                                  [--k 64] [--limit 100] [--seed 1]
//
// It starts the server (loopback, an ephemeral port), plays --matches Thue matches of
// random legal moves between two clients, each watched by a thue.v1 and a thue.v2
// spectator, and records every message the spectators receive, as sent. Then it
// compresses each spectator's stream as permessage-deflate would, with Node's zlib
// (raw deflate, a sync flush per message, the 4 trailing bytes dropped), both ways the
// extension allows:
//   - context takeover (lws's default): one deflate stream per connection, so each
//     message is compressed once per recipient (the same move: as many compressions as
//     people in the room), and its output differs per connection;
//   - no context takeover: each message on its own, so one compression could serve
//     every recipient (same bytes) but gains less.
// It prints per stream: messages, bytes per move as sent and after each way, and the
// compressor's CPU per message (median of 5 passes, this process), with the ratios. All
// figures come from one run on one machine; only the ratios mean something elsewhere.
// Exit status: 0, or 1 when the server or a match failed, 2 on a bad option.
import process from "node:process";
import zlib from "node:zlib";
import { Client, startServer } from "../tests/integration/lib.mjs";

function usage(msg) {
  if (msg) console.error(`bench-deflate.mjs: ${msg}`);
  console.error("usage: node scripts/bench-deflate.mjs [--server PATH] [--matches N] [--k K] [--limit L] [--seed S]");
  process.exit(msg ? 2 : 0);
}

const opts = { matches: 20, k: 64, limit: 100, seed: 1 };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === "-h" || a === "--help") usage();
  const m = /^--(matches|k|limit|seed|server)$/.exec(a);
  if (!m || i + 1 >= process.argv.length) usage(`unknown or incomplete argument: ${a}`);
  const v = process.argv[++i];
  if (m[1] === "server") { process.env.THUE_SERVER = v; continue; }
  const n = Number(v);
  const ranges = { matches: [1, 1000], k: [3, 64], limit: [5, 1000], seed: [1, 2 ** 31] };
  const [lo, hi] = ranges[m[1]];
  if (!Number.isInteger(n) || n < lo || n > hi) usage(`--${m[1]} takes a whole number ${lo}..${hi}, not ${v}`);
  opts[m[1]] = n;
}
if (!process.env.THUE_SERVER && !process.argv.includes("--server")) process.env.THUE_SERVER = "build/server/thue-server";

let x = opts.seed >>> 0 || 1;
const rnd = (n) => { x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0; return x % n; };

async function connect(server, name, proto) {
  const c = await Client.connect(server.ws, name, proto === 2 ? ["thue.v2"] : ["thue.v1"]);
  c.raw = [];
  c.ws.on("message", (d) => c.raw.push(Buffer.from(d)));
  await c.ok({ type: "hello", protocol: proto, name });
  return c;
}

/** Plays the recorded matches; resolves to {v1, v2, moves}: the spectators' streams. */
async function record() {
  const server = await startServer(["--rate", "5000", "--burst", "10000", "--reviews", "0"]);
  try {
    const v1 = [], v2 = [];
    let moves = 0;
    for (let i = 0; i < opts.matches; i++) {
      const a = await connect(server, `A${i}`, 2);
      const b = await connect(server, `B${i}`, 2);
      const s1 = await connect(server, `S${i}`, 1);
      const s2 = await connect(server, `T${i}`, 2);
      const { room } = await a.ok({ type: "create_room", k: opts.k, limit: opts.limit, first_builder: "creator" });
      await b.ok({ type: "join", room });
      await s1.ok({ type: "spectate", room });
      await s2.ok({ type: "spectate", room });
      const from = [s1.raw.length, s2.raw.length];
      await a.ok({ type: "ready", room });
      await b.ok({ type: "ready", room });
      const seats = [a, b];
      for (let turn = 0; turn < 4 * opts.limit + 10; turn++) {
        const s = await s1.state(room, (m) => m.status !== "waiting");
        if (s.status === "finished") break;
        const lm = await seats[s.match.to_move].ok({ type: "get_legal_moves", room });
        const mv = lm.moves[rnd(lm.moves.length)];
        await seats[s.match.to_move].ok("position" in mv ? { type: "place", room, position: mv.position } : { type: "paint", room, symbol: mv.symbol });
        moves++;
      }
      await s1.next((m) => m.type === "match_end");
      await s2.next((m) => m.type === "match_end");
      v1.push(...s1.raw.slice(from[0]));
      v2.push(...s2.raw.slice(from[1]));
      for (const c of [a, b, s1, s2]) await c.close();
    }
    return { v1, v2, moves };
  } finally {
    await server.stop();
  }
}

/** The bytes of msgs after permessage-deflate, and the CPU per message (this process's
 * user + system time, median of 5 passes). With takeover one stream serves the whole
 * connection and each message ends with a sync flush (what RFC 7692 sends, less the 4
 * bytes 00 00 ff ff); Node's stream API adds its own overhead there, so that figure is an
 * upper bound. */
async function deflate(msgs, takeover) {
  let bytes = 0;
  const times = [];
  for (let pass = 0; pass < 5; pass++) {
    let b = 0;
    const c0 = process.cpuUsage();
    if (takeover) {
      const z = zlib.createDeflateRaw({ level: 6 });
      z.on("data", (d) => (b += d.length));
      for (const m of msgs) {
        await new Promise((resolve) => { z.write(m); z.flush(zlib.constants.Z_SYNC_FLUSH, resolve); });
        b -= 4;
      }
      z.close();
    } else {
      for (const m of msgs) b += zlib.deflateRawSync(m, { level: 6, finishFlush: zlib.constants.Z_SYNC_FLUSH }).length - 4;
    }
    const c = process.cpuUsage(c0);
    times.push((c.user + c.system) / msgs.length);
    bytes = b;
  }
  times.sort((p, q) => p - q);
  return { bytes, us: times[2] };
}

const { v1, v2, moves } = await record();
const rows = [];
for (const [name, msgs] of [["thue.v1", v1], ["thue.v2", v2]]) {
  const sent = msgs.reduce((n, m) => n + m.length, 0);
  const a = await deflate(msgs, true);
  const b = await deflate(msgs, false);
  rows.push({ name, msgs: msgs.length, sent, a, b });
}
const per = (n) => (n / moves).toFixed(1);
console.log(`${opts.matches} matches, k=${opts.k}, limit ${opts.limit}: ${moves} moves; per move, to one spectator:`);
console.log("stream   | messages | bytes sent | deflate, context takeover (CPU/msg) | deflate, no takeover (CPU/msg)");
for (const r of rows) {
  console.log(`${r.name}  | ${String(r.msgs).padStart(8)} | ${per(r.sent).padStart(10)} | ${per(r.a.bytes).padStart(8)} (${(r.a.bytes / r.sent).toFixed(3)}x, ${r.a.us.toFixed(1)} us) | ${per(r.b.bytes).padStart(8)} (${(r.b.bytes / r.sent).toFixed(3)}x, ${r.b.us.toFixed(1)} us)`);
}
const [r1, r2] = rows;
console.log(`thue.v2 as sent / thue.v1 as sent: ${(r2.sent / r1.sent).toFixed(3)}`);
console.log(`thue.v2 with takeover / thue.v2 as sent: ${(r2.a.bytes / r2.sent).toFixed(3)}; thue.v1 with takeover / thue.v2 as sent: ${(r1.a.bytes / r2.sent).toFixed(3)}`);
