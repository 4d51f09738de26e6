// treefile.test.mjs: clients/web/treefile.js, the CSV and binary tree formats of
// docs/uct.md, in plain Node (no browser, no server): docs/uct.md's own examples written
// byte for byte and read back, random trees round-tripped through both formats, the %.6f
// of C (exact ties to even) against an exact BigInt reference, and malformed files
// refused with the line or byte offset named. Run:
//   node --test tests/e2e/treefile.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { fixed6, preorder, readBinary, readCsv, readTree, writeBinary, writeCsv } from "../../clients/web/treefile.js";

const DOC = fs.readFileSync(new URL("../../docs/uct.md", import.meta.url), "utf8");

/** docs/uct.md's CSV example: the indented block after "Example (`thue bestmove 0 ...". */
function docCsv() {
  const at = DOC.indexOf("    move,visits,visits2,payoff,state,children", DOC.indexOf("Example (`thue bestmove"));
  assert.ok(at > 0, "docs/uct.md has its CSV example");
  const lines = [];
  for (const l of DOC.slice(at).split("\n")) {
    if (!l.startsWith("    ")) break;
    lines.push(l.slice(4));
  }
  return lines.join("\n") + "\n";
}

/** docs/uct.md's binary example, its bytes gathered from the hex and quoted text. */
function docBinary() {
  const at = DOC.indexOf("    05 00 00 00  \"0/p@1\"");
  assert.ok(at > 0, "docs/uct.md has its binary example");
  const bytes = [];
  for (const l of DOC.slice(at).split("\n")) {
    if (!l.startsWith("    ")) break;
    // Hex pairs and quoted strings, in order; the rest of a line is its comment.
    for (const m of l.replace(/\([^)]*\)/g, "").matchAll(/"([^"]*)"|\b([0-9a-f]{2})\b/g)) {
      if (m[1] !== undefined) bytes.push(...Buffer.from(m[1], "utf8"));
      else bytes.push(parseInt(m[2], 16));
    }
  }
  return Uint8Array.from(bytes);
}

/** The example tree as docs/uct.md describes it (painter's payoffs: 1/60 and 0.02). */
const docTree = () => ({
  move: null, state: "0/p@1", visits: 3, visits2: 3, payoff: 1 / 60, children: [
    { move: "s1", state: "01/b", visits: 3, visits2: 3, payoff: 1 / 60, children: [
      { move: "p0", state: "01/p@0", visits: 1, visits2: 1, payoff: 0.02, children: [] },
      { move: "p2", state: "01/p@2", visits: 1, visits2: 1, payoff: 0.02, children: [] },
    ] },
  ],
});

test("docs/uct.md's examples, written byte for byte and read back", () => {
  const csv = docCsv();
  assert.equal(writeCsv(docTree()), csv);
  const bin = docBinary();
  assert.equal(bin.length, 119, "the binary example is 119 bytes, as the docs say");
  assert.deepEqual(writeBinary(docTree()), bin);
  const fromCsv = readCsv(csv);
  assert.equal(fromCsv.visits, 3);
  assert.equal(fromCsv.state, "0/p@1");
  assert.equal(fromCsv.children[0].children[1].move, "p2");
  assert.equal(writeCsv(fromCsv), csv);
  const fromBin = readBinary(bin);
  assert.deepEqual(fromBin, docTree(), "the binary read gives the root its children's sums");
  assert.deepEqual(writeBinary(fromBin), bin);
  assert.equal(readTree(Buffer.from(csv)).format, "csv");
  assert.equal(readTree(bin).format, "tree");
});

