// deploy_settings.test.mjs: the deployment files name only settings the server has.
// thue-server --help is the authority: its flags (`  --NAME ...` lines) and, for each,
// the variable THUE_ + NAME in capitals with '-' as '_' (plus THUE_CONFIG). Checked:
//   - deploy/docker-compose*.yml: the `environment:` keys named THUE_* of every service
//     that runs the server's image (built from the Dockerfile, or image thue-server),
//     anchors and merge keys resolved, and the flags of its `command:`;
//   - deploy/k8s/**/*.yaml: every ConfigMap's THUE_* keys (a ConfigMap a server container
//     takes with envFrom must hold nothing else), and for each container that runs
//     thue-server (image thue-server and no command, or a command that is thue-server)
//     its env names and the flags of its command and args;
//   - deploy/systemd: thue.env.example's THUE_* lines (commented ones included), the
//     unit's Environment= and ExecStart= flags; the Dockerfile's ENV;
//   - the single-node files' values: the server starts with deploy/k8s/configmap.yaml's
//     and docker-compose.yml's environment (their defaults), on a loopback port.
// A flag refused on the command line (--cluster-secret: `ps` would show it) may not be
// passed there. The checker itself is checked on a file with a wrong name and flag.
//
// Parses YAML with Python's yaml module (Debian: python3-yaml; scripts/test.sh installs it).
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { SERVER, WAIT_MS, run, test, withTimeout } from "./lib.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const DEPLOY = path.join(ROOT, "deploy");

// ---- what the server takes ------------------------------------------------------------

function serverSettings() {
  const r = spawnSync(SERVER, ["--help"], { encoding: "utf8", timeout: WAIT_MS });
  assert.equal(r.status, 0, `thue-server --help: ${r.stderr}`);
  const flags = new Set();
  for (const m of r.stdout.matchAll(/^ {2}--([a-z0-9][a-z0-9-]*)\b/gm)) flags.add(m[1]);
  assert.ok(flags.has("port") && flags.has("db") && flags.size > 40, `--help lists the flags: ${[...flags]}`);
  const env = new Set(["THUE_CONFIG"]);
  for (const f of flags) if (f !== "help" && f !== "version") env.add("THUE_" + f.toUpperCase().replaceAll("-", "_"));
  // The help says which flag the command line refuses (its value would show in ps).
  const refused = new Set();
  for (const m of r.stdout.matchAll(/^ {2}--([a-z0-9-]+)[^\n]*\n((?: {20,}[^\n]*\n)*)/gm))
    if (/the flag is refused/.test(m[0].replace(/\s+/g, " "))) refused.add(m[1]);
  return { flags, env, refused };
}

// ---- YAML, through Python ---------------------------------------------------------------

const PY = `
import json, sys, yaml
out = {}
for f in sys.argv[1:]:
    with open(f) as fh:
        out[f] = [d for d in yaml.safe_load_all(fh) if d is not None]
print(json.dumps(out))
`;

function loadYaml(files) {
  const r = spawnSync("python3", ["-c", PY, ...files], { encoding: "utf8", timeout: WAIT_MS, maxBuffer: 1 << 26 });
  if (r.error || r.status !== 0)
    throw new Error(`python3 with yaml could not read the files (Debian: apt-get install python3-yaml; ` +
      `scripts/test.sh installs it): ${r.error ? r.error.message : r.stderr}`);
  return JSON.parse(r.stdout);
}

function walk(dir, pred, out = []) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, pred, out);
    else if (pred(e.name)) out.push(p);
  }
  return out.sort();
}

// ---- the checks -------------------------------------------------------------------------

/** The flags (--NAME, --NAME=VALUE) in a command's words. */
function flagsOf(words) {
  const out = [];
  for (const w of words || []) {
    const m = /^--([^=\s]+)/.exec(String(w));
    if (m) out.push(m[1]);
  }
  return out;
}

/** Compose: the services that run the server, their THUE_* keys and command flags. */
function checkCompose(file, docs, s, problems) {
  const where = path.relative(ROOT, file);
  for (const doc of docs) {
    for (const [name, svc] of Object.entries(doc.services || {})) {
      const image = String(svc.image || "");
      const isServer = svc.build !== undefined || /(^|\/)thue-server(:|$)/.test(image);
      const envMap = Array.isArray(svc.environment)
        ? Object.fromEntries(svc.environment.map((e) => [String(e).split("=")[0], String(e).split("=").slice(1).join("=")]))
        : svc.environment || {};
      for (const key of Object.keys(envMap)) {
        if (!key.startsWith("THUE_")) continue;
        if (!isServer) continue; // e.g. another image's own variables
        if (!s.env.has(key)) problems.push(`${where}: service ${name}: ${key} is not a thue-server setting`);
      }
      if (isServer) {
        const words = typeof svc.command === "string" ? svc.command.split(/\s+/) : svc.command;
        checkFlags(`${where}: service ${name}: command`, words, s, problems);
      }
    }
  }
}

