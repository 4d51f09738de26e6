// cluster.test.mjs: three nodes on one PostgreSQL and one Redis (clusterlib.mjs): a room
// or a session on another node is answered with `moved`, quick match pairs players of
// different nodes, accounts and the ladder are the same from every node; and the faults
// of issue 19: a node killed with SIGKILL, Redis restarted, PostgreSQL stopped and back.
import { execFileSync } from "node:child_process";
import assert from "node:assert/strict";
import { autoplay, Client, run, startMatch as playing, test } from "./lib.mjs";
import { follow, hello, services, startCluster, until } from "./clusterlib.mjs";
import { checkStore, report } from "../../scripts/check-store.mjs";

/** scripts/check-store.mjs over the cluster's database and every live node's ladder. */
async function checkCluster(cl) {
  const r = await checkStore({ db: cl.svc.pg, ladders: Object.values(cl.nodes).map((n) => n.url) });
  assert.ok(r.ok, report(r).join("\n"));
}

/** One insertion: the builder places at 1, the painter paints c. */
async function insertion(room, builder, painter, c) {
  await builder.ok({ type: "place", room, position: 1 });
  await painter.state(room, (s) => s.match && s.match.step === "paint");
  await painter.ok({ type: "paint", room, symbol: c });
  await builder.state(room, (s) => s.match && s.match.step !== "paint");
}

/** The match is resigned by loser; resolves to winner's match_end. */
async function resign(room, loser, winner) {
  await loser.ok({ type: "resign", room });
  return winner.next((m) => m.type === "match_end" && m.room === room);
}

test("moved: a room and a session of another node; unknown ones as on one server", async () => {
  const cl = await startCluster(2);
  try {
    const ann = await hello(cl.nodes.n1, "Ann");
    const bob = await hello(cl.nodes.n2, "Bob");
    const { room } = await ann.ok({ type: "create_room", k: 3 });
    const handoffs = [];
    for (const type of ["join", "spectate"]) {
      const m = await bob.request({ type, room });
      assert.equal(m.type, "moved", `${type} of n1's room from n2`);
      assert.deepEqual(
        { reason: m.reason, node: m.node, path: m.path, room: m.room },
        { reason: "room", node: "n1", path: "/n/n1/ws", room },
      );
      assert.ok(m.id !== undefined && m.message.length > 0);
      // a guest's moved carries a hand-off: a session of its name on n1 at its first hello
      assert.match(m.resume, /^[0-9a-f]{32}$/);
      handoffs.push(m.resume);
    }
    assert.notEqual(handoffs[0], handoffs[1]);
    // a fresh hello as Bob on n1 is name_taken (Bob is n2's player): the hand-off is the way
    const fresh = await Client.connect(cl.nodes.n1.ws, "x");
    assert.equal((await fresh.request({ type: "hello", protocol: 1, name: "Bob" })).code, "name_taken");
    // said to n2, the hand-off is sent on to n1
    const wrong = await Client.connect(cl.nodes.n2.ws, "x");
    const on = await wrong.request({ type: "hello", protocol: 1, resume: handoffs[0] });
    assert.deepEqual({ type: on.type, reason: on.reason, node: on.node }, { type: "moved", reason: "session", node: "n1" });
    // Bob follows with it: his session on n1, under his name, and he joins
    const bob1 = await hello(cl.nodes.n1, { resume: handoffs[0] });
    assert.equal(bob1.welcome.player.name, "Bob");
    assert.equal(bob1.welcome.resume, handoffs[0]);
    await bob1.ok({ type: "join", room });
    const s = await ann.state(room, (x) => x.players[1] && x.players[1].name === "Bob");
    assert.equal(s.players[1].name, "Bob");
    // his connection lost, the token resumes that session (it is n1's session's now)
    await bob1.close();
    const bob2 = await until(() => hello(cl.nodes.n1, { resume: handoffs[0] }).catch(() => false), "Bob's session on n1 to be resumed");
    assert.equal(bob2.welcome.resumed, true);
    assert.deepEqual(bob2.welcome.rooms, [room]);
    // the other hand-off, used later: the same player, so the same session, taken over
    const bob3 = await hello(cl.nodes.n1, { resume: handoffs[1] });
    assert.equal(bob3.welcome.player.name, "Bob");
    assert.equal(bob3.welcome.resumed, true);
    assert.deepEqual(bob3.welcome.rooms, [room]);
    // an account's moved has no hand-off: its token logs in there
    const eve = await hello(cl.nodes.n2, "Eve");
    await eve.ok({ type: "claim_name", name: "Eve" });
    const em = await eve.request({ type: "spectate", room });
    assert.equal(em.type, "moved");
    assert.equal(em.resume, undefined);
    // an id no node has: no_such_room, as on one server
    const none = await bob.request({ type: "join", room: "rnosuchroom000000" });
    assert.equal(none.code, "no_such_room");
    assert.equal(none.field, "room");
    // a resume token of n2's session, said to n1: moved (session) to n2
    const c = await hello(cl.nodes.n1, "Cy");
    const other = await Client.connect(cl.nodes.n1.ws, "x");
    const mv = await other.request({ type: "hello", protocol: 1, resume: bob.welcome.resume });
    assert.equal(mv.type, "moved");
    assert.deepEqual({ reason: mv.reason, node: mv.node, path: mv.path }, { reason: "session", node: "n2", path: "/n/n2/ws" });
    assert.equal(mv.room, undefined);
    // a token no node knows: bad_resume
    const bad = await other.request({ type: "hello", protocol: 1, resume: "0123456789abcdef0123456789abcdef" });
    assert.equal(bad.code, "bad_resume");
    // and the session is taken over on its own node with that token
    const back = await follow(cl, mv, bob.welcome.resume);
    assert.equal(back.welcome.resumed, true);
    assert.equal(back.welcome.player.name, "Bob");
    void c;
  } finally {
    await cl.stop();
  }
});

