// games.js: the games other than Thue (server/games/: Nim, Rims, Northcott's game, the
// circle game) in the browser client: their list and options (GET /api/games, with a
// fallback list until the server has it), the create form's fields and the checks that
// mirror the server's, the boards (heaps of tokens, a grid of rows, a circle of fields)
// and the words for moves and results. The server decides every move: the boards only
// mark what they expect to be legal, and any click a player makes on their turn is sent,
// so a refused one comes back as the server's own sentence. Nothing from the server is
// put in the page as HTML.

import { t, tOr } from "./i18n.js";
import { WYTHOFF_HINT, WYTHOFF_INFO, wythoffApply, wythoffBoard, wythoffCheck, wythoffMoveText, wythoffOptionsText } from "./wythoff.js";
import { DOTS_GAME, DOTS_HINT, DOTS_NAMES, dotsApply, dotsBoard, dotsCheckOptions, dotsMoveText, dotsOptionsText, dotsResultWords } from "./dots.js";

const SPLIT_MAX_REGIONS = 64; // Rims: a split that makes a 65th region is refused

/** The games this client knows how to draw, with their options as the server documents
 * them (server/games/<game>/<game>.c); used when GET /api/games is not there. */
export const FALLBACK_GAMES = [
  {
    name: "nim", title: "Nim", summary: "Take any number of tokens from one heap; who cannot move loses (misère: who takes the last token loses).",
    move: "{\"heap\":I,\"take\":N}",
    options: [
      { name: "heaps", type: "array of integers", default: [3, 4, 5], help: "the starting heaps: 1..16 heaps of 0..1000 tokens, at least one token in all" },
      { name: "misere", type: "boolean", default: false, help: "misère play: who takes the last token loses" },
    ],
  },
  {
    name: "rims", title: "Rims", summary: "Take dots from one region and split what is left of it in two; who cannot move loses.",
    move: "{\"heap\":I,\"take\":N,\"split\":X}",
    options: [
      { name: "heaps", type: "array of integers", default: [3, 4, 5], help: "the starting regions' dots: 1..16 heaps of 0..1000 dots, at least one dot in all" },
    ],
  },
  {
    name: "northcott", title: "Northcott's game", summary: "Each row holds a white and a black piece; slide yours along its row, never over the other; who cannot move loses.",
    move: "{\"row\":R,\"to\":COL}",
    options: [
      { name: "rows", type: "integer", default: 8, help: "rows of the board, 1..16; each row holds one white and one black piece" },
      { name: "cols", type: "integer", default: 8, help: "columns of the board, 2..32" },
      { name: "start", type: "string or array", default: "random", help: "\"random\", or the starting columns as [[white,black],...] (0..cols-1, distinct in a row)" },
      { name: "move_cap", type: "integer", default: null, help: "1..100000 (empty: 10 × rows × cols): after that many moves the game is drawn" },
    ],
  },
  {
    name: "circle", title: "The circle game", summary: "Slide one of your pieces along the circle over free fields; who cannot move loses.",
    move: "{\"from\":F,\"to\":T,\"dir\":1|-1}",
    options: [
      { name: "fields", type: "integer", default: 12, help: "the fields on the circle: 3..64" },
      { name: "start", type: "string", default: "random", help: "\"random\", or one character per field from field 0: W, B or ." },
      { name: "white", type: "integer", default: 3, help: "white pieces of a random start: 1..fields-1, white + black ≤ fields" },
      { name: "black", type: "integer", default: 3, help: "black pieces of a random start: 1..fields-1, white + black ≤ fields" },
      { name: "move_cap", type: "integer", default: null, help: "1..100000 (empty: 40 × fields): after that many moves the game is drawn" },
    ],
  },
  WYTHOFF_INFO,
  DOTS_GAME,
];

let known = FALLBACK_GAMES;
let fromServer = false; // GET /api/games answered: the server stores these games' matches too

/** An option's default from /api/games: JSON text ("[3,4,5]") or a value; a default that
 * is a formula ("10 * rows * cols") is null (left to the server). */
function defaultValue(d) {
  if (typeof d !== "string") return d === undefined ? null : d;
  try { return JSON.parse(d); } catch { /* a word or a formula */ }
  return /^[a-z]+$/i.test(d) ? d : null;
}

