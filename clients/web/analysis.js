// analysis.js: the analysis page (#/analysis): a UCT search tree drawn on a canvas. The
// tree comes from a file (docs/uct.md's CSV or binary .tree, read by treefile.js) or live
// from the server (PROTOCOL.md "analyze": the search runs in the worker pool and streams
// `analysis_tree` events, each a whole capped tree; under thue.v2, `analysis_delta`
// updates of what changed, which analysisdelta.js merges into the same trees). The
// drawing is treelayout.js's Buchheim-Jünger-Leipert layout: y by depth, the radius by the
// square root of the visits, the colour by the value, the best line (most visited
// children from the root) marked.
// Click a node for its details (click it again, or Enter, to collapse or expand its
// subtree); drag to pan; the wheel, a pinch or the +/- buttons zoom; "Fit" shows it all.
// Trees of 50,000 nodes and more: one canvas, one pass per frame over the laid-out nodes,
// off-screen ones culled, fills batched by colour; no DOM element per node.
//
// The page's state lives in `A`; a node of the shown tree is {key, move, moveJson, state,
// visits, visits2, payoff, toMove, hidden, children}: move is the move name (the files'
// names; for a live tree the move's compact JSON with every `"` removed), key the path of
// move names from the root, which is what the collapsed set and the selection remember
// across live updates. Nothing from a file or the server is put in the page as HTML.
import { AnalysisTree } from "./analysisdelta.js";
import { layoutTree } from "./treelayout.js";
import { preorder, readTree, writeBinary, writeCsv } from "./treefile.js";
import { applyMove, drawBoard, gameInfo, games, moveText } from "./games.js";
import { reasonText, t } from "./i18n.js";

/** The analyze parameters: [least, greatest, default] (the server checks them too). */
export const PARAMS = {
  iterations: [1, 1000000, 20000],
  playout: [1, 100000, 100],
  c: [0, 1000, Math.SQRT2],
  seed: [0, 9007199254740991, null],
  max_nodes: [1, 50000, 5000],
};

const SEP_PX = 28;    // the layout's unit: the least distance of two nodes at one depth
const LEVEL_PX = 72;  // from one depth to the next
const R_MIN = 2.5, R_MAX = 12; // radius of an unvisited node, of the most visited one
const ZOOM_STEP = 1.25;

let ctx = null; // from app.js: {el, conn, gameOptionFields, readGameOptions, showOptionError, analysisHash}
const A = {
  root: null, source: "", format: "",  // the tree shown, where it came from
  byKey: new Map(), collapsed: new Set(), selected: "", best: new Set(),
  L: null, wx: null, wy: null, maxVisits: 1,   // the layout, in world coordinates
  view: { scale: 1, yscale: 1, yfit: 1, tx: 0, ty: 0 }, fitted: false, follow: true,
  canvas: null, frame: 0, pointers: new Map(), drag: null,
  live: null,  // {key, seq, status, game, options, position, params}
};

const $ = (id) => document.getElementById(id);
const moveName = (mv) => JSON.stringify(mv).replace(/"/g, "");

// ---- the tree model ----------------------------------------------------------------------

/** Gives every node of a tree its key (iteratively: a path can be very deep). */
function keyTree(root) {
  root.key = "";
  const stack = [root];
  A.byKey = new Map();
  while (stack.length) {
    const v = stack.pop();
    A.byKey.set(v.key, v);
    let seen = null; // sibling move names (a file may repeat one: the later ones get #2, #3...)
    for (const c of v.children) {
      let k = `${v.key}/${c.move}`;
      if (v.children.length > 1) {
        seen = seen || new Map();
        const n = (seen.get(c.move) || 0) + 1;
        seen.set(c.move, n);
        if (n > 1) k += `#${n}`;
      }
      c.key = k;
      stack.push(c);
    }
  }
  return root;
}

/** A live NODE of the protocol as a model node (an explicit stack, no recursion). */
function fromLive(node, game) {
  const conv = (n) => ({ move: n.move === null ? null : moveName(n.move), label: n.move === null ? null : shortMove(game, n.move), moveJson: n.move, state: n.name,
    visits: n.visits, visits2: n.ended, payoff: n.value, toMove: n.to_move, hidden: n.hidden || 0, children: [], src: n });
  const root = conv(node);
  const stack = [root];
  while (stack.length) {
    const v = stack.pop();
    for (const c of v.src.children || []) { const m = conv(c); v.children.push(m); stack.push(m); }
    delete v.src;
  }
  return root;
}

/** The most visited child, or null. Ties as the uct bots break them: the better mean for
 * the player to move at v (a live tree's values are the mover's, higher is better; in
 * Thue's files the payoff is the painter's: a builder node, "/b", wants the lower), then
 * the earlier child. */
function bestChild(v) {
  const lower = v.toMove === undefined && /\/b$/.test(v.state);
  let b = null;
  for (const c of v.children) {
    if (!b || c.visits > b.visits) b = c;
    else if (c.visits === b.visits && (lower ? c.payoff < b.payoff : c.payoff > b.payoff)) b = c;
  }
  return b;
}

function subtreeSize(v) {
  let n = 0;
  const stack = [v];
  while (stack.length) { const w = stack.pop(); n++; for (const c of w.children) stack.push(c); }
  return n;
}

/** Shows a tree (from a file or the server); keeps the collapsed nodes and the selection
 * that still exist, and the view unless it is a new tree. */
function setTree(root, source, format, keepView) {
  A.root = keyTree(root);
  A.source = source;
  A.format = format;
  for (const k of [...A.collapsed]) if (!A.byKey.has(k)) A.collapsed.delete(k);
  if (!A.byKey.has(A.selected)) A.selected = "";
  A.best = new Set([""]);
  for (let v = bestChild(root); v; v = bestChild(v)) A.best.add(v.key);
  if (!keepView || A.follow) A.fitted = false; // a growing tree stays fitted until the view is moved
  relayout();
  renderStatus();
  renderDetails();
}

function relayout() {
  if (!A.root) { A.L = null; draw(); return; }
  A.L = layoutTree(A.root, { children: (v) => (A.collapsed.has(v.key) ? [] : v.children) });
  const n = A.L.nodes.length;
  A.wx = new Float64Array(n);
  A.wy = new Float64Array(n);
  A.maxVisits = 1;
  A.rad = new Float32Array(n);
  A.flag = new Uint8Array(n);   // 1: on the best line, 2: folded, 4: children not sent
  A.bucket = new Uint8Array(n); // the colour: the value in BUCKETS steps, BUCKETS when unvisited
  for (let i = 0; i < n; i++) {
    const v = A.L.nodes[i];
    v.li = i;
    A.wx[i] = A.L.x[i] * SEP_PX;
    A.wy[i] = A.L.depth[i] * LEVEL_PX;
    if (v.visits > A.maxVisits) A.maxVisits = v.visits;
  }
  for (let i = 0; i < n; i++) {
    const v = A.L.nodes[i];
    A.rad[i] = radius(v);
    A.flag[i] = (A.best.has(v.key) ? 1 : 0) | (v.children.length && A.collapsed.has(v.key) ? 2 : 0) | (v.hidden ? 4 : 0);
    A.bucket[i] = v.visits > 0 ? Math.round(Math.max(0, Math.min(1, v.payoff)) * (BUCKETS - 1)) : BUCKETS;
  }
  if (!A.fitted) fit();
  draw();
}

// ---- drawing -----------------------------------------------------------------------------

const radius = (v) => R_MIN + (R_MAX - R_MIN) * Math.sqrt(Math.max(0, v.visits) / A.maxVisits);
/** The colour of a value in 0..1: red (0), amber (0.5), green (1); grey when unvisited. */
export function valueColour(x, dark = false) {
  const t = Math.max(0, Math.min(1, x));
  return `hsl(${Math.round(t * 120)}, ${dark ? 60 : 70}%, ${dark ? 55 : 42}%)`;
}
const BUCKETS = 21;
const isDark = () => window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;

function canvasSize() {
  const c = A.canvas;
  const w = c.clientWidth || 300, h = c.clientHeight || 300;
  const dpr = window.devicePixelRatio || 1;
  if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
    c.width = Math.round(w * dpr);
    c.height = Math.round(h * dpr);
  }
  return { w, h, dpr };
}