test("the lobby across nodes: every node lists every node's public rooms and tournaments", async () => {
  const cl = await startCluster(3);
  try {
    const made = {};
    for (const n of ["n1", "n2", "n3"]) {
      const c = await hello(cl.nodes[n], `M${n}`);
      made[n] = (await c.ok({ type: "create_room", k: 3, name: `Room of ${n}` })).room;
      await c.ok({ type: "create_room", k: 3, private: true }); // private: listed nowhere
      await c.ok({ type: "create_room", game: "nim", game_options: { heaps: [1, 2, 3] } });
    }
    const want = Object.values(made).sort();
    for (const n of ["n1", "n2", "n3"]) {
      const viewer = await hello(cl.nodes[n], `V${n}`);
      const ids = await until(async () => {
        const r = await viewer.ok({ type: "list_rooms" });
        const got = r.rooms.map((x) => x.room).sort();
        return JSON.stringify(got) === JSON.stringify(want) && got;
      }, `${n}'s list of the three Thue rooms`);
      assert.deepEqual(ids, want);
      const nim = await viewer.ok({ type: "list_rooms", game: "nim" });
      assert.equal(nim.rooms.length, 3);
      const api = await (await fetch(`${cl.nodes[n].url}/api/rooms`)).json();
      assert.deepEqual(api.rooms.map((x) => x.room).sort(), want);
    }
    // tournaments: every node lists every node's
    const tours = [];
    for (const n of ["n1", "n2"]) {
      const c = await hello(cl.nodes[n], `T${n}`);
      await c.ok({ type: "claim_name", name: `T${n}` });
      tours.push((await c.ok({ type: "create_tournament", name: `Cup ${n}`, format: "round_robin", variant: "square", k: 3, limit: 5, max_players: 4 })).tournament);
    }
    tours.sort();
    for (const n of ["n1", "n2", "n3"]) {
      const viewer = await hello(cl.nodes[n], `W${n}`);
      await until(async () => {
        const r = await viewer.ok({ type: "list_tournaments" });
        return r.total === 2 && JSON.stringify(r.tournaments.map((x) => x.tournament).sort()) === JSON.stringify(tours);
      }, `${n}'s list of both tournaments`);
      const api = await (await fetch(`${cl.nodes[n].url}/api/tournaments`)).json();
      assert.deepEqual(api.tournaments.map((x) => x.tournament).sort(), tours);
      const page = await viewer.ok({ type: "list_tournaments", offset: 1, count: 1 });
      assert.equal(page.total, 2);
      assert.equal(page.tournaments.length, 1);
    }
    // a node that dies leaves every list within seconds
    cl.nodes.n3.proc.kill("SIGKILL");
    await cl.nodes.n3.exited;
    delete cl.nodes.n3;
    const v = await hello(cl.nodes.n1, "Late");
    await until(async () => (await v.ok({ type: "list_rooms" })).rooms.length === 2, "n3's room to leave the list", 12000);
  } finally {
    await cl.stop();
  }
});

test("per-address limits are shared by the nodes: rooms and claims sent to three nodes at once get exactly the limit", async () => {
  const cl = await startCluster(3, ["--room-rate-per-ip", "4", "--claims-per-ip", "3", "--max-rooms-per-player", "1"]);
  try {
    const nodes = Object.values(cl.nodes);
    const clients = [];
    for (let i = 0; i < 24; i++) clients.push(await hello(nodes[i % 3], `P${i}`));
    // every request at once, eight to each node: the shared bucket alone decides
    const rooms = await Promise.all(clients.map((c) => c.request({ type: "create_room", k: 3 })));
    const made = rooms.filter((r) => r.type === "room_created").length;
    for (const r of rooms) if (r.type !== "room_created") assert.equal(r.code, "rate_limited", JSON.stringify(r));
    // alone, each node would have let 4 through (12 in all); after the fact, up to one more per node
    assert.equal(made, 4, `${made} rooms made of 24 asked with a limit of 4`);
    const claims = await Promise.all(clients.slice(0, 12).map((c, i) => c.request({ type: "claim_name", name: `Claim${i}` })));
    const claimed = claims.filter((r) => r.type === "account").length;
    for (const r of claims) if (r.type !== "account") assert.equal(r.code, "rate_limited", JSON.stringify(r));
    assert.equal(claimed, 3, `${claimed} names claimed of 12 asked with a limit of 3`);
    // a connection's messages keep their order while one waits for the verdict
    const c = clients[23];
    const [a, b] = await Promise.all([c.request({ type: "create_room", k: 3 }), c.request({ type: "list_rooms" })]);
    assert.equal(a.code, "rate_limited");
    assert.equal(b.type, "rooms");
    for (const x of clients) await x.close();
  } finally {
    await cl.stop();
  }
});

