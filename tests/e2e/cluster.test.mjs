// cluster.test.mjs: the browser client on several nodes. Two nodes on PostgreSQL and
// Redis behind HAProxy (tests/integration/clusterlib.mjs); pages opened under a node's
// prefix (/n/NODE/) start on that node. A room's address on the wrong node, and a quick
// match made on the other node, are answered with `moved`: the page follows it (another
// WebSocket through the balancer's /n/NODE/ws) and shows the room.
import { Client } from "../integration/lib.mjs";
import { startBalancer, startCluster } from "../integration/clusterlib.mjs";
import { assert, launch, run, shot, test, tid } from "./lib.mjs";

async function page(browser, url, label) {
  const context = await browser.newContext({ viewport: { width: 900, height: 900 } });
  const p = await context.newPage();
  p.setDefaultTimeout(15000);
  p.on("pageerror", (e) => console.log(`[${label}] page error: ${e.message}`));
  await p.goto(url);
  return p;
}

/** Fills the name and connects; waits for the lobby's "me" unless the page goes to a
 * room at once (a room's address). */
async function enterAs(p, name, { lobby = true } = {}) {
  await tid(p, "name").fill(name);
  await tid(p, "connect").click();
  if (lobby) await tid(p, "me").filter({ hasText: name }).waitFor();
}

test("a room's address and a quick match on the other node: the page follows moved", async () => {
  const cl = await startCluster(2);
  const lb = await startBalancer(cl);
  const browser = await launch();
  try {
    // Ann plays on n1 (a protocol client), in a room waiting for a second player
    const ann = await Client.connect(`${lb.url.replace("http", "ws")}/n/n1/ws`, "Ann");
    await ann.ok({ type: "hello", protocol: 1, name: "Ann" });
    const { room } = await ann.ok({ type: "create_room", k: 3, name: "On n1" });

    // Bob's page is n2's (a link under /n/n2/) and opens the room's address: n2 answers
    // moved, the page goes to n1 and watches the room there
    const bob = await page(browser, `${lb.url}/n/n2/#/room/${room}`, "Bob");
    await enterAs(bob, "Bob", { lobby: false });
    await tid(bob, "game").waitFor();
    const shown = await bob.locator("[data-testid=game]").getAttribute("data-room");
    assert(shown === room, `Bob's page shows the room (${shown})`);
    await tid(bob, "game").getByText("Ann").first().waitFor();
    await shot(bob, "cluster-moved-room");

    // Cy's page is n2's too; Dee (n1) joins the same queue after Cy: the room is made on
    // n1 and Cy's page follows moved (match) there
    const cy = await page(browser, `${lb.url}/n/n2/`, "Cy");
    await enterAs(cy, "Cy");
    await tid(cy, "q-k").fill("5");
    await tid(cy, "q-bot").fill("0");
    await tid(cy, "quick").click();
    await tid(cy, "quick-status").filter({ hasText: /./ }).waitFor();
    const dee = await Client.connect(`${lb.url.replace("http", "ws")}/n/n1/ws`, "Dee");
    await dee.ok({ type: "hello", protocol: 1, name: "Dee" });
    await new Promise((r) => setTimeout(r, 300)); // Cy's ticket is in the pool
    await dee.ok({ type: "queue_join", variant: "square", k: 5 });
    const found = await dee.next("match_found");
    await tid(cy, "game").waitFor();
    const cyRoom = await cy.locator("[data-testid=game]").getAttribute("data-room");
    assert(cyRoom === found.room, `Cy's page shows the match's room (${cyRoom} / ${found.room})`);
    await tid(cy, "game").getByText("Dee").first().waitFor();
    await shot(cy, "cluster-moved-match");
  } finally {
    await browser.close().catch(() => {});
    await lb.stop();
    await cl.stop();
  }
});

await run();
