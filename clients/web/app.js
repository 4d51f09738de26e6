// app.js: the browser client for thue-server (PROTOCOL.md). It shows the lobby (rooms,
// create, join, quick match, claiming a name), one room at a time, and pages from the
// HTTP API (ladder, tournaments, stored matches and their replay) by the address's hash.
// Every room_state is a full snapshot: the game view is redrawn from the newest one, and
// only the clocks tick locally between states. Everything from the server is put in the
// page as text, never as HTML.
import { Connection } from "./conn.js";
import { losingSymbols, symbolColour } from "./rules.js";
import { noticeTurn, setSound, soundWanted } from "./notify.js";
import { CARDS, cardOf, levelOf, picture } from "./home.js";
import {
  applyMove, boardKey, checkOptions, COLOUR, colourName, drawBoard, fieldText, gameInfo, gameTitle, games, loadGames,
  moveHint, moveText, optionsText, resultWords, serverListsGames,
} from "./games.js";
import { errorText, fillPage, fmtDate, fmtNumber, languageSwitcher, reasonText, t, tOr } from "./i18n.js";

const $ = (id) => document.getElementById(id);
fillPage();
$("lang-slot").append(languageSwitcher());

const ui = {
  me: null,            // player object from welcome
  home: "#/",          // the games ("#/") or the lobby ("#/lobby"): where leaving a room goes
  adoptRunning: false, // after a log-in from elsewhere: only a running seat's room comes on screen
  room: null,          // id of the room on screen
  state: null,         // its newest room_state
  stateAt: 0,          // performance.now() when it arrived
  invites: stored("thue.invites") || {}, // room id -> invite code we know (this tab's)
  cursor: 0,           // the keyboard's gap cursor
  chat: {},            // room id -> [chat_message]
  chatTab: {},         // room id -> "players" or "spectators": the chat stream on screen
  left: new Set(),     // rooms we left: their late states are not shown
  busy: false,         // a move was sent and its room_state has not come yet
  page: null,          // the HTTP page on screen ({what, arg} from the hash) or null
  ends: {},            // room id -> its newest match_end
  seated: {},          // room id -> {state, at}: a running match we are seated in, off screen
  next: null,          // the room the "your next game is ready" banner offers, or null
  notNow: new Set(),   // rooms whose banner was dismissed: not offered again
  tourRooms: {},       // room id -> tournament id (room_state.tournament, round_started)
  watchedTours: new Set(), // tournaments asked for over the WebSocket (their events come)
  gstates: {},         // room id -> {number, list}: the states of another game's match seen here
  gsel: null,          // another game's board: the piece or split being chosen, or null
  greplay: null,       // {room, number, step}: the finished match's state on the board
  replaced: false,     // another tab took the session over: this one stands by
  news: null,          // {room, text, until}: "Bob joined." under the room's title
  invitePeek: null,    // {key, info | null}: what an invite link's room is
  quickGame: null,     // the game whose quick-match queue we wait in
};

/** A JSON value from this tab's sessionStorage, or null. */
function stored(key) {
  try { return JSON.parse(sessionStorage.getItem(key)); } catch { return null; }
}

function store(key, value) {
  try { sessionStorage.setItem(key, JSON.stringify(value)); } catch { /* full or refused: kept in memory only */ }
}

function rememberInvite(room, code) {
  ui.invites[room] = code;
  store("thue.invites", ui.invites);
}

const conn = new Connection({ onEvent, onStatus, onWelcome, onNameRefused });

// ---- small helpers --------------------------------------------------------------------

function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "testid") e.dataset.testid = v;
    else if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k.includes("-")) e.setAttribute(k, v); // aria-*, data-*
    else e[k] = v;
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

/** Thue's options for people: "square-free, 4 symbols" (not "k = 4"). */
const thueText = (variant, k) => t(`app.thue.options_${variant === "overlap" ? "overlap" : "square"}`, { count: k });

// The length limit counts the painter's points (PROTOCOL.md "Scoring, exactly"): a round
// that reaches it has a word of limit + 1 symbols, so the page never calls it a length.
const POINTS_HELP = t("app.thue.points_help");

const REASONS = {
  score: t("app.reason.score"), resign: t("app.reason.resign"), timeout: t("app.reason.timeout"), abandon: t("app.reason.abandon"),
};

/* A sentence from the server (or the page) at the top; its code goes in data-code, not
 * into the words ("(not allowed)" is jargon to a player). */
function showError(err) {
  const box = $("errors");
  const text = err && err.code ? errorText(err) : err && err.message ? err.message : String(err);
  box.dataset.code = err && err.code ? err.code : "";
  box.textContent = "";
  box.append(el("span", {}, text),
    el("button", { type: "button", class: "link", onclick: () => (box.textContent = "") }, t("app.error.dismiss")));
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => (box.textContent = ""), 8000);
}

async function send(obj) {
  // A room of the person's choosing: the log-in's room states have come by now.
  if (["create_room", "join", "spectate", "queue_join"].includes(obj.type)) ui.adoptRunning = false;
  try {
    return await conn.request(obj);
  } catch (e) {
    showError(e);
    return null;
  }
}

function fmtClock(ms) {
  ms = Math.max(0, ms);
  const s = Math.floor(ms / 1000);
  const m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, "0")}${ms < 10000 ? "." + Math.floor((ms % 1000) / 100) : ""}`;
}

/* A bot's think time after its move (" (92 ms)"); a person's own is not shown. */
function thinkOf(s, lm) {
  const p = s.players[lm.seat];
  return p && p.kind === "bot" ? ` (${fmtThink(lm.think_ms)})` : "";
}

function fmtThink(ms) {
  const digits = (d) => ({ minimumFractionDigits: d, maximumFractionDigits: d, useGrouping: false });
  return ms < 1000 ? t("app.unit.ms", { n: fmtNumber(ms, digits(ms < 10 ? 1 : 0)) }) : t("app.unit.s", { n: fmtNumber(ms / 1000, digits(1)) });
}

function playerName(p) { return p ? p.name : t("app.player.free"); }

// ---- connection events ----------------------------------------------------------------

function onStatus(kind, text) {
  const c = $("conn");
  c.textContent = text;
  c.className = `status status-${kind}`;
}

/** The server refused the name of a hello (taken, or not allowed): stay on the name
 * form, with the reason next to the field, so the player picks another one. */
function onNameRefused(name, err) {
  ui.room = null; // no session: no room either (a reconnect whose session had expired)
  ui.state = null;
  showView();
  $("login").hidden = false;
  $("lobby").hidden = true;
  const field = $("name");
  field.value = name;
  field.setAttribute("aria-invalid", "true");
  const why = err.code === "name_taken" ? t("app.login.name_taken", { name })
    : t("app.login.name_refused", { name });
  $("name-error").textContent = why;
  field.focus();
  field.select();
}

function onWelcome(w, how = {}) {
  ui.me = w.player;
  renderMe();
  $("login").hidden = true;
  $("name-error").textContent = "";
  $("name").removeAttribute("aria-invalid");
  $("login-next").hidden = true;
  const r = parseRoute();
  const want = r && r.what === "room" ? r.arg : null; // the room the address names
  if (want && w.rooms.includes(want)) {
    ui.room = want;
    return; // room_state follows
  }
  ui.watchedTours.clear(); // asked again on this connection
  if (ui.page && ui.page.what.startsWith("tournament")) route(); // now with its controls
  if (w.resumed && w.rooms.length > 0 && !want) {
    // This tab's room after a lost connection comes back; otherwise (a reload on another
    // address, the account's session taken over from another device) the rooms' states
    // follow and only a match being played comes on screen, not an old room whose
    // opponent left.
    if (!how.byToken && ui.room && w.rooms.includes(ui.room)) return; // room_state follows
    ui.adoptRunning = true;
  }
  if (ui.room && !w.rooms.includes(ui.room)) {
    const lost = ui.state && ui.state.room === ui.room;
    if (lost) showError({ message: t("app.room.seat_lost") });
    ui.room = null;
    ui.state = null;
    if (lost && want) { history.replaceState(null, "", "#/"); ui.page = null; }
  }
  showView();
  refreshRooms();
  if (ui.page && ui.page.what === "room") openRoomRoute(ui.page); // an invite link or a room's address
  if (pendingStart) { const a = pendingStart; pendingStart = null; runStart(a); }
  for (const resolve of welcomeWaiters.splice(0)) resolve();
}

function onEvent(m) {
  switch (m.type) {
    case "room_state":
      if (m.tournament) ui.tourRooms[m.room] = m.tournament;
      if (ui.adoptRunning && ui.room === null) { // after a log-in: a running seat only
        if (!isRunningSeat(m)) return;
        ui.adoptRunning = false;
      }
      if (m.room !== ui.room && ui.room !== null) { otherRoomState(m); return; }
      if (ui.left.has(m.room)) return; // the last state of a room we left
      if (ui.state && ui.state.room === m.room && m.version < ui.state.version) return;
      if (!ui.state || ui.state.room !== m.room) followRoom(m.room); // entering a room: its address
      else noticeArrivals(ui.state, m);
      ui.room = m.room;
      if (!ui.state || ui.state.room !== m.room || !sameMove(ui.state, m)) { ui.cursor = defaultCursor(m); ui.gsel = null; }
      keepGameState(m);
      noticeRoundEnd(ui.state, m);
      ui.state = m;
      ui.busy = false;
      ui.stateAt = performance.now();
      delete ui.seated[m.room];
      if (ui.next === m.room && !onPage()) hideNext();
      else if (onPage() && isRunningSeat(m) && ui.next !== m.room) showNext(m.room); // a game begins behind a page
      showView();
      renderGame();
      break;
    case "tournament_event":
      onTournamentEvent(m);
      break;
    case "analysis_tree":
    case "analysis_delta":
      if (analysis) analysis.analysisEvent(m);
      break;
    case "match_end":
      ui.ends[m.room] = m;
      if (m.game && m.game !== "thue" && m.state) keepGameState({ room: m.room, match: { number: m.number, moves: m.state.moves, state: m.state, last_move: null, step: "over" } });
      if (m.room === ui.room && ui.state) renderGame(); // the result, and the seats' new ratings
      break;
    case "match_found":
      quickDone(t("app.quick.found"));
      ui.room = m.room;
      ui.state = null;
      break;
    case "queue_failed": // out of the queue: the server could not make the room
      quickDone(m.message);
      showError(m);
      break;
    case "chat_message":
      chatOf(m.room).push(m);
      store(`thue.chat.${m.room}`, ui.chat[m.room].slice(-CHAT_KEPT));
      if (m.room === ui.room) renderChat();
      break;
    case "goodbye":
      if (m.reason === "replaced") { ui.replaced = true; showView(); break; } // said plainly, with "use it here"
      showError({ message: m.message, code: m.reason });
      break;
    case "error":
      showError(m);
      break;
    default:
      break; // unknown events are ignored (PROTOCOL.md section 12)
  }
}

// ---- following the rooms we are seated in (tournament rounds) --------------------------
// The server seats a tournament's entrant in each round's room by itself: a room_state
// for a room that is not on screen, with us in a seat. Its game is taken on screen at
// once when the one on screen is over (or there is none); otherwise a banner offers it.

/** Whether an HTTP page (ladder, replay, tournament...) is on screen: a room's own address
 * is no page. */
function onPage() {
  return Boolean(ui.page && ui.page.what !== "room" && ui.page.what !== "lobby");
}

function isRunningSeat(m) {
  return m.you !== null && m.match !== null && m.match.step !== "over";
}

function otherRoomState(m) {
  if (ui.left.has(m.room)) return;
  const prev = ui.seated[m.room];
  if (prev && m.version < prev.state.version) return;
  if (!isRunningSeat(m)) { // over (or not begun): nothing to go to
    delete ui.seated[m.room];
    if (ui.next === m.room) hideNext();
    return;
  }
  ui.seated[m.room] = { state: m, at: performance.now() };
  const done = ui.state && ui.state.room === ui.room && ui.state.match && ui.state.match.step === "over";
  if (done && !onPage()) switchTo(m.room);
  else if (ui.next !== m.room) showNext(m.room);
}

/** Puts a room we are seated in on screen, with its newest state (and so its clocks). */
function switchTo(room) {
  hideNext();
  const e = ui.seated[room];
  if (e && ui.room !== room) {
    delete ui.seated[room];
    ui.room = room;
    ui.state = e.state;
    ui.stateAt = e.at;
    ui.cursor = defaultCursor(e.state);
    ui.busy = false;
    $("rematch").textContent = t("app.room.rematch");
  }
  // The room's own address (a new history entry): route() shows the game.
  const url = `#/room/${enc(room)}`;
  if (location.hash !== url) { location.hash = url; return; }
  showView();
  if (ui.state) renderGame();
}

function showNext(room) {
  if (ui.notNow.has(room)) return;
  ui.next = room;
  const box = $("next-game");
  const e = ui.seated[room];
  const s = e ? e.state : ui.state && ui.state.room === room ? ui.state : null;
  const vs = s ? t("app.next.against", { name: nameIn(s, s.players[1 - s.you]) }) : "";
  box.textContent = "";
  box.append(el("span", {}, `${t("app.next.ready", { vs })}${s ? ` (${s.name})` : ""}. `),
    el("button", { type: "button", testid: "next-game-go", onclick: () => switchTo(room) }, t("app.next.go")),
    " ",
    el("button", { type: "button", class: "link", testid: "next-game-dismiss", onclick: () => { ui.notNow.add(room); hideNext(); } }, t("app.next.not_now")));
  box.hidden = false;
}

function hideNext() {
  ui.next = null;
  $("next-game").hidden = true;
  $("next-game").textContent = "";
}

function onTournamentEvent(m) {
  if (m.event === "round_started") for (const r of m.rooms || []) ui.tourRooms[r] = m.tournament;
  if (ui.state && ui.tourRooms[ui.state.room] && !onPage()) renderButtons();
  const p = ui.page;
  if (p && p.what === "tournament" && p.arg === m.tournament) route(); // its news, redrawn
}

function sameMove(a, b) {
  if (isGame(a) || isGame(b)) return a.match && b.match && a.match.number === b.match.number && a.match.moves === b.match.moves;
  return a.match && b.match && a.match.round === b.match.round && a.match.word.length === b.match.word.length;
}

function defaultCursor(s) {
  return s.match && s.match.word ? s.match.word.length : 0;
}

// ---- views ----------------------------------------------------------------------------

// What shows follows the address (parseRoute): a room's address shows that room once its
// state is here, an HTTP page's address that page, and any other address the lobby (with
// a link back to the room you are in). Entering a room pushes its address (followRoom), so
// Back and Forward move between the lobby, rooms and pages.
function showView() {
  const r = ui.page;
  const here = ui.room !== null && ui.state !== null && ui.state.room === ui.room && !ui.left.has(ui.room) ? ui.room : null;
  const inRoom = Boolean(r && r.what === "room" && here === r.arg);
  const onLobby = Boolean(r && r.what === "lobby");
  const onPage = Boolean(r && r.what !== "room" && !onLobby);
  // An invite link opened before the page has a session: its own card, one tap to join.
  const inviting = Boolean(r && r.what === "room" && r.code && !conn.welcomed && !ui.replaced);
  const away = ui.replaced; // another tab has the session: only the notice
  $("replaced").hidden = !away;
  $("invite").hidden = !inviting || away;
  $("page").hidden = !onPage || away;
  $("lobby").hidden = !onLobby || !conn.welcomed || away;
  $("start").hidden = onPage || onLobby || inRoom || inviting || away;
  $("game").hidden = !inRoom || away;
  if (inviting) showInvite(r);
  $("login").hidden = conn.welcomed || inviting || away;
  // The first screen's landmark holds whichever of its parts shows.
  $("home").hidden = ["replaced", "invite", "start", "login"].every((id) => $(id).hidden);
  for (const a of document.querySelectorAll("#site-nav a")) {
    const page = a.dataset.page;
    const cur = page === "home" ? !r : r && (r.what === page || (page === "matches" && r.what === "match"));
    if (cur) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
  }
  const back = here ? `#/room/${enc(here)}` : ui.home;
  $("page-back").href = back;
  $("in-room").hidden = !here;
  if (here) { $("in-room-link").href = back; $("in-room-link").textContent = ui.state.name; }
  // A game of ours still running while the games are on screen: one tap back to it.
  const playing = here && ui.state.you !== null && ui.state.match && ui.state.match.step !== "over";
  $("in-game").hidden = !playing;
  if (playing) { $("in-game-link").href = back; $("in-game-link").textContent = ui.state.name; }
  const waiting = r && r.what === "room" && !conn.welcomed && !inviting;
  $("login-next").hidden = !waiting;
  if (waiting) $("login-next").textContent = t("app.login.to_watch", { room: r.arg });
}

