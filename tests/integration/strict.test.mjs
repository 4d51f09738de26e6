// strict.test.mjs: the HTTP side held to the RFCs, on raw sockets: request smuggling forms
// (duplicate, list or malformed Content-Length, whitespace before a colon, Content-Length
// with Transfer-Encoding) get 400 and a closed connection, with the smuggled request never
// answered; every method but GET and HEAD gets 405 JSON with Allow; every response carries
// the security headers; dotfiles are never served; an unmasked client frame gets close
// 1002 while masked frames, split headers, pings and closes work; /api is rate-limited per
// address (an IPv6 client by its /64), and so are connections.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Client, WAIT_MS, get, run, startServer, test, withTimeout } from "./lib.mjs";

/** Sends data on a fresh connection and reads until the server closes it (or ms pass).
 * Resolves to {text, closed}. */
function exchange(server, data, { ms = 3000, localAddress } = {}) {
  return new Promise((resolve) => {
    const s = net.connect({ port: server.port, host: "127.0.0.1", localAddress });
    let text = "";
    let done = false;
    const finish = (closed) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      s.destroy();
      resolve({ text, closed });
    };
    const timer = setTimeout(() => finish(false), ms);
    s.on("connect", () => s.write(data));
    s.on("data", (d) => (text += d.toString("latin1")));
    s.on("close", () => finish(true));
    s.on("error", () => {});
  });
}

