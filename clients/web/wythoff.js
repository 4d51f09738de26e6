// wythoff.js: generalised Wythoff's game (server/games/wythoff/) in the browser client:
// its fallback entry for the game list, the create form's checks, the state after a
// move, the words for a move, and its board. Two heaps (x, y) are a queen-like piece on
// a quarter-plane board at column x, row y: a move goes left (takes from heap 1), down
// (from heap 2) or down-left within the cone |dx - dy| < a (from both); the corner (0, 0)
// is the goal, and who cannot move (the piece on the corner) loses. Heaps too big to
// draw as a grid get two counters and number inputs instead. The server judges every
// move: the board marks what the rules allow and sends what is clicked.
import { t } from "./i18n.js";

/** Positions with both heaps below this are drawn as a grid of squares. */
export const WYTHOFF_GRID_MAX = 40;

export const WYTHOFF_INFO = {
  name: "wythoff", title: "Wythoff's game", summary: "Two heaps; take any number of tokens from one heap, or x and y from both with |x − y| < a; who cannot move loses.",
  move: "{\"take\":[x,y]}",
  options: [
    { name: "a", type: "integer", default: 1, help: "1..1000: a move from both heaps takes x and y tokens with |x − y| < a (1: Wythoff's game, equal numbers)" },
    { name: "heaps", type: "array of integers", default: null, help: "the starting heaps x y, each 0..9007199254740991 (2^53−1), at least one token; empty: a random start" },
    { name: "start", type: "string", default: "random", help: "\"random\" (each heap 10..30 tokens; the default without heaps) or \"heaps\" (the given heaps; the default with them)" },
  ],
};

const HEAP_MAX = Number.MAX_SAFE_INTEGER; // 2^53 - 1: what JSON carries exactly

/** The create form's checks, as the server makes them (wythoff.c): fills errors. */
export function wythoffCheck(options, errors) {
  if (Array.isArray(options.heaps) && options.heaps.length === 0) delete options.heaps; // empty field: random
  const a = options.a ?? 1;
  if (!errors.a && !(Number.isInteger(a) && a >= 1 && a <= 1000)) errors.a = "a: 1 to 1000.";
  const h = options.heaps;
  if (h && !errors.heaps) {
    if (h.length !== 2) errors.heaps = t("app.check.wy_two", { count: h.length });
    else if (h.some((x) => !Number.isSafeInteger(x) || x < 0 || x > HEAP_MAX)) errors.heaps = t("app.check.wy_size", { max: HEAP_MAX });
    else if (h[0] === 0 && h[1] === 0) errors.heaps = t("app.check.wy_empty");
  }
  // The form starts with start "random" (its documented default): heaps typed in make
  // the start theirs, so that filling in the heaps alone is enough.
  if (h && options.start === "random") delete options.start;
  const st = options.start;
  if (st !== undefined && !errors.start) {
    if (st !== "random" && st !== "heaps") errors.start = "Start: \"random\" or \"heaps\".";
    else if (st === "heaps" && !h) errors.heaps = t("app.check.wy_start");
  }
}

/** Whether taking tx from heap 1 and ty from heap 2 is legal at heaps (x, y) under a. */
export function wythoffLegal(x, y, a, tx, ty) {
  if (!Number.isInteger(tx) || !Number.isInteger(ty) || tx < 0 || ty < 0 || tx > x || ty > y) return false;
  if (tx === 0 && ty === 0) return false;
  return tx === 0 || ty === 0 || Math.abs(tx - ty) < a;
}

/** The state after the accepted move mv from st (state_json's shape). */
export function wythoffApply(st, mv) {
  return { ...st, heaps: [st.heaps[0] - mv.take[0], st.heaps[1] - mv.take[1]], to_move: 1 - st.to_move, moves: st.moves + 1 };
}

/** A move in words. */
export function wythoffMoveText(mv) {
  const [x, y] = mv.take;
  if (x > 0 && y > 0) return t("app.move.wy_both", { x, y });
  return t("app.move.nim", { take: x > 0 ? x : y, heap: x > 0 ? 1 : 2 });
}

export const WYTHOFF_HINT = t("app.hint.wythoff");