// ---- an invite link's card ------------------------------------------------------------

/** Fills the invite card for route r: whose game it is, read from GET /api/rooms/ID (once
 * per link), or why it cannot be joined. */
async function showInvite(r) {
  const key = `${r.arg}?${r.code}`;
  if (ui.invitePeek && ui.invitePeek.key === key) return;
  ui.invitePeek = { key, info: null };
  $("invite-title").textContent = t("app.invite.title");
  $("invite-what").textContent = "";
  $("invite-error").textContent = "";
  $("invite-form").hidden = false;
  $("invite-name").value = conn.name;
  let info = null;
  try {
    info = await getJSON(`/api/rooms/${enc(r.arg)}?code=${enc(r.code)}`);
  } catch (e) {
    if (e.code !== "not_found") return; // another reason (an older server): the plain card stays
  }
  if (!ui.invitePeek || ui.invitePeek.key !== key) return;
  ui.invitePeek.info = info;
  if (!info) {
    $("invite-title").textContent = t("app.invite.expired");
    $("invite-what").textContent = t("app.invite.expired_text");
    $("invite-form").hidden = true;
    return;
  }
  const host = info.players.find((p) => p !== null);
  const game = info.game && info.game !== "thue" ? optionsText(info.game, info.game_options) : `${t("app.game.thue")}, ${thueText(info.variant, info.k)}`;
  $("invite-title").textContent = host ? t("app.invite.join_host", { name: host.name }) : t("app.invite.join");
  const full = info.players.every((p) => p !== null);
  $("invite-what").textContent = `${game}${info.clock ? ` · ${t("app.invite.clock_each", { clock: fmtClock(info.clock.initial_ms) })}` : ""}. ` +
    (full ? t("app.invite.full") : info.auto_start ? t("app.invite.auto_start") : t("app.invite.press_ready"));
}

/** The card's Join: the name typed (or a guest name), then the link's room (onWelcome). */
function inviteJoin(ev) {
  ev.preventDefault();
  const name = $("invite-name").value.trim();
  if (name !== conn.name) { conn.resume = ""; conn.token = ""; }
  conn.name = name;
  $("invite-error").textContent = "";
  conn.connect();
}

// ---- the game cards ---------------------------------------------------------------------

/** The first screen's cards (home.js): the games this server hosts. Drawn again when the
 * server's list of games comes: what was open (a card's levels, its rules) stays open,
 * and the focus stays on its button. */
function renderCards() {
  const box = $("game-cards");
  const open = new Set([...box.querySelectorAll(".card-levels:not([hidden]), .card-rules:not([hidden])")].map((e) => e.id));
  const focused = box.contains(document.activeElement) ? document.activeElement.dataset.testid : null;
  box.textContent = "";
  const hosted = new Set(["thue", ...games().map((g) => g.name)]);
  for (const c of CARDS) {
    if (!hosted.has(c.game)) continue;
    const id = `card-${c.game}`;
    const levels = el("div", { class: "card-levels", id: `${id}-levels`, testid: `${id}-levels` },
      ...c.levels.map((l) => el("button", { type: "button", class: "level", testid: `${id}-level-${l.key}`,
        onclick: () => startAction({ kind: "bot", game: c.game, spec: l.spec, label: l.label }) }, l.label, el("small", {}, l.engine))));
    levels.hidden = !open.has(`${id}-levels`);
    const rules = el("ul", { class: "card-rules small", id: `${id}-rules-text`, testid: `${id}-rules-text` }, ...c.rules.map((t) => el("li", {}, t)));
    rules.hidden = !open.has(`${id}-rules-text`);
    const toggle = (button, part) => () => {
      const open = part.hidden;
      part.hidden = !open;
      button.setAttribute("aria-expanded", String(open));
    };
    const computer = el("button", { type: "button", class: "primary", testid: `${id}-computer`, "aria-expanded": String(!levels.hidden), "aria-controls": `${id}-levels` }, t("app.home.play_computer"));
    computer.addEventListener("click", toggle(computer, levels));
    const rulesButton = el("button", { type: "button", class: "quiet", testid: `${id}-rules`, "aria-expanded": String(!rules.hidden), "aria-controls": `${id}-rules-text` }, t("app.card.rules"));
    rulesButton.addEventListener("click", toggle(rulesButton, rules));
    const friend = el("button", { type: "button", testid: `${id}-friend` }, t("app.card.friend"));
    friend.addEventListener("click", () => startAction({ kind: "friend", game: c.game }));
    box.append(el("article", { class: "card", testid: id, "aria-labelledby": `${id}-title` },
      picture(c.game),
      el("h3", { id: `${id}-title` }, c.title),
      el("p", { class: "small card-line" }, c.line),
      el("div", { class: "card-actions" }, computer, friend, rulesButton),
      levels, rules));
  }
  if (focused) { const f = box.querySelector(`[data-testid="${focused}"]`); if (f) f.focus(); }
}

/** "Bob joined.": a person took a free seat of the room on screen (news for a few
 * seconds under its title). */
function noticeArrivals(prev, next) {
  for (const seat of [0, 1]) {
    const was = prev.players[seat], now = next.players[seat];
    if (was || !now || seat === next.you || now.kind === "bot") continue;
    ui.news = { room: next.room, text: next.match ? t("app.room.joined_begun", { name: now.name }) : t("app.room.joined", { name: now.name }), until: performance.now() + 8000 };
  }
}

function renderNews(s) {
  const n = ui.news;
  const show = Boolean(n && n.room === s.room && performance.now() < n.until);
  $("room-news").hidden = !show;
  if (show) $("room-news").textContent = n.text;
}

/** What the turn line says before the first match. */
function waitingText(s) {
  const o = s.options;
  if (s.players.every((p) => p)) return o.auto_start ? t("app.wait.starting") : t("app.wait.both_ready");
  if (o.auto_start && o.private) return t("app.wait.friend");
  if (o.auto_start) return t("app.wait.opponent_auto");
  return t("app.wait.opponent");
}

/** The level (home.js) a room's computer player p is, or null (a person, or a bot
 * seated by its spec alone). A seat's `bot` is the full spec, defaults written out
 * ("uct:iterations=3000,playout=100,c=…"); its name is the short one a level names. */
function botLevel(s, p) {
  return gameBotLevel(s.options.game, p);
}

/** The level of game's computer player p (a player object), or null. */
function gameBotLevel(game, p) {
  if (!p || p.kind !== "bot") return null;
  return levelOf(game || "thue", p.bot) || levelOf(game || "thue", p.name);
}

/** How the room s's sentences call its player p: a computer player by its level
 * ("Beginner (computer)") where it has one, as its seat does, else by its name. */
function nameIn(s, p) {
  const level = botLevel(s, p);
  return level ? t("app.player.computer", { level: level.label }) : playerName(p);
}

/** A seat's name: as nameIn, a bot without a level marked "(bot)"; (you) for your own
 * seat. */
function seatName(s, seat) {
  const p = s.players[seat];
  if (!p) return t("app.seat.free");
  const name = p.kind === "bot" && !botLevel(s, p) ? t("app.player.bot", { name: p.name }) : nameIn(s, p);
  return s.you === seat ? t("app.player.you", { name }) : name;
}

/** Entering room `id` (a room_state of a new room came): its address replaces a room's
 * address, is pushed over the lobby's, and leaves an HTTP page on screen (whose Back link
 * then leads to the room). */
function followRoom(id) {
  const r = parseRoute();
  if (r && r.what !== "room" && r.what !== "lobby") return; // a page stays (the lobby is no page)
  if (r && r.what === "room" && r.arg === id) return;
  const url = `#/room/${enc(id)}`;
  if (r && r.what === "room") history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  ui.page = parseRoute();
}

/** The address names a room we are not in (yet): with an invite code take its free seat
 * (or watch when both are taken), without one watch. Before the name step, wait for it. */
async function openRoomRoute(r) {
  if (!conn.welcomed) return; // onWelcome comes back here
  const room = r.arg;
  if (ui.room === room && !ui.left.has(room)) return; // there, or its state is on the way
  if (r.code) rememberInvite(room, r.code);
  const invite = r.code || ui.invites[room] || "";
  ui.left.delete(room);
  ui.room = room;
  ui.state = null;
  const msg = { type: invite ? "join" : "spectate", room };
  if (invite) msg.invite = invite;
  try {
    await conn.request(msg);
  } catch (e) {
    if (invite && (e.code === "room_full" || e.code === "already_seated" || e.code === "not_running")) {
      if (await send({ type: "spectate", room, invite })) return;
    } else showError(e);
    if (ui.room === room) { ui.room = null; ui.state = null; }
    if (location.hash.startsWith(`#/room/${enc(room)}`)) { history.replaceState(null, "", "#/"); ui.page = null; }
    showView();
  }
}

async function refreshRooms() {
  const game = $("l-game").value;
  const r = await send(game === "thue" ? { type: "list_rooms" } : { type: "list_rooms", game });
  if (!r) return;
  const body = $("rooms-body");
  body.textContent = "";
  // Open seats and live games only: a finished room is history (its replay is on the
  // players' match pages).
  const rooms = r.rooms.filter((s) => s.status !== "finished");
  if (rooms.length === 0) {
    body.append(el("tr", {}, el("td", { colSpan: 5, class: "empty" }, t("app.lobby.no_rooms"))));
    return;
  }
  for (const s of rooms) {
    const clock = s.clock ? ` · ${s.clock.initial_ms / 60000}′+${s.clock.increment_ms / 1000}″` : "";
    const free = s.players.some((p) => p === null) && s.status === "waiting";
    body.append(el("tr", { testid: `room-${s.room}` },
      el("td", {}, s.name),
      s.game && s.game !== "thue" ? el("td", { testid: `room-game-${s.room}` }, `${optionsText(s.game, s.game_options)}${clock}${s.rated ? ` · ${t("app.room.rated")}` : ""}`)
        : el("td", { title: POINTS_HELP }, `${t("app.game.thue")}, ${thueText(s.variant, s.k)}, ${t("app.lobby.to_points", { count: s.limit })}${clock}${s.rated ? ` · ${t("app.room.rated")}` : ""}`),
      el("td", {}, s.players.map((p) => {
        // A computer player by its level, as in its room ("Beginner (computer)").
        const level = gameBotLevel(s.game, p);
        return level ? t("app.player.computer", { level: level.label }) : playerName(p);
      }).join(t("app.vs"))),
      el("td", {}, tOr(`app.status.${s.status}`, {}, s.status)),
      el("td", {},
        free ? el("button", { type: "button", testid: `join-${s.room}`, onclick: () => joinRoom(s.room, "", "join") }, t("app.lobby.join")) : null,
        " ",
        el("button", { type: "button", testid: `watch-${s.room}`, onclick: () => joinRoom(s.room, "", "spectate") }, t("app.lobby.watch")))));
  }
}

async function joinRoom(room, invite, how) {
  if (!room) { showError({ message: t("app.lobby.room_id_first") }); return; }
  const msg = { type: how, room };
  if (invite) { msg.invite = invite; rememberInvite(room, invite); }
  ui.left.delete(room);
  ui.room = room;
  ui.state = null;
  const r = await send(msg);
  if (!r) { ui.room = null; showView(); }
}

async function createRoom(ev) {
  ev.preventDefault();
  if ($("c-game").value !== "thue") { createGameRoom(); return; }
  const msg = {
    type: "create_room",
    variant: $("c-variant").value,
    k: Number($("c-k").value),
    limit: Number($("c-limit").value),
    first_builder: $("c-first").value,
    rated: $("c-rated").checked,
    private: $("c-private").checked,
    seat: $("c-seat").checked,
  };
  const minutes = Number($("c-clock").value);
  if (minutes > 0) msg.clock = { initial_ms: Math.round(minutes * 60000), increment_ms: Math.round(Number($("c-inc").value) * 1000) };
  if ($("c-name").value.trim()) msg.name = $("c-name").value.trim();
  ui.room = null;
  ui.state = null;
  const r = await send(msg);
  if (!r) return;
  if (r.invite) rememberInvite(r.room, r.invite);
  ui.room = r.room;
}

async function quickMatch(ev) {
  ev.preventDefault();
  const game = $("q-game").value;
  const bot = Number($("q-bot").value);
  // Another game's queue pairs players of its default options (PROTOCOL.md, queue_join).
  const rated = $("q-rated").checked;
  const r = await send(game === "thue" ? { type: "queue_join", variant: $("q-variant").value, k: Number($("q-k").value), rated, bot_after_s: bot }
    : { type: "queue_join", game, rated, bot_after_s: bot });
  if (!r) return;
  ui.room = null;
  quickWaiting(game, bot);
}

/** The queue's line and buttons while we wait in game's queue (bot: the seconds until a
 * computer player takes the seat, 0: never). */
function quickWaiting(game, bot) {
  $("quick-status").textContent = bot > 0 ? t("app.quick.waiting_bot", { count: bot }) : t("app.quick.waiting");
  $("quick-cancel").hidden = false;
  $("quick-now").hidden = false;
  ui.quickGame = game;
}

/** "Play the computer now" while waiting in the queue: out of it, and a game against the
 * level quick match would have brought (Casual), no Ready. */
async function quickNow() {
  const game = ui.quickGame || "thue";
  if (!await send({ type: "queue_leave" })) return;
  quickDone("");
  const card = cardOf(game);
  const level = card ? card.levels[1] : { spec: "nested:1", label: t("app.level.casual") };
  runStart({ kind: "bot", game, spec: level.spec, label: level.label });
}

/** The queue's line and buttons once waiting is over (text: what to say). */
function quickDone(text) {
  $("quick-status").textContent = text;
  $("quick-cancel").hidden = true;
  $("quick-now").hidden = true;
}

// ---- pages from the HTTP API: #/ladder, #/tournaments, #/tournament/ID, #/match/ID,
// #/matches/NAME. They need no WebSocket session; the game view waits behind them.

async function getJSON(path) {
  const res = await fetch(path);
  const j = await res.json().catch(() => ({}));
  if (!res.ok) throw (j.error || { message: `HTTP ${res.status}` });
  return j;
}

function table(head, rows, testid) {
  const cell = (c) => el("td", {}, c instanceof Node ? c : String(c));
  return el("table", testid ? { testid } : {}, el("thead", {}, el("tr", {}, ...head.map((h) => el("th", {}, h)))),
    el("tbody", {}, ...rows.map((r) => el("tr", {}, ...r.map(cell)))));
}

const link = (href, text, testid) => el("a", testid ? { href, testid } : { href }, text);
const enc = encodeURIComponent;

