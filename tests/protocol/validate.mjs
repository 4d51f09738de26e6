#!/usr/bin/env node
// validate.mjs: checks PROTOCOL.md's examples and the golden vectors against the JSON Schemas
// of protocol/schema/ with an independent validator (ajv, draft 2020-12, strict mode), so
// that the document, the schemas and the C codec cannot drift apart.
//
//   node tests/protocol/validate.mjs [--protocol PATH] [--schemas DIR] [--vectors FILE]
//
// What it checks:
// - every schema compiles in strict mode, has $schema/$id/title/description, its $id matches
//   its path, and its properties start with `type` (a const naming the file) and `id`;
// - every ```json block of PROTOCOL.md passes the schema of its type (client and server type
//   names are distinct, so the type gives the direction) and is recorded as a valid vector;
// - the vectors (tests/vectors/protocol.md): names unique and kebab-case, members well formed;
//   every valid vector (and its "canonical" text) passes its schema, and "canonical" (or the
//   text itself) is what the schema's property order and defaults make of it; every invalid
//   vector fails where its "layer" says (json: not UTF-8 / not JSON / not an object; schema:
//   its schema rejects it, at "field" when given, with the code that fault calls for: a
//   missing type unknown_type, a non-string type bad_message at "type", a string naming no
//   message of the direction unknown_type, any other fault bad_message; codec:
//   parsable and allowed by the schema, but with a fault only the codec sees: a repeated key,
//   nesting deeper than 8, a client text over 16384 bytes, an integer written with a fraction
//   or exponent, a lone surrogate escape);
// - every schema file is used: each message schema by a valid vector, each shared definition
//   by a $ref; every server type has a valid vector already in canonical form.
// Exits 1 on any failure, naming the vector or example and the ajv errors.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "..", "..");
const ID_BASE = "https://thue-server.invalid/schema/";
const DRAFT = "https://json-schema.org/draft/2020-12/schema";
const MAX_CLIENT_BYTES = 16384;
const MAX_DEPTH = 8;

// ---- arguments ---------------------------------------------------------------------------

function parseArgs(argv) {
  const opts = {
    protocol: path.join(REPO, "protocol", "PROTOCOL.md"),
    schemas: path.join(REPO, "protocol", "schema"),
    vectors: path.join(REPO, "tests", "vectors", "protocol.jsonl"),
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const m = /^--(protocol|schemas|vectors)(?:=(.*))?$/.exec(a);
    if (m) {
      const v = m[2] !== undefined ? m[2] : argv[++i];
      if (v === undefined) usage(`${a} needs a value`);
      opts[m[1]] = path.resolve(v);
    } else if (a === "-h" || a === "--help") {
      usage();
    } else {
      usage(`unknown argument: ${a}`);
    }
  }
  return opts;
}

function usage(err) {
  const text = "usage: node validate.mjs [--protocol PATH] [--schemas DIR] [--vectors FILE]";
  if (err) {
    console.error(`validate.mjs: ${err}\n${text}`);
    process.exit(2);
  }
  console.log(text);
  process.exit(0);
}

// ---- failures ----------------------------------------------------------------------------

const failures = [];
function fail(where, what) {
  failures.push(`${where}: ${what}`);
}
function ajvErrors(errors) {
  return (errors || [])
    .map((e) => `${e.instancePath || "/"} ${e.keyword}: ${e.message}` +
      (e.params && e.params.missingProperty ? ` (${e.params.missingProperty})` : ""))
    .join("; ");
}

// ---- schemas -----------------------------------------------------------------------------

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

