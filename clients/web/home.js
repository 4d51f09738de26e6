// home.js: the first screen's game cards. Every game the server hosts is a card with a
// small picture of its board, one line on what it is, and two ways to play: the computer
// (levels named for people, the engine in small print) and a friend (an invite link).
// A card's rules open in place. The cards only describe; app.js starts the games.

import { t } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";

/** An SVG element with attributes (no styles: the page's CSP allows none inline). */
function svg(tag, attrs = {}, ...children) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  for (const c of children) e.append(c);
  return e;
}

const INK = "#1b2a41";
const WHITE = "#f4f1e8";
const ACCENT = "#c2571a";
const LINE = "#8a94a6";

/** The levels, weakest first: a name for people and the engine behind it. */
const HEAP_LEVELS = [
  { key: "beginner", label: t("app.level.beginner"), spec: "random", engine: t("app.engine.random") },
  { key: "casual", label: t("app.level.casual"), spec: "uct:iterations=300", engine: t("app.engine.uct300") },
  { key: "strong", label: t("app.level.strong"), spec: "uct:iterations=3000", engine: t("app.engine.uct3000") },
  { key: "expert", label: t("app.level.expert"), spec: "perfect", engine: t("app.engine.perfect") },
];

/**
 * The cards, in the order of the first screen. rules: a few sentences from docs/games.md
 * and RULES.md, enough to play a first game. first: who moves first against the computer
 * ("creator": the player).
 */
export const CARDS = [
  {
    game: "thue", title: t("app.game.thue"),
    line: t("app.card.thue.line"),
    levels: [
      { key: "beginner", label: t("app.level.beginner"), spec: "greedy", engine: "greedy" },
      { key: "casual", label: t("app.level.casual"), spec: "nested:1", engine: "nested:1" },
      { key: "strong", label: t("app.level.strong"), spec: "nested:2", engine: "nested:2" },
      { key: "expert", label: t("app.level.expert"), spec: "uct", engine: "uct" },
    ],
    rules: [
      t("app.card.thue.rule1"),
      t("app.card.thue.rule2"),
      t("app.card.thue.rule3"),
    ],
  },
  {
    game: "nim", title: t("app.game.nim"),
    line: t("app.card.nim.line"),
    levels: HEAP_LEVELS,
    rules: [
      t("app.card.nim.rule1"),
      t("app.card.nim.rule2"),
      t("app.card.nim.rule3"),
    ],
  },
  {
    game: "rims", title: t("app.game.rims"),
    line: t("app.card.rims.line"),
    levels: HEAP_LEVELS,
    rules: [
      t("app.card.rims.rule1"),
      t("app.card.rims.rule2"),
      t("app.card.rims.rule3"),
    ],
  },
  {
    game: "northcott", title: t("app.game.northcott"),
    line: t("app.card.northcott.line"),
    levels: HEAP_LEVELS,
    rules: [
      t("app.card.northcott.rule1"),
      t("app.card.northcott.rule2"),
      t("app.card.northcott.rule3"),
    ],
  },
  {
    game: "circle", title: t("app.game.circle"),
    line: t("app.card.circle.line"),
    levels: HEAP_LEVELS,
    rules: [
      t("app.card.circle.rule1"),
      t("app.card.circle.rule2"),
      t("app.card.circle.rule3"),
    ],
  },
  {
    game: "wythoff", title: t("app.game.wythoff"),
    line: t("app.card.wythoff.line"),
    levels: HEAP_LEVELS,
    rules: [
      t("app.card.wythoff.rule1"),
      t("app.card.wythoff.rule2"),
      t("app.card.wythoff.rule3"),
    ],
  },
  {
    game: "dots", title: t("app.game.dots"),
    line: t("app.card.dots.line"),
    levels: [
      { key: "beginner", label: t("app.level.beginner"), spec: "random", engine: t("app.engine.random") },
      { key: "casual", label: t("app.level.casual"), spec: "heuristic", engine: t("app.engine.heuristic") },
      { key: "strong", label: t("app.level.strong"), spec: "uct:iterations=3000", engine: t("app.engine.uct3000") },
      { key: "expert", label: t("app.level.expert"), spec: "strong", engine: t("app.engine.strong") },
    ],
    rules: [
      t("app.card.dots.rule1"),
      t("app.card.dots.rule2"),
      t("app.card.dots.rule3"),
    ],
  },
];

export function cardOf(game) {
  return CARDS.find((c) => c.game === game) || null;
}

/** The level of a game by its spec, or null. */
export function levelOf(game, spec) {
  const c = cardOf(game);
  return c ? c.levels.find((l) => l.spec === spec) || null : null;
}

// ---- pictures: each game's board in miniature (96 x 64) -------------------------------