test("guest names are unique across the nodes: a name in use on one node is name_taken on the others, free again once its session ends or its node dies", async () => {
  const cl = await startCluster(3, ["--grace-s", "1"]);
  try {
    const { n1, n2, n3 } = cl.nodes;
    const ann = await hello(n1, "Ann");
    const tries = [];
    for (const [node, name] of [[n2, "Ann"], [n3, "ANN"], [n1, "ann"]]) {
      const c = await Client.connect(node.ws, "x");
      const r = await c.request({ type: "hello", protocol: 1, name });
      assert.equal(r.code, "name_taken", `${name} on ${node.name}: ${JSON.stringify(r)}`);
      assert.equal(r.field, "name");
      tries.push(c);
    }
    // nor can another node's guest claim it as an account
    const zed = await hello(n2, "Zed");
    const claim = await zed.request({ type: "claim_name", name: "Ann" });
    assert.equal(claim.code, "name_taken", JSON.stringify(claim));
    // the same name said to three nodes at once: exactly one gets it
    const racers = await Promise.all([n1, n2, n3].map((node) => Client.connect(node.ws, "r")));
    const said = await Promise.all(racers.map((c) => c.request({ type: "hello", protocol: 1, name: "Dora" })));
    assert.equal(said.filter((r) => r.type === "welcome").length, 1, JSON.stringify(said));
    for (const r of said) if (r.type !== "welcome") assert.equal(r.code, "name_taken");
    // names drawn for guests who gave none are distinct across the nodes
    const guests = [];
    for (let i = 0; i < 12; i++) guests.push(await hello([n1, n2, n3][i % 3], {}));
    const drawn = guests.map((g) => g.welcome.player.name);
    assert.equal(new Set(drawn).size, drawn.length, drawn.join(" "));
    // Ann leaves: once her session ends (grace 1 s), her name is free on every node
    await ann.close();
    const ann2 = await until(async () => {
      const c = await Client.connect(n2.ws, "a");
      const r = await c.request({ type: "hello", protocol: 1, name: "Ann" });
      if (r.type === "welcome") return c;
      assert.equal(r.code, "name_taken");
      await c.close();
      return false;
    }, "Ann's name to be free once her session ended");
    tries.push(ann2);
    // n2 dies holding it: free once n2 is taken for dead (3 heartbeats)
    await n2.stop("SIGKILL");
    delete cl.nodes.n2;
    await until(async () => {
      const c = await Client.connect(n3.ws, "a");
      const r = await c.request({ type: "hello", protocol: 1, name: "Ann" });
      await c.close();
      return r.type === "welcome";
    }, "Ann's name to be free once n2 died");
    for (const c of [...tries, ...racers, ...guests, zed]) await c.close();
  } finally {
    await cl.stop();
  }
});

