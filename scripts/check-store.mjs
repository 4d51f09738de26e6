#!/usr/bin/env node
// check-store.mjs: reads a thue-server database (PostgreSQL through `psql`, or a SQLite
// file through `sqlite3`) and checks the invariants that no fault and no race between
// nodes may break (issue 31):
//
//  (a) rating chains: per account and rating pool (the game and its pool key, as the
//      ratings table has them), the rated results form one unbroken chain: the first
//      starts at 1500 / 350, each later one's rating and RD before equal the previous
//      one's after (to 1e-9), no result is rated twice from the same rating (a fork: a
//      lost update), and the ratings row holds the chain's last rating and RD, and
//      counts exactly its games, wins, draws and losses;
//  (b) each match stored once: no two rows of matches with the same room and number;
//  (c) with --announced FILE (JSON lines: the match_end messages a test or a client
//      collected), each announced match is stored, with the same room, number, players,
//      winner and rating changes;
//  (d) with --ladder URL (a node's http://HOST:PORT; repeat for each node), each node's
//      /api/ladder of every pool equals the ratings table.
//
// See --help, and docs/operations.md ("Checking the store"). Exit status: 0 when every
// invariant holds, 1 when one does not (the first violations are listed), 2 on a usage
// error or a database that cannot be read. Importable: checkStore(), checkLadders().
import { spawn } from "node:child_process";
import fs from "node:fs";
import process from "node:process";
import readline from "node:readline";
import { fileURLToPath } from "node:url";

const HELP = `Usage: node scripts/check-store.mjs [options] DATABASE

Checks a thue-server database for lost or doubled writes. DATABASE is a PostgreSQL URL
(postgres://USER[:PASSWORD]@HOST[:PORT]/DB, read with psql; a password in the URL is
handed to psql through PGPASSWORD, never on its command line) or a SQLite file (read
with the sqlite3 command, as a read-only query).

Invariants, each printed with its counts:
  (a) rating chains: per account and pool (game + pool key), the rated results form one
      chain: the first from 1500 / 350, each next one's rating and RD before equal to
      the previous one's after (to 1e-9), none rated twice from one rating (a lost
      update), and the ratings row equals the chain's end (rating, RD, games, wins,
      draws, losses). The chain is found by its links, not by the time each match
      ended: matches of one player ending on two nodes a few ms apart may commit in the
      other order. How many links are broken when the matches are taken in end order
      (ended_ms, then id) is printed too; --strict-order makes those violations.
  (b) each match stored once: no two matches with the same room and number.
  (c) --announced FILE: each match_end in FILE (JSON lines; other lines are skipped) is
      stored with the same room, number, players, winner and rating changes.
  (d) --ladder URL: GET URL/api/ladder of every pool equals the ratings table (every
      entry's rating, RD, games, wins, draws and losses, and the total).

Options:
  --db DATABASE      the database (or give it as the only argument)
  --announced FILE   check the announced results of FILE (may be repeated)
  --ladder URL       a node's base URL, http://HOST:PORT (may be repeated)
  --strict-order     count the links broken in end order as violations
  --max N            list at most N violations (default 20)
  --json             print one JSON object instead of the report
  -h, --help         this text

Exit status: 0 when all hold, 1 when one does not, 2 on a usage error or an unreadable
database.`;

const EPS = 1e-9;
export const INITIAL = { rating: 1500, rd: 350 };

class UsageError extends Error {}

// ---- the database -----------------------------------------------------------------------

/** "postgres://thue:***@host/db": a URL with its password (and a password= parameter) hidden. */
export function maskUrl(url) {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    if (u.searchParams.has("password")) u.searchParams.set("password", "***");
    return u.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ":***@");
  }
}

/**
 * A database to read: {kind, display, query(sql) -> rows (arrays of strings or null),
 * each(sql, fn)}. PostgreSQL through psql, SQLite through sqlite3; both print one row a
 * line, tab-separated, NULL as \N (no value read here holds a tab or a line feed).
 */
