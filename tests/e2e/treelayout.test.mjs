// treelayout.test.mjs: clients/web/treelayout.js (the Buchheim-Jünger-Leipert layout)
// against naive references, in plain Node (no browser, no server): for random trees of
// many shapes, nodes at one depth keep their order and are at least `sep` apart, a parent
// is centred over its first and last child, the drawing is no wider than the naive layout
// that gives each subtree its own band, the layout of the mirrored tree is the mirror, and
// the work it counts grows linearly (a count, never a timing). Run:
//   node --test tests/e2e/treelayout.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { layoutTree } from "../../clients/web/treelayout.js";

const EPS = 1e-7;

/** A small deterministic generator (xorshift32), so a failure can be replayed. */
function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return s / 4294967296;
  };
}

/** A random tree of n nodes: each new node hangs under a node picked by pick(i, rand). */
function randomTree(n, rand, pick) {
  const nodes = [{ id: 0, children: [] }];
  for (let i = 1; i < n; i++) {
    const node = { id: i, children: [] };
    nodes[pick(i, rand)].children.push(node);
    nodes.push(node);
  }
  return nodes[0];
}

const SHAPES = {
  uniform: (i, r) => Math.floor(r() * i),             // bushy, shallow
  recent: (i, r) => Math.max(0, i - 1 - Math.floor(r() * 4)), // long and thin
  mixed: (i, r) => (r() < 0.5 ? Math.floor(r() * i) : i - 1),
  wide: (i, r) => Math.floor(r() * Math.min(i, 3)),   // a few nodes with many children
};

function mirror(node) {
  return { id: node.id, children: node.children.slice().reverse().map(mirror) };
}

/** The naive layout: each leaf its own column, a parent centred over its first and last
 * child, so every subtree has its own band. Its width (leaves - 1) * sep bounds ours. */
function naiveWidth(root, sep) {
  let leaves = 0;
  const stack = [root];
  while (stack.length) {
    const v = stack.pop();
    if (!v.children.length) leaves++;
    stack.push(...v.children);
  }
  return (leaves - 1) * sep;
}

function check(root, sep, label) {
  const L = layoutTree(root, { sep });
  const n = L.nodes.length;
  // By depth, in breadth-first order: left to right, at least sep apart.
  for (let i = 1; i < n; i++) {
    if (L.depth[i] === L.depth[i - 1]) {
      assert.ok(L.x[i] - L.x[i - 1] >= sep - EPS,
        `${label}: nodes ${L.nodes[i - 1].id} and ${L.nodes[i].id} at depth ${L.depth[i]} are ${L.x[i] - L.x[i - 1]} apart`);
    }
    assert.ok(L.depth[i] >= L.depth[i - 1], `${label}: breadth-first order`);
  }
  // Parents centred over their first and last child; y is the depth.
  for (let v = 0; v < n; v++) {
    if (L.childCount[v]) {
      const a = L.childStart[v], b = a + L.childCount[v] - 1;
      assert.ok(Math.abs(L.x[v] - (L.x[a] + L.x[b]) / 2) < EPS, `${label}: node ${L.nodes[v].id} centred`);
      for (let c = a; c <= b; c++) assert.equal(L.depth[c], L.depth[v] + 1);
    }
  }
  let lo = Infinity, hi = -Infinity;
  for (const x of L.x) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
  assert.ok(Math.abs(lo) < EPS, `${label}: shifted to 0`);
  assert.ok(Math.abs(hi - L.width) < EPS, `${label}: width`);
  assert.ok(L.width <= naiveWidth(root, sep) + EPS, `${label}: ${L.width} wider than the naive ${naiveWidth(root, sep)}`);
  // The mirrored tree's layout is the mirror image.
  const M = layoutTree(mirror(root), { sep });
  assert.ok(Math.abs(M.width - L.width) < EPS, `${label}: the mirror's width`);
  const xm = new Map();
  for (let i = 0; i < n; i++) xm.set(M.nodes[i].id, M.x[i]);
  for (let i = 0; i < n; i++) {
    const want = L.width - L.x[i];
    assert.ok(Math.abs(xm.get(L.nodes[i].id) - want) < 1e-6, `${label}: node ${L.nodes[i].id} mirrored at ${xm.get(L.nodes[i].id)}, not ${want}`);
  }
  return L;
}

