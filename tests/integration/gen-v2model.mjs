#!/usr/bin/env node
// gen-v2model.mjs: writes tests/vectors/v2model.jsonl, the golden data of the C room
// model's unit test (tests/unit/test_cli_roommodel.c; format: tests/vectors/v2model.md).
//
//   node tests/integration/gen-v2model.mjs --server build/server/thue-server [--out FILE]
//
// Every match is played on the real server by random listed moves (a fixed seed) in a
// room where Ann (seat 0) speaks thue.v2 and Sam, a spectator, speaks thue.v1; Bob (seat
// 1) speaks thue.v1, or is a bot. The file keeps, per match, what Ann received (her
// room_state and played texts, in order) and every state Sam received (thue.v1's text,
// the independent reference): the model fed Ann's texts must give Sam's state for each
// version. Not a test: run it again when the server's messages change on purpose.
import fs from "node:fs";
import path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { Client, rng, startServer } from "./lib.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const i = process.argv.indexOf("--out");
const OUT = i >= 0 ? process.argv[i + 1] : path.join(HERE, "..", "vectors", "v2model.jsonl");

const MATCHES = [
  // The painter avoids squares: the rounds end at the length limit.
  { name: "thue-square", create: { k: 4, limit: 5 }, safe: true },
  { name: "thue-overlap", create: { variant: "overlap", k: 3, limit: 8 } },
  // Ann resigns in round 2: a whole state (not a played) ends the match.
  { name: "thue-resign", create: { k: 4, limit: 6 }, resignAt: 16 },
  // Against a bot with a clock: thinking, the clocks, the rounds' ends in played.
  { name: "thue-clock-bot", create: { k: 3, limit: 6, clock: { initial_ms: 600000, increment_ms: 1000 } }, bot: "greedy" },
  { name: "nim", create: { game: "nim", game_options: { heaps: [3, 4, 2] } } },
  { name: "nim-misere", create: { game: "nim", game_options: { heaps: [2, 3], misere: true } } },
  { name: "circle", create: { game: "circle", game_options: { fields: 9, white: 2, black: 2, move_cap: 30 } } },
  { name: "northcott", create: { game: "northcott", game_options: { rows: 2, cols: 5, move_cap: 30 } } },
  { name: "rims", create: { game: "rims", game_options: { heaps: [4, 3] } } },
  { name: "wythoff", create: { game: "wythoff", game_options: { heaps: [5, 7] } } },
  { name: "dots", create: { game: "dots", game_options: { rows: 2, cols: 2 } } },
];


async function connect(server, name, proto) {
  const c = await Client.connect(server.ws, name, proto === 2 ? ["thue.v2", "thue.v1"] : ["thue.v1"]);
  c.raw = [];
  c.ws.on("message", (d) => c.raw.push(d.toString()));
  c.welcome = await c.ok({ type: "hello", protocol: proto, name });
  return c;
}

/** Does w (an array of symbols) contain a square? Naive: the words here are short. */
function hasSquare(w) {
  for (let p = 1; 2 * p <= w.length; p++)
    for (let s = 0; s + 2 * p <= w.length; s++) {
      let eq = true;
      for (let j = 0; j < p && eq; j++) eq = w[s + j] === w[s + p + j];
      if (eq) return true;
    }
  return false;
}

/** A listed paint that makes no square in state s, if there is one. */
function safePaint(s, moves) {
  const w = s.match.word;
  const ok = moves.filter((m) => !hasSquare([...w.slice(0, s.match.placed), m.symbol, ...w.slice(s.match.placed)]));
  return ok.length ? ok : moves;
}

function moveMessage(room, m) {
  if ("position" in m && Object.keys(m).length === 1) return { type: "place", room, position: m.position };
  if ("symbol" in m && Object.keys(m).length === 1) return { type: "paint", room, symbol: m.symbol };
  return { type: "move", room, move: m };
}

const server = await startServer(["--rate", "2000", "--burst", "4000"]);
const lines = [];
try {
  for (const [gi, g] of MATCHES.entries()) {
    const ann = await connect(server, `Ann${gi}`, 2);
    const bob = g.bot ? null : await connect(server, `Bob${gi}`, 1);
    const sam = await connect(server, `Sam${gi}`, 1);
    const pick = rng(0x7e11 + gi * 104729);
    const { room } = await ann.ok({ type: "create_room", first_builder: "creator", ...g.create });
    if (bob) await bob.ok({ type: "join", room });
    else await ann.ok({ type: "seat_bot", room, bot: g.bot, think_ms: 10 });
    await sam.ok({ type: "spectate", room });
    await ann.ok({ type: "ready", room });
    if (bob) await bob.ok({ type: "ready", room });
    let want = 0;
    let moves = 0;
    for (let turn = 0; turn < 500; turn++) {
      const s = await sam.state(room, (x) => x.version >= want && x.status !== "waiting");
      if (s.status === "finished") break;
      want = s.version + 1;
      const mover = s.match.to_move === 0 ? ann : bob;
      if (!mover) continue; // the bot's turn
      if (g.resignAt !== undefined && moves === g.resignAt) {
        await ann.ok({ type: "resign", room });
        continue;
      }
      const lm = await mover.ok({ type: "get_legal_moves", room });
      const list = g.safe && s.match.step === "paint" ? safePaint(s, lm.moves) : lm.moves;
      await mover.ok(moveMessage(room, list[pick(list.length)]));
      moves++;
    }
    await ann.next((x) => x.type === "match_end" && x.room === room, "Ann's match_end");
    await sam.next((x) => x.type === "match_end" && x.room === room, "Sam's match_end");
    const ours = (t) => {
      const m = JSON.parse(t);
      return (m.type === "room_state" && m.room === room) || m.type === "played";
    };
    // Ann's texts from her first whole state that Sam saw too (Sam's first is his
    // spectate's answer), and all of Sam's states.
    const samTexts = sam.raw.filter(ours);
    const v0 = JSON.parse(samTexts[0]).version;
    const annAll = ann.raw.filter(ours);
    const start = annAll.findIndex((t) => {
      const m = JSON.parse(t);
      return m.type === "room_state" && m.version >= v0;
    });
    lines.push(JSON.stringify({ match: g.name, me: ann.welcome.player.name, seat: 0 }));
    for (const t of annAll.slice(start)) lines.push(JSON.stringify({ match: g.name, v2: t }));
    for (const t of samTexts) lines.push(JSON.stringify({ match: g.name, v1: t }));
    for (const c of [ann, bob, sam]) if (c) await c.close();
    const last = JSON.parse(samTexts.at(-1));
    process.stderr.write(`${g.name}: ${moves} moves by hand, ends v${last.version} ${JSON.stringify(last.match.result)}\n`);
  }
} finally {
  await server.stop();
}
const head = [
  "# Golden data of the C room model (tests/unit/test_cli_roommodel.c); format: v2model.md.",
  "# Written by tests/integration/gen-v2model.mjs against the real server: do not edit.",
];
fs.writeFileSync(OUT, head.concat(lines).join("\n") + "\n");
process.stderr.write(`wrote ${lines.length} lines to ${OUT}\n`);