export function openDb(target) {
  if (typeof target !== "string" || target === "") throw new UsageError("no database given (a postgres:// URL or a SQLite file)");
  if (/^postgres(ql)?:/i.test(target)) {
    let u;
    try {
      u = new URL(target);
    } catch {
      throw new UsageError(`${maskUrl(target)} is not a valid PostgreSQL URL (postgres://USER[:PASSWORD]@HOST[:PORT]/DB)`);
    }
    if (!/^postgres(ql)?:$/i.test(u.protocol) || u.pathname.length <= 1) {
      throw new UsageError(`${maskUrl(target)} is not a valid PostgreSQL URL: it names no database (postgres://USER[:PASSWORD]@HOST[:PORT]/DB)`);
    }
    const env = { ...process.env, PGOPTIONS: `${process.env.PGOPTIONS || ""} -c extra_float_digits=3`.trim(), PGCONNECT_TIMEOUT: process.env.PGCONNECT_TIMEOUT || "10" };
    let secret = "";
    if (u.password) {
      secret = decodeURIComponent(u.password);
      env.PGPASSWORD = secret;
      u.password = "";
    }
    if (u.searchParams.has("password")) {
      secret = u.searchParams.get("password");
      env.PGPASSWORD = secret;
      u.searchParams.delete("password");
    }
    const conn = u.toString();
    const display = maskUrl(target);
    return makeDb("postgres", display, "psql", (sql) => ["-X", "-w", "-q", "-A", "-t", "-F", "\t", "-P", "null=\\N", "-v", "ON_ERROR_STOP=1", "-d", conn, "-c", sql], env, secret);
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
    throw new UsageError(`${maskUrl(target)}: not a database this checker reads (a postgres:// or postgresql:// URL, or a SQLite file)`);
  }
  let head;
  try {
    const fd = fs.openSync(target, "r");
    head = Buffer.alloc(16);
    fs.readSync(fd, head, 0, 16, 0);
    fs.closeSync(fd);
  } catch (e) {
    throw new UsageError(`${target}: cannot open it (${e.code || e.message}); give a postgres:// URL or a SQLite file`);
  }
  if (head.toString("latin1") !== "SQLite format 3\0") throw new UsageError(`${target} is not a SQLite database (nor a postgres:// URL)`);
  return makeDb("sqlite", target, "sqlite3", (sql) => ["-batch", "-noheader", "-separator", "\t", "-nullvalue", "\\N", "-cmd", "PRAGMA query_only = 1", "-cmd", ".timeout 10000", target, sql], process.env, "");
}

function makeDb(kind, display, cmd, argsOf, env, secret) {
  const hide = (s) => (secret ? s.split(secret).join("***") : s);
  const db = {
    kind,
    display,
    /** Runs sql, calling fn(row) for each row; resolves once all are read. */
    each(sql, fn) {
      return new Promise((resolve, reject) => {
        const p = spawn(cmd, argsOf(sql), { env, stdio: ["ignore", "pipe", "pipe"] });
        let err = "";
        p.stderr.on("data", (d) => (err += d));
        p.on("error", (e) => reject(new UsageError(e.code === "ENOENT" ? `${cmd} is not installed (Debian: apt-get install ${cmd === "psql" ? "postgresql-client" : "sqlite3"})` : `${cmd}: ${e.message}`)));
        const rl = readline.createInterface({ input: p.stdout, crlfDelay: Infinity });
        let failed = null;
        rl.on("line", (line) => {
          if (failed) return;
          try {
            fn(line.split("\t").map((v) => (v === "\\N" ? null : v)));
          } catch (e) {
            failed = e;
          }
        });
        p.on("close", (code) => {
          if (failed) return reject(failed);
          if (code !== 0) {
            const msg = hide(err.split("\n").map((l) => l.trim()).filter(Boolean).join(" ")) || `${cmd} exited with ${code}`;
            return reject(new UsageError(`cannot read ${display}: ${msg}`));
          }
          resolve();
        });
      });
    },
    async query(sql) {
      const rows = [];
      await db.each(sql, (r) => rows.push(r));
      return rows;
    },
    /** A double column as text that reads back as the same double. */
    num(col) {
      return kind === "sqlite" ? `CASE WHEN ${col} IS NULL THEN NULL ELSE printf('%.17g', ${col}) END` : col;
    },
  };
  return db;
}

async function schemaVersion(db) {
  if (db.kind === "sqlite") return Number((await db.query("PRAGMA user_version"))[0][0]);
  const has = await db.query("SELECT to_regclass('thue_schema') IS NOT NULL");
  if (has[0][0] !== "t") return 0;
  const v = await db.query("SELECT version FROM thue_schema");
  return v.length ? Number(v[0][0]) : 0;
}

// ---- pools --------------------------------------------------------------------------------

/**
 * The rating pool of a stored match, as the server's pool_of derives it (server/games/*,
 * each game's pool_key over its canonical options, which the matches table keeps in
 * game_options; Thue's from the variant and k columns): {game, pool} or {error}.
 */