/** Reads GET /api/games (every game but Thue); keeps the fallback list when the server
 * has no such endpoint yet or answers something unexpected. Resolves to the list. */
export async function loadGames() {
  try {
    const res = await fetch("/api/games");
    if (!res.ok) return known;
    const j = await res.json();
    const list = Array.isArray(j) ? j : j.games;
    if (!Array.isArray(list)) return known;
    const games = [];
    for (const g of list) {
      if (!g || typeof g.name !== "string" || g.name === "thue") continue;
      const fb = FALLBACK_GAMES.find((f) => f.name === g.name);
      const options = Array.isArray(g.options) ? g.options.filter((o) => o && typeof o.name === "string").map((o) => ({
        name: o.name, type: String(o.type || ""), help: String(o.help || ""),
        default: defaultValue(o.default !== undefined ? o.default : o.deflt),
      })) : fb ? fb.options : [];
      games.push({ name: g.name, title: String(g.title || (fb && fb.title) || g.name), summary: String(g.summary || (fb && fb.summary) || ""), move: String(g.move || g.move_doc || (fb && fb.move) || ""), options });
    }
    if (games.length > 0) known = games;
    fromServer = true;
  } catch { /* no endpoint yet: the fallback list */ }
  return known;
}

export function games() { return known.map(worded); }

/** Whether the server listed its games (GET /api/games, PROTOCOL.md section 13), and so
 * stores their matches in their own terms: only then does a result link its replay. */
export function serverListsGames() { return fromServer; }

export function gameInfo(name) {
  return worded(known.find((g) => g.name === name) || FALLBACK_GAMES.find((g) => g.name === name) || { name, title: name, summary: "", options: [] });
}

/** A game's name, summary and option help in the page's language: the catalogue's words
 * for the game and option names (app.game.NAME, app.gamesum.NAME, app.option.NAME.OPTION),
 * the server's English only for a game or option the catalogue does not know yet. */
function worded(g) {
  return {
    ...g,
    title: tOr(`app.game.${g.name}`, {}, g.title),
    summary: tOr(`app.gamesum.${g.name}`, {}, g.summary),
    options: g.options.map((o) => ({ ...o, help: tOr(`app.option.${g.name}.${o.name}`, {}, o.help) })),
  };
}

export function gameTitle(name) { return gameInfo(name).title; }

// ---- the create form's fields and their checks -----------------------------------------

/** Parses "3 4 5" or "3, 4, 5" (or "[3,4,5]") into numbers; null when a piece is no
 * whole number. */
export function parseList(text) {
  const parts = String(text).replace(/[[\]]/g, " ").split(/[\s,;]+/).filter((x) => x !== "");
  const out = [];
  for (const p of parts) {
    if (!/^-?\d+$/.test(p)) return null;
    out.push(Number(p));
  }
  return out;
}

function isInt(v, lo, hi) { return Number.isInteger(v) && v >= lo && v <= hi; }

/**
 * The game_options object from the form's raw field values (name -> string or boolean),
 * checked as the server checks them. Returns {options, errors}: errors maps an option's
 * name to a sentence (empty when the server should accept the options). An empty
 * integer field is left out, so the server's default applies.
 */