function parseRoute() {
  const [h, query] = location.hash.replace(/^#\/?/, "").split("?");
  if (!h) return null;
  const [what, ...rest] = h.split("/");
  const arg = rest.length ? decodeURIComponent(rest.join("/")) : "";
  const q = new URLSearchParams(query || "");
  const page = Math.max(1, parseInt(q.get("page"), 10) || 1);
  if (what === "room" && arg) return { what, arg, code: q.get("code") || "" };
  if (what === "ladder") return { what, arg, page, variant: q.get("variant"), k: parseInt(q.get("k"), 10) || 0, kind: q.get("kind"), game: q.get("game"), query: q };
  if (["tournaments", "tournament", "match", "matches"].includes(what)) return { what, arg, page };
  if (what === "analysis") return { what, arg, query: q };
  if (what === "lessons") return { what, arg };
  if (what === "lobby") return { what };
  if (what === "puzzles") return { what, arg, page };
  return null;
}

// The analysis page (analysis.js) loads on its first visit, one module at a time: the
// server sends at most 4 files at once to an address, and the first screen needs its own.
let analysis = null;
async function loadAnalysis() {
  if (!analysis) { await import("./treelayout.js"); await import("./treefile.js"); analysis = await import("./analysis.js"); }
  return analysis;
}

/** The analysis page's address for a position (its links travel with the position); with
 * room, the page offers to analyse that room's current position instead. */
function analysisHash(game, options, position, room = "") {
  const q = new URLSearchParams({ game });
  if (room) q.set("room", room);
  if (options && Object.keys(options).length) q.set("options", JSON.stringify(options));
  if (position) q.set("position", JSON.stringify(position));
  return `#/analysis?${q.toString()}`;
}

/** The analysis page's address for a stored match, at move `at` (1-based; 0: the last). */
function matchAnalysisHash(id, at = 0) {
  return `#/analysis?match=${enc(id)}${at > 0 ? `&at=${at}` : ""}`;
}

// Who waits for a session (whenWelcomed): resolved by onWelcome.
const welcomeWaiters = [];

/** Resolves once the page has a session; connects (with the name remembered, or as a
 * guest) when no connection is on its way. */
function whenWelcomed() {
  if (conn.welcomed) return Promise.resolve();
  return new Promise((resolve) => {
    welcomeWaiters.push(resolve);
    if (!conn.ws || conn.ws.readyState > 1) conn.connect();
  });
}

let routeGen = 0;

async function route() {
  const gen = ++routeGen;
  ui.page = parseRoute();
  if (analysis && (!ui.page || ui.page.what !== "analysis")) analysis.analysisLeave(); // its live search closed
  showView();
  if (!ui.page || ui.page.what === "lobby") {
    ui.home = ui.page ? "#/lobby" : "#/"; // where leaving a room goes back to
    if (conn.welcomed && ui.page) refreshRooms();
    return;
  }
  if (ui.page.what === "room") {
    if (ui.state && ui.state.room === ui.page.arg) renderGame();
    else openRoomRoute(ui.page);
    return;
  }
  const real = $("page-body");
  real.dataset.loaded = "";
  const body = el("div"); // filled off screen, shown only if no newer route began meanwhile
  const p = ui.page;
  try {
    if (p.what === "ladder") await pageLadder(body, p);
    else if (p.what === "tournaments") await pageTournaments(body, p.page);
    else if (p.what === "tournament") await pageTournament(body, p.arg);
    else if (p.what === "match") await pageMatch(body, p.arg);
    else if (p.what === "matches") await pageMatches(body, p.arg || (ui.me ? ui.me.name : ""), p.page);
    else if (p.what === "puzzles") await (await import("./puzzles.js")).renderPuzzles(body, p.arg, p.page);
    else if (p.what === "lessons") await (await import("./lessons.js")).renderLessons(body, p.arg, { conn, whenWelcomed });
    else if (p.what === "analysis") await (await loadAnalysis()).pageAnalysis(body, p.query, { el, conn, gameOptionFields, readGameOptions, showOptionError, analysisHash, getJSON, matchLine, whenWelcomed });
  } catch (e) {
    body.append(el("p", { class: "empty", testid: "page-error" }, reasonText(e)));
  }
  if (gen !== routeGen) return;
  real.textContent = "";
  real.dataset.page = p.what;
  real.append(...body.childNodes);
  if (p.what === "match") { renderReplay(); startReview(); }
  real.dataset.loaded = "1";
}

// The ladder: one rating pool at a time. Thue's pools are (variant, k); another game's
// pool is named by the options in its key (POOL_OPTIONS; the others do not split pools),
// sent as game_options. Addresses: #/ladder?variant=square&k=3&kind=all for Thue,
// #/ladder?game=nim&misere=1&kind=all (northcott: rows, cols; circle: fields; rims: none)
// for another game; #/ladder?game=G&options=<JSON> is read too.
const POOL_OPTIONS = { nim: ["misere"], northcott: ["rows", "cols"], circle: ["fields"], rims: [], wythoff: ["a"] };
POOL_OPTIONS.dots = ["rows", "cols", "outline"];
const poolOptionsOf = (game) => POOL_OPTIONS[game] || [];

// Thue's ladder opens on the pool of the first screen's games (square-free, 4 symbols) until
// another is busier: with 3 symbols every match ends level (docs/web.md).
const ladderQuery = { game: "thue", variant: "square", k: 4, kind: "all", options: {} };

function ladderHash(q) {
  if (q.game === "thue") return `#/ladder?variant=${enc(q.variant)}&k=${q.k}&kind=${enc(q.kind)}`;
  const opts = poolOptionsOf(q.game).filter((n) => q.options[n] !== undefined)
    .map((n) => `&${n}=${enc(typeof q.options[n] === "boolean" ? (q.options[n] ? 1 : 0) : q.options[n])}`).join("");
  return `#/ladder?game=${enc(q.game)}${opts}&kind=${enc(q.kind)}`;
}

/** The pool's options of another game from an address's query: options=<JSON>, or one
 * parameter per pool option (a boolean as 1/0 or true/false, an integer as digits). */
function poolOptionsFromQuery(game, query) {
  let given = {};
  if (query.get("options")) {
    try { const j = JSON.parse(query.get("options")); if (j && typeof j === "object" && !Array.isArray(j)) given = j; } catch { /* ignored */ }
  }
  const out = {};
  for (const o of gameInfo(game).options) {
    if (!poolOptionsOf(game).includes(o.name)) continue;
    let v = given[o.name];
    const t = query.get(o.name);
    if (t !== null) v = o.type === "boolean" ? ["1", "true", "yes", "on"].includes(t.toLowerCase()) : /^\d+$/.test(t) ? Number(t) : undefined;
    if (o.type === "boolean" && v !== undefined) v = Boolean(v);
    out[o.name] = v !== undefined && v !== null ? v : o.default;
  }
  return out;
}

/** A pool of another game in words ("Nim, misère play", "Northcott's game, 8 × 8"). */
function poolText(game, o) {
  const title = gameTitle(game);
  if (game === "nim") return `${title}, ${o.misere ? t("app.optlabel.misere") : t("app.opts.normal")}`;
  if (game === "northcott") return `${title}, ${o.rows} × ${o.cols}`;
  if (game === "circle") return t("app.pool.circle", { title, count: o.fields });
  return title;
}

/** The pool a bare #/ladder opens on: of a few usual pools, the one with the most
 * players (square-free k = 3 when all are empty). There is no list of pools to ask. */
async function busiestPool() {
  const pools = [["square", 4], ["square", 3], ["square", 5], ["overlap", 2], ["overlap", 3], ["overlap", 4]]; // ties: the first
  const totals = await Promise.all(pools.map(([v, k]) =>
    getJSON(`/api/ladder?variant=${v}&k=${k}&kind=all&count=1`).then((j) => j.total || 0, () => 0)));
  let best = 0;
  totals.forEach((t, i) => { if (t > totals[best]) best = i; });
  return { variant: pools[best][0], k: pools[best][1] };
}

async function pageLadder(body, p) {
  const q = ladderQuery;
  // The pool is in the address; without one, open on a pool that has players.
  const other = p.game && p.game !== "thue" && games().some((g) => g.name === p.game) ? p.game : null;
  q.game = other || "thue";
  if (other) q.options = poolOptionsFromQuery(other, p.query);
  if (p.variant === "square" || p.variant === "overlap") q.variant = p.variant;
  if (p.k >= 2 && p.k <= 64) q.k = p.k;
  if (["all", "human", "bot"].includes(p.kind)) q.kind = p.kind;
  if (!other && (!p.variant || !p.k)) {
    Object.assign(q, await busiestPool(), { kind: q.kind });
    if (parseRoute() && parseRoute().what === "ladder") history.replaceState(null, "", ladderHash(q));
  }
  const sel = (id, opts, val) => el("select", { id, testid: id }, ...opts.map(([v, words]) => el("option", { value: v, selected: v === val }, words)));
  const gameSel = sel("lp-game", [["thue", t("app.game.thue")], ...games().map((g) => [g.name, g.title])], q.game);
  const thueFields = [
    el("label", {}, `${t("app.create.variant")} `, sel("lp-variant", [["square", t("app.variant.square")], ["overlap", t("app.variant.overlap")]], q.variant)),
    el("label", {}, "k ", el("input", { id: "lp-k", type: "number", min: 2, max: 64, value: q.k })),
  ];
  // The options that name another game's pool: the room form's widgets (gameOptionFields).
  const poolBox = el("span", { class: "row", testid: "lp-pool-fields" });
  const form = el("form", { class: "row" },
    el("label", {}, `${t("app.lobby.game")} `, gameSel), ...(q.game === "thue" ? thueFields : [poolBox]),
    el("label", {}, `${t("app.lobby.col_players")} `, sel("lp-kind", [["all", t("app.ladder.all")], ["human", t("app.ladder.people")], ["bot", t("app.ladder.bots")]], q.kind)),
    el("button", { type: "submit", testid: "lp-show" }, t("app.ladder.show")));
  if (q.game === "thue") form.querySelector("#lp-k").dataset.testid = "lp-k";
  else gameOptionFields(poolBox, q.game, "lgo-", { only: poolOptionsOf(q.game), values: q.options, help: false });
  const poolLine = el("p", { class: "small", testid: "ladder-pool" });
  const out = el("div", { class: "table-wrap", testid: "ladder" });
  body.append(el("h2", {}, t("app.nav.ladder")), form, poolLine, out);
  // A new pool is a new address (Back returns to the previous one).
  const show = () => {
    q.kind = form.querySelector("#lp-kind").value;
    const game = gameSel.value;
    if (game !== q.game) { // another game: its default pool
      q.game = game;
      q.options = game === "thue" ? {} : poolOptionsFromQuery(game, new URLSearchParams());
    } else if (game === "thue") {
      q.variant = form.querySelector("#lp-variant").value;
      q.k = Math.min(64, Math.max(2, Number(form.querySelector("#lp-k").value) || 3));
    } else {
      const { options, problems } = readGameOptions(game, "lgo-", form);
      if (problems.length) return;
      for (const n of poolOptionsOf(game)) if (options[n] !== undefined) q.options[n] = options[n];
    }
    if (location.hash !== ladderHash(q)) location.hash = ladderHash(q);
    else load();
  };
  const load = async () => {
    out.textContent = "";
    out.dataset.loaded = "";
    const path = q.game === "thue" ? `/api/ladder?variant=${enc(q.variant)}&k=${q.k}&kind=${enc(q.kind)}&count=100`
      : `/api/ladder?game=${enc(q.game)}&game_options=${enc(JSON.stringify(q.options))}&kind=${enc(q.kind)}&count=100`;
    poolLine.textContent = q.game === "thue" ? `${t("app.game.thue")}, ${thueText(q.variant, q.k)}` : poolText(q.game, q.options);
    try {
      const j = await getJSON(path);
      if (q.game !== "thue" && typeof j.pool === "string") poolLine.textContent = t("app.ladder.pool", { text: poolText(q.game, q.options), pool: j.pool });
      const entries = j.entries || [];
      out.append(entries.length === 0 ? el("p", { class: "empty" }, t("app.ladder.empty"))
        : table(["#", t("app.login.name"), t("app.ladder.kind"), t("app.ladder.rating"), el("abbr", { title: t("app.ladder.rd_help") }, "±"), t("app.ladder.games"), t("app.ladder.wdl")], entries.map((e) =>
          [e.rank, link(`#/matches/${enc(e.name)}`, e.name), tOr(`app.ladder.kind_${e.kind}`, {}, e.kind), `${Math.round(e.rating)}${e.provisional ? "?" : ""}`, Math.round(e.rd), e.games, `${e.wins}/${e.draws}/${e.losses}`]), "ladder-table"));
    } catch (e) { out.append(el("p", { class: "empty", testid: "ladder-error" }, reasonText(e))); }
    out.dataset.loaded = "1";
  };
  form.addEventListener("submit", (ev) => { ev.preventDefault(); show(); });
  for (const e of form.querySelectorAll("select, input[type=checkbox]")) e.addEventListener("change", show);
  await load();
}

const TOURNAMENTS_PER_PAGE = 50;

async function pageTournaments(body, page = 1) {
  const n = TOURNAMENTS_PER_PAGE;
  const j = await getJSON(`/api/tournaments?offset=${(page - 1) * n}&count=${n}`);
  const ts = j.tournaments || [];
  const pages = Math.max(1, Math.ceil((j.total || 0) / n));
  body.append(el("h2", {}, `${t("app.nav.tournaments")} `, el("button", { type: "button", testid: "page-refresh", onclick: route }, t("app.lobby.refresh"))));
  body.append(tournamentForm());
  if (pages > 1) {
    const at = (k) => `#/tournaments?page=${k}`;
    body.append(el("p", { class: "pager", testid: "tournaments-pager" },
      page > 1 ? link(at(page - 1), t("app.pager.newer"), "tournaments-newer") : "",
      ` ${t("app.pager.page", { page: Math.min(page, pages), pages })} `,
      page < pages ? link(at(page + 1), t("app.pager.older"), "tournaments-older") : ""));
  }
  body.append(ts.length === 0 ? el("p", { class: "empty", testid: "tournaments" }, t("app.tour.none"))
    : el("div", { class: "table-wrap", testid: "tournaments" }, table([t("app.login.name"), t("app.tour.format"), t("app.lobby.game"), t("app.lobby.col_status"), t("app.lobby.col_players"), t("app.tour.round")], ts.map((tr) =>
      [link(`#/tournament/${enc(tr.tournament)}`, tr.name, `tournament-${tr.tournament}`), tOr(`app.tour.format_${tr.format}`, {}, String(tr.format).replace("_", " ")), tournamentGame(tr), tOr(`app.tour.status_${tr.status}`, {}, tr.status), `${tr.players}/${tr.max_players}`, `${tr.round}/${tr.rounds}`]))));
}

/** A tournament's game in a few words: Thue's variant and k, or another game's options. */
function tournamentGame(tr) {
  return isGameTournament(tr) ? optionsText(tr.game, tr.game_options) : `${t("app.game.thue")}, ${thueText(tr.variant, tr.k)}`;
}

function isGameTournament(tr) {
  return Boolean(tr.game && tr.game !== "thue");
}

// Tournaments this browser created: their pages offer Start (the server checks anyway).
const MY_TOURNAMENTS = "thue.tournaments";

function myTournaments() {
  try { return JSON.parse(localStorage.getItem(MY_TOURNAMENTS)) || []; } catch { return []; }
}

/** The create form of #/tournaments (create_tournament, PROTOCOL.md section 9): for
 * accounts; the creator enters it too unless told not to. */
function tournamentForm() {
  const box = el("section", { testid: "t-create-box" }, el("h3", {}, t("app.tour.create_title")));
  if (!conn.welcomed || !ui.me || ui.me.kind !== "account") {
    box.append(el("p", { class: "small", testid: "t-create-note" },
      !conn.welcomed ? t("app.tour.enter_first")
        : t("app.tour.accounts")));
    return box;
  }
  const sel = (id, opts) => el("select", { id, testid: id }, ...opts.map(([v, words]) => el("option", { value: v }, words)));
  const num = (id, min, max, value, step) => el("input", { id, testid: id, type: "number", min, max, value, ...(step ? { step } : {}) });
  const rounds = num("t-rounds", 1, 50, 3);
  const roundsLabel = el("label", {}, `${t("app.tour.rounds_swiss")} `, rounds);
  const format = sel("t-format", [["round_robin", t("app.tour.format_round_robin")], ["swiss", t("app.tour.swiss")]]);
  const game = sel("t-game", [["thue", t("app.game.thue")], ...games().map((g) => [g.name, g.title])]);
  const thueOnly = [
    el("label", {}, `${t("app.create.variant")} `, sel("t-variant", [["square", t("app.variant.square")], ["overlap", t("app.variant.overlap")]])),
    el("label", {}, `${t("app.create.k")} `, num("t-k", 2, 64, 4)),
    el("label", { title: POINTS_HELP }, `${t("app.create.limit")} `, num("t-limit", 1, 10000, 100)),
  ];
  // Another game's options: the room form's widgets (gameOptionFields), ids tgo-NAME.
  const optionsBox = el("div", { class: "grid-span grid", testid: "t-game-options", hidden: true });
  const error = el("p", { class: "field-error grid-span", testid: "t-error", role: "alert" });
  const form = el("form", { class: "grid", testid: "t-create" },
    el("label", {}, `${t("app.login.name")} `, el("input", { id: "t-name", testid: "t-name", maxLength: 40, required: true, placeholder: t("app.tour.name_example") })),
    el("label", {}, `${t("app.tour.format")} `, format),
    roundsLabel,
    el("label", {}, `${t("app.lobby.game")} `, game),
    optionsBox,
    ...thueOnly,
    el("label", {}, `${t("app.create.clock")} `, num("t-clock", 0, 1440, 0, "any")),
    el("label", {}, `${t("app.create.increment")} `, num("t-inc", 0, 600, 0, "any")),
    el("label", {}, `${t("app.tour.max_players")} `, num("t-max", 2, 256, 8)),
    el("label", { class: "check" }, el("input", { id: "t-enter", testid: "t-enter", type: "checkbox", checked: true }), ` ${t("app.tour.enter_myself")}`),
    el("button", { type: "submit", testid: "t-create-submit" }, t("app.create.submit")),
    error);
  const swiss = () => { roundsLabel.hidden = format.value !== "swiss"; };
  format.addEventListener("change", swiss);
  swiss();
  const showGame = () => {
    const thue = game.value === "thue";
    for (const e of thueOnly) e.hidden = !thue;
    optionsBox.textContent = "";
    optionsBox.hidden = thue;
    error.textContent = "";
    if (thue) return;
    const info = gameInfo(game.value);
    if (info.summary) optionsBox.append(el("p", { class: "small form-help" }, info.summary));
    gameOptionFields(optionsBox, game.value, "tgo-");
  };
  game.addEventListener("change", showGame);
  showGame();
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const v = (id) => form.querySelector(`#${id}`).value;
    const msg = { type: "create_tournament", name: v("t-name").trim(), format: v("t-format"), max_players: Number(v("t-max")) };
    if (game.value === "thue") Object.assign(msg, { variant: v("t-variant"), k: Number(v("t-k")), limit: Number(v("t-limit")) });
    else {
      const { options, problems } = readGameOptions(game.value, "tgo-", form);
      error.textContent = problems.length ? t("app.create.check", { problems: problems.join(" ") }) : "";
      if (problems.length) return;
      Object.assign(msg, { game: game.value, game_options: options });
    }
    if (msg.format === "swiss") msg.rounds = Number(v("t-rounds"));
    const minutes = Number(v("t-clock"));
    if (minutes > 0) msg.clock = { initial_ms: Math.round(minutes * 60000), increment_ms: Math.round(Number(v("t-inc")) * 1000) };
    let r;
    try {
      r = await conn.request(msg);
    } catch (e) {
      showError(e);
      error.textContent = t("app.tour.refused", { why: reasonText(e) });
      showOptionError(e, "tgo-", form);
      return;
    }
    localStorage.setItem(MY_TOURNAMENTS, JSON.stringify([r.tournament, ...myTournaments()].slice(0, 50)));
    if (form.querySelector("#t-enter").checked) await send({ type: "join_tournament", tournament: r.tournament });
    location.hash = `#/tournament/${enc(r.tournament)}`;
  });
  box.append(form);
  return box;
}