export function poolOfMatch(game, variant, k, optionsText) {
  if (game === "thue" || game === null) return { game: "thue", pool: `${variant}-k${k}` };
  let o;
  try {
    o = JSON.parse(optionsText);
  } catch {
    return { error: `its game_options ${JSON.stringify(optionsText)} are not JSON` };
  }
  if (o === null || typeof o !== "object") return { error: "it has no game_options" };
  const int = (name) => {
    if (!Number.isInteger(o[name])) throw new Error(`game_options has no integer ${name}`);
    return o[name];
  };
  try {
    switch (game) {
      case "nim":
        return { game, pool: o.misere === true ? "misere" : "normal" };
      case "northcott":
        return { game, pool: `${int("rows")}x${int("cols")}` };
      case "rims":
        return { game, pool: "normal" };
      case "circle":
        return { game, pool: String(int("fields")) };
      case "wythoff":
        return { game, pool: `a${int("a")}` };
      case "dots":
        return { game, pool: `${int("rows")}x${int("cols")}${o.outline === true ? "-outline" : ""}` };
      default:
        return { error: `the checker does not know game "${game}"'s pool key (add it to poolOfMatch in scripts/check-store.mjs)` };
    }
  } catch (e) {
    return { error: e.message };
  }
}

/** The /api/ladder query of a pool: Thue's variant and k; another game's options naming it. */
export function ladderQuery(game, pool) {
  if (game === "thue") {
    const m = /^(square|overlap)-k(\d+)$/.exec(pool);
    return m ? `variant=${m[1]}&k=${m[2]}` : null;
  }
  let opts;
  let m;
  switch (game) {
    case "nim":
      opts = { misere: pool === "misere" };
      break;
    case "rims":
      opts = {};
      break;
    case "circle":
      opts = { fields: Number(pool) };
      break;
    case "wythoff":
      opts = (m = /^a(\d+)$/.exec(pool)) && { a: Number(m[1]) };
      break;
    case "northcott":
      opts = (m = /^(\d+)x(\d+)$/.exec(pool)) && { rows: Number(m[1]), cols: Number(m[2]) };
      break;
    case "dots":
      opts = (m = /^(\d+)x(\d+)(-outline)?$/.exec(pool)) && { rows: Number(m[1]), cols: Number(m[2]), outline: !!m[3] };
      break;
    default:
      opts = null;
  }
  return opts ? `game=${encodeURIComponent(game)}&game_options=${encodeURIComponent(JSON.stringify(opts))}` : null;
}

// ---- the checks -------------------------------------------------------------------------

const near = (a, b) => Math.abs(a - b) <= EPS;
const sameRating = (x, y) => near(x.rating, y.rating) && near(x.rd, y.rd);
const fmt = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(4));
const showRating = (x) => `${fmt(x.rating)} / RD ${fmt(x.rd)}`;

function num(v, what) {
  if (v === null) return null;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`${what}: ${v} is not a number`);
  return n;
}

/**
 * Checks the database; resolves to {ok, target, schema, counts, checks: [{key, title, ok,
 * summary}], violations: [{check, text}], skipped: [...]}. Options: db (URL or file),
 * announced (array of files), ladders (array of base URLs), strictOrder.
 */
