// analysis_v2.test.mjs: the analysis under thue.v2 (PROTOCOL.md section 16, "Under
// thue.v2") through the real server, against thue.v1's whole trees.
//
// A thue.v1 client and a thue.v2 client analyse the same position with the same seed, so
// that after the same iterations their trees are the same (docs/uct.md: the tree depends
// on the iterations run, not on how they were sliced). The thue.v2 client feeds every
// analysis_delta part it receives to the web client's merge (clients/web/analysisdelta.js)
// and checks after every update that the tree it holds is a tree (each node under its
// parent, as many as `shown`); at each stop of the search (the budget done, then resumed)
// its tree must equal, node for node, the thue.v1 client's analysis_tree of the same
// iterations, and then the whole tree a sync brings. Every part is at most 65536 bytes,
// the big updates come in several, and none is lost or reordered. Also: analyze_sync while
// the search runs (the next update is whole), under thue.v1 (a whole analysis_tree again),
// its errors; and the pacing: a reader that stops reading while a big update is under way
// gets a pong before the update's last part, and is not dropped as slow; a connection
// that takes the session over ends its thue.v2 analysis.
import assert from "node:assert/strict";
import { Client, WAIT_MS, metric, run, startServer, test } from "./lib.mjs";
import { AnalysisTree } from "../../clients/web/analysisdelta.js";

const PART_MAX = 65536;

/** A client of subprotocol proto (1 or 2) that said hello as name; it keeps the sizes of
 * the analysis_delta texts it received (c.partSizes). */
async function connect(server, name, proto) {
  const c = await Client.connect(server.ws, name, proto === 2 ? ["thue.v2", "thue.v1"] : ["thue.v1"]);
  assert.equal(c.ws.protocol, proto === 2 ? "thue.v2" : "thue.v1");
  c.partSizes = [];
  c.ws.on("message", (d) => {
    if (d.toString("latin1", 0, 24) === '{"type":"analysis_delta"') c.partSizes.push(d.length);
  });
  c.welcome = await c.ok({ type: "hello", protocol: proto, name });
  return c;
}

/** Stops the server; it must exit 0 with no sanitizer report (in an ASan build, a part
 * or tree freed twice or leaked shows here). */
async function stopClean(server) {
  const { code } = await server.stop("SIGTERM");
  assert.doesNotMatch(server.stderr(), /Sanitizer|runtime error/);
  assert.equal(code, 0, server.stderr());
}

/** Checks that a v1-shaped tree is one: `shown` nodes, visits of the children at most the
 * parent's. */
function checkShape(msg) {
  let n = 0;
  const stack = [msg.tree];
  while (stack.length) {
    const v = stack.pop();
    n++;
    assert.ok(v.children.reduce((s, k) => s + k.visits, 0) <= v.visits, "children's visits within the parent's");
    stack.push(...v.children);
  }
  assert.equal(n, msg.shown, "the tree holds `shown` nodes");
  assert.equal(msg.tree.visits, msg.iterations);
}

/** The next whole update of c's analysis (its parts fed to c.model); statuses: the one
 * wanted. Counts the updates and their parts in c.stats. */
async function nextUpdate(c, key, statuses = ["running", "stopped", "done"]) {
  for (;;) {
    const m = await c.next((x) => x.type === "analysis_delta" && x.analysis === key, `an analysis_delta of ${key}`, 6 * WAIT_MS);
    if (m.part === 1) c.stats.updates++;
    if (m.full && m.part === 1) c.stats.full++;
    c.stats.parts = Math.max(c.stats.parts, m.part);
    assert.ok(!(m.full && m.gone.length), "no gone in a full update");
    const r = c.model.apply(m);
    assert.ok(!r.sync, `the merge lost its way at seq ${m.seq} part ${m.part}`);
    if (!r.tree) continue;
    checkShape(r.tree);
    if (r.tree.status === "running") c.stats.running++;
    if (statuses.includes(r.tree.status)) return r.tree;
  }
}

/** The v1 client's next analysis_tree of key with one of the statuses. */
function v1Tree(c, key, statuses = ["done"]) {
  return c.next((m) => m.type === "analysis_tree" && m.analysis === key && statuses.includes(m.status),
    `an analysis_tree (${statuses.join("/")}) of ${key}`, 6 * WAIT_MS);
}

/** A tree message without what differs by design between two analyses (their keys and seqs). */
function comparable(t) {
  const { analysis, seq, type, ...rest } = t;
  return rest;
}