/** Join, leave and start an open tournament, and enter bots into it. */
function tournamentControls(tr) {
  const box = el("div", { class: "t-actions", testid: "t-actions" });
  if (tr.status !== "open") return box;
  if (!conn.welcomed || !ui.me) {
    box.append(el("p", { class: "small" }, t("app.tour.enter_to_join")));
    return box;
  }
  const act = async (msg) => { if (await send({ ...msg, tournament: tr.tournament })) route(); };
  const entered = (tr.entrants || []).some((e) => e.kind !== "bot" && e.name === ui.me.name);
  if (ui.me.kind !== "account") box.append(el("p", { class: "small", testid: "t-account-note" }, t("app.tour.accounts_join")));
  else if (entered) box.append(el("button", { type: "button", testid: "t-leave", onclick: () => act({ type: "leave_tournament" }) }, t("app.room.leave")));
  else box.append(el("button", { type: "button", testid: "t-join", onclick: () => act({ type: "join_tournament" }) }, t("app.lobby.join")));
  const bot = el("select", { testid: "t-bot" }, ...(isGameTournament(tr) ? GAME_BOTS : THUE_BOTS).map((b) => el("option", { value: b }, b)));
  box.append(el("label", {}, `${t("app.room.bot")} `, bot),
    el("button", { type: "button", testid: "t-add-bot", onclick: () => act({ type: "join_tournament", bot: bot.value }) }, t("app.tour.add_bot")));
  if (myTournaments().includes(tr.tournament)) {
    box.append(el("button", { type: "button", testid: "t-start", disabled: (tr.entrants || []).length < 2,
      title: t("app.tour.start_help"), onclick: () => act({ type: "start_tournament" }) }, t("app.tour.start")));
  }
  return box;
}

/** Room id -> stored match id for a tournament's finished games, read from the first
 * seat's stored matches (a tournament game's room is its own). */
async function tournamentMatchIds(rounds) {
  const want = new Map(); // player name -> rooms to find
  for (const r of rounds) {
    for (const p of r.pairings || []) {
      const name = (p.seats || [])[0];
      if (!p.room || !p.result || p.result === "bye" || !name) continue;
      if (!want.has(name)) want.set(name, new Set());
      want.get(name).add(p.room);
    }
  }
  const ids = {};
  await Promise.all([...want].map(async ([name, rooms]) => {
    for (let page = 1; page <= 5 && rooms.size > 0; page++) {
      const j = await getJSON(`/api/matches?player=${enc(name)}&page=${page}`).catch(() => null);
      if (!j) return;
      for (const m of j.matches || []) if (rooms.delete(m.room)) ids[m.room] = m.match;
      if (page >= (j.pages || 1)) return;
    }
  }));
  return ids;
}

async function pageTournament(body, id) {
  const tr = await getJSON(`/api/tournaments/${enc(id)}`);
  // Asked for over the WebSocket too, its tournament_events come and redraw this page.
  if (conn.welcomed && !ui.watchedTours.has(id)) {
    ui.watchedTours.add(id);
    conn.request({ type: "get_tournament", tournament: id }).catch(() => ui.watchedTours.delete(id));
  }
  const clock = tr.clock ? ` · ${t("app.room.clock", { clock: fmtClock(tr.clock.initial_ms), inc: tr.clock.increment_ms / 1000 })}` : "";
  body.append(el("h2", { testid: "tournament-name" }, tr.name, " ", el("button", { type: "button", testid: "page-refresh", onclick: route }, t("app.lobby.refresh"))),
    el("p", { class: "small", testid: "tournament-info" }, `${tOr(`app.tour.format_${tr.format}`, {}, String(tr.format).replace("_", " "))} · ${isGameTournament(tr) ? optionsText(tr.game, tr.game_options) : `${t("app.game.thue")}, ${thueText(tr.variant, tr.k)}, ${t("app.room.round_ends_at", { count: tr.limit })}`}${clock} · ${tOr(`app.tour.status_${tr.status}`, {}, tr.status)} · ${t("app.tour.round_of", { round: tr.round, rounds: tr.rounds })} · ${t("app.tour.players_of", { n: tr.players, max: tr.max_players })}`),
    tournamentControls(tr),
    el("h3", {}, t("app.tour.entrants")));
  const ents = tr.entrants || [];
  body.append(ents.length === 0 ? el("p", { class: "empty", testid: "entrants" }, t("app.tour.no_entrants"))
    : el("ul", { class: "entrants", testid: "entrants" }, ...ents.map((e) =>
      el("li", { testid: `entrant-${e.name}` }, link(`#/matches/${enc(e.name)}`, e.name),
        e.kind === "bot" ? ` (${t("app.kind.bot")}) ` : "",
        // Anyone may take a bot's entry out of an open tournament (PROTOCOL.md section 9).
        e.kind === "bot" && tr.status === "open" && conn.welcomed
          ? el("button", { type: "button", class: "link", testid: `t-remove-${e.name}`,
            onclick: async () => { if (await send({ type: "leave_tournament", tournament: tr.tournament, bot: e.bot || e.name })) route(); } }, t("app.tour.remove"))
          : null))));
  body.append(el("h3", {}, t("app.tour.standings")));
  const st = tr.standings || [];
  body.append(st.length === 0 ? el("p", { class: "empty", testid: "standings" }, t("app.tour.no_standings"))
    : el("div", { class: "table-wrap", testid: "standings" }, table(["#", t("app.login.name"), t("app.tour.points"), el("abbr", { title: t("app.tour.buchholz_help") }, t("app.tour.buchholz")), el("abbr", { title: t("app.tour.berger_help") }, t("app.tour.berger")), t("app.ladder.games")],
      st.map((s) => [s.rank, s.name, s.points, s.buchholz, s.sonneborn_berger, s.games]))));
  body.append(el("h3", {}, t("app.room.rounds")));
  const rounds = tr.round_list || [];
  const ids = await tournamentMatchIds(rounds);
  if (rounds.length === 0) body.append(el("p", { class: "empty", testid: "rounds-list" }, t("app.tour.no_rounds")));
  rounds.forEach((r, i) => {
    body.append(el("h4", {}, t("app.tour.round_n", { round: i + 1 })));
    body.append(el("div", { class: "table-wrap" }, table([t("app.lobby.col_players"), t("app.tour.result"), t("app.lobby.game")], (r.pairings || []).map((p) => [
      (p.seats || []).map((n) => n === null ? t("app.tour.bye") : n).join(t("app.vs")),
      p.result ? tOr(`app.tour.result_${p.result}`, {}, p.result) : t("app.rounds.playing"),
      // A game being played can be watched; a finished one links to its replay.
      !p.room ? "" : p.result ? (ids[p.room] ? link(`#/match/${enc(ids[p.room])}`, t("app.replay.replay"), `t-replay-${p.room}`) : p.room)
        : myGame(p) ? el("button", { type: "button", testid: `t-play-${p.room}`, onclick: () => switchTo(p.room) }, t("app.tour.your_game"))
        : el("button", { type: "button", testid: `t-watch-${p.room}`, title: t("app.tour.room", { room: p.room }), onclick: () => watchRoom(p.room) }, t("app.lobby.watch")),
    ]))));
  });
}

/** Whether a pairing's game is one we are seated in now (so it can be put on screen). */
function myGame(p) {
  return Boolean(p.room && (ui.seated[p.room] || (ui.room === p.room && ui.state && ui.state.you !== null)));
}

function watchRoom(room) {
  if (!conn.welcomed) { showError({ message: t("app.tour.lobby_first") }); return; }
  location.hash = "";
  joinRoom(room, "", "spectate");
}

async function pageMatches(body, name, page = 1) {
  body.append(el("h2", {}, name ? t("app.matches.of", { name }) : t("app.matches.title")));
  if (!name) { body.append(el("p", { class: "empty" }, t("app.matches.lobby_first"))); return; }
  const j = await getJSON(`/api/matches?player=${enc(name)}&page=${page}`);
  const ms = j.matches || [];
  const pages = j.pages || 1;
  if (pages > 1) {
    const at = (n) => `#/matches/${enc(name)}?page=${n}`;
    body.append(el("p", { class: "pager", testid: "matches-pager" },
      page > 1 ? link(at(page - 1), t("app.pager.newer"), "matches-newer") : "",
      ` ${t("app.pager.page", { page: Math.min(page, pages), pages })} `,
      page < pages ? link(at(page + 1), t("app.pager.older"), "matches-older") : ""));
  }
  body.append(ms.length === 0 ? el("p", { class: "empty", testid: "matches" }, t("app.matches.none"))
    : el("div", { class: "table-wrap", testid: "matches" }, table([t("app.lobby.col_players"), t("app.lobby.game"), t("app.tour.result"), t("app.matches.ended"), el("span", { class: "visually-hidden" }, t("app.replay.replay"))], ms.map((m) => [
      m.players.map((p) => p.name).join(t("app.vs")),
      isGameRecord(m) ? `${optionsText(m.game, m.game_options)}${m.rated ? `, ${t("app.room.rated")}` : ""}` : `${t("app.game.thue")}, ${thueText(m.variant, m.k)}${m.rated ? `, ${t("app.room.rated")}` : ""}`,
      isGameRecord(m) ? resultWords(m.result, m.players.map(playerName)) : resultText(m.result, m.players.map(playerName), m.points),
      m.ended_at ? el("time", { dateTime: new Date(m.ended_at).toISOString() }, fmtDate(m.ended_at)) : "",
      link(`#/match/${enc(m.match)}`, t("app.replay.replay"), `replay-${m.match}`),
    ]))));
}

/** A result in words, the winner first and by name (names: the seats') with the winner's
 * points first ("nested:3 wins 14–11"); a draw in seat order. */
function resultText(result, names, points) {
  if (!result) return "";
  const w = result.winner;
  const how = REASONS[result.reason] ? ` ${REASONS[result.reason]}` : "";
  if (w === null) return `${t("app.result.draw")}${how}${points ? `: ${points[0]}–${points[1]}` : ""}`;
  const pts = points ? ` ${points[w]}–${points[1 - w]}` : "";
  return `${t("app.result.wins", { name: names[w] })}${pts}${how}`;
}

/** The word after the first `step` moves of a record: {round, word, placed, last}. */
function replayAt(rec, step) {
  let round = 0;
  let word = [0];
  let placed = null;
  for (let i = 0; i < step; i++) {
    const mv = rec.moves[i];
    if (mv.round !== round) { round = mv.round; word = [0]; placed = null; }
    if (mv.kind === "place") placed = mv.value;
    else { word.splice(placed === null ? word.length : placed, 0, mv.value); placed = null; }
  }
  return { round, word, placed, last: step > 0 ? rec.moves[step - 1] : null };
}

const replay = { rec: null, step: 0 };

async function pageMatch(body, id) {
  const rec = await getJSON(`/api/matches/${enc(id)}`);
  replay.rec = rec;
  replay.step = rec.moves.length;
  if (isGameRecord(rec)) { pageGameMatch(body, rec); return; }
  const o = rec.options;
  body.append(el("h2", {}, t("app.replay.title", { match: rec.match, players: rec.players.map((p) => playerName(p)).join(t("app.vs")) })),
    el("p", { class: "small", title: POINTS_HELP }, `${t("app.game.thue")}, ${thueText(o.variant, o.k)}, ${t("app.replay.rounds_end", { count: o.limit })}${o.rated ? ` · ${t("app.room.rated")}` : ""}${rec.tournament ? ` · ${t("app.replay.tournament_round", { tournament: rec.tournament, round: rec.tournament_round })}` : ""}`),
    el("p", { testid: "replay-result" }, `${resultText(rec.result, rec.players.map(playerName), rec.points)}.`));
  if (rec.ratings) {
    body.append(el("p", { class: "small" }, rec.ratings.map((r, i) => `${playerName(rec.players[i])}: ${Math.round(r.before)} → ${Math.round(r.after)}`).join(" · ")));
  }
  const btn = (tid, text, fn) => el("button", { type: "button", testid: tid, onclick: () => { fn(); renderReplay(); } }, text);
  body.append(el("div", { class: "actions" },
    btn("replay-first", t("app.replay.first"), () => (replay.step = 0)),
    btn("replay-prev", t("app.replay.prev"), () => (replay.step = Math.max(0, replay.step - 1))),
    btn("replay-next", t("app.replay.next"), () => (replay.step = Math.min(rec.moves.length, replay.step + 1))),
    btn("replay-last", t("app.replay.last"), () => (replay.step = rec.moves.length))),
  el("p", { class: "small" }, t("app.replay.keys")),
  el("p", { id: "replay-pos", testid: "replay-pos" }),
  el("p", { id: "replay-roles", testid: "replay-roles" }),
  el("div", { id: "replay-word", class: "word", testid: "replay-word" }),
  el("p", { id: "replay-rep", class: "small", testid: "replay-rep" }),
  el("div", { id: "replay-scores", testid: "replay-scores" }),
  el("p", {}, link(`/api/matches/${enc(rec.match)}/moves.csv`, "moves.csv"), " · ", link("#/analysis", t("app.replay.analyse"), "replay-analyse")),
  el("section", { id: "review", class: "review", testid: "review" }));
  renderReplay();
}

/** A repetition that ended a round, for people: "a square: 0 1 repeated, symbols 3 to 6"
 * (an overlap: the block twice and its first symbol again). */
function repetitionText(rep) {
  return t(rep.length > 2 * rep.period ? "app.replay.ended_overlap" : "app.replay.ended_square", { count: rep.period, from: rep.start + 1, to: rep.start + rep.length });
}

function wordTiles(box, word, k, rep) {
  word.forEach((sym, j) => {
    let cls = "";
    if (rep && j >= rep.start && j < rep.start + rep.length) {
      cls = j < rep.start + rep.period ? "rep rep-a" : "rep rep-b";
      if (j >= rep.start + 2 * rep.period) cls = "rep rep-a"; // an overlap's extra symbol
    }
    box.append(tile(sym, k, cls));
  });
}

