// treefile.js: the two UCT tree file formats of docs/uct.md, read and written byte for
// byte as the C exporter (thue_uct_export_tree) writes them, so that a tree saved by
// `thue bestmove ... --tree FILE` loads here and a tree saved here is the same file.
//
// A tree is nodes {move, state, visits, visits2, payoff, children}: move is the move name
// that leads to the node (null at the root), state the state name, visits and visits2 the
// two counters (numbers), payoff the average payoff (a number), children an array in the
// file's order. The files hold the nodes in depth-first preorder; both readers and both
// writers loop with an explicit stack, so a path-shaped tree of any depth is fine.
//
// CSV: the header line, then one row per node: move, visits, visits2, payoff (%.6f, as C
// prints it: the nearest, exact ties to even), state, children. As the C exporters write
// it, a name holding a comma is quoted: another game's state and move ({heap:0,take:2});
// Thue's never are. The reader takes a row's fields from the right, so a move is what is
// left, quoted or not (files of earlier writers left it bare). Names never hold a double
// quote or a line break: the writers refuse such a name.
// Binary: little-endian; a node is its state (string), its child count (int) and per
// child the move (string), visits, visits2 (ints, saturating at 2^31 - 1), payoff (double)
// and the child node. The root's own counters are not in the file: a binary read gives
// the root the sum of its children's visits and visits2 and their visit-weighted payoff.
// Malformed input throws an Error whose message names the line (CSV) or byte offset.

export const CSV_HEADER = "move,visits,visits2,payoff,state,children";
const INT_MAX = 2147483647;
const MIN_CHILD_BYTES = 4 + 4 + 4 + 8 + 4 + 4; // empty move, counters, payoff, empty state, no children

/** x as C's printf("%.6f", x) writes it: the nearest 6-decimal number, an exact tie
 * (possible only for a double whose binary expansion ends right there) to the even one. */
export function fixed6(x) {
  if (!Number.isFinite(x)) return String(x);
  let s = x.toFixed(6); // the nearest; on an exact tie JavaScript takes the larger magnitude
  const exact = Math.abs(x) < 1e15 ? Math.abs(x).toFixed(100) : "";
  const dot = exact.indexOf(".");
  if (dot >= 0 && /^50*$/.test(exact.slice(dot + 7)) && Math.abs(x) >= 4e-7) {
    // A tie: round half to even on the sixth decimal.
    const digits = exact.slice(0, dot) + exact.slice(dot + 1, dot + 7);
    let n = BigInt(digits);
    if (n % 2n === 1n) n += 1n;
    const t = n.toString().padStart(7, "0");
    s = (x < 0 ? "-" : "") + `${t.slice(0, -6)}.${t.slice(-6)}`;
  }
  if (Object.is(x, -0) || (x < 0 && !s.startsWith("-"))) s = "-" + s; // C keeps the sign of -0.000000
  return s;
}