function loadSchemas(dir) {
  const docs = new Map(); // $id -> schema
  const types = { client: new Map(), server: new Map() }; // type -> {id, file}
  const commonFile = path.join(dir, "common.json");
  const files = [commonFile];
  for (const d of ["client", "server"]) {
    const sub = path.join(dir, d);
    for (const f of fs.readdirSync(sub).sort()) {
      if (f.endsWith(".json")) files.push(path.join(sub, f));
      else fail(path.join(sub, f), "not a .json file in the schema directory");
    }
  }
  for (const file of files) {
    const rel = path.relative(dir, file).split(path.sep).join("/");
    let s;
    try {
      s = readJson(file);
    } catch (e) {
      fail(rel, `not JSON: ${e.message}`);
      continue;
    }
    if (s.$schema !== DRAFT) fail(rel, `$schema is not ${DRAFT}`);
    if (s.$id !== ID_BASE + rel) fail(rel, `$id is ${JSON.stringify(s.$id)}, expected ${ID_BASE + rel}`);
    for (const k of ["title", "description"]) {
      if (typeof s[k] !== "string" || s[k] === "") fail(rel, `no ${k}`);
    }
    docs.set(s.$id, s);
    if (file === commonFile) continue;
    const dirName = rel.split("/")[0];
    const type = path.basename(file, ".json");
    const keys = Object.keys(s.properties || {});
    if (s.type !== "object") fail(rel, `"type" is not "object"`);
    if (!s.properties || !s.properties.type || s.properties.type.const !== type) {
      fail(rel, `properties.type is not const ${JSON.stringify(type)}`);
    }
    if (keys[0] !== "type" || keys[1] !== "id") {
      fail(rel, `properties do not start with type, id (canonical order): ${keys.join(", ")}`);
    }
    // Unknown members are ignored, except by the analysis commands and get_best_move
    // (PROTOCOL.md section 16), which refuse them: their schemas say so with
    // additionalProperties false.
    const strict = dirName === "client" && (type.startsWith("analyze") || type === "get_best_move");
    if (s.additionalProperties !== (strict ? false : true))
      fail(rel, strict ? "additionalProperties is not false (analysis commands and get_best_move refuse unknown members)"
                       : "additionalProperties is not true (unknown members are ignored)");
    types[dirName].set(type, { id: s.$id, rel });
  }
  for (const t of types.client.keys()) {
    if (types.server.has(t)) fail(`schema ${t}`, "both a client and a server type: the direction would be ambiguous");
  }
  return { docs, types };
}

function compile(docs) {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  for (const s of docs.values()) ajv.addSchema(s);
  const validators = new Map();
  for (const id of docs.keys()) {
    try {
      validators.set(id, ajv.getSchema(id));
    } catch (e) {
      fail(id.slice(ID_BASE.length), `does not compile: ${e.message}`);
    }
  }
  return validators;
}

