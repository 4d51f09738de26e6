// conn.js: the WebSocket session (PROTOCOL.md sections 3 and 11). It says hello with the
// stored resume token when there is one (falling back to a fresh hello on bad_resume),
// remembers the name and the newest token in localStorage, and reconnects with a growing
// backoff after a lost connection, so the seats survive within the grace period. A name
// the server refuses (taken, not allowed) closes the connection and goes to onNameRefused.
// Requests carry an id; their replies resolve promises, events go to onEvent.
//
// Several nodes (PROTOCOL.md section 17): `moved` says that what was asked for lives on
// another node. The connection then opens `path` on the same host (the balancer routes
// /n/NODE/ws to that node), says hello with the resume token (the one `moved` gave, or
// its own; for a room or a tournament, a new session there with its token or name), and
// asks again what it had asked (a join, spectate or tournament command). A node that cannot be
// reached there sends it back to /ws, where any live node answers.
//
// The subprotocol (PROTOCOL.md section 18): it offers thue.v2 first, then thue.v1, and says
// hello with the version the server selected. Under thue.v2 a move comes as a small
// `played` event: the room model (roommodel.js) turns it into the room's next state, and
// the page gets the same room_state objects as under thue.v1 (with `you`); a version gap
// is answered with `sync`.
import { t } from "./i18n.js";
import { RoomModel } from "./roommodel.js";

const KEY_NAME = "thue.name";
const KEY_RESUME = "thue.resume";
const KEY_TOKEN = "thue.token"; // an account token (claim_name); hello uses it when there is no resume token

export class Connection {
  constructor({ onEvent, onStatus, onWelcome, onNameRefused }) {
    this.onEvent = onEvent;
    this.onNameRefused = onNameRefused;
    this.onStatus = onStatus;
    this.onWelcome = onWelcome;
    this.ws = null;
    this.nextId = 1;
    this.pending = new Map();
    this.backoff = 500;
    this.stopped = false;
    this.welcomed = false;
    this.retryTimer = null;
    // Where the node of our session is reached: /ws (any node), or /n/NODE/ws. A page
    // opened under a node's prefix (/n/NODE/..., a link to a room there) starts there.
    const m = /^\/n\/([a-z0-9-]{1,32})\//.exec(location.pathname);
    this.path = m ? `/n/${m[1]}/ws` : "/ws";
    this.again = null; // a request to send again after moving: {obj, resolve, reject}
    this.proto = 1; // the selected subprotocol's version
    this.player = ""; // this session's player name, as the server last said it
    this.model = new RoomModel(() => this.player);
  }

  get name() { return localStorage.getItem(KEY_NAME) || ""; }
  set name(v) { if (v) localStorage.setItem(KEY_NAME, v); else localStorage.removeItem(KEY_NAME); }
  get resume() { return localStorage.getItem(KEY_RESUME) || ""; }
  set resume(v) { if (v) localStorage.setItem(KEY_RESUME, v); else localStorage.removeItem(KEY_RESUME); }
  get token() { return localStorage.getItem(KEY_TOKEN) || ""; }
  set token(v) { if (v) localStorage.setItem(KEY_TOKEN, v); else localStorage.removeItem(KEY_TOKEN); }

  /** Opens the connection (again). */
  connect() {
    this.stopped = false;
    this.closedText = "";
    clearTimeout(this.retryTimer);
    const url = `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}${this.path}`;
    const ws = new WebSocket(url, ["thue.v2", "thue.v1"]);
    this.ws = ws;
    this.welcomed = false;
    // Refs name rooms on one node, and the states come again after hello.
    this.model = new RoomModel(() => this.player);
    this.onStatus("connecting", t("app.conn.connecting"));
    ws.onopen = () => {
      this.proto = ws.protocol === "thue.v2" ? 2 : 1;
      this.hello(Boolean(this.resume));
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      this.receive(msg);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      for (const p of this.pending.values()) p.reject({ code: "disconnected", message: "the connection was lost" });
      this.pending.clear();
      if (this.stopped) { this.onStatus("closed", this.closedText || t("app.conn.disconnected")); return; }
      if (this.moving) { this.moving = false; this.connect(); return; }
      if (!this.welcomed && this.path !== "/ws") this.path = "/ws"; // that node is gone: any other
      const wait = this.backoff;
      this.backoff = Math.min(this.backoff * 2, 10000);
      this.onStatus("retrying", t("app.conn.retrying", { s: Math.round(wait / 100) / 10 }));
      this.retryTimer = setTimeout(() => this.connect(), wait);
    };
  }

