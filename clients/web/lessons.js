// lessons.js: the lessons pages (issue 33): #/lessons lists them, #/lessons/<game> is one
// game's lesson: short sections with the facts of the project's source documents, and
// boards with the key positions, where the learner moves and the server's perfect bot
// answers (get_best_move, PROTOCOL.md section 16), saying who wins and why. The boards are
// games.js's (drawBoard, applyMove); Thue's word is drawn here. Every word comes from the
// "lessons" catalogues (i18n.js); everything from the server is put in the page as text.
import { t, fmtNumber, loadArea } from "./i18n.js";
import { applyMove, drawBoard, el } from "./games.js";
import { hasRepetition, losingSymbols } from "./rules.js";
import { drawSymbolButtons, drawWordTiles } from "./thueword.js";

export const LESSON_GAMES = ["thue", "nim", "northcott", "rims", "circle", "wythoff", "dots"];

// ---- the lessons ----------------------------------------------------------------------
// Each lesson: its sections (keys lessons.<game>.<section>.title / .text, the text's
// paragraphs split at blank lines) and its boards: a key position (the game's state JSON
// as the server writes it), the game's options, and the learner's side.

const nimState = (heaps) => ({ heaps, to_move: 0, moves: 0, nim_sum: heaps.reduce((a, b) => a ^ b, 0) });

const LESSONS = {
  thue: {
    sections: ["rules", "three", "four", "open"],
    boards: [
      { id: "k3-paint", thue: { k: 3, learner: "painter" } },
      { id: "k3-build", thue: { k: 3, learner: "builder" } },
      { id: "k4-paint", thue: { k: 4, learner: "painter" } },
    ],
  },
  nim: {
    sections: ["rules", "nimsum", "bouton"],
    boards: [
      { id: "win", options: { heaps: [3, 4, 5] }, state: nimState([3, 4, 5]), learner: 0 },
      { id: "lose", options: { heaps: [1, 2, 3] }, state: nimState([1, 2, 3]), learner: 0 },
    ],
  },
  northcott: {
    sections: ["rules", "gaps", "back"],
    boards: [
      // Gaps 4, 2, 4: nim-sum 2, a win for white to move.
      { id: "gaps", options: { rows: 3, cols: 8 }, state: { rows: 3, cols: 8, white: [0, 1, 2], black: [5, 4, 7], to_move: 0, moves: 0 }, learner: 0 },
    ],
  },
  rims: {
    sections: ["rules", "split"],
    boards: [
      // The source's example: 3, 2, 1 has nim-sum 0, a loss for the player to move.
      { id: "lose", options: { heaps: [3, 2, 1] }, state: { heaps: [3, 2, 1], to_move: 0, moves: 0 }, learner: 0 },
      { id: "win", options: { heaps: [5, 3] }, state: { heaps: [5, 3], to_move: 0, moves: 0 }, learner: 0 },
    ],
  },
  circle: {
    sections: ["rules", "blocks", "pairs", "strong"],
    boards: [
      // Blocks of two with holes 1, 1, 2, 0: nim-sum 2, white to move wins.
      { id: "pairs", options: { fields: 12, white: 4, black: 4 }, state: { fields: 12, board: "WW.BB.WW..BB", to_move: 0, moves: 0 }, learner: 0 },
    ],
  },
  wythoff: {
    sections: ["rules", "ppos", "golden", "methods"],
    table: true,
    boards: [
      { id: "win", options: { heaps: [6, 9] }, state: { heaps: [6, 9], to_move: 0, moves: 0, a: 1 }, learner: 0 },
      { id: "lose", options: { heaps: [4, 7] }, state: { heaps: [4, 7], to_move: 0, moves: 0, a: 1 }, learner: 0 },
    ],
  },
  dots: {
    sections: ["rules", "heuristic", "chains", "double"],
    boards: [
      // Two rows of three boxes with every horizontal line drawn: two chains of three,
      // and every move opens one.
      { id: "chains", options: { rows: 2, cols: 3 }, state: dotsChains(), learner: 0 },
    ],
  },
};

function dotsChains() {
  const h = [[0, 1, 0], [1, 0, 1], [0, 1, 0]];
  const v = [[-1, -1, -1, -1], [-1, -1, -1, -1]];
  return { lines: { h, v }, owners: [[-1, -1, -1], [-1, -1, -1]], score: [0, 0], to_move: 0, last: null, again: false, moves: 9 };
}

// ---- the page -------------------------------------------------------------------------

/**
 * Fills box with the lessons' index (game "") or one game's lesson. ctx: {conn (the page's
 * Connection), whenWelcomed() (resolves once the connection has a session)}.
 */