/** A room's options in a few words. */
export function wythoffOptionsText(title, o) {
  return t(o.heaps ? "app.opts.wythoff" : "app.opts.wythoff_random", { title, a: o.a, heaps: o.heaps ? o.heaps.join(" ") : "" });
}

/** Draws the board (view as games.js drawBoard documents it) into box. */
/** el: games.js's element maker (as dotsBoard takes it). */
export function wythoffBoard(box, view, el) {
  const st = view.state;
  const [x, y] = st.heaps;
  const a = st.a ?? 1;
  const idle = view.player === null || view.over;
  const prev = view.prev && view.prev.heaps ? view.prev.heaps : null;
  box.append(el("p", { class: "wy-heaps", testid: "wy-heaps" }, t(a === 1 ? "app.board.wy_heaps_equal" : "app.board.wy_heaps", { x, y, a })));
  if (Math.max(x, y) < WYTHOFF_GRID_MAX) {
    gridView(box, view, el, x, y, a, idle, prev);
    // On a phone a big grid's squares are small to tap: the counters come too.
    if (!idle && (x + 1) * 28 > innerWidth - 32) counterView(box, view, el, x, y, a, idle, true);
  } else counterView(box, view, el, x, y, a, idle);
}

function gridView(box, view, el, x, y, a, idle, prev) {
  // Only as much of the quarter plane as the piece (and its last square) needs: the
  // columns up to heap 1, the rows up to heap 2.
  const cols = Math.max(x, prev ? prev[0] : 0) + 1, rows = Math.max(y, prev ? prev[1] : 0) + 1;
  const grid = el("div", { class: "grid-board wy-board", role: "grid", label: t("app.board.wy_grid", { cols, rows, x, y }) });
  grid.style.setProperty("--cols", String(cols));
  for (let r = 0; r < rows; r++) {
    const j = rows - 1 - r; // heap 2 grows upward
    const row = el("div", { class: "grid-row", role: "row", testid: `wy-row-${j}` });
    for (let i = 0; i < cols; i++) {
      const here = i === x && j === y;
      const legal = wythoffLegal(x, y, a, x - i, y - j);
      const cls = ["square", "wy-sq"];
      if (here) cls.push("piece", "queen");
      if (legal) cls.push("target");
      if (i === 0 && j === 0) cls.push("wy-goal");
      if (prev && view.last && prev[0] === i && prev[1] === j) cls.push("last-from");
      if (here && view.last) cls.push("last-to");
      const label = t(here ? "app.board.wy_sq_piece" : legal ? "app.board.wy_sq_take" : "app.board.wy_sq", { i, j, x: x - i, y: y - j });
      const b = el("button", {
        type: "button", class: cls.join(" "), testid: `wy-${i}-${j}`, tabIndex: -1, label, title: label,
        // Squares right of or above the piece are no move at all; the rest are sent as
        // clicked (the server says why one is refused).
        disabled: idle || here || i > x || j > y, role: "gridcell",
        onclick: () => view.onMove({ take: [x - i, y - j] }),
      });
      if (here) b.append(el("span", { class: "wy-queen", "aria-hidden": "true" }, "♛"));
      b.dataset.row = String(r);
      b.dataset.col = String(i);
      row.append(b);
    }
    grid.append(row);
  }
  box.append(grid);
}

function counterView(box, view, el, x, y, a, idle, alsoGrid = false) {
  const input = (h, max) => el("input", { type: "number", min: "0", max: String(max), step: "1", value: "0", testid: `wy-take-${h}`, disabled: idle, label: t("app.board.wy_input", { h: h + 1 }) });
  const t0 = input(0, x), t1 = input(1, y);
  const send = () => {
    const tx = Number(t0.value || "0"), ty = Number(t1.value || "0");
    view.onMove({ take: [tx, ty] });
  };
  box.append(el("div", { class: "wy-counters", testid: "wy-counters" },
    el("p", { class: "small" }, alsoGrid ? t("app.board.wy_or_enter", { a })
      : t("app.board.wy_too_big", { a })),
    el("label", {}, `${t("app.board.wy_take_from", { h: 1, n: x })} `, t0),
    el("label", {}, `${t("app.board.wy_take_from", { h: 2, n: y })} `, t1),
    el("button", { type: "button", testid: "wy-take", disabled: idle, onclick: send }, t("app.board.wy_take"))));
}
