// thueword.js: Thue's word drawn for the pages that play one round outside a room (the
// lessons and the puzzles): the symbols as coloured tiles (rules.js's colours) with the
// builder's gaps between them as buttons, and the painter's symbols as a row of buttons.
// The caller says which are active and gives the labels (its own catalogue's words), so
// every page keeps its own text and test ids; app.js's room keeps its own drawing (the
// keyboard cursor, the newest symbol, the repetition found).
import { symbolColour } from "./rules.js";

function button(props, text) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = props.class;
  b.dataset.testid = props.testid;
  b.disabled = !!props.disabled;
  if (props.title) b.title = props.title;
  if (props.label) b.setAttribute("aria-label", props.label);
  if (props.onclick) b.addEventListener("click", props.onclick);
  b.textContent = text;
  return b;
}

/**
 * Draws word into box (emptied first): gaps 0..word.length around the tiles.
 * o: {k, placed (the gap shown as chosen, or null), canPlace, onPlace(i), gapLabel(i),
 * gapId(i), tileId(i), newest (a tile to ring, or null)}.
 */
export function drawWordTiles(box, word, o) {
  box.textContent = "";
  for (let i = 0; i <= word.length; i++) {
    const chosen = o.placed === i;
    box.append(button({
      class: `gap${chosen ? " placed" : ""}`, testid: o.gapId(i), disabled: !o.canPlace,
      title: o.gapLabel(i), label: o.gapLabel(i), onclick: () => o.onPlace(i),
    }, chosen ? "?" : ""));
    if (i < word.length) {
      const c = symbolColour(word[i], o.k);
      const tile = document.createElement("span");
      tile.className = `tile${o.newest === i ? " newest" : ""}`;
      tile.dataset.testid = o.tileId(i);
      tile.textContent = String(word[i]);
      tile.style.background = c.bg;
      tile.style.color = c.fg;
      box.append(tile);
    }
  }
  box.classList.toggle("active", !!o.canPlace);
}

/**
 * The painter's symbols 0..k-1 into pick (emptied first). o: {k, canPaint, onPaint(s),
 * losing (a Set of symbols marked as making a repetition at once), title(s), symId(s)}.
 */
export function drawSymbolButtons(pick, o) {
  pick.textContent = "";
  for (let s = 0; s < o.k; s++) {
    const c = symbolColour(s, o.k);
    const lose = o.losing && o.losing.has(s);
    const b = button({
      class: `sym${lose ? " losing" : ""}`, testid: o.symId(s), disabled: !o.canPaint,
      title: o.title(s), label: o.title(s) || String(s), onclick: () => o.onPaint(s),
    }, String(s));
    b.style.background = c.bg;
    b.style.color = c.fg;
    pick.append(b);
  }
}