export async function renderLessons(box, game, ctx) {
  await loadArea("lessons");
  box.dataset.testid = "lessons";
  if (!game || !LESSONS[game]) {
    box.append(el("h2", {}, t("lessons.index.title")));
    box.append(el("p", {}, t("lessons.index.intro")));
    const list = el("ul", { class: "lesson-list", testid: "lesson-list" });
    for (const g of LESSON_GAMES) {
      list.append(el("li", {}, el("a", { href: `#/lessons/${g}`, testid: `lesson-link-${g}` }, t(`lessons.${g}.title`)),
        " ", el("span", { class: "small" }, t(`lessons.${g}.summary`))));
    }
    box.append(list);
    if (game) box.append(el("p", { class: "small" }, t("lessons.unknown", { game })));
    return;
  }
  const L = LESSONS[game];
  box.append(el("p", { class: "small" }, el("a", { href: "#/lessons", testid: "lessons-index" }, t("lessons.back"))));
  box.append(el("h2", { testid: "lesson-title" }, t(`lessons.${game}.title`)));
  box.append(el("p", { class: "lesson-summary" }, t(`lessons.${game}.summary`)));
  for (const s of L.sections) {
    const sec = el("section", { class: "lesson-section", testid: `lesson-section-${s}` });
    sec.append(el("h3", {}, t(`lessons.${game}.${s}.title`)));
    for (const para of t(`lessons.${game}.${s}.text`).split(/\n\n+/)) sec.append(el("p", {}, para));
    box.append(sec);
  }
  if (L.table) box.append(wythoffTables());
  for (const b of L.boards) box.append(b.thue ? thueBoard(b, ctx) : gameBoard(game, b, ctx));
  box.append(el("p", { class: "small lesson-source" }, t(`lessons.${game}.source`)));
}

// The server searches one get_best_move per connection at a time: the page's boards
// queue their questions here.
let queue = Promise.resolve();

/** The perfect bot's answer for a position (waits for a session and its turn first). */
function bestMove(ctx, game, options, position) {
  const ask = async () => {
    await ctx.whenWelcomed();
    return ctx.conn.request({ type: "get_best_move", game, game_options: options, position });
  };
  const answer = queue.then(ask, ask);
  queue = answer.catch(() => {});
  return answer;
}

const errorText = (e) => t("lessons.status.error", { message: e && e.message ? e.message : String(e) });

/** A move in words, from the mover's side: "takes 2 from heap 3". */
function moveWords(game, mv, prev) {
  if (game === "nim") return t("lessons.move.nim", { take: mv.take, heap: mv.heap + 1 });
  if (game === "rims") {
    const rest = prev ? prev.heaps[mv.heap] - mv.take : 0;
    return mv.split ? t("lessons.move.rims-split", { take: mv.take, heap: mv.heap + 1, a: mv.split, b: rest - mv.split })
      : t("lessons.move.rims", { take: mv.take, heap: mv.heap + 1 });
  }
  if (game === "northcott") return t("lessons.move.northcott", { row: mv.row + 1, col: mv.to + 1 });
  if (game === "circle") return t("lessons.move.circle", { from: mv.from, to: mv.to });
  if (game === "wythoff") return t("lessons.move.wythoff", { x: mv.take[0], y: mv.take[1] });
  if (game === "dots") return t(mv.dir === "h" ? "lessons.move.dots-h" : "lessons.move.dots-v", { row: mv.row + 1, col: mv.col + 1 });
  return JSON.stringify(mv);
}

/** What a position's value means for the learner, who is to move there. */
function valueWords(game, r) {
  if (!r.exact || r.value === null) return t("lessons.value.unknown");
  return t(r.value > 0 ? `lessons.${game}.you-win` : r.value < 0 ? `lessons.${game}.you-lose` : "lessons.value.draw");
}

/** The heaps a position is Nim of (Nim's and Rims' heaps, Northcott's gaps), or null. */
function nimHeaps(game, st) {
  if (game === "nim" || game === "rims") return st.heaps;
  if (game === "northcott") return st.white.map((w, r) => Math.abs(st.black[r] - w) - 1);
  return null;
}

/** The nim-sum worked out in binary under a board: one line per heap, then the sum. */
function nimWorking(box, game, st) {
  box.textContent = "";
  const heaps = nimHeaps(game, st);
  if (!heaps) return;
  const sum = heaps.reduce((a, b) => a ^ b, 0);
  const width = Math.max(1, ...heaps.map((h) => h.toString(2).length));
  const bits = (n) => n.toString(2).padStart(width, "0");
  const key = game === "northcott" ? "lessons.working.gap" : game === "rims" ? "lessons.working.region" : "lessons.working.heap";
  heaps.forEach((h, i) => box.append(el("div", {}, t(key, { i: i + 1, n: h, bits: bits(h) }))));
  box.append(el("div", { class: "lesson-sum", testid: "nim-sum" }, t("lessons.working.sum", { n: sum, bits: bits(sum) })));
  box.dataset.sum = String(sum);
}

