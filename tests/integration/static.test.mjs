// static.test.mjs: the web root's files on the wire (server/net/static.c): gzip when the
// client takes it (the same bytes once inflated), an ETag from the content that a 304
// answers, a changed file seen at once (a new tag), a big file streamed as before, HEAD
// with the same headers. Each test has its own copy of the web root in a temp directory.
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { run, startServer, test } from "./lib.mjs";

const WEB = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..", "..", "clients", "web");

/** GET (or method) path with headers: {status, headers, body (Buffer, as sent)}. */
function request(server, p, headers = {}, method = "GET") {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: server.port, path: p, method, headers }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

function copyOfWeb() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thue-web-"));
  fs.cpSync(WEB, dir, { recursive: true }); // with its folders (i18n/<lang>/...)
  return dir;
}

/** What the server sends of file f (its bytes raw): scripts and style sheets without the
 * comments that stand on lines of their own, each such line left empty (static.c's
 * strip_comments); anything else as it is. The naive reference: a comment line is one
 * whose first characters are // (scripts), or a line of a block that begins a line with
 * slash-star and ends one with star-slash; a script's template literals never span lines
 * here (checked). */
function served(f, raw) {
  const script = /\.m?js$/.test(f);
  if (!script && !f.endsWith(".css")) return raw;
  const lines = raw.toString("utf8").split("\n");
  if (script) for (const l of lines) assert.ok((l.match(/`/g) || []).length % 2 === 0, `${f}: a template literal spans lines: ${l}`);
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i].trim();
    if (script && t.startsWith("//")) { out.push(""); continue; }
    if (t.startsWith("/*")) {
      let j = i;
      while (j < lines.length && !lines[j].slice(j === i ? lines[j].indexOf("/*") + 2 : 0).includes("*/")) j++;
      const last = j < lines.length ? lines[j] : "";
      const from = j === i ? lines[j].indexOf("/*") + 2 : 0;
      if (j < lines.length && last.slice(from).indexOf("*/") + from + 2 === last.trimEnd().length) {
        for (; i <= j; i++) out.push("");
        i--;
        continue;
      }
    }
    out.push(lines[i]);
  }
  return Buffer.from(out.join("\n"), "utf8");
}

test("every script the server sends still parses, with every line where the file has it", async () => {
  const server = await startServer();
  try {
    const { execFileSync } = await import("node:child_process");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thue-served-"));
    try {
      for (const f of fs.readdirSync(WEB).filter((x) => x.endsWith(".js"))) {
        const got = await request(server, `/${f}`);
        assert.equal(got.status, 200, f);
        const raw = fs.readFileSync(path.join(WEB, f));
        assert.deepEqual(got.body, served(f, raw), `${f}: as the reference leaves it`);
        assert.equal(got.body.toString().split("\n").length, raw.toString().split("\n").length, `${f}: the same lines`);
        assert.ok(got.body.length < raw.length, `${f}: smaller`);
        const copy = path.join(dir, f.replace(/\.js$/, ".mjs"));
        fs.writeFileSync(copy, got.body);
        execFileSync(process.execPath, ["--check", copy]); // throws on a syntax error
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    await server.stop();
  }
});

test("gzip when asked for, the same bytes; an ETag that a 304 answers; HEAD alike", async () => {
  const dir = copyOfWeb();
  const server = await startServer(["--web-root", dir]);
  try {
    for (const f of ["app.js", "index.html", "style.css", "home.js"]) {
      const raw = fs.readFileSync(path.join(dir, f));
      const gz = await request(server, `/${f === "index.html" ? "" : f}`, { "accept-encoding": "gzip, deflate, br" });
      assert.equal(gz.status, 200);
      assert.equal(gz.headers["content-encoding"], "gzip", f);
      assert.equal(gz.headers.vary, "accept-encoding");
      assert.equal(gz.headers["cache-control"], "no-cache");
      assert.ok(gz.body.length < raw.length / 2, `${f}: ${gz.body.length} of ${raw.length} bytes`);
      assert.deepEqual(zlib.gunzipSync(gz.body), served(f, raw), `${f} inflates to the file (its comment lines left out)`);
      const plain = await request(server, `/${f === "index.html" ? "" : f}`);
      assert.equal(plain.headers["content-encoding"], undefined);
      assert.deepEqual(plain.body, served(f, raw));
      assert.equal(plain.headers.etag, gz.headers.etag, "one tag for the file, whatever its encoding");
      const refused = await request(server, `/${f}`, { "accept-encoding": "gzip;q=0, identity" });
      assert.equal(refused.headers["content-encoding"], undefined, "q=0 refuses gzip");
      const again = await request(server, `/${f === "index.html" ? "" : f}`, { "if-none-match": gz.headers.etag, "accept-encoding": "gzip" });
      assert.equal(again.status, 304);
      assert.equal(again.body.length, 0);
      assert.equal(again.headers.etag, gz.headers.etag);
      const head = await request(server, `/${f === "index.html" ? "" : f}`, { "accept-encoding": "gzip" }, "HEAD");
      assert.equal(head.status, 200);
      assert.equal(head.headers["content-length"], String(gz.body.length));
      assert.equal(head.body.length, 0);
      // Another tag, or a list with ours, or *.
      assert.equal((await request(server, `/${f}`, { "if-none-match": "\"0000000000000000\"" })).status, 200);
      assert.equal((await request(server, `/${f}`, { "if-none-match": `"x", ${gz.headers.etag}` })).status, 304);
      assert.equal((await request(server, `/${f}`, { "if-none-match": "*" })).status, 304);
    }
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a changed file is served new at once, with a new tag; a big file streams as before", async () => {
  const dir = copyOfWeb();
  const server = await startServer(["--web-root", dir]);
  try {
    const first = await request(server, "/rules.js", { "accept-encoding": "gzip" });
    const text = fs.readFileSync(path.join(dir, "rules.js"), "utf8") + "\nexport const EDITED = 1; // an edit\n";
    fs.writeFileSync(path.join(dir, "rules.js"), text);
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(path.join(dir, "rules.js"), later, later); // a new mtime, whatever the clock's grain
    const stale = await request(server, "/rules.js", { "if-none-match": first.headers.etag, "accept-encoding": "gzip" });
    assert.equal(stale.status, 200, "the old tag no longer matches");
    assert.notEqual(stale.headers.etag, first.headers.etag);
    assert.deepEqual(zlib.gunzipSync(stale.body), served("rules.js", Buffer.from(text)));
    // 600 KiB (above what is kept in memory): streamed whole, uncompressed, no tag.
    const big = Buffer.alloc(600 * 1024, "thue ");
    fs.writeFileSync(path.join(dir, "big.txt"), big);
    const got = await request(server, "/big.txt", { "accept-encoding": "gzip" });
    assert.equal(got.status, 200);
    assert.equal(got.headers["content-encoding"], undefined);
    assert.equal(got.body.length, big.length);
    assert.deepEqual(got.body, big);
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

await run();
