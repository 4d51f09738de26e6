// dots.js: dots and boxes in the browser client (server/games/dots/): the board, the
// client's copy of the rules for replays (dotsApply), the words for moves and options and
// the create form's checks. games.js hands the game's cases here.
//
// The board is a CSS grid of (2 rows + 1) x (2 cols + 1) cells: dots at even/even, lines
// between them (buttons: click, tap or Enter/Space; the whole cell is the hit area), boxes
// at odd/odd. A drawn line is coloured by who drew it (the state says: 0, 1, or 2 for a
// border drawn at the start), a box by its owner, the last line is marked, and a banner
// says when the player who just completed a box moves again. Buttons carry data-row and
// data-col in grid cells, in row-major order, so games.js's boardKey moves between lines
// with the arrow keys. The server judges every move; drawn lines are disabled here only
// because they can never be drawn again. Nothing from the server is put in as HTML.
import { t } from "./i18n.js";

export const DOTS_NAMES = [t("app.colour.blue"), t("app.colour.red")]; // box colours of player 0 (white) and 1 (black)

/** The fallback entry of games.js (server/games/dots/dots.c's options). */
export const DOTS_GAME = {
  name: "dots", title: "Dots and boxes", summary: "Draw one line at a time between neighbouring dots; completing a box scores it and you move again; when every line is drawn, most boxes wins.",
  move: "{\"dir\":\"h\"|\"v\",\"row\":R,\"col\":C}",
  options: [
    { name: "rows", type: "integer", default: 5, help: "boxes down the board, 1..10" },
    { name: "cols", type: "integer", default: 5, help: "boxes across the board, 1..10" },
    { name: "outline", type: "boolean", default: false, help: "the source's variant: the border lines are drawn at the start and only the inner lines are played" },
  ],
};

const isInt = (v, lo, hi) => Number.isInteger(v) && v >= lo && v <= hi;

/** The create form's checks, as the server makes them: errors[name] set where refused. */
export function dotsCheckOptions(options, errors) {
  const rows = options.rows ?? 5, cols = options.cols ?? 5;
  if (!errors.rows && !isInt(rows, 1, 10)) errors.rows = t("app.check.dots_rows");
  if (!errors.cols && !isInt(cols, 1, 10)) errors.cols = t("app.check.dots_cols");
  if (!errors.rows && !errors.cols && options.outline && rows < 2 && cols < 2) errors.outline = t("app.check.dots_outline");
}

export function dotsOptionsText(title, o) {
  return t(o.outline ? "app.opts.dots_outline" : "app.opts.dots", { title, rows: o.rows, cols: o.cols });
}

/** The boxes a line touches: [r, c] pairs inside the board. */
function lineBoxes(st, mv) {
  const R = st.owners.length, C = R ? st.owners[0].length : st.lines.h[0].length;
  const out = [];
  if (mv.dir === "h") {
    if (mv.row > 0) out.push([mv.row - 1, mv.col]);
    if (mv.row < R) out.push([mv.row, mv.col]);
  } else {
    if (mv.col > 0) out.push([mv.row, mv.col - 1]);
    if (mv.col < C) out.push([mv.row, mv.col]);
  }
  return out;
}

const boxDone = (lines, r, c) => lines.h[r][c] >= 0 && lines.h[r + 1][c] >= 0 && lines.v[r][c] >= 0 && lines.v[r][c + 1] >= 0;

/** The state after an accepted move, as the server writes it (state_json). */
export function dotsApply(st, mv) {
  const p = st.to_move;
  const lines = { h: st.lines.h.map((r) => r.slice()), v: st.lines.v.map((r) => r.slice()) };
  lines[mv.dir][mv.row][mv.col] = p;
  const owners = st.owners.map((r) => r.slice());
  const score = st.score.slice();
  let took = 0;
  for (const [r, c] of lineBoxes(st, mv)) {
    if (owners[r][c] < 0 && boxDone(lines, r, c)) { owners[r][c] = p; took++; }
  }
  score[p] += took;
  return { ...st, lines, owners, score, to_move: took ? p : 1 - p, last: { dir: mv.dir, row: mv.row, col: mv.col }, again: took > 0, moves: st.moves + 1 };
}

/** A move in words: "drew the line right of box 2,3 and took 1 box". */
export function dotsMoveText(mv, prev) {
  const where = mv.dir === "h" ? t("app.move.dots_h", { row: mv.row + 1, col: mv.col + 1 }) : t("app.move.dots_v", { row: mv.row + 1, col: mv.col + 1 });
  if (!prev || !prev.lines) return t("app.move.dots", { where });
  const next = dotsApply(prev, mv);
  const took = next.score[prev.to_move] - prev.score[prev.to_move];
  return took ? t("app.move.dots_took", { where, count: took }) : t("app.move.dots", { where });
}