export async function checkStore({ db: target, announced = [], ladders = [], strictOrder = false } = {}) {
  const db = openDb(target);
  const schema = await schemaVersion(db);
  if (schema < 3) throw new UsageError(`${db.display}: schema version ${schema}: the checker reads schema 3 and later (start a current server on it once to migrate it)`);
  const violations = [];
  const checks = [];
  const add = (check, text) => violations.push({ check, text });

  // accounts
  const accounts = new Map();
  await db.each("SELECT id, name, kind FROM accounts", ([id, name, kind]) => accounts.set(id, { name, kind: kind === "2" ? "bot" : "account" }));
  const who = (id) => (accounts.has(id) ? `${accounts.get(id).name} (account ${id})` : `account ${id} (not in accounts)`);

  // ratings rows
  const rows = new Map(); // "account|game|pool" -> row
  await db.each(
    `SELECT account, game, pool, ${db.num("rating")}, ${db.num("rd")}, games, wins, draws, losses FROM ratings`,
    ([account, game, pool, rating, rd, games, wins, draws, losses]) => {
      rows.set(`${account}|${game}|${pool}`, { account, game, pool, rating: num(rating, "rating"), rd: num(rd, "rd"), games: Number(games), wins: Number(wins), draws: Number(draws), losses: Number(losses) });
    },
  );

  // (a) every rated result, per account and pool
  const cols = ["rating0_before", "rating0_after", "rd0_before", "rd0_after", "rating1_before", "rating1_after", "rd1_before", "rd1_after"];
  const anyRated = cols.map((c) => `${c} IS NOT NULL`).join(" OR ");
  const chains = new Map(); // "account|game|pool" -> [result]
  let ratedMatches = 0;
  const badRecords = [];
  const unknownPools = new Map();
  await db.each(
    `SELECT id, ended_ms, game, variant, k, game_options, account0, account1, winner, ${cols.map((c) => db.num(c)).join(", ")} FROM matches WHERE ${anyRated}`,
    (r) => {
      const [id, ended, game, variant, k, options, acc0, acc1, winner] = r;
      const v = r.slice(9).map((x, i) => num(x, `match ${id} ${cols[i]}`));
      ratedMatches++;
      const pool = poolOfMatch(game, variant, k, options);
      if (pool.error) {
        unknownPools.set(game, pool.error);
        badRecords.push(`match ${id}: its pool cannot be derived: ${pool.error}`);
        return;
      }
      for (let seat = 0; seat < 2; seat++) {
        const [before, after, rdBefore, rdAfter] = v.slice(seat * 4, seat * 4 + 4);
        const account = seat === 0 ? acc0 : acc1;
        if ([before, after, rdBefore, rdAfter].some((x) => x === null)) {
          badRecords.push(`match ${id}: seat ${seat}'s rating change is incomplete (${cols.slice(seat * 4, seat * 4 + 4).join(", ")} = ${[before, after, rdBefore, rdAfter].map(String).join(", ")})`);
          continue;
        }
        if (account === null) {
          badRecords.push(`match ${id}: seat ${seat} has a rating change but no account`);
          continue;
        }
        const key = `${account}|${pool.game}|${pool.pool}`;
        if (!chains.has(key)) chains.set(key, []);
        const score = winner === null ? 0.5 : Number(winner) === seat ? 1 : 0;
        chains.get(key).push({ id, ended: Number(ended), before: { rating: before, rd: rdBefore }, after: { rating: after, rd: rdAfter }, score });
      }
    },
  );
  for (const t of badRecords) add("a", t);

  let results = 0;
  let brokenChains = 0;
  let endOrderLinks = 0;
  let endOrderBroken = 0;
  let offChain = 0;
  let forks = 0;
  let outOfEndOrder = 0;
  let rowBad = 0;
  const keys = [...chains.keys()].sort();
  for (const key of keys) {
    const list = chains.get(key);
    const [account, game, pool] = key.split("|");
    const where = `${who(account)} in ${game}/${pool}`;
    results += list.length;
    // the issue's measure: links broken when the results are taken in end order
    const byEnd = [...list].sort((a, b) => a.ended - b.ended || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    let broken = 0;
    for (let i = 1; i < byEnd.length; i++) if (!sameRating(byEnd[i].before, byEnd[i - 1].after)) broken++;
    endOrderLinks += Math.max(0, byEnd.length - 1);
    endOrderBroken += broken;
    if (strictOrder && broken) add("a", `${where}: ${broken} of ${byEnd.length - 1} links broken in end order (--strict-order)`);

    // the chain by its links: successors of each result are the results whose before is its after
    const byAfter = [...list].sort((a, b) => a.after.rating - b.after.rating);
    const predecessors = (m) => {
      let lo = 0;
      let hi = byAfter.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (byAfter[mid].after.rating < m.before.rating - EPS) lo = mid + 1;
        else hi = mid;
      }
      const out = [];
      for (let i = lo; i < byAfter.length && byAfter[i].after.rating <= m.before.rating + EPS; i++) {
        if (byAfter[i] !== m && sameRating(byAfter[i].after, m.before)) out.push(byAfter[i]);
      }
      return out;
    };
    const succ = new Map(list.map((m) => [m, []]));
    const starts = [];
    const orphans = [];
    for (const m of byEnd) {
      const p = predecessors(m);
      if (sameRating(m.before, INITIAL)) starts.push(m);
      else if (p.length === 0) orphans.push(m);
      for (const x of p) succ.get(x).push(m);
    }
    // walk from the first start, taking the earliest successor at a fork
    const seen = new Set();
    const chain = [];
    let cur = starts[0] || null;
    while (cur && !seen.has(cur)) {
      seen.add(cur);
      chain.push(cur);
      const next = succ.get(cur).filter((x) => !seen.has(x));
      cur = next[0] || null;
    }
    let problems = 0;
    if (starts.length === 0) {
      problems++;
      add("a", `${where}: no rated result starts from ${showRating(INITIAL)} (its first result is ${byEnd[0].id}, rated from ${showRating(byEnd[0].before)})`);
    }
    if (starts.length > 1) {
      forks += starts.length - 1;
      problems++;
      add("a", `${where}: ${starts.length} results were rated from the initial ${showRating(INITIAL)} (${starts.slice(0, 4).map((m) => m.id).join(", ")}${starts.length > 4 ? ", ..." : ""}): all but one are lost updates`);
    }
    for (const m of list) {
      const s = succ.get(m);
      if (s.length > 1) {
        forks += s.length - 1;
        problems++;
        add("a", `${where}: ${s.length} results were rated from the rating after match ${m.id} (${showRating(m.after)}): ${s.slice(0, 4).map((x) => x.id).join(", ")}${s.length > 4 ? ", ..." : ""}: a lost update`);
      }
    }
    for (const m of orphans) {
      problems++;
      add("a", `${where}: match ${m.id} was rated from ${showRating(m.before)}, which no stored result of this pool left (its previous result is missing, or the rating came from elsewhere)`);
    }
    const off = list.length - chain.length;
    offChain += off;
    if (off > 0 && problems === 0) add("a", `${where}: ${off} of ${list.length} results are not on one chain`);
    for (let i = 1; i < chain.length; i++) if (chain[i].ended < chain[i - 1].ended) outOfEndOrder++;
    if (off > 0 || problems > 0) brokenChains++;

    // the ratings row: the chain's end, and its counts
    const row = rows.get(key);
    const last = chain.length ? chain[chain.length - 1] : byEnd[byEnd.length - 1];
    const wins = list.filter((m) => m.score === 1).length;
    const draws = list.filter((m) => m.score === 0.5).length;
    const losses = list.length - wins - draws;
    if (!row) {
      rowBad++;
      add("a", `${where}: ${list.length} rated results but no ratings row`);
    } else {
      const diffs = [];
      if (!sameRating(row, last.after)) diffs.push(`rating ${showRating(row)}, the chain ends at ${showRating(last.after)} (match ${last.id})`);
      if (row.games !== list.length) diffs.push(`games ${row.games} for ${list.length} stored rated matches`);
      if (row.wins !== wins || row.draws !== draws || row.losses !== losses) diffs.push(`wins/draws/losses ${row.wins}/${row.draws}/${row.losses}, the matches ${wins}/${draws}/${losses}`);
      if (diffs.length) {
        rowBad++;
        add("a", `${where}: the ratings row differs: ${diffs.join("; ")}`);
      }
    }
  }
  // ratings rows that count games no stored match has
  let orphanRows = 0;
  for (const [key, row] of rows) {
    if (row.games > 0 && !chains.has(key)) {
      orphanRows++;
      rowBad++;
      add("a", `${who(row.account)} in ${row.game}/${row.pool}: the ratings row counts ${row.games} games, and no stored match of that pool is rated for it`);
    }
  }
  const aOk = brokenChains === 0 && rowBad === 0 && badRecords.length === 0 && !(strictOrder && endOrderBroken);
  checks.push({
    key: "a",
    title: "rating chains",
    ok: aOk,
    summary:
      `${keys.length} chains (account, pool), ${ratedMatches} rated matches, ${results} rated results; ` +
      `${brokenChains} chains broken (${forks} results rated from an already used rating, ${offChain} results off the chain); ` +
      `ratings rows: ${rows.size}, ${rowBad} differ from their chain${orphanRows ? ` (${orphanRows} without rated matches)` : ""}; ` +
      `in end order ${endOrderBroken} of ${endOrderLinks} links broken${outOfEndOrder ? ` (${outOfEndOrder} chain links committed out of end order)` : ""}` +
      (badRecords.length ? `; ${badRecords.length} records unreadable` : ""),
  });

  // (b) each match stored once
  const total = Number((await db.query("SELECT count(*) FROM matches"))[0][0]);
  const dups = await db.query("SELECT room, number, count(*) FROM matches GROUP BY room, number HAVING count(*) > 1 ORDER BY room, number");
  for (const [room, number, n] of dups.slice(0, 100)) {
    const ids = (await db.query(`SELECT id FROM matches WHERE room = '${room.replace(/'/g, "''")}' AND number = ${Number(number)} ORDER BY id`)).map((r) => r[0]);
    add("b", `room ${room}'s match ${number} is stored ${n} times: ${ids.join(", ")}`);
  }
  const extra = dups.reduce((s, d) => s + Number(d[2]) - 1, 0);
  checks.push({ key: "b", title: "each match stored once", ok: dups.length === 0, summary: `${total} matches, ${total - extra} distinct (room, number), ${dups.length} stored more than once` });

  // (c) announced results
  if (announced.length) {
    const c = await checkAnnounced(db, announced);
    for (const t of c.violations) add("c", t);
    checks.push({ key: "c", title: "announced results stored", ok: c.violations.length === 0, summary: c.summary });
  }

  // (d) the nodes' ladders
  if (ladders.length) {
    const d = await checkLadders(db, ladders, { rows, accounts });
    for (const t of d.violations) add("d", t);
    checks.push({ key: "d", title: "ladders equal the database", ok: d.violations.length === 0, summary: d.summary });
  }

  return {
    ok: checks.every((c) => c.ok),
    target: db.display,
    backend: db.kind === "sqlite" ? "SQLite" : "PostgreSQL",
    schema,
    counts: { matches: total, rated_matches: ratedMatches, accounts: accounts.size, rating_rows: rows.size },
    checks,
    violations,
    skipped: [...unknownPools].map(([g, e]) => `${g}: ${e}`),
  };
}

