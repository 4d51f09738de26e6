// i18n_catalogues.test.mjs: the client's catalogues (clients/web/i18n/<lang>/<area>.json,
// issue 33) agree with each other, in plain Node (no browser, no server): every key of
// every area in every language, the same {placeholders}, each counted phrase with exactly
// the plural categories its language has (Intl.PluralRules), no empty words, a key in one
// area only and named after it; and every key the client names (t("...") in
// clients/web/*.js, data-i18n in index.html) and every error code of protocol/PROTOCOL.md
// section 10 has English words. Run:
//   node --test tests/e2e/i18n_catalogues.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";

const WEB = new URL("../../clients/web/", import.meta.url);
const SRC = fs.readFileSync(new URL("i18n.js", WEB), "utf8");

/** A constant of i18n.js read from its text (the module itself needs a browser). */
function constant(name) {
  const m = SRC.match(new RegExp(`export const ${name} = ([^;]+);`));
  assert.ok(m, `i18n.js exports ${name}`);
  return JSON.parse(m[1].replace(/(\w+):/g, '"$1":'));
}
const LANGS = constant("LANGS");
const AREAS = constant("AREAS");
const TAGS = constant("TAGS");

const cat = {}; // lang -> area -> object
for (const l of LANGS) {
  cat[l] = {};
  for (const a of AREAS) {
    const file = new URL(`i18n/${l}/${a}.json`, WEB);
    cat[l][a] = JSON.parse(fs.readFileSync(file, "utf8"));
  }
}

const placeholders = (v) => {
  const texts = typeof v === "string" ? [v] : Object.values(v);
  return new Set(texts.flatMap((s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1])));
};
const same = (a, b) => a.size === b.size && [...a].every((x) => b.has(x));

test("every area of every language is an object of keys named after the area", () => {
  for (const l of LANGS) for (const a of AREAS) {
    const c = cat[l][a];
    assert.equal(typeof c, "object", `${l}/${a}.json`);
    assert.ok(c !== null && !Array.isArray(c), `${l}/${a}.json is an object`);
    for (const k of Object.keys(c)) assert.ok(k.startsWith(`${a}.`), `${l}/${a}.json: ${k} is not "${a}.…"`);
  }
});

test("every key is in every language, and nowhere else in two areas", () => {
  for (const a of AREAS) {
    const keys = new Set(Object.keys(cat.en[a]));
    for (const l of LANGS) {
      const mine = new Set(Object.keys(cat[l][a]));
      const missing = [...keys].filter((k) => !mine.has(k));
      const extra = [...mine].filter((k) => !keys.has(k));
      assert.deepEqual(missing, [], `${l}/${a}.json lacks keys`);
      assert.deepEqual(extra, [], `${l}/${a}.json has keys English lacks`);
    }
  }
});

test("each value is non-empty words with the English placeholders; counted phrases have their language's plural categories", () => {
  for (const l of LANGS) {
    const cats = new Intl.PluralRules(TAGS[l]).resolvedOptions().pluralCategories.slice().sort();
    for (const a of AREAS) for (const [k, v] of Object.entries(cat[l][a])) {
      const where = `${l}/${a}.json ${k}`;
      const en = cat.en[a][k];
      if (typeof v === "string") {
        assert.ok(v.trim() !== "", `${where} is empty`);
        assert.equal(typeof en, "string", `${where} is a string where English counts`);
      } else {
        assert.ok(v && typeof v === "object" && !Array.isArray(v), `${where} is a string or plural object`);
        assert.equal(typeof en, "object", `${where} counts where English does not`);
        assert.deepEqual(Object.keys(v).sort(), cats, `${where}: the plural categories of ${TAGS[l]}`);
        for (const [c, s] of Object.entries(v)) {
          assert.equal(typeof s, "string", `${where}.${c}`);
          assert.ok(s.trim() !== "", `${where}.${c} is empty`);
        }
      }
      assert.ok(same(placeholders(v), placeholders(en)),
        `${where}: placeholders {${[...placeholders(v)]}} differ from English {${[...placeholders(en)]}}`);
    }
  }
});

test("every key the client names has English words", () => {
  const english = Object.assign({}, ...AREAS.map((a) => cat.en[a]));
  const named = new Set();
  for (const f of fs.readdirSync(WEB).filter((f) => f.endsWith(".js"))) {
    const text = fs.readFileSync(new URL(f, WEB), "utf8");
    // t("key"), t("key", ...), tOr("key", ...), tOr(["a", "b"], ...)
    for (const m of text.matchAll(/\bt\(\s*"([^"]+)"/g)) named.add(m[1]);
    for (const m of text.matchAll(/\btOr\(\s*\[?\s*"([^"]+)"/g)) named.add(m[1]);
  }
  const html = fs.readFileSync(new URL("index.html", WEB), "utf8");
  for (const m of html.matchAll(/data-i18n="([^"]+)"/g)) named.add(m[1]);
  for (const m of html.matchAll(/data-i18n-attr="([^"]+)"/g)) {
    for (const pair of m[1].split(";")) named.add(pair.split("=")[1].trim());
  }
  assert.ok(named.size > 100, `found the client's keys (${named.size})`);
  const missing = [...named].filter((k) => !(k in english));
  assert.deepEqual(missing, [], "keys the client uses that English lacks");
});

test("every error code of PROTOCOL.md section 10 has words", () => {
  const doc = fs.readFileSync(new URL("../../protocol/PROTOCOL.md", import.meta.url), "utf8");
  const sec = doc.slice(doc.indexOf("## 10. Errors"), doc.indexOf("## 11."));
  const codes = [...sec.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]);
  assert.ok(codes.length > 30, `section 10's table (${codes.length} codes)`);
  const missing = codes.filter((c) => !(`app.error.${c}` in cat.en.app));
  assert.deepEqual(missing, [], "codes without words");
});
