// treelayout.js: the tidy drawing of a rooted tree of any arity, by Walker's algorithm in
// the linear-time form of Buchheim, Jünger and Leipert ("Improving Walker's algorithm to
// run in linear time", 2002), the layout the UCT viewer of uct-visualisation.pl.txt uses.
// y is the depth; x comes from the layout, which guarantees:
//   - nodes at the same depth keep their left-to-right order and are at least `sep` apart;
//   - a parent is centred over its first and last child;
//   - subtrees are pushed together as far as their contours allow (never wider than giving
//     every subtree its own vertical band), and the smaller subtrees between two that had
//     to be separated are spread evenly;
//   - the drawing of a mirrored tree is the mirror of the drawing (`symmetric`, on by
//     default: the left-to-right pass is averaged with the mirrored right-to-left pass,
//     which keeps every property above, since each is linear in x and holds for both).
// No recursion: trees of 250,000 nodes and paths as deep as that are laid out with loops
// over a breadth-first numbering, in which every node's children are consecutive.

/**
 * Lays out the tree under root. children(node) returns the node's children as an array
 * (borrowed; default node.children || []). Options: sep (the least distance of two nodes
 * at one depth, default 1), symmetric (default true).
 * Returns {nodes, parent, depth, x, childStart, childCount, width, height, work}: arrays
 * indexed by breadth-first number (nodes[0] is root; the children of i are
 * childStart[i] .. childStart[i] + childCount[i] - 1), x shifted so that its least value
 * is 0, width the greatest x, height the greatest depth, and work the number of steps
 * the layout took (a count, linear in the number of nodes).
 */
export function layoutTree(root, { children = (n) => n.children || [], sep = 1, symmetric = true } = {}) {
  const t = flatten(root, children);
  const n = t.nodes.length;
  const left = walk(t, sep, false);
  let work = left.work;
  const x = left.x;
  if (symmetric && n > 1) {
    const right = walk(t, sep, true);
    work += right.work;
    for (let i = 0; i < n; i++) x[i] = (x[i] - right.x[i]) / 2;
  }
  let lo = Infinity, hi = -Infinity, height = 0;
  for (let i = 0; i < n; i++) {
    if (x[i] < lo) lo = x[i];
    if (x[i] > hi) hi = x[i];
    if (t.depth[i] > height) height = t.depth[i];
  }
  for (let i = 0; i < n; i++) x[i] -= lo;
  return { nodes: t.nodes, parent: t.parent, depth: t.depth, x, childStart: t.childStart,
    childCount: t.childCount, width: hi - lo, height, work: work + n };
}

/** The breadth-first numbering: nodes, parent, depth, childStart, childCount. */
function flatten(root, children) {
  const nodes = [root];
  const parentList = [-1];
  const depthList = [0];
  const starts = [];
  const counts = [];
  for (let i = 0; i < nodes.length; i++) {
    const kids = children(nodes[i]);
    starts.push(nodes.length);
    counts.push(kids.length);
    for (const k of kids) {
      nodes.push(k);
      parentList.push(i);
      depthList.push(depthList[i] + 1);
    }
  }
  return { nodes, parent: Int32Array.from(parentList), depth: Int32Array.from(depthList),
    childStart: Int32Array.from(starts), childCount: Int32Array.from(counts) };
}

/**
 * One pass of the layout. mirrored: children are taken right to left (the x it returns is
 * then the mirror image's, i.e. to be negated). Returns {x, work}.
 */
