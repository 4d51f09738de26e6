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
  const nav = typeof navigator !== "undefined" ? navigator : {}; // (none in older Node)
  for (const l of nav.languages || [nav.language || "en"]) {
    const base = String(l).toLowerCase().split("-")[0];
    if (LANGS.includes(base)) return base;
  }
  return "en";
}

// The areas every page needs load before the client runs; a page's own (the review's, the
// lessons', the puzzles') when that page first asks for them (loadArea), so that the first
// screen does not carry them.
const FIRST = ["app"];

async function load(l, areas) {
  const parts = await Promise.all(areas.map(async (a) => {
    try {
      const r = await fetch(`i18n/${l}/${a}.json`);
      return r.ok ? await r.json() : {};
    } catch { return {}; }
  }));
  return Object.assign({}, ...parts);
}

let lang = chosen();
const english = await load("en", FIRST);
const words = lang === "en" ? english : await load(lang, FIRST);
const loading = {}; // area -> the promise of its catalogues, once asked for

/** Loads an area's catalogues (English and the current language) once; resolves when its
 * words are there for t(). The "app" area is there from the start. */
export function loadArea(area) {
  if (FIRST.includes(area) || !AREAS.includes(area)) return Promise.resolve();
  loading[area] ||= (async () => {
    const [en, mine] = await Promise.all([load("en", [area]), lang === "en" ? null : load(lang, [area])]);
    Object.assign(english, en); // (words is english itself in English)
    if (mine) Object.assign(words, mine);
  })();
  return loading[area];
}
const plurals = new Intl.PluralRules(TAGS[lang]);
if (typeof document !== "undefined") document.documentElement.lang = TAGS[lang]; // (Node imports games.js in tests)

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
    k in vars ? (typeof vars[k] === "number" ? fmtNumber(vars[k], { useGrouping: "min2" }) : String(vars[k])) : m);
}

/** The words for key in the current language (English where a catalogue lacks it, the key
 * itself where every catalogue does), {name} filled from vars; with vars.count a number,
 * the plural form for it. */
export function t(key, vars = {}) {
  let v = key in words ? words[key] : english[key];
  if (v === undefined) return key;
  if (typeof v === "object") {
    const n = Number(vars.count) || 0; // a count given as text (written as it is) counts too
    v = v[plurals.select(n)] ?? v.other;
  }
  return fill(v, vars);
}

/** A number written the current language's way. (In t()'s placeholders a number groups its
 * digits from five on: "1500" stays as a rating is written, "1,000,000" tokens are grouped.) */
export function fmtNumber(n, opts) { return new Intl.NumberFormat(TAGS[lang], opts).format(n); }

/** A date (Date, ms or ISO text) written the current language's way. */
export function fmtDate(d, opts = { dateStyle: "medium", timeStyle: "short" }) {
  return new Intl.DateTimeFormat(TAGS[lang], opts).format(d instanceof Date ? d : new Date(d));
}

/** Whether the catalogues (this language's or English) have key. */
export function has(key) { return key in words || key in english; }

/** The words of the first key the catalogues have, else fallback (the server's own text for
 * something the client has no words for yet, e.g. a new game option's help). */
export function tOr(keys, vars, fallback) {
  for (const k of [].concat(keys)) if (has(k)) return t(k, vars);
  return fallback;
}

/** A server error (protocol/PROTOCOL.md section 10, and the HTTP API's codes) in words: the
 * sentence of its stable code, with the server's message only for a code this client does
 * not know (a newer server's). */
export function errorText(err) {
  if (!err) return t("app.error.unknown");
  if (err.code && has(`app.error.${err.code}`)) return t(`app.error.${err.code}`, { field: err.field || "" });
  return err.message || String(err);
}

/** A refusal's reason where the page shows it beside a form (the room form's options): in
 * English the server's own sentence when it has one (it says which option and why), in
 * another language the words of its code (errorText). */
export function reasonText(err) {
  if (lang === "en" && err && err.message) return err.message;
  return errorText(err);
}

/**
 * Fills the page's fixed words from the catalogue: an element with data-i18n="key" gets the
 * key's text as its text; data-i18n-attr="placeholder=key;aria-label=key2" sets attributes.
 * Elements whose text has markup keep it in child elements, each with its own key.
 */
export function fillPage(root = document) {
  for (const e of root.querySelectorAll("[data-i18n]")) e.textContent = t(e.dataset.i18n);
  for (const e of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of e.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split("=").map((s) => s.trim());
      if (attr && key) e.setAttribute(attr, t(key));
    }
  }
}

/** Each language's name in itself, as the switcher shows it. */
export const NAMES = { en: "English", pl: "Polski", sr: "Српски", ro: "Română" };

/** The language switcher: a labelled select of the languages, each named in itself (and
 * marked with its own lang); choosing one remembers it and reloads the page in it. */
export function languageSwitcher() {
  const label = document.createElement("label");
  label.className = "lang-switch";
  label.dataset.testid = "lang-switch";
  const name = document.createElement("span");
  name.className = "visually-hidden";
  name.textContent = t("app.lang.label");
  const select = document.createElement("select");
  select.dataset.testid = "lang-select";
  for (const l of LANGS) {
    const o = document.createElement("option");
    o.value = l;
    o.lang = TAGS[l];
    o.textContent = NAMES[l];
    o.selected = l === lang;
    select.append(o);
  }
  select.addEventListener("change", () => setLang(select.value));
  label.append(name, select);
  return label;
}