/** The responses in a stream: [{status, headers (lower-case names), body}]. */
function responses(text) {
  const out = [];
  let rest = text;
  while (rest.startsWith("HTTP/1.")) {
    const end = rest.indexOf("\r\n\r\n");
    if (end < 0) break;
    const lines = rest.slice(0, end).split("\r\n");
    const status = Number(lines[0].split(" ")[1]);
    const headers = {};
    for (const l of lines.slice(1)) {
      const i = l.indexOf(":");
      headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    const len = Number(headers["content-length"] || 0);
    out.push({ status, headers, body: rest.slice(end + 4, end + 4 + len) });
    rest = rest.slice(end + 4 + len);
  }
  return out;
}

function checkSecurityHeaders(h, what) {
  assert.match(h["content-security-policy"] || "", /frame-ancestors 'none'/, `${what}: CSP`);
  assert.match(h["content-security-policy"] || "", /default-src 'self'/, `${what}: CSP`);
  assert.equal(h["x-frame-options"], "DENY", `${what}: X-Frame-Options`);
  assert.equal(h["x-content-type-options"], "nosniff", `${what}: X-Content-Type-Options`);
  assert.ok(h["referrer-policy"], `${what}: Referrer-Policy`);
}

const SMUGGLED = "GET /api/rooms HTTP/1.1\r\nHost: x\r\n\r\n";

test("smuggling forms get 400, the connection closes, and the smuggled request is never answered", async () => {
  const server = await startServer();
  try {
    const forms = {
      "a list": "Content-Length: 0, 34\r\n",
      "a duplicate": "Content-Length: 0\r\nContent-Length: 34\r\n",
      "two equal": "Content-Length: 34\r\nContent-Length: 34\r\n",
      "whitespace before the colon": "Content-Length : 34\r\n",
      "a tab before the colon": "Content-Length\t: 34\r\n",
      "a negative value": "Content-Length: -34\r\n",
      "a sign": "Content-Length: +34\r\n",
      "hexadecimal": "Content-Length: 0x22\r\n",
      "with Transfer-Encoding": "Content-Length: 34\r\nTransfer-Encoding: chunked\r\n",
      "Transfer-Encoding first": "Transfer-Encoding: chunked\r\nContent-Length: 34\r\n",
      "line folding": "X-A: 1\r\n Content-Length: 34\r\n",
      "a bare CR": "X-A: 1\rContent-Length: 34\r\n",
    };
    for (const [name, header] of Object.entries(forms)) {
      const r = await exchange(server, `GET /healthz HTTP/1.1\r\nHost: x\r\n${header}\r\n${SMUGGLED}`);
      const rs = responses(r.text);
      assert.equal(rs.length, 1, `${name}: exactly one response, got ${JSON.stringify(r.text.slice(0, 300))}`);
      assert.equal(rs[0].status, 400, `${name}: 400`);
      assert.equal(JSON.parse(rs[0].body).error.code, "bad_request", name);
      assert.ok(r.closed, `${name}: the connection is closed`);
      checkSecurityHeaders(rs[0].headers, name);
    }
    // The same head without a trick: both requests answered on one connection.
    const r = await exchange(server, `GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n${SMUGGLED}`, { ms: 800 });
    assert.deepEqual(responses(r.text).map((x) => x.status), [200, 200]);
    const m = (await get(server, "/metrics")).body;
    assert.match(m, new RegExp(`^thue_http_refused_requests_total ${Object.keys(forms).length}$`, "m"));
    console.log(`     ${Object.keys(forms).length} smuggling forms refused with 400`);
  } finally {
    await server.stop();
  }
});

test("every method but GET and HEAD gets 405 JSON with Allow, then close", async () => {
  const server = await startServer();
  try {
    const requests = [
      "TRACE / HTTP/1.1",
      "OPTIONS * HTTP/1.1",
      "OPTIONS /healthz HTTP/1.1",
      "POST /healthz HTTP/1.1",
      "PUT /x HTTP/1.1",
      "DELETE /api/rooms HTTP/1.1",
      "PATCH / HTTP/1.1",
      "PROPFIND / HTTP/1.1",
      "MKCOL /dav HTTP/1.1",
      "CONNECT example.com:443 HTTP/1.1",
      "BREW /pot HTTP/1.1",
    ];
    for (const line of requests) {
      const r = await exchange(server, `${line}\r\nHost: x\r\n\r\n${SMUGGLED}`);
      const rs = responses(r.text);
      assert.equal(rs.length, 1, `${line}: one response: ${JSON.stringify(r.text.slice(0, 200))}`);
      assert.equal(rs[0].status, 405, line);
      assert.match(rs[0].headers["content-type"], /application\/json/, line);
      assert.equal(JSON.parse(rs[0].body).error.code, "method_not_allowed", line);
      assert.equal(rs[0].headers.allow, "GET, HEAD", `${line}: Allow`);
      assert.ok(r.closed, `${line}: closed`);
    }
    // pipelined behind a good request: the good one is answered, then the refusal
    let r = await exchange(server, `GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nTRACE / HTTP/1.1\r\n\r\n${SMUGGLED}`);
    assert.deepEqual(responses(r.text).map((x) => x.status), [200, 405]);
    assert.ok(r.closed);
    // a refused WebSocket upgrade on a kept-alive connection: answered, then closed
    r = await exchange(server, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nUpgrade: websocket\r\n" +
      "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
    assert.deepEqual(responses(r.text).map((x) => x.status), [200, 404]);
    assert.ok(r.closed, "closed after the refused upgrade");
    // fetch's view of a POST with a body
    const p = await get(server, "/api/rooms", { method: "POST", body: "x=1" });
    assert.equal(p.status, 405);
    assert.equal(p.headers.get("allow"), "GET, HEAD");
    // other malformed request lines
    for (const [line, status] of [["GET * HTTP/1.1", 400], ["GET http://x/ HTTP/1.1", 400], ["GET /%zz HTTP/1.1", 400], ["GET / HTTP/2.0", 505]]) {
      const r = await exchange(server, `${line}\r\nHost: x\r\n\r\n`);
      const rs = responses(r.text);
      assert.equal(rs[0].status, status, line);
      assert.ok(JSON.parse(rs[0].body).error, line);
    }
  } finally {
    await server.stop();
  }
});

test("security headers on every kind of response; dotfiles are never served", async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "thue-web-"));
  fs.writeFileSync(path.join(root, "index.html"), "<!doctype html><html><body>hi</body></html>");
  fs.writeFileSync(path.join(root, "app.js"), "console.log(1);\n");
  fs.writeFileSync(path.join(root, ".env"), "SECRET=1\n");
  fs.mkdirSync(path.join(root, ".git"));
  fs.writeFileSync(path.join(root, ".git", "config"), "[core]\n");
  fs.mkdirSync(path.join(root, "sub"));
  fs.writeFileSync(path.join(root, "sub", ".hidden"), "no\n");
  fs.symlinkSync(path.join(root, ".env"), path.join(root, "env.txt"));
  const server = await startServer(["--web-root", root]);
  try {
    for (const p of ["/.env", "/.git/config", "/.git/", "/sub/.hidden", "/%2eenv", "/sub/%2Ehidden", "/env.txt", "/./.env"]) {
      const r = await get(server, p);
      assert.equal(r.status, 404, `${p} is not served`);
      assert.ok(!r.body.includes("SECRET") && !r.body.includes("[core]"), p);
      checkSecurityHeaders(Object.fromEntries(r.headers), `404 ${p}`);
    }
    const kinds = [
      ["/", "GET", 200],
      ["/app.js", "GET", 200],
      ["/app.js", "HEAD", 200],
      ["/healthz", "GET", 200],
      ["/metrics", "GET", 200],
      ["/api/rooms", "GET", 200],
      ["/api/rooms?k=x", "GET", 400],
      ["/nothing", "GET", 404],
      ["/healthz", "DELETE", 405],
    ];
    for (const [p, method, status] of kinds) {
      const r = await get(server, p, { method });
      assert.equal(r.status, status, `${method} ${p}`);
      checkSecurityHeaders(Object.fromEntries(r.headers), `${method} ${p}`);
    }
    const r = await get(server, "/app.js");
    assert.equal(r.body, "console.log(1);\n");
  } finally {
    await server.stop();
    fs.rmSync(root, { recursive: true });
  }
});