export function checkOptions(game, raw) {
  const info = gameInfo(game);
  const options = {};
  const errors = {};
  const int = (name) => {
    const text = String(raw[name] ?? "").trim();
    if (text === "") return undefined;
    return /^-?\d+$/.test(text) ? Number(text) : NaN;
  };
  for (const o of info.options) {
    const v = raw[o.name];
    if (o.type === "boolean") options[o.name] = Boolean(v);
    else if (o.type === "array of integers") {
      const list = parseList(v ?? "");
      if (list === null) errors[o.name] = t("app.check.list", { name: o.name });
      else options[o.name] = list;
    } else if (o.type === "integer") {
      const n = int(o.name);
      if (Number.isNaN(n)) errors[o.name] = t("app.check.int", { name: o.name });
      else if (n !== undefined) options[o.name] = n;
    } else {
      const text = String(v ?? "").trim();
      if (text === "") continue;
      if (text.startsWith("[")) {
        try { options[o.name] = JSON.parse(text); } catch { errors[o.name] = t("app.check.json", { name: o.name }); }
      } else options[o.name] = text;
    }
  }
  const heapsCheck = (unit) => {
    const h = options.heaps;
    if (!h || errors.heaps) return;
    if (h.length < 1 || h.length > 16) errors.heaps = t("app.check.heaps_count", { count: h.length });
    else if (h.some((x) => !isInt(x, 0, 1000))) errors.heaps = t(`app.check.heaps_size_${unit}`);
    else if (h.reduce((a, b) => a + b, 0) === 0) errors.heaps = t(`app.check.heaps_empty_${unit}`);
  };
  const capCheck = () => {
    if (options.move_cap !== undefined && !isInt(options.move_cap, 1, 100000)) errors.move_cap = t("app.check.move_cap");
  };
  if (game === "nim") heapsCheck("tokens");
  else if (game === "rims") heapsCheck("dots");
  else if (game === "northcott") {
    const rows = options.rows ?? 8, cols = options.cols ?? 8;
    if (!errors.rows && !isInt(rows, 1, 16)) errors.rows = t("app.check.rows16");
    if (!errors.cols && !isInt(cols, 2, 32)) errors.cols = t("app.check.cols32");
    const st = options.start;
    if (st !== undefined && !errors.start && st !== "random") {
      const ok = Array.isArray(st) && st.length === rows && st.every((p) => Array.isArray(p) && p.length === 2 &&
        isInt(p[0], 0, cols - 1) && isInt(p[1], 0, cols - 1) && p[0] !== p[1]);
      if (!ok) errors.start = t("app.check.northcott_start", { rows, max: cols - 1 });
    }
    capCheck();
  } else if (game === "circle") {
    const n = options.fields ?? 12;
    if (!errors.fields && !isInt(n, 3, 64)) errors.fields = t("app.check.fields");
    else {
      const small = n < 6 ? Math.floor(n / 2) : 3;
      const w = options.white ?? small, b = options.black ?? small;
      if (!errors.white && !isInt(w, 1, n - 1)) errors.white = t("app.check.white", { max: n - 1 });
      else if (!errors.black && !isInt(b, 1, n - 1)) errors.black = t("app.check.black", { max: n - 1 });
      else if (!errors.white && !errors.black && w + b > n) errors.black = t("app.check.pieces_total", { n });
      const st = options.start;
      if (st !== undefined && !errors.start && st !== "random") {
        if (typeof st !== "string" || st.length !== n || !/^[WB.]+$/.test(st)) errors.start = t("app.check.circle_start", { n });
        else if (!st.includes("W") || !st.includes("B")) errors.start = t("app.check.circle_wb");
      }
    }
    capCheck();
  } else if (game === "wythoff") wythoffCheck(options, errors);
  else if (game === "dots") dotsCheckOptions(options, errors);
  return { options, errors };
}

/** The form's raw value for an option's default (what the field starts with). */
export function fieldText(o) {
  if (o.default === null || o.default === undefined) return "";
  if (Array.isArray(o.default)) return o.default.join(" ");
  return String(o.default);
}

/** A room's options in a few words, for the lobby's list and the room's header. */
export function optionsText(game, o) {
  if (!o) return gameTitle(game);
  const title = gameTitle(game);
  if (game === "nim") return t("app.opts.nim", { title, heaps: (o.heaps || []).join(" "), play: o.misere ? t("app.opts.misere_long") : t("app.opts.normal") });
  if (game === "rims") return t("app.opts.rims", { title, heaps: (o.heaps || []).join(" ") });
  if (game === "northcott") return t("app.opts.northcott", { title, rows: o.rows, cols: o.cols, start: o.start === "random" ? t("app.opts.random_start") : t("app.opts.set_start"), count: o.move_cap });
  if (game === "wythoff") return wythoffOptionsText(title, o);
  if (game === "circle") return t("app.opts.circle", { title, fields: o.fields, start: o.start === "random" ? t("app.opts.circle_random", { white: o.white, black: o.black }) : t("app.opts.set_start"), count: o.move_cap });
  if (game === "dots") return dotsOptionsText(title, o);
  return `${title}: ${JSON.stringify(o)}`;
}

// ---- rules the boards mark (the server judges) -------------------------------------------

/** Northcott: the columns the piece of `player` in `row` can move to (never onto or over
 * the other piece, never off the board). */
