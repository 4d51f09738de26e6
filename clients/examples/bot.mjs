#!/usr/bin/env node
// bot.mjs: a complete thue-server bot in Node, using only the `ws` package.
//
//   npm install ws
//   node bot.mjs [--server ws://localhost:8080/ws] [--name example-bot] [--games 1]
//                [--queue square,3] [--check-every N]
//
// It speaks thue.v2 (PROTOCOL.md section 18) when the server does, else thue.v1. It says
// hello, joins the quick-match queue, and plays every match it is seated in: whenever its
// state of the room says it is to move, it answers with a legal move. Under thue.v2 a
// move comes as a small `played` event, which the bot applies to its own copy of the room
// (applyPlayed below); a version it cannot follow asks for the whole state with `sync`.
// With --check-every N it also syncs after every N moves of a room and compares its copy
// with the server's state: a difference ends it with status 1. As the builder
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
const CHECK = Number(arg("--check-every", "0"));
if (!Number.isInteger(CHECK) || CHECK < 0) {
  console.error("bot.mjs: --check-every takes a whole number of moves (0: never)");
  process.exit(2);
}

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

/** Under thue.v2: the room's next state after a played event ev (its version is the
 * state's plus one): the move applied (PROTOCOL.md section 18, "Applying it"). */
function applyPlayed(prev, ev) {
  const st = JSON.parse(JSON.stringify(prev));
  const m = st.match;
  const seat = m.to_move; // the mover: the seat to move before
  st.version = ev.version;
  m.to_move = ev.to_move;
  if (ev.points) m.points = ev.points; // absent: unchanged
  m.clocks = ev.clocks || null;
  m.clock_running = ev.clocks && ev.to_move !== null ? ev.to_move : null;
  m.thinking = ev.thinking === undefined ? null : ev.thinking;
  const paint = ev.move.paint !== undefined;
  m.last_move = { seat, kind: paint ? "paint" : "place", value: paint ? ev.move.paint : ev.move.place, think_ms: ev.think_ms };
  if (paint) {
    m.word.splice(m.placed, 0, ev.move.paint);
    m.placed = null;
    m.step = "place";
  } else {
    m.placed = ev.move.place;
    m.step = "paint";
  }
  for (const r of m.rounds) r.points = m.points[1 - r.builder];
  if (ev.round_end) {
    const r = m.rounds[m.round];
    r.end = ev.round_end.end;
    r.repetition = ev.round_end.repetition;
    r.word = m.word.slice();
    if (!ev.result && m.round === 0) {
      m.round = 1;
      m.builder = m.rounds[1].builder;
      m.painter = 1 - m.builder;
      m.word = [0];
      m.step = "place";
    }
  }
  if (ev.result) {
    m.step = "over";
    m.result = ev.result;
    st.status = "finished";
  }
  return st;
}

let ws = null;
let proto = 1; // the subprotocol's version the server selected
let me = NAME; // our player name, as welcome says it
const rooms = new Map(); // thue.v2: ref -> our copy of the room's state
const checks = new Map(); // id of a check's sync -> the copy it is held against
let nextId = 1;
let played = 0;
let room = null; // the room we play in
const moved = new Set(); // "room/version" states we already answered
const send = (msg) => ws.send(JSON.stringify({ ...msg, id: nextId++ }));
const queue = () => send({ type: "queue_join", variant: VARIANT, k: Number(K) });

/** Opens url and says hello (the name, or a resume token), forgetting any old connection. */
function connect(url, hello) {
  const old = ws;
  ws = new WebSocket(url, ["thue.v2", "thue.v1"]);
  if (old) { old.removeAllListeners("close"); old.close(1000); }
  rooms.clear(); // refs name rooms on one node
  ws.on("open", () => {
    proto = ws.protocol === "thue.v2" ? 2 : 1;
    send({ type: "hello", protocol: proto, ...hello });
  });
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

/** A state of a room we are in: our move when it is our turn. */
function onState(st) {
  if (st.you === null || st.status !== "playing" || !st.match) return;
  room = st.room;
  const key = `${st.room}/${st.version}`;
  if (st.match.to_move === st.you && !moved.has(key)) {
    moved.add(key);
    send(chooseMove(st));
  }
}

const movesSeen = new Map(); // room -> moves applied from played events
function countMove(st) {
  const n = (movesSeen.get(st.room) || 0) + 1;
  movesSeen.set(st.room, n);
  return n;
}

let checking = null; // the copy the next room_state (a check's sync) must equal
let wantCheck = false; // --check-every's count came round: check on our next turn

/** Our seat in a thue.v2 state (by our name), or null. */
function seatIn(st) {
  const i = st.players.findIndex((p) => p && p.kind !== "bot" && p.name === me);
  return i >= 0 ? i : null;
}

/** A state as text for comparing: keys sorted, without what differs by design (you and
 * ref, the grace period's count). */
function comparable(st) {
  const norm = (v) => {
    if (Array.isArray(v)) return v.map(norm);
    if (v === null || typeof v !== "object") return v;
    const out = {};
    for (const k of Object.keys(v).sort()) if (k !== "you" && k !== "ref" && k !== "away_left_ms") out[k] = norm(v[k]);
    return out;
  };
  return JSON.stringify(norm(st));
}

function onMessage(data) {
  let msg;
  try {
    msg = JSON.parse(data.toString());
  } catch {
    return;
  }
  if (checking && msg.type === "room_state" && msg.room === checking.room) {
    if (msg.version !== checking.version) {
      console.error(`bot.mjs: the check's state has version ${msg.version}, not ${checking.version}`);
      process.exit(1);
    }
    const mine = comparable(checking);
    const got = comparable(msg);
    if (mine !== got) {
      console.error(`bot.mjs: my copy of room ${msg.room} differs from the server's at version ${msg.version}:\n  mine   ${mine}\n  server ${got}`);
      process.exit(1);
    }
    checking = null;
    console.log(`checked room ${msg.room} at version ${msg.version}: my copy is the server's`);
  }
  switch (msg.type) {
    case "welcome":
      me = msg.player.name;
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
      let st = msg;
      if (proto === 2) {
        // thue.v2 names our seat by our name rather than with `you`
        st = { ...msg, you: seatIn(msg) };
        const old = rooms.get(msg.ref);
        if (old && old.room === msg.room && old.version > msg.version) break; // a late one
        rooms.set(msg.ref, st);
      }
      onState(st);
      break;
    }
    case "played": {
      const prev = rooms.get(msg.ref);
      if (!prev || msg.version <= prev.version) break; // not ours, or seen
      if (msg.version !== prev.version + 1 || !prev.match) {
        send({ type: "sync", room: prev.room }); // a gap: the whole state again
        break;
      }
      const st = applyPlayed(prev, msg);
      rooms.set(msg.ref, st);
      if (CHECK > 0 && countMove(st) % CHECK === 0) wantCheck = true;
      // Checked on our own turn: nobody else moves before our answer.
      if (wantCheck && st.status === "playing" && st.match.to_move === seatIn(st)) {
        wantCheck = false;
        const id = nextId;
        checks.set(id, st);
        send({ type: "sync", room: st.room });
        break; // the check's state comes next, and plays on from there
      }
      onState(st);
      break;
    }
    case "watchers": { // how many watch (thue.v2): the copy's count, the version as it is
      const st = rooms.get(msg.ref);
      if (st) rooms.set(msg.ref, { ...st, spectators: msg.spectators });
      break;
    }
    case "ok":
      if (checks.has(msg.id)) checking = checks.get(msg.id);
      checks.delete(msg.id);
      break;
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