function renderReplay() {
  if (reviewMod) reviewMod.reviewStep(replay.step);
  if (isGameRecord(replay.rec)) { renderGameRecord(); return; }
  const rec = replay.rec;
  if (!rec || !ui.page || ui.page.what !== "match" || !$("replay-word")) return;
  const n = rec.moves.length;
  const at = replayAt(rec, replay.step);
  const r = rec.rounds[at.round] || { builder: 0, points: 0 };
  const roundOver = replay.step === n || (rec.moves[replay.step] && rec.moves[replay.step].round !== at.round);
  const lm = at.last;
  $("replay-pos").textContent = `${t("app.replay.move_round", { step: replay.step, n, round: at.round + 1 })}${lm ? ` · ${t(lm.kind === "place" ? "app.replay.placed" : "app.replay.painted", { name: playerName(rec.players[lm.seat]), value: lm.value })} (${fmtThink(lm.think_ms)})` : ""}`;
  $("replay-pos").dataset.round = String(at.round);
  $("replay-pos").dataset.step = String(replay.step);
  $("replay-roles").textContent = t("app.replay.roles", { round: at.round + 1, builder: playerName(rec.players[r.builder]), painter: playerName(rec.players[1 - r.builder]) });
  const box = $("replay-word");
  box.textContent = "";
  const rep = roundOver && r.end === "repetition" ? r.repetition : null;
  const shown = at.word.slice();
  wordTiles(box, shown, rec.options.k, rep);
  if (at.placed !== null) {
    const q = el("span", { class: "tile placed-mark" }, "?");
    box.insertBefore(q, box.children[at.placed] || null);
  }
  $("replay-rep").textContent = rep ? repetitionText(rep)
    : roundOver ? t(r.end === "limit" ? "app.replay.round_limit" : "app.replay.round_ended", { round: at.round + 1, end: r.end }) : "";
  const sc = $("replay-scores");
  sc.textContent = "";
  rec.rounds.forEach((rr, i) => {
    const done = i < at.round || (i === at.round && roundOver);
    // Points are the painter's: credit them to the painter by name.
    sc.append(el("div", { class: "small", testid: `replay-score-${i}` }, t("app.replay.score", { round: i + 1, painter: playerName(rec.players[1 - rr.builder]), points: done ? t("app.points.short", { count: rr.points }) : "…", builder: playerName(rec.players[rr.builder]) })));
  });
  if (replay.step === n) sc.append(el("div", {}, el("strong", { testid: "replay-final" }, t("app.replay.final", { result: resultText(rec.result, rec.players.map(playerName), rec.points) }))));
  document.querySelector("[data-testid=replay-analyse]").href = matchAnalysisHash(rec.match, Math.min(n, replay.step + 1));
}

/** Thue's position (docs/games.md) after the first `step` moves of a record; between the
 * rounds, round 1's start. */
function thuePosition(rec, step) {
  const at = replayAt(rec, step);
  const first1 = rec.moves.findIndex((mv) => mv.round === 1);
  const over = step === rec.moves.length || (rec.moves[step] && rec.moves[step].round !== at.round);
  const word0 = () => replayAt(rec, first1 < 0 ? step : first1).word;
  if (over && at.round === 0) return { round: 1, step: "place", word: [0], placed: null, rounds: [{ word: word0() }] };
  const pos = { round: at.round, step: over ? "over" : at.placed !== null ? "paint" : "place", word: at.word, placed: at.placed };
  if (at.round === 1) pos.rounds = [{ word: word0() }];
  return pos;
}

/** A stored match as the analysis page walks it: its game and options, the players'
 * names, every move in the board's words with the JSON an analysis names it by, and
 * positions[i], the position after the first i moves (i = 0..n). */
function matchLine(rec) {
  const names = rec.players.map(playerName);
  if (!isGameRecord(rec)) {
    const o = rec.options;
    return { game: "thue", options: { variant: o.variant, k: o.k, limit: o.limit }, names,
      positions: Array.from({ length: rec.moves.length + 1 }, (_, i) => thuePosition(rec, i)),
      moves: rec.moves.map((mv) => ({ seat: mv.seat, move: mv.kind === "place" ? { place: mv.value } : { paint: mv.value },
        text: t(mv.kind === "place" ? "app.an.placed" : "app.an.painted", { n: String(mv.value) }) })) };
  }
  const positions = [rec.start];
  for (const mv of rec.moves) positions.push(applyMove(rec.game, positions[positions.length - 1], mv.move));
  return { game: rec.game, options: rec.game_options, names, positions,
    moves: rec.moves.map((mv, i) => ({ seat: mv.seat, move: mv.move, text: moveText(rec.game, mv.move, positions[i]) })) };
}

function onReplayKey(ev) {
  if (!ui.page || ui.page.what !== "match" || !replay.rec) return false;
  const t = ev.target;
  if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return false;
  const n = replay.rec.moves.length;
  if (ev.key === "ArrowLeft") replay.step = Math.max(0, replay.step - 1);
  else if (ev.key === "ArrowRight") replay.step = Math.min(n, replay.step + 1);
  else if (ev.key === "Home") replay.step = 0;
  else if (ev.key === "End") replay.step = n;
  else return false;
  ev.preventDefault();
  renderReplay();
  return true;
}

// ---- the other games (games.js): Nim, Rims, Northcott's game, the circle game ------------
// A room of another game has options.game; its match carries the game's state, and a move
// is {"type":"move","move":{...}}. The page keeps every state of the match it receives, so
// a finished match can be stepped through on the board (First, Previous, Next, Last, or
// the arrow keys).

function isGame(s) {
  return Boolean(s && s.options && s.options.game && s.options.game !== "thue");
}

/** Shows the Thue board's parts, or the other games' board. */
function showThueParts(thue) {
  for (const id of ["word", "palette", "digits", "rounds-section"]) $(id).hidden = !thue;
  if (!thue) { $("mark-wrap").hidden = true; $("round-banner").hidden = true; }
  for (const id of ["gboard", "gboard-hint"]) $(id).hidden = thue;
  if (thue) $("greplay").hidden = true;
}

/** The player (0 white, moves first; 1 black) of a seat. */
function playerOf(m, seat) {
  return seat === m.first ? 0 : 1;
}

/** Keeps a state of another game's match (once per move number). */
function keepGameState(s) {
  const m = s.match;
  if (!m || !m.state || (s.options && !isGame(s))) return;
  let e = ui.gstates[s.room];
  if (!e || e.number !== m.number) e = ui.gstates[s.room] = { number: m.number, list: [] };
  const top = e.list[e.list.length - 1];
  if (top && top.moves >= m.moves) return;
  e.list.push({ moves: m.moves, state: m.state, last: m.last_move || null });
}

/** The kept states of the match on screen, or an empty list. */
function keptStates(s) {
  const e = ui.gstates[s.room];
  return e && s.match && e.number === s.match.number ? e.list : [];
}

function renderGameRoom() {
  const s = ui.state;
  const o = s.options;
  const m = s.match;
  const game = o.game;
  const clock = o.clock ? t("app.room.clock", { clock: fmtClock(o.clock.initial_ms), inc: o.clock.increment_ms / 1000 }) : t("app.room.no_clock");
  const code = ui.invites[s.room];
  $("invite-box").hidden = !(o.private && code);
  if (o.private && code) $("invite-link").value = inviteLink(s.room, code);
  $("room-info").title = gameInfo(game).summary;
  $("room-info").textContent = `${optionsText(game, o.game_options)} · ${clock}${o.rated ? ` · ${t("app.room.rated")}` : ""} · ${t("app.room.watching", { count: s.spectators })} · ${s.you === null ? t("app.room.you_watch") : t("app.room.you_play")}`;
  $("sound-wrap").hidden = s.you === null;

  for (const seat of [0, 1]) {
    const p = s.players[seat];
    const box = $(`seat-${seat}`);
    box.textContent = "";
    box.classList.toggle("to-move", Boolean(m && m.to_move === seat));
    box.classList.toggle("mine", s.you === seat);
    box.append(el("div", { class: "seat-name" }, seatName(s, seat)));
    const bits = [];
    const level = botLevel(s, p);
    if (level) bits.push(level.engine); // the engine, in small print
    if (m) bits.push(playerOf(m, seat) === 0 ? t("app.seat.moves_first", { colour: colourName(game, 0) }) : colourName(game, 1));
    if (p && !p.connected) bits.push(t("app.seat.disconnected"));
    if (p && !m && p.ready) bits.push(t("app.seat.ready"));
    const rating = seatRating(s, seat);
    if (rating) bits.push(rating);
    box.append(el("div", { class: "small", testid: `role-${seat}` }, bits.join(" · ")));
    if (m) box.dataset.colour = COLOUR[playerOf(m, seat)];
    if (p && !p.connected && p.away_left_ms !== undefined) box.append(el("div", { class: "away", testid: `away-${seat}`, id: `away-${seat}` }));
    // A one-game match's point is its win: shown once the match is over, not as "0 pt".
    if (m && m.step === "over") box.append(el("div", { class: "points", testid: `points-${seat}` }, t("app.points.short", { count: m.points[seat] })));
    if (m && m.clocks) box.append(el("div", { class: "clock", testid: `clock-${seat}`, id: `clock-${seat}` }, fmtClock(m.clocks[seat])));
  }

  let turn;
  const mine = myTurn("move");
  if (!m) turn = waitingText(s);
  else if (m.step === "over") turn = t("app.turn.over");
  else if (mine) turn = t("app.turn.you_move", { colour: colourName(game, playerOf(m, s.you)), hint: moveHint(game) });
  else turn = t("app.turn.they_move", { name: nameIn(s, s.players[m.to_move]), colour: colourName(game, playerOf(m, m.to_move)) });
  $("turn").textContent = turn;
  $("turn").classList.toggle("yours", mine);
  if (m && m.thinking !== null) $("turn").append(el("span", { class: "thinking", testid: "thinking" }, ` ${t("app.turn.thinking")}`));
  noticeTurn(s, mine);

  const lm = m && m.last_move;
  const before = lm ? keptStates(s).find((k) => k.moves === m.moves - 1) : null;
  $("last-move").textContent = lm ? `${t("app.last.move", { name: nameIn(s, s.players[lm.seat]), move: moveText(game, lm.move, before ? before.state : null) })}${thinkOf(s, lm)}` : "";

  if (!m || m.step !== "over") ui.greplay = null;
  renderGameBoard();
  renderButtons();
  renderChat();
  tickClocks();
}

/** What the board shows: the current state, or (after the match) the replay's step. */
function shownGameState() {
  const s = ui.state;
  const m = s.match;
  const list = keptStates(s);
  if (m.step === "over" && ui.greplay && ui.greplay.room === s.room && ui.greplay.number === m.number && list[ui.greplay.step]) {
    const i = ui.greplay.step;
    return { state: list[i].state, last: list[i].last, prev: i > 0 && list[i - 1].moves === list[i].moves - 1 ? list[i - 1].state : null, replaying: i < list.length - 1 };
  }
  const i = list.findIndex((k) => k.moves === m.moves);
  const prev = i > 0 && list[i - 1].moves === m.moves - 1 ? list[i - 1].state : null;
  return { state: m.state, last: m.last_move, prev, replaying: false };
}

function renderGameBoard() {
  const s = ui.state;
  const m = s.match;
  const box = $("gboard");
  const focused = document.activeElement && box.contains(document.activeElement) ? document.activeElement.dataset.testid || "" : null;
  renderGameReplay();
  if (!m) {
    box.textContent = "";
    box.append(el("p", { class: "small" }, s.options.auto_start ? t("app.board.when_begins") : t("app.board.when_ready")));
    return;
  }
  const shown = shownGameState();
  const game = s.options.game;
  const active = myTurn("move");
  if (!active && ui.gsel && m.step === "over") ui.gsel = null;
  drawBoard(box, {
    game, state: shown.state, player: s.you === null ? null : playerOf(m, s.you), active,
    over: m.step === "over", last: shown.last ? shown.last.move : null, prev: shown.prev, sel: ui.gsel,
    onMove: sendGameMove, onSelect: (sel) => { ui.gsel = sel; gameHint(); renderGameBoard(); },
  });
  box.dataset.turn = active ? "mine" : m.step === "over" ? "over" : "theirs";
  box.dataset.moves = String(m.moves);
  box.dataset.shown = String(shown.state.moves);
  gameHint();
  if (focused !== null) {
    const again = focused ? box.querySelector(`[data-testid="${CSS.escape(focused)}"]:not([disabled])`) : null;
    (again || box).focus();
  }
}

function gameHint(text) {
  const hint = $("gboard-hint");
  if (text !== undefined) { hint.textContent = text; hint.dataset.kind = "error"; return; }
  const sel = ui.gsel;
  hint.dataset.kind = "";
  hint.textContent = !sel ? ""
    : sel.kind === "row" ? t("app.ghint.row", { row: sel.row + 1 })
    : sel.kind === "field" ? t("app.ghint.field", { field: sel.from })
    : sel.kind === "dir" ? t("app.ghint.dir", { field: sel.to })
    : sel.kind === "rims" ? t("app.ghint.rims") : "";
}

/** Sends another game's move; a refused one leaves the server's sentence under the board
 * and at the top. */
async function sendGameMove(mv) {
  const s = ui.state;
  if (!s || !s.match || s.match.step === "over" || s.you === null || ui.busy) return;
  if (!mv) { gameHint(t("app.ghint.first")); return; }
  ui.gsel = null;
  ui.busy = true;
  renderGameBoard();
  try {
    await conn.request({ type: "move", room: ui.room, move: mv });
  } catch (e) {
    ui.busy = false;
    showError(e);
    if (ui.state) renderGame();
    gameHint(reasonText(e));
  }
}

/** After the match: step through the states this page kept. */
function renderGameReplay() {
  const s = ui.state;
  const m = s.match;
  const box = $("greplay");
  const list = keptStates(s);
  if (!m || m.step !== "over" || list.length < 2) { box.hidden = true; box.textContent = ""; return; }
  const n = list.length - 1;
  const step = ui.greplay && ui.greplay.room === s.room && ui.greplay.number === m.number ? ui.greplay.step : n;
  const go = (k) => { ui.greplay = { room: s.room, number: m.number, step: Math.max(0, Math.min(n, k)) }; renderGameRoom(); };
  box.hidden = false;
  box.textContent = "";
  const at = list[step];
  const lm = at.last;
  const who = lm ? nameIn(s, s.players[lm.seat]) : "";
  const prev = step > 0 ? list[step - 1].state : null;
  box.append(el("div", { class: "actions" },
    el("button", { type: "button", testid: "g-replay-first", disabled: step === 0, onclick: () => go(0) }, t("app.replay.first")),
    el("button", { type: "button", testid: "g-replay-prev", disabled: step === 0, onclick: () => go(step - 1) }, t("app.replay.prev")),
    el("button", { type: "button", testid: "g-replay-next", disabled: step === n, onclick: () => go(step + 1) }, t("app.replay.next")),
    el("button", { type: "button", testid: "g-replay-last", disabled: step === n, onclick: () => go(n) }, t("app.replay.last"))),
  el("p", { class: "small", testid: "g-replay-pos" },
    `${t("app.greplay.move", { at: at.moves, n: list[n].moves })}${lm ? `: ${who} ${moveText(s.options.game, lm.move, prev)}` : ` ${t("app.greplay.start")}`}` +
    `${list[0].moves > 0 ? ` · ${t("app.greplay.seen_from", { move: list[0].moves })}` : ""} · ${t("app.greplay.keys")}`));
  box.dataset.step = String(at.moves);
}

function onGameReplayKey(ev) {
  const s = ui.state;
  if (!s || !isGame(s) || onPage() || $("game").hidden || !s.match || s.match.step !== "over" || $("greplay").hidden) return false;
  const t = ev.target;
  if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return false;
  const n = keptStates(s).length - 1;
  const cur = ui.greplay && ui.greplay.room === s.room && ui.greplay.number === s.match.number ? ui.greplay.step : n;
  let k;
  if (ev.key === "ArrowLeft") k = cur - 1;
  else if (ev.key === "ArrowRight") k = cur + 1;
  else if (ev.key === "Home") k = 0;
  else if (ev.key === "End") k = n;
  else return false;
  ev.preventDefault();
  ui.greplay = { room: s.room, number: s.match.number, step: Math.max(0, Math.min(n, k)) };
  renderGameRoom();
  return true;
}

// A stored match of another game (GET /api/matches/ID: start, moves, final; PROTOCOL.md
// section 13): its states are rebuilt from the start by games.js applyMove, and shown on
// the same board as in a room, stepped as Thue's replay is.

function isGameRecord(rec) {
  return Boolean(rec && rec.game && rec.game !== "thue");
}