// ---- WebSocket frames on a raw socket ---------------------------------------------------

/** A WebSocket client that writes its own frames: masked or not, split as asked. */
class RawWs {
  static async open(server) {
    const c = new RawWs();
    c.sock = net.connect(server.port, "127.0.0.1");
    c.buf = Buffer.alloc(0);
    c.waiters = [];
    c.closed = new Promise((resolve) => c.sock.on("close", resolve));
    c.sock.on("error", () => {});
    c.sock.on("data", (d) => {
      c.buf = Buffer.concat([c.buf, d]);
      c.pump();
    });
    await new Promise((resolve) => c.sock.on("connect", resolve));
    const key = crypto.randomBytes(16).toString("base64");
    c.sock.write(`GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: thue.v1\r\n\r\n`);
    const head = await withTimeout(new Promise((resolve) => (c.headWaiter = resolve), c.pump()), WAIT_MS, "the handshake");
    assert.match(head, /^HTTP\/1\.1 101/);
    return c;
  }

  pump() {
    if (this.headWaiter) {
      const end = this.buf.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = this.buf.subarray(0, end).toString();
      this.buf = this.buf.subarray(end + 4);
      const w = this.headWaiter;
      this.headWaiter = null;
      w(head);
    }
    while (this.waiters.length && this.buf.length >= 2) {
      let len = this.buf[1] & 0x7f;
      let off = 2;
      if (len === 126) {
        if (this.buf.length < 4) return;
        len = this.buf.readUInt16BE(2);
        off = 4;
      } else if (len === 127) {
        if (this.buf.length < 10) return;
        len = Number(this.buf.readBigUInt64BE(2));
        off = 10;
      }
      if (this.buf.length < off + len) return;
      const frame = { opcode: this.buf[0] & 0x0f, payload: this.buf.subarray(off, off + len) };
      this.buf = this.buf.subarray(off + len);
      this.waiters.shift()(frame);
    }
  }