function checkFlags(where, words, s, problems) {
  for (const f of flagsOf(words)) {
    if (!s.flags.has(f)) problems.push(`${where}: --${f} is not a thue-server flag`);
    else if (s.refused.has(f)) problems.push(`${where}: --${f} is refused on the command line`);
  }
}

/** Kubernetes: ConfigMaps' THUE_* keys, the server containers' env, envFrom, command, args. */
function checkK8s(file, docs, s, problems, configMaps) {
  const where = path.relative(ROOT, file);
  for (const doc of docs) {
    if (doc.kind === "ConfigMap") {
      for (const key of Object.keys(doc.data || {}))
        if (key.startsWith("THUE_") && !s.env.has(key))
          problems.push(`${where}: ConfigMap ${doc.metadata?.name}: ${key} is not a thue-server setting`);
      continue;
    }
    const pod = doc.spec?.template?.spec || (doc.kind === "Pod" ? doc.spec : null);
    if (!pod) continue;
    for (const c of [...(pod.initContainers || []), ...(pod.containers || [])]) {
      const image = String(c.image || "");
      const runsServer = /(^|\/)thue-server(:|@|$)/.test(image) &&
        (!c.command || /(^|\/)thue-server$/.test(String(c.command[0])));
      if (!runsServer) continue;
      const at = `${where}: ${doc.kind} ${doc.metadata?.name}, container ${c.name}`;
      for (const e of c.env || [])
        if (e.name.startsWith("THUE_") && !s.env.has(e.name)) problems.push(`${at}: ${e.name} is not a thue-server setting`);
      for (const ef of c.envFrom || []) {
        const ref = ef.configMapRef?.name;
        if (!ref) continue;
        const cm = configMaps.get(ref);
        if (!cm) { problems.push(`${at}: envFrom names the ConfigMap ${ref}, which no file defines`); continue; }
        for (const key of Object.keys(cm.data || {}))
          if (!s.env.has(key)) problems.push(`${at}: ConfigMap ${ref} (envFrom) holds ${key}, not a thue-server setting`);
      }
      checkFlags(`${at}: command/args`, [...(c.command || []).slice(1), ...(c.args || [])], s, problems);
    }
  }
}

