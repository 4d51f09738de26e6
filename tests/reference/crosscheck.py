#!/usr/bin/env python3
"""crosscheck.py: compare the `thue` CLI with the independent Python reference.

    python3 tests/reference/crosscheck.py --thue build/clients/cli/thue \\
        --vectors tests/vectors/engine.txt [--seed S] [--positions N] [--jobs J]

(a) every line of the vectors file is run through `thue check|moves ... --json` and the
    parsed JSON is compared with the vector;
(b) --positions fresh random positions (seeded; the seed is printed) are compared with
    thue_ref: words reachable in random play (both variants, k over 2..64) for `check`
    and `moves`, arbitrary words (mostly with repetitions) for `check`, and the error
    paths (`moves` on a word with a repetition, a symbol >= k, bad arguments: exit 2,
    nothing on stdout).
Every successful output must be exactly one line of compact JSON with the documented key
order. Ends with the line "N passed, M failed"; exits 1 on any failure.
"""

import argparse
import concurrent.futures
import itertools
import json
import multiprocessing
import os
import random
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import thue_ref as ref  # noqa: E402

EXIT_USAGE = 2
# k values always covered by the random positions, then uniformly drawn ones.
K_ALWAYS = [2, 3, 4, 5, 10, 11, 63, 64]


def compact(obj):
    return json.dumps(obj, separators=(",", ":"))


def expected_check(word, variant):
    return {"word": list(word), "variant": variant,
            "repetition": ref.find_repetition(word, variant)}


def expected_moves(word, k, variant):
    return {"word": list(word), "k": k, "variant": variant,
            "safe": ref.legal_map(word, k, variant)}


def word_arg(word, rng=None):
    """Comma form, or digit form when every symbol < 10 and the coin says so. A
    one-symbol word >= 10 is written "[63]" (a bare "63" is the digits 6,3)."""
    if len(word) == 1 and word[0] >= 10:
        return "[%d]" % word[0]
    if rng is not None and all(c < 10 for c in word) and rng.random() < 0.5:
        return "".join(str(c) for c in word)
    return ref.word_text(word)


class Case:
    """One CLI invocation and what it must produce.
    kind "json": exit 0 and stdout == compact(expect) + newline.
    kind "usage": exit 2 and empty stdout."""

    def __init__(self, origin, argv, kind, expect=None, info=None):
        self.origin = origin      # e.g. "vectors:17" or "random #12"
        self.argv = argv          # arguments after the binary
        self.kind = kind
        self.expect = expect
        self.info = info or {}    # word, variant, k for the report


def run_case(thue, case):
    for attempt in range(4):
        try:
            p = subprocess.run([thue] + case.argv, capture_output=True, timeout=60)
            return p.returncode, p.stdout.decode("utf-8", "replace"), \
                p.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            return None, "", "TIMEOUT after 60 s"
        except OSError as e:
            # e.g. the binary is being relinked right now: try again shortly
            if attempt == 3:
                return None, "", "cannot run: %s" % e
            time.sleep(0.5)


def judge(case, rc, out, err):
    """None when the result is right, else a list of explanation lines."""
    if case.kind == "usage":
        problems = []
        if rc != EXIT_USAGE:
            problems.append("exit status %r, expected %d" % (rc, EXIT_USAGE))
        if out != "":
            problems.append("stdout should be empty, got %r" % out[:300])
        if rc == EXIT_USAGE and err.strip() == "":
            problems.append("no error message on stderr")
        return problems or None
    problems = []
    if rc != 0:
        problems.append("exit status %r, expected 0; stderr: %s" % (rc, err.strip()[:300]))
    want_line = compact(case.expect)
    try:
        got = json.loads(out)
    except ValueError:
        got = None
        problems.append("stdout is not JSON: %r" % out[:300])
    if got is not None and got != case.expect:
        problems.append("JSON differs")
        problems += diff_lines(case.expect, got)
    elif got is not None and out != want_line + "\n":
        problems.append("same JSON, but the raw output is not the single compact line")
        problems.append("  expected raw: %r" % (want_line + "\n")[:300])
        problems.append("  got raw:      %r" % out[:300])
    return problems or None


def diff_lines(want, got):
    lines = []
    if not isinstance(got, dict):
        return ["  expected: %s" % compact(want)[:400], "  got:      %s" % compact(got)[:400]]
    for key in list(want) + [k for k in got if k not in want]:
        a, b = want.get(key, "<missing>"), got.get(key, "<missing>")
        if a == b:
            continue
        if key == "safe" and isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                lines.append("  safe: %d positions expected, got %d" % (len(a), len(b)))
            shown = 0
            for i in range(max(len(a), len(b))):
                x = a[i] if i < len(a) else "<missing>"
                y = b[i] if i < len(b) else "<missing>"
                if x != y:
                    if shown < 6:
                        lines.append("  safe[%d]: expected %s, got %s" % (i, x, y))
                    shown += 1
            if shown > 6:
                lines.append("  ... %d more differing positions" % (shown - 6))
        else:
            lines.append("  %s: expected %s, got %s" % (key, compact(a)[:400],
                                                        compact(b)[:400]))
    return lines