function thuePic() {
  const s = svg("svg", { viewBox: "0 0 96 64" });
  const colours = ["#3d6fb6", "#d08a1e", "#3f9a5b", "#a54a8c"];
  [0, 1, 2, 0].forEach((sym, i) => {
    s.append(svg("rect", { x: 3 + i * 19, y: 20, width: 17, height: 24, rx: 3, fill: colours[sym] }));
    s.append(svg("text", { x: 11.5 + i * 19, y: 37, "text-anchor": "middle", "font-size": 12, fill: "#fff" }, String(sym)));
  });
  s.append(svg("rect", { x: 79, y: 20, width: 15, height: 24, rx: 3, fill: "none", stroke: ACCENT, "stroke-width": 1.5, "stroke-dasharray": "3 2" }));
  s.append(svg("text", { x: 86.5, y: 37, "text-anchor": "middle", "font-size": 12, fill: ACCENT }, "?"));
  return s;
}

function heapsPic(heaps) {
  const s = svg("svg", { viewBox: "0 0 96 64" });
  heaps.forEach((h, i) => {
    for (let t = 0; t < h; t++) s.append(svg("circle", { cx: 20 + i * 28, cy: 56 - t * 10, r: 4.5, fill: INK }));
  });
  return s;
}

function rimsPic() {
  const s = svg("svg", { viewBox: "0 0 96 64" });
  const regions = [[22, 32, 18, 22, 3], [60, 22, 16, 14, 2], [70, 48, 20, 12, 4]];
  for (const [cx, cy, rx, ry, dots] of regions) {
    s.append(svg("ellipse", { cx, cy, rx, ry, fill: "none", stroke: LINE, "stroke-width": 1.5 }));
    for (let d = 0; d < dots; d++) s.append(svg("circle", { cx: cx - (dots - 1) * 4 + d * 8, cy, r: 2.5, fill: INK }));
  }
  return s;
}

function northcottPic() {
  const s = svg("svg", { viewBox: "0 0 96 64" });
  const rows = [[0, 5], [2, 4], [1, 7], [3, 6]];
  rows.forEach(([w, b], r) => {
    for (let c = 0; c < 8; c++) s.append(svg("rect", { x: 8 + c * 10, y: 8 + r * 12, width: 10, height: 12, fill: (r + c) % 2 ? "#e7e2d3" : "#d4cdb7" }));
    s.append(svg("circle", { cx: 13 + w * 10, cy: 14 + r * 12, r: 4, fill: WHITE, stroke: INK }));
    s.append(svg("circle", { cx: 13 + b * 10, cy: 14 + r * 12, r: 4, fill: INK }));
  });
  return s;
}

function circlePic() {
  const s = svg("svg", { viewBox: "0 0 96 64" });
  const board = "W..B.W..BB..";
  s.append(svg("circle", { cx: 48, cy: 32, r: 24, fill: "none", stroke: LINE, "stroke-width": 1 }));
  for (let i = 0; i < board.length; i++) {
    const a = (i / board.length) * 2 * Math.PI - Math.PI / 2;
    const x = 48 + 24 * Math.cos(a), y = 32 + 24 * Math.sin(a);
    const ch = board[i];
    s.append(svg("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: ch === "." ? 2 : 4.5, fill: ch === "B" ? INK : ch === "W" ? WHITE : LINE, stroke: ch === "W" ? INK : "none" }));
  }
  return s;
}

function wythoffPic() {
  const s = svg("svg", { viewBox: "0 0 96 64" });
  [[5, 22], [3, 58]].forEach(([h, x]) => {
    for (let t = 0; t < h; t++) s.append(svg("circle", { cx: x, cy: 56 - t * 10, r: 4.5, fill: INK }));
  });
  s.append(svg("path", { d: "M30 14 L50 14 M30 30 L50 30", stroke: ACCENT, "stroke-width": 2 }));
  return s;
}

function dotsPic() {
  const s = svg("svg", { viewBox: "0 0 96 64" });
  const x0 = 22, y0 = 8, d = 24;
  s.append(svg("rect", { x: x0 + 2, y: y0 + 2, width: d - 4, height: d - 4, fill: "#e8c9a8" }));
  const lines = [[0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 1, 1], [0, 1, 1, 1], [1, 1, 2, 1], [2, 0, 2, 1], [1, 2, 2, 2]];
  for (const [a, b, c, e] of lines) s.append(svg("line", { x1: x0 + a * d, y1: y0 + b * d, x2: x0 + c * d, y2: y0 + e * d, stroke: INK, "stroke-width": 2.5 }));
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) s.append(svg("circle", { cx: x0 + i * d, cy: y0 + j * d, r: 3, fill: INK }));
  return s;
}

const PICTURES = {
  thue: thuePic, nim: () => heapsPic([3, 4, 5]), rims: rimsPic, northcott: northcottPic,
  circle: circlePic, wythoff: wythoffPic, dots: dotsPic,
};

/** The card's picture (an SVG, hidden from screen readers: the title says it all). */
export function picture(game) {
  const s = (PICTURES[game] || (() => svg("svg", { viewBox: "0 0 96 64" })))();
  s.setAttribute("aria-hidden", "true");
  s.setAttribute("focusable", "false");
  s.setAttribute("class", "card-pic");
  return s;
}