/** (c): each match_end of the files is stored as announced. */
async function checkAnnounced(db, files) {
  const violations = [];
  const byId = new Map();
  let lines = 0;
  let ends = 0;
  let noId = 0;
  for (const file of files) {
    let text;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch (e) {
      throw new UsageError(`--announced ${file}: ${e.code || e.message}`);
    }
    for (const [i, line] of text.split("\n").entries()) {
      if (!line.trim()) continue;
      lines++;
      let m;
      try {
        m = JSON.parse(line);
      } catch {
        violations.push(`${file}:${i + 1}: not JSON`);
        continue;
      }
      if (!m || m.type !== "match_end") continue;
      ends++;
      if (m.match_id === null || m.match_id === undefined) {
        noId++;
        violations.push(`${file}:${i + 1}: room ${m.room}'s match ${m.number} was announced without a match_id (its record was not stored)`);
        continue;
      }
      if (typeof m.match_id !== "string" || !/^[A-Za-z0-9_-]{1,32}$/.test(m.match_id)) {
        violations.push(`${file}:${i + 1}: ${JSON.stringify(m.match_id)} is not a match id`);
        continue;
      }
      if (!byId.has(m.match_id)) byId.set(m.match_id, []);
      byId.get(m.match_id).push({ m, at: `${file}:${i + 1}` });
    }
  }
  const ids = [...byId.keys()];
  const stored = new Map();
  for (let i = 0; i < ids.length; i += 500) {
    const list = ids.slice(i, i + 500).map((id) => `'${id.replace(/'/g, "''")}'`).join(", ");
    await db.each(
      `SELECT id, room, number, name0, name1, winner, ${["rating0_before", "rating0_after", "rd0_before", "rd0_after", "rating1_before", "rating1_after", "rd1_before", "rd1_after"].map((c) => db.num(c)).join(", ")} FROM matches WHERE id IN (${list})`,
      (r) => stored.set(r[0], r),
    );
  }
  let same = 0;
  for (const [id, seen] of byId) {
    const row = stored.get(id);
    if (!row) {
      violations.push(`match ${id} (room ${seen[0].m.room}, match ${seen[0].m.number}; ${seen[0].at}) was announced and is not stored`);
      continue;
    }
    const [, room, number, name0, name1, winner] = row;
    const r = row.slice(6).map((x) => (x === null ? null : Number(x)));
    let bad = 0;
    for (const { m, at } of seen) {
      const diffs = [];
      if (m.room !== room) diffs.push(`room ${m.room} vs stored ${room}`);
      if (m.number !== Number(number)) diffs.push(`number ${m.number} vs stored ${number}`);
      const names = (m.players || []).map((p) => p && p.name);
      if (names[0] !== name0 || names[1] !== name1) diffs.push(`players ${names.join(", ")} vs stored ${name0}, ${name1}`);
      const w = m.result ? m.result.winner : undefined;
      const sw = winner === null ? null : Number(winner);
      if (w !== sw) diffs.push(`winner ${w} vs stored ${sw}`);
      if (m.ratings === null || m.ratings === undefined) {
        if (r.some((x) => x !== null)) diffs.push("announced unrated, stored with rating changes");
      } else if (r.some((x) => x === null)) {
        diffs.push("announced with rating changes, stored unrated");
      } else {
        for (let seat = 0; seat < 2; seat++) {
          const a = m.ratings[seat] || {};
          const s = r.slice(seat * 4, seat * 4 + 4);
          const want = [a.before, a.after, a.rd_before, a.rd_after];
          if (want.some((x, j) => typeof x !== "number" || !near(x, s[j]))) diffs.push(`seat ${seat}'s ratings ${want.join("/")} vs stored ${s.join("/")}`);
        }
      }
      if (diffs.length) {
        bad++;
        violations.push(`match ${id} (${at}): announced and stored differ: ${diffs.join("; ")}`);
      }
    }
    if (!bad) same++;
  }
  const missing = ids.filter((id) => !stored.has(id)).length;
  return {
    violations,
    summary: `${ends} match_end lines of ${lines} read, ${byId.size} matches announced: ${same} stored as announced, ${missing} missing, ${byId.size - same - missing} different${noId ? `, ${noId} announced without a match_id` : ""}`,
  };
}

