// server.test.mjs: the HTTP side, the command line and configuration, and shutdown with
// matches and bot jobs in flight.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client, get, player, run, runServer, startServer, test } from "./lib.mjs";

test("HTTP: /healthz, /metrics, /api/rooms, the web client, 404 and 405", async () => {
  const server = await startServer();
  try {
    let r = await get(server, "/healthz");
    assert.equal(r.status, 200);
    assert.equal(r.json.status, "ok");
    const ann = await player(server, "Ann");
    await ann.ok({ type: "create_room", k: 4, name: "listed" });
    await ann.ok({ type: "create_room", k: 5, private: true });
    r = await get(server, "/api/rooms");
    assert.equal(r.status, 200);
    assert.equal(r.json.rooms.length, 1, "private rooms are not listed");
    assert.equal(r.json.rooms[0].name, "listed");
    r = await get(server, "/api/rooms?k=3");
    assert.equal(r.json.rooms.length, 0);
    r = await get(server, "/api/rooms?k=banana");
    assert.equal(r.status, 400);
    assert.equal(r.json.error.code, "bad_request");
    r = await get(server, "/metrics");
    assert.equal(r.status, 200);
    assert.match(r.headers.get("content-type"), /text\/plain/);
    for (const name of ["thue_connections", "thue_rooms", "thue_matches_started_total", "thue_moves_total", "thue_errors_total", "thue_bot_jobs_queued", "thue_move_validation_seconds_bucket", "thue_bot_think_seconds_count", "thue_pool_queue_wait_seconds_sum"])
      assert.ok(r.body.includes(name), `/metrics has ${name}`);
    assert.match(r.body, /^thue_rooms 2$/m);
    r = await get(server, "/");
    assert.equal(r.status, 200);
    assert.match(r.body, /<html/i);
    r = await get(server, "/no/such/file.txt");
    assert.equal(r.status, 404);
    r = await get(server, "/api/ladder?variant=square&k=5");
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, { variant: "square", k: 5, kind: "all", offset: 0, total: 0, entries: [] });
    r = await get(server, "/api/ladder?variant=square");
    assert.equal(r.status, 400);
    r = await get(server, "/api/matches/nosuchmatch");
    assert.equal(r.status, 404);
    assert.equal(r.json.error.code, "not_found");
    r = await get(server, "/api/matches?player=Nobody");
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, { matches: [], page: 1, pages: 1 });
    r = await get(server, "/api/tournaments");
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, { offset: 0, total: 0, tournaments: [] });
    r = await get(server, "/api/tournaments/tnope");
    assert.equal(r.status, 404);
    assert.equal(r.json.error.code, "not_found");
    r = await get(server, "/healthz", { method: "POST" });
    assert.equal(r.status, 405);
  } finally {
    await server.stop();
  }
});

test("a busy port, a bad flag and a bad config file are clear errors", async () => {
  const server = await startServer();
  try {
    let r = await runServer(["--port", String(server.port), "--bind", "127.0.0.1", "--db", ":memory:"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`${server.port}.*in use|in use.*${server.port}`));
  } finally {
    await server.stop();
  }
  let r = await runServer(["--port", "70000"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--port/);
  r = await runServer(["--frobnicate"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /frobnicate/);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thue-config-"));
  const bad = path.join(dir, "bad.json");
  fs.writeFileSync(bad, '{"port": "eighty"}');
  r = await runServer(["--config", bad]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /port/);
  fs.writeFileSync(bad, "{not json");
  r = await runServer(["--config", bad]);
  assert.equal(r.code, 2);
  r = await runServer(["--port", "0"], { THUE_THREADS: "zero" });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /THUE_THREADS/);
  r = await runServer(["--help"]);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /--port/);
  r = await runServer(["--version"]);
  assert.equal(r.code, 0);
  fs.rmSync(dir, { recursive: true });
});

test("SIGTERM with matches and bot jobs in flight: goodbye to all, exit 0", async () => {
  const server = await startServer(["--threads", "2", "--guest-bot-vs-bot", "1"]);
  const ann = await player(server, "Ann");
  // two bot-vs-bot rooms at k = 5 keep the pool busy with nested:2 searches
  const rooms = [];
  for (let i = 0; i < 2; i++) {
    const { room } = await ann.ok({ type: "create_room", k: 5, seat: false, limit: 1000 });
    await ann.ok({ type: "seat_bot", room, bot: "nested:2", seat: 0, think_ms: 60000 });
    await ann.ok({ type: "seat_bot", room, bot: "nested:2", seat: 1, think_ms: 60000 });
    await ann.ok({ type: "spectate", room });
    rooms.push(room);
  }
  const bob = await player(server, "Bob");
  const { room } = await bob.ok({ type: "create_room", k: 3 });
  await ann.ok({ type: "join", room });
  await ann.state(rooms[0], (s) => s.match && s.match.thinking !== null);
  const t0 = Date.now();
  const { code } = await server.stop("SIGTERM", 5000);
  assert.equal(code, 0);
  assert.ok(Date.now() - t0 < 5000, "exits within 5 s");
  for (const c of [ann, bob]) {
    const bye = await c.next("goodbye");
    assert.equal(bye.reason, "shutdown");
    assert.equal((await c.closed).code, 1001);
  }
});

await run();