  /** The next frame from the server. */
  frame(what = "a frame") {
    const p = new Promise((resolve) => this.waiters.push(resolve));
    this.pump();
    return withTimeout(p, WAIT_MS, what);
  }

  /** The bytes of a frame. */
  static bytes(opcode, payload, masked) {
    const data = Buffer.from(payload);
    const head = [0x80 | opcode];
    const m = masked ? 0x80 : 0;
    if (data.length < 126) head.push(m | data.length);
    else head.push(m | 126, data.length >> 8, data.length & 0xff);
    if (!masked) return Buffer.concat([Buffer.from(head), data]);
    const key = crypto.randomBytes(4);
    const body = Buffer.from(data.map((b, i) => b ^ key[i % 4]));
    return Buffer.concat([Buffer.from(head), key, body]);
  }

  send(opcode, payload, masked = true) {
    this.sock.write(RawWs.bytes(opcode, payload, masked));
  }

  /** Sends a frame a few bytes per write, with pauses between. */
  async sendSplit(opcode, payload) {
    const b = RawWs.bytes(opcode, payload, true);
    for (let i = 0; i < b.length; i += 3) {
      this.sock.write(b.subarray(i, i + 3));
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}

test("unmasked client frames get close 1002; masked ones, split headers, pings and closes work", async () => {
  const server = await startServer();
  try {
    const a = await RawWs.open(server);
    a.send(1, JSON.stringify({ type: "hello", protocol: 1, name: "Raw", id: 1 }));
    let f = await a.frame("the welcome");
    assert.equal(JSON.parse(f.payload).type, "welcome");
    // a frame whose header and payload arrive a few bytes at a time
    await a.sendSplit(1, JSON.stringify({ type: "ping", id: 2 }));
    f = await a.frame("the pong message");
    assert.equal(JSON.parse(f.payload).type, "pong");
    // a WebSocket ping
    a.send(9, "hey");
    f = await a.frame("a pong frame");
    assert.equal(f.opcode, 10);
    assert.equal(f.payload.toString(), "hey");
    // an unmasked text frame: close 1002, and the message is not processed
    a.send(1, JSON.stringify({ type: "ping", id: 3 }), false);
    f = await a.frame("the close frame");
    assert.equal(f.opcode, 8, `a close frame, not ${f.opcode} ${f.payload}`);
    assert.equal(f.payload.readUInt16BE(0), 1002);
    a.send(8, f.payload.subarray(0, 2)); // the client's answer, as RFC 6455 has it
    await withTimeout(a.closed, WAIT_MS, "the connection to close");
    // a masked close is answered with a close
    const b = await RawWs.open(server);
    const code = Buffer.alloc(2);
    code.writeUInt16BE(1000);
    b.send(8, code);
    f = await b.frame("the close echo");
    assert.equal(f.opcode, 8);
    await withTimeout(b.closed, WAIT_MS, "the connection to close");
    // an unmasked frame after good ones in the same write
    const c = await RawWs.open(server);
    c.sock.write(Buffer.concat([
      RawWs.bytes(1, JSON.stringify({ type: "hello", protocol: 1, name: "Raw2", id: 1 }), true),
      RawWs.bytes(1, JSON.stringify({ type: "ping", id: 2 }), false),
    ]));
    f = await c.frame("the welcome");
    assert.equal(JSON.parse(f.payload).type, "welcome");
    f = await c.frame("the close frame");
    assert.equal(f.opcode, 8);
    assert.equal(f.payload.readUInt16BE(0), 1002);
    c.send(8, f.payload.subarray(0, 2));
    await withTimeout(c.closed, WAIT_MS, "the connection to close");
    assert.match((await get(server, "/metrics")).body, /^thue_ws_unmasked_total 2$/m);
    // the server is fine
    const d = await Client.connect(server.ws, "d");
    assert.equal((await d.request({ type: "ping" })).type, "pong");
  } finally {
    await server.stop();
  }
});

test("/api is rate-limited per address (429 with Retry-After); probes and files are not", async () => {
  const server = await startServer(["--api-rate", "1", "--api-burst", "3", "--trusted-proxy", "127.0.0.3"]);
  try {
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await get(server, "/api/rooms")).status);
    assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
    const r = await get(server, "/api/ladder?variant=square&k=3");
    assert.equal(r.status, 429);
    assert.equal(r.json.error.code, "rate_limited");
    assert.ok(Number(r.headers.get("retry-after")) >= 1, "Retry-After in seconds");
    for (let i = 0; i < 10; i++) {
      assert.equal((await get(server, "/healthz")).status, 200);
      assert.equal((await get(server, "/metrics")).status, 200);
      assert.equal((await get(server, "/")).status, 200);
    }
    // another address has its own bucket
    const other = await exchange(server, "GET /api/rooms HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", { localAddress: "127.0.0.2" });
    assert.equal(responses(other.text)[0].status, 200);
    // through a trusted proxy: the client's address, an IPv6 client by its /64
    const via = async (xff) => {
      const x = await exchange(server, `GET /api/rooms HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: ${xff}\r\nConnection: close\r\n\r\n`, { localAddress: "127.0.0.3" });
      return responses(x.text)[0].status;
    };
    const one64 = [];
    for (const ip of ["2001:db8::1", "2001:db8::2", "2001:db8::ffff:3", "2001:db8::4"]) one64.push(await via(ip));
    assert.deepEqual(one64, [200, 200, 200, 429], "one /64, one bucket");
    assert.equal(await via("2001:db8:0:1::1"), 200, "the next /64 has its own");
    // and after a second, a token again
    await new Promise((res) => setTimeout(res, 1100));
    assert.equal((await get(server, "/api/rooms")).status, 200);
  } finally {
    await server.stop();
  }
});