/**
 * (d): each node's GET /api/ladder of every pool that has a rated row equals the ratings
 * table (games > 0, kind all). ladders: base URLs. Resolves to {ok, violations, summary}.
 * ctx may carry the rows and accounts already read.
 */
export async function checkLadders(dbOrTarget, ladders, ctx = {}) {
  const db = typeof dbOrTarget === "string" ? openDb(dbOrTarget) : dbOrTarget;
  let rows = ctx.rows;
  let accounts = ctx.accounts;
  if (!accounts) {
    accounts = new Map();
    await db.each("SELECT id, name, kind FROM accounts", ([id, name, kind]) => accounts.set(id, { name, kind: kind === "2" ? "bot" : "account" }));
  }
  if (!rows) {
    rows = new Map();
    await db.each(`SELECT account, game, pool, ${db.num("rating")}, ${db.num("rd")}, games, wins, draws, losses FROM ratings`, ([account, game, pool, rating, rd, games, wins, draws, losses]) => {
      rows.set(`${account}|${game}|${pool}`, { account, game, pool, rating: Number(rating), rd: Number(rd), games: Number(games), wins: Number(wins), draws: Number(draws), losses: Number(losses) });
    });
  }
  const pools = new Map(); // "game|pool" -> Map(name -> row)
  for (const row of rows.values()) {
    if (row.games <= 0) continue;
    const k = `${row.game}|${row.pool}`;
    if (!pools.has(k)) pools.set(k, new Map());
    const a = accounts.get(row.account);
    pools.get(k).set(a ? a.name : `#${row.account}`, row);
  }
  const violations = [];
  let compared = 0;
  let entries = 0;
  for (const base of ladders) {
    let u;
    try {
      u = new URL(base);
    } catch {
      throw new UsageError(`--ladder ${base}: not a URL (http://HOST:PORT)`);
    }
    if (!/^https?:$/.test(u.protocol)) throw new UsageError(`--ladder ${base}: not an http:// URL`);
    const root = base.replace(/\/+$/, "");
    for (const [k, want] of [...pools].sort()) {
      const [game, pool] = k.split("|");
      const q = ladderQuery(game, pool);
      if (!q) {
        violations.push(`${root}: cannot ask for the ladder of ${game}/${pool} (the checker does not know how to name that pool)`);
        continue;
      }
      const got = new Map();
      let total = null;
      let failed = null;
      for (let offset = 0; offset < 100000; offset += 200) {
        let res;
        let body;
        try {
          res = await fetch(`${root}/api/ladder?${q}&kind=all&count=200&offset=${offset}`, { signal: AbortSignal.timeout(10000) });
          body = await res.text();
        } catch (e) {
          failed = `cannot GET its ladder of ${game}/${pool}: ${e.cause ? e.cause.code || e.cause.message : e.message}`;
          break;
        }
        if (res.status !== 200) {
          failed = `its ladder of ${game}/${pool} answered ${res.status}: ${body.slice(0, 200)}`;
          break;
        }
        const j = JSON.parse(body);
        total = j.total;
        for (const e of j.entries) got.set(e.name, e);
        if (j.entries.length === 0 || offset + j.entries.length >= j.total) break;
      }
      compared++;
      if (failed) {
        violations.push(`${root}: ${failed}`);
        continue;
      }
      entries += got.size;
      const diffs = [];
      if (total !== want.size) diffs.push(`total ${total}, the database ${want.size}`);
      for (const [name, row] of want) {
        const e = got.get(name);
        if (!e) {
          diffs.push(`${name} missing (the database: ${showRating(row)}, ${row.games} games)`);
          continue;
        }
        const d = [];
        if (!near(e.rating, row.rating) || !near(e.rd, row.rd)) d.push(`${showRating(e)} vs ${showRating(row)}`);
        for (const f of ["games", "wins", "draws", "losses"]) if (e[f] !== row[f]) d.push(`${f} ${e[f]} vs ${row[f]}`);
        if (d.length) diffs.push(`${name}: ${d.join(", ")}`);
      }
      for (const name of got.keys()) if (!want.has(name)) diffs.push(`${name} listed, not in the database's pool`);
      if (diffs.length) violations.push(`${root}: ladder ${game}/${pool} differs from the database: ${diffs.slice(0, 6).join("; ")}${diffs.length > 6 ? `; ${diffs.length - 6} more` : ""}`);
    }
  }
  return {
    ok: violations.length === 0,
    violations,
    summary: `${ladders.length} node${ladders.length === 1 ? "" : "s"} x ${pools.size} pool${pools.size === 1 ? "" : "s"}: ${compared} ladders read (${entries} entries), ${violations.length} differ from the database`,
  };
}