test("bot seats are counted across the nodes: an account on two nodes gets its own limit, one address on three nodes its limit, at once", async () => {
  const cl = await startCluster(3, ["--bot-seats-per-owner", "2", "--bot-seats-per-ip", "5"]);
  try {
    const { n1, n2, n3 } = cl.nodes;
    /** A room of c's own (c seated) and a bot asked for it: the answer. */
    const roomAndBot = async (c) => {
      const { room } = await c.ok({ type: "create_room", k: 3 });
      return { room, r: await c.request({ type: "seat_bot", room, bot: "greedy" }) };
    };
    // Ida's account, connected to n1 and n2: her limit of 2 holds over both
    const ida = await hello(n1, "Ida");
    const acc = await ida.ok({ type: "claim_name", name: "Ida" });
    const ida2 = await until(() => hello(n2, { token: acc.token }).catch(() => false), "Ida's token on n2");
    const first = await Promise.all([roomAndBot(ida), roomAndBot(ida2), roomAndBot(ida2)]);
    const idaSeated = first.filter((x) => x.r.type === "ok").length;
    for (const x of first) if (x.r.type !== "ok") {
      assert.equal(x.r.code, "not_allowed", JSON.stringify(x.r));
      assert.match(x.r.message, /one account may have 2 bots/);
    }
    assert.equal(idaSeated, 2, `Ida seated ${idaSeated} bots with a limit of 2 (${JSON.stringify(first.map((x) => x.r))})`);
    // twelve guests of one address on three nodes, at once: 3 more seats for the address
    const guests = [];
    for (let i = 0; i < 12; i++) guests.push(await hello([n1, n2, n3][i % 3], `G${i}`));
    const asked = await Promise.all(guests.map(roomAndBot));
    const seated = asked.filter((x) => x.r.type === "ok");
    for (const x of asked) if (x.r.type !== "ok") {
      assert.equal(x.r.code, "not_allowed", JSON.stringify(x.r));
      assert.match(x.r.message, /one address may have 5 bots/);
    }
    assert.equal(seated.length, 3, `${seated.length} guest bots seated; the address had 2 of 5`);
    // a seat stops counting once nobody is in its room: one guest leaves, a guest of
    // another node gets the seat
    const leaver = guests[asked.indexOf(seated[0])];
    await leaver.ok({ type: "leave", room: seated[0].room });
    const other = guests.find((g, i) => asked[i].r.type !== "ok" && g.node !== leaver.node);
    const again = await until(async () => {
      const r = await other.request({ type: "seat_bot", room: asked[guests.indexOf(other)].room, bot: "greedy" });
      return r.type === "ok" ? r : false;
    }, "a guest's bot once another's room was left");
    assert.equal(again.type, "ok");
    // n1 dies: its seats no longer count (Ida's n1 seat among them)
    const onN1 = first.filter((x, i) => x.r.type === "ok" && i === 0).length;
    await n1.stop("SIGKILL");
    delete cl.nodes.n1;
    if (onN1 > 0) {
      const { room } = await ida2.ok({ type: "create_room", k: 3 });
      const r = await until(async () => {
        const x = await ida2.request({ type: "seat_bot", room, bot: "greedy" });
        if (x.type !== "ok") assert.equal(x.code, "not_allowed", JSON.stringify(x));
        return x.type === "ok" ? x : false;
      }, "Ida's seat on n1 to stop counting once n1 died");
      assert.equal(r.type, "ok");
    }
    for (const c of [ida2, ...guests]) await c.close();
  } finally {
    await cl.stop();
  }
});

test("quick match pairs players of two nodes; the one who waited moves and plays", async () => {
  const cl = await startCluster(3);
  try {
    const cy = await hello(cl.nodes.n1, "Cy");
    const dee = await hello(cl.nodes.n2, "Dee");
    await cy.ok({ type: "queue_join", variant: "square", k: 4 }); // ok: Cy's ticket is in the pool
    await dee.ok({ type: "queue_join", variant: "square", k: 4 });
    const found = await dee.next("match_found");
    const mv = await cy.next("moved");
    assert.equal(mv.reason, "match");
    assert.equal(mv.node, "n2");
    assert.equal(mv.room, found.room);
    assert.match(mv.resume, /^[0-9a-f]{32}$/);
    const cy2 = await follow(cl, mv);
    assert.equal(cy2.welcome.resumed, true);
    assert.equal(cy2.welcome.player.name, "Cy");
    assert.deepEqual(cy2.welcome.rooms, [found.room]);
    const st = await cy2.state(found.room, (s) => s.players.every((p) => p.connected));
    assert.deepEqual(st.players.map((p) => p.name).sort(), ["Cy", "Dee"]);
    // they play: the builder places, the painter paints, then someone resigns
    const builder = st.match.builder === st.you ? cy2 : dee;
    const painter = builder === cy2 ? dee : cy2;
    await insertion(found.room, builder, painter, 1);
    const end = await resign(found.room, painter, builder);
    assert.ok(end.match_id, "recorded");
    // the record is in PostgreSQL: the third node serves it
    const rec = await fetch(`${cl.nodes.n3.url}/api/matches/${end.match_id}`);
    assert.equal(rec.status, 200);
    const j = await rec.json();
    assert.deepEqual(j.players.map((p) => p.name).sort(), ["Cy", "Dee"]);
    // two players of the same node pair too (through Redis), with no move
    const eve = await hello(cl.nodes.n3, "Eve");
    const fay = await hello(cl.nodes.n3, "Fay");
    await eve.ok({ type: "queue_join", variant: "overlap", k: 3 });
    await fay.ok({ type: "queue_join", variant: "overlap", k: 3 });
    const f1 = await eve.next("match_found");
    const f2 = await fay.next("match_found");
    assert.equal(f1.room, f2.room);
    assert.equal(eve.inbox.filter((m) => m.type === "moved").length, 0);
  } finally {
    await cl.stop();
  }
});