/** %.6f by exact arithmetic: the double's exact value as a fraction, rounded half to even. */
function refFixed6(x) {
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const bits = buf.getBigUint64(0);
  const neg = bits >> 63n === 1n;
  const e = Number((bits >> 52n) & 0x7ffn);
  let m = bits & ((1n << 52n) - 1n);
  let exp;
  if (e === 0) exp = -1074; else { m |= 1n << 52n; exp = e - 1075; }
  // |x| = m * 2^exp; |x| * 10^6 = num / den
  let num = m * 10n ** 6n, den = 1n;
  if (exp >= 0) num <<= BigInt(exp); else den <<= BigInt(-exp);
  let q = num / den;
  const r2 = (num % den) * 2n;
  if (r2 > den || (r2 === den && q % 2n === 1n)) q += 1n;
  const t = q.toString().padStart(7, "0");
  return `${neg ? "-" : ""}${t.slice(0, -6)}.${t.slice(-6)}`;
}

test("payoffs print as C's %.6f: nearest, exact ties to even", () => {
  assert.equal(fixed6(0.0078125), "0.007812"); // 1/128: a tie, to even (JavaScript's toFixed says 0.007813)
  assert.equal(fixed6(0.0234375), "0.023438"); // 3/128: a tie, to even upwards
  assert.equal(fixed6(1 / 60), "0.016667");
  assert.equal(fixed6(0), "0.000000");
  assert.equal(fixed6(1), "1.000000");
  let seed = 99;
  const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  for (let i = 0; i < 20000; i++) {
    const n = 1 + Math.floor(rand() * 5000);
    const x = [rand(), Math.floor(rand() * n) / n, Math.floor(rand() * 4096) / 4096, rand() * 1000, -rand()][i % 5];
    assert.equal(fixed6(x), refFixed6(x), `${x}`);
  }
});

/** A random tree: names like the exporter's, of another game (commas), counts up to 2^31. */
function randomTree(n, rand) {
  const name = () => [`p${Math.floor(rand() * 50)}`, `{heap:${Math.floor(rand() * 9)},take:${Math.floor(rand() * 9)}}`, "0,11,3/b", "", "[12]/p@0"][Math.floor(rand() * 5)];
  const mk = () => {
    const visits = rand() < 0.05 ? 2147483647 + Math.floor(rand() * 10) : Math.floor(rand() * 1000);
    return { move: name(), state: name(), visits, visits2: Math.floor(visits * rand()), payoff: Math.floor(rand() * 1e6) / 1e6, children: [] };
  };
  const root = mk();
  root.move = null;
  const all = [root];
  for (let i = 1; i < n; i++) {
    const v = mk();
    all[Math.floor(rand() * all.length) === 0 && rand() < 0.5 ? 0 : Math.max(0, all.length - 1 - Math.floor(rand() * 3))].children.push(v);
    all.push(v);
  }
  return root;
}

test("random trees round-trip through CSV and binary", () => {
  let seed = 4242;
  const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  for (let k = 0; k < 200; k++) {
    const t = randomTree(1 + Math.floor(rand() * 300), rand);
    const csv = writeCsv(t);
    const back = readCsv(csv);
    assert.equal(writeCsv(back), csv);
    const a = preorder(t), b = preorder(back);
    assert.equal(b.length, a.length);
    for (let i = 0; i < a.length; i++) {
      assert.equal(b[i].state, a[i].state);
      assert.equal(b[i].visits, a[i].visits);
      assert.equal(b[i].visits2, a[i].visits2);
      assert.equal(b[i].children.length, a[i].children.length);
      assert.equal(fixed6(b[i].payoff), fixed6(a[i].payoff));
      if (i) assert.equal(b[i].move, a[i].move);
    }
    const bin = writeBinary(t);
    const tb = readBinary(bin);
    assert.deepEqual(writeBinary(tb), bin);
    const c = preorder(tb);
    for (let i = 1; i < a.length; i++) {
      assert.equal(c[i].visits, Math.min(a[i].visits, 2147483647), "counts saturate");
      assert.equal(c[i].payoff, a[i].payoff, "doubles exactly");
      assert.equal(c[i].move, a[i].move);
      assert.equal(c[i].state, a[i].state);
    }
  }
  // A path 100,000 deep: no recursion.
  const root = { move: null, state: "r", visits: 1, visits2: 0, payoff: 0.5, children: [] };
  let v = root;
  for (let i = 0; i < 100000; i++) { const w = { move: "m", state: "s", visits: 1, visits2: 0, payoff: 0.5, children: [] }; v.children.push(w); v = w; }
  assert.equal(preorder(readBinary(writeBinary(root))).length, 100001);
  assert.equal(preorder(readCsv(writeCsv(root))).length, 100001);
});

