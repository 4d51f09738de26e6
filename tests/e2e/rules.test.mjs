// rules.test.mjs: the web client's repetition check (clients/web/rules.js, used by the
// "mark losing symbols" aid) against a naive definition, on every word over 3 symbols up
// to length 9, for squares and overlaps. Run: node tests/e2e/rules.test.mjs
import { hasRepetition, losingSymbols, symbolColour } from "../../clients/web/rules.js";

function naive(w, variant) {
  const extra = variant === "overlap" ? 1 : 0;
  for (let p = 1; 2 * p + extra <= w.length; p++) {
    for (let i = 0; i + 2 * p + extra <= w.length; i++) {
      let ok = true;
      for (let j = i; j < i + p + extra; j++) if (w[j] !== w[j + p]) { ok = false; break; }
      if (ok) return true;
    }
  }
  return false;
}

let checked = 0;
let failed = 0;
for (let n = 0; n <= 9; n++) {
  for (let code = 0; code < 3 ** n; code++) {
    const w = [];
    for (let c = code, i = 0; i < n; i++, c = Math.floor(c / 3)) w.push(c % 3);
    for (const v of ["square", "overlap"]) {
      checked++;
      if (hasRepetition(w, v) !== naive(w, v)) {
        failed++;
        if (failed < 5) console.log(`FAIL ${v} ${w.join("")}: got ${hasRepetition(w, v)}`);
      }
    }
  }
}
const l = [...losingSymbols([0, 1, 2, 1], 4, 3, "square")].join(",");
if (l !== "1,2") { failed++; console.log(`FAIL losingSymbols 0121 at 4: ${l}`); }
const o = [...losingSymbols([0, 0], 2, 2, "overlap")].join(",");
if (o !== "0") { failed++; console.log(`FAIL losingSymbols overlap 00 at 2: ${o}`); }
const colours = new Set(Array.from({ length: 10 }, (_, s) => symbolColour(s, 10).bg));
if (colours.size !== 10) { failed++; console.log("FAIL ten distinct colours"); }
console.log(`${failed ? "FAIL" : "ok  "} rules: ${checked} words checked, ${failed} failures`);
process.exit(failed ? 1 : 0);