test("accounts and the ladder are the same from every node", async () => {
  const cl = await startCluster(3);
  try {
    const gil = await hello(cl.nodes.n1, "Gil");
    const acc = await gil.ok({ type: "claim_name", name: "Gil" });
    const hal = await hello(cl.nodes.n2, "Hal");
    const acc2 = await hal.ok({ type: "claim_name", name: "Hal" });
    // Gil's token works on n2 and n3 (the account was told to them)
    for (const n of ["n2", "n3"]) {
      const g = await until(() => hello(cl.nodes[n], { token: acc.token }).catch(() => false), `Gil's token on ${n}`);
      assert.equal(g.welcome.player.kind, "account");
      await g.close();
    }
    // a name claimed on one node is taken on the others
    const other = await hello(cl.nodes.n3, "Ivy");
    const taken = await other.request({ type: "claim_name", name: "Hal" });
    assert.equal(taken.code, "name_taken");
    // a rated match on n2 (Gil logs in there)
    await gil.close();
    const gil2 = await hello(cl.nodes.n2, { token: acc.token });
    const room = await playing(gil2, hal, { rated: true });
    await insertion(room, gil2, hal, 1);
    await insertion(room, gil2, hal, 2);
    const end = await resign(room, hal, gil2);
    assert.ok(end.ratings, "rated");
    const texts = [];
    for (const n of ["n1", "n2", "n3"]) {
      const body = await until(async () => {
        const r = await fetch(`${cl.nodes[n].url}/api/ladder?variant=square&k=3`);
        const t = await r.text();
        return JSON.parse(t).total === 2 && t;
      }, `the ladder on ${n}`);
      texts.push(body);
    }
    assert.equal(texts[0], texts[1]);
    assert.equal(texts[1], texts[2]);
    const l = JSON.parse(texts[0]);
    assert.deepEqual(l.entries.map((e) => [e.name, e.wins, e.losses]), [["Gil", 1, 0], ["Hal", 0, 1]]);
    void acc2;
  } finally {
    await cl.stop();
  }
});

test("a password set on one node logs in on another, and its token works on a third", async () => {
  const cheap = ["--password-ops", "1", "--password-mem-mib", "8"];
  const cl = await startCluster(3, cheap);
  try {
    const pw = "correct horse battery";
    const jo = await hello(cl.nodes.n1, "Jo");
    await jo.ok({ type: "claim_name", name: "Jo" });
    await jo.ok({ type: "set_password", password: pw });
    // n2 knows the account (its event) and reads the hash from the shared database.
    const acc = await until(async () => {
      const g = await hello(cl.nodes.n2, "g2");
      const r = await g.request({ type: "login", name: "Jo", password: pw });
      await g.close();
      return r.type === "account" && r;
    }, "Jo's login on n2");
    assert.equal(acc.name, "Jo");
    // Wrong on n2 as on n1; changed on n2, the old one fails on n1 at once.
    const g = await hello(cl.nodes.n2, "g3");
    assert.equal((await g.request({ type: "login", name: "Jo", password: "not it" })).code, "bad_password");
    const jo2 = await hello(cl.nodes.n2, { token: acc.token });
    await jo2.ok({ type: "set_password", password: "staple battery horse", old_password: pw });
    const h = await hello(cl.nodes.n1, "g4");
    assert.equal((await h.request({ type: "login", name: "Jo", password: pw })).code, "bad_password");
    // The token of the login on n2 works on n3 (told by its SHA-256, never the password).
    const t = await until(() => hello(cl.nodes.n3, { token: acc.token }).catch(() => false), "the login's token on n3");
    assert.equal(t.welcome.player.name, "Jo");
  } finally {
    await cl.stop();
  }
});

test("a Swiss tournament whose entrants sit on different nodes", async () => {
  const cl = await startCluster(3, ["--rate", "1000", "--burst", "1000", "--bot-think-ms", "20"]);
  const stops = [];
  try {
    const who = {};
    for (const [name, node] of [["Ann", "n1"], ["Bob", "n2"], ["Cy", "n3"]]) {
      const c = await hello(cl.nodes[node], name);
      const { token } = await c.ok({ type: "claim_name", name });
      who[name] = { c, token, node };
    }
    const ann = who.Ann.c;
    const { tournament } = await ann.ok({ type: "create_tournament", name: "Across", format: "swiss", variant: "square", k: 3, limit: 8, rounds: 2, max_players: 4 });
    await ann.ok({ type: "join_tournament", tournament });
    await ann.ok({ type: "join_tournament", tournament, bot: "greedy" });
    stops.push(autoplay(ann, 3));
    // Bob and Cy ask from their nodes: moved (tournament) to n1, where they join; then
    // they go back home (their session on n1 waits out its grace period)
    for (const name of ["Bob", "Cy"]) {
      const mv = await who[name].c.request({ type: "join_tournament", tournament });
      assert.equal(mv.type, "moved");
      assert.deepEqual({ reason: mv.reason, node: mv.node, tournament: mv.tournament }, { reason: "tournament", node: "n1", tournament });
      const there = await until(() => hello(cl.nodes.n1, { token: who[name].token }).catch(() => false), `${name}'s account on n1`);
      await there.ok({ type: "join_tournament", tournament });
      await there.close();
      // and home again: a session of the account there
      who[name].c = await hello(cl.nodes[who[name].node], { token: who[name].token });
    }
    // each game of theirs is announced on their own node with moved (match); they follow
    // and play there
    const moves = { Bob: 0, Cy: 0 };
    for (const name of ["Bob", "Cy"]) {
      (async () => {
        let c = who[name].c;
        for (;;) {
          let mv;
          try {
            mv = await c.next("moved", "a game elsewhere", 120000);
          } catch {
            return;
          }
          assert.equal(mv.reason, "match");
          assert.equal(mv.node, "n1");
          moves[name]++;
          c = await follow(cl, mv);
          assert.ok(c.welcome.rooms.includes(mv.room));
          stops.push(autoplay(c, 3));
        }
      })();
    }
    await ann.ok({ type: "start_tournament", tournament });
    const t = await until(async () => {
      const j = await (await fetch(`${cl.nodes.n1.url}/api/tournaments/${tournament}`)).json();
      return j.status === "finished" && j;
    }, "the tournament to finish", 60000);
    assert.equal(t.standings.length, 4);
    assert.equal(t.round_list.length, 2);
    assert.ok(moves.Bob >= 1 && moves.Cy >= 1, `moved to their games: ${JSON.stringify(moves)}`);
    // every game was played (none decided by absence): each round has two boards with rooms
    for (const [i, r] of t.round_list.entries()) for (const p of r.pairings) assert.ok(p.room, `a board without a room in round ${i + 1}`);
    // another node answers for it with moved
    const probe = await hello(cl.nodes.n3, "Probe");
    const mv = await probe.request({ type: "get_tournament", tournament });
    assert.equal(mv.reason, "tournament");
    const none = await probe.request({ type: "get_tournament", tournament: "tnosuchtournament" });
    assert.equal(none.code, "no_such_tournament");
  } finally {
    for (const s of stops) s();
    await cl.stop();
  }
});