// ---- the command --------------------------------------------------------------------------

function parseArgs(argv) {
  const o = { db: null, announced: [], ladders: [], strictOrder: false, max: 20, json: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      if (i + 1 >= argv.length) throw new UsageError(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "-h" || a === "--help") o.help = true;
    else if (a === "--db") o.db = val();
    else if (a === "--announced") o.announced.push(val());
    else if (a === "--ladder") o.ladders.push(val());
    else if (a === "--strict-order") o.strictOrder = true;
    else if (a === "--json") o.json = true;
    else if (a === "--max") {
      const v = val();
      if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 100000) throw new UsageError(`--max must be 1..100000, got ${v}`);
      o.max = Number(v);
    } else if (a.startsWith("-")) throw new UsageError(`unknown option ${a}`);
    else if (o.db === null) o.db = a;
    else throw new UsageError(`one database only (got ${maskUrl(o.db)} and ${maskUrl(a)})`);
  }
  return o;
}

/** The report as text lines. */
export function report(r, max = 20) {
  const out = [];
  out.push(`check-store: ${r.target} (${r.backend}, schema ${r.schema}): ${r.counts.matches} matches (${r.counts.rated_matches} rated), ${r.counts.accounts} accounts, ${r.counts.rating_rows} rating rows`);
  for (const c of r.checks) out.push(`${c.ok ? "ok  " : "FAIL"} (${c.key}) ${c.title}: ${c.summary}`);
  if (r.violations.length) {
    out.push(`violations (${r.violations.length}${r.violations.length > max ? `, the first ${max}` : ""}):`);
    for (const v of r.violations.slice(0, max)) out.push(`  (${v.check}) ${v.text}`);
  }
  out.push(r.ok ? "all invariants hold" : "invariants broken");
  return out;
}

async function main() {
  let o;
  try {
    o = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`check-store.mjs: ${e.message}\n(--help lists the options)\n`);
    process.exit(2);
  }
  if (o.help) {
    process.stdout.write(`${HELP}\n`);
    process.exit(0);
  }
  if (o.db === null) {
    process.stderr.write("check-store.mjs: no database given (a postgres:// URL or a SQLite file)\n(--help lists the options)\n");
    process.exit(2);
  }
  let r;
  try {
    r = await checkStore({ db: o.db, announced: o.announced, ladders: o.ladders, strictOrder: o.strictOrder });
  } catch (e) {
    process.stderr.write(`check-store.mjs: ${e instanceof UsageError ? e.message : e.stack || e}\n`);
    process.exit(2);
  }
  if (o.json) process.stdout.write(`${JSON.stringify(r)}\n`);
  else process.stdout.write(`${report(r, o.max).join("\n")}\n`);
  process.exit(r.ok ? 0 : 1);
}

if (process.argv[1] && fs.realpathSync(process.argv[1]) === fs.realpathSync(fileURLToPath(import.meta.url))) main();
