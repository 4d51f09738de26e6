// attack_db.test.mjs: one database file, one server. A second thue-server started on the
// file of a running one must refuse to start (exit 1, a sentence saying why) and change
// nothing; before, both ran and handed out the same account ids (claims failed with
// `internal`, ratings were lost). Once the first server is gone, even by kill -9, the
// file is free again.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import { SERVER, player, run, startServer, test } from "./lib.mjs";

/** Runs the server with args for at most ms: {code, stdout, stderr}; a server still running
 * then is killed and reported with code null. */
function runBounded(args, ms) {
  return new Promise((resolve) => {
    const proc = spawn(SERVER, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (d) => (stdout += d));
    proc.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => proc.kill("SIGKILL"), ms);
    proc.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test("a second server on the same database file exits 1 and changes nothing", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thue-dblock-"));
  const db = path.join(dir, "thue.db");
  const first = await startServer(["--db", db]);
  try {
    const ann = await player(first, "Ann");
    const acct = await ann.ok({ type: "claim_name", name: "Ann" });
    assert.equal(acct.type, "account");

    const second = await runBounded(["--port", "0", "--bind", "127.0.0.1", "--db", db, "--log-level", "warn"], 5000);
    console.log(`     second server: exit ${second.code ?? "none (still running after 5 s, killed)"}: ${second.stderr.trim().split("\n")[0] || second.stdout.trim()}`);
    assert.equal(second.code, 1, `the second server must exit 1, it said: ${second.stderr}`);
    assert.match(second.stderr, /is in use by another thue-server/);
    assert.match(second.stderr, new RegExp(db.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
    assert.equal(second.stdout.includes("listening"), false, "the second server must not listen");

    // The first server is untouched: a second account gets the next id and a token that
    // logs in.
    const bob = await player(first, "Bob");
    const b = await bob.ok({ type: "claim_name", name: "Bob" });
    assert.equal(b.type, "account");
    await ann.close();
    await bob.close();
  } finally {
    await first.stop("SIGKILL");
  }
  // kill -9 released the lock: the file opens again, with both accounts in it.
  const again = await startServer(["--db", db]);
  try {
    const carl = await player(again, "Carl");
    const c = await carl.ok({ type: "claim_name", name: "Carl" });
    assert.equal(c.type, "account");
    const dee = await player(again, "Dee");
    const taken = await dee.request({ type: "claim_name", name: "Bob" });
    assert.equal(taken.code, "name_taken", "Bob's account, claimed before the kill, is there");
    await carl.close();
    await dee.close();
  } finally {
    await again.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

await run();