function checkName(name, what) {
  if (typeof name !== "string") throw new Error(`${what} is not a string`);
  if (/["\r\n]/.test(name)) throw new Error(`${what} ${JSON.stringify(name)} holds a double quote or a line break`);
}

/** Every node of the tree in depth-first preorder (an explicit stack, no recursion). */
export function preorder(root) {
  const out = [];
  const stack = [root];
  while (stack.length) {
    const v = stack.pop();
    out.push(v);
    for (let i = v.children.length - 1; i >= 0; i--) stack.push(v.children[i]);
  }
  return out;
}

// ---- CSV ---------------------------------------------------------------------------------

const quoted = (s) => (s.includes(",") ? `"${s}"` : s);

/** The tree as CSV text. */
export function writeCsv(root) {
  const lines = [CSV_HEADER];
  for (const v of preorder(root)) {
    const move = v === root ? "root" : v.move;
    checkName(move, "a move name");
    checkName(v.state, "a state name");
    lines.push(`${quoted(move)},${count(v.visits)},${count(v.visits2)},${fixed6(v.payoff)},${quoted(v.state)},${v.children.length}`);
  }
  return lines.join("\n") + "\n";
}

function count(v) {
  if (!Number.isInteger(v) || v < 0) throw new Error(`a count ${v} is not a whole number >= 0`);
  return String(v);
}

/** Splits one CSV row into its six fields, taken from the right: children, state (quoted
 * when it holds a comma), payoff, visits2, visits, and the rest is the move name, which
 * the C exporter writes as it is even when it holds commas ({heap:0,take:2}); a move in
 * quotes is read too. */
function splitRow(line, lineNo) {
  const fields = [];
  let rest = line;
  const cut = (what) => {
    const c = rest.lastIndexOf(",");
    if (c < 0) throw new Error(`line ${lineNo}: no ${what} field: a row is move,visits,visits2,payoff,state,children`);
    fields.unshift(rest.slice(c + 1));
    rest = rest.slice(0, c);
  };
  cut("children");
  if (rest.endsWith("\"")) {
    const open = rest.lastIndexOf("\"", rest.length - 2);
    if (open < 0) throw new Error(`line ${lineNo}: the state's closing double quote has no opening one`);
    if (open === 0 || rest[open - 1] !== ",") throw new Error(`line ${lineNo}: text before the state's opening double quote (column ${open + 1})`);
    fields.unshift(rest.slice(open + 1, -1));
    rest = rest.slice(0, open - 1);
  } else cut("state");
  cut("payoff");
  cut("visits2");
  cut("visits");
  fields.unshift(rest.length > 1 && rest.startsWith("\"") && rest.endsWith("\"") ? rest.slice(1, -1) : rest);
  for (const [k, f] of [[0, "the move"], [4, "the state"]]) {
    if (fields[k].includes("\"")) throw new Error(`line ${lineNo}: a stray double quote in ${f} ${JSON.stringify(fields[k])}`);
  }
  return fields;
}

function csvCount(text, field, lineNo) {
  if (!/^[0-9]+$/.test(text)) throw new Error(`line ${lineNo}: ${field} ${JSON.stringify(text)} is not a whole number >= 0`);
  return Number(text);
}

/** The tree of a CSV text (a string). Throws an Error naming the line on bad input. */
export function readCsv(text) {
  if (typeof text !== "string") throw new Error("the CSV file is not text");
  const lines = text.split("\n");
  if (lines.length && lines[lines.length - 1] === "") lines.pop(); // the last line's end
  if (!lines.length) throw new Error("the CSV file is empty");
  const strip = (l) => (l.endsWith("\r") ? l.slice(0, -1) : l);
  if (strip(lines[0]) !== CSV_HEADER) throw new Error(`line 1: the header is not ${CSV_HEADER}`);
  if (lines.length < 2) throw new Error("line 2: no root row after the header");
  let root = null;
  const stack = []; // [node, children still to come]
  for (let k = 1; k < lines.length; k++) {
    const lineNo = k + 1;
    const line = strip(lines[k]);
    if (root && !stack.length) throw new Error(`line ${lineNo}: a row after the tree is complete`);
    const f = splitRow(line, lineNo);
    const [move, visitsT, visits2T, payoffT, state, childrenT] = f;
    const visits = csvCount(visitsT, "visits", lineNo);
    const visits2 = csvCount(visits2T, "visits2", lineNo);
    const children = csvCount(childrenT, "children", lineNo);
    if (!/^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/.test(payoffT)) throw new Error(`line ${lineNo}: payoff ${JSON.stringify(payoffT)} is not a number`);
    if (children > lines.length) throw new Error(`line ${lineNo}: ${children} children, more than the file has rows`);
    const node = { move: root ? move : null, state, visits, visits2, payoff: Number(payoffT), children: [] };
    if (!root) root = node;
    else {
      const top = stack[stack.length - 1];
      top[0].children.push(node);
      if (--top[1] === 0) stack.pop();
    }
    if (children) stack.push([node, children]);
  }
  if (stack.length) {
    const missing = stack.reduce((s, e) => s + e[1], 0);
    throw new Error(`line ${lines.length + 1}: the file ends with ${missing} node${missing === 1 ? "" : "s"} missing`);
  }
  return root;
}

// ---- binary ------------------------------------------------------------------------------

const encoder = new TextEncoder();

/** The tree in the binary format, as a Uint8Array. */
export function writeBinary(root) {
  const nodes = preorder(root);
  const names = new Map(); // node -> [encoded move, encoded state]
  let size = 0;
  for (const v of nodes) {
    checkName(v.state, "a state name");
    const st = encoder.encode(v.state);
    let mv = null;
    if (v !== root) {
      checkName(v.move, "a move name");
      mv = encoder.encode(v.move);
      size += 4 + mv.length + 4 + 4 + 8;
      count(v.visits);
      count(v.visits2);
    }
    size += 4 + st.length + 4;
    names.set(v, [mv, st]);
  }
  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  let at = 0;
  const int = (v) => { dv.setInt32(at, Math.min(v, INT_MAX), true); at += 4; };
  const bytes = (b) => { int(b.length); out.set(b, at); at += b.length; };
  // Preorder with the child's header (move, counters, payoff) written just before it.
  const stack = [root];
  while (stack.length) {
    const v = stack.pop();
    const [mv, st] = names.get(v);
    if (mv) {
      bytes(mv);
      int(v.visits);
      int(v.visits2);
      dv.setFloat64(at, v.payoff, true);
      at += 8;
    }
    bytes(st);
    int(v.children.length);
    for (let i = v.children.length - 1; i >= 0; i--) stack.push(v.children[i]);
  }
  return out;
}

/** The tree of a binary file (an ArrayBuffer or a typed array). Throws an Error naming
 * the byte offset on bad input. */
export function readBinary(data) {
  const u8 = data instanceof Uint8Array ? data : ArrayBuffer.isView(data)
    ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);
  const dv = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const size = u8.length;
  if (!size) throw new Error("the tree file is empty");
  let at = 0;
  const need = (n, what) => {
    if (at + n > size) throw new Error(`byte ${at}: the file ends inside ${what} (${n} bytes needed, ${size - at} left)`);
  };
  const int = (what, counter = true) => {
    need(4, what);
    const v = dv.getInt32(at, true);
    if (counter && v < 0) throw new Error(`byte ${at}: ${what} is negative (${v})`);
    at += 4;
    return v;
  };
  const string = (what) => {
    const start = at;
    const len = int(`the length of ${what}`);
    need(len, what);
    let s;
    try {
      s = decoder.decode(u8.subarray(at, at + len));
    } catch {
      throw new Error(`byte ${at}: ${what} is not UTF-8`);
    }
    if (/["\r\n]/.test(s)) throw new Error(`byte ${start}: ${what} holds a double quote or a line break`);
    at += len;
    return s;
  };
  const childCount = () => {
    const c = int("a child count");
    if (c * MIN_CHILD_BYTES > size - at) throw new Error(`byte ${at - 4}: ${c} children cannot fit in the ${size - at} bytes left`);
    return c;
  };
  const root = { move: null, state: string("the root's state name"), visits: 0, visits2: 0, payoff: 0, children: [] };
  const stack = [];
  let c = childCount();
  if (c) stack.push([root, c]);
  while (stack.length) {
    const top = stack[stack.length - 1];
    const move = string("a move name");
    const visits = int("a child's visits");
    const visits2 = int("a child's visits2");
    need(8, "a child's payoff");
    const payoff = dv.getFloat64(at, true);
    at += 8;
    const node = { move, state: string("a state name"), visits, visits2, payoff, children: [] };
    top[0].children.push(node);
    if (--top[1] === 0) stack.pop();
    c = childCount();
    if (c) stack.push([node, c]);
  }
  if (at !== size) throw new Error(`byte ${at}: ${size - at} bytes after the end of the tree`);
  let w = 0;
  for (const ch of root.children) {
    root.visits += ch.visits;
    root.visits2 += ch.visits2;
    w += ch.visits * ch.payoff;
  }
  root.payoff = root.visits ? w / root.visits : 0;
  return root;
}

/** Reads a tree from a file's bytes: CSV when it begins with the CSV header, else binary. */
export function readTree(bytes) {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const head = new TextDecoder().decode(u8.subarray(0, CSV_HEADER.length));
  if (head === CSV_HEADER) return { format: "csv", root: readCsv(new TextDecoder("utf-8", { fatal: false }).decode(u8)) };
  return { format: "tree", root: readBinary(u8) };
}
