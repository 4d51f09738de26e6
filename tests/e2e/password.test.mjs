// password.test.mjs: an account's password in the browser (issue 30: "login from any
// device"). Ann claims her name on a desktop and sets a password; on a phone (another
// browser context: no token, no resume token) she taps "I have an account" on the first
// screen, gets the lobby's log-in form, is refused a wrong password with a plain
// sentence, logs in with the right one and is the account (a reload keeps it), and is not
// dropped into the room of her finished match whose opponent left; she
// changes the password there (the current one asked for), and the old one no longer
// logs in on a third device.
// Run:
//   node tests/e2e/password.test.mjs --server build/server/thue-server
import assert from "node:assert/strict";
import { test, run, newPage, shot, tid, withWorld, account } from "./lib.mjs";
import { player } from "../integration/lib.mjs";
import { createGameRoom } from "./gameslib.mjs";

// Cheap hashes (1 pass over 8 MiB), as the integration tests' (passwords.test.mjs): the
// page's flow is under test, not Argon2's cost. With the server's default costs (2
// passes over 64 MiB) a hash on the pool's workers (nice 10) took seconds on a busy
// machine, and the first one outlasted Playwright's 10 s wait.
const CHEAP = ["--password-ops", "1", "--password-mem-mib", "8"];
const FIRST = "correct horse battery";
const SECOND = "staple horse battery";

/** A fresh device at phone size: "I have an account", then the log-in form. */
async function logIn(browser, server, name, password) {
  const page = await newPage(browser, server, `device-${password}`);
  await page.setViewportSize({ width: 390, height: 844 });
  await tid(page, "have-account").click();
  await tid(page, "pw-login-form").waitFor();
  await tid(page, "pw-name").fill(name);
  await tid(page, "pw-password").fill(password);
  await tid(page, "pw-login").click();
  return page;
}

test("a password set on one device logs in on another; a wrong one is refused plainly; a change retires the old one", () => withWorld(async (browser, server) => {
  const ann = await account(browser, server, "Ann", { noReload: false });
  assert.match(await tid(ann, "account-box").textContent(), /set a password below/);
  assert.equal(await tid(ann, "pw-login-form").isHidden(), true, "an account is not offered a log-in");
  await tid(ann, "pw-set-open").click();
  await tid(ann, "pw-new").fill("short");
  await tid(ann, "pw-set-submit").click();
  await tid(ann, "pw-set-status").filter({ hasText: "8 or more characters" }).waitFor();
  await tid(ann, "pw-new").fill(FIRST);
  await tid(ann, "pw-set-submit").click();
  await tid(ann, "pw-set-status").filter({ hasText: "Password set: log in as Ann" }).waitFor();
  await shot(ann, "password-set-desktop");

  // An old room: Ann won a Nim match there and Bob left it (his seat is free now).
  const room = await createGameRoom(ann, "nim", { heaps: "1 2" });
  const bob = await player(server, "Bob");
  await bob.ok({ type: "join", room });
  await tid(ann, "ready").click();
  await bob.ok({ type: "ready", room });
  await bob.ok({ type: "resign", room });
  await bob.ok({ type: "leave", room });
  await tid(ann, "result").waitFor();
  await bob.close();

  // Another device: a wrong password first, then the right one.
  const phone = await logIn(browser, server, "Ann", "not the password");
  await tid(phone, "pw-login-error").filter({ hasText: "Wrong name or password." }).waitFor();
  assert.equal(await tid(phone, "me-kind").textContent(), "(guest)", "still a guest");
  await shot(phone, "password-wrong-phone");
  await tid(phone, "pw-password").fill(FIRST);
  await tid(phone, "pw-login").click();
  await tid(phone, "me-kind").filter({ hasText: "account" }).waitFor();
  assert.equal(await tid(phone, "me").textContent(), "Ann");
  assert.equal(await tid(phone, "pw-login-form").isHidden(), true);
  assert.equal(await tid(phone, "pw-login-error").textContent(), "");
  // The session's old room came with it but stays off screen: only a running match is
  // taken on screen after a log-in (the list's round trip comes after the room's state).
  await tid(phone, "refresh").click();
  await tid(phone, "rooms").locator("tr").first().waitFor();
  assert.equal(await tid(phone, "game").isHidden(), true, "not dropped into the old room");
  assert.equal(new URL(phone.url()).hash, "#/lobby");
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `the lobby fits the phone (${overflow} px over)`);
  await shot(phone, "password-in-phone");
  // A reload keeps the account (the page kept the login's tokens).
  await phone.reload();
  await tid(phone, "me-kind").filter({ hasText: "account" }).waitFor();
  assert.equal(await tid(phone, "me").textContent(), "Ann");

  // A change needs the current password.
  await tid(phone, "pw-set-open").click();
  await tid(phone, "pw-new").fill(SECOND);
  await tid(phone, "pw-set-submit").click();
  await tid(phone, "pw-set-status").filter({ hasText: "enter it as the current one" }).waitFor();
  await tid(phone, "pw-old").fill("wrong wrong wrong");
  await tid(phone, "pw-set-submit").click();
  await tid(phone, "pw-set-status").filter({ hasText: "The current password is wrong." }).waitFor();
  await tid(phone, "pw-old").fill(FIRST);
  await tid(phone, "pw-set-submit").click();
  await tid(phone, "pw-set-status").filter({ hasText: "Password set" }).waitFor();

  // A third device: the old password is refused, the new one logs in.
  const third = await logIn(browser, server, "Ann", FIRST);
  await tid(third, "pw-login-error").filter({ hasText: "Wrong name or password." }).waitFor();
  await tid(third, "pw-password").fill(SECOND);
  await tid(third, "pw-login").click();
  await tid(third, "me-kind").filter({ hasText: "account" }).waitFor();
}, CHEAP));

await run();
