// puzzles.js: the puzzle pages (issue 33; docs/puzzles.md): #/puzzles shows every game's
// puzzle of the day, #/puzzles/<game> the game's stored puzzles one at a time. A puzzle is
// a position where exactly one move keeps a win; the player moves on the game's own board
// (games.js's drawBoard), and the page compares the move with the puzzle's solution, which
// the server sends with it (GET /api/puzzles..., PROTOCOL.md section 13): right is
// "solved", wrong says so and offers another try or the solution. Nothing is sent back to
// the server. Solved puzzles are remembered in this browser (localStorage). Every word
// comes from the "puzzles" catalogue (i18n.js's t); nothing from the server is put in the
// page as HTML. Thue's puzzles are point-saving ones (one move keeps the painter points the
// mover can force): a round's word drawn as tiles (thueword.js), the builder's gaps or the
// painter's symbols to choose from.

import { applyMove, drawBoard, el, gameTitle } from "./games.js";
import { fmtDate, fmtNumber, loadArea, t } from "./i18n.js";
import { drawSymbolButtons, drawWordTiles } from "./thueword.js";

/** The games with puzzles, in the server's order. */
export const PUZZLE_GAMES = ["thue", "nim", "circle", "northcott", "rims", "wythoff", "dots"];

/** A game's name on these pages (games.js knows every game but Thue). */
function puzzleGameTitle(game) {
  return game === "thue" ? t("puzzles.thue.title") : gameTitle(game);
}

const SOLVED_KEY = "thue.puzzles.solved";

function solvedSet() {
  try {
    const v = JSON.parse(localStorage.getItem(SOLVED_KEY) || "[]");
    return new Set(Array.isArray(v) ? v : []);
  } catch { return new Set(); }
}

function markSolved(id) {
  const s = solvedSet();
  s.add(id);
  try { localStorage.setItem(SOLVED_KEY, JSON.stringify([...s].slice(-2000))); } catch { /* not remembered */ }
}

/** Whether two moves are the same: every member equal, a missing number counting as 0
 * (Rims' split), arrays by value (Wythoff's take). */
export function sameMove(a, b) {
  if (!a || !b) return false;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    const x = a[k] ?? 0, y = b[k] ?? 0;
    if (JSON.stringify(x) !== JSON.stringify(y)) return false;
  }
  return true;
}

/** Whether mv solves pz: the solution itself, or a move that leaves the same position
 * (Rims' split of X and of the rest less X make the same regions). */
export function isSolution(pz, mv) {
  if (sameMove(mv, pz.solution)) return true;
  try {
    return JSON.stringify(applyMove(pz.game, pz.position, mv)) === JSON.stringify(applyMove(pz.game, pz.position, pz.solution));
  } catch { return false; }
}

async function getJSON(url) {
  const res = await fetch(url);
  let j = null;
  try { j = await res.json(); } catch { /* not JSON */ }
  if (!res.ok) {
    const err = new Error(res.status === 404 ? "not_found" : "failed");
    err.status = res.status;
    err.code = j && j.error ? j.error.code : "";
    throw err;
  }
  return j;
}

/** The mover's side in words: the board's colours (dots and boxes: blue and red). */
function sideText(game, player) {
  const sides = game === "dots" ? ["blue", "red"] : ["white", "black"];
  return t(`puzzles.side.${sides[player === 1 ? 1 : 0]}`);
}

/**
 * One puzzle, playable, into a new element (returned). opts: {testid, onSolved(id)}.
 * The board takes a move of the player to move; a move is judged at once.
 */