export function northcottTargets(st, player, row) {
  const mine = player === 0 ? st.white[row] : st.black[row];
  const other = player === 0 ? st.black[row] : st.white[row];
  const out = [];
  for (const d of [-1, 1]) {
    for (let c = mine + d; c >= 0 && c < st.cols && c !== other; c += d) out.push(c);
  }
  return out.sort((a, b) => a - b);
}

/** Circle: for a piece on field `from`, a map field -> directions (1 toward higher field
 * numbers, -1 toward lower) that reach it over free fields. */
export function circleTargets(board, from) {
  const n = board.length;
  const out = new Map();
  for (const d of [1, -1]) {
    for (let k = 1, f = (from + d + n) % n; k < n && board[f] === "."; k++, f = (f + d + n) % n) {
      if (!out.has(f)) out.set(f, []);
      out.get(f).push(d);
    }
  }
  return out;
}

/**
 * The state after `mv` (a move the server accepted) from `st`, as the server writes it
 * (state_json): for the stored matches' replay, which has only the start and the moves.
 * The tests hold it against every state a match's room_state brought.
 */
export function applyMove(game, st, mv) {
  if (game === "dots") return dotsApply(st, mv);
  const next = { ...st, to_move: 1 - st.to_move, moves: st.moves + 1 };
  if (game === "nim") {
    next.heaps = st.heaps.slice();
    next.heaps[mv.heap] -= mv.take;
    next.nim_sum = next.heaps.reduce((a, b) => a ^ b, 0);
  } else if (game === "rims") {
    // The regions stay canonical: empty ones dropped, the rest in non-increasing order.
    const rest = st.heaps[mv.heap] - mv.take;
    const split = mv.split || 0;
    const heaps = st.heaps.filter((_, i) => i !== mv.heap).concat([split, rest - split]);
    next.heaps = heaps.filter((h) => h > 0).sort((a, b) => b - a);
  } else if (game === "northcott") {
    const side = st.to_move === 0 ? "white" : "black";
    next[side] = st[side].slice();
    next[side][mv.row] = mv.to;
  } else if (game === "circle") {
    const b = st.board.split("");
    b[mv.to] = b[mv.from];
    b[mv.from] = ".";
    next.board = b.join("");
  } else if (game === "wythoff") return wythoffApply(st, mv);
  return next;
}

export const COLOUR = [t("app.colour.white"), t("app.colour.black")];
/** A player's colour as the game's board shows it: dots and boxes draws blue and red,
 * the others white and black. */
export const colourName = (game, p) => (game === "dots" ? DOTS_NAMES : COLOUR)[p];
export const PIECE = ["W", "B"];

// ---- words ---------------------------------------------------------------------------

/** A move in words, given the state it was made in (prev, or null when the page did not
 * see it): "took 2 from heap 3". */
export function moveText(game, mv, prev) {
  if (!mv) return "";
  if (game === "nim") return t("app.move.nim", { take: mv.take, heap: mv.heap + 1 });
  if (game === "rims") {
    const had = prev && prev.heaps ? prev.heaps[mv.heap] : null;
    const rest = had !== null && had !== undefined ? had - mv.take : null;
    const split = mv.split && rest !== null && mv.split < rest ? t("app.move.rims_split", { a: mv.split, b: rest - mv.split }) : mv.split ? t("app.move.rims_split_off", { a: mv.split }) : "";
    return t(had !== null && had !== undefined ? "app.move.rims_of" : "app.move.rims", { take: mv.take, region: mv.heap + 1, had, split });
  }
  if (game === "northcott") {
    const from = prev ? (prev.to_move === 0 ? prev.white : prev.black)[mv.row] : null;
    return from !== null && from !== undefined ? t("app.move.northcott_from", { row: mv.row + 1, from: from + 1, to: mv.to + 1 }) : t("app.move.northcott", { row: mv.row + 1, to: mv.to + 1 });
  }
  if (game === "wythoff") return wythoffMoveText(mv);
  if (game === "dots") return dotsMoveText(mv, prev);
  if (game === "circle") return t(mv.dir === 1 ? "app.move.circle_cw" : mv.dir === -1 ? "app.move.circle_ccw" : "app.move.circle", { from: mv.from, to: mv.to });
  return JSON.stringify(mv);
}