/** One board of another game: the learner plays side `learner` from the key position;
 * after each of the learner's moves the perfect bot answers. */
function gameBoard(game, spec, ctx) {
  const id = spec.id;
  const wrap = el("section", { class: "lesson-board", testid: `lesson-${id}` });
  wrap.append(el("h3", {}, t(`lessons.${game}.board.${id}.title`)));
  wrap.append(el("p", {}, t(`lessons.${game}.board.${id}.text`)));
  const box = el("div", { class: "gboard lesson-gboard", testid: `lesson-gboard-${id}`, tabIndex: 0 });
  const status = el("p", { class: "lesson-status", testid: `lesson-status-${id}`, "aria-live": "polite" });
  const said = el("p", { class: "lesson-bot small", testid: `lesson-bot-${id}` });
  const working = el("div", { class: "lesson-working small", testid: `lesson-working-${id}` });
  const hint = el("button", { type: "button", testid: `lesson-hint-${id}`, onclick: () => showHint() }, t("lessons.hint"));
  const reset = el("button", { type: "button", testid: `lesson-reset-${id}`, onclick: () => start() }, t("lessons.reset"));
  wrap.append(box, working, status, said, el("p", { class: "row" }, hint, " ", reset));
  let st, prev, last, sel, busy, over, gen = 0;

  function draw() {
    const active = !busy && !over && st.to_move === spec.learner;
    drawBoard(box, {
      game, state: st, player: spec.learner, active, over, last, prev, sel,
      onMove: (mv) => { if (mv) play(mv); },
      onSelect: (s) => { sel = s; draw(); },
    });
    box.dataset.turn = over ? "over" : active ? "mine" : "theirs";
    box.dataset.moves = String(st.moves);
    box.dataset.state = JSON.stringify(st);
    hint.disabled = !active;
    nimWorking(working, game, st);
  }

  function finish() {
    over = true;
    const learnerWon = game === "dots" ? st.score[spec.learner] > st.score[1 - spec.learner] : st.to_move !== spec.learner;
    status.textContent = game === "dots"
      ? t(learnerWon ? "lessons.dots.end-won" : "lessons.dots.end-lost", { you: st.score[spec.learner], bot: st.score[1 - spec.learner] })
      : t(learnerWon ? "lessons.end.won" : "lessons.end.lost");
    status.dataset.result = learnerWon ? "won" : "lost";
  }

  /** The bot plays while it is to move; then the learner's position is judged. */
  async function answer(g) {
    for (;;) {
      const r = await bestMove(ctx, game, spec.options, st);
      if (g !== gen) return;
      if (r.move === null) { finish(); return; }
      if (st.to_move === spec.learner) {
        status.textContent = valueWords(game, r);
        status.dataset.value = r.value === null ? "" : String(r.value);
        return;
      }
      const before = st;
      prev = st;
      st = applyMove(game, st, r.move);
      last = r.move;
      said.textContent = t(r.value > 0 ? "lessons.bot.moved-win" : r.value < 0 ? "lessons.bot.moved-lose" : "lessons.bot.moved", { move: moveWords(game, r.move, before) });
      said.dataset.move = JSON.stringify(r.move);
      said.dataset.value = r.value === null ? "" : String(r.value);
    }
  }

  async function play(mv) {
    if (busy || over) return;
    sel = null;
    prev = st;
    st = applyMove(game, st, mv);
    last = mv;
    status.dataset.value = "";
    await botTurn();
  }

  async function showHint() {
    if (busy || over) return;
    const g = gen;
    try {
      const r = await bestMove(ctx, game, spec.options, st);
      if (g !== gen || !r.move) return;
      said.textContent = t("lessons.hint.is", { move: moveWords(game, r.move, st) });
    } catch (e) {
      if (g === gen) status.textContent = errorText(e);
    }
  }

  async function start() {
    gen++;
    st = JSON.parse(JSON.stringify(spec.state));
    prev = null; last = null; sel = null; over = false;
    delete status.dataset.result;
    said.textContent = "";
    await botTurn();
  }

  /** The bot's turn: "thinking" while it answers, then the board again (unless the
   * learner started over meanwhile). */
  async function botTurn() {
    busy = true;
    status.textContent = t("lessons.status.thinking");
    draw();
    const g = gen;
    try {
      await answer(g);
    } catch (e) {
      if (g === gen) status.textContent = errorText(e);
    }
    if (g !== gen) return;
    busy = false;
    draw();
  }
  start();
  return wrap;
}

