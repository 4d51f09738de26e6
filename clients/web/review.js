// review.js: the exact review of a stored match on its replay page (#/match/ID): a
// one-line summary per player, every move with its verdict (best, good, mistake, blunder,
// unknown) in a list that steps the replay, and for the position on the board the verdict
// of the move that made it, the values before and after, and "show the best move"
// (GET /api/matches/{id}/review, PROTOCOL.md section 13 "Reviews"; computed by the
// server's exact solvers in the background: "pending" is asked again until it is done).
import { el } from "./games.js";
import { fmtNumber, loadArea, t } from "./i18n.js";

const VERDICTS = ["best", "good", "mistake", "blunder", "unknown"];
const POLL_MS = 1000;
const POLL_MAX = 60;

let cur = null; // {box, rec, review, names, moveText, onStep, shown: Set of steps whose best is shown}

/** "1 blunder, 2 mistakes" for one player's counts; "no mistakes" when there are none. */
export function summaryText(c) {
  const parts = ["blunder", "mistake"].filter((v) => c[v] > 0).map((v) => t(`review.count.${v}`, { count: c[v] }));
  if (c.good > 0) parts.push(t("review.count.good", { count: c.good }));
  if (c.unknown > 0) parts.push(t("review.count.unknown", { count: c.unknown }));
  return parts.length ? parts.join(", ") : t("review.clean");
}

/** A value for people: a result (win, draw, loss; a margin of boxes) or Thue's points. */
function valueText(rv, v, margin) {
  if (v === null || v === undefined) return t("review.value.unknown");
  if (rv.values === "points") return t("review.value.points", { count: v });
  const word = t(v > 0 ? "review.value.win" : v < 0 ? "review.value.loss" : "review.value.draw");
  return margin === undefined ? word : t("review.value.margin", { result: word, margin: margin > 0 ? `+${fmtNumber(margin)}` : fmtNumber(margin) });
}

function thueMoveText(m) {
  return m.kind === "place" ? t("review.thue.place", { position: m.value }) : t("review.thue.paint", { symbol: m.value });
}

function bestText(rv, m, prev) {
  if (!m || !m.best || !m.best.length) return t("review.best.none");
  const b = m.best[0];
  if (rv.game === "thue") return "position" in b ? t("review.thue.place", { position: b.position }) : t("review.thue.paint", { symbol: b.symbol });
  return cur.moveText(rv.game, b, prev);
}

/** Fills box with rec's review (loading it, and asking again while the server computes it). */
export async function reviewSection(box, rec, { getJSON, moveText, names, onStep, states }) {
  await loadArea("review");
  cur = { box, rec, review: null, names, moveText, onStep, states: states || [], shown: new Set(), step: 0 };
  const mine = cur;
  box.textContent = "";
  box.append(el("h3", {}, t("review.title")), el("p", { class: "small", testid: "review-status" }, t("review.pending")));
  let rv = null;
  for (let i = 0; i < POLL_MAX; i++) {
    try {
      rv = await getJSON(`/api/matches/${encodeURIComponent(rec.match)}/review`);
    } catch (e) {
      if (cur === mine) box.querySelector("[data-testid=review-status]").textContent = t("review.failed");
      return;
    }
    if (cur !== mine || !box.isConnected) return; // another page
    if (rv.status !== "pending") break;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  if (cur !== mine) return;
  if (!rv || rv.status !== "done") {
    box.querySelector("[data-testid=review-status]").textContent = t(rv && rv.status === "pending" ? "review.still_pending" : "review.unavailable");
    return;
  }
  cur.review = rv;
  render();
}

function render() {
  const { box, review: rv, names } = cur;
  box.textContent = "";
  box.append(el("h3", {}, t("review.title")));
  const sum = el("p", { testid: "review-summary", class: "review-summary" });
  names.forEach((n, seat) => {
    if (seat) sum.append(" · ");
    sum.append(el("strong", {}, n), `: ${summaryText(rv.summary[seat])}`);
  });
  box.append(sum, el("p", { class: "small" }, t(rv.values === "points" ? "review.explain.points" : "review.explain.result")));
  box.append(el("div", { class: "review-step", testid: "review-step", "aria-live": "polite" }));
  const list = el("ol", { class: "review-moves", testid: "review-moves" });
  rv.moves.forEach((m, i) => {
    const who = names[m.seat];
    const text = rv.game === "thue" ? thueMoveText(m) : cur.moveText(rv.game, m.move, cur.states[i]);
    list.append(el("li", { "data-verdict": m.verdict, "data-step": String(i + 1) },
      el("button", { type: "button", class: "linkish", testid: `review-move-${i + 1}`, onclick: () => cur.onStep(i + 1) }, `${who}: ${text}`),
      " ", el("span", { class: `verdict verdict-${m.verdict}`, testid: `review-verdict-${i + 1}` }, t(`review.verdict.${m.verdict}`))));
  });
  box.append(list);
  reviewStep(cur.step);
}

/** The verdict of the move that made the position on the board, beside the replay's line
 * above the board (made once, after that line). */
function boardVerdict(rv, step) {
  const pos = document.querySelector("[data-testid=replay-pos]");
  if (!pos) return;
  let badge = document.querySelector("[data-testid=replay-verdict]");
  if (!badge) {
    badge = el("p", { class: "replay-verdict", testid: "replay-verdict", "aria-live": "polite" });
    pos.after(badge);
  }
  badge.textContent = "";
  const made = step > 0 ? rv.moves[step - 1] : null;
  if (made) badge.append(el("span", { class: `verdict verdict-${made.verdict}` }, t(`review.verdict.${made.verdict}`)));
}

/** The replay shows the position after `step` moves: the verdict of the move that made it
 * (beside the board and in the review's panel) and the best move from it (when asked for). */
export function reviewStep(step) {
  if (!cur) return;
  cur.step = step;
  const rv = cur.review;
  const box = cur.box.querySelector("[data-testid=review-step]");
  if (!rv || !box) return;
  boardVerdict(rv, step);
  for (const li of cur.box.querySelectorAll(".review-moves li")) li.classList.toggle("current", li.dataset.step === String(step));
  box.textContent = "";
  const made = step > 0 ? rv.moves[step - 1] : null;
  if (made) {
    const est = made.estimate ? ` ${t("review.estimate", { before: fmtNumber(made.estimate.before, { style: "percent" }), after: fmtNumber(made.estimate.after, { style: "percent" }) })}` : "";
    box.append(el("p", {},
      el("span", { class: `verdict verdict-${made.verdict}`, testid: "review-step-verdict" }, t(`review.verdict.${made.verdict}`)), " ",
      t("review.values", { before: valueText(rv, made.before, made.margin_before), after: valueText(rv, made.after, made.margin_after) }) + est));
  }
  const next = step < rv.moves.length ? rv.moves[step] : null;
  if (next) {
    const out = el("span", { testid: "review-best-move" }, cur.shown.has(step) ? bestText(rv, next, cur.states[step]) : "");
    box.append(el("p", {},
      el("button", { type: "button", testid: "review-best", onclick: () => { cur.shown.add(step); reviewStep(step); } }, t("review.best.show")), " ", out));
  }
}