/** The result in words, winner first: "Ann wins: Bob cannot move." */
export function resultWords(result, names) {
  if (!result) return "";
  const w = result.winner;
  if (w === null || w === undefined) {
    if (result.reason === "score") return dotsResultWords(result, names);
    return result.reason === "move_cap" ? t("app.result.draw_cap") : `${t("app.result.draw")} (${result.reason}).`;
  }
  const W = names[w], L = names[1 - w];
  if (result.reason === "score") return dotsResultWords(result, names);
  switch (result.reason) {
    case "no_moves": return t("app.result.no_moves", { winner: W, loser: L });
    case "took_last": return t("app.result.took_last", { winner: W, loser: L });
    case "resign": return t("app.result.by_resign", { winner: W });
    case "timeout": return t("app.result.by_time", { winner: W });
    case "abandon": return t("app.result.by_abandon", { winner: W });
    case "move_cap": return t("app.result.by_cap", { winner: W });
    default: return `${t("app.result.wins", { name: W })} (${result.reason}).`;
  }
}

/** The turn line's hint for the player to move. */
export function moveHint(game) {
  if (game === "nim") return t("app.hint.nim");
  if (game === "rims") return t("app.hint.rims");
  if (game === "northcott") return t("app.hint.northcott");
  if (game === "circle") return t("app.hint.circle");
  if (game === "wythoff") return WYTHOFF_HINT;
  if (game === "dots") return DOTS_HINT;
  return t("app.hint.any");
}

// ---- the boards ----------------------------------------------------------------------

/** An element with props (testid, class, label as aria-label, role and *-* attributes,
 * on* listeners, the rest as properties) and children (null left out); the pages' own
 * modules build with it too. */
export function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "testid") e.dataset.testid = v;
    else if (k === "class") e.className = v;
    else if (k === "label") e.setAttribute("aria-label", v);
    else if (k === "role" || k.includes("-")) e.setAttribute(k, v);
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e[k] = v;
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

/**
 * Draws a board into box. view: {game, state, player (the viewer's player number, 0
 * white or 1 black, or null for a spectator), active (the viewer may move now), last
 * (the last move or null), prev (the state before it, or null), sel (the selection:
 * {kind, ...} or null), onMove(move), onSelect(sel)}.
 */
export function drawBoard(box, view) {
  box.textContent = "";
  box.dataset.game = view.game;
  box.classList.toggle("active", Boolean(view.active));
  box.dataset.player = view.player === null ? "" : COLOUR[view.player];
  const st = view.state;
  if (!st) return;
  if (view.game === "nim" || view.game === "rims") heapsBoard(box, view);
  else if (view.game === "northcott") gridBoard(box, view);
  else if (view.game === "circle") circleBoard(box, view);
  else if (view.game === "wythoff") wythoffBoard(box, view, el);
  else if (view.game === "dots") dotsBoard(box, view, el, DOTS_NAMES);
  else box.append(el("pre", { class: "small" }, JSON.stringify(st)));
}

function heapsBoard(box, view) {
  const st = view.state;
  const kind = view.game === "nim" ? "nim" : "rims";
  const last = view.last && view.game === "nim" ? view.last : null;
  const fresh = view.game === "rims" ? rimsLeft(view.prev, view.last, st.heaps) : new Set();
  st.heaps.forEach((h, i) => {
    const row = el("div", { class: "heap", testid: `heap-${i}` });
    row.dataset.size = String(h);
    row.append(el("span", { class: "heap-label" }, t(`app.board.${kind}_heap`, { i: i + 1, h })));
    const tokens = el("div", { class: "tokens" });
    for (let j = 0; j < h; j++) {
      const take = h - j;
      const chosen = view.sel && view.sel.heap === i && j >= h - view.sel.take;
      const b = el("button", {
        type: "button", class: `htoken${chosen ? " chosen" : ""}`, testid: `token-${i}-${j}`,
        tabIndex: -1, label: t(`app.board.${kind}_token`, { i: i + 1, j: j + 1, h, take }),
        title: t(`app.board.${kind}_take`, { count: take, i: i + 1 }),
        disabled: view.player === null || view.over,
        onclick: () => pickHeap(view, i, take),
      });
      b.dataset.row = String(i);
      b.dataset.col = String(j);
      tokens.append(b);
    }
    // Nim keeps its heaps in place: the tokens the last move took show as ghosts.
    if (last && last.heap === i) {
      for (let j = 0; j < last.take; j++) tokens.append(el("span", { class: "htoken ghost", testid: `ghost-${i}-${j}`, title: t("app.board.taken_last") }));
      row.classList.add("last");
    }
    if (fresh.has(i)) { row.classList.add("last"); row.title = t("app.board.left_last"); }
    if (h === 0 && !(last && last.heap === i)) tokens.append(el("span", { class: "small" }, t("app.board.heap_empty")));
    row.append(tokens);
    box.append(row);
  });
  if (view.game === "rims" && view.sel && view.sel.kind === "rims") box.append(splitChooser(view));
}