/** Starts a Swiss tournament of four bots on `node` (3 rounds); its id once round 2 runs.
 * The bots search for their whole --bot-think-ms (UCT with more iterations than that
 * allows): a game lasts seconds, so round 2 is still being played when the test acts. */
async function botTournament(node) {
  const org = await hello(node, "Org");
  await org.ok({ type: "claim_name", name: "Org" });
  const { tournament } = await org.ok({ type: "create_tournament", name: "Bots", format: "swiss", variant: "square", k: 3, limit: 6, rounds: 3, max_players: 4 });
  for (const bot of ["uct:iterations=100000000", "uct:iterations=90000000", "uct:iterations=80000000", "uct:iterations=70000000"])
    await org.ok({ type: "join_tournament", tournament, bot });
  await org.ok({ type: "start_tournament", tournament });
  await org.next((m) => m.type === "tournament_event" && m.event === "round_started" && m.round === 2, "round 2", 60000);
  await org.close();
  return tournament;
}

/** The tournament as `node` serves it, once finished: 3 rounds, 6 points in all. */
async function finishedOn(node, tournament) {
  const t = await until(async () => {
    const r = await fetch(`${node.url}/api/tournaments/${tournament}`);
    const j = r.status === 200 ? await r.json() : null;
    return j && j.status === "finished" && j;
  }, `the tournament to finish on ${node.name}`, 90000);
  assert.equal(t.round_list.length, 3);
  assert.equal(t.standings.reduce((a, x) => a + x.points, 0), 6, "3 rounds of 2 games, each scored once");
  return t;
}

const psql = (cl, sql) => execFileSync("psql", [cl.svc.pg, "-Atc", sql], { encoding: "utf8" }).trim();

test("a tournament's node killed with -9: another node takes it over within 15 s and plays it to the end; the old node, back, leaves it", async () => {
  const cl = await startCluster(2, ["--rate", "1000", "--burst", "1000", "--bot-think-ms", "150"]);
  try {
    const tournament = await botTournament(cl.nodes.n1);
    assert.equal(psql(cl, `SELECT node || ' ' || fence FROM tournaments WHERE id = '${tournament}'`), "n1 0");
    const t0 = Date.now();
    cl.nodes.n1.proc.kill("SIGKILL");
    await cl.nodes.n1.exited;
    delete cl.nodes.n1;
    const n2 = cl.nodes.n2;
    await until(async () => (await fetch(`${n2.url}/api/tournaments/${tournament}`)).status === 200, "n2 to take the tournament over", 15000);
    const took = Date.now() - t0;
    assert.ok(took < 15000, `taken over after ${took} ms`);
    assert.match(n2.stdout() + n2.stderr(), new RegExp(`tournament ${tournament}: its director's lease ran out: this node directs it now \\(fence 1\\)`));
    await finishedOn(n2, tournament);
    assert.equal(psql(cl, `SELECT node || ' ' || fence || ' ' || finished FROM tournaments WHERE id = '${tournament}'`), "n2 1 1");
    // n1 back under its name: the tournament is n2's (finished), n1 does not load it
    const n1 = await cl.add("n1");
    assert.equal((await fetch(`${n1.url}/api/tournaments/${tournament}`)).status, 404);
    // each game of the tournament stored once per round and board: 6 results in all
    assert.equal(psql(cl, `SELECT count(DISTINCT (tournament_round, name0, name1)) FROM matches WHERE tournament = '${tournament}'`), "6");
  } finally {
    await cl.stop();
  }
});