// Resolves a $ref against a base URI: returns {node, base}.
function resolveRef(docs, ref, base) {
  const url = new URL(ref, base);
  const hash = url.hash;
  url.hash = "";
  const doc = docs.get(url.href);
  if (!doc) throw new Error(`unresolved $ref ${ref} (from ${base})`);
  let node = doc;
  const ptr = decodeURIComponent(hash.replace(/^#/, ""));
  if (ptr) {
    for (const part of ptr.split("/").slice(1)) {
      node = node[part.replace(/~1/g, "/").replace(/~0/g, "~")];
      if (node === undefined) throw new Error(`unresolved $ref ${ref} (from ${base})`);
    }
  }
  return { node, base: url.href, ptr };
}

// The object/array shapes a schema node allows, following $ref and anyOf/oneOf branches.
function shapes(docs, node, base, out = [], seen = 0) {
  if (seen > 50 || node === true || node === false || node === undefined) return out;
  if (node.$ref) {
    const r = resolveRef(docs, node.$ref, base);
    shapes(docs, r.node, r.base, out, seen + 1);
  }
  if (node.properties || node.items !== undefined || node.prefixItems) out.push({ node, base });
  for (const k of ["anyOf", "oneOf"]) {
    for (const b of node[k] || []) shapes(docs, b, base, out, seen + 1);
  }
  return out;
}

// Whether value meets an "if" of the simple kind the schemas use: required members, and
// the same rule for members' own "properties"/"required", "const" and "not".
function meetsIf(node, value) {
  if (node === true) return true;
  if (Object.prototype.hasOwnProperty.call(node, "const")) return value === node.const;
  if (node.not !== undefined) return !meetsIf(node.not, value);
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  for (const k of node.required || []) if (!Object.prototype.hasOwnProperty.call(value, k)) return false;
  for (const [k, sub] of Object.entries(node.properties || {})) {
    if (sub !== true && Object.prototype.hasOwnProperty.call(value, k) && !meetsIf(sub, value[k])) return false;
  }
  return true;
}

// The member schemas that an object schema's if/then/else adds for this value (a room of
// another game than Thue describes its match in "then").
function branchProperties(node, value) {
  if (!node.if) return {};
  const branch = meetsIf(node.if, value) ? node.then : node.else;
  return (branch && branch.properties) || {};
}

// The canonical form (PROTOCOL.md "The canonical form") of a parsed message, as the schemas
// describe it: members in the order of "properties", defaults written out, unknown members
// and members without a value or default left out, nested objects alike.
function canonicalize(docs, value, node, base) {
  if (value === null || typeof value !== "object") return value;
  const cands = shapes(docs, node, base);
  if (Array.isArray(value)) {
    const c = cands.find((x) => x.node.items !== undefined || x.node.prefixItems);
    if (!c) return value;
    return value.map((v, i) => {
      const sub = c.node.prefixItems && i < c.node.prefixItems.length ? c.node.prefixItems[i] : c.node.items;
      return canonicalize(docs, v, sub, c.base);
    });
  }
  const c = cands.find((x) => x.node.properties);
  if (!c) return value;
  const out = {};
  const cond = branchProperties(c.node, value);
  for (const [k, sub0] of Object.entries(c.node.properties)) {
    const sub = cond[k] !== undefined && cond[k] !== true ? cond[k] : sub0;
    if (sub === false) continue;
    if (Object.prototype.hasOwnProperty.call(value, k)) {
      out[k] = canonicalize(docs, value[k], sub, c.base);
    } else if (sub && Object.prototype.hasOwnProperty.call(sub, "default")) {
      out[k] = structuredClone(sub.default);
    }
  }
  return out;
}

// Every $ref target of common.json's $defs, to find dead definitions.
function collectRefs(docs) {
  const used = new Set();
  const walk = (node, base) => {
    if (Array.isArray(node)) return node.forEach((n) => walk(n, base));
    if (node === null || typeof node !== "object") return;
    if (typeof node.$ref === "string") {
      const r = resolveRef(docs, node.$ref, base);
      used.add(r.base + "#" + r.ptr);
    }
    for (const [k, v] of Object.entries(node)) {
      if (k !== "$ref") walk(v, base);
    }
  };
  for (const [id, s] of docs) walk(s, id);
  return used;
}

// ---- a JSON scanner for what JSON.parse hides --------------------------------------------

// Scans a text JSON.parse accepted: the nesting depth (the message is depth 1), repeated keys
// (compared after unescaping), numbers written with a fraction or exponent (JSON Pointers),
// and strings or keys that are not well-formed Unicode (lone surrogate escapes).
function scan(text) {
  const res = { depth: 0, dupKeys: [], fractional: [], loneSurrogate: false };
  let i = 0;
  const esc = (k) => k.replace(/~/g, "~0").replace(/\//g, "~1");
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  const str = () => {
    let out = "";
    i++;
    while (text[i] !== '"') {
      if (text[i] === "\\") {
        const c = text[i + 1];
        if (c === "u") {
          out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
          i += 6;
        } else {
          out += { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" }[c];
          i += 2;
        }
      } else {
        out += text[i++];
      }
    }
    i++;
    if (!out.isWellFormed()) res.loneSurrogate = true;
    return out;
  };
  const value = (ptr, depth) => {
    ws();
    const c = text[i];
    if (c === "{" || c === "[") {
      depth++;
      res.depth = Math.max(res.depth, depth);
      i++;
      ws();
      const close = c === "{" ? "}" : "]";
      if (text[i] === close) {
        i++;
        return;
      }
      const seen = new Set();
      for (let n = 0; ; n++) {
        let sub;
        if (c === "{") {
          ws();
          const k = str();
          if (seen.has(k)) res.dupKeys.push(`${ptr}/${esc(k)}`);
          seen.add(k);
          ws();
          i++; // ':'
          sub = `${ptr}/${esc(k)}`;
        } else {
          sub = `${ptr}/${n}`;
        }
        value(sub, depth);
        ws();
        if (text[i++] === ",") continue;
        return;
      }
    }
    if (c === '"') {
      str();
      return;
    }
    const num = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
    num.lastIndex = i;
    const m = num.exec(text);
    if (m && m[0] !== "") {
      if (m[1] !== undefined || m[2] !== undefined) res.fractional.push(ptr);
      i += m[0].length;
      return;
    }
    for (const lit of ["true", "false", "null"]) {
      if (text.startsWith(lit, i)) {
        i += lit.length;
        return;
      }
    }
    throw new Error(`scanner lost at offset ${i}`);
  };
  value("", 0);
  return res;
}

function pointerGet(obj, ptr) {
  let node = obj;
  for (const part of ptr.split("/").slice(1)) node = node[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  return node;
}
function pointerSet(obj, ptr, v) {
  const parts = ptr.split("/").slice(1).map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  const last = parts.pop();
  let node = obj;
  for (const p of parts) node = node[p];
  node[last] = v;
}

// JSON Pointers (no leading slash) that ajv's errors blame: a missing member is named by its
// own pointer. Errors of combinators (which blame the object holding the fault) are left out.
const COMBINATORS = new Set(["anyOf", "oneOf", "allOf", "if", "not"]);
function blamed(errors) {
  return (errors || [])
    .filter((e) => !COMBINATORS.has(e.keyword))
    .map((e) => {
      let p = e.instancePath;
      if (e.keyword === "required") p += "/" + e.params.missingProperty.replace(/~/g, "~0").replace(/\//g, "~1");
      if (e.keyword === "additionalProperties") p += "/" + e.params.additionalProperty.replace(/~/g, "~0").replace(/\//g, "~1");
      return p.replace(/^\//, "");
    });
}

// ---- main --------------------------------------------------------------------------------

const opts = parseArgs(process.argv.slice(2));
const { docs, types } = loadSchemas(opts.schemas);
const validators = compile(docs);
if (failures.length) {
  // Nothing further can be checked against schemas that do not load or compile.
  console.error(`${failures.length} failure(s) in the schemas:`);
  for (const f of failures) console.error(`  ${f}`);
  process.exit(1);
}
const typeDir = new Map();
for (const d of ["client", "server"]) for (const t of types[d].keys()) typeDir.set(t, d);

function schemaFor(dir, type) {
  const t = types[dir].get(type);
  return t ? { validate: validators.get(t.id), node: docs.get(t.id), base: t.id } : null;
}
function canonicalText(dir, msg) {
  const s = schemaFor(dir, msg.type);
  return JSON.stringify(canonicalize(docs, msg, s.node, s.base));
}

// The pointers, among those given (numbers written with a fraction or exponent), whose value
// is whole but whose member must be an integer: each is replaced by 0.5 and the schema asked
// whether that is a type error there.
function integerMembers(dir, msg, pointers) {
  const s = typeof msg.type === "string" ? schemaFor(dir, msg.type) : null;
  if (!s || !s.validate) return [];
  return pointers.filter((p) => {
    const copy = structuredClone(msg);
    // Only whole values: JSON.parse hides "3.0" and "1e2" (3 and 100), not 1.5.
    if (!Number.isInteger(pointerGet(copy, p))) return false;
    pointerSet(copy, p, 0.5);
    s.validate(copy);
    return (s.validate.errors || []).some((e) => e.keyword === "type" && e.instancePath === p);
  });
}

// --- vectors
const NAME_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const VECTOR_KEYS = new Set(["name", "dir", "valid", "text", "text_b64", "canonical", "code", "field", "layer"]);
const vectors = [];
{
  const lines = fs.readFileSync(opts.vectors, "utf8").split("\n");
  lines.forEach((line, n) => {
    if (line.trim() === "" || line.startsWith("#")) return;
    const where = `${path.basename(opts.vectors)}:${n + 1}`;
    try {
      vectors.push({ where, v: JSON.parse(line) });
    } catch (e) {
      fail(where, `not a JSON line: ${e.message}`);
    }
  });
}

const names = new Set();
const stats = {
  valid: { client: 0, server: 0 },
  invalid: { json: 0, schema: 0, codec: 0 },
  invalidDir: { client: 0, server: 0 },
  canonicalGiven: 0,
};
const validTypes = { client: new Set(), server: new Set() };
const canonicalServerTypes = new Set();
const validTexts = new Set();

for (const { where, v } of vectors) {
  const label = `vector ${JSON.stringify(v.name)} (${where})`;
  if (typeof v.name !== "string" || !NAME_RE.test(v.name)) fail(label, "name is not kebab-case");
  if (names.has(v.name)) fail(label, "name repeated");
  names.add(v.name);
  for (const k of Object.keys(v)) if (!VECTOR_KEYS.has(k)) fail(label, `unknown member ${k}`);
  if (v.dir !== "client" && v.dir !== "server") {
    fail(label, `dir is ${JSON.stringify(v.dir)}`);
    continue;
  }
  if (typeof v.valid !== "boolean") {
    fail(label, "valid is not a boolean");
    continue;
  }
  if ((v.text === undefined) === (v.text_b64 === undefined)) {
    fail(label, "needs exactly one of text and text_b64");
    continue;
  }
  if (v.text !== undefined && (typeof v.text !== "string" || !v.text.isWellFormed())) {
    fail(label, "text is not a well-formed string (use text_b64 for bytes that are not UTF-8)");
    continue;
  }
  let bytes;
  let text;
  if (v.text_b64 !== undefined) {
    bytes = Buffer.from(v.text_b64, "base64");
    if (bytes.toString("base64") !== v.text_b64) fail(label, "text_b64 is not canonical base64");
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      fail(label, "text_b64 holds valid UTF-8: use text");
    } catch {
      text = undefined;
    }
  } else {
    text = v.text;
    bytes = Buffer.from(text, "utf8");
  }

  if (v.valid) {
    for (const k of ["code", "field", "layer"]) if (k in v) fail(label, `a valid vector has ${k}`);
    if (text === undefined) {
      fail(label, "a valid vector is not UTF-8");
      continue;
    }
    let msg;
    try {
      msg = JSON.parse(text);
    } catch (e) {
      fail(label, `not JSON: ${e.message}`);
      continue;
    }
    if (msg === null || typeof msg !== "object" || Array.isArray(msg)) {
      fail(label, "not a JSON object");
      continue;
    }
    const s = schemaFor(v.dir, msg.type);
    if (!s) {
      fail(label, `no ${v.dir} schema for type ${JSON.stringify(msg.type)}`);
      continue;
    }
    stats.valid[v.dir]++;
    validTypes[v.dir].add(msg.type);
    validTexts.add(`${v.dir}\u0000${text}`);
    if (!s.validate(msg)) fail(label, `fails ${v.dir}/${msg.type}.json: ${ajvErrors(s.validate.errors)}`);
    const sc = scan(text);
    if (sc.depth > MAX_DEPTH) fail(label, `nested ${sc.depth} deep (at most ${MAX_DEPTH})`);
    if (sc.dupKeys.length) fail(label, `repeated key ${sc.dupKeys.join(", ")}`);
    if (sc.loneSurrogate) fail(label, "a string is not well-formed Unicode");
    if (v.dir === "client" && bytes.length > MAX_CLIENT_BYTES) fail(label, `${bytes.length} bytes (a client message has at most ${MAX_CLIENT_BYTES})`);
    const ints = integerMembers(v.dir, msg, sc.fractional);
    if (ints.length) fail(label, `integer written with a fraction or exponent at ${ints.join(", ")}`);
    const want = canonicalText(v.dir, msg);
    if ("canonical" in v) {
      stats.canonicalGiven++;
      if (typeof v.canonical !== "string") {
        fail(label, "canonical is not a string");
        continue;
      }
      if (v.canonical === text) fail(label, "canonical equals text: leave it out");
      let cmsg;
      try {
        cmsg = JSON.parse(v.canonical);
      } catch (e) {
        fail(label, `canonical is not JSON: ${e.message}`);
        continue;
      }
      if (!s.validate(cmsg)) fail(label, `canonical fails ${v.dir}/${msg.type}.json: ${ajvErrors(s.validate.errors)}`);
      if (v.canonical !== want) fail(label, `canonical is ${v.canonical}\n    the schema's order and defaults give ${want}`);
    } else {
      if (text !== want) fail(label, `text is not canonical: give "canonical"; the schema's order and defaults give ${want}`);
      else if (v.dir === "server") canonicalServerTypes.add(msg.type);
    }
    continue;
  }

  // invalid
  if ("canonical" in v) fail(label, "an invalid vector has canonical");
  if (!["json", "schema", "codec"].includes(v.layer)) {
    fail(label, `layer is ${JSON.stringify(v.layer)}`);
    continue;
  }
  if (!["bad_json", "bad_message", "unknown_type"].includes(v.code)) fail(label, `code is ${JSON.stringify(v.code)}`);
  if ("field" in v && (typeof v.field !== "string" || v.field === "" || v.field.startsWith("/"))) {
    fail(label, "field is not a JSON Pointer without the leading slash");
  }
  stats.invalid[v.layer]++;
  stats.invalidDir[v.dir]++;
  let msg;
  let parsed = false;
  if (text !== undefined) {
    try {
      msg = JSON.parse(text);
      parsed = true;
    } catch {
      parsed = false;
    }
  }
  const isObject = parsed && msg !== null && typeof msg === "object" && !Array.isArray(msg);

  if (v.layer === "json") {
    if (isObject) fail(label, "layer json, but the text is a JSON object in UTF-8");
    if (v.code !== "bad_json") fail(label, `layer json needs code bad_json, not ${v.code}`);
    if ("field" in v) fail(label, "layer json names no field");
    continue;
  }
  if (!isObject) {
    fail(label, `layer ${v.layer}, but the text is not a JSON object in UTF-8`);
    continue;
  }
  const sc = scan(text);
  const structural = [];
  if (sc.depth > MAX_DEPTH) structural.push(`nested ${sc.depth} deep`);
  if (sc.dupKeys.length) structural.push(`repeated key ${sc.dupKeys.join(", ")}`);
  if (sc.loneSurrogate) structural.push("a lone surrogate escape");
  if (v.dir === "client" && bytes.length > MAX_CLIENT_BYTES) structural.push(`${bytes.length} bytes`);
  const ints = integerMembers(v.dir, msg, sc.fractional);
  const s = typeof msg.type === "string" ? schemaFor(v.dir, msg.type) : null;

  if (v.layer === "codec") {
    if (!s) {
      fail(label, `layer codec needs a known ${v.dir} type, not ${JSON.stringify(msg.type)}`);
      continue;
    }
    if (!s.validate(msg)) fail(label, `layer codec, but ${v.dir}/${msg.type}.json rejects it: ${ajvErrors(s.validate.errors)}`);
    if (structural.length) {
      if (v.code !== "bad_json") fail(label, `${structural.join(", ")}: code bad_json, not ${v.code}`);
      if ("field" in v) fail(label, "a structural fault names no field");
    } else if (ints.length) {
      if (v.code !== "bad_message") fail(label, `an integer with a fraction or exponent: code bad_message, not ${v.code}`);
      if ("field" in v && !ints.includes("/" + v.field)) fail(label, `field ${v.field}, but the integers with a fraction or exponent are at ${ints.join(", ")}`);
    } else {
      fail(label, "layer codec, but no fault only the codec sees (repeated key, depth, size, integer with a fraction or exponent, lone surrogate)");
    }
    continue;
  }

  // layer schema
  if (structural.length || ints.length) fail(label, `layer schema, but it also has a codec fault: ${[...structural, ...ints].join(", ")}`);
  // PROTOCOL.md section 10: unknown_type when "`type` is missing or names no client
  // message"; a type that is not a string is of the wrong type (bad_message).
  if (!Object.prototype.hasOwnProperty.call(msg, "type")) {
    if (v.code !== "unknown_type") fail(label, `a missing type: code unknown_type, not ${v.code}`);
    if ("field" in v && v.field !== "type") fail(label, `a missing type: field type, not ${v.field}`);
    continue;
  }
  if (typeof msg.type !== "string") {
    if (v.code !== "bad_message" || v.field !== "type") fail(label, "a type that is not a string: code bad_message, field type");
    continue;
  }
  if (!s) {
    if (v.code !== "unknown_type") fail(label, `no ${v.dir} message has type ${JSON.stringify(msg.type)}: code unknown_type, not ${v.code}`);
    if ("field" in v && v.field !== "type") fail(label, `unknown_type: field type or none, not ${v.field}`);
    continue;
  }
  if (v.code !== "bad_message") fail(label, `a known type that its schema rejects: code bad_message, not ${v.code}`);
  if (s.validate(msg)) {
    fail(label, `layer schema, but ${v.dir}/${msg.type}.json accepts it`);
    continue;
  }
  if ("field" in v) {
    const b = blamed(s.validate.errors);
    // The field must be blamed, and nothing else but the objects that hold it (a vector
    // has one fault, so that the codec's choice of field is not arbitrary).
    const stray = b.filter((p) => p !== v.field && !v.field.startsWith(p === "" ? "" : p + "/"));
    if (!b.includes(v.field)) fail(label, `field ${v.field}, but ajv blames ${JSON.stringify(b)}: ${ajvErrors(s.validate.errors)}`);
    else if (stray.length) fail(label, `more than one fault: ajv also blames ${JSON.stringify(stray)}: ${ajvErrors(s.validate.errors)}`);
  }
}

// --- PROTOCOL.md's examples
const md = fs.readFileSync(opts.protocol, "utf8");
const exampleRe = /^```json\n([\s\S]*?)\n```$/gm;
let examples = 0;
let examplesNonCanonical = 0;
const exampleTypes = new Set();
for (let m; (m = exampleRe.exec(md)); ) {
  const line = md.slice(0, m.index).split("\n").length + 1;
  const label = `PROTOCOL.md:${line}`;
  const text = m[1];
  examples++;
  let msg;
  try {
    msg = JSON.parse(text);
  } catch (e) {
    fail(label, `example is not JSON: ${e.message}`);
    continue;
  }
  const dir = typeDir.get(msg && msg.type);
  if (!dir) {
    fail(label, `example of unknown type ${JSON.stringify(msg && msg.type)}`);
    continue;
  }
  exampleTypes.add(msg.type);
  const s = schemaFor(dir, msg.type);
  if (!s.validate(msg)) fail(label, `example fails ${dir}/${msg.type}.json: ${ajvErrors(s.validate.errors)}\n    ${text}`);
  if (canonicalText(dir, msg) !== text) examplesNonCanonical++;
  if (!validTexts.has(`${dir}\u0000${text}`)) fail(label, `example is not a valid ${dir} vector: ${text}`);
}
if (examples === 0) fail(opts.protocol, "no ```json examples found");

// --- coverage
for (const d of ["client", "server"]) {
  for (const [t, info] of types[d]) {
    if (!validTypes[d].has(t)) fail(info.rel, "no valid vector uses this schema");
  }
}
for (const t of types.server.keys()) {
  if (!canonicalServerTypes.has(t)) fail(`server/${t}.json`, "no valid vector in canonical form (without \"canonical\")");
}
{
  const used = collectRefs(docs);
  const common = docs.get(ID_BASE + "common.json");
  for (const name of Object.keys((common && common.$defs) || {})) {
    if (!used.has(`${ID_BASE}common.json#/$defs/${name}`)) fail("common.json", `$defs/${name} is never referenced`);
  }
}

// --- summary
const nInvalid = stats.invalid.json + stats.invalid.schema + stats.invalid.codec;
console.log(
  `schemas: ${types.client.size} client + ${types.server.size} server + common.json\n` +
    `PROTOCOL.md examples: ${examples} (${exampleTypes.size} types; ${examplesNonCanonical} not in canonical form)\n` +
    `vectors: ${vectors.length} = ${stats.valid.client + stats.valid.server} valid ` +
    `(${stats.valid.client} client, ${stats.valid.server} server; ${stats.canonicalGiven} with "canonical") + ` +
    `${nInvalid} invalid (${stats.invalidDir.client} client, ${stats.invalidDir.server} server; ` +
    `layer json ${stats.invalid.json}, schema ${stats.invalid.schema}, codec ${stats.invalid.codec})`,
);
if (failures.length) {
  console.error(`\n${failures.length} failure(s):`);
  for (const f of failures) console.error(`  ${f}`);
  process.exit(1);
}
console.log("all checks passed");
