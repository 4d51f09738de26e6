"""thue_ref: a deliberately simple reference for the online Thue game (RULES.md).

Independent of the C engine: straight from the definitions, no clever algorithms.

- A word is a sequence of ints in 0..k-1 (2 <= k <= 64).
- A square is a factor uu with |u| = p >= 1 (length 2p).
- An overlap is a factor of length 2p+1 with period p, p >= 1 ("aaa" is one, "aa" is not).
- The repetition reported is the one with the smallest period p, and among those the
  leftmost start s: {"start": s, "period": p, "length": 2p or 2p+1}.
- legal_map(w, k, variant)[i] is the ascending list of symbols c such that
  w[0..i) c w[i..n) contains no repetition of the variant, for i = 0..n.

Only the Python standard library is used. Importable; also runnable:
    python3 thue_ref.py check 0,1,2,1,2 [square|overlap]
    python3 thue_ref.py moves 0,1,2,1 3 [square|overlap]
    python3 thue_ref.py selftest
    python3 thue_ref.py vectors [--seed S] > ../vectors/engine.txt
"""

import random
import sys

VARIANTS = ("square", "overlap")
K_MIN, K_MAX = 2, 64


def window_length(p, variant):
    """Length of a repetition of period p: 2p for a square, 2p+1 for an overlap."""
    if variant == "square":
        return 2 * p
    if variant == "overlap":
        return 2 * p + 1
    raise ValueError("variant must be 'square' or 'overlap', got %r" % (variant,))


def has_period(word, start, length, p):
    """True iff word[start:start+length] has period p: word[j] == word[j+p] for every j
    with start <= j and j+p < start+length. Compared symbol by symbol."""
    for j in range(start, start + length - p):
        if word[j] != word[j + p]:
            return False
    return True


def find_repetition(word, variant="square"):
    """Full scan by definition: for p = 1, 2, ..., for start = 0, 1, ...: is the window of
    length 2p (square) or 2p+1 (overlap) at start p-periodic? The first hit is returned as
    {"start", "period", "length"}; None when the word is clean."""
    n = len(word)
    p = 1
    while window_length(p, variant) <= n:
        length = window_length(p, variant)
        for start in range(0, n - length + 1):
            if has_period(word, start, length, p):
                return {"start": start, "period": p, "length": length}
        p += 1
    return None


def _fast_repetition_through(b, pos, variant):
    """Same answer as find_repetition(b, variant) restricted to windows that contain
    index pos, using bytes slice comparison (a window of length L at s has period p iff
    b[s:s+L-p] == b[s+p:s+L]). Returns True/False only: used for the legal map, where
    only existence matters."""
    n = len(b)
    p = 1
    while True:
        length = window_length(p, variant)
        if length > n:
            return False
        lo = max(0, pos - length + 1)
        hi = min(pos, n - length)
        for s in range(lo, hi + 1):
            if b[s:s + length - p] == b[s + p:s + length]:
                return True
        p += 1


def insert(word, i, c):
    """w[0..i) c w[i..n)."""
    return list(word[:i]) + [c] + list(word[i:])


def _check_word(word, k=None):
    for c in word:
        if not isinstance(c, int) or c < 0 or c >= K_MAX:
            raise ValueError("bad symbol %r" % (c,))
        if k is not None and c >= k:
            raise ValueError("symbol %d >= k = %d" % (c, k))


def safe_at(word, k, i, variant="square"):
    """Ascending safe symbols at insertion position i of the clean word `word`.

    On a clean word any repetition of w[0..i) c w[i..n) must contain the inserted index
    i (a window avoiding it is a factor of w itself), so only windows through i are
    examined. selftest() checks this against find_repetition on the whole new word."""
    n = len(word)
    if not 0 <= i <= n:
        raise ValueError("position %d outside 0..%d" % (i, n))
    return [c for c in range(k) if is_safe(word, i, c, variant)]


def is_safe(word, i, c, variant="square"):
    """True iff inserting c at position i of the clean word `word` keeps it clean
    (only windows through the inserted index are examined, see safe_at)."""
    return not _fast_repetition_through(bytes(insert(word, i, c)), i, variant)


def legal_map(word, k, variant="square"):
    """The legal-move map of a clean word: [safe_at(word, k, i) for i = 0..n].
    Raises ValueError if the word contains a repetition or a symbol >= k."""
    if not K_MIN <= k <= K_MAX:
        raise ValueError("k must be in %d..%d" % (K_MIN, K_MAX))
    _check_word(word, k)
    if find_repetition(word, variant) is not None:
        raise ValueError("word contains a repetition")
    return [safe_at(word, k, i, variant) for i in range(len(word) + 1)]