export const DOTS_HINT = t("app.hint.dots");

/** The result in words for the reason the game gives ("score"), or null. */
export function dotsResultWords(result, names) {
  if (result.reason !== "score") return null;
  const pts = Array.isArray(result.score) ? ` ${result.score[0]}–${result.score[1]}` : "";
  if (result.winner === null || result.winner === undefined) return t("app.result.dots_draw", { pts });
  return t("app.result.dots_win", { name: names[result.winner], pts });
}

/** Draws the board into box (view as games.js's drawBoard takes it; el is its helper). */
export function dotsBoard(box, view, el, colour = DOTS_NAMES) {
  const st = view.state;
  const R = st.lines.v.length, C = st.lines.h[0].length;
  const last = st.last;
  const p = view.player;
  const who = (x) => (x === 0 || x === 1 ? colour[x] : "");
  // The banner follows the shown state (a replay's step too); the buttons follow the match.
  const over = st.lines.h.every((r) => r.every((x) => x >= 0)) && st.lines.v.every((r) => r.every((x) => x >= 0));
  box.append(el("p", { class: "dots-score", testid: "dots-score" },
    t("app.board.dots_score", { c0: colour[0], s0: st.score[0], c1: colour[1], s1: st.score[1] })));
  if (st.again && !over) {
    const mine = p === st.to_move;
    box.append(el("p", { class: `dots-again p${st.to_move}`, testid: "dots-again", role: "status" },
      mine ? t("app.board.dots_again_you") : t("app.board.dots_again", { colour: `${who(st.to_move)[0].toUpperCase()}${who(st.to_move).slice(1)}` })));
  }
  // A group of buttons (the lines) and pictures (the boxes): not an ARIA grid, whose cells
  // would need rows; arrow keys still move by rows (boardKey, data-row and data-col).
  const grid = el("div", { class: "dots-board", role: "group", label: t("app.board.dots_grid", { rows: R, cols: C }) });
  grid.style.setProperty("--cols", String(C));
  grid.style.setProperty("--rows", String(R));
  for (let gy = 0; gy <= 2 * R; gy++) {
    for (let gx = 0; gx <= 2 * C; gx++) {
      if (gy % 2 === 0 && gx % 2 === 0) { grid.append(el("span", { class: "dot", "aria-hidden": "true" })); continue; }
      if (gy % 2 === 1 && gx % 2 === 1) {
        const r = (gy - 1) / 2, c = (gx - 1) / 2, o = st.owners[r][c];
        grid.append(el("span", { class: `dbox${o >= 0 ? ` owned p${o}` : ""}`, testid: `box-${r}-${c}`, "data-owner": String(o), role: "img", label: o >= 0 ? t("app.board.dots_box_owned", { r: r + 1, c: c + 1, colour: colour[o] }) : t("app.board.dots_box_open", { r: r + 1, c: c + 1 }) },
          o >= 0 ? el("span", { class: "owner-mark", "aria-hidden": "true" }, colour[o][0].toUpperCase()) : null));
        continue;
      }
      const dir = gy % 2 === 0 ? "h" : "v";
      const row = dir === "h" ? gy / 2 : (gy - 1) / 2, col = dir === "h" ? (gx - 1) / 2 : gx / 2;
      const d = st.lines[dir][row][col];
      const cls = ["dline", dir];
      if (d >= 0) cls.push("drawn", d === 2 ? "pre" : `p${d}`);
      const isLast = last && last.dir === dir && last.row === row && last.col === col;
      if (isLast) cls.push("last");
      const name = dir === "h" ? t("app.board.dots_line_h", { row: row + 1, col: col + 1 }) : t("app.board.dots_line_v", { row: row + 1, col: col + 1 });
      const state = d < 0 ? t("app.board.dots_not_drawn") : d === 2 ? t("app.board.dots_pre") : t("app.board.dots_by", { colour: colour[d] });
      const label = `${name}: ${state}${isLast ? ` ${t("app.board.dots_last")}` : ""}`;
      const b = el("button", {
        type: "button", class: cls.join(" "), testid: `line-${dir}-${row}-${col}`, tabIndex: -1, label, title: label,
        disabled: p === null || view.over || over || d >= 0,
        onclick: () => view.onMove({ dir, row, col }),
      });
      b.dataset.row = String(gy);
      b.dataset.col = String(gx);
      grid.append(b);
    }
  }
  box.append(grid);
}
