// partition.mjs: a TCP proxy the test controls, to cut one node off from Redis or from
// PostgreSQL while the others stay connected (issue 31, "Partitions, not only kills").
// Loopback only, written with Node's `net`:
//
//   const p = await tcpProxy("127.0.0.1", 6379);  // listens on 127.0.0.1:p.port
//   p.cut();    // a partition: nothing is forwarded either way, nothing is refused
//   p.heal();   // everything flows again; connections made during the cut go upstream
//   p.reset();  // a refusal instead: every connection reset, new ones reset at once
//   await p.close();
//
// A cut is a black hole, not an error: both sockets of every connection stop being read
// (socket.pause(): the kernel's buffers fill, TCP's flow control stops the sender), so a
// client sees its requests vanish unanswered, as behind a dead link, and its own
// timeouts decide what happens. A connection accepted during a cut is held, paused, with
// no upstream connection until heal(); one its client closed meanwhile is noticed then
// (nothing reads it before), goes upstream and closes at once.
//
// Bounded: nothing is buffered beyond a socket's own high-water mark (a write that
// returns false pauses the other side until 'drain'), at most `maxConnections`
// connections are kept (more are reset), and the only timer, an upstream connect's
// deadline, is cleared when it connects, fails or the proxy closes.
import net from "node:net";

const CONNECT_MS = 5000;

/**
 * A proxy from 127.0.0.1:<ephemeral> to upstreamHost:upstreamPort. Resolves once it
 * listens: {port, cut(), heal(), reset(), close(), state, stats()}.
 */
export async function tcpProxy(upstreamHost, upstreamPort, { maxConnections = 256, name = "proxy" } = {}) {
  let state = "open"; // "open" | "cut" | "reset" | "closed"
  const conns = new Set(); // {client, upstream (null until connected), blocked: Set, timer}
  const stats = { accepted: 0, refused: 0, held: 0, bytesUp: 0, bytesDown: 0, cuts: 0 };

  const kill = (sock, hard) => {
    if (!sock || sock.destroyed) return;
    if (hard && typeof sock.resetAndDestroy === "function" && !sock.connecting) sock.resetAndDestroy();
    else sock.destroy();
  };

  const drop = (c, hard = false) => {
    if (!conns.delete(c)) return;
    clearTimeout(c.timer);
    c.timer = null;
    kill(c.client, hard);
    kill(c.upstream, hard);
  };

  // Forwards src's data to dst: a write the kernel does not take at once pauses src until
  // dst drains (no unbounded buffering), and nothing is resumed while the link is cut.
  const forward = (c, src, dst, count) => {
    src.on("data", (chunk) => {
      stats[count] += chunk.length;
      if (!dst.write(chunk)) {
        c.blocked.add(src);
        src.pause();
        dst.once("drain", () => {
          c.blocked.delete(src);
          if (state === "open") src.resume();
        });
      }
    });
  };

  const flowing = (c) => {
    for (const s of [c.client, c.upstream]) if (s && !c.blocked.has(s) && !s.destroyed) s.resume();
  };

  const stopFlow = (c) => {
    for (const s of [c.client, c.upstream]) if (s && !s.destroyed) s.pause();
  };

  // The upstream connection of c (made now, or at heal() for one accepted during a cut).
  const connectUpstream = (c) => {
    const up = net.connect({ host: upstreamHost, port: upstreamPort });
    c.upstream = up;
    up.pause();
    up.setNoDelay(true);
    c.timer = setTimeout(() => drop(c, true), CONNECT_MS);
    up.once("connect", () => {
      clearTimeout(c.timer);
      c.timer = null;
      if (!conns.has(c)) return kill(up);
      forward(c, c.client, up, "bytesUp");
      forward(c, up, c.client, "bytesDown");
      if (state === "open") flowing(c);
    });
    up.on("error", () => drop(c, true));
    up.on("close", () => drop(c));
    up.on("end", () => {
      if (conns.has(c) && !c.client.destroyed) c.client.end();
    });
  };

  const server = net.createServer({ pauseOnConnect: true, allowHalfOpen: true }, (client) => {
    if (state !== "open" && state !== "cut") {
      stats.refused++;
      return kill(client, true);
    }
    if (conns.size >= maxConnections) {
      stats.refused++;
      return kill(client, true);
    }
    stats.accepted++;
    client.pause(); // (not flowing: the 'data' listener added later does not start it)
    client.setNoDelay(true);
    const c = { client, upstream: null, blocked: new Set(), timer: null };
    conns.add(c);
    client.on("error", () => drop(c, true));
    client.on("close", () => drop(c));
    client.on("end", () => {
      if (c.upstream && !c.upstream.destroyed) c.upstream.end();
      else if (!c.upstream) drop(c);
    });
    if (state === "cut") {
      stats.held++; // accepted, and held (paused) with no upstream until heal()
      return;
    }
    connectUpstream(c);
  });
  server.on("error", () => {});
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });

  const proxy = {
    name,
    port: server.address().port,
    get state() {
      return state;
    },
    /** How many connections it holds now, and what it did so far. */
    stats: () => ({ ...stats, connections: conns.size, pending: [...conns].filter((c) => !c.upstream).length }),
    /** A partition: every connection stops forwarding both ways; new ones are held. */
    cut() {
      if (state === "closed") return;
      state = "cut";
      stats.cuts++;
      for (const c of conns) stopFlow(c);
    },
    /** The link is back: held connections go upstream, paused ones flow again. */
    heal() {
      if (state === "closed") return;
      state = "open";
      for (const c of conns) {
        if (c.upstream === null) connectUpstream(c);
        else flowing(c);
      }
    },
    /** A refusal rather than a partition: every connection reset, new ones reset at once
     * (until heal()). */
    reset() {
      if (state === "closed") return;
      state = "reset";
      for (const c of [...conns]) drop(c, true);
    },
    /** Stops listening and drops every connection (and its timer). */
    async close() {
      if (state === "closed") return;
      state = "closed";
      for (const c of [...conns]) drop(c, true);
      await new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
