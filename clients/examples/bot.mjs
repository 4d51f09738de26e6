#!/usr/bin/env node
// bot.mjs: a complete thue-server bot in Node, using only the `ws` package.
//
//   npm install ws
//   node bot.mjs [--server ws://localhost:8080/ws] [--name example-bot] [--games 1]
//                [--queue square,3]
//
// It says hello, joins the quick-match queue, and plays every match it is seated in:
// whenever a room_state says it is to move, it answers with a legal move. As the builder
// it appends (position = the word's length); as the painter it picks the first symbol
// that creates no square (or overlap), checked naively, and symbol 0 when every symbol
// would. After each match_end it leaves the room and queues again until --games are done.
// Behind the balancer of several nodes (PROTOCOL.md section 17) a match made on another
// node comes as `moved` (reason "match"): the bot connects to that node's path on the same
// host and says hello with the resume token the message gives; the room's state follows.
// PROTOCOL.md is the reference for every message used here.
import process from "node:process";
import WebSocket from "ws";

function arg(name, def) {
  const i = process.argv.indexOf(name);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : def;
}

const SERVER = arg("--server", "ws://localhost:8080/ws");
const NAME = arg("--name", `example-bot-${process.pid % 10000}`);
const GAMES = Number(arg("--games", "1"));
const [VARIANT, K] = arg("--queue", "square,3").split(",");

/** True when sym holds a square (variant "square") or an overlap ("overlap"). */
function hasRepetition(sym, variant) {
  const n = sym.length;
  for (let start = 0; start < n; start++) {
    for (let p = 1; start + 2 * p + (variant === "overlap" ? 1 : 0) <= n; p++) {
      const len = 2 * p + (variant === "overlap" ? 1 : 0);
      let ok = true;
      for (let j = 0; j + p < len && ok; j++) ok = sym[start + j] === sym[start + j + p];
      if (ok) return true;
    }
  }
  return false;
}

/** The move for a room_state in which we are to move. */
function chooseMove(state) {
  const m = state.match;
  if (m.step === "place") return { type: "place", room: state.room, position: m.word.length };
  const k = state.options.k;
  for (let c = 0; c < k; c++) {
    const w = [...m.word.slice(0, m.placed), c, ...m.word.slice(m.placed)];
    if (!hasRepetition(w, state.options.variant)) return { type: "paint", room: state.room, symbol: c };
  }
  return { type: "paint", room: state.room, symbol: 0 };
}

let ws = null;
let nextId = 1;
let played = 0;
let room = null; // the room we play in
const moved = new Set(); // "room/version" states we already answered
const send = (msg) => ws.send(JSON.stringify({ ...msg, id: nextId++ }));
const queue = () => send({ type: "queue_join", variant: VARIANT, k: Number(K) });

/** Opens url and says hello (the name, or a resume token), forgetting any old connection. */
function connect(url, hello) {
  const old = ws;
  ws = new WebSocket(url, ["thue.v1"]);
  if (old) { old.removeAllListeners("close"); old.close(1000); }
  ws.on("open", () => send({ type: "hello", protocol: 1, ...hello }));
  ws.on("error", (e) => {
    console.error(`bot.mjs: ${e.message}`);
    process.exit(1);
  });
  ws.on("close", () => {
    if (GAMES === 0 || played < GAMES) {
      console.error("bot.mjs: the connection closed");
      process.exit(1);
    }
  });
  ws.on("message", onMessage);
}

function onMessage(data) {
  let msg;
  try {
    msg = JSON.parse(data.toString());
  } catch {
    return;
  }
  switch (msg.type) {
    case "welcome":
      console.log(`connected as ${msg.player.name}${msg.resumed ? " (resumed)" : ""}`);
      if (!msg.resumed || msg.rooms.length === 0) queue(); // seated: the room's state follows
      break;
    case "moved": // the match is on another node: go there with the session made for us
      if (msg.reason !== "match" || !msg.resume) { console.error(`bot.mjs: ${msg.message}`); break; }
      console.log(`the match is on node ${msg.node}: moving there`);
      room = msg.room || null;
      connect(new URL(msg.path, SERVER).href, { resume: msg.resume });
      break;
    case "match_found":
      room = msg.room;
      break;
    case "room_state": {
      if (msg.you === null || msg.status !== "playing" || !msg.match) break;
      room = msg.room;
      const key = `${msg.room}/${msg.version}`;
      if (msg.match.to_move === msg.you && !moved.has(key)) {
        moved.add(key);
        send(chooseMove(msg));
      }
      break;
    }
    case "match_end": {
      if (msg.room !== room) break;
      played++;
      const seat = msg.players.findIndex((p) => p.name === NAME);
      const res = msg.result.winner === null ? "draw" : msg.result.winner === seat ? "win" : "loss";
      const other = 1 - seat;
      console.log(`game ${played}: room ${msg.room}: ${res} (${msg.result.reason}), points ${msg.points[seat]}-${msg.points[other]}`);
      send({ type: "leave", room: msg.room });
      room = null;
      if (GAMES !== 0 && played >= GAMES) {
        ws.close(1000);
        process.exit(0);
      }
      queue();
      break;
    }
    case "error":
      if (msg.code !== "rate_limited") console.error(`bot.mjs: server error ${msg.code}: ${msg.message}`);
      break;
    default:
      break; // other events, and types from newer servers, are ignored
  }
}

connect(SERVER, { name: NAME });