function puzzleWidget(pz, opts = {}) {
  if (pz.game === "thue") return thueWidget(pz, opts);
  const root = el("section", { class: "puzzle", testid: opts.testid || "puzzle" });
  root.dataset.id = String(pz.id);
  root.dataset.game = pz.game;
  const head = el("p", { class: "puzzle-task", testid: "puzzle-task" },
    t("puzzles.task", { side: sideText(pz.game, pz.to_move) }));
  const meta = el("p", { class: "small puzzle-meta", testid: "puzzle-meta" },
    t("puzzles.meta", { id: pz.id, difficulty: pz.difficulty, moves: pz.moves }),
    " ", el("span", { class: "puzzle-stars", "aria-hidden": "true" }, "★".repeat(pz.difficulty) + "☆".repeat(Math.max(0, 5 - pz.difficulty))));
  const box = el("div", { class: "gboard puzzle-board", testid: "puzzle-board", role: "group", label: t("puzzles.board") });
  const status = el("p", { class: "puzzle-status", testid: "puzzle-status", role: "status" });
  const actions = el("p", { class: "puzzle-actions" });
  root.append(head, meta, box, status, actions);

  // The view: "play" (the position, the player's turn), "wrong" (after a wrong move),
  // "solved" (after the right one), "shown" (the solution on the board).
  let mode = "play", sel = null, tried = null, wrongs = 0;

  const draw = () => {
    const after = mode === "wrong" ? tried : mode === "solved" || mode === "shown" ? pz.solution : null;
    drawBoard(box, {
      game: pz.game,
      state: after ? applyMove(pz.game, pz.position, after) : pz.position,
      player: pz.to_move,
      active: mode === "play",
      over: mode !== "play",
      last: after, prev: after ? pz.position : null, sel,
      onMove: (mv) => { if (mode === "play") judge(mv); },
      onSelect: (s) => { if (mode === "play") { sel = s; draw(); } },
    });
    box.dataset.mode = mode;
    root.dataset.mode = mode;
    actions.textContent = "";
    if (mode === "wrong") {
      actions.append(
        el("button", { type: "button", testid: "puzzle-retry", onclick: () => { mode = "play"; tried = null; say("", ""); draw(); } }, t("puzzles.retry")),
        " ",
        el("button", { type: "button", testid: "puzzle-show", onclick: () => { mode = "shown"; say(t("puzzles.shown"), "shown"); draw(); } }, t("puzzles.show")));
    }
  };

  const say = (text, kind) => {
    status.textContent = text;
    status.dataset.kind = kind;
  };

  const judge = (mv) => {
    sel = null;
    if (!mv) { say(t("puzzles.pickFirst"), "hint"); draw(); return; }
    if (isSolution(pz, mv)) {
      mode = "solved";
      say(wrongs === 0 ? t("puzzles.solved") : t("puzzles.solvedAfter", { count: wrongs }), "solved");
      markSolved(pz.id);
      if (opts.onSolved) opts.onSolved(pz.id);
    } else {
      mode = "wrong";
      tried = mv;
      wrongs++;
      say(t("puzzles.wrong"), "wrong");
    }
    draw();
  };

  if (solvedSet().has(pz.id)) say(t("puzzles.solvedBefore"), "note");
  draw();
  return root;
}

/**
 * A Thue puzzle, playable (as puzzleWidget): the round's word as tiles; the builder
 * chooses a gap, the painter a symbol for the marked gap. After a move the word shows it
 * (the chosen gap marked, or the painted symbol ringed).
 */