/** Draws on the next frame (many events in one frame make one drawing). */
function draw() {
  if (!A.canvas || A.frame) return;
  A.frame = requestAnimationFrame(() => { A.frame = 0; paint(); });
}

function paint() {
  const c = A.canvas;
  if (!c || !c.isConnected) return;
  const { w, h, dpr } = canvasSize();
  const g = c.getContext("2d");
  const dark = isDark();
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, w, h);
  if (!A.L) {
    g.fillStyle = dark ? "#a0a4a8" : "#5f6368";
    g.font = "15px system-ui, sans-serif";
    g.fillText(t("app.an.no_tree_yet"), 16, 28);
    c.dataset.drawn = "0";
    return;
  }
  const { scale, yscale, tx, ty } = A.view;
  const L = A.L, n = L.nodes.length;
  const { wx, wy, rad, flag, bucket } = A;
  const pad = R_MAX * scale + 2;
  // Where something tiny was drawn already, in whole pixels: a zoomed-out tree of 250,000
  // nodes is a few ten thousand pixels, drawn once each (edges likewise, by their child).
  const W = Math.ceil(w) + 1, H = Math.ceil(h) + 1;
  const taken = new Uint8Array(W * H);
  const pixel = (x, y) => (x >= 0 && y >= 0 && x < W && y < H ? (y | 0) * W + (x | 0) : -1);
  // Edges: one path; an edge is drawn when its box meets the screen.
  g.lineWidth = 1;
  g.strokeStyle = dark ? "#4a4f55" : "#c4c4bc";
  g.beginPath();
  const bestEdges = [];
  for (let i = 1; i < n; i++) {
    const p = L.parent[i];
    const x1 = wx[p] * scale + tx, y1 = wy[p] * yscale + ty, x2 = wx[i] * scale + tx, y2 = wy[i] * yscale + ty;
    if ((x1 < 0 && x2 < 0) || (x1 > w && x2 > w) || y2 < 0 || y1 > h) continue;
    if (flag[i] & 1) { bestEdges.push(x1, y1, x2, y2); continue; }
    if (Math.abs(x2 - x1) < 1) { const k = pixel(x2, y2); if (k >= 0) { if (taken[k] & 1) continue; taken[k] |= 1; } }
    else if (rad[i] * scale < 1) { const k = pixel(x2, y2); if (k >= 0) { if (taken[k] & 2) continue; taken[k] |= 2; } }
    g.moveTo(x1, y1);
    g.lineTo(x2, y2);
  }
  g.stroke();
  if (bestEdges.length) {
    g.lineWidth = Math.max(2, Math.min(6, 3 * scale));
    g.strokeStyle = dark ? "#8ab4e0" : "#2f5d8a";
    g.beginPath();
    for (let k = 0; k < bestEdges.length; k += 4) { g.moveTo(bestEdges[k], bestEdges[k + 1]); g.lineTo(bestEdges[k + 2], bestEdges[k + 3]); }
    g.stroke();
  }
  // Nodes: batched by colour bucket; tiny ones as one pixel square each (no arcs).
  const lists = Array.from({ length: BUCKETS + 1 }, () => []);
  const rings = [];
  let drawn = 0;
  for (let i = 0; i < n; i++) {
    const x = wx[i] * scale + tx, y = wy[i] * yscale + ty;
    if (x < -pad || x > w + pad || y < -pad || y > h + pad) continue;
    drawn++;
    if (flag[i]) rings.push(i);
    if (rad[i] * scale < 1) { const k = pixel(x, y); if (k >= 0) { if (taken[k] & 4) continue; taken[k] |= 4; } }
    lists[bucket[i]].push(i);
  }
  for (let b = 0; b <= BUCKETS; b++) {
    const list = lists[b];
    if (!list.length) continue;
    g.fillStyle = b === BUCKETS ? "#9aa0a6" : valueColour(b / (BUCKETS - 1), dark);
    g.beginPath();
    for (const i of list) {
      const r = Math.max(0.8, rad[i] * scale);
      const x = wx[i] * scale + tx, y = wy[i] * yscale + ty;
      if (r < 1.5) g.rect(x - r, y - r, 2 * r, 2 * r);
      else { g.moveTo(x + r, y); g.arc(x, y, r, 0, 2 * Math.PI); }
    }
    g.fill();
  }
  // Rings: the best line, the collapsed nodes (dashed, with their hidden count), the selection.
  const sel = A.byKey.get(A.selected);
  if (sel && L.nodes[sel.li] === sel) rings.push(sel.li);
  g.lineWidth = 2;
  for (const i of rings) {
    const v = L.nodes[i];
    const x = wx[i] * scale + tx, y = wy[i] * yscale + ty;
    const r = Math.max(0.8, rad[i] * scale);
    if (v === sel) { g.strokeStyle = dark ? "#ffffff" : "#000000"; g.lineWidth = 3; ring(g, x, y, r + 4); g.lineWidth = 2; continue; }
    if (flag[i] & 1) { g.strokeStyle = dark ? "#8ab4e0" : "#2f5d8a"; ring(g, x, y, r + 2); }
    if (flag[i] & 2) { // folded by the user: a dashed ring and the count it hides
      g.strokeStyle = dark ? "#e4e4e0" : "#1d1f21";
      g.setLineDash([3, 3]);
      ring(g, x, y, r + 5);
      g.setLineDash([]);
      if (scale > 0.5) {
        g.fillStyle = dark ? "#e4e4e0" : "#1d1f21";
        g.font = "11px system-ui, sans-serif";
        g.fillText(`+${subtreeSize(v) - 1}`, x + r + 7, y + 4);
      }
    }
    if ((flag[i] & 4) && scale > 0.3) { // children the server left out: a dotted stub below
      g.strokeStyle = dark ? "#a0a4a8" : "#5f6368";
      g.lineWidth = 1;
      g.setLineDash([2, 2]);
      g.beginPath();
      g.moveTo(x, y + r);
      g.lineTo(x, y + r + Math.min(14, LEVEL_PX * yscale * 0.3));
      g.stroke();
      g.setLineDash([]);
      g.lineWidth = 2;
    }
  }
  // Move names beside the nodes once there is room for them.
  if (scale >= 0.9) {
    g.fillStyle = dark ? "#e4e4e0" : "#1d1f21";
    g.font = "11px system-ui, sans-serif";
    g.textAlign = "center";
    for (let i = 1; i < n; i++) {
      const x = wx[i] * scale + tx, y = wy[i] * yscale + ty;
      if (x < -pad || x > w + pad || y < -pad || y > h + pad) continue;
      const v = L.nodes[i];
      const text = v.label || v.move;
      g.fillText(text.length > 14 ? `${text.slice(0, 13)}…` : text, x, y - rad[i] * scale - 4);
    }
    g.textAlign = "start";
  }
  c.dataset.drawn = String(drawn);
}

