// roommodel.js: a client's model of its rooms under thue.v2 (PROTOCOL.md, "thue.v2").
//
// Under thue.v2 the server sends a room's whole state (room_state, with the room's `ref`
// instead of `you`) when the client joins, watches, resumes or asks with `sync`, and
// after any change but a move; after a move it sends `played`, which says the move and
// what it changed that the move does not tell. This module keeps the newest state of
// each room and turns each `played` into the next state, so that the rest of a client
// sees the same room_state objects as under thue.v1 (`you` included: the seat whose
// player has this client's name, as welcome said it). It has no DOM and no network:
// the browser (conn.js), the tests and any bot can use it.
//
// apply(msg) takes a room_state, a played or a watchers (the spectators' count, at most
// once a second) and returns
//   {state}          the room's new state (thue.v1's shape, with `you`),
//   {sync: roomId}   a played the model cannot follow (a version gap): send
//                    {"type":"sync","room":roomId} and wait for the room_state
//                    (once: until that room's next room_state, a later gap asks
//                    nothing more, since the state answering the sync covers it;
//                    syncFailed(roomId) when the request failed),
//   {}               a played of a room the model does not know (ignore it).
import { applyMove } from "./games.js";

const clone = (x) => JSON.parse(JSON.stringify(x));

export class RoomModel {
  /** name(): this client's player name now (welcome's, or the account's). */
  constructor(name) {
    this.name = name;
    this.byRef = new Map(); // ref -> the newest state
    this.syncing = new Set(); // rooms with a sync asked and its room_state still to come
  }

  /** The seat whose player is this client, or null (a spectator). */
  seatOf(st) {
    const me = this.name();
    const i = (st.players || []).findIndex((p) => p && p.kind !== "bot" && p.name === me);
    return i >= 0 ? i : null;
  }

  apply(msg) {
    if (msg.type === "room_state") {
      if (msg.ref === undefined) return { state: msg }; // thue.v1's, with its own `you`
      this.syncing.delete(msg.room);
      const old = this.byRef.get(msg.ref);
      if (old && old.room === msg.room && old.version > msg.version) return {}; // a late one
      const st = { ...msg, you: this.seatOf(msg) };
      this.byRef.set(msg.ref, st);
      return { state: st };
    }
    if (msg.type === "watchers") {
      // how many watch: not a change of the room's version
      const cur = this.byRef.get(msg.ref);
      if (!cur) return {};
      const st = { ...cur, spectators: msg.spectators };
      this.byRef.set(msg.ref, st);
      return { state: st };
    }
    if (msg.type !== "played") return {};
    const prev = this.byRef.get(msg.ref);
    if (!prev) return {};
    if (msg.version <= prev.version) return {}; // already seen (a sync overtook it)
    if (msg.version !== prev.version + 1 || !prev.match) {
      // Sent before the state that answers a sync already asked: that state covers it.
      if (this.syncing.has(prev.room)) return {};
      this.syncing.add(prev.room);
      return { sync: prev.room };
    }
    const st = next(prev, msg);
    st.you = this.seatOf(st);
    this.byRef.set(msg.ref, st);
    return { state: st };
  }

  /** The sync asked for room failed (no room_state will answer it). */
  syncFailed(room) {
    this.syncing.delete(room);
  }

  /** Forgets a room (left it). */
  forget(room) {
    this.syncing.delete(room);
    for (const [ref, st] of this.byRef) if (st.room === room) this.byRef.delete(ref);
  }
}

/** The state after the played event ev from prev (prev.version + 1 == ev.version). */
export function next(prev, ev) {
  const st = clone(prev);
  const m = st.match;
  const seat = m.to_move; // the mover: the seat to move before
  st.version = ev.version;
  m.to_move = ev.to_move;
  if (ev.points) m.points = ev.points.slice(); // absent: unchanged
  m.clocks = ev.clocks ? ev.clocks.slice() : null;
  m.clock_running = ev.clocks && ev.to_move !== null ? ev.to_move : null;
  m.thinking = ev.thinking === undefined ? null : ev.thinking;
  if (st.options.game) {
    m.state = applyMove(st.options.game, m.state, ev.move);
    m.moves += 1;
    m.last_move = { seat, move: ev.move, think_ms: ev.think_ms };
    m.step = ev.result ? "over" : m.step === "over" ? "move" : m.step;
  } else {
    thueNext(m, ev, seat);
  }
  if (ev.result) {
    m.step = "over";
    m.result = { winner: ev.result.winner, reason: ev.result.reason };
    st.status = "finished";
  }
  return st;
}

/** Thue's match object after ev: the builder's place or the painter's paint. */
function thueNext(m, ev, seat) {
  const paint = ev.move.paint !== undefined;
  m.last_move = { seat, kind: paint ? "paint" : "place", value: paint ? ev.move.paint : ev.move.place, think_ms: ev.think_ms };
  if (!paint) {
    m.placed = ev.move.place;
    m.step = "paint";
  } else {
    m.word.splice(m.placed, 0, ev.move.paint);
    m.placed = null;
    m.step = "place";
  }
  // Each seat paints one round: a round's points are its painter's.
  for (const r of m.rounds) r.points = m.points[1 - r.builder];
  if (!ev.round_end) return;
  const r = m.rounds[m.round];
  r.end = ev.round_end.end;
  r.repetition = ev.round_end.repetition || null;
  r.word = m.word.slice();
  m.placed = null;
  if (ev.result || m.round === 1) return;
  // The next round: the roles swap and the word starts again as [0].
  m.round = 1;
  m.builder = m.rounds[1].builder;
  m.painter = 1 - m.builder;
  m.word = [0];
  m.step = "place";
}