/** KEY=VALUE lines (a leading # allowed: the example's optional settings). */
function checkEnvLines(where, text, s, problems) {
  for (const m of text.matchAll(/^#?\s*(THUE_[A-Z0-9_]+)=/gm))
    if (!s.env.has(m[1])) problems.push(`${where}: ${m[1]} is not a thue-server setting`);
}

function checkAll(s, files) {
  const problems = [];
  const yamlFiles = [...files.compose, ...files.k8s];
  const docs = loadYaml(yamlFiles);
  const configMaps = new Map();
  for (const f of files.k8s) for (const d of docs[f]) if (d.kind === "ConfigMap") configMaps.set(d.metadata?.name, d);
  for (const f of files.compose) checkCompose(f, docs[f], s, problems);
  for (const f of files.k8s) checkK8s(f, docs[f], s, problems, configMaps);
  for (const f of files.envFiles || []) checkEnvLines(path.relative(ROOT, f), fs.readFileSync(f, "utf8"), s, problems);
  for (const f of files.units || []) {
    const text = fs.readFileSync(f, "utf8");
    for (const m of text.matchAll(/^Environment=(.*)$/gm)) checkEnvLines(path.relative(ROOT, f), m[1], s, problems);
    for (const m of text.matchAll(/^ExecStart=(.*)$/gm))
      checkFlags(`${path.relative(ROOT, f)}: ExecStart`, m[1].split(/\s+/).slice(1), s, problems);
  }
  for (const f of files.dockerfiles || []) {
    const text = fs.readFileSync(f, "utf8").replace(/\\\n/g, " ");
    for (const m of text.matchAll(/^ENV\s+(.*)$/gm))
      for (const k of m[1].matchAll(/(THUE_[A-Z0-9_]+)=/g))
        if (!s.env.has(k[1])) problems.push(`${path.relative(ROOT, f)}: ENV ${k[1]} is not a thue-server setting`);
  }
  return { problems, docs };
}

const FILES = {
  compose: fs.readdirSync(DEPLOY).filter((n) => /^docker-compose.*\.ya?ml$/.test(n)).map((n) => path.join(DEPLOY, n)).sort(),
  k8s: walk(path.join(DEPLOY, "k8s"), (n) => /\.ya?ml$/.test(n)),
  envFiles: [path.join(DEPLOY, "systemd", "thue.env.example")],
  units: [path.join(DEPLOY, "systemd", "thue-server.service")],
  dockerfiles: [path.join(ROOT, "Dockerfile")],
};

const settings = serverSettings();

test("deploy/ names only the server's real settings (THUE_* variables and flags)", async () => {
  assert.ok(FILES.compose.length >= 2, `compose files found: ${FILES.compose}`);
  assert.ok(FILES.k8s.length >= 10, `k8s files found: ${FILES.k8s}`);
  const { problems, docs } = checkAll(settings, FILES);
  assert.deepEqual(problems, [], "settings the server does not have:\n" + problems.join("\n"));
  // It did look at something: the names it found in each kind of file.
  const seen = JSON.stringify(docs);
  for (const key of ["THUE_PORT", "THUE_NODE", "THUE_DRAIN_S", "THUE_CLUSTER_SECRET_FILE", "THUE_TRUSTED_PROXY"])
    assert.ok(seen.includes(key), `the deploy files mention ${key}`);
});

test("the checker catches a wrong variable and a wrong or refused flag", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thue-deploy-check-"));
  try {
    const compose = path.join(dir, "docker-compose.bad.yml");
    fs.writeFileSync(compose, [
      "x-env: &env",
      "  THUE_MAX_ROOM: '5'",
      "services:",
      "  thue:",
      "    build: {context: ..}",
      "    environment:",
      "      <<: *env",
      "      THUE_PORT: '8080'",
      "    command: ['--max-rooms', '5', '--no-such-flag=1', '--cluster-secret', 'x']",
      "  other:",
      "    image: redis:7",
      "    environment: {THUE_WHATEVER: '1'}",
      "    command: ['--port', '0', '--not-ours']",
      "",
    ].join("\n"));
    const k8s = path.join(dir, "bad.yaml");
    fs.writeFileSync(k8s, [
      "apiVersion: v1", "kind: ConfigMap", "metadata: {name: cm}", "data: {THUE_PORT: '1', OTHER: '2'}",
      "---",
      "apiVersion: apps/v1", "kind: Deployment", "metadata: {name: d}",
      "spec:", "  template:", "    spec:", "      containers:",
      "        - name: s", "          image: example.org/thue-server:1",
      "          envFrom: [{configMapRef: {name: cm}}]",
      "          env: [{name: THUE_GRACE, value: '1'}, {name: THUE_GRACE_S, value: '1'}]",
      "          args: ['--drain-s', '30', '--drains', '30']",
      "        - name: side", "          image: thue-server", "          command: ['stunnel', '--anything']",
      "",
    ].join("\n"));
    const { problems } = checkAll(settings, { compose: [compose], k8s: [k8s] });
    const text = problems.join("\n");
    for (const want of [/THUE_MAX_ROOM is not/, /--no-such-flag is not a thue-server flag/,
      /--cluster-secret is refused/, /ConfigMap cm \(envFrom\) holds OTHER/, /THUE_GRACE is not/, /--drains is not/])
      assert.match(text, want);
    for (const never of [/THUE_WHATEVER/, /--not-ours/, /--anything/, /THUE_PORT/, /THUE_GRACE_S/, /--drain-s is/, /--max-rooms/])
      assert.doesNotMatch(text, never);
    assert.equal(problems.length, 6, text);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** ${X:-default} and ${X:?message} as Compose expands them with X unset. */
function composeDefault(v) {
  return String(v).replace(/\$\{([A-Z0-9_]+)(?::?-([^}]*)|:?\?[^}]*)?\}/g, (_, name, def) => def ?? "");
}

async function startsWith(env, what) {
  const proc = spawn(SERVER, ["--port", "0", "--bind", "127.0.0.1", "--db", ":memory:"],
    { env: { PATH: process.env.PATH, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  proc.stdout.on("data", (d) => (out += d));
  proc.stderr.on("data", (d) => (err += d));
  const exited = once(proc, "exit");
  try {
    await withTimeout(new Promise((resolve, reject) => {
      proc.stdout.on("data", () => /listening on http/.test(out) && resolve());
      exited.then(([code]) => reject(new Error(`thue-server with ${what} exited ${code}: ${err}`)));
    }), WAIT_MS, `thue-server with ${what} to listen`);
  } finally {
    proc.kill("SIGTERM");
    await withTimeout(exited, WAIT_MS, "thue-server to stop");
  }
}

test("the server starts with the single-node files' settings (their values are valid)", async () => {
  const docs = loadYaml([path.join(DEPLOY, "k8s", "configmap.yaml"), path.join(DEPLOY, "docker-compose.yml")]);
  const cm = docs[path.join(DEPLOY, "k8s", "configmap.yaml")].find((d) => d.kind === "ConfigMap");
  await startsWith({ ...cm.data, THUE_PORT: "0" }, "deploy/k8s/configmap.yaml");
  const svc = docs[path.join(DEPLOY, "docker-compose.yml")][0].services.thue;
  const env = Object.fromEntries(Object.entries(svc.environment).map(([k, v]) => [k, composeDefault(v)]));
  await startsWith({ ...env, THUE_PORT: "0" }, "deploy/docker-compose.yml's environment");
});

await run();