function ring(g, x, y, r) {
  g.beginPath();
  g.arc(x, y, r, 0, 2 * Math.PI);
  g.stroke();
}

// ---- the view: fit, zoom, pan ------------------------------------------------------------

function fit() {
  if (!A.L || !A.canvas) return;
  const { w, h } = canvasSize();
  const ww = A.L.width * SEP_PX + 2 * (R_MAX + 8), wh = A.L.height * LEVEL_PX + 2 * (R_MAX + 20);
  // Across and down apart: a wide tree is squeezed sideways, its depths still spread.
  const s = Math.min(2, w / ww, h / wh);
  const ys = Math.max(s, Math.min(2, h / wh));
  A.view.scale = s;
  A.view.yscale = ys;
  A.view.yfit = ys;
  A.view.tx = (w - A.L.width * SEP_PX * s) / 2;
  A.view.ty = (R_MAX + 20) * ys + Math.max(0, (h - wh * ys) / 2);
  A.fitted = true;
  A.follow = true;
  draw();
}

/** Zooms by factor around the screen point (px, py) (the centre by default). */
function zoom(factor, px, py) {
  const { w, h } = canvasSize();
  if (px === undefined) { px = w / 2; py = h / 2; }
  A.follow = false;
  const s = Math.max(1e-4, Math.min(20, A.view.scale * factor));
  const f = s / A.view.scale;
  // Down the tree the scale stays the fitted one until the x scale passes it.
  const ys = Math.max(s, A.view.yfit);
  A.view.tx = px - (px - A.view.tx) * f;
  A.view.ty = py - (py - A.view.ty) * (ys / A.view.yscale);
  A.view.scale = s;
  A.view.yscale = ys;
  draw();
}

/** The laid-out node under the screen point, or -1. */
function hit(px, py) {
  if (!A.L) return -1;
  const { scale, yscale, tx, ty } = A.view;
  let best = -1, bestD = Infinity;
  for (let i = 0; i < A.L.nodes.length; i++) {
    const dx = A.wx[i] * scale + tx - px, dy = A.wy[i] * yscale + ty - py;
    const d = dx * dx + dy * dy;
    const r = Math.max(A.rad[i] * scale, 0.8) + 6;
    if (d <= r * r && d < bestD) { best = i; bestD = d; }
  }
  return best;
}

/** Puts the selected node on screen (after a keyboard step). */
function showSelected() {
  const i = A.L ? A.L.nodes.findIndex((v) => v.key === A.selected) : -1;
  if (i < 0) return;
  const { w, h } = canvasSize();
  const x = A.wx[i] * A.view.scale + A.view.tx, y = A.wy[i] * A.view.yscale + A.view.ty;
  if (x < 20 || x > w - 20) { A.view.tx += w / 2 - x; A.follow = false; }
  if (y < 20 || y > h - 20) { A.view.ty += h / 2 - y; A.follow = false; }
}

function select(key, toggle) {
  const v = A.byKey.get(key);
  if (!v) return;
  if (toggle && A.selected === key) { toggleCollapse(v); return; }
  A.selected = key;
  renderDetails();
  draw();
}

function toggleCollapse(v) {
  if (!v.children.length) return;
  const before = nodeAt(v.key);
  if (A.collapsed.has(v.key)) A.collapsed.delete(v.key);
  else A.collapsed.add(v.key);
  relayout();
  // The node stays where it was on the screen (the layout around it changed).
  const after = nodeAt(v.key);
  if (before && after) { A.view.tx += before.x - after.x; A.view.ty += before.y - after.y; draw(); }
  renderDetails();
  renderStatus();
}

function wireCanvas(c) {
  c.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const b = c.getBoundingClientRect();
    zoom(Math.exp(-ev.deltaY * (ev.deltaMode === 1 ? 0.05 : 0.0015)), ev.clientX - b.left, ev.clientY - b.top);
  }, { passive: false });
  c.addEventListener("pointerdown", (ev) => {
    try { c.setPointerCapture(ev.pointerId); } catch { /* a synthetic pointer: moves come to the canvas anyway */ }
    const b = c.getBoundingClientRect();
    A.pointers.set(ev.pointerId, { x: ev.clientX - b.left, y: ev.clientY - b.top });
    A.drag = A.pointers.size === 1 ? { x: ev.clientX - b.left, y: ev.clientY - b.top, moved: 0 } : null;
  });
  c.addEventListener("pointermove", (ev) => {
    const p = A.pointers.get(ev.pointerId);
    if (!p) return;
    const b = c.getBoundingClientRect();
    const x = ev.clientX - b.left, y = ev.clientY - b.top;
    if (A.pointers.size === 2) { // a pinch: zoom by the change of the fingers' distance, pan by their middle
      const [a, q] = [...A.pointers.values()];
      const other = a === p ? q : a;
      const d0 = Math.hypot(p.x - other.x, p.y - other.y), d1 = Math.hypot(x - other.x, y - other.y);
      A.view.tx += (x - p.x) / 2;
      A.view.ty += (y - p.y) / 2;
      if (d0 > 0 && d1 > 0) zoom(d1 / d0, (x + other.x) / 2, (y + other.y) / 2);
    } else if (A.drag) {
      A.follow = false;
      A.view.tx += x - p.x;
      A.view.ty += y - p.y;
      A.drag.moved += Math.abs(x - p.x) + Math.abs(y - p.y);
      draw();
    }
    p.x = x;
    p.y = y;
  });
  const up = (ev) => {
    if (!A.pointers.has(ev.pointerId)) return;
    A.pointers.delete(ev.pointerId);
    if (ev.type === "pointerup" && A.drag && A.drag.moved < 6) {
      const i = hit(A.drag.x, A.drag.y);
      if (i >= 0) select(A.L.nodes[i].key, true);
    }
    A.drag = null;
  };
  c.addEventListener("pointerup", up);
  c.addEventListener("pointercancel", up);
  c.addEventListener("keydown", onCanvasKey);
  if (window.ResizeObserver) new ResizeObserver(() => { if (!A.fitted) fit(); draw(); }).observe(c);
}