/** Rims: the regions the last move left (what remained of the region it took from, split
 * or not), as indices into the new, sorted heaps: the new heaps less the untouched ones
 * (as a multiset). Empty without the state before the move. */
function rimsLeft(prev, mv, heaps) {
  const out = new Set();
  if (!prev || !mv) return out;
  const kept = new Map();
  prev.heaps.forEach((h, i) => { if (i !== mv.heap && h > 0) kept.set(h, (kept.get(h) || 0) + 1); });
  heaps.forEach((h, i) => {
    if (kept.get(h)) kept.set(h, kept.get(h) - 1);
    else out.add(i);
  });
  return out;
}

function pickHeap(view, heap, take) {
  if (view.game === "nim") { view.onMove({ heap, take }); return; }
  const rest = view.state.heaps[heap] - take;
  const regions = view.state.heaps.filter((x) => x > 0).length;
  // Nothing to split (fewer than 2 dots left) or no room for another region: no question.
  if (rest < 2 || !view.active || regions >= SPLIT_MAX_REGIONS) { view.onMove({ heap, take }); return; }
  view.onSelect({ kind: "rims", heap, take, rest });
}

function splitChooser(view) {
  const { heap, take, rest } = view.sel;
  const box = el("div", { class: "split", testid: "split", role: "group", label: t("app.board.split_label") });
  box.append(el("p", {}, t("app.board.split_text", { take, region: heap + 1, count: rest })));
  const row = el("div", { class: "row" });
  row.append(el("button", { type: "button", testid: "split-0", onclick: () => view.onMove({ heap, take, split: 0 }) }, t("app.board.keep_together", { count: rest })));
  for (let x = 1; x <= Math.floor(rest / 2); x++) {
    row.append(el("button", { type: "button", testid: `split-${x}`, onclick: () => view.onMove({ heap, take, split: x }) }, `${x} + ${rest - x}`));
  }
  row.append(el("button", { type: "button", class: "link", testid: "split-cancel", onclick: () => view.onSelect(null) }, t("app.board.cancel")));
  box.append(row);
  setTimeout(() => { const f = box.querySelector("button"); if (f && document.activeElement && document.activeElement.closest(".gboard")) f.focus(); }, 0);
  return box;
}

function gridBoard(box, view) {
  const st = view.state;
  const p = view.player;
  const selRow = view.sel && view.sel.kind === "row" ? view.sel.row : null;
  const targets = selRow !== null && p !== null ? new Set(northcottTargets(st, p, selRow)) : new Set();
  const last = view.last;
  const from = last && view.prev ? (view.prev.to_move === 0 ? view.prev.white : view.prev.black)[last.row] : null;
  // A board wider than a phone (many columns, fewer rows) is drawn turned: each row a
  // lane from top to bottom, row 1 on the left, so that nothing scrolls sideways.
  const lanes = st.cols > st.rows && st.cols * 30 > innerWidth - 32;
  const grid = el("div", { class: `grid-board${lanes ? " lanes" : ""}`, role: "grid", label: t(lanes ? "app.board.grid_lanes" : "app.board.grid", { rows: st.rows, cols: st.cols }) });
  grid.style.setProperty("--cols", String(st.cols));
  grid.style.setProperty("--rows", String(st.rows));
  for (let r = 0; r < st.rows; r++) {
    const row = el("div", { class: "grid-row", role: "row", testid: `row-${r}` });
    for (let c = 0; c < st.cols; c++) {
      const who = st.white[r] === c ? 0 : st.black[r] === c ? 1 : null;
      const cls = ["square"];
      if (who !== null) cls.push("piece", COLOUR[who]);
      if (selRow === r && who === p) cls.push("selected");
      if (selRow === r && targets.has(c)) cls.push("target");
      if (last && last.row === r && last.to === c) cls.push("last-to");
      if (last && last.row === r && from === c) cls.push("last-from");
      const label = who !== null ? t(who === 0 ? "app.board.square_white" : "app.board.square_black", { row: r + 1, col: c + 1 }) : t("app.board.square", { row: r + 1, col: c + 1 });
      const b = el("button", {
        type: "button", class: cls.join(" "), testid: `sq-${r}-${c}`, tabIndex: -1, label, title: label,
        disabled: p === null || view.over, role: "gridcell",
        onclick: () => {
          if (who === p) { view.onSelect(selRow === r ? null : { kind: "row", row: r }); return; }
          // A square in a row: the mover has one piece there, so the row names the move.
          view.onMove({ row: r, to: c });
        },
      });
      if (who !== null) b.append(el("span", { class: "disc", "aria-hidden": "true" }));
      b.dataset.row = String(r);
      b.dataset.col = String(c);
      row.append(b);
    }
    grid.append(row);
  }
  box.append(grid);
}