test("malformed files are refused with the line or byte named", () => {
  const csv = docCsv();
  const bad = (text, re) => assert.throws(() => readCsv(text), re);
  bad("", /empty/);
  bad("move,visits\nroot,1\n", /^Error: line 1: the header/);
  bad(csv.replace("s1,3,3", "s1,x,3"), /^Error: line 3: visits "x"/);
  bad(csv.replace("p0,1,1,0.020000,01/p@0,0", "p0,1,1,0.02z,01/p@0,0"), /^Error: line 4: payoff "0.02z"/);
  bad(csv.replace("01/b,2", "01/b,2,9"), /^Error: line 3: visits2 "0.016667" is not a whole number/); // a field too many: all shift
  bad(csv.replace("p0,1,1,0.020000,01/p@0,0", "p0,1,1,01/p@0,0"), /^Error: line 4: no visits field/); // one too few
  bad(csv.replace("01/p@2,0", "01/p@2,1"), /^Error: line 6: the file ends with 1 node missing/);
  bad(csv + "p3,1,1,0.0,x,0\n", /^Error: line 6: a row after the tree is complete/);
  bad(csv.replace("0/p@1", "\"0/p@1"), /^Error: line 2: a stray double quote in the state "\\"0\/p@1"/);
  bad(csv.replace("0/p@1", "0/p@1\""), /^Error: line 2: the state's closing double quote has no opening one/);
  bad(csv.replace("0/p@1", "x\"0/p@1\""), /^Error: line 2: text before the state's opening double quote \(column 20\)/);
  bad(csv.replace("01/b", "01\"/b"), /^Error: line 3: a stray double quote in the state/);
  bad(csv.replace("s1,", "s\"1,"), /^Error: line 3: a stray double quote in the move/);
  // Another game's names, as the C exporter writes them: move and state quoted (commas).
  const nim = "move,visits,visits2,payoff,state,children\nroot,2,2,0.500000,\"{heaps:[1,2],to_move:0}\",1\n\"{heap:1,take:2}\",2,2,1.000000,\"{heaps:[1,0],to_move:1}\",0\n";
  const t = readCsv(nim);
  assert.equal(t.children[0].move, "{heap:1,take:2}");
  assert.equal(t.children[0].state, "{heaps:[1,0],to_move:1}");
  assert.equal(writeCsv(t), nim);
  assert.equal(readCsv(nim.replace("\"{heap:1,take:2}\",", "{heap:1,take:2},")).children[0].move, "{heap:1,take:2}", "a bare move (an older file) is read too");
  const bin = docBinary();
  const badB = (bytes, re) => assert.throws(() => readBinary(bytes), re);
  badB(new Uint8Array(0), /empty/);
  for (let cut = 1; cut < bin.length; cut++) badB(bin.slice(0, cut), /^Error: byte \d+: (the file ends inside|\d+ children cannot fit)/);
  badB(bin.slice(0, 117), /^Error: byte 115: the file ends inside a child count/);
  badB(Uint8Array.from([...bin, 0]), /^Error: byte 119: 1 bytes after the end/);
  const huge = bin.slice();
  new DataView(huge.buffer).setInt32(9, 1000000, true);
  badB(huge, /^Error: byte 9: 1000000 children cannot fit/);
  const neg = bin.slice();
  new DataView(neg.buffer).setInt32(0, -1, true);
  badB(neg, /^Error: byte 0: the length of the root's state name is negative/);
  const utf = bin.slice();
  utf[4] = 0xff;
  badB(utf, /^Error: byte 4: the root's state name is not UTF-8/);
  assert.throws(() => writeCsv({ move: null, state: "a\"b", visits: 0, visits2: 0, payoff: 0, children: [] }), /double quote/);
});