test("thue.v2's deltas rebuild thue.v1's tree: at every stop node for node, and a sync agrees", async () => {
  // A bound far above these trees, so that both protocols show max_nodes nodes.
  const server = await startServer(["--analysis-tree-max-kib", "65536"]);
  try {
    const ann = await connect(server, "Ann", 1);
    const bo = await connect(server, "Bo", 2);
    const ask = { type: "analyze", game: "dots", game_options: { rows: 3, cols: 3 }, iterations: 3000, seed: 5, max_nodes: 3000 };
    const a = await ann.ok(ask);
    const b = await bo.ok(ask);
    bo.model = new AnalysisTree(b.analysis);
    bo.stats = { updates: 0, full: 0, parts: 0, running: 0 };
    for (const more of [0, 600000, 900000]) {
      if (more > 0) {
        await ann.ok({ type: "analyze_resume", analysis: a.analysis, iterations: more });
        await bo.ok({ type: "analyze_resume", analysis: b.analysis, iterations: more });
      }
      const want = await v1Tree(ann, a.analysis);
      const got = await nextUpdate(bo, b.analysis, ["done"]);
      assert.equal(got.iterations, want.iterations);
      assert.deepEqual(comparable(got), comparable(want), `the trees after ${want.iterations} iterations`);
      // A sync of the done analysis: a whole update at once, the same tree.
      const fullBefore = bo.stats.full;
      await bo.ok({ type: "analyze_sync", analysis: b.analysis });
      const again = await nextUpdate(bo, b.analysis, ["done"]);
      assert.equal(bo.stats.full, fullBefore + 1, "the update after the sync is whole");
      assert.equal(again.seq, got.seq + 1);
      assert.deepEqual(comparable(again), comparable(got));
    }
    console.log(`  thue.v2: ${bo.stats.updates} updates (${bo.stats.running} while it ran), up to ${bo.stats.parts} parts, ${bo.partSizes.length} parts in all`);
    assert.ok(bo.stats.running >= 1, "updates while it ran too");
    assert.ok(bo.stats.parts > 1, `big updates come in parts (${bo.stats.parts} at most)`);
    assert.ok(bo.partSizes.length > bo.stats.updates);
    for (const n of bo.partSizes) assert.ok(n <= PART_MAX, `a part of ${n} bytes`);
  } finally {
    await stopClean(server);
  }
});

test("analyze_sync: the next update is whole (running, thue.v1 too), and its errors", async () => {
  const server = await startServer();
  try {
    const bo = await connect(server, "Bo", 2);
    const b = await bo.ok({ type: "analyze", game: "circle", iterations: 1000000, playout: 300, seed: 3, max_nodes: 300 });
    bo.model = new AnalysisTree(b.analysis);
    bo.stats = { updates: 0, full: 0, parts: 0, running: 0 };
    const first = await nextUpdate(bo, b.analysis);
    assert.equal(bo.stats.full, 1, "the first update is whole");
    await nextUpdate(bo, b.analysis);
    // Syncs at any time of a slice: each brings a whole update, and the search goes on
    // after it (changes again, with more iterations).
    for (let round = 0; round < 8; round++) {
      const fulls = bo.stats.full;
      await new Promise((r) => setTimeout(r, (round * 43) % 300)); // anywhere between two updates
      await bo.ok({ type: "analyze_sync", analysis: b.analysis });
      let whole;
      for (let i = 0; bo.stats.full === fulls; i++) {
        assert.ok(i < 50, "a whole update within 50 after the sync");
        whole = await nextUpdate(bo, b.analysis);
      }
      assert.equal(whole.status, "running");
      const later = await nextUpdate(bo, b.analysis);
      assert.ok(later.iterations > whole.iterations, `the search goes on after sync ${round + 1}`);
    }
    assert.ok(bo.model.seq > first.seq);
    let e = await bo.request({ type: "analyze_sync", analysis: "aNoSuchOne" });
    assert.equal(e.code, "not_found");
    assert.equal(e.field, "analysis");
    e = await bo.request({ type: "analyze_sync", analysis: b.analysis, now: true });
    assert.equal(e.code, "bad_message");
    assert.equal(e.field, "now");
    await bo.ok({ type: "analyze_close", analysis: b.analysis });

    // thue.v1: a stopped analysis sends its whole tree again on a sync.
    const ann = await connect(server, "Ann", 1);
    const a = await ann.ok({ type: "analyze", game: "nim", game_options: { heaps: [3, 4, 5] }, iterations: 2000, seed: 9 });
    const done = await v1Tree(ann, a.analysis);
    await ann.ok({ type: "analyze_sync", analysis: a.analysis });
    const again = await v1Tree(ann, a.analysis);
    assert.equal(again.seq, done.seq + 1);
    assert.deepEqual(comparable(again), comparable(done));
  } finally {
    await stopClean(server);
  }
});