/**
 * Where n fields stand on a track of height H (the width is 1): a circle of radius 0.42
 * round the centre when H is 1, else a stadium (half circles of radius 0.42 at the top
 * and the bottom, joined by straight sides), field 0 at the top, clockwise, evenly spaced
 * along it. {x, y} (arrays, in widths) and gap, the distance along the track between
 * neighbours (a circle's chord is at least 0.96 of it for n >= 8).
 */
export function trackPoints(n, H) {
  const r = 0.42, L = H - 1; // the straight sides' length
  const arc = Math.PI * r;
  const P = 2 * arc + 2 * L;
  const x = new Array(n), y = new Array(n);
  const yt = 0.5, yb = H - 0.5; // the half circles' centres
  for (let f = 0; f < n; f++) {
    let s = (P * f) / n;
    let px, py;
    if (s < arc / 2) { const a = s / r; px = 0.5 + r * Math.sin(a); py = yt - r * Math.cos(a); }
    else if ((s -= arc / 2) < L) { px = 0.5 + r; py = yt + s; }
    else if ((s -= L) < arc) { const a = Math.PI / 2 + s / r; px = 0.5 + r * Math.sin(a); py = yb - r * Math.cos(a); }
    else if ((s -= arc) < L) { px = 0.5 - r; py = yb - s; }
    else { s -= L; const a = (3 * Math.PI) / 2 + s / r; px = 0.5 + r * Math.sin(a); py = yt - r * Math.cos(a); }
    x[f] = px; y[f] = py;
  }
  return { x, y, gap: P / n };
}