def legal_map_slow(word, k, variant="square"):
    """The legal-move map by full find_repetition on every candidate word (for
    self-testing the windowed version)."""
    return [[c for c in range(k) if find_repetition(insert(word, i, c), variant) is None]
            for i in range(len(word) + 1)]


def random_play_word(rng, k, variant, target_len):
    """A word reachable in play: from [0], random clean insertions (random position, then
    a uniformly random safe symbol there: the first safe one in a shuffled order). Stops
    at target_len, or earlier when no position has a safe symbol (the builder has won)."""
    word = [0]
    while len(word) < target_len:
        positions = list(range(len(word) + 1))
        rng.shuffle(positions)
        for i in positions:
            symbols = list(range(k))
            rng.shuffle(symbols)
            c = next((c for c in symbols if is_safe(word, i, c, variant)), None)
            if c is not None:
                word = insert(word, i, c)
                break
        else:
            break
    return word


def random_word(rng, k, length):
    """An arbitrary word (it usually contains repetitions)."""
    return [rng.randrange(k) for _ in range(length)]


def find_repetition_by_sorting(word, variant="square"):
    """A second formulation, for the self-test: list every (period, start) whose window
    is a repetition (as two equal slices), take the minimum."""
    n = len(word)
    extra = 1 if variant == "overlap" else 0
    hits = [(p, s) for p in range(1, n + 1) for s in range(n)
            if s + 2 * p + extra <= n and word[s:s + p + extra] == word[s + p:s + 2 * p + extra]]
    if not hits:
        return None
    p, s = min(hits)
    return {"start": s, "period": p, "length": 2 * p + extra}


def selftest(rounds=300, seed=1):
    """Windowed legal map == full-rescan legal map; find_repetition spot checks and
    agreement with a second formulation on random words."""
    assert find_repetition([0, 0], "square") == {"start": 0, "period": 1, "length": 2}
    assert find_repetition([0, 0], "overlap") is None
    assert find_repetition([0, 0, 0], "overlap") == {"start": 0, "period": 1, "length": 3}
    assert find_repetition([0, 1, 0], "square") is None
    assert find_repetition([0, 1, 0, 1], "square") == {"start": 0, "period": 2, "length": 4}
    assert find_repetition([0, 1, 0, 1], "overlap") is None
    assert find_repetition([0, 1, 0, 1, 0], "overlap") == {"start": 0, "period": 2,
                                                            "length": 5}
    assert find_repetition([0, 1, 2, 1, 2], "square") == {"start": 1, "period": 2,
                                                           "length": 4}
    # smallest period wins over leftmost: 0 1 0 1 2 2 -> period 1 at 4, not period 2 at 0
    assert find_repetition([0, 1, 0, 1, 2, 2], "square") == {"start": 4, "period": 1,
                                                              "length": 2}
    rng = random.Random(seed)
    for _ in range(rounds):
        k = rng.choice([2, 3, 4, 5, 7])
        v = rng.choice(VARIANTS)
        w = random_play_word(rng, k, v, rng.randrange(1, 25))
        assert find_repetition(w, v) is None
        assert legal_map(w, k, v) == legal_map_slow(w, k, v), (w, k, v)
    for _ in range(20 * rounds):
        k = rng.choice([2, 3, 4, 6, 20])
        w = random_word(rng, k, rng.randrange(1, 30))
        for v in VARIANTS:
            assert find_repetition(w, v) == find_repetition_by_sorting(w, v), (w, v)
    return True


def word_text(word):
    """Comma-separated word text (the vector format; the CLI accepts it too)."""
    return ",".join(str(c) for c in word)


def parse_word(text):
    """Digits (0121) or comma-separated numbers (0,1,12)."""
    if "," in text:
        return [int(x) for x in text.split(",")]
    return [int(ch) for ch in text]


# ---------------------------------------------------------------------------------------
# Golden vectors (tests/vectors/engine.txt). Line format, fields separated by one space:
#   check <variant> <word> none
#   check <variant> <word> <start> <period> <length>
#   moves <variant> <k> <word> <safe>
# <word>: comma-separated symbols. <safe>: the n+1 lists joined by ';', each list
# comma-separated ascending symbols, an empty list written '-'. '#' lines and blank lines
# are comments.

def safe_text(safe):
    return ";".join(",".join(str(c) for c in lst) if lst else "-" for lst in safe)


def parse_safe(text):
    return [[] if part == "-" else [int(x) for x in part.split(",")]
            for part in text.split(";")]


def _vector_word_ok(word):
    # A lone number >= 10 ("63") would read as digits (6,3) in the CLI's word syntax, so
    # the vectors never contain a one-symbol word other than a single digit.
    assert len(word) >= 2 or word[0] < 10, word