test("connections count per address, an IPv6 client by its /64 (through a trusted proxy)", async () => {
  const xff = (v) => ({ headers: { "X-Forwarded-For": v } });
  const server = await startServer(["--max-connections-per-ip", "2", "--trusted-proxy", "127.0.0.1"]);
  try {
    await Client.connect(server.ws, "a", ["thue.v1"], xff("2001:db8::1"));
    await Client.connect(server.ws, "b", ["thue.v1"], xff("2001:db8::2"));
    await assert.rejects(Client.connect(server.ws, "c", ["thue.v1"], xff("2001:db8::3")), /HTTP 503/);
    const d = await Client.connect(server.ws, "d", ["thue.v1"], xff("2001:db8:0:1::1"));
    assert.equal((await d.request({ type: "ping" })).type, "pong");
  } finally {
    await server.stop();
  }
  // Without a proxy, HTTP connections count too: two held open, the third hears 503.
  const plain = await startServer(["--max-connections-per-ip", "2"]);
  try {
    const held = [];
    for (let i = 0; i < 2; i++) {
      const s = net.connect({ port: plain.port, host: "127.0.0.1", localAddress: "127.0.0.4" });
      s.on("error", () => {});
      await new Promise((r) => s.on("connect", r));
      held.push(s);
    }
    await new Promise((r) => setTimeout(r, 100));
    const r = await exchange(plain, "GET /api/rooms HTTP/1.1\r\nHost: x\r\n\r\n", { localAddress: "127.0.0.4" });
    const rs = responses(r.text);
    assert.ok(rs.length === 0 || rs[0].status === 503, `refused: ${r.text.slice(0, 100)}`);
    assert.ok(r.closed);
    // a probe on such a connection still gets its answer
    const h = await exchange(plain, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", { localAddress: "127.0.0.4" });
    assert.equal(responses(h.text)[0]?.status, 200, "a probe past the limit is answered");
    // another address is not affected
    assert.equal((await get(plain, "/healthz")).status, 200);
    for (const s of held) s.destroy();
  } finally {
    await plain.stop();
  }
});

await run();
