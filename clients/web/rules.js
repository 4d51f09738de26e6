// rules.js: the game's repetition check and the symbol colours, for the browser client.
// The server decides every move; this file only powers the "mark losing symbols" training
// aid and the tile colours. A square is a factor uu (length 2p), an overlap a factor
// auaua... of period p and length 2p+1 (RULES.md).

/**
 * Whether word (an array of symbols) contains a square ("square") or an overlap
 * ("overlap"). For each period p, a run of r consecutive positions j with
 * w[j] === w[j+p] is a factor of length r+p and period p: a square needs r >= p,
 * an overlap r >= p+1. O(n^2), fine for the lengths people play.
 */
export function hasRepetition(word, variant) {
  const n = word.length;
  const extra = variant === "overlap" ? 1 : 0;
  for (let p = 1; 2 * p + extra <= n; p++) {
    let run = 0;
    for (let j = 0; j + p < n; j++) {
      if (word[j] === word[j + p]) {
        run++;
        if (run >= p + extra) return true;
      } else {
        run = 0;
      }
    }
  }
  return false;
}

/** The symbols s < k whose insertion at position pos of word makes a repetition. */
export function losingSymbols(word, pos, k, variant) {
  const out = new Set();
  for (let s = 0; s < k; s++) {
    const w = word.slice(0, pos).concat([s], word.slice(pos));
    if (hasRepetition(w, variant)) out.add(s);
  }
  return out;
}

// Ten colours chosen to stay distinct for common colour-vision deficiencies as far as ten
// colours can (Okabe-Ito first), each with a readable text colour.
const BASE = [
  ["#0072b2", "#fff"], ["#e69f00", "#000"], ["#009e73", "#fff"], ["#cc79a7", "#000"],
  ["#56b4e9", "#000"], ["#d55e00", "#fff"], ["#f0e442", "#000"], ["#332288", "#fff"],
  ["#999999", "#000"], ["#882255", "#fff"],
];

/** {bg, fg} for symbol s among k symbols: the fixed ten, then evenly spread hues. */
export function symbolColour(s, k) {
  if (k <= BASE.length) return { bg: BASE[s][0], fg: BASE[s][1] };
  const hue = Math.round((s * 360) / k);
  const light = s % 2 === 0 ? 38 : 62;
  return { bg: `hsl(${hue} 70% ${light}%)`, fg: light < 50 ? "#fff" : "#000" };
}