function walk(t, sep, mirrored) {
  const n = t.nodes.length;
  const { parent, childStart, childCount } = t;
  const prelim = new Float64Array(n);
  const mod = new Float64Array(n);
  const shift = new Float64Array(n);
  const change = new Float64Array(n);
  const mid = new Float64Array(n); // the midpoint of a node's children, once arranged
  const thread = new Int32Array(n).fill(-1);
  const ancestor = new Int32Array(n);
  for (let i = 0; i < n; i++) ancestor[i] = i;
  let work = 0;

  // The k-th child of v in the pass's order, and a node's number among its siblings.
  const child = mirrored ? (v, k) => childStart[v] + childCount[v] - 1 - k : (v, k) => childStart[v] + k;
  const number = mirrored ? (w) => childStart[parent[w]] + childCount[parent[w]] - 1 - w : (w) => w - childStart[parent[w]];
  const leftSibling = (w) => {
    if (w === 0) return -1;
    const k = number(w);
    return k === 0 ? -1 : child(parent[w], k - 1);
  };
  const firstSibling = (w) => child(parent[w], 0);
  const nextLeft = (v) => (childCount[v] ? child(v, 0) : thread[v]);
  const nextRight = (v) => (childCount[v] ? child(v, childCount[v] - 1) : thread[v]);

  function moveSubtree(wm, wp, s) {
    const subtrees = number(wp) - number(wm);
    change[wp] -= s / subtrees;
    shift[wp] += s;
    change[wm] += s / subtrees;
    prelim[wp] += s;
    mod[wp] += s;
  }

  function ancestorOf(vim, v, defaultAncestor) {
    const a = ancestor[vim];
    return parent[a] === parent[v] ? a : defaultAncestor;
  }

  // Places the subtree of v (its left siblings' subtrees placed already) as close to them
  // as the contours allow, following both contours down level by level.
  function apportion(v, defaultAncestor) {
    const w = leftSibling(v);
    if (w < 0) return defaultAncestor;
    let vip = v, vop = v, vim = w, vom = firstSibling(v);
    let sip = mod[vip], sop = mod[vop], sim = mod[vim], som = mod[vom];
    let nr = nextRight(vim), nl = nextLeft(vip);
    while (nr >= 0 && nl >= 0) {
      work++;
      vim = nr;
      vip = nl;
      vom = nextLeft(vom);
      vop = nextRight(vop);
      ancestor[vop] = v;
      const s = (prelim[vim] + sim) - (prelim[vip] + sip) + sep;
      if (s > 0) {
        moveSubtree(ancestorOf(vim, v, defaultAncestor), v, s);
        sip += s;
        sop += s;
      }
      sim += mod[vim];
      sip += mod[vip];
      som += mod[vom];
      sop += mod[vop];
      nr = nextRight(vim);
      nl = nextLeft(vip);
    }
    if (nr >= 0 && nextRight(vop) < 0) {
      thread[vop] = nr;
      mod[vop] += sim - sop;
    }
    if (nl >= 0 && nextLeft(vom) < 0) {
      thread[vom] = nl;
      mod[vom] += sip - som;
      defaultAncestor = v;
    }
    return defaultAncestor;
  }

  // Bottom-up, deepest level first (reverse breadth-first order): a node with children
  // gets each child's preliminary x in order, then apportions it against its left siblings.
  for (let v = n - 1; v >= 0; v--) {
    const c = childCount[v];
    if (c === 0) continue;
    let defaultAncestor = child(v, 0);
    for (let k = 0; k < c; k++) {
      work++;
      const w = child(v, k);
      const ls = k ? child(v, k - 1) : -1;
      if (childCount[w] === 0) prelim[w] = ls >= 0 ? prelim[ls] + sep : 0;
      else if (ls >= 0) {
        prelim[w] = prelim[ls] + sep;
        mod[w] = prelim[w] - mid[w];
      } else prelim[w] = mid[w];
      defaultAncestor = apportion(w, defaultAncestor);
    }
    // The shifts recorded by moveSubtree, spread over the children in one sweep.
    let s = 0, ch = 0;
    for (let k = c - 1; k >= 0; k--) {
      const w = child(v, k);
      prelim[w] += s;
      mod[w] += s;
      ch += change[w];
      s += shift[w] + ch;
    }
    mid[v] = (prelim[child(v, 0)] + prelim[child(v, c - 1)]) / 2;
  }
  prelim[0] = childCount[0] ? mid[0] : 0;

  // Top-down: the final x is the preliminary x plus the sum of the ancestors' mods.
  const x = new Float64Array(n);
  const acc = new Float64Array(n);
  for (let v = 0; v < n; v++) {
    x[v] = prelim[v] + acc[v];
    for (let k = 0; k < childCount[v]; k++) acc[childStart[v] + k] = acc[v] + mod[v];
  }
  return { x, work };
}
