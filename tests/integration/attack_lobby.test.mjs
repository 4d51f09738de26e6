// attack_lobby.test.mjs: issue 15's attacks on the lobby, replayed small on loopback.
//
//   - rooms: 150 guests from one address make and leave rooms, then hold some, against a
//     low --max-rooms: someone at another address must still get a room and a quick
//     match, and a full server must say so to a quick match instead of queueing it;
//   - tournaments: accounts at a few addresses try to make 200 tournaments: they are
//     bounded, every refusal says why, and the list comes in pages; open tournaments
//     expire (a short --tournament-expire-s here);
//   - invites: a wrong invite gets exactly the answer of a room that does not exist;
//   - chat: a text with a line feed (a forged line) or a bidirectional override is refused;
//   - ids: room ids carry at least 80 random bits.
//
// Clients act as several addresses by binding to other loopback addresses (127.0.0.x):
// the server listens on 127.0.0.1, which any 127.x source reaches. Every loop is bounded
// in count, every wait has a timeout, and the figures are printed, not asserted as
// timings.
import assert from "node:assert/strict";
import { account, metric, player, run, startServer, test } from "./lib.mjs";

/** The server's resident memory in MiB. */
async function rssMiB(pid) {
  const fs = await import("node:fs");
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

function count(map, key) {
  map[key] = (map[key] || 0) + 1;
}

test("rooms: 150 guests at one address making and leaving rooms cannot fill the server", async () => {
  const server = await startServer(["--max-rooms", "200"]);
  const clients = [];
  try {
    const t0 = Date.now();
    const guests = [];
    for (let i = 0; i < 150; i++) guests.push(await player(server, `g${i}`));
    clients.push(...guests);
    // Each guest makes and leaves three rooms, then makes one more and stays in it: 600
    // rooms asked for, all at once.
    const answers = {};
    await Promise.all(guests.map(async (g) => {
      for (let k = 0; k < 4; k++) {
        const r = await g.request({ type: "create_room", k: 3 });
        if (r.type === "error") {
          count(answers, r.code);
          if (r.code === "rate_limited") assert.match(r.message, /rooms a minute.*in \d+ s/, "the refusal says when to try again");
          continue;
        }
        count(answers, "ok");
        if (k < 3) await g.ok({ type: "leave", room: r.room });
      }
    }));
    const rooms = await metric(server, "thue_rooms");
    console.log(`     600 create_room from one address in ${Date.now() - t0} ms: ${JSON.stringify(answers)}; rooms on the server: ${rooms} of 200`);
    // Someone at another address still gets a room, and two others a quick match.
    const ann = await player(server, "Ann", "127.0.0.2");
    const bob = await player(server, "Bob", "127.0.0.3");
    const cy = await player(server, "Cy", "127.0.0.4");
    clients.push(ann, bob, cy);
    const made = await ann.request({ type: "create_room", k: 3 });
    assert.equal(made.type, "room_created", `a room for someone else: ${JSON.stringify(made)}`);
    await bob.ok({ type: "queue_join", variant: "square", k: 4 });
    const r = await cy.request({ type: "queue_join", variant: "square", k: 4 });
    assert.equal(r.type, "ok", `the second quick-match player: ${JSON.stringify(r)}`);
    const [fb, fc] = await Promise.all([bob.next("match_found"), cy.next("match_found")]);
    assert.equal(fb.room, fc.room);
    assert.ok(rooms <= 60, `one address holds at most its bucket of rooms (${rooms})`);
    assert.equal(answers.server_busy || 0, 0, "the server was never full");
  } finally {
    for (const c of clients) c.close();
    await server.stop();
  }
});

test("quick match on a full server: server_busy at once, or queue_failed when the bot's room cannot be made", async () => {
  const server = await startServer(["--max-rooms", "3"]);
  const clients = [];
  try {
    const holders = [];
    for (let i = 0; i < 2; i++) holders.push(await player(server, `h${i}`, `127.0.0.${10 + i}`));
    clients.push(...holders);
    for (const h of holders) await h.ok({ type: "create_room", k: 3 });
    // One room left: Dee waits for a bot, then someone takes the last room.
    const dee = await player(server, "Dee", "127.0.0.20");
    clients.push(dee);
    await dee.ok({ type: "queue_join", variant: "square", k: 3, bot_after_s: 1 });
    const last = await player(server, "Last", "127.0.0.12");
    clients.push(last);
    await last.ok({ type: "create_room", k: 3 });
    const t0 = Date.now();
    const failed = await dee.next((m) => m.type === "queue_failed" || m.type === "match_found", "queue_failed", 5000);
    console.log(`     bot_after_s 1 on a full server: ${failed.type} after ${Date.now() - t0} ms: ${failed.code}: ${failed.message}`);
    assert.equal(failed.type, "queue_failed");
    assert.equal(failed.code, "server_busy");
    // Full now: a new quick match is refused at once, not queued for nothing.
    const eve = await player(server, "Eve", "127.0.0.21");
    clients.push(eve);
    const r = await eve.request({ type: "queue_join", variant: "square", k: 3 });
    console.log(`     queue_join on a full server: ${r.type} ${r.code || ""}: ${r.message || ""}`);
    assert.equal(r.type, "error");
    assert.equal(r.code, "server_busy");
    assert.match(r.message, /try again|again in/);
  } finally {
    for (const c of clients) c.close();
    await server.stop();
  }
});

test("tournaments: 200 asked for by 40 accounts at 4 addresses are bounded, and listed in pages", async () => {
  const server = await startServer(["--claims-per-ip", "1000"]); // 40 accounts at 4 addresses
  const clients = [];
  try {
    const rss0 = await rssMiB(server.proc.pid);
    const accounts = [];
    for (let i = 0; i < 40; i++) accounts.push(await account(server, `Org${i}`, `127.0.0.${2 + (i % 4)}`));
    clients.push(...accounts);
    const t0 = Date.now();
    const answers = {};
    await Promise.all(accounts.map(async (a) => {
      for (let k = 0; k < 5; k++) {
        const r = await a.request({ type: "create_tournament", name: `Flood ${a.name} ${k}`, format: "swiss", variant: "square", k: 3, rounds: 50, max_players: 256 });
        if (r.type === "error") {
          count(answers, r.code);
          assert.ok(r.message.length > 20, "the refusal says which limit");
        } else count(answers, "ok");
      }
    }));
    const rss1 = await rssMiB(server.proc.pid);
    console.log(`     200 create_tournament in ${Date.now() - t0} ms: ${JSON.stringify(answers)}; RSS ${rss0.toFixed(1)} -> ${rss1.toFixed(1)} MiB`);
    assert.ok((answers.ok || 0) <= 40, `at most 10 open per address: ${answers.ok} created`);
    assert.ok((answers.ok || 0) >= 12, "each account may create a few");
    // A client that asks for the list with no members gets one page, with the total.
    const list = await accounts[0].ok({ type: "list_tournaments" });
    console.log(`     list_tournaments: ${list.tournaments.length} listed of total ${list.total}, ${JSON.stringify(list).length} bytes`);
    assert.equal(list.total, answers.ok);
    assert.ok(list.tournaments.length <= 50);
    const page = await accounts[0].ok({ type: "list_tournaments", status: "open", offset: 10, count: 5 });
    assert.equal(page.offset, 10);
    assert.equal(page.tournaments.length, 5);
    assert.deepEqual(page.tournaments.map((t) => t.tournament), list.tournaments.slice(10, 15).map((t) => t.tournament));
    const http = await (await fetch(`${server.url}/api/tournaments?count=3&offset=1`)).json();
    assert.equal(http.total, answers.ok);
    assert.deepEqual(http.tournaments.map((t) => t.tournament), list.tournaments.slice(1, 4).map((t) => t.tournament));
  } finally {
    for (const c of clients) c.close();
    await server.stop();
  }
});

test("tournaments: an open tournament nobody starts expires, and its entrants hear it", async () => {
  const server = await startServer(["--tournament-expire-s", "1"]);
  const clients = [];
  try {
    const org = await account(server, "Org", "127.0.0.2");
    const ent = await account(server, "Ent", "127.0.0.3");
    clients.push(org, ent);
    const { tournament } = await org.ok({ type: "create_tournament", name: "Never started", format: "round_robin", variant: "square", k: 3, max_players: 4 });
    await ent.ok({ type: "join_tournament", tournament });
    const t0 = Date.now();
    const ev = await ent.next((m) => m.type === "tournament_event" && m.event === "expired", "tournament_event expired", 5000);
    console.log(`     expired after ${Date.now() - t0} ms (expiry 1 s)`);
    assert.equal(ev.tournament, tournament);
    const r = await ent.request({ type: "get_tournament", tournament });
    assert.equal(r.code, "no_such_tournament");
    assert.equal((await org.ok({ type: "list_tournaments" })).total, 0);
  } finally {
    for (const c of clients) c.close();
    await server.stop();
  }
});

test("invites: a wrong invite gets the answer of a room that does not exist", async () => {
  const server = await startServer([]);
  const clients = [];
  try {
    const ann = await player(server, "Ann", "127.0.0.2");
    const eve = await player(server, "Eve", "127.0.0.3");
    clients.push(ann, eve);
    const priv = await ann.ok({ type: "create_room", k: 3, private: true });
    const none = await eve.request({ type: "join", room: "rdoesnotexist" });
    const wrong = await eve.request({ type: "join", room: priv.room, invite: "WRONGwrongWRONG" });
    const bare = await eve.request({ type: "spectate", room: priv.room });
    const chat = await eve.request({ type: "chat", room: priv.room, text: "hello?" });
    const strip = ({ id, ...rest }) => rest;
    console.log(`     no such room: ${JSON.stringify(strip(none))}\n     wrong invite: ${JSON.stringify(strip(wrong))}`);
    for (const r of [wrong, bare, chat]) assert.deepEqual(strip(r), strip(none), "a private room is no room to a stranger");
    await eve.ok({ type: "join", room: priv.room, invite: priv.invite });
  } finally {
    for (const c of clients) c.close();
    await server.stop();
  }
});

test("chat: a line feed (a forged line) or a bidirectional override is refused", async () => {
  const server = await startServer([]);
  const clients = [];
  try {
    const ann = await player(server, "Ann", "127.0.0.2");
    const bob = await player(server, "Bob", "127.0.0.3");
    clients.push(ann, bob);
    const { room } = await ann.ok({ type: "create_room", k: 3 });
    await bob.ok({ type: "join", room });
    for (const text of ["gg\nAlice: I resign", "gg\u2028Alice: I resign", "gg\u0085x", "\u202eniaga yalp"]) {
      const r = await bob.request({ type: "chat", room, text });
      console.log(`     chat ${JSON.stringify(text)}: ${r.type} ${r.code || ""} ${r.field || ""}`);
      assert.equal(r.code, "bad_message");
      assert.equal(r.field, "text");
    }
    await bob.ok({ type: "chat", room, text: "gg, well played" });
    const m = await ann.next("chat_message");
    assert.equal(m.text, "gg, well played", "the refused texts reached nobody");
  } finally {
    for (const c of clients) c.close();
    await server.stop();
  }
});

test("ids: room ids and invite codes are long random strings", async () => {
  const server = await startServer([]);
  const clients = [];
  try {
    const ann = await player(server, "Ann", "127.0.0.2");
    clients.push(ann);
    const ids = new Set();
    for (let i = 0; i < 5; i++) {
      const r = await ann.ok({ type: "create_room", k: 3, private: true });
      console.log(`     room ${r.room}, invite ${r.invite}`);
      assert.match(r.room, /^r[0-9a-z]{16}$/, "82 bits");
      assert.match(r.invite, /^[A-Za-z2-9]{22}$/, "128 bits");
      ids.add(r.room);
      await ann.ok({ type: "leave", room: r.room });
    }
    assert.equal(ids.size, 5);
  } finally {
    for (const c of clients) c.close();
    await server.stop();
  }
});

run();