// ---- Thue's board ---------------------------------------------------------------------
// The learner plays one side of one round (square-free, k symbols, the word starting as
// [0]); the perfect bot plays the other. The builder picks a gap, the painter a symbol;
// a square ends the round and the painter's points are the symbols added before it.

function thueBoard(spec, ctx) {
  const { k, learner } = spec.thue;
  const id = spec.id;
  const options = { variant: "square", k, limit: 100 };
  const wrap = el("section", { class: "lesson-board", testid: `lesson-${id}` });
  wrap.append(el("h3", {}, t(`lessons.thue.board.${id}.title`)));
  wrap.append(el("p", {}, t(`lessons.thue.board.${id}.text`)));
  const box = el("div", { class: "word lesson-word", testid: `lesson-gboard-${id}` });
  const pick = el("div", { class: "palette lesson-symbols", testid: `lesson-symbols-${id}` });
  const status = el("p", { class: "lesson-status", testid: `lesson-status-${id}`, "aria-live": "polite" });
  const said = el("p", { class: "lesson-bot small", testid: `lesson-bot-${id}` });
  const reset = el("button", { type: "button", testid: `lesson-reset-${id}`, onclick: () => start() }, t("lessons.reset"));
  wrap.append(box, pick, status, said, el("p", {}, reset));
  let word, placed, step, busy, over, gen = 0;

  const position = () => ({ round: 0, step, word, placed: step === "paint" ? placed : null });
  const learnersTurn = () => (step === "place") === (learner === "builder");
  const mine = () => !busy && !over && learnersTurn();

  function draw() {
    pick.textContent = "";
    const building = mine() && step === "place";
    drawWordTiles(box, word, {
      k, placed: step === "paint" ? placed : null, canPlace: building, onPlace: place,
      gapLabel: (i) => t("lessons.thue.gap", { i }), gapId: (i) => `lesson-gap-${id}-${i}`, tileId: (i) => `lesson-sym-${id}-${i}`,
    });
    if (learner === "painter" && !over) {
      // The symbols that would make a square at once are marked (the game's training aid).
      const losing = step === "paint" ? losingSymbols(word, placed, k, "square") : new Set();
      drawSymbolButtons(pick, {
        k, canPaint: mine() && step === "paint", onPaint: paint, losing,
        title: (s) => (losing.has(s) ? t("lessons.thue.losing", { s }) : ""), symId: (s) => `lesson-paint-${id}-${s}`,
      });
    }
    box.dataset.turn = over ? "over" : mine() ? "mine" : "theirs";
    box.dataset.word = word.join("");
    box.dataset.placed = placed === null ? "" : String(placed);
  }

  function ended() {
    over = true;
    const points = word.length - 2;
    status.textContent = t("lessons.thue.end", { length: word.length, count: points });
    status.dataset.result = String(points);
  }

  /** Applies one step (a place or a paint) and says whether the round goes on. */
  function apply(mv) {
    if (mv.place !== undefined) {
      placed = mv.place;
      step = "paint";
      return true;
    }
    word = word.slice(0, placed).concat([mv.paint], word.slice(placed));
    step = "place";
    placed = null;
    if (hasRepetition(word, "square")) { ended(); return false; }
    return true;
  }

  async function bot(g) {
    while (!over && !learnersTurn()) {
      const r = await bestMove(ctx, "thue", options, position());
      if (g !== gen) return;
      if (r.move === null) { ended(); return; }
      said.textContent = r.move.place !== undefined
        ? t("lessons.thue.bot-place", { i: r.move.place, count: r.points ?? 0 })
        : t("lessons.thue.bot-paint", { s: r.move.paint, count: r.points ?? 0 });
      said.dataset.points = r.points === undefined ? "" : String(r.points);
      apply(r.move);
      draw();
    }
    if (!over) {
      // The learner's turn: what perfect play from here gives the painter.
      const r = await bestMove(ctx, "thue", options, position());
      if (g !== gen) return;
      status.textContent = t(learner === "painter" ? "lessons.thue.you-paint" : "lessons.thue.you-build", { count: r.points ?? 0 });
      status.dataset.points = r.points === undefined ? "" : String(r.points);
    }
  }

  async function run(g) {
    busy = true;
    draw();
    try {
      await bot(g);
    } catch (e) {
      if (g === gen) status.textContent = errorText(e);
    }
    if (g !== gen) return;
    busy = false;
    draw();
  }

  function place(i) {
    if (!mine() || step !== "place") return;
    apply({ place: i });
    status.textContent = t("lessons.status.thinking");
    run(gen);
  }

  function paint(s) {
    if (!mine() || step !== "paint") return;
    if (apply({ paint: s })) status.textContent = t("lessons.status.thinking");
    if (!over) run(gen); else draw();
  }

  function start() {
    gen++;
    word = [0];
    placed = null;
    step = "place";
    busy = false;
    over = false;
    delete status.dataset.result;
    status.textContent = "";
    said.textContent = "";
    run(gen);
  }
  start();
  return wrap;
}

