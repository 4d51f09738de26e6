// track.test.mjs: clients/web/games.js trackPoints, where the circle game's fields stand
// (a circle, or on a phone a tall stadium track), against a naive reference in plain Node
// (no browser, no server): the reference walks the track in 100,000 small steps and
// takes the point nearest each field's distance along it. Also: a circle (H = 1) is the
// old formula (radius 0.42, field 0 at the top, clockwise), every point lies on the
// track, neighbours are the same distance apart along it, and the first steps go right
// (clockwise). Run:
//   node --test tests/e2e/track.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { trackPoints } from "../../clients/web/games.js";

const R = 0.42;

/** The naive track: many short steps from the top, clockwise; the point at each field's
 * share of the length (the length itself measured by the steps). */
function naive(n, H) {
  const STEPS = 100000;
  // The stadium as a closed path: top arc centre (0.5, 0.5), bottom arc centre
  // (0.5, H - 0.5); parameter u in [0, 1) over the four parts by their own lengths.
  const L = H - 1, arc = Math.PI * R, P = 2 * arc + 2 * L;
  const at = (s) => {
    if (s <= arc / 2) return [0.5 + R * Math.sin(s / R), 0.5 - R * Math.cos(s / R)];
    s -= arc / 2;
    if (s <= L) return [0.5 + R, 0.5 + s];
    s -= L;
    if (s <= arc) { const a = Math.PI / 2 + s / R; return [0.5 + R * Math.sin(a), H - 0.5 - R * Math.cos(a)]; }
    s -= arc;
    if (s <= L) return [0.5 - R, H - 0.5 - s];
    s -= L;
    const a = 1.5 * Math.PI + s / R;
    return [0.5 + R * Math.sin(a), 0.5 - R * Math.cos(a)];
  };
  const pts = [];
  let len = 0;
  let [px, py] = at(0);
  const cum = [0], xs = [px], ys = [py];
  for (let i = 1; i <= STEPS; i++) {
    const [x, y] = at((P * i) / STEPS);
    len += Math.hypot(x - px, y - py);
    cum.push(len); xs.push(x); ys.push(y);
    px = x; py = y;
  }
  for (let f = 0; f < n; f++) {
    const want = (len * f) / n;
    let j = 0;
    while (j < STEPS && cum[j + 1] <= want) j++;
    pts.push([xs[j], ys[j]]);
  }
  return { pts, len };
}

test("a circle (H = 1) is the old formula: radius 0.42 round the centre, field 0 on top, clockwise", () => {
  for (const n of [6, 8, 12, 24, 64]) {
    const t = trackPoints(n, 1);
    for (let f = 0; f < n; f++) {
      const a = (2 * Math.PI * f) / n;
      assert.ok(Math.abs(t.x[f] - (0.5 + R * Math.sin(a))) < 1e-12, `n ${n} field ${f} x`);
      assert.ok(Math.abs(t.y[f] - (0.5 - R * Math.cos(a))) < 1e-12, `n ${n} field ${f} y`);
    }
    assert.ok(Math.abs(t.gap - (2 * Math.PI * R) / n) < 1e-12);
  }
});

test("tall tracks: the points of the naive walk, on the track, evenly spaced, clockwise", () => {
  for (const [n, H] of [[25, 1.05], [40, 1.8], [64, 3], [33, 2.5], [7, 2]]) {
    const t = trackPoints(n, H);
    const ref = naive(n, H);
    assert.ok(Math.abs(ref.len - t.gap * n) < 1e-4, `n ${n} H ${H}: the length ${t.gap * n} against ${ref.len}`);
    for (let f = 0; f < n; f++) {
      const d = Math.hypot(t.x[f] - ref.pts[f][0], t.y[f] - ref.pts[f][1]);
      assert.ok(d < 1e-3, `n ${n} H ${H} field ${f}: ${d} from the naive point`);
      // On the track: on a half circle's rim, or on a straight side.
      const x = t.x[f], y = t.y[f];
      const onArc = (cy) => Math.abs(Math.hypot(x - 0.5, y - cy) - R) < 1e-9;
      const onSide = Math.abs(Math.abs(x - 0.5) - R) < 1e-9 && y >= 0.5 - 1e-9 && y <= H - 0.5 + 1e-9;
      assert.ok((onArc(0.5) && y <= 0.5 + 1e-9) || (onArc(H - 0.5) && y >= H - 0.5 - 1e-9) || onSide, `n ${n} H ${H} field ${f} (${x}, ${y}) is off the track`);
      assert.ok(x > 0 && x < 1 && y > 0 && y < H, "inside the box");
    }
    assert.ok(Math.abs(t.x[0] - 0.5) < 1e-12 && Math.abs(t.y[0] - (0.5 - R)) < 1e-12, "field 0 at the top");
    assert.ok(t.x[1] > t.x[0], "clockwise: field 1 to the right of field 0");
  }
});