def vector_cases(path, bad_vectors):
    """Cases for every vector line; lines where the vector and thue_ref disagree are
    appended to bad_vectors (the file is stale or was edited by hand)."""
    cases = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            try:
                v = ref.parse_vector_line(line)
            except ValueError as e:
                raise SystemExit("%s:%d: %s" % (path, lineno, e))
            if v is None:
                continue
            origin = "%s:%d" % (os.path.basename(path), lineno)
            w = v["word"]
            if v["cmd"] == "check":
                argv = ["check", word_arg(w), "--variant", v["variant"], "--json"]
                exp = {"word": w, "variant": v["variant"], "repetition": v["repetition"]}
                info = {"word": w, "variant": v["variant"]}
            else:
                argv = ["moves", word_arg(w), "--k", str(v["k"]), "--variant",
                        v["variant"], "--json"]
                exp = {"word": w, "k": v["k"], "variant": v["variant"], "safe": v["safe"]}
                info = {"word": w, "variant": v["variant"], "k": v["k"]}
            # the vectors themselves must agree with the reference
            if v["cmd"] == "check":
                mine = expected_check(w, v["variant"])
            else:
                try:
                    mine = expected_moves(w, v["k"], v["variant"])
                except ValueError as e:
                    mine = {"error": str(e)}
            if mine != exp:
                bad_vectors.append((origin, info, exp, mine))
            cases.append(Case(origin, argv, "json", exp, info))
    return cases


def pick_k(rng, idx):
    if idx < 2 * len(K_ALWAYS):
        return K_ALWAYS[idx % len(K_ALWAYS)]
    r = rng.random()
    if r < 0.45:
        return rng.randint(2, 12)
    return rng.randint(13, 64)


def max_len(k):
    if k <= 12:
        return 80
    if k <= 32:
        return 60
    return 45


def check_argv(rng, word, variant):
    """check argv; the default variant (square) is sometimes left implicit."""
    argv = ["check", word_arg(word, rng)]
    if variant != "square" or rng.random() < 0.5:
        argv += ["--variant", variant]
    return argv + ["--json"]


def moves_argv(rng, word, k, variant):
    argv = ["moves", word_arg(word, rng), "--k", str(k)]
    if variant != "square" or rng.random() < 0.5:
        argv += ["--variant", variant]
    return argv + ["--json"]