function pageGameMatch(body, rec) {
  replay.states = matchLine(rec).positions;
  const names = rec.players.map(playerName);
  const white = names[rec.first];
  body.append(el("h2", {}, t("app.replay.title", { match: rec.match, players: names.join(t("app.vs")) })),
    el("p", { class: "small" }, `${optionsText(rec.game, rec.game_options)}${rec.rated ? ` · ${t("app.room.rated")}` : ""} · ${t("app.replay.white_first", { name: white })}${rec.tournament ? ` · ${t("app.replay.tournament", { tournament: rec.tournament })}` : ""}`),
    el("p", { testid: "replay-result" }, resultWords(rec.result, names)));
  if (rec.ratings) body.append(el("p", { class: "small" }, rec.ratings.map((r, i) => `${playerName(rec.players[i])}: ${Math.round(r.before)} → ${Math.round(r.after)}`).join(" · ")));
  const btn = (tid, text, fn) => el("button", { type: "button", testid: tid, onclick: () => { fn(); renderReplay(); } }, text);
  const n = rec.moves.length;
  body.append(el("div", { class: "actions" },
    btn("replay-first", t("app.replay.first"), () => (replay.step = 0)),
    btn("replay-prev", t("app.replay.prev"), () => (replay.step = Math.max(0, replay.step - 1))),
    btn("replay-next", t("app.replay.next"), () => (replay.step = Math.min(n, replay.step + 1))),
    btn("replay-last", t("app.replay.last"), () => (replay.step = n))),
  el("p", { class: "small" }, t("app.replay.keys")),
  el("p", { id: "replay-pos", testid: "replay-pos" }),
  el("div", { id: "replay-board", class: "gboard", testid: "replay-board" }),
  el("p", { id: "replay-final", class: "small", testid: "replay-final" }),
  el("p", {}, link(`/api/matches/${enc(rec.match)}/moves.csv`, "moves.csv"), " · ", link("#/analysis", t("app.replay.analyse"), "replay-analyse")),
  el("section", { id: "review", class: "review", testid: "review" }));
}

// The match's exact review under its replay (review.js, loaded on the first replay).
let reviewMod = null;
async function startReview() {
  const rec = replay.rec;
  if (!rec || !$("review")) return;
  reviewMod = reviewMod || await import("./review.js");
  reviewMod.reviewSection($("review"), rec, {
    getJSON, moveText, names: rec.players.map(playerName), states: isGameRecord(rec) ? replay.states : [],
    onStep: (i) => { replay.step = i; renderReplay(); },
  });
}

function renderGameRecord() {
  const rec = replay.rec;
  if (!ui.page || ui.page.what !== "match" || !$("replay-board")) return;
  const i = replay.step;
  const mv = i > 0 ? rec.moves[i - 1] : null;
  const names = rec.players.map(playerName);
  $("replay-pos").textContent = `${t("app.replay.move", { i, n: rec.moves.length })}${mv ? ` · ${names[mv.seat]} ${moveText(rec.game, mv.move, replay.states[i - 1])} (${fmtThink(mv.think_ms)})` : ` · ${t("app.replay.the_start")}`}`;
  $("replay-pos").dataset.step = String(i);
  drawBoard($("replay-board"), { game: rec.game, state: replay.states[i], player: null, active: false, over: true, last: mv ? mv.move : null, prev: i > 0 ? replay.states[i - 1] : null, sel: null, onMove: () => {}, onSelect: () => {} });
  $("replay-final").textContent = i === rec.moves.length ? t("app.replay.final", { result: resultWords(rec.result, names) }) : "";
  document.querySelector("[data-testid=replay-analyse]").href = matchAnalysisHash(rec.match, Math.min(rec.moves.length, i + 1));
}

// The fields of another game's options, one per option from the game's list: the room
// form's (ids go-NAME), the tournament form's (tgo-NAME) and the ladder's pool (lgo-NAME,
// only the options that name a pool). Each field has its error line (ID-err).

/** Draws game's option fields into box with ids prefix + name: every option, or those
 * named in only; a field starts from values[name] when given, else the default. */
function gameOptionFields(box, game, prefix, { only = null, values = {}, help = true } = {}) {
  const info = gameInfo(game);
  for (const o of info.options) {
    if (only && !only.includes(o.name)) continue;
    const id = `${prefix}${o.name}`;
    const err = el("span", { class: "field-error", id: `${id}-err`, testid: `${id}-err` });
    const has = values[o.name] !== undefined;
    let input;
    if (o.type === "boolean") {
      input = el("input", { id, type: "checkbox", checked: has ? Boolean(values[o.name]) : Boolean(o.default) });
      input.dataset.testid = id;
      box.append(el("label", { class: "check", title: o.help }, input, ` ${tOr(`app.optlabel.${o.name}`, {}, o.name)}`, err));
      continue;
    }
    input = el("input", { id, value: has ? String(values[o.name]) : fieldText(o), title: o.help, ...(o.type === "integer" ? { inputMode: "numeric" } : {}) });
    input.dataset.testid = id;
    input.setAttribute("aria-describedby", help ? `${id}-err ${id}-help` : `${id}-err`);
    const label = tOr([`app.optlabel.${game}.${o.name}`, `app.optlabel.${o.name}`], {}, o.name);
    box.append(el("label", {}, label, input, help ? el("span", { class: "small", id: `${id}-help` }, o.help) : null, err));
  }
}

/** Reads and checks the fields gameOptionFields drew (in root, the document by default):
 * {options, problems}, each problem also written beside its field. */
function readGameOptions(game, prefix, root = document) {
  const info = gameInfo(game);
  const field = (name) => root.querySelector(`[id="${prefix}${name}"]`);
  const raw = {};
  for (const o of info.options) {
    const f = field(o.name);
    if (f) raw[o.name] = f.type === "checkbox" ? f.checked : f.value;
  }
  const { options, errors } = checkOptions(game, raw);
  const problems = []; // only the fields drawn count (the ladder draws a pool's few)
  for (const o of info.options) {
    const f = field(o.name);
    if (!f) continue;
    const e = root.querySelector(`[id="${prefix}${o.name}-err"]`);
    if (e) e.textContent = errors[o.name] || "";
    if (errors[o.name]) { f.setAttribute("aria-invalid", "true"); problems.push(errors[o.name]); } else f.removeAttribute("aria-invalid");
  }
  return { options, problems };
}