test("a tournament's node paused past its lease (SIGSTOP): another node takes it over; woken (SIGCONT), the old one neither pairs a round nor writes the state", async () => {
  const cl = await startCluster(2, ["--rate", "1000", "--burst", "1000", "--bot-think-ms", "150"]);
  try {
    const n1 = cl.nodes.n1, n2 = cl.nodes.n2;
    const tournament = await botTournament(n1);
    n1.proc.kill("SIGSTOP");
    try {
      await until(async () => (await fetch(`${n2.url}/api/tournaments/${tournament}`)).status === 200, "n2 to take the tournament over", 15000);
      assert.equal(psql(cl, `SELECT node || ' ' || fence FROM tournaments WHERE id = '${tournament}'`), "n2 1");
    } finally {
      n1.proc.kill("SIGCONT");
    }
    const woken = (n1.stdout() + n1.stderr()).length;
    // n1 finds it gone at its first renewal and drops it
    await until(async () => new RegExp(`tournament ${tournament}: another node directs it now`).test((n1.stdout() + n1.stderr()).slice(woken)), "n1 to drop the tournament", 10000);
    await finishedOn(n2, tournament);
    const after = (n1.stdout() + n1.stderr()).slice(woken);
    assert.doesNotMatch(after, new RegExp(`tournament ${tournament}: round \\d+ of`), "n1 paired no round after waking");
    assert.doesNotMatch(after, new RegExp(`tournament ${tournament}: round \\d+ finished`), "n1 closed no round after waking");
    assert.equal(psql(cl, `SELECT node || ' ' || fence || ' ' || finished FROM tournaments WHERE id = '${tournament}'`), "n2 1 1");
  } finally {
    await cl.stop();
  }
});

test("kill -9 one node of three: the others play on, its rooms leave the directory, its players start again", async () => {
  const cl = await startCluster(3);
  try {
    const pairs = {};
    for (const n of ["n1", "n2", "n3"]) {
      const a = await hello(cl.nodes[n], `A${n}`);
      const b = await hello(cl.nodes[n], `B${n}`);
      pairs[n] = { a, b, room: await playing(a, b) };
    }
    const ended = [];
    // a match on n3 ends before the kill: its record must survive it
    await insertion(pairs.n3.room, pairs.n3.a, pairs.n3.b, 1);
    ended.push((await resign(pairs.n3.room, pairs.n3.b, pairs.n3.a)).match_id);
    const { room: r3 } = await pairs.n3.a.ok({ type: "create_room", k: 3 });
    const probe = await hello(cl.nodes.n1, "Probe");
    assert.equal((await probe.request({ type: "spectate", room: r3 })).type, "moved");

    const t0 = Date.now();
    cl.nodes.n3.proc.kill("SIGKILL");
    await cl.nodes.n3.exited;
    delete cl.nodes.n3;
    // the other nodes' matches go on untouched
    for (const n of ["n1", "n2"]) {
      await insertion(pairs[n].room, pairs[n].a, pairs[n].b, 1);
      await insertion(pairs[n].room, pairs[n].a, pairs[n].b, 2);
      ended.push((await resign(pairs[n].room, pairs[n].b, pairs[n].a)).match_id);
    }
    // n3's room leaves the directory within its records' life (3 heartbeats of 1 s)
    await until(async () => (await probe.request({ type: "spectate", room: r3 })).code === "no_such_room", "n3's room to expire", 8000);
    const took = Date.now() - t0;
    assert.ok(took < 8000, `expired after ${took} ms`);
    // n3's player comes back through another node: its resume token is dead, a fresh
    // hello works at once, and a new match starts
    const c = await Client.connect(cl.nodes.n2.ws, "A-again");
    const r = await c.request({ type: "hello", protocol: 1, resume: pairs.n3.a.welcome.resume });
    assert.equal(r.code, "bad_resume");
    const again = await c.ok({ type: "hello", protocol: 1, name: "An3" });
    assert.equal(again.player.name, "An3");
    const b2 = await hello(cl.nodes.n1, "Bn3");
    await c.ok({ type: "queue_join", variant: "square", k: 5 });
    await b2.ok({ type: "queue_join", variant: "square", k: 5 });
    // b2 joined last (its ok came after c's: an ok means the ticket is in the pool), so the
    // room is on b2's node and c is moved there
    const found = await b2.next("match_found");
    assert.ok(found.room);
    assert.equal((await c.next("moved")).room, found.room);
    // every match announced as finished is in PostgreSQL
    for (const id of ended) {
      const res = await fetch(`${cl.nodes.n1.url}/api/matches/${id}`);
      assert.equal(res.status, 200, `match ${id}`);
    }
    await checkCluster(cl);
  } finally {
    await cl.stop();
  }
});