function pan(key) {
  if (key === "w") A.view.ty += 40;
  else if (key === "s") A.view.ty -= 40;
  else if (key === "a") A.view.tx += 40;
  else A.view.tx -= 40;
  draw();
}

/** The canvas's keys: arrows walk the tree (Up: parent, Down: the most visited shown
 * child, Left/Right: siblings), Enter or Space collapses or expands, + and - zoom, F or 0
 * fits, and W A S D pan. */
function onCanvasKey(ev) {
  if (!A.root) return;
  const v = A.byKey.get(A.selected) || A.root;
  const parentKey = (k) => k.slice(0, k.lastIndexOf("/"));
  let to = null;
  switch (ev.key) {
    case "ArrowUp": to = v === A.root ? v : A.byKey.get(parentKey(v.key)); break;
    case "ArrowDown": to = A.collapsed.has(v.key) ? v : bestChild(v) || v; break;
    case "ArrowLeft": case "ArrowRight": {
      if (v === A.root) { to = v; break; }
      const sib = A.byKey.get(parentKey(v.key)).children;
      const k = sib.indexOf(v) + (ev.key === "ArrowLeft" ? -1 : 1);
      to = sib[Math.max(0, Math.min(sib.length - 1, k))];
      break;
    }
    case "Enter": case " ": toggleCollapse(v); ev.preventDefault(); return;
    case "+": case "=": zoom(ZOOM_STEP); break;
    case "-": case "_": zoom(1 / ZOOM_STEP); break;
    case "f": case "F": case "0": fit(); break;
    case "w": case "s": case "a": case "d": A.follow = false; pan(ev.key); break;
    default: return;
  }
  ev.preventDefault();
  if (to) { A.selected = to.key; showSelected(); renderDetails(); draw(); }
}

// ---- the panels --------------------------------------------------------------------------

function fmtValue(x) { return Number.isFinite(x) ? x.toFixed(4) : String(x); }

function renderStatus() {
  const box = $("an-status");
  if (!box) return;
  const c = A.canvas;
  if (!A.root) { box.textContent = t("app.an.no_tree"); delete c.dataset.nodes; return; }
  const total = A.byKey.size;
  const shown = A.L ? A.L.nodes.length : 0;
  const best = bestChild(A.root);
  box.textContent = `${A.source}: ${t("app.an.nodes", { count: String(total) })}${shown < total ? ` ${t("app.an.drawn", { shown: String(shown) })}` : ""} · ${t("app.an.root_visits", { n: String(A.root.visits) })} · ${t("app.an.best", { move: best ? nodeMoveText(best) : t("app.an.none"), count: String(best ? best.visits : 0) })}`;
  c.dataset.nodes = String(total);
  c.dataset.rootVisits = String(A.root.visits);
  c.dataset.best = best ? best.move : "";
  c.dataset.shown = String(shown);
}

/** A node's move as the board writes it (a live tree's), or as its file names it. */
function nodeMoveText(v) {
  if (A.format !== "live" || !A.live || v.moveJson === null || v.moveJson === undefined) return v.move;
  const parent = v.key.slice(0, v.key.lastIndexOf("/"));
  return moveWords(A.live.game, v.moveJson, stateAt(parent));
}

function renderDetails() {
  const box = $("an-details");
  if (!box) return;
  const refocus = document.activeElement && box.contains(document.activeElement); // the toggle, pressed by keyboard
  box.textContent = "";
  const v = A.byKey.get(A.selected);
  if (!v) { box.append(ctx.el("p", { class: "small" }, t("app.an.click_node"))); return; }
  const depth = v.key ? v.key.split("/").length - 1 : 0;
  // [testid part, label, value]: the testids stay English (the tests name them). Counts go in
  // as text: a research page writes them whole (20001 nodes), as the files and the CLI do.
  const rows = [
    ["move", t("app.an.d_move"), v.move === null ? t("app.an.the_root") : nodeMoveText(v)],
    ["state", t("app.an.d_state"), v.state],
    ["visits", t("app.an.d_visits"), String(v.visits)],
    ["ended", t("app.an.d_ended"), `${v.visits2}${v.visits ? ` (${(100 * v.visits2 / v.visits).toFixed(1)} %)` : ""}`],
    ["value", t("app.an.d_value"), fmtValue(v.payoff)],
    ["to-move", t("app.an.d_to_move"), v.toMove !== undefined ? (v.toMove === -1 ? t("app.an.nobody") : t("app.an.player", { n: v.toMove }))
      : /\/b$/.test(v.state) ? t("app.an.by_state_builder") : /\/p@\d+$/.test(v.state) ? t("app.an.by_state_painter") : t("app.an.not_in_file")],
    ["children", t("app.an.d_children"), `${v.children.length}${v.hidden ? ` ${t("app.an.not_sent", { n: v.hidden })}` : ""}${A.collapsed.has(v.key) ? `, ${t("app.an.collapsed")}` : ""}`],
    ["depth", t("app.an.d_depth"), String(depth)],
    ["subtree", t("app.an.d_subtree"), t("app.an.nodes", { count: String(subtreeSize(v)) })],
    ["path", t("app.an.d_path"), v.key ? v.key.slice(1).split("/").join(" → ") : t("app.an.the_root")],
  ];
  const dl = ctx.el("dl", { class: "an-dl", testid: "an-details-list" });
  for (const [id, k, val] of rows) dl.append(ctx.el("dt", {}, k), ctx.el("dd", { testid: `an-d-${id}` }, val));
  box.append(dl);
  if (v.children.length) {
    const b = ctx.el("button", { type: "button", testid: "an-toggle", onclick: () => toggleCollapse(v) },
      A.collapsed.has(v.key) ? t("app.an.expand_subtree") : t("app.an.collapse_subtree"));
    box.append(b);
    if (refocus) b.focus();
  } else if (refocus) A.canvas.focus();
}