def check_line(word, variant):
    _vector_word_ok(word)
    r = find_repetition(word, variant)
    tail = "none" if r is None else "%d %d %d" % (r["start"], r["period"], r["length"])
    return "check %s %s %s" % (variant, word_text(word), tail)


def moves_line(word, k, variant):
    _vector_word_ok(word)
    return "moves %s %d %s %s" % (variant, k, word_text(word),
                                  safe_text(legal_map(word, k, variant)))


def parse_vector_line(line):
    """None for comments/blank lines, else a dict:
    {"cmd": "check", "variant", "word", "repetition": None or {start, period, length}}
    {"cmd": "moves", "variant", "k", "word", "safe"}. Raises ValueError on bad lines."""
    line = line.rstrip("\n").rstrip("\r")
    if not line.strip() or line.lstrip().startswith("#"):
        return None
    f = line.split(" ")
    if f[0] == "check" and len(f) == 4 and f[3] == "none":
        return {"cmd": "check", "variant": f[1], "word": parse_word_commas(f[2]),
                "repetition": None}
    if f[0] == "check" and len(f) == 6:
        return {"cmd": "check", "variant": f[1], "word": parse_word_commas(f[2]),
                "repetition": {"start": int(f[3]), "period": int(f[4]),
                               "length": int(f[5])}}
    if f[0] == "moves" and len(f) == 5:
        return {"cmd": "moves", "variant": f[1], "k": int(f[2]),
                "word": parse_word_commas(f[3]), "safe": parse_safe(f[4])}
    raise ValueError("bad vector line: %r" % (line,))


def parse_word_commas(text):
    return [int(x) for x in text.split(",")]


# Hand-checkable words for `check` (both variants are emitted for each).
HAND_CHECK_WORDS = [
    [0], [5], [9], [0, 1], [0, 0], [0, 0, 0], [0, 0, 0, 0], [0, 1, 0], [0, 1, 1],
    [0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1, 0], [0, 1, 0, 1, 0, 1],
    [0, 1, 1, 0], [0, 1, 1, 0, 1, 1, 0], [0, 1, 2, 0, 1, 2], [0, 1, 2, 0, 1, 2, 0],
    [0, 1, 0, 1, 2, 2],            # period 1 at 4 beats period 2 at 0 (smallest period)
    [2, 0, 1, 0, 1, 0, 2, 2, 2],   # square: p1 at 7; overlap: p1 at 6 (222)
    [0, 1, 2, 1, 0, 2, 1, 2],      # clean in both variants
    [0, 1, 0, 2, 0, 1, 0, 2],      # square of period 4 only
    [0, 1, 0, 2, 0, 1, 0, 2, 0],   # overlap of period 4
    [0, 1, 1, 0, 1, 0, 0, 1],      # Thue-Morse prefix: overlap-free, not square-free
    [0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0],
    [0, 1, 2, 0, 2, 1, 0, 1, 2, 1, 0, 2, 1, 2, 0, 2, 1, 0],  # ternary square-free
    [10, 11, 10, 11], [10, 11, 10, 11, 10], [62, 63, 62], [63, 63], [63, 63, 63],
    [3, 7, 12, 40, 63, 0, 3, 7, 12, 40, 63, 0],
    [0, 2], [0, 1, 2], [0, 1, 2, 1], [0, 1, 2, 1, 2],
]

# Hand-checkable (word, k) pairs for `moves` (both variants where the word is clean).
HAND_MOVES = [
    ([0], 2), ([0], 3), ([0], 64), ([0, 1], 2), ([0, 1, 0], 2), ([1, 0, 1], 2),
    ([0, 0], 2), ([0, 0], 3), ([0, 1, 0, 1], 2), ([0, 1, 1, 0], 2), ([0, 1, 1, 0], 3),
    ([0, 1, 0, 2], 3), ([0, 1, 2, 0, 1], 3), ([0, 1, 0, 2, 0, 1, 0], 3),
    ([0, 1, 1, 0, 1, 0, 0, 1], 2), ([0, 1, 1, 0, 1, 0, 0, 1], 3),
    ([0, 1, 2, 3], 4), ([0, 10, 0], 11), ([62, 63], 64), ([9], 10), ([0, 63], 64),
]

WORKED_EXAMPLE = [([0], 1, 2), ([0, 2], 1, 1), ([0, 1, 2], 3, 1), ([0, 1, 2, 1], 4, 2)]

GEN_K = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 20, 24, 32, 40, 48, 63, 64]


