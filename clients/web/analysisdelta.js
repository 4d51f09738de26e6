// analysisdelta.js: a client's copy of an analysis's tree under thue.v2 (PROTOCOL.md
// section 16, "Under thue.v2").
//
// Under thue.v2 the server sends an analysis's tree as updates of what changed, each in
// one or more `analysis_delta` parts: the nodes that left the shown tree (`gone`), the
// nodes newly shown (`add`, each with its parent's id) and the shown nodes whose figures
// changed (`set`). A full update (the first one, and the one after `analyze_sync`) is the
// whole tree. This module keeps the nodes by id, applies the parts as they come, and once
// an update's last part is in gives the tree in thue.v1's shape, so that the rest of a
// client sees the same analysis_tree objects under either protocol. It has no DOM and no
// network: the analysis page (analysis.js), the tests and any bot can use it.
//
// apply(msg) takes an analysis_delta of its analysis and returns
//   {tree}        the update is whole: an analysis_tree message (thue.v1's shape, `tree`
//                 the root NODE) of the tree now;
//   {sync: true}  a part it cannot follow (one missing, or a change to a tree it does not
//                 have): send {"type":"analyze_sync","analysis":key}; the parts that follow
//                 are ignored until a full update begins;
//   {}            a part taken (more of the update to come), or one ignored.

export class AnalysisTree {
  constructor(key) {
    this.key = key;
    this.nodes = new Map(); // id -> {id, parent, move, name, to_move, visits, ended, value, hidden, kids}
    this.root = null;
    this.seq = 0;     // the last whole update's
    this.part = 0;    // parts taken of the update under way (0: none)
    this.lost = true; // no tree to apply changes to: waiting for a full update
    this.asked = false; // a sync was asked for since
  }

  apply(m) {
    if (m.type !== "analysis_delta" || m.analysis !== this.key) return {};
    if (m.part === 1 && m.full) {
      this.nodes.clear();
      this.root = null;
      this.lost = false;
      this.asked = false;
    } else if (this.lost) {
      return this.lose();
    } else if (m.part === 1 ? m.seq !== this.seq + 1 : m.seq !== this.seq + 1 || m.part !== this.part + 1) {
      return this.lose();
    }
    this.part = m.part;
    for (const id of m.gone) {
      const n = this.nodes.get(id);
      if (!n) return this.lose();
      const p = this.nodes.get(n.parent);
      if (p) removeKid(p.kids, id);
      this.nodes.delete(id);
    }
    for (const a of m.add) {
      if (this.nodes.has(a.id)) return this.lose();
      const n = { id: a.id, parent: a.parent, move: a.move, name: a.name, to_move: a.to_move,
        visits: a.visits, ended: a.ended, value: a.value, hidden: a.hidden, kids: [] };
      if (a.parent === null) {
        this.root = a.id;
      } else {
        const p = this.nodes.get(a.parent);
        if (!p) return this.lose();
        insertKid(p.kids, a.id);
      }
      this.nodes.set(a.id, n);
    }
    for (const [id, visits, ended, value, hidden] of m.set) {
      const n = this.nodes.get(id);
      if (!n) return this.lose();
      n.visits = visits;
      n.ended = ended;
      n.value = value;
      n.hidden = hidden;
    }
    if (!m.last) return {};
    this.part = 0;
    this.seq = m.seq;
    if (this.root === null || this.nodes.size !== m.shown) return this.lose();
    return {
      tree: { type: "analysis_tree", analysis: m.analysis, seq: m.seq, status: m.status, iterations: m.iterations,
        nodes: m.nodes, shown: m.shown, best: m.best, tree: this.tree() },
    };
  }

  /** The shown tree as thue.v1's NODE objects (an explicit stack: a tree may be deep). */
  tree() {
    const conv = (n) => ({ move: n.move, name: n.name, to_move: n.to_move, visits: n.visits, ended: n.ended,
      value: n.value, children: [], hidden: n.hidden });
    const r = this.nodes.get(this.root);
    const out = conv(r);
    const stack = [[r, out]];
    while (stack.length) {
      const [n, o] = stack.pop();
      for (const id of n.kids) {
        const k = this.nodes.get(id);
        const c = conv(k);
        o.children.push(c);
        stack.push([k, c]);
      }
    }
    return out;
  }

  /** The tree cannot be followed: a sync, asked for once until a full update comes. */
  lose() {
    this.lost = true;
    this.part = 0;
    if (this.asked) return {};
    this.asked = true;
    return { sync: true };
  }
}

/** Ids sorted ascending: a node's children in the game's legal-move order. */
function insertKid(kids, id) {
  let lo = 0, hi = kids.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (kids[mid] < id) lo = mid + 1; else hi = mid; }
  kids.splice(lo, 0, id);
}

function removeKid(kids, id) {
  let lo = 0, hi = kids.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (kids[mid] < id) lo = mid + 1; else hi = mid; }
  if (kids[lo] === id) kids.splice(lo, 1);
}