function thueWidget(pz, opts = {}) {
  const { k, limit, variant } = pz.options;
  const word = pz.position.word;
  const painting = pz.position.step === "paint";
  const role = painting ? "painter" : "builder";
  const root = el("section", { class: "puzzle", testid: opts.testid || "puzzle" });
  root.dataset.id = String(pz.id);
  root.dataset.game = pz.game;
  const head = el("p", { class: "puzzle-task", testid: "puzzle-task" }, t(`puzzles.thue.task.${role}`));
  const rules = el("p", { class: "small", testid: "puzzle-rules" },
    t(`puzzles.thue.rules.${variant === "overlap" ? "overlap" : "square"}`, { max: k - 1, limit }), " ",
    t("puzzles.thue.points", { count: word.length - 1 }));
  const meta = el("p", { class: "small puzzle-meta", testid: "puzzle-meta" },
    t("puzzles.meta", { id: pz.id, difficulty: pz.difficulty, moves: pz.moves }),
    " ", el("span", { class: "puzzle-stars", "aria-hidden": "true" }, "★".repeat(pz.difficulty) + "☆".repeat(Math.max(0, 5 - pz.difficulty))));
  const box = el("div", { class: "word puzzle-word", testid: "puzzle-board", role: "group", label: t("puzzles.thue.word") });
  const pick = el("div", { class: "palette puzzle-symbols", testid: "puzzle-symbols", role: "group", label: t("puzzles.thue.symbols") });
  const status = el("p", { class: "puzzle-status", testid: "puzzle-status", role: "status" });
  const actions = el("p", { class: "puzzle-actions" });
  root.append(head, rules, meta, box);
  if (painting) root.append(pick);
  root.append(status, actions);

  let mode = "play", tried = null, wrongs = 0;
  const say = (text, kind) => {
    status.textContent = text;
    status.dataset.kind = kind;
  };

  const draw = () => {
    const mv = mode === "wrong" ? tried : mode === "solved" || mode === "shown" ? pz.solution : null;
    const play = mode === "play";
    let shown = word, placed = painting ? pz.position.placed : null, newest = null;
    if (mv && mv.place !== undefined) placed = mv.place;
    if (mv && mv.paint !== undefined) {
      shown = [...word.slice(0, placed), mv.paint, ...word.slice(placed)];
      newest = placed;
      placed = null;
    }
    drawWordTiles(box, shown, {
      k, placed, newest, canPlace: play && !painting, onPlace: (i) => { if (mode === "play") judge({ place: i }); },
      gapLabel: (i) => t("puzzles.thue.gap", { i }), gapId: (i) => `puzzle-gap-${i}`, tileId: (i) => `puzzle-tile-${i}`,
    });
    if (painting)
      drawSymbolButtons(pick, {
        k, canPaint: play, onPaint: (c) => { if (mode === "play") judge({ paint: c }); },
        title: (c) => t("puzzles.thue.symbol", { s: c }), symId: (c) => `puzzle-sym-${c}`,
      });
    box.dataset.mode = mode;
    root.dataset.mode = mode;
    box.dataset.word = shown.join("");
    actions.textContent = "";
    if (mode === "wrong") {
      actions.append(
        el("button", { type: "button", testid: "puzzle-retry", onclick: () => { mode = "play"; tried = null; say("", ""); draw(); } }, t("puzzles.retry")),
        " ",
        el("button", { type: "button", testid: "puzzle-show", onclick: () => { mode = "shown"; say(t(`puzzles.thue.shown.${role}`, { count: pz.value }), "shown"); draw(); } }, t("puzzles.show")));
    }
  };

  const judge = (mv) => {
    if (sameMove(mv, pz.solution)) {
      mode = "solved";
      say(`${wrongs === 0 ? t("puzzles.thue.solved") : t("puzzles.solvedAfter", { count: wrongs })} ${t(`puzzles.thue.kept.${role}`, { count: pz.value })}`, "solved");
      markSolved(pz.id);
      if (opts.onSolved) opts.onSolved(pz.id);
    } else {
      mode = "wrong";
      tried = mv;
      wrongs++;
      say(t(`puzzles.thue.wrong.${role}`), "wrong");
    }
    draw();
  };

  if (solvedSet().has(pz.id)) say(t("puzzles.solvedBefore"), "note");
  draw();
  return root;
}

/** A line saying why there is nothing to show (an error or no puzzles). */
function emptyLine(e, testid) {
  const text = e && e.status === 404 && e.code === "not_available" ? t("puzzles.noDatabase")
    : e && e.status === 404 ? t("puzzles.none")
    : t("puzzles.loadFailed");
  return el("p", { class: "empty", testid }, text);
}

/** #/puzzles: every game's puzzle of the day. */
async function dailyPage(root) {
  root.append(el("h2", {}, t("puzzles.dailyTitle")));
  root.append(el("p", { class: "small" }, t("puzzles.intro"), " ", t("puzzles.thue.intro")));
  const today = new Date();
  root.append(el("p", { class: "small", testid: "puzzles-date" }, t("puzzles.dailyDate", { date: fmtDate(today, { dateStyle: "full", timeZone: "UTC" }) })));
  const grid = el("div", { class: "puzzle-days" });
  root.append(grid);
  const answers = await Promise.all(PUZZLE_GAMES.map((g) => getJSON(`/api/puzzles/daily?game=${encodeURIComponent(g)}`).catch((e) => e)));
  PUZZLE_GAMES.forEach((g, i) => {
    const card = el("div", { class: "puzzle-day", testid: `daily-${g}` });
    card.append(el("h3", {}, puzzleGameTitle(g)));
    const pz = answers[i];
    if (pz instanceof Error) card.append(emptyLine(pz, `daily-${g}-empty`));
    else card.append(puzzleWidget(pz, { testid: `daily-${g}-puzzle` }));
    card.append(el("p", { class: "small" }, el("a", { href: `#/puzzles/${encodeURIComponent(g)}`, testid: `puzzles-${g}-link` }, t("puzzles.more", { game: puzzleGameTitle(g) }))));
    grid.append(card);
  });
}