def vector_lines(seed=20240611):
    """The whole engine.txt, as a list of lines (deterministic for a given seed)."""
    rng = random.Random(seed)
    out = [
        "# thue-server golden vectors for the repetition check and the legal-move map.",
        "# Generated by tests/reference/thue_ref.py (independent Python reference):",
        "#   python3 tests/reference/thue_ref.py vectors --seed %d > tests/vectors/engine.txt"
        % seed,
        "# Format (fields separated by one space; '#' lines and blank lines are ignored):",
        "#   check <variant> <word> none",
        "#   check <variant> <word> <start> <period> <length>",
        "#   moves <variant> <k> <word> <safe>",
        "# <word>: comma-separated symbols. <safe>: n+1 lists (positions 0..n) joined by",
        "# ';', each list comma-separated ascending symbols, an empty list written '-'.",
        "# A one-symbol word is always a single digit here (a lone '63' would be ambiguous",
        "# with the digit syntax 6,3), so no one-symbol word >= 10 appears.",
        "# Reported repetition: smallest period, then leftmost start; length 2p (square) or",
        "# 2p+1 (overlap).",
        "",
        "# RULES.md worked example (square, k = 3): [0] -> 0,2 -> 0,1,2 -> 0,1,2,1 -> 0,1,2,1,2",
    ]
    word = [0]
    for step, (before, i, c) in enumerate(WORKED_EXAMPLE):
        assert word == before
        out.append(check_line(word, "square"))
        m = legal_map(word, 3, "square")
        last = step == len(WORKED_EXAMPLE) - 1
        assert (c not in m[i]) if last else (c in m[i]), (word, i, c)
        out.append(moves_line(word, 3, "square"))
        word = insert(word, i, c)
    assert find_repetition(word, "square") == {"start": 1, "period": 2, "length": 4}
    out.append(check_line(word, "square"))

    out += ["", "# Hand-checkable check cases, both variants"]
    for w in HAND_CHECK_WORDS:
        for v in VARIANTS:
            out.append(check_line(w, v))

    out += ["", "# Hand-checkable moves cases (only where the word is clean for the variant)"]
    for w, k in HAND_MOVES:
        for v in VARIANTS:
            if find_repetition(w, v) is None:
                out.append(moves_line(w, k, v))

    out += ["", "# Generated: words reachable in random play (moves, and check = none)"]
    for idx in range(64):
        k = GEN_K[idx % len(GEN_K)]
        v = VARIANTS[(idx // len(GEN_K)) % 2] if idx < 2 * len(GEN_K) else rng.choice(VARIANTS)
        cap = 60 if k <= 12 else (50 if k <= 32 else 40)
        w = random_play_word(rng, k, v, rng.randint(2, cap))
        out.append(moves_line(w, k, v))
        if idx % 2 == 0:
            out.append(check_line(w, v))

    out += ["", "# Generated: arbitrary words and clean words with one random insertion (check)"]
    for idx in range(60):
        k = GEN_K[idx % len(GEN_K)]
        v = VARIANTS[idx % 2]
        if idx % 3 == 0:
            w = random_word(rng, k, rng.randint(2, 60))
        else:
            base = random_play_word(rng, k, v, rng.randint(2, 60))
            w = insert(base, rng.randrange(len(base) + 1), rng.randrange(k))
        out.append(check_line(w, v))
        out.append(check_line(w, VARIANTS[1 - idx % 2]))

    out += ["", "# Generated: squares/overlaps of clean words (larger periods)"]
    for idx in range(16):
        k = GEN_K[(3 * idx + 1) % len(GEN_K)]
        v = VARIANTS[idx % 2]
        u = random_play_word(rng, k, v, rng.randint(3, 25))
        w = u + u if v == "square" else u + u + u[:1]
        w = [rng.randrange(k) for _ in range(rng.randint(0, 3))] + w
        out.append(check_line(w, v))
    return out


def _main(argv):
    import json
    if len(argv) in (2, 4) and argv[1] == "vectors":
        if len(argv) == 4 and argv[2] != "--seed":
            sys.stderr.write(__doc__)
            return 2
        lines = vector_lines(int(argv[3])) if len(argv) == 4 else vector_lines()
        sys.stdout.write("\n".join(lines) + "\n")
        return 0
    if len(argv) >= 2 and argv[1] == "selftest":
        selftest()
        print("selftest ok")
        return 0
    if len(argv) in (3, 4) and argv[1] == "check":
        v = argv[3] if len(argv) == 4 else "square"
        w = parse_word(argv[2])
        print(json.dumps({"word": w, "variant": v, "repetition": find_repetition(w, v)},
                         separators=(",", ":")))
        return 0
    if len(argv) in (4, 5) and argv[1] == "moves":
        v = argv[4] if len(argv) == 5 else "square"
        w = parse_word(argv[2])
        k = int(argv[3])
        print(json.dumps({"word": w, "k": k, "variant": v, "safe": legal_map(w, k, v)},
                         separators=(",", ":")))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(_main(sys.argv))