// ---- Wythoff's P-table three ways -----------------------------------------------------
// The source builds the P-positions (A_n, B_n) of Wythoff's game by three methods and times
// them; for a = 1 they are: recursive (A_n the least number not yet used, B_n = A_n + n),
// algebraic (A_n = floor(n phi), B_n = floor(n phi^2)) and arithmetic (A_n is the n-th
// number whose Zeckendorf representation, in Fibonacci numbers, ends in an even number of
// zeros; B_n is A_n with its representation shifted one place left).

function pRecursive(n) {
  const used = new Uint8Array(3 * n + 3);
  const out = [];
  let a = 0;
  for (let i = 0; i < n; i++) {
    while (used[a]) a++;
    out.push([a, a + i]);
    used[a] = 1;
    used[a + i] = 1;
  }
  return out;
}

function pAlgebraic(n) {
  const phi = (1 + Math.sqrt(5)) / 2;
  const out = [];
  for (let i = 0; i < n; i++) out.push([Math.floor(i * phi), Math.floor(i * phi * phi)]);
  return out;
}

/** Zeckendorf digits of x over 1, 2, 3, 5, 8, ... (least significant first). */
function zeckendorf(x, fib) {
  const d = new Array(fib.length).fill(0);
  for (let i = fib.length - 1; i >= 0 && x > 0; i--) if (fib[i] <= x) { d[i] = 1; x -= fib[i]; }
  return d;
}

function pArithmetic(n) {
  const fib = [1, 2];
  while (fib[fib.length - 1] < 4 * n + 4) fib.push(fib[fib.length - 1] + fib[fib.length - 2]);
  fib.push(fib[fib.length - 1] + fib[fib.length - 2]);
  const out = [[0, 0]];
  for (let x = 1; out.length < n; x++) {
    const d = zeckendorf(x, fib);
    let zeros = 0;
    while (d[zeros] === 0) zeros++;
    if (zeros % 2 === 1) continue; // an odd number of zeros: x is some B_m
    let b = 0;
    for (let i = 0; i < d.length - 1; i++) if (d[i]) b += fib[i + 1]; // shifted left
    out.push([x, b]);
  }
  return out;
}

function wythoffTables() {
  const sec = el("section", { class: "lesson-section", testid: "wythoff-methods" });
  sec.append(el("h3", {}, t("lessons.wythoff.table.title")));
  const n = 14;
  const methods = [["recursive", pRecursive], ["algebraic", pAlgebraic], ["arithmetic", pArithmetic]];
  const lists = methods.map(([, f]) => f(n));
  const table = el("table", { class: "lesson-table", testid: "wythoff-table" });
  table.append(el("thead", {}, el("tr", {}, el("th", {}, "n"), ...methods.map(([m]) => el("th", {}, t(`lessons.wythoff.method.${m}`))))));
  const body = el("tbody");
  for (let i = 0; i < n; i++) {
    const row = el("tr", {}, el("td", {}, fmtNumber(i)));
    lists.forEach((l) => row.append(el("td", {}, `(${fmtNumber(l[i][0])}, ${fmtNumber(l[i][1])})`)));
    body.append(row);
  }
  table.append(body);
  sec.append(el("div", { class: "table-scroll" }, table));
  // Timing in this browser, as the source timed its C++ (whose figures are for a = 2).
  const timing = el("p", { class: "small", testid: "wythoff-timing" });
  const run = el("button", { type: "button", testid: "wythoff-time", onclick: () => {
    const size = 20000;
    const ms = methods.map(([, f]) => { const t0 = performance.now(); f(size); return performance.now() - t0; });
    timing.textContent = t("lessons.wythoff.timing", { n: size, r: ms[0].toFixed(1), g: ms[1].toFixed(1), a: ms[2].toFixed(1) });
  } }, t("lessons.wythoff.time"));
  sec.append(el("p", {}, run), timing);
  return sec;
}