test("a node stopped with SIGTERM leaves the cluster at once: its rooms and tokens are gone", async () => {
  const cl = await startCluster(2);
  try {
    const ann = await hello(cl.nodes.n2, "Ann");
    const { room } = await ann.ok({ type: "create_room", k: 3 });
    const probe = await hello(cl.nodes.n1, "Probe");
    assert.equal((await probe.request({ type: "spectate", room })).type, "moved");
    const { code } = await cl.nodes.n2.stop("SIGTERM");
    assert.equal(code, 0);
    delete cl.nodes.n2;
    assert.match((await ann.next("goodbye")).message, /connect again to \/ws/);
    // at once, not after the records' life (3 s): the first look after the exit
    assert.equal((await probe.request({ type: "spectate", room })).code, "no_such_room");
    const c = await Client.connect(cl.nodes.n1.ws, "again");
    assert.equal((await c.request({ type: "hello", protocol: 1, resume: ann.welcome.resume })).code, "bad_resume");
  } finally {
    await cl.stop();
  }
});

test("Redis restarted: play goes on, the directory and the queues are written again", async () => {
  const cl = await startCluster(2);
  try {
    const ann = await hello(cl.nodes.n1, "Ann");
    const bob = await hello(cl.nodes.n1, "Bob");
    const room = await playing(ann, bob);
    const cy = await hello(cl.nodes.n1, "Cy");
    await cy.ok({ type: "queue_join", variant: "square", k: 4 });
    const dee = await hello(cl.nodes.n2, "Dee");

    services("restart-redis", cl.svc.dir);
    // play goes on meanwhile and after
    await insertion(room, ann, bob, 1);
    // the room is found again from n2 (n1 wrote its directory again)
    await until(async () => (await dee.request({ type: "spectate", room })).type === "moved", "the directory back", 10000);
    // Cy's ticket is back in the pool: Dee's join pairs them
    await until(async () => {
      const r = await dee.request({ type: "queue_join", variant: "square", k: 4 });
      if (r.type !== "ok") return false;
      const f = await dee.next("match_found", "a match", 2000).catch(async () => {
        await dee.request({ type: "queue_leave" });
        return false;
      });
      return f;
    }, "Cy and Dee paired after the restart", 15000);
    const mv = await cy.next("moved");
    assert.equal(mv.reason, "match");
    await insertion(room, ann, bob, 2);
    const end = await resign(room, bob, ann);
    assert.ok(end.match_id);
  } finally {
    await cl.stop();
  }
});

test("Redis away for a while: an account made meanwhile reaches the other nodes when it is back", async () => {
  const cl = await startCluster(2);
  try {
    services("stop-redis", cl.svc.dir);
    await until(async () => /Redis is down/.test(cl.nodes.n1.stdout() + cl.nodes.n1.stderr()), "n1 to see Redis go");
    const zed = await hello(cl.nodes.n1, "Zed");
    const { token } = await zed.ok({ type: "claim_name", name: "Zed" }); // PostgreSQL is up
    // n1 plays on alone meanwhile
    const other = await hello(cl.nodes.n1, "Yan");
    const room = await playing(zed, other);
    await insertion(room, zed, other, 1);
    // n2 learns of the account from the database, Redis or not, within seconds
    const t0 = Date.now();
    const z1 = await until(() => hello(cl.nodes.n2, { token }).catch(() => false), "Zed's token on n2 with Redis down", 5000);
    assert.equal(z1.welcome.player.name, "Zed");
    console.log(`     the account reached n2 through the database in ${Date.now() - t0} ms, Redis down`);
    await z1.close();
    services("start-redis", cl.svc.dir);
    const z2 = await until(() => hello(cl.nodes.n2, { token }).catch(() => false), "Zed's token on n2", 15000);
    assert.equal(z2.welcome.player.name, "Zed");
    assert.equal(z2.welcome.player.kind, "account");
  } finally {
    await cl.stop();
  }
});

test("PostgreSQL stopped and back: a finished match waits for it, then is written", async () => {
  const cl = await startCluster(2);
  try {
    const ann = await hello(cl.nodes.n1, "Ann");
    const bob = await hello(cl.nodes.n1, "Bob");
    const room = await playing(ann, bob);
    await insertion(room, ann, bob, 1);
    services("stop-postgres", cl.svc.dir);
    let end = null;
    const ends = resign(room, bob, ann).then((m) => (end = m));
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(end, null, "match_end waits for the database");
    const h = await (await fetch(`${cl.nodes.n1.url}/healthz`)).json();
    assert.equal(h.store, "failing");
    services("start-postgres", cl.svc.dir);
    await ends;
    assert.ok(end.match_id);
    const rec = await until(async () => (await fetch(`${cl.nodes.n2.url}/api/matches/${end.match_id}`)).status === 200, "the record", 15000);
    assert.ok(rec);
    await checkCluster(cl);
  } finally {
    await cl.stop();
  }
});

await run();