function circleBoard(box, view) {
  const st = view.state;
  const board = st.board;
  const n = board.length;
  const p = view.player;
  const sel = view.sel && view.sel.kind === "field" ? view.sel.from : null;
  const targets = sel !== null ? circleTargets(board, sel) : new Map();
  const last = view.last;
  const ring = el("div", { class: "circle-board", role: "group", label: t("app.board.circle", { n }) });
  // Many fields: smaller ones, so that neighbours do not overlap on a phone.
  // The fields stand 2 pi 0.42 / n of the ring's width apart; a field takes at most 0.68
  // of that, so that even diagonal neighbours' boxes stay apart.
  // On a phone, many fields go round a tall track instead (two half circles joined by
  // straight sides, up to 3 times as tall as wide): the fields stand further apart.
  const H = n > 24 && innerWidth < 640 ? Math.min(3, 1 + (n - 24) / 20) : 1;
  const track = trackPoints(n, H);
  ring.style.setProperty("--h", String(H));
  ring.style.setProperty("--inset-y", `${(8 / H).toFixed(3)}%`);
  ring.style.setProperty("--field", `min(2.75rem, ${(track.gap * 68).toFixed(2)}%)`);
  ring.style.setProperty("--field-y", `min(2.75rem, ${((track.gap * 68) / H).toFixed(2)}%)`);
  ring.classList.toggle("crowded", n > 24);
  ring.classList.toggle("track", H > 1);
  if (view.sel && view.sel.kind === "dir") {
    const { from, to } = view.sel;
    box.append(el("div", { class: "split", testid: "dir-choice" },
      el("p", {}, t("app.board.both_ways", { to, from })),
      el("div", { class: "row" },
        el("button", { type: "button", testid: "dir-1", onclick: () => view.onMove({ from, to, dir: 1 }) }, t("app.board.clockwise")),
        el("button", { type: "button", testid: "dir--1", onclick: () => view.onMove({ from, to, dir: -1 }) }, t("app.board.counter_clockwise")),
        el("button", { type: "button", class: "link", testid: "dir-cancel", onclick: () => view.onSelect(null) }, t("app.board.cancel")))));
  }
  for (let f = 0; f < n; f++) {
    const ch = board[f];
    const who = ch === "W" ? 0 : ch === "B" ? 1 : null;
    const cls = ["field"];
    if (who !== null) cls.push("piece", COLOUR[who]);
    if (sel === f) cls.push("selected");
    if (targets.has(f)) cls.push("target");
    if (last && last.to === f) cls.push("last-to");
    if (last && last.from === f) cls.push("last-from");
    const label = t(who === 0 ? "app.board.field_white" : who === 1 ? "app.board.field_black" : "app.board.field_free", { f });
    const b = el("button", {
      type: "button", class: cls.join(" "), testid: `field-${f}`, tabIndex: -1, label, title: label,
      disabled: p === null || view.over,
      onclick: () => {
        if (who === p) { view.onSelect(sel === f ? null : { kind: "field", from: f }); return; }
        if (sel === null) { view.onMove(null); return; } // nothing chosen: the hint says what to do
        const dirs = targets.get(f) || [];
        if (dirs.length === 2) view.onSelect({ kind: "dir", from: sel, to: f });
        else view.onMove(dirs.length === 1 ? { from: sel, to: f, dir: dirs[0] } : { from: sel, to: f });
      },
    }, who !== null ? el("span", { class: "disc", "aria-hidden": "true" }) : null, el("span", { class: "field-no" }, String(f)));
    // Field 0 at the top, clockwise: positions as percentages of the ring's box.
    b.style.setProperty("left", `${(100 * track.x[f]).toFixed(3)}%`);
    b.style.setProperty("top", `${((100 * track.y[f]) / H).toFixed(3)}%`);
    ring.append(b);
  }
  box.append(ring);
}

/** Arrow keys on a board: on the heaps and the grid, Left and Right move the focus along
 * a row and Up and Down to the nearest button of the row above or below; on the circle
 * every arrow goes around it. Home and End go to the first and last button; Escape drops
 * a selection (onEscape returns whether there was one: if not, Escape goes on to leave
 * the board). */
export function boardKey(ev, box, onEscape) {
  if (ev.key === "Escape") { if (onEscape()) { ev.preventDefault(); ev.stopPropagation(); return true; } return false; }
  const buttons = [...box.querySelectorAll("button:not([disabled])")];
  if (buttons.length === 0 || !["ArrowRight", "ArrowDown", "ArrowLeft", "ArrowUp", "Home", "End"].includes(ev.key)) return false;
  const cur = document.activeElement;
  const i = buttons.indexOf(cur);
  const fwd = ev.key === "ArrowRight" || ev.key === "ArrowDown";
  let next;
  if (ev.key === "Home") next = buttons[0];
  else if (ev.key === "End") next = buttons[buttons.length - 1];
  else if (i < 0) next = fwd ? buttons[0] : buttons[buttons.length - 1];
  else if ((ev.key === "ArrowUp" || ev.key === "ArrowDown") && cur.dataset.row !== undefined) {
    // The nearest column in the next row (in that direction) that has buttons.
    const r = Number(cur.dataset.row), c = Number(cur.dataset.col);
    const rows = [...new Set(buttons.filter((b) => b.dataset.row !== undefined).map((b) => Number(b.dataset.row)))].sort((a, b) => a - b);
    const to = fwd ? rows.find((x) => x > r) : rows.reverse().find((x) => x < r);
    if (to === undefined) next = cur;
    else {
      const inRow = buttons.filter((b) => Number(b.dataset.row) === to);
      next = inRow.reduce((best, b) => (Math.abs(Number(b.dataset.col) - c) < Math.abs(Number(best.dataset.col) - c) ? b : best));
    }
  } else next = buttons[(i + (fwd ? 1 : -1) + buttons.length) % buttons.length];
  ev.preventDefault();
  next.focus();
  return true;
}