def position_cases(seed_idx):
    """Cases of random position idx: a random-play word (check + moves) and an arbitrary
    word (check); every 8th position also error-path cases. Each position has its own
    generator seeded from (seed, idx), so the cases do not depend on scheduling."""
    seed, idx = seed_idx
    rng = random.Random("%d/%d" % (seed, idx))
    cases = []
    origin = "random #%d (seed %d)" % (idx, seed)
    k = pick_k(rng, idx)
    v = ref.VARIANTS[idx % 2]
    w = ref.random_play_word(rng, k, v, rng.randint(1, max_len(k)))
    info = {"word": w, "variant": v, "k": k}
    cases.append(Case(origin, check_argv(rng, w, v), "json", expected_check(w, v), info))
    cases.append(Case(origin, moves_argv(rng, w, k, v), "json",
                      expected_moves(w, k, v), info))

    # an arbitrary word: random; or the clean word plus one insertion, mostly of a symbol
    # that makes a repetition (as at the end of a round); or u u / u u a
    r = rng.random()
    v2 = rng.choice(ref.VARIANTS)
    if r < 0.35:
        a = ref.random_word(rng, k, rng.randint(1, max_len(k)))
    elif r < 0.8:
        i = rng.randrange(len(w) + 1)
        c = rng.randrange(k)
        if rng.random() < 0.8:
            bad = [c for c in range(k) if not ref.is_safe(w, i, c, v)] if v2 == v else \
                [c for c in range(k)
                 if ref.find_repetition(ref.insert(w, i, c), v2) is not None]
            c = rng.choice(bad) if bad else c
        a = ref.insert(w, i, c)
    else:
        u = ref.random_play_word(rng, k, v2, rng.randint(1, max_len(k) // 2))
        a = u + u + (u[:1] if v2 == "overlap" else [])
    cases.append(Case(origin, check_argv(rng, a, v2), "json", expected_check(a, v2),
                      {"word": a, "variant": v2}))

    if idx % 8 == 0:
        cases.extend(error_cases(rng, origin, k, v, w))
    return cases


def random_cases(seed, positions, jobs):
    """All random positions' cases, computed by `jobs` worker processes (the reference is
    the slow part; the CLI runs overlap with it)."""
    work = ((seed, idx) for idx in range(positions))
    if jobs <= 1:
        for cases in map(position_cases, work):
            yield from cases
        return
    with multiprocessing.Pool(jobs) as procs:
        for cases in procs.imap(position_cases, work, chunksize=4):
            yield from cases


def error_cases(rng, origin, k, v, w):
    out = []
    # moves on a word that contains a repetition
    for _ in range(20):
        a = ref.insert(w, rng.randrange(len(w) + 1), rng.randrange(k))
        if ref.find_repetition(a, v) is not None:
            out.append(Case(origin + " [moves on a word with a repetition]",
                            moves_argv(rng, a, k, v), "usage", None,
                            {"word": a, "variant": v, "k": k}))
            break
    # a symbol >= k; it occurs once, so the word stays clean and only k is wrong
    if k < 64:
        a = ref.insert(w, rng.randrange(len(w) + 1), rng.randint(k, 63))
        assert ref.find_repetition(a, v) is None
        out.append(Case(origin + " [symbol >= k]", moves_argv(rng, a, k, v), "usage",
                        None, {"word": a, "variant": v, "k": k}))
    return out


def fixed_error_cases():
    o = "fixed error case"
    return [
        Case(o, ["moves", "0,1,2,3", "--k", "3", "--json"], "usage"),   # symbol 3 >= k
        Case(o, ["moves", "0,2", "--k", "2", "--variant", "overlap", "--json"], "usage"),
        Case(o, ["moves", "0,64", "--k", "64", "--json"], "usage"),      # 64 >= 64
        Case(o, ["moves", "0,0", "--k", "3", "--json"], "usage"),        # square 00
        Case(o, ["moves", "0,0,0", "--k", "2", "--variant", "overlap", "--json"], "usage"),
        Case(o, ["moves", "01212", "--k", "3", "--json"], "usage"),      # 1212
        Case(o, ["moves", "0", "--k", "1", "--json"], "usage"),          # k < 2
        Case(o, ["moves", "0", "--k", "65", "--json"], "usage"),         # k > 64
        Case(o, ["moves", "0", "--k", "3", "--variant", "cube", "--json"], "usage"),
        Case(o, ["check", "0,1", "--variant", "cube", "--json"], "usage"),
        Case(o, ["check", "0,64", "--json"], "usage"),                   # no symbol 64
        Case(o, ["check", "0,x", "--json"], "usage"),
        Case(o, ["check", "--json"], "usage"),                           # missing WORD
    ]


def report(case, rc, out, err, problems):
    print("FAIL %s" % case.origin)
    if case.info:
        inf = case.info
        desc = "  word=%s variant=%s" % (ref.word_text(inf["word"]), inf.get("variant"))
        if "k" in inf:
            desc += " k=%d" % inf["k"]
        print(desc + " (n=%d)" % len(inf["word"]))
    print("  command: thue %s" % " ".join(case.argv))
    for line in problems:
        print("  " + line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--thue", required=True, help="path to the thue CLI binary")
    ap.add_argument("--vectors", required=True, help="golden vectors (tests/vectors/engine.txt)")
    ap.add_argument("--seed", type=int, default=None,
                    help="seed for the random positions (default: from the clock)")
    ap.add_argument("--positions", type=int, default=1500,
                    help="random positions (each: check + moves + one arbitrary check)")
    ap.add_argument("--jobs", type=int, default=max(2, os.cpu_count() or 2),
                    help="CLI processes run in parallel")
    ap.add_argument("--show", type=int, default=10, help="failures shown in detail")
    args = ap.parse_args()

    seed = args.seed if args.seed is not None else int(time.time() * 1000) % 1000000007
    print("crosscheck: seed %d (reproduce with --seed %d --positions %d)"
          % (seed, seed, args.positions), flush=True)
    if not os.access(args.thue, os.X_OK):
        print("crosscheck: %s is not an executable" % args.thue)
        print("0 passed, 1 failed")
        return 1
    t0 = time.time()
    ref.selftest(rounds=40, seed=seed)   # the reference checks itself first (~0.1 s)
    bad_vectors = []
    vec = vector_cases(args.vectors, bad_vectors)
    nvec = len(vec)
    # The reference works in this thread while the pool runs the CLI on earlier cases.
    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        pending = []
        for case in itertools.chain(vec, fixed_error_cases(),
                                    random_cases(seed, args.positions, args.jobs)):
            pending.append((case, pool.submit(run_case, args.thue, case)))
        t1 = time.time()
        print("crosscheck: %d vector cases, %d generated cases (reference took %.1f s)"
              % (nvec, len(pending) - nvec, t1 - t0), flush=True)
        for case, fut in pending:
            rc, out, err = fut.result()
            problems = judge(case, rc, out, err)
            if problems is None:
                passed += 1
            else:
                failed += 1
                if failed <= args.show:
                    report(case, rc, out, err, problems)
    for origin, info, exp, mine in bad_vectors:
        failed += 1
        if failed <= args.show:
            print("FAIL %s: the vector disagrees with thue_ref (expected = thue_ref, got = file)"
                  % origin)
            print("\n".join("  " + x for x in diff_lines(mine, exp)))
    if failed > args.show:
        print("... %d more failures not shown (--show N)" % (failed - args.show))
    print("crosscheck: %d CLI runs, total %.1f s" % (passed + failed, time.time() - t0))
    if failed:
        print("crosscheck: reproduce with --seed %d --positions %d" % (seed, args.positions))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
