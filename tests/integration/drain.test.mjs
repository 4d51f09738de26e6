// drain.test.mjs: a SIGTERM with --drain-s: running matches go on, nothing new starts,
// /healthz says draining (503, for the balancer), the server exits once the last match
// has ended (or at once without a running match, or on a second signal).
import assert from "node:assert/strict";
import { get, player, run, startMatch, startServer as start, test } from "./lib.mjs";

// Every server a test starts is killed when the file ends, passed or failed.
const started = [];
async function startServer(args) {
  const s = await start(args);
  started.push(s);
  return s;
}
process.on("exit", () => {
  for (const s of started) if (s.proc.exitCode === null && s.proc.signalCode === null) s.proc.kill("SIGKILL");
});

/** Ann and Bob in a room of k = 3 with a match running; resolves to {ann, bob, room}. */
async function running(server) {
  const ann = await player(server, "Ann");
  const bob = await player(server, "Bob");
  return { ann, bob, room: await startMatch(ann, bob) };
}

test("draining: the match goes on, nothing new starts, exit when it ends", async () => {
  const server = await startServer(["--drain-s", "60", "--node", "n7"]);
  let h = await get(server, "/healthz");
  assert.equal(h.status, 200);
  assert.equal(h.json.status, "ok");
  assert.equal(h.json.node, "n7");
  const { ann, bob, room } = await running(server);
  // a second room, waiting: its ready will be refused
  const cy = await player(server, "Cy");
  const waiting = await cy.ok({ type: "create_room", k: 3 });
  // a player waiting in the quick-match queue is told
  const dee = await player(server, "Dee");
  await dee.ok({ type: "queue_join", variant: "square", k: 4 });

  server.proc.kill("SIGTERM");
  const failed = await dee.next("queue_failed");
  assert.equal(failed.code, "server_busy");
  assert.match(failed.message, /stopping/);
  h = await get(server, "/healthz");
  assert.equal(h.status, 503);
  assert.equal(h.json.status, "draining");
  assert.equal(h.json.node, "n7");

  // nothing new: a room, a quick match, a ready, a rematch
  for (const [c, req] of [
    [cy, { type: "create_room", k: 3 }],
    [cy, { type: "queue_join", variant: "square", k: 3 }],
    [cy, { type: "ready", room: waiting.room }],
  ]) {
    const r = await c.request(req);
    assert.equal(r.type, "error", `${req.type} is refused`);
    assert.equal(r.code, "server_busy");
    assert.match(r.message, /stopping/);
  }
  // a new connection is still let in (a player of the running match may come back)
  const eve = await player(server, "Eve");
  assert.equal(eve.welcome.player.name, "Eve");

  // the running match goes on: a move is played and seen
  await ann.ok({ type: "place", room, position: 1 });
  await bob.state(room, (s) => s.match && s.match.step === "paint");
  await bob.ok({ type: "paint", room, symbol: 1 });
  await ann.state(room, (s) => s.match && s.match.last_move && s.match.last_move.kind === "paint");
  assert.equal(server.proc.exitCode, null, "still running while the match runs");

  // the match ends: the server says goodbye and exits 0; no rematch in between
  await ann.ok({ type: "resign", room });
  // (the server may be gone before it answers: the wait ends within 250 ms of the end)
  const after = await bob.request({ type: "rematch", room }).catch(() => null);
  if (after && after.type === "error") assert.equal(after.code, "server_busy");
  const { code } = await server.stop("SIGTERM", 5000).catch(() => server.stop("SIGKILL"));
  assert.equal(code, 0);
  for (const c of [ann, bob, cy, eve]) {
    const bye = await c.next("goodbye");
    assert.equal(bye.reason, "shutdown");
    assert.match(bye.message, /node is stopping: connect again to \/ws/, "one node of several says where to go");
  }
  assert.match(server.stderr() + server.stdout(), /drain/);
});

test("draining: the match's end alone ends the wait", async () => {
  const server = await startServer(["--drain-s", "60", "--log-level", "info"]);
  const { ann, bob, room } = await running(server);
  server.proc.kill("SIGTERM");
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(server.proc.exitCode, null);
  const t0 = Date.now();
  await ann.ok({ type: "resign", room });
  const [code] = await server.exited;
  assert.equal(code, 0);
  assert.ok(Date.now() - t0 < 5000, "exits within 5 s of the match's end");
  assert.equal((await bob.next("goodbye")).reason, "shutdown");
  assert.match(server.stdout() + server.stderr(), /drained \(no match runs\)/);
});

test("draining: no running match means no wait; a second signal stops the wait", async () => {
  let server = await startServer(["--drain-s", "60"]);
  const idle = await player(server, "Ann");
  const t0 = Date.now();
  const { code } = await server.stop("SIGTERM", 5000);
  assert.equal(code, 0);
  assert.ok(Date.now() - t0 < 5000);
  assert.equal((await idle.next("goodbye")).reason, "shutdown");

  server = await startServer(["--drain-s", "60", "--log-level", "info"]);
  const { ann } = await running(server);
  server.proc.kill("SIGTERM");
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(server.proc.exitCode, null);
  const r = await server.stop("SIGINT", 5000);
  assert.equal(r.code, 0);
  assert.equal((await ann.next("goodbye")).reason, "shutdown");
  assert.match(server.stdout() + server.stderr(), /while draining/);
});

test("--drain-s 1: the wait ends after a second with the match still running", async () => {
  const server = await startServer(["--drain-s", "1", "--log-level", "info"]);
  const { ann } = await running(server);
  const t0 = Date.now();
  server.proc.kill("SIGTERM");
  const [code] = await server.exited;
  assert.equal(code, 0);
  const took = Date.now() - t0;
  assert.ok(took >= 900 && took < 6000, `exited after ${took} ms`);
  assert.equal((await ann.next("goodbye")).reason, "shutdown");
  assert.match(server.stdout() + server.stderr(), /drained \(--drain-s is over\)/);
});

test("without --drain-s a SIGTERM does not wait for matches", async () => {
  const server = await startServer();
  const { ann } = await running(server);
  const { code } = await server.stop("SIGTERM", 5000);
  assert.equal(code, 0);
  assert.equal((await ann.next("goodbye")).reason, "shutdown");
});

await run();