test("pacing: a reader that pauses during a big update gets its pong before the update ends, and stays", async () => {
  const server = await startServer(["--analysis-tree-max-kib", "65536"]);
  try {
    const bo = await connect(server, "Bo", 2);
    const b = await bo.ok({ type: "analyze", game: "dots", game_options: { rows: 5, cols: 5 }, iterations: 1000000, seed: 1, max_nodes: 40000 });
    bo.model = new AnalysisTree(b.analysis);
    bo.stats = { updates: 0, full: 0, parts: 0, running: 0 };
    // The first update; then syncs (each makes the next update come at once) until the
    // tree shows max_nodes.
    let t = await nextUpdate(bo, b.analysis);
    for (let i = 0; t.shown < 40000; i++) {
      assert.ok(i < 100, `the tree grows to 40000 shown nodes (${t.shown})`);
      await new Promise((r) => setTimeout(r, 100));
      await bo.ok({ type: "analyze_sync", analysis: b.analysis });
      t = await nextUpdate(bo, b.analysis);
    }
    const fullBefore = bo.stats.full;
    // Ask for the whole tree (megabytes); stop reading as its first part comes. The server
    // sends what the connection takes: the socket's buffers fill, the rest waits. Then a
    // ping: its pong waits behind a window of parts, not behind the whole update.
    const order = [];
    let paused = false;
    let before = 0, after = 0; // parts of the sync's update before and after the pong
    bo.ws.on("message", (d) => {
      const s = d.toString("latin1", 0, 200);
      const delta = s.startsWith('{"type":"analysis_delta"');
      if (delta && !paused && /"part":1,"last":false,"full":true/.test(s)) {
        bo.ws._socket.pause();
        paused = true;
      }
      if (!paused) return;
      if (delta && !order.includes("end")) {
        if (order.includes("pong")) after++;
        else before++;
      }
      if (s.startsWith('{"type":"pong"')) order.push("pong");
      else if (delta && /"last":true,"full":true/.test(s)) order.push("end");
    });
    bo.send({ type: "analyze_sync", analysis: b.analysis, id: "s" });
    for (let i = 0; !paused; i++) {
      assert.ok(i < 6000, "the whole update begins");
      await new Promise((r) => setTimeout(r, 10));
    }
    await new Promise((r) => setTimeout(r, 1000));
    bo.send({ type: "ping", id: "p" });
    await new Promise((r) => setTimeout(r, 500));
    bo.ws._socket.resume();
    const pong = await bo.next((m) => m.type === "pong", "the pong");
    assert.equal(pong.id, "p");
    let full;
    do full = await nextUpdate(bo, b.analysis); while (bo.stats.full < fullBefore + 1);
    assert.ok(full.shown >= 40000);
    console.log(`  the pong came after ${before} parts, before ${after} more`);
    assert.deepEqual(order.slice(0, 2), ["pong", "end"], `the pong came first (${order.join(", ")})`);
    assert.ok(before > 0 && after > 0, "the pong came amid the update's parts");
    for (const n of bo.partSizes) assert.ok(n <= PART_MAX, `a part of ${n} bytes`);
    assert.equal(bo.closeInfo, null, "still connected");
    assert.ok(!bo.inbox.some((m) => m.type === "goodbye"));
    await bo.ok({ type: "analyze_close", analysis: b.analysis });
  } finally {
    await stopClean(server);
  }
});

test("a thue.v2 analysis ends with its connection: a take-over closes it", async () => {
  const server = await startServer();
  try {
    const bo = await connect(server, "Bo", 2);
    const b = await bo.ok({ type: "analyze", game: "circle", iterations: 1000000, playout: 300, seed: 3, max_nodes: 300 });
    await bo.next((m) => m.type === "analysis_delta" && m.analysis === b.analysis, "a first part");
    assert.equal(await metric(server, "thue_analyses_running"), 1);
    const again = await Client.connect(server.ws, "Bo again", ["thue.v2", "thue.v1"]);
    const w = await again.ok({ type: "hello", protocol: 2, resume: bo.welcome.resume });
    assert.equal(w.resumed, true);
    const bye = await bo.next("goodbye");
    assert.equal(bye.reason, "replaced");
    for (let i = 0; (await metric(server, "thue_analyses_running")) !== 0; i++) {
      assert.ok(i < 200, "the analysis is closed");
      await new Promise((r) => setTimeout(r, 10));
    }
    const e = await again.request({ type: "analyze_sync", analysis: b.analysis });
    assert.equal(e.code, "not_found");
    assert.ok(!again.inbox.some((m) => m.type === "analysis_delta"), "the new connection got none of it");
  } finally {
    await stopClean(server);
  }
});

run();