test("small trees by hand", () => {
  const leaf = (id) => ({ id, children: [] });
  const one = layoutTree(leaf(0));
  assert.deepEqual([...one.x], [0]);
  assert.equal(one.width, 0);
  const star = layoutTree({ id: 0, children: [leaf(1), leaf(2), leaf(3)] }, { sep: 2 });
  assert.deepEqual([...star.x], [2, 0, 2, 4]);
  assert.deepEqual([...star.depth], [0, 1, 1, 1]);
  // Two deep subtrees with two leaves between them: the leaves are spread evenly, and the
  // deep ones pushed apart only as far as their contours need.
  const deep = (id) => ({ id, children: [{ id: id + 1, children: [leaf(id + 2), leaf(id + 3), leaf(id + 4)] }] });
  const t = { id: 0, children: [deep(10), leaf(1), leaf(2), deep(20)] };
  const L = check(t, 1, "hand");
  const at = (id) => L.x[L.nodes.findIndex((v) => v.id === id)];
  assert.ok(Math.abs(at(20) - at(10) - 3) < EPS, `the deep subtrees' roots are 3 apart (${at(20) - at(10)})`);
  assert.ok(Math.abs(at(1) - at(10) - 1) < EPS && Math.abs(at(2) - at(1) - 1) < EPS, "the leaves spread evenly");
  assert.ok(Math.abs(at(0) - (at(10) + at(20)) / 2) < EPS, "the root centred");
});

test("random trees of every shape: order, separation, centring, width, mirror", () => {
  const rand = rng(12345);
  let trees = 0;
  for (const [shape, pick] of Object.entries(SHAPES)) {
    for (let k = 0; k < 60; k++) {
      const n = 1 + Math.floor(rand() * (k < 40 ? 40 : 600));
      const sep = [1, 0.5, 3][k % 3];
      check(randomTree(n, rand, pick), sep, `${shape} #${k} (n = ${n}, sep = ${sep})`);
      trees++;
    }
  }
  assert.equal(trees, 240);
});

test("the work counted grows linearly, even on trees that make naive contour walks quadratic", () => {
  const rand = rng(777);
  // A comb: a long spine, each spine node with a leaf; and the bad case for a contour walk
  // that restarts per subtree: a deep left subtree and many small siblings to its right.
  const comb = (n) => {
    const root = { id: 0, children: [] };
    let v = root;
    for (let i = 1; i + 1 < n; i += 2) {
      const next = { id: i, children: [] };
      v.children.push(next, { id: i + 1, children: [] });
      v = next;
    }
    return root;
  };
  const deepThenMany = (n) => {
    const root = { id: 0, children: [] };
    let v = { id: 1, children: [] };
    root.children.push(v);
    let id = 2;
    for (; id < n / 2; id++) { const w = { id, children: [] }; v.children.push(w); v = w; }
    for (; id < n; id += 2) root.children.push({ id, children: [{ id: id + 1, children: [] }] });
    return root;
  };
  const builders = {
    comb, deepThenMany,
    uniform: (n) => randomTree(n, rand, SHAPES.uniform),
    recent: (n) => randomTree(n, rand, SHAPES.recent),
  };
  for (const [name, build] of Object.entries(builders)) {
    const ratios = [];
    for (const n of [1000, 8000, 64000]) {
      const L = layoutTree(build(n));
      ratios.push(L.work / L.nodes.length);
      assert.ok(L.work <= 8 * L.nodes.length, `${name}: ${L.work} steps for ${L.nodes.length} nodes`);
    }
    // Linear: the steps per node do not grow with n (a quadratic walk would grow 64-fold).
    assert.ok(ratios[2] <= ratios[0] * 1.5 + 0.5, `${name}: steps per node ${ratios.join(", ")}`);
  }
  // 64,000 nodes in a path: no recursion to overflow.
  const path = { id: 0, children: [] };
  let v = path;
  for (let i = 1; i < 64000; i++) { const w = { id: i, children: [] }; v.children.push(w); v = w; }
  const P = layoutTree(path);
  assert.equal(P.height, 63999);
  assert.equal(P.width, 0);
});