/** Writes the server's refusal beside the option field it names (game_options/heaps). */
function showOptionError(e, prefix, root = document) {
  const name = e && typeof e.field === "string" ? e.field.replace(/^game_options\//, "").split("/")[0] : "";
  const at = name && root.querySelector(`[id="${prefix}${name}-err"]`);
  if (at) at.textContent = reasonText(e);
}

// The room form's fields for another game.
function renderGameOptionsForm() {
  const game = $("c-game").value;
  const thue = game === "thue";
  for (const e of document.querySelectorAll("#create-form .thue-only")) e.hidden = !thue;
  $("c-first-label").textContent = thue ? t("app.create.first_builder") : t("app.create.first_white");
  $("c-error").textContent = "";
  const box = $("c-game-options");
  box.textContent = "";
  box.hidden = thue;
  if (thue) return;
  const info = gameInfo(game);
  if (info.summary) box.append(el("p", { class: "small form-help", testid: "c-game-summary" }, info.summary));
  gameOptionFields(box, game, "go-");
}

/** The create form's values for another game, checked here first; the server's refusal
 * shows beside its field too. */
async function createGameRoom() {
  const game = $("c-game").value;
  const { options, problems } = readGameOptions(game, "go-");
  $("c-error").textContent = problems.length ? t("app.create.check", { problems: problems.join(" ") }) : "";
  if (problems.length) return;
  const msg = {
    type: "create_room", game, game_options: options, first_builder: $("c-first").value,
    rated: $("c-rated").checked, private: $("c-private").checked, seat: $("c-seat").checked,
  };
  const minutes = Number($("c-clock").value);
  if (minutes > 0) msg.clock = { initial_ms: Math.round(minutes * 60000), increment_ms: Math.round(Number($("c-inc").value) * 1000) };
  if ($("c-name").value.trim()) msg.name = $("c-name").value.trim();
  ui.room = null;
  ui.state = null;
  let r;
  try {
    r = await conn.request(msg);
  } catch (e) {
    showError(e);
    $("c-error").textContent = t("app.create.refused", { why: reasonText(e) });
    showOptionError(e, "go-");
    return;
  }
  if (r.invite) rememberInvite(r.room, r.invite);
  ui.room = r.room;
}

const THUE_BOTS = ["greedy", "nested:1", "nested:2", "nested:3", "uct", "perfect"];
const GAME_BOTS = ["perfect", "random", "uct:iterations=2000"];
const OWN_BOTS = { dots: ["strong", "heuristic"] }; // a game's own bots (game.h's bots)

/** The bot form lists the bots of the room's kind. */
function botChoices(game) {
  const sel = $("bot-spec");
  const own = (game && OWN_BOTS[game]) || [];
  const want = game ? own.concat(GAME_BOTS) : THUE_BOTS;
  if (sel.dataset.kind === (game ? `game:${own.join()}` : "thue")) return;
  sel.dataset.kind = game ? `game:${own.join()}` : "thue";
  sel.textContent = "";
  for (const b of want) sel.append(el("option", { value: b, selected: b === (game ? own[0] || "perfect" : "nested:1") }, b));
}

function wireGames() {
  const quickGame = () => { for (const e of document.querySelectorAll("#quick-form .q-thue-only")) e.hidden = $("q-game").value !== "thue"; };
  const fill = () => {
    for (const id of ["c-game", "l-game", "q-game"]) {
      const sel = $(id);
      const keep = sel.value;
      sel.textContent = "";
      sel.append(el("option", { value: "thue" }, t("app.game.thue")));
      for (const g of games()) sel.append(el("option", { value: g.name }, g.title));
      sel.value = [...sel.options].some((x) => x.value === keep) ? keep : "thue";
    }
    renderGameOptionsForm();
    quickGame();
  };
  fill();
  const before = JSON.stringify(games());
  loadGames().then(() => { if (JSON.stringify(games()) !== before) { fill(); renderCards(); } }); // the server's list
  $("c-game").addEventListener("change", renderGameOptionsForm);
  $("l-game").addEventListener("change", refreshRooms);
  $("q-game").addEventListener("change", quickGame);
  $("gboard").addEventListener("keydown", (ev) => {
    boardKey(ev, $("gboard"), () => {
      if (!ui.gsel) return false;
      ui.gsel = null;
      renderGameBoard();
      $("gboard").focus();
      return true;
    });
  });
}

// ---- accounts -------------------------------------------------------------------------

async function claimName() {
  if (!ui.me) return;
  const r = await send({ type: "claim_name", name: ui.me.name });
  if (!r) return;
  conn.token = r.token;
  ui.me = { ...ui.me, name: r.name, kind: "account" };
  renderMe();
  const box = $("account-box");
  box.hidden = false;
  box.textContent = "";
  box.append(el("div", {}, el("strong", {}, t("app.account.claimed", { name: r.name }))),
    el("div", {}, t("app.account.token_once")),
    el("code", { testid: "account-token", class: "token" }, r.token),
    el("div", { class: "small" }, el("button", { type: "button", testid: "copy-token", onclick: (ev) => copyToken(ev.target, r.token) }, t("app.room.copy")),
      ` ${t("app.account.remembered")}`),
    el("button", { type: "button", class: "link", onclick: () => { box.hidden = true; box.textContent = ""; } }, t("app.account.done")));
}

/** Copies the token to the clipboard; where the page may not (plain http on another
 * host), selects it for Ctrl+C instead. */
async function copyToken(button, token) {
  try {
    await navigator.clipboard.writeText(token);
    button.textContent = t("app.copy.copied");
  } catch {
    const range = document.createRange();
    range.selectNodeContents($("account-box").querySelector(".token"));
    const sel = getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    button.textContent = t("app.copy.selected");
  }
}

/** The first screen's "I have an account": in as a guest, on to the lobby's log-in form. */
async function haveAccount() {
  const name = $("name").value.trim();
  enterLobby();
  if (!conn.welcomed) {
    conn.name = ""; conn.resume = ""; conn.token = ""; // a guest session first: login needs one
    await whenWelcomed();
  }
  if (name) $("pw-name").value = name;
  $(name ? "pw-password" : "pw-name").focus();
}

/** login (PROTOCOL.md section 9, passwords): the session becomes the account's; the page
 * keeps its new token (and resume token), so a reload stays logged in. */
async function passwordLogin(ev) {
  ev.preventDefault();
  const err = $("pw-login-error");
  const name = $("pw-name").value.trim(), password = $("pw-password").value;
  err.textContent = "";
  if (!name || !password) { err.textContent = t("app.account.need_both"); return; }
  let r;
  ui.adoptRunning = true; // the account's rooms follow: only a running match comes on screen
  try {
    r = await conn.request({ type: "login", name, password });
  } catch (e) {
    err.textContent = errorText(e);
    $("pw-password").select();
    return;
  }
  $("pw-password").value = "";
  conn.token = r.token;
  if (r.resume) conn.resume = r.resume;
  conn.name = r.name;
  ui.me = { ...ui.me, name: r.name, kind: "account" };
  renderMe();
  refreshRooms();
}

/** set_password: sets the account's password, or changes it (the current one asked). */
async function setPassword(ev) {
  ev.preventDefault();
  const st = $("pw-set-status");
  const old = $("pw-old").value, pw = $("pw-new").value;
  st.textContent = "";
  if ([...pw].length < 8) { st.textContent = t("app.account.pw_short"); return; }
  const msg = { type: "set_password", password: pw };
  if (old) msg.old_password = old;
  try {
    await conn.request(msg);
  } catch (e) {
    st.textContent = e.field === "old_password"
      ? (e.code === "bad_password" ? t("app.account.pw_wrong") : t("app.account.pw_needed"))
      : errorText(e);
    (e.field === "old_password" ? $("pw-old") : $("pw-new")).focus();
    return;
  }
  $("pw-old").value = "";
  $("pw-new").value = "";
  st.textContent = t("app.account.pw_done", { name: ui.me ? ui.me.name : t("app.account.you") });
}

function renderMe() {
  if (!ui.me) return;
  $("me").textContent = ui.me.name;
  $("me-kind").textContent = `(${tOr(`app.kind.${ui.me.kind}`, {}, ui.me.kind)})`;
  $("claim").hidden = ui.me.kind !== "guest";
  $("pw-login-form").hidden = ui.me.kind !== "guest";
  $("pw-set").hidden = ui.me.kind !== "account";
  $("my-matches").href = `#/matches/${enc(ui.me.name)}`;
  for (const id of ["c-rated", "q-rated"]) { // every game may be rated; accounts only
    const rated = $(id);
    rated.disabled = ui.me.kind !== "account";
    if (rated.disabled) rated.checked = false;
    rated.title = rated.disabled ? t("app.create.rated_claim") : "";
  }
}

// ---- the game view --------------------------------------------------------------------

function myTurn(step) {
  const s = ui.state;
  return s && s.match && !ui.busy && !holding() && s.you !== null && s.match.step === step && s.match.to_move === s.you;
}

// ---- the end of round 1 on the board itself -----------------------------------------------
// When round 1 ends the board keeps its final word, the repetition outlined, under a banner
// with the points, for ROUND_HOLD_MS before round 2 is shown; unless the player must build
// first in round 2 against a clock (the hold would cost them time): then only the banner.

const ROUND_HOLD_MS = 2500;
const BANNER_MS = 6000;
const roundEnd = { key: null, until: 0, bannerUntil: 0 };

/** Called with each room_state before it replaces prev: notices round 1's end. */
function noticeRoundEnd(prev, next) {
  const a = prev && prev.match, b = next.match;
  if (!a || !b || prev.room !== next.room || a.number !== b.number || isGame(next)) return;
  if (!(a.round === 0 && b.round === 1) && !(a.step !== "over" && b.step === "over")) return;
  const key = `${next.room}/${b.number}/${a.round}`;
  if (roundEnd.key === key) return;
  const now = performance.now();
  const clocked = b.clocks !== null && b.step !== "over" && next.you !== null && b.to_move === next.you;
  Object.assign(roundEnd, { key, round: a.round, until: b.step === "over" || clocked ? 0 : now + ROUND_HOLD_MS, bannerUntil: now + BANNER_MS });
  if (roundEnd.until) setTimeout(() => { if (ui.state) renderGame(); }, ROUND_HOLD_MS + 20);
  setTimeout(() => { if (ui.state) renderWord(); }, BANNER_MS + 20);
}

function holding() {
  const s = ui.state;
  return Boolean(s && s.match && roundEnd.key === `${s.room}/${s.match.number}/0` && performance.now() < roundEnd.until);
}

/** The banner of a round that just ended: who scored what, and what ended it. */
function renderRoundBanner() {
  const s = ui.state;
  const m = s && s.match;
  const banner = $("round-banner");
  const shown = m && roundEnd.key === `${s.room}/${m.number}/${roundEnd.round}` && performance.now() < roundEnd.bannerUntil;
  banner.hidden = !shown;
  if (!shown) return;
  const r = m.rounds[roundEnd.round];
  const painter = nameIn(s, s.players[1 - r.builder]);
  const why = r.end === "repetition" && r.repetition
    ? t(r.repetition.length === 2 * r.repetition.period ? "app.banner.square" : "app.banner.overlap", { word: r.word.slice(r.repetition.start, r.repetition.start + r.repetition.length).join(" ") })
    : r.end === "limit" ? t("app.banner.limit") : r.end === "forfeit" ? t("app.banner.forfeit") : t("app.banner.ended");
  const next = roundEnd.round === 0 && m.step !== "over"
    ? ` ${t("app.banner.round2", { builder: nameIn(s, s.players[m.rounds[1].builder]), painter: nameIn(s, s.players[1 - m.rounds[1].builder]) })}`
    : "";
  banner.textContent = `${t("app.banner.over", { round: roundEnd.round + 1, name: painter, count: r.points, why })}${next}`;
}

function tile(sym, k, extraClass = "") {
  const c = symbolColour(sym, k);
  const t = el("span", { class: `tile ${extraClass}` }, String(sym));
  t.style.setProperty("background-color", c.bg);
  t.style.setProperty("color", c.fg);
  return t;
}

function renderGame() {
  const s = ui.state;
  if (!s) return;
  const o = s.options;
  const m = s.match;
  $("room-title").textContent = s.name;
  renderNews(s);
  $("game").dataset.room = s.room;
  $("game").dataset.status = s.status;
  $("game").dataset.game = o.game || "thue";
  showThueParts(!isGame(s));
  if (isGame(s)) { renderGameRoom(); return; }
  const clock = o.clock ? t("app.room.clock", { clock: fmtClock(o.clock.initial_ms), inc: o.clock.increment_ms / 1000 }) : t("app.room.no_clock");
  const code = ui.invites[s.room];
  $("invite-box").hidden = !(o.private && code);
  if (o.private && code) $("invite-link").value = inviteLink(s.room, code);
  $("room-info").title = POINTS_HELP;
  $("room-info").textContent = `${t("app.game.thue")}, ${thueText(o.variant, o.k)}, ${t("app.room.round_ends_at", { count: o.limit })} · ${clock}${o.rated ? ` · ${t("app.room.rated")}` : ""} · ${t("app.room.watching", { count: s.spectators })} · ${s.you === null ? t("app.room.you_watch") : t("app.room.you_play")}`;

  for (const seat of [0, 1]) {
    const p = s.players[seat];
    const box = $(`seat-${seat}`);
    box.textContent = "";
    box.classList.toggle("to-move", Boolean(m && m.to_move === seat));
    box.classList.toggle("mine", s.you === seat);
    const role = m ? (m.builder === seat ? t("app.role.builder") : t("app.role.painter")) : "";
    box.append(el("div", { class: "seat-name" }, seatName(s, seat)));
    const bits = [];
    const level = botLevel(s, p);
    if (level) bits.push(level.engine); // the engine, in small print
    if (role) bits.push(role);
    if (p && !p.connected) bits.push(t("app.seat.disconnected"));
    if (p && !m && p.ready) bits.push(t("app.seat.ready"));
    const rating = seatRating(s, seat);
    if (rating) bits.push(rating);
    box.append(el("div", { class: "small", testid: `role-${seat}` }, bits.join(" · ")));
    if (p && !p.connected && p.away_left_ms !== undefined) {
      box.append(el("div", { class: "away", testid: `away-${seat}`, id: `away-${seat}` }));
    }
    if (m) box.append(el("div", { class: "points", testid: `points-${seat}` }, t("app.points.short", { count: m.points[seat] })));
    if (m && m.clocks) box.append(el("div", { class: "clock", testid: `clock-${seat}`, id: `clock-${seat}` }, fmtClock(m.clocks[seat])));
  }

  // whose turn
  let turn = "";
  if (!m) turn = waitingText(s);
  else if (m.step === "over") turn = t("app.turn.over");
  else {
    const who = s.players[m.to_move];
    if (myTurn("place")) turn = t("app.turn.you_place", { round: m.round + 1 });
    else if (myTurn("paint")) turn = t("app.turn.you_paint", { round: m.round + 1 });
    else turn = t(m.step === "place" ? "app.turn.they_place" : "app.turn.they_paint", { round: m.round + 1, name: nameIn(s, who) });
  }
  $("turn").textContent = turn;
  $("turn").classList.toggle("yours", myTurn("place") || myTurn("paint"));
  if (m && m.thinking !== null) $("turn").append(el("span", { class: "thinking", testid: "thinking" }, ` ${t("app.turn.thinking")}`));

  const lm = m && m.last_move;
  $("last-move").textContent = lm
    ? `${t(lm.kind === "place" ? "app.last.placed" : "app.last.painted", { name: nameIn(s, s.players[lm.seat]), value: lm.value })}${thinkOf(s, lm)}`
    : "";

  renderWord();
  renderPalette();
  renderRounds();
  renderButtons();
  renderChat();
  tickClocks();
}

/** The address that joins room with its invite code in one click. */
function inviteLink(room, code) {
  return `${location.origin}${location.pathname}#/room/${enc(room)}?code=${enc(code)}`;
}

async function copyInvite() {
  const button = $("invite-copy");
  const field = $("invite-link");
  try {
    await navigator.clipboard.writeText(field.value);
    button.textContent = t("app.copy.copied");
  } catch { // no clipboard here (plain http from another host): select it for Ctrl+C
    field.focus();
    field.select();
    button.textContent = t("app.copy.selected");
  }
  clearTimeout(copyInvite.timer);
  copyInvite.timer = setTimeout(() => (button.textContent = t("app.room.copy")), 4000);
}

/** A seat's rating for its card: after a rated match the new one from match_end (the
 * room_state before it still has the old), with the change; otherwise room_state's. */
function seatRating(s, seat) {
  const p = s.players[seat];
  if (!p) return "";
  const end = ui.ends[s.room];
  if (end && end.ratings && s.match && s.match.number === end.number && end.players[seat] && end.players[seat].name === p.name) {
    const r = end.ratings[seat];
    const d = Math.round(r.after) - Math.round(r.before);
    return t("app.seat.rating_change", { rating: Math.round(r.after), change: `${d >= 0 ? "+" : "−"}${fmtNumber(Math.abs(d))}` });
  }
  return typeof p.rating === "number" ? t("app.seat.rating", { rating: Math.round(p.rating) }) : "";
}

// Where the newest symbol went: the gap placed while a paint was awaited, remembered per
// room and round, so that "painted 1" can be found in a 90-symbol word.
const newest = { room: null, round: -1, gap: -1, len: -1 };
let shownRound = null; // room/match/round of the word last drawn

/** The index of the tile the last paint inserted, or -1 (unknown, e.g. after a reload). */
function newestTile(s) {
  const m = s.match;
  if (m.step === "paint" && m.placed !== null) {
    Object.assign(newest, { room: s.room, round: m.round, gap: m.placed, len: m.word.length });
    return -1;
  }
  const lm = m.last_move;
  if (lm && lm.kind === "paint" && newest.room === s.room && newest.round === m.round &&
      m.word.length === newest.len + 1 && m.word[newest.gap] === lm.value) return newest.gap;
  return -1;
}

function renderWord() {
  const s = ui.state;
  if (isGame(s)) { renderGameBoard(); return; }
  const m = s.match;
  const box = $("word");
  box.textContent = "";
  renderRoundBanner();
  if (!m) return;
  if (holding() && m.rounds[0].word) { // round 1's final word, its repetition outlined
    wordTiles(box, m.rounds[0].word, s.options.k, m.rounds[0].repetition);
    box.classList.remove("active");
    box.dataset.showing = "round-1-final";
    return;
  }
  box.dataset.showing = "current";
  // A finished round's repetition is outlined on the board itself (both halves).
  const over = m.step === "over" ? m.rounds[m.round] : null;
  const rep = over && over.word && over.word.length === m.word.length ? over.repetition : null;
  const fresh = newestTile(s);
  const canPlace = myTurn("place");
  const n = m.word.length;
  ui.cursor = Math.min(Math.max(ui.cursor, 0), n);
  const gap = (i) => {
    const cls = ["gap"];
    if (m.placed === i && m.step === "paint") cls.push("placed");
    if (canPlace && ui.cursor === i) cls.push("cursor");
    if (fresh >= 0 && (i === fresh || i === fresh + 1)) cls.push("beside-newest");
    const b = el("button", {
      type: "button", class: cls.join(" "), testid: `gap-${i}`, tabIndex: -1,
      disabled: !canPlace, title: t("app.word.gap", { n: i }), onclick: () => place(i),
    }, m.placed === i && m.step === "paint" ? "?" : "");
    b.setAttribute("aria-label", t("app.word.gap", { n: i }));
    return b;
  };
  for (let i = 0; i < n; i++) {
    box.append(gap(i));
    const tenth = (i + 1) % 10 === 0;
    let repCls = "";
    if (rep && i >= rep.start && i < rep.start + rep.length) {
      repCls = i < rep.start + rep.period || i >= rep.start + 2 * rep.period ? " rep rep-a" : " rep rep-b";
    }
    const tl = tile(m.word[i], s.options.k, `${i === fresh ? "newest" : ""}${tenth ? " tenth" : ""}${repCls}`);
    tl.dataset.testid = `tile-${i}`;
    if (tenth) tl.dataset.pos = String(i + 1);
    if (i === fresh) tl.title = t("app.word.newest", { symbol: m.word[i], n: i });
    box.append(tl);
  }
  box.append(gap(n));
  box.classList.toggle("active", canPlace);
  // A new round starts from one symbol: bring the word's top back into view.
  const roundKey = `${s.room}/${m.number}/${m.round}`;
  if (shownRound !== null && shownRound !== roundKey && window.scrollY > 0) window.scrollTo(0, 0);
  shownRound = roundKey;
}

function renderPalette() {
  const s = ui.state;
  if (isGame(s)) return;
  const m = s.match;
  const pal = $("palette");
  pal.textContent = "";
  const rated = s.options.rated;
  $("mark-losing").disabled = rated;
  $("mark-wrap").hidden = s.you === null;
  $("sound-wrap").hidden = s.you === null;
  if (!m || m.step === "over") {
    noticeTurn(s, false);
    return;
  }
  const canPaint = myTurn("paint");
  noticeTurn(s, canPaint || myTurn("place"));
  if (!canPaint) clearDigits();
  let losing = new Set();
  if (canPaint && !rated && $("mark-losing").checked && m.placed !== null && m.word.length <= 3000) {
    losing = losingSymbols(m.word, m.placed, s.options.k, s.options.variant);
  }
  for (let sym = 0; sym < s.options.k; sym++) {
    const c = symbolColour(sym, s.options.k);
    const b = el("button", {
      type: "button", class: `sym${losing.has(sym) ? " losing" : ""}`, testid: `sym-${sym}`,
      disabled: !canPaint, onclick: () => paint(sym),
      title: losing.has(sym) ? t("app.palette.losing", { symbol: sym }) : t("app.palette.paint", { symbol: sym }),
    }, String(sym));
    b.style.setProperty("background-color", c.bg);
    b.style.setProperty("color", c.fg);
    pal.append(b);
  }
}

function renderRounds() {
  if (isGame(ui.state)) return;
  const m = ui.state.match;
  const box = $("rounds");
  box.textContent = "";
  if (!m) return;
  const ends = { playing: t("app.rounds.playing"), repetition: t("app.rounds.repetition"), limit: t("app.rounds.limit"), forfeit: t("app.rounds.forfeit"), not_played: t("app.rounds.not_played") };
  m.rounds.forEach((r, i) => {
    // A round after the one being played has not started, whatever its `end` says.
    const status = r.end === "playing" && i > m.round ? t("app.rounds.not_started") : ends[r.end] || r.end;
    const line = el("div", { class: "round", testid: `round-${i}` },
      el("div", {}, t("app.rounds.line", { round: i + 1, builder: nameIn(ui.state, ui.state.players[r.builder]), painter: nameIn(ui.state, ui.state.players[1 - r.builder]), points: t("app.points.short", { count: r.points }), status })));
    if (r.word) {
      const w = el("div", { class: "word small-word", testid: `round-word-${i}` });
      const rep = r.repetition;
      wordTiles(w, r.word, ui.state.options.k, rep);
      line.append(w);
      if (rep) line.append(el("div", { class: "small" }, repetitionText(rep)));
    }
    box.append(line);
  });
}

function renderResultExtra(me) {
  const box = $("result");
  if (me.match_id && (!me.game || me.game === "thue" || serverListsGames())) box.append(el("div", {}, el("a", { href: `#/match/${encodeURIComponent(me.match_id)}`, testid: "replay-link" }, t("app.result.replay"))));
  if (me.ratings && ui.state && ui.state.you !== null) {
    const r = me.ratings[ui.state.you];
    box.append(el("div", { class: "small" }, t("app.result.rating", { before: Math.round(r.before), after: Math.round(r.after) })));
  }
}

function renderButtons() {
  const s = ui.state;
  const m = s.match;
  const seated = s.you !== null;
  const over = m && m.step === "over";
  const me = seated ? s.players[s.you] : null;
  $("ready").hidden = !seated || Boolean(m) || (me && me.ready) || Boolean(s.options.auto_start);
  const tour = ui.tourRooms[s.room]; // a tournament game is played once: no rematch
  $("rematch").hidden = !seated || !over || Boolean(tour);
  if (!over) $("rematch").textContent = t("app.room.rematch");
  $("resign").hidden = !seated || !m || over;
  // Analysis: spectators any time, players once the match is over (the server says so too).
  $("analyse").hidden = !m || (seated && !over);
  const ended = over && ui.ends[s.room] && ui.ends[s.room].number === m.number ? ui.ends[s.room] : null;
  if (ended && ended.match_id) $("analyse").href = matchAnalysisHash(ended.match_id); // the stored match, at its last move
  else if (m) {
    const room = over ? "" : s.room; // a running match: the server's current position (and its say on who may)
    $("analyse").href = isGame(s) ? analysisHash(s.options.game, s.options.game_options, shownGameState().state, room)
      : analysisHash("thue", { variant: s.options.variant, k: s.options.k, limit: s.options.limit }, { round: m.round, step: m.step, word: m.word, placed: m.step === "paint" ? m.placed : null, ...(m.round === 1 ? { rounds: [{ word: m.rounds[0].word }] } : {}) }, room);
  }
  const free = s.players.some((p) => p === null);
  botChoices(isGame(s) && s.options.game);
  $("bot-form").hidden = !(free && (!m || over) && (seated || s.players.every((p) => p === null)));
  const res = $("result");
  if (over && m.result) {
    res.hidden = false;
    res.textContent = "";
    const w = m.result.winner;
    const names = s.players.map((p) => nameIn(s, p));
    let text = isGame(s) ? resultWords(m.result, names) : `${resultText(m.result, names, m.points)}.`;
    res.dataset.reason = m.result.reason;
    if (s.you !== null && w !== null) text = `${w === s.you ? t("app.result.you_win") : t("app.result.you_lose")} ${text}`;
    // Green for a win (or a result watched), amber for a draw, red for your loss.
    res.dataset.outcome = w === null ? "draw" : s.you === null ? "watched" : w === s.you ? "win" : "loss";
    res.append(el("strong", {}, text));
    // A person's rematch request, as the other seat (and spectators) see it.
    for (const seat of [0, 1]) {
      const p = s.players[seat];
      if (!p || !p.rematch || seat === s.you) continue;
      res.append(el("div", { class: "rematch-offer", testid: "rematch-offer" },
        s.you === null ? t("app.result.asks_rematch", { name: p.name }) : t("app.result.offers_rematch", { name: p.name })));
      if (s.you !== null && !me.rematch && $("rematch").textContent === t("app.room.rematch")) $("rematch").textContent = t("app.result.accept_rematch");
    }
    const end = ui.ends[s.room];
    if (end && end.number === m.number) renderResultExtra(end);
    if (tour) res.append(el("div", {}, link(`#/tournament/${enc(tour)}`, t("app.result.tournament"), "tour-link")));
  } else {
    res.hidden = true;
  }
}

// A chat text is one line (PROTOCOL.md section 8): pasted line breaks and tabs become
// spaces, and other control characters, separators and bidirectional controls go.
function chatLine(text) {
  return text.replace(/[\t\n\r\u000b\u000c\u0085\u2028\u2029]+/g, " ")
    .replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, "")
    .trim();
}

// A room's chat lines are kept in this tab's sessionStorage (the newest CHAT_KEPT), since
// the server sends no history on a resume: a reload shows them again.
const CHAT_KEPT = 200;

function chatOf(room) {
  if (!ui.chat[room]) {
    const kept = stored(`thue.chat.${room}`);
    ui.chat[room] = Array.isArray(kept) ? kept.filter((c) => c && c.from && typeof c.from.name === "string" && typeof c.text === "string") : [];
  }
  return ui.chat[room];
}

/** The room's chat: the players' stream, or the spectators' (PROTOCOL.md section 8: while
 * a match runs, the spectators' texts reach the spectators only). Everyone starts on the
 * players' stream; a spectator's own text during a match turns theirs to the spectators'
 * one. The tabs show once there is a choice (to a spectator, always). */
