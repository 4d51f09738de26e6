// i18n.js: the client's words in its four languages (issue 33, "Languages"). Every string
// a person reads comes from a catalogue: clients/web/i18n/<lang>/<area>.json, one file per
// area of the client, merged into one catalogue per language (a key lives in one area).
// A value is a string with {name} placeholders, or for a counted phrase an object of
// Intl.PluralRules categories ({"one": "{count} point", "other": "{count} points"}; Polish
// has one/few/many/other). The language is the one chosen here before (localStorage), else
// the browser's first language we have, else English; <html lang> says which.
export const LANGS = ["en", "pl", "sr", "ro"];
export const AREAS = ["app", "review", "lessons", "puzzles"];
// The BCP 47 tag each language is written in (Serbian in Cyrillic, as its source is).
export const TAGS = { en: "en", pl: "pl", sr: "sr-Cyrl", ro: "ro" };
const KEY = "thue.lang";

function chosen() {
  try {
    const s = localStorage.getItem(KEY);
    if (LANGS.includes(s)) return s;
  } catch { /* storage refused: the browser's language */ }
  for (const l of navigator.languages || [navigator.language || "en"]) {
    const base = String(l).toLowerCase().split("-")[0];
    if (LANGS.includes(base)) return base;
  }
  return "en";
}

async function load(l) {
  const parts = await Promise.all(AREAS.map(async (a) => {
    try {
      const r = await fetch(`i18n/${l}/${a}.json`);
      return r.ok ? await r.json() : {};
    } catch { return {}; }
  }));
  return Object.assign({}, ...parts);
}

let lang = chosen();
const english = await load("en");
const words = lang === "en" ? english : await load(lang);
const plurals = new Intl.PluralRules(TAGS[lang]);
document.documentElement.lang = TAGS[lang];

/** The current language's code ("en", "pl", "sr", "ro"). */
export function currentLang() { return lang; }

/** Chooses a language, remembers it and reloads the page in it. */
export function setLang(l) {
  if (!LANGS.includes(l) || l === lang) return;
  try { localStorage.setItem(KEY, l); } catch { /* not remembered */ }
  location.reload();
}

function fill(text, vars) {
  return text.replace(/\{(\w+)\}/g, (m, k) =>
    k in vars ? (typeof vars[k] === "number" ? fmtNumber(vars[k]) : String(vars[k])) : m);
}

/** The words for key in the current language (English where a catalogue lacks it, the key
 * itself where every catalogue does), {name} filled from vars; with vars.count a number,
 * the plural form for it. */
export function t(key, vars = {}) {
  let v = key in words ? words[key] : english[key];
  if (v === undefined) return key;
  if (typeof v === "object") {
    const n = typeof vars.count === "number" ? vars.count : 0;
    v = v[plurals.select(n)] ?? v.other;
  }
  return fill(v, vars);
}

/** A number written the current language's way. */
export function fmtNumber(n, opts) { return new Intl.NumberFormat(TAGS[lang], opts).format(n); }

/** A date (Date, ms or ISO text) written the current language's way. */
export function fmtDate(d, opts = { dateStyle: "medium", timeStyle: "short" }) {
  return new Intl.DateTimeFormat(TAGS[lang], opts).format(d instanceof Date ? d : new Date(d));
}