/** #/puzzles/<game>: the game's puzzles, page by page, one shown at a time. */
async function gamePage(root, game, page) {
  root.append(el("h2", {}, t("puzzles.gameTitle", { game: puzzleGameTitle(game) })));
  root.append(el("p", { class: "small" }, t(game === "thue" ? "puzzles.thue.intro" : "puzzles.intro"), " ", el("a", { href: "#/puzzles", testid: "puzzles-daily-link" }, t("puzzles.dailyLink"))));
  if (!PUZZLE_GAMES.includes(game)) {
    root.append(el("p", { class: "empty", testid: "puzzles-unknown" }, t("puzzles.unknownGame")));
    return;
  }
  let list;
  try {
    list = await getJSON(`/api/puzzles?game=${encodeURIComponent(game)}&page=${page}`);
  } catch (e) {
    root.append(emptyLine(e, "puzzles-empty"));
    return;
  }
  const puzzles = list.puzzles || [];
  if (puzzles.length === 0) {
    root.append(el("p", { class: "empty", testid: "puzzles-empty" }, t("puzzles.none")));
    return;
  }
  const solved = solvedSet();
  const picker = el("div", { class: "puzzle-picker", role: "toolbar", label: t("puzzles.pick"), testid: "puzzle-picker" });
  const holder = el("div", { class: "puzzle-holder" });
  const counter = el("p", { class: "small", testid: "puzzle-count" });
  root.append(counter, picker, holder);
  let at = puzzles.findIndex((p) => !solved.has(p.id));
  if (at < 0) at = 0;

  // The count and the picker's buttons (solved ones ticked); the current one marked.
  const marks = () => {
    const done = solvedSet();
    counter.textContent = t("puzzles.count", { count: list.total, solved: puzzles.filter((p) => done.has(p.id)).length, shown: puzzles.length });
    picker.textContent = "";
    puzzles.forEach((p, k) => {
      const n = (list.page - 1) * 20 + k + 1;
      const b = el("button", {
        type: "button", class: `puzzle-pick${k === at ? " current" : ""}${done.has(p.id) ? " done" : ""}`, testid: `puzzle-pick-${k}`,
        title: t("puzzles.pickTitle", { n, difficulty: p.difficulty }),
        onclick: () => show(k),
      }, fmtNumber(n), done.has(p.id) ? " ✓" : "");
      if (k === at) b.setAttribute("aria-current", "true");
      picker.append(b);
    });
  };

  const show = (i) => {
    at = i;
    marks();
    holder.textContent = "";
    holder.append(puzzleWidget(puzzles[i], { onSolved: marks }));
    const nav = el("p", { class: "puzzle-nav" });
    if (i > 0) nav.append(el("button", { type: "button", testid: "puzzle-prev", onclick: () => show(i - 1) }, t("puzzles.prev")), " ");
    if (i + 1 < puzzles.length) nav.append(el("button", { type: "button", testid: "puzzle-next", onclick: () => show(i + 1) }, t("puzzles.next")));
    holder.append(nav);
  };
  show(at);

  if (list.pages > 1) {
    const link = (k, key, id) => el("a", { href: `#/puzzles/${encodeURIComponent(game)}?page=${k}`, testid: id }, t(key));
    root.append(el("p", { class: "pager", testid: "puzzles-pager" },
      list.page > 1 ? link(list.page - 1, "puzzles.pagePrev", "puzzles-page-prev") : "",
      ` ${t("puzzles.page", { page: list.page, pages: list.pages })} `,
      list.page < list.pages ? link(list.page + 1, "puzzles.pageNext", "puzzles-page-next") : ""));
  }
}

/**
 * Renders the puzzle page into container: game "" (or absent) the puzzles of the day,
 * else that game's puzzles, page `page` (from 1). Resolves once the page is drawn.
 */
export async function renderPuzzles(container, game = "", page = 1) {
  await loadArea("puzzles");
  const root = el("div", { class: "puzzles", testid: "puzzles" });
  container.append(root);
  if (game) await gamePage(root, game, Math.max(1, page | 0));
  else await dailyPage(root);
  root.dataset.ready = "1";
  return root;
}