/** The value legend: a colour ramp drawn on a small canvas. */
function legendRamp() {
  const c = ctx.el("canvas", { class: "an-ramp", width: 160, height: 12 });
  const g = c.getContext("2d");
  for (let x = 0; x < 160; x++) { g.fillStyle = valueColour(x / 159, isDark()); g.fillRect(x, 0, 1, 12); }
  return c;
}

// ---- files -------------------------------------------------------------------------------

async function loadFile(file) {
  const err = $("an-file-error");
  err.textContent = "";
  try {
    const bytes = new Uint8Array(await file.arrayBuffer());
    const { format, root } = readTree(bytes);
    if (A.live) await liveCommand("analyze_close"); // the file takes the canvas: the live search ends
    A.collapsed.clear();
    A.selected = "";
    setTree(root, `${file.name} (${format === "csv" ? "CSV" : t("app.an.binary")})`, format, false);
  } catch (e) {
    err.textContent = `${file.name}: ${e.message}`; // the tree on screen stays
  }
}

function download(name, bytes, type) {
  const url = URL.createObjectURL(new Blob([bytes], { type }));
  const a = ctx.el("a", { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

function exportTree(format) {
  const err = $("an-file-error");
  err.textContent = "";
  if (!A.root) { err.textContent = t("app.an.nothing_to_export"); return; }
  const base = (A.live && A.live.game ? `analysis-${A.live.game}` : A.source.replace(/ \(.*\)$/, "").replace(/\.(csv|tree)$/, "")) || "tree";
  try {
    if (format === "csv") download(`${base}.csv`, writeCsv(A.root), "text/csv");
    else download(`${base}.tree`, writeBinary(A.root), "application/octet-stream");
  } catch (e) {
    err.textContent = t("app.an.cannot_export", { why: e.message });
  }
}

// ---- the live analysis -------------------------------------------------------------------

/** Reads the form: {msg} to send, or {problems} (each also written beside its field). */
function readForm() {
  const problems = [];
  const game = $("an-game").value;
  const fieldErr = (id, text) => { $(`${id}-err`).textContent = text; if (text) problems.push(text); };
  const useRoom = $("an-use-room") && $("an-use-room").checked;
  const msg = useRoom ? { type: "analyze", room: $("an-use-room").value } : { type: "analyze", game };
  if (useRoom) {
    // The room's current position, as the server has it (it also says who may).
  } else if (game === "thue") {
    const text = $("an-thue-options").value.trim();
    fieldErr("an-thue-options", "");
    if (text) {
      try { msg.game_options = JSON.parse(text); } catch { fieldErr("an-thue-options", t("app.an.thue_json")); }
    } // empty: the server's defaults
  } else {
    const { options, problems: p } = ctx.readGameOptions(game, "ao-", $("an-form"));
    problems.push(...p);
    msg.game_options = options;
  }
  const pos = useRoom ? "" : $("an-position").value.trim();
  fieldErr("an-position", "");
  if (pos) {
    try { msg.position = JSON.parse(pos); } catch { fieldErr("an-position", t("app.an.pos_json")); }
    if (msg.position !== undefined && (msg.position === null || typeof msg.position !== "object" || Array.isArray(msg.position))) fieldErr("an-position", t("app.an.pos_object"));
  }
  for (const [name, [lo, hi]] of Object.entries(PARAMS)) {
    const id = `an-${name.replace("_", "-")}`;
    const text = $(id).value.trim();
    fieldErr(id, "");
    if (text === "") continue; // the server's default
    const x = Number(text);
    const whole = name !== "c";
    if (!Number.isFinite(x) || (whole && !Number.isInteger(x)) || x < lo || x > hi) {
      fieldErr(id, t(whole ? "app.an.param_int" : "app.an.param_num", { name, lo: String(lo), hi: String(hi) }));
      continue;
    }
    msg[name] = x;
  }
  return { msg, problems };
}

async function startLive(ev) {
  if (ev) ev.preventDefault();
  const { msg, problems } = readForm();
  const err = $("an-live-error");
  err.textContent = problems.length ? t("app.an.check_form", { problems: problems.join(" ") }) : "";
  if (problems.length) return;
  if (!ctx.conn.welcomed) { err.textContent = t("app.an.not_connected"); return; }
  if (A.live && M.line) await liveCommand("analyze_close"); // one analysis at a time: the picked move's
  let r;
  try {
    r = await ctx.conn.request(msg);
  } catch (e) {
    err.textContent = `${t("app.an.refused", { why: reasonText(e) })}${e.field ? ` (${e.field})` : ""}`;
    const f = typeof e.field === "string" ? e.field : "";
    if (f.startsWith("game_options")) ctx.showOptionError(e, "ao-", $("an-form"));
    else if (f.startsWith("position")) $("an-position-err").textContent = reasonText(e);
    else if (PARAMS[f]) $(`an-${f.replace("_", "-")}-err`).textContent = reasonText(e);
    return;
  }
  A.live = { key: r.analysis, seq: 0, status: "running", game: r.game, options: r.game_options, position: r.position, params: r, iterations: 0, nodes: 0, shown: 0, best: null,
    delta: new AnalysisTree(r.analysis) }; // thue.v2's updates, merged
  A.collapsed.clear();
  A.selected = "";
  A.fitted = false;
  A.follow = true;
  // The address now names this position, so the page can be linked or reloaded (a
  // match's page keeps naming the match and the move).
  if (!M.line) history.replaceState(null, "", ctx.analysisHash(r.game, r.game_options, r.position));
  $("an-seed").placeholder = t("app.an.seed_this", { seed: String(r.seed) });
  renderBoard(r.game, r.position);
  renderLive();
}

/** An analysis_tree event, or a part of thue.v2's analysis_delta update (app.js passes
 * every one here): a whole update is the same tree as an analysis_tree. */
export function analysisEvent(m) {
  const L = A.live;
  if (!L || m.analysis !== L.key) return;
  if (m.type === "analysis_delta") {
    const r = L.delta.apply(m);
    if (r.sync) ctx.conn.request({ type: "analyze_sync", analysis: L.key }).catch(() => {});
    if (!r.tree) return;
    m = r.tree;
  }
  if (m.seq <= L.seq) return;
  Object.assign(L, { seq: m.seq, status: m.status, iterations: m.iterations, nodes: m.nodes, shown: m.shown, best: m.best });
  if (!A.canvas || !A.canvas.isConnected) return;
  setTree(fromLive(m.tree, L.game), t("app.an.live_of", { game: gameLabel(L.game) }), "live", L.seq > 1);
  renderLive();
  renderVerdict();
}

async function liveCommand(type, extra = {}) {
  const L = A.live;
  if (!L) return;
  const err = $("an-live-error");
  err.textContent = "";
  try {
    await ctx.conn.request({ type, analysis: L.key, ...extra });
  } catch (e) {
    err.textContent = reasonText(e);
    if (e.code === "not_found") { A.live = null; renderLive(); }
    return;
  }
  if (type === "analyze_close") A.live = null;
  else if (type === "analyze_resume") L.status = "running";
  renderLive();
}

function resume() {
  const text = $("an-more").value.trim();
  $("an-more-err").textContent = "";
  if (text === "") { liveCommand("analyze_resume"); return; }
  const x = Number(text);
  const [lo, hi] = PARAMS.iterations;
  if (!Number.isInteger(x) || x < lo || x > hi) { $("an-more-err").textContent = t("app.an.more_check", { lo: String(lo), hi: String(hi) }); return; }
  liveCommand("analyze_resume", { iterations: x });
}

function renderLive() {
  const L = A.live;
  const st = $("an-live-status");
  if (!st) return;
  $("an-stop").disabled = !L || L.status !== "running";
  $("an-resume").disabled = !L || L.status === "running";
  $("an-close").disabled = !L;
  if (!L) { st.textContent = t("app.an.none_running"); st.dataset.status = "none"; return; }
  const p = L.params;
  st.dataset.status = L.status;
  st.textContent = `${L.status === "running" ? t("app.an.running") : L.status === "stopped" ? t("app.an.stopped") : t("app.an.done")} · ${t("app.an.live_line", { it: String(L.iterations), of: String(p.iterations), nodes: String(L.nodes), shown: String(L.shown), best: L.best === null ? t("app.an.none_yet") : moveWords(L.game, L.best, L.position) })}${M.line ? "" : ` · seed ${p.seed}, playout ${p.playout}, c ${p.c}, max_nodes ${p.max_nodes}`}`;
  st.dataset.best = L.best === null ? "" : moveName(L.best);
  st.dataset.iterations = String(L.iterations);
}

/** Leaving the page: the live analysis is closed (the server frees it). */
export function analysisLeave() {
  if (A.live && ctx && ctx.conn.welcomed) ctx.conn.request({ type: "analyze_close", analysis: A.live.key }).catch(() => {});
  A.live = null;
  A.canvas = null;
}

const gameLabel = (g) => (g === "thue" ? t("app.game.thue") : gameInfo(g).title || g);

function renderBoard(game, position) {
  const box = $("an-board");
  if (!box) return;
  box.textContent = "";
  if (!position) { box.append(ctx.el("p", { class: "small" }, t("app.an.start_seed0"))); return; }
  if (game === "thue") {
    box.append(ctx.el("p", { class: "small", testid: "an-board-text" }, `${t(position.step === "paint" ? "app.an.thue_pos_paint" : "app.an.thue_pos_place", { round: (position.round || 0) + 1, word: (position.word || []).join(" ") })}${position.placed !== null && position.placed !== undefined ? `, ${t("app.an.paints_at", { n: position.placed })}` : ""}`));
    return;
  }
  try {
    drawBoard(box, { game, state: position, player: null, active: false, over: true, last: null, prev: null, sel: null, onMove: () => {}, onSelect: () => {} });
  } catch {
    box.textContent = "";
    box.append(ctx.el("p", { class: "small" }, t("app.an.cannot_draw")));
  }
}

// ---- the page ----------------------------------------------------------------------------

function renderOptionFields(values) {
  const game = $("an-game").value;
  const box = $("an-options");
  box.textContent = "";
  $("an-thue-wrap").hidden = game !== "thue";
  if (game === "thue") return;
  // The address's values as the fields write them: a list of numbers spaced, a list of
  // lists (a start) as JSON, a null (a formula's default) empty.
  const text = {};
  for (const [k, v] of Object.entries(values || {})) {
    if (Array.isArray(v)) text[k] = v.every((x) => typeof x === "number") ? v.join(" ") : JSON.stringify(v);
    else text[k] = v === null ? "" : v;
  }
  ctx.gameOptionFields(box, game, "ao-", { values: text, help: false });
}

// ---- a stored match (the address's match=ID, at=N) -----------------------------------------
// The page opens on a match: its moves as the board writes them, one picked (at: the move
// number, 1-based; the last by default), and the position before it searched at once, so
// that the player sees what the search would have played against what was played.

const M = { line: null, at: 0, id: "" }; // line: app.js matchLine(record)

/** The move list of the match, the picked move marked. */
function renderMoves() {
  const box = $("an-moves");
  if (!box || !M.line) return;
  box.textContent = "";
  M.line.moves.forEach((mv, i) => {
    const b = ctx.el("button", { type: "button", class: "link", testid: `an-move-${i + 1}`, onclick: () => pickMove(i + 1) },
      `${i + 1}. ${M.line.names[mv.seat]} ${mv.text}`);
    if (i + 1 === M.at) b.setAttribute("aria-current", "step");
    box.append(ctx.el("li", {}, b));
  });
  const cur = box.querySelector("[aria-current]");
  if (cur && cur.scrollIntoView) cur.scrollIntoView({ block: "nearest" });
}

/** Picks move n: the position before it goes into the form and is searched. */
async function pickMove(n) {
  const L = M.line;
  M.at = Math.max(1, Math.min(L.moves.length, n));
  $("an-position").value = JSON.stringify(L.positions[M.at - 1]);
  history.replaceState(null, "", `#/analysis?match=${encodeURIComponent(M.id)}&at=${M.at}`);
  renderMoves();
  renderBoard(L.game, L.positions[M.at - 1]);
  renderVerdict();
  await startLive(null);
}

/** The move played at the picked position against the search's choice there, in words. */
function renderVerdict() {
  const box = $("an-verdict");
  if (!box) return;
  if (!M.line) { box.hidden = true; return; }
  box.hidden = false;
  const mv = M.line.moves[M.at - 1];
  const who = M.line.names[mv.seat];
  const played = t("app.an.played", { n: M.at, name: who, move: mv.text });
  const root = A.live && A.root && A.format === "live" ? A.root : null;
  const best = root ? bestChild(root) : null;
  box.dataset.best = best ? best.move : "";
  if (!best) { box.textContent = `${played} ${t("app.an.looking")}`; return; }
  const share = (v) => t("app.an.share", { pct: String(Math.round((100 * v.visits) / Math.max(1, root.visits))), score: v.payoff.toFixed(2), name: who });
  const mine = root.children.find((c) => sameMoveJson(c.moveJson, mv.move));
  const pos = M.line.positions[M.at - 1];
  if (mine === best) box.textContent = `${played} ${t("app.an.agrees", { share: share(best) })}`;
  else box.textContent = `${played} ${t("app.an.prefers", { move: moveWords(M.line.game, best.moveJson, pos), share: share(best) })}` +
    (mine ? `; ${t("app.an.mine_had", { name: who, share: share(mine) })}` : ".");
}

/** A live tree's move as a node's label on the canvas, short, in the board's numbering
 * (heaps, rows and lines from 1): "heap 2 −1"; the move's JSON for a shape it does not know. */
function shortMove(game, mv) {
  const n = (x) => (Number.isInteger(x) ? x + 1 : "?");
  if (game === "thue") return mv.place !== undefined ? t("app.word.gap", { n: String(mv.place) }) : t("app.palette.paint", { symbol: String(mv.paint) });
  if (game === "nim" && mv.take !== undefined) return t("app.an.short_heap", { i: n(mv.heap), take: String(mv.take) });
  if (game === "rims" && mv.take !== undefined) return `r${n(mv.heap)} −${mv.take}${mv.split ? ` ${mv.split}+` : ""}`;
  if (game === "northcott" && mv.to !== undefined) return t("app.an.short_row", { row: n(mv.row), to: n(mv.to) });
  if (game === "circle" && mv.to !== undefined) return `${mv.from}→${mv.to}`;
  if (game === "wythoff" && Array.isArray(mv.take)) return `−${mv.take[0]}, −${mv.take[1]}`;
  if (game === "dots" && mv.dir !== undefined) return `${mv.dir === "h" ? "—" : "|"} ${n(mv.row)},${n(mv.col)}`;
  return moveName(mv);
}

/** Whether two moves' JSON name the same move: keys in any order, an absent key as 0 (a
 * record may leave out Rims' split of 0 that a tree's move writes). */
function sameMoveJson(a, b) {
  const norm = (m) => JSON.stringify(Object.entries(m || {}).filter(([, v]) => v !== 0 && v !== null).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
  return norm(a) === norm(b);
}

/** A move of the tree as the board writes it ("took 1 from heap 2"), given the position
 * it is made in (or null). */
function moveWords(game, mv, prev) {
  if (mv === null || mv === undefined) return "";
  if (game === "thue") return mv.place !== undefined ? t("app.an.placed", { n: String(mv.place) }) : mv.paint !== undefined ? t("app.an.painted", { n: String(mv.paint) }) : moveName(mv);
  return moveText(game, mv, prev);
}

/** The position at a node of the live tree, from the analysed one down its path (null
 * for Thue, whose moves are written without it, and for a file's tree). */
function stateAt(key) {
  const L = A.live;
  if (!L || A.format !== "live" || L.game === "thue") return null;
  let st = L.position;
  if (!st) return null;
  let path = "";
  for (const part of key ? key.slice(1).split("/") : []) {
    path += `/${part}`;
    const v = A.byKey.get(path);
    if (!v || v.moveJson === null) return null;
    try { st = applyMove(L.game, st, v.moveJson); } catch { return null; }
  }
  return st;
}

/**
 * Builds the page into body. query: the address's URLSearchParams (match and at; or game,
 * options, position, the parameters). app: what the page borrows from app.js (see ctx).
 */
export async function pageAnalysis(body, query, app) {
  ctx = app;
  if (A.live) analysisLeave();
  const el = ctx.el;
  M.line = null;
  M.id = query.get("match") || "";
  if (M.id) {
    const rec = await ctx.getJSON(`/api/matches/${encodeURIComponent(M.id)}`);
    M.line = ctx.matchLine(rec);
    if (M.line.moves.length === 0) { M.line = null; body.append(el("p", { class: "empty", testid: "an-no-moves" }, t("app.an.no_moves", { id: M.id }))); }
    else M.at = Math.max(1, Math.min(M.line.moves.length, parseInt(query.get("at"), 10) || M.line.moves.length));
  }
  const num = (name, label, help) => {
    const id = `an-${name.replace("_", "-")}`;
    const [lo, hi, def] = PARAMS[name];
    return el("label", {}, label,
      el("input", { id, testid: id, inputMode: name === "c" ? "decimal" : "numeric", value: query.get(name) || "", placeholder: def === null ? t("app.an.random") : String(name === "c" ? "1.41421" : def), title: `${help} (${lo}..${hi})` }),
      el("span", { class: "field-error", id: `${id}-err`, testid: `${id}-err` }));
  };
  const fieldErr = (id) => el("span", { class: "field-error", id: `${id}-err`, testid: `${id}-err` });
  let game = M.line ? M.line.game : query.get("game") || "thue";
  const known = ["thue", ...games().map((g) => g.name)];
  const problems = [];
  if (!known.includes(game)) { problems.push(t("app.an.no_game", { game: JSON.stringify(game) })); game = "thue"; }
  const parseQ = (name) => {
    const text = query.get(name);
    if (!text) return undefined;
    try { return JSON.parse(text); } catch { problems.push(t("app.an.not_json", { name })); return undefined; }
  };
  const options = M.line ? M.line.options : parseQ("options");
  const room = M.line ? "" : query.get("room") || "";
  const position = M.line ? M.line.positions[M.at - 1] : parseQ("position");

  const gameSel = el("select", { id: "an-game", testid: "an-game" },
    ...known.map((g) => el("option", { value: g, selected: g === game }, gameLabel(g))));
  const canvas = el("canvas", { id: "an-canvas", class: "an-canvas", testid: "an-canvas", tabIndex: 0 });
  canvas.setAttribute("role", "img");
  canvas.setAttribute("aria-label", t("app.an.canvas_label"));
  A.canvas = canvas;
  const fileInput = el("input", { type: "file", id: "an-file", testid: "an-file", accept: ".csv,.tree,text/csv,application/octet-stream", onchange: (ev) => { if (ev.target.files[0]) loadFile(ev.target.files[0]); ev.target.value = ""; } });
  const btn = (testid, text, onclick, title) => el("button", { type: "button", testid, id: testid, onclick, ...(title ? { title } : {}) }, text);
  // What to analyse: the game and its options (visible unless a match fixes them).
  const pick = el("div", { class: "an-pick" },
    el("div", { class: "grid" }, el("label", {}, t("app.lobby.game"), gameSel)),
    el("div", { id: "an-thue-wrap", hidden: game !== "thue" },
      el("label", {}, t("app.an.thue_options"),
        el("input", { id: "an-thue-options", testid: "an-thue-options", value: game === "thue" && options ? JSON.stringify(options) : "", placeholder: "{\"variant\":\"square\",\"k\":4,\"limit\":100}" }),
        fieldErr("an-thue-options"))),
    el("div", { id: "an-options", class: "grid", testid: "an-options" }));
  // The search's settings, the position as JSON and the tree files: for researchers,
  // folded away when the page opens on a match.
  const research = el("details", { id: "an-research", class: "an-research", testid: "an-research", open: !M.line },
    el("summary", {}, t("app.an.research")),
    el("div", { class: "grid" },
      num("iterations", t("app.an.iterations"), t("app.an.iterations_help")),
      num("playout", t("app.an.playout"), t("app.an.playout_help")),
      num("c", t("app.an.c"), t("app.an.c_help")),
      num("seed", t("app.an.seed"), t("app.an.seed_help")),
      num("max_nodes", t("app.an.max_nodes"), t("app.an.max_nodes_help"))),
    M.line ? pick : null,
    room ? el("label", { class: "check" }, el("input", { type: "checkbox", id: "an-use-room", testid: "an-use-room", value: room, checked: true }),
      ` ${t("app.an.use_room", { room })}`) : null,
    el("label", {}, t("app.an.position"),
      el("textarea", { id: "an-position", testid: "an-position", rows: 2, value: position ? JSON.stringify(position) : "" }),
      fieldErr("an-position")),
    el("p", { class: "small" }, `${t("app.an.run_uct")} `,
      el("code", {}, "thue bestmove … --tree FILE"), ` ${t("app.an.or_this_page")}`),
    el("div", { class: "actions an-tools" },
      el("label", { class: "an-filebtn" }, t("app.an.open_file"), fileInput),
      btn("an-export-csv", t("app.an.export_csv"), () => exportTree("csv")),
      btn("an-export-tree", t("app.an.export_tree"), () => exportTree("tree"))),
    el("p", { id: "an-file-error", class: "field-error", testid: "an-file-error", role: "alert" }));

  if (M.line) {
    body.append(el("h2", {}, t("app.an.title_match", { players: M.line.names.join(t("app.vs")), game: gameLabel(game) })),
      el("p", { class: "small" }, `${t("app.an.pick_move")} `,
        el("a", { href: `#/match/${encodeURIComponent(M.id)}` }, t("app.an.replay_match"))),
      el("ol", { id: "an-moves", class: "an-moves", testid: "an-moves", "aria-label": t("app.an.moves_label") }));
  } else {
    body.append(el("h2", {}, t("app.an.title")),
      el("p", { class: "small" }, `${t("app.an.intro")} (`,
        el("a", { href: "#/matches" }, t("app.nav.matches")), `) ${t("app.an.intro_end")}`));
  }
  body.append(
    el("form", { id: "an-form", class: "an-form", testid: "an-form", onsubmit: startLive },
      M.line ? null : pick,
      el("div", { id: "an-board", class: "gboard an-board", testid: "an-board" }),
      el("p", { id: "an-verdict", class: "an-verdict", testid: "an-verdict", role: "status", hidden: !M.line }),
      el("div", { class: "actions" },
        el("button", { type: "submit", testid: "an-start" }, t("app.room.analyse")),
        btn("an-stop", t("app.an.stop"), () => liveCommand("analyze_stop")),
        el("label", { class: "inline" }, t("app.an.more"), el("input", { id: "an-more", testid: "an-more", inputMode: "numeric", placeholder: t("app.an.the_rest") }), fieldErr("an-more")),
        btn("an-resume", t("app.an.resume"), resume),
        btn("an-close", t("app.an.close"), () => liveCommand("analyze_close"))),
      el("p", { id: "an-live-status", class: "small", testid: "an-live-status", role: "status" }),
      el("p", { id: "an-live-error", class: "field-error", testid: "an-live-error", role: "alert" }),
      research),
    el("div", { class: "actions an-tools" },
      btn("an-zoom-in", "+", () => zoom(ZOOM_STEP), t("app.an.zoom_in")),
      btn("an-zoom-out", "−", () => zoom(1 / ZOOM_STEP), t("app.an.zoom_out")),
      btn("an-fit", t("app.an.fit"), fit, t("app.an.fit_help")),
      btn("an-expand", t("app.an.expand_all"), () => { A.collapsed.clear(); relayout(); renderStatus(); renderDetails(); })),
    el("p", { id: "an-status", class: "small", testid: "an-status", role: "status" }),
    el("div", { class: "an-view" }, canvas,
      el("div", { class: "an-side" },
        el("div", { class: "an-legend small", testid: "an-legend" },
          el("div", {}, t("app.an.legend_colour")),
          el("div", { class: "an-ramp-row" }, el("span", {}, "0"), legendRamp(), el("span", {}, "1")),
          el("div", {}, t("app.an.legend_size")),
          el("div", {}, t("app.an.legend_lines"))),
        el("div", { id: "an-details", class: "an-details", testid: "an-details" }))),
    el("p", { class: "small" }, t("app.an.help")));
  for (const e of problems) body.append(el("p", { class: "field-error", testid: "an-address-error" }, e));
  gameSel.addEventListener("change", () => { renderOptionFields(); $("an-position").value = ""; renderBoard($("an-game").value, null); });
  wireCanvas(canvas);
  // The fields need the page in the document: drawn once route() has put it there.
  setTimeout(async () => {
    if (!canvas.isConnected) return;
    renderOptionFields(game === "thue" ? null : options);
    renderBoard(game, position || null);
    renderLive();
    if (A.root) setTree(A.root, A.source, A.format, false);
    else { renderStatus(); renderDetails(); draw(); }
    canvas.dataset.ready = "1";
    if (M.line) {
      renderMoves();
      renderVerdict();
      await ctx.whenWelcomed();
      if (canvas.isConnected) await startLive(null);
    }
  }, 0);
}

/** For the tests: the shown tree's numbers. */
export function analysisInfo() {
  return A.root ? { nodes: A.byKey.size, rootVisits: A.root.visits, best: bestChild(A.root) ? bestChild(A.root).move : null, drawn: A.L ? A.L.nodes.length : 0, all: preorder(A.root).length } : null;
}

/** For tests and the curious: where a node (by key; "" is the root) is drawn, in CSS
 * pixels from the canvas's top left corner, or null when it is not laid out. */
function nodeAt(key) {
  const i = A.L ? A.L.nodes.findIndex((v) => v.key === key) : -1;
  return i < 0 ? null : { x: A.wx[i] * A.view.scale + A.view.tx, y: A.wy[i] * A.view.yscale + A.view.ty };
}
window.thueAnalysis = { info: analysisInfo, nodeAt };