function renderChat() {
  const log = $("chat-log");
  log.textContent = "";
  const s = ui.state;
  const list = ui.room ? chatOf(ui.room) : [];
  const watching = Boolean(s && s.you === null);
  const theirs = list.filter((c) => c.spectator).length;
  const tab = (ui.room && ui.chatTab[ui.room]) || "players";
  const tabs = watching || theirs > 0;
  $("chat-tabs").hidden = !tabs;
  for (const b of $("chat-tabs").querySelectorAll("[role=tab]")) {
    const on = b.dataset.tab === tab;
    b.setAttribute("aria-selected", String(on));
    b.tabIndex = on ? 0 : -1;
    if (b.dataset.tab === "spectators") b.textContent = theirs ? `${t("app.chat.spectators")} (${fmtNumber(theirs)})` : t("app.chat.spectators");
  }
  if (tabs) { log.setAttribute("role", "tabpanel"); log.setAttribute("aria-labelledby", `chat-tab-${tab}`); }
  else { log.removeAttribute("role"); log.removeAttribute("aria-labelledby"); }
  for (const c of list) {
    if (tabs && Boolean(c.spectator) !== (tab === "spectators")) continue;
    log.append(el("div", { class: c.spectator ? "chat-spectator" : "" }, el("strong", {}, `${c.from.name}: `), c.text));
  }
  log.scrollTop = log.scrollHeight;
  const running = Boolean(s && s.match && s.match.step !== "over");
  const note = $("chat-note");
  note.hidden = !(watching && running);
  note.textContent = t("app.chat.spectator_note");
  $("chat-text").placeholder = watching ? (running ? t("app.chat.to_spectators") : t("app.chat.to_everyone")) : t("app.chat.message");
}

function chatTab(ev) {
  const b = ev.target.closest("[role=tab]");
  if (!b || !ui.room) return;
  ui.chatTab[ui.room] = b.dataset.tab;
  renderChat();
}

/** The tabs' keys: Left and Right switch between the two streams (the ARIA tabs pattern). */
function chatTabKey(ev) {
  if (!ui.room || (ev.key !== "ArrowLeft" && ev.key !== "ArrowRight")) return;
  ev.preventDefault();
  ui.chatTab[ui.room] = (ui.chatTab[ui.room] || "players") === "players" ? "spectators" : "players";
  renderChat();
  $(`chat-tab-${ui.chatTab[ui.room]}`).focus();
}

/** A disconnected person's grace period counting down on its seat card: what the others
 * (and the opponent above all) may expect, and when the match is theirs. */
function tickAway() {
  const s = ui.state;
  if (!s) return;
  const elapsed = performance.now() - ui.stateAt;
  for (const seat of [0, 1]) {
    const e = $(`away-${seat}`);
    const p = s.players[seat];
    if (!e || !p || p.away_left_ms === undefined) continue;
    const left = fmtClock(p.away_left_ms - elapsed);
    const running = s.match && s.match.step !== "over";
    if (!running) e.textContent = t("app.away.back", { left });
    else if (s.you !== null && s.you !== seat) e.textContent = t("app.away.you_win", { left });
    else e.textContent = t("app.away.they_win", { left, name: nameIn(s, s.players[1 - seat]) });
  }
}

function tickClocks() {
  tickAway();
  const s = ui.state;
  if (!s || !s.match || !s.match.clocks) return;
  const elapsed = performance.now() - ui.stateAt;
  for (const seat of [0, 1]) {
    const e = $(`clock-${seat}`);
    if (!e) continue;
    const running = s.match.clock_running === seat && s.match.step !== "over";
    e.textContent = fmtClock(s.match.clocks[seat] - (running ? elapsed : 0));
    e.classList.toggle("running", running);
  }
}

// ---- moves ----------------------------------------------------------------------------

// A move disables the controls until the server's next room_state (or its error), so a
// double click or a held key never sends a second move.
async function move(msg) {
  ui.busy = true;
  renderWord();
  renderPalette();
  const r = await send(msg);
  if (!r) { ui.busy = false; if (ui.state) renderGame(); }
}

function place(i) {
  if (!myTurn("place")) return;
  move({ type: "place", room: ui.room, position: i });
}

function paint(sym) {
  if (!myTurn("paint") || sym >= ui.state.options.k) return;
  move({ type: "paint", room: ui.room, symbol: sym });
}

// Digits typed for a symbol. With k <= 10 one digit paints; with more symbols a number
// paints as soon as no further digit could make a valid symbol, after a pause, or on Enter.
const digits = { text: "", timer: null };

function clearDigits() {
  clearTimeout(digits.timer);
  digits.text = "";
  digits.timer = null;
  const hint = $("digits");
  if (hint) hint.textContent = "";
}

function paintTyped() {
  const sym = Number(digits.text);
  clearDigits();
  paint(sym);
}

function typeDigit(d) {
  const k = ui.state.options.k;
  let text = digits.text + d;
  if (Number(text) >= k) text = d; // no such symbol: start again from this digit
  if (Number(text) >= k) { clearDigits(); return; }
  const v = Number(text);
  if (v === 0 || v * 10 >= k) { digits.text = text; paintTyped(); return; }
  clearTimeout(digits.timer);
  digits.text = text;
  digits.timer = setTimeout(paintTyped, 1200);
  $("digits").textContent = t("app.palette.digits", { text });
}

function onWordKey(ev) {
  if (!ui.state || !ui.state.match || isGame(ui.state)) return;
  const n = ui.state.match.word.length;
  let handled = true;
  if (ev.key === "ArrowLeft" || ev.key === "ArrowUp") ui.cursor = Math.max(0, ui.cursor - 1);
  else if (ev.key === "ArrowRight" || ev.key === "ArrowDown") ui.cursor = Math.min(n, ui.cursor + 1);
  else if (ev.key === "Home") ui.cursor = 0;
  else if (ev.key === "End") ui.cursor = n;
  else if (ev.key === "Enter" || ev.key === " ") place(ui.cursor);
  else handled = false;
  if (handled) { ev.preventDefault(); renderWord(); }
}

function onGlobalKey(ev) {
  if (onReplayKey(ev)) return;
  if (onGameReplayKey(ev)) return;
  if (ev.key === "Escape") { if (document.activeElement) document.activeElement.blur(); return; }
  const t = ev.target;
  if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return;
  if (/^[0-9]$/.test(ev.key) && myTurn("paint")) { ev.preventDefault(); typeDigit(ev.key); return; }
  if (ev.key === "Enter" && digits.text && myTurn("paint")) { ev.preventDefault(); paintTyped(); return; }
  if (t === document.body && myTurn("place") && /^(Arrow|Home$|End$|Enter$)/.test(ev.key)) { $("word").focus(); onWordKey(ev); }
}

// ---- the first screen: the game in three steps, and one click to play --------------------

// The newcomer's game (the start screen's note says why): square-free, 4 symbols.
const FIRST_GAME = { variant: "square", k: 4, limit: 100 };
const LEVEL_THINK_MS = 400;
let pendingStart = null; // what a start button asked for, run once welcomed

/** Draws the three illustrations; the third plays a square ending a round, in a loop
 * (still, at its end, for those who ask for reduced motion). */
function drawDemos() {
  const k = FIRST_GAME.k;
  const row = (id, word, opts = {}) => {
    const box = $(id);
    box.textContent = "";
    word.forEach((sym, i) => {
      if (opts.gap === i) box.append(el("span", { class: "demo-gap" }, "?"));
      let cls = i === opts.newest ? "newest" : "";
      if (opts.rep && i >= opts.rep[0] && i < opts.rep[1]) cls += i < (opts.rep[0] + opts.rep[1]) / 2 ? " rep rep-a" : " rep rep-b";
      box.append(tile(sym, k, cls));
    });
    if (opts.gap === word.length) box.append(el("span", { class: "demo-gap" }, "?"));
  };
  row("demo-place", [0, 1, 0, 2], { gap: 2 });
  row("demo-paint", [0, 1, 3, 0, 2], { newest: 2 });
  const frames = [
    () => row("demo-square", [0, 1, 0], { gap: 3 }),
    () => row("demo-square", [0, 1, 0, 1], { newest: 3 }),
    () => row("demo-square", [0, 1, 0, 1], { rep: [0, 4] }),
  ];
  let f = 0;
  frames[matchMedia("(prefers-reduced-motion: reduce)").matches ? 2 : 0]();
  if (matchMedia("(prefers-reduced-motion: reduce)").matches) return;
  setInterval(() => {
    if ($("start").hidden) return;
    f = (f + 1) % frames.length;
    frames[f]();
  }, 1400);
}

/** The name step taken from the games (the first screen): on to the lobby's page (rooms,
 * create, join by id); from any other address, stay there. */
function enterLobby() {
  if (parseRoute()) return;
  history.pushState(null, "", "#/lobby");
  ui.page = parseRoute();
  ui.home = "#/lobby";
  showView();
}

/** Runs a start action now if welcomed, else enters (with the typed name, or as a guest)
 * and runs it on welcome. */
function startAction(action) {
  // A room's address on screen (a link to watch one) is left: this is a game of one's own.
  const r = parseRoute();
  if (r && r.what === "room") { history.replaceState(null, "", "#/"); ui.page = null; }
  if (conn.welcomed) { runStart(action); return; }
  pendingStart = action;
  const name = $("name").value.trim();
  if (name !== conn.name) { conn.resume = ""; conn.token = ""; }
  conn.name = name;
  conn.connect();
}

/** create_room's members for a card's game: Thue's first game, another game's defaults. */
function cardGame(game) {
  return !game || game === "thue" ? { ...FIRST_GAME } : { game };
}

async function runStart(action) {
  if (action.kind === "bot") {
    // The room starts by itself once the bot is seated (auto_start): no Ready step.
    const r = await send({ type: "create_room", ...cardGame(action.game), first_builder: "creator", rated: false, private: false, seat: true, auto_start: true, name: t("app.room.name_vs", { name: ui.me ? ui.me.name : t("app.room.name_you"), level: action.label }) });
    if (!r) return;
    ui.room = r.room;
    await send({ type: "seat_bot", room: r.room, bot: action.spec, think_ms: LEVEL_THINK_MS });
  } else if (action.kind === "friend") {
    // A private room whose game starts when the friend opens the link and joins.
    const r = await send({ type: "create_room", ...cardGame(action.game), first_builder: "random", rated: false, private: true, seat: true, auto_start: true, name: t("app.room.name_game", { name: ui.me ? ui.me.name : "A" }) });
    if (!r) return;
    if (r.invite) rememberInvite(r.room, r.invite);
    ui.room = r.room;
  } else if (action.kind === "quick") {
    const r = await send({ type: "queue_join", variant: FIRST_GAME.variant, k: FIRST_GAME.k, bot_after_s: 30 });
    if (!r) return;
    enterLobby(); // the wait shows on the lobby's page, with "Play the computer now"
    quickWaiting("thue", 30);
    $("quick-status").scrollIntoView({ block: "center" });
  } else if (action.kind === "watch") {
    const r = await send({ type: "list_rooms" });
    if (!r) return;
    const live = r.rooms.filter((x) => x.status === "playing").sort((a, b) => b.spectators - a.spectators);
    if (live.length === 0) { showError({ message: t("app.home.no_live") }); return; }
    joinRoom(live[0].room, "", "spectate");
  }
}

function wireStart() {
  for (const b of document.querySelectorAll("#start .level")) {
    b.addEventListener("click", () => startAction({ kind: "bot", game: "thue", spec: b.dataset.spec, label: b.firstChild.textContent.trim() }));
  }
  $("play-friend").addEventListener("click", () => startAction({ kind: "friend", game: "thue" }));
  $("invite-form").addEventListener("submit", inviteJoin);
  $("invite-decline").addEventListener("click", () => { ui.invitePeek = null; });
  $("use-here").addEventListener("click", () => {
    ui.replaced = false;
    showView();
    conn.connect(); // the newest resume token (the other tab's) takes the session back here
  });
  renderCards();
  $("play-quick").addEventListener("click", () => startAction({ kind: "quick" }));
  $("play-watch").addEventListener("click", () => startAction({ kind: "watch" }));
  drawDemos();
}

// ---- wiring ---------------------------------------------------------------------------

function wire() {
  $("name").value = conn.name;
  wireStart();
  $("login-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const name = $("name").value.trim();
    if (name !== conn.name) { conn.resume = ""; conn.token = ""; } // a new name is a new session
    conn.name = name;
    enterLobby();
    conn.connect();
  });
  $("refresh").addEventListener("click", refreshRooms);
  $("join-form").addEventListener("submit", (ev) => { ev.preventDefault(); joinRoom($("join-room").value.trim(), $("join-invite").value.trim(), "join"); });
  $("spectate").addEventListener("click", () => joinRoom($("join-room").value.trim(), $("join-invite").value.trim(), "spectate"));
  $("create-form").addEventListener("submit", createRoom);
  $("quick-form").addEventListener("submit", quickMatch);
  $("quick-cancel").addEventListener("click", async () => {
    if (await send({ type: "queue_leave" })) quickDone("");
  });
  $("quick-now").addEventListener("click", quickNow);
  $("claim").addEventListener("click", claimName);
  $("token-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const token = $("token-input").value.trim();
    if (!token) { showError({ message: t("app.login.token_first") }); return; }
    conn.token = token;
    conn.resume = "";
    $("token-input").value = "";
    enterLobby();
    conn.connect();
  });
  window.addEventListener("hashchange", route);
  $("sound").checked = soundWanted();
  $("sound").addEventListener("change", () => setSound($("sound").checked));
  $("ready").addEventListener("click", () => send({ type: "ready", room: ui.room }));
  $("rematch").addEventListener("click", async () => { if (await send({ type: "rematch", room: ui.room })) $("rematch").textContent = t("app.room.rematch_asked"); });
  $("resign").addEventListener("click", () => { if (confirm(t("app.room.resign_confirm"))) send({ type: "resign", room: ui.room }); });
  $("leave").addEventListener("click", async () => {
    const room = ui.room;
    const s = ui.state;
    // Leaving a running match of one's own gives it up: said first (the games' list, at
    // the top, keeps it running instead).
    if (s && s.room === room && s.you !== null && s.match && s.match.step !== "over" &&
        !confirm(t("app.room.leave_confirm"))) return;
    ui.left.add(room);
    await send({ type: "leave", room });
    ui.room = null;
    ui.state = null;
    noticeTurn(null, false);
    $("rematch").textContent = t("app.room.rematch");
    // Back where the room was entered from: the games, or the lobby.
    if (parseRoute() && location.hash !== ui.home) { history.replaceState(null, "", ui.home); ui.page = parseRoute(); }
    showView();
    refreshRooms();
  });
  $("bot-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    send({ type: "seat_bot", room: ui.room, bot: $("bot-spec").value, think_ms: Number($("bot-think").value) });
  });
  $("chat-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const text = chatLine($("chat-text").value);
    if (!text) return;
    const s = ui.state;
    if (await send({ type: "chat", room: ui.room, text })) {
      $("chat-text").value = "";
      // A spectator's text during a match goes to the spectators' stream: show it there.
      if (s && s.room === ui.room && s.you === null && s.match && s.match.step !== "over") { ui.chatTab[ui.room] = "spectators"; renderChat(); }
    }
  });
  $("invite-copy").addEventListener("click", copyInvite);
  $("chat-tabs").addEventListener("click", chatTab);
  $("chat-tabs").addEventListener("keydown", chatTabKey);
  $("pw-login-form").addEventListener("submit", passwordLogin);
  $("pw-set-form").addEventListener("submit", setPassword);
  $("have-account").addEventListener("click", haveAccount);
  $("mark-losing").addEventListener("change", () => ui.state && renderPalette());
  $("word").addEventListener("keydown", onWordKey);
  wireGames();
  document.addEventListener("keydown", onGlobalKey);
  $("home-link").addEventListener("click", (ev) => { ev.preventDefault(); if (ui.page) location.hash = "#/"; else showView(); });
  setInterval(tickClocks, 200);

  // A returning visitor (a stored name or session) goes straight in.
  if (conn.resume || conn.token || conn.name) conn.connect();
  route();
}

// For tests and the curious: drop the connection as a network failure would.
window.thueClient = {
  dropConnection: () => { if (conn.ws) conn.ws.close(); },
  // Another game's states this page kept for the room on screen (the replay's steps).
  keptStates: () => (ui.state ? keptStates(ui.state) : []),
};

wire();
// Ready: the page's words are in and its handlers are wired. (The catalogues load before this
// module runs, so it may finish after the load event; the browser tests wait for this mark.)
document.documentElement.dataset.ready = "1";