  async hello(withResume) {
    const msg = { type: "hello", protocol: this.proto };
    if (withResume) msg.resume = this.resume;
    else if (this.token) msg.token = this.token;
    else if (this.name) msg.name = this.name;
    let w;
    try {
      w = await this.request(msg);
    } catch (e) {
      if (e.code === "moved") return; // the connection moves to the session's node
      if (e.code === "bad_resume") { this.resume = ""; return this.hello(false); }
      if (e.code === "bad_token") {
        this.onEvent({ type: "error", code: e.code, message: e.message });
        this.token = "";
        return this.hello(false);
      }
      if ((e.code === "name_taken" || e.code === "bad_name") && msg.name) {
        // Not a silent guest name: the page asks for another name (onNameRefused).
        this.name = "";
        this.close();
        this.closedText = t("app.conn.name_refused");
        if (this.onNameRefused) this.onNameRefused(msg.name, e);
        else this.onEvent({ type: "error", code: e.code, message: e.message });
        return;
      }
      if (e.code !== "disconnected") this.onEvent({ type: "error", code: e.code, message: e.message });
      return;
    }
    this.welcomed = true;
    this.backoff = 500;
    this.resume = w.resume;
    this.name = w.player.name;
    this.player = w.player.name;
    this.onStatus("open", t("app.conn.open", { name: w.player.name }));
    // byToken: the session came by the account's token (another device's, say), not by
    // this page's own resume token.
    this.onWelcome(w, { byToken: !withResume && Boolean(msg.token) });
    const again = this.again;
    this.again = null;
    if (again) this.request(again.obj).then(again.resolve, again.reject);
  }

  /** Goes to the node a `moved` names: the request that got it (if any) is sent there. */
  moveTo(m, p) {
    this.path = m.path;
    if (m.resume) this.resume = m.resume;
    // a room or a tournament there: a session of its own there (the account's token, or
    // the name), since the session here is this node's
    else if (m.reason === "room" || m.reason === "tournament") this.resume = "";
    if (p && p.obj.type !== "hello") this.again = p;
    else if (p) p.reject({ code: "moved", message: m.message });
    this.onStatus("connecting", t("app.conn.moving", { node: m.node }));
    if (this.ws) { this.moving = true; this.ws.close(); } else this.connect();
  }

  receive(msg) {
    if (msg.type === "account" && msg.name) this.player = msg.name; // claim_name, login
    if (msg.type === "room_state" || msg.type === "played" || msg.type === "watchers") {
      const out = this.model.apply(msg);
      if (out.sync) this.request({ type: "sync", room: out.sync }).catch(() => this.model.syncFailed(out.sync));
      if (out.state) this.onEvent(out.state);
      return;
    }
    if (msg.id !== undefined && this.pending.has(msg.id)) {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.type === "moved") this.moveTo(msg, p);
      else if (msg.type === "error") p.reject(msg);
      else p.resolve(msg);
      return;
    }
    if (msg.type === "moved") { this.moveTo(msg, null); return; } // quick match: the room is there
    if (msg.type === "goodbye" && msg.reason === "replaced") this.stopped = true; // another tab took over
    if (msg.type === "goodbye" && msg.reason === "shutdown") this.path = "/ws"; // a node stops: any other
    this.onEvent(msg);
  }

  /** Sends obj with a fresh id; resolves to the reply, rejects with an error reply. */
  request(obj) {
    return new Promise((resolve, reject) => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
        reject({ code: "disconnected", message: "not connected to the server" });
        return;
      }
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject, obj });
      this.ws.send(JSON.stringify({ ...obj, id }));
    });
  }

  /** Drops the connection and (for tests and people alike) stays away. */
  close() {
    this.stopped = true;
    if (this.ws) this.ws.close();
  }
}
