/* lg_args.c: thue-loadgen's flags (see usage()). */
#include "lg.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: thue-loadgen [--FLAG VALUE | --FLAG=VALUE]...\n"
            "\n"
            "Loads a thue-server on this machine with many WebSocket clients from one\n"
            "process (one libwebsockets context on one libuv loop) and reports moves/s,\n"
            "move round trips and errors. Loopback servers only.\n"
            "\n"
            "  --server URL          ws://127.0.0.1:8080/ws  ws://HOST:PORT/PATH; HOST must be\n"
            "                                      127.0.0.1, localhost or [::1]\n"
            "  --matches N           10        0..100000 concurrent matches of random legal\n"
            "                                  play; a finished match is followed by a rematch\n"
            "  --bot-share F         0         0..1: this share of the matches is one loadgen\n"
            "                                  player against a server bot (--bot); all\n"
            "                                  from one address: start the server with\n"
            "                                  --bot-seats-per-owner and --bot-seats-per-ip\n"
            "                                  above their number\n"
            "  --bot SPEC            greedy    the bot of those matches\n"
            "  --bot-think-ms N      10        10..60000 its think time per move\n"
            "  --idle N              0         0..1000000 extra connections that say hello and\n"
            "                                  stay connected\n"
            "  --spectators N        0         0..100000 connections per pair's room (not the\n"
            "                                  bot matches') that spectate it; the report\n"
            "                                  gives the bytes each receives per move\n"
            "  --protocol P          2         1: thue.v1 (the whole room_state after every\n"
            "                                  change); 2: thue.v2 (a `played` event after a\n"
            "                                  move, kept in a model of the room by every\n"
            "                                  player and spectator; `sync` on a version gap).\n"
            "                                  A server before thue.v2 needs 1\n"
            "  --search-rooms N      0         0..64 rooms where two server bots play each\n"
            "                                  other (each keeps one worker thread busy;\n"
            "                                  the server needs --guest-bot-vs-bot 1, and\n"
            "                                  --bot-seats-per-owner and --bot-seats-per-ip\n"
            "                                  2N past 2 rooms)\n"
            "  --search-bot SPEC     uct:iterations=0,ms=60000  their bot\n"
            "  --search-think-ms N   60000     10..60000 their think time per move\n"
            "  --duration S          10        0.1..86400 s measured after all connections are\n"
            "                                  up and the warm-up is over\n"
            "  --warmup S            2         0..3600 s ignored first\n"
            "  --max-matches M       0         stop after M finished matches (0: no limit)\n"
            "  --server-pid PID      none      sample the server's RSS and CPU\n"
            "  --variant V           square    square or overlap\n"
            "  --k K                 12        2..64 symbols\n"
            "  --limit L             100       1..10000 the rooms' length limit\n"
            "  --connect-rate R      1000      1..100000 connections opened per second\n"
            "  --source LIST         none      comma-separated local loopback addresses the\n"
            "                                  connections are bound to in turn (IPv4\n"
            "                                  127.x.y.z, or ::1 for an IPv6 server): each\n"
            "                                  has its own ephemeral ports, so a few of them\n"
            "                                  reach past the port range (up to 64)\n"
            "  --seed N              time      the random generator's seed\n"
            "  --json                          print the report as one JSON object\n"
            "  --check                         also decode every room_state and played with\n"
            "                                  the project's codec and count disagreements\n"
            "                                  (slower)\n"
            "  --check-every N       0         0..1000000: every N updates of its room's model,\n"
            "                                  a player or spectator asks for the whole state\n"
            "                                  (`sync`) and compares it with the model; a\n"
            "                                  difference is an error (model:mismatch). Under\n"
            "                                  --protocol 1 the model is the last room_state\n"
            "  -v, --verbose                   progress on stderr\n"
            "  -h, --help                      print this help and exit\n"
            "\n"
            "Exit status: 0 when the run had no error, 1 when any error happened (they\n"
            "are listed) or nothing could connect, 2 on a bad flag.\n");
}

static int bad(const char *flag, const char *value, const char *why)
{
    fprintf(stderr, "thue-loadgen: bad value '%s' for %s: %s (see --help)\n", value, flag, why);
    return 2;
}

static int parse_long(const char *flag, const char *v, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end != '\0' || x < lo || x > hi) {
        char why[80];
        snprintf(why, sizeof why, "expected an integer in %ld..%ld", lo, hi);
        return bad(flag, v, why);
    }
    *out = x;
    return 0;
}

static int parse_double(const char *flag, const char *v, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || *end != '\0' || !isfinite(x) || x < lo || x > hi) {
        char why[80];
        snprintf(why, sizeof why, "expected a number in %g..%g", lo, hi);
        return bad(flag, v, why);
    }
    *out = x;
    return 0;
}

static int spec_ok(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > 100)
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e || s[i] == '"' ||
            s[i] == '\\')
            return 0;
    return 1;
}

/* A comma-separated list of loopback addresses of the server's family, none twice. */
static int parse_sources(lg_opts *o, const char *v)
{
    o->nsources = 0;
    const char *p = v;
    for (;;) {
        size_t n = strcspn(p, ",");
        char a[48];
        if (n == 0 || n >= sizeof a)
            return bad("--source", v, "a comma-separated list of addresses, none empty");
        memcpy(a, p, n);
        a[n] = '\0';
        int ok;
        if (strchr(a, ':') != NULL) {
            ok = strcmp(a, "::1") == 0;
        } else {
            unsigned b[4];
            char tail;
            ok = sscanf(a, "%u.%u.%u.%u%c", &b[0], &b[1], &b[2], &b[3], &tail) == 4 &&
                 b[0] == 127 && b[1] < 256 && b[2] < 256 && b[3] < 256 && strspn(a, "0123456789.") == n;
        }
        if (!ok) {
            char why[120];
            snprintf(why, sizeof why, "'%s' is not a loopback address (127.x.y.z or ::1)", a);
            return bad("--source", v, why);
        }
        for (int i = 0; i < o->nsources; i++)
            if (strcmp(o->sources[i], a) == 0) {
                char why[120];
                snprintf(why, sizeof why, "'%s' is listed twice", a);
                return bad("--source", v, why);
            }
        if (o->nsources == LG_SOURCES_MAX)
            return bad("--source", v, "at most 64 addresses");
        snprintf(o->sources[o->nsources++], sizeof o->sources[0], "%s", a);
        if (p[n] == '\0')
            return 0;
        p += n + 1;
    }
}

/* ws://HOST[:PORT]/PATH with a loopback HOST. */
static int parse_url(lg_opts *o, const char *url)
{
    if (strlen(url) >= sizeof o->server)
        return bad("--server", url, "too long");
    snprintf(o->server, sizeof o->server, "%s", url);
    for (const char *q = url; *q; q++)
        if ((unsigned char)*q <= 0x20 || (unsigned char)*q >= 0x7f || *q == '"' || *q == '\\')
            return bad("--server", url, "a URL of printable characters without quotes");
    if (strncmp(url, "ws://", 5) != 0)
        return bad("--server", url, "expected ws://HOST:PORT/PATH (wss is not supported)");
    const char *h = url + 5, *rest;
    char host[256];
    if (*h == '[') {
        const char *close = strchr(h, ']');
        if (close == NULL || (size_t)(close - h - 1) >= sizeof host)
            return bad("--server", url, "an IPv6 address needs a closing ]");
        memcpy(host, h + 1, (size_t)(close - h - 1));
        host[close - h - 1] = '\0';
        rest = close + 1;
    } else {
        size_t n = strcspn(h, ":/");
        if (n == 0 || n >= sizeof host)
            return bad("--server", url, "no host");
        memcpy(host, h, n);
        host[n] = '\0';
        rest = h + n;
    }
    o->port = 80;
    if (*rest == ':') {
        char *end;
        errno = 0;
        long p = strtol(rest + 1, &end, 10);
        if (errno || end == rest + 1 || p < 1 || p > 65535 || (*end != '/' && *end != '\0'))
            return bad("--server", url, "the port must be 1..65535");
        o->port = (int)p;
        rest = end;
    }
    snprintf(o->path, sizeof o->path, "%s", *rest ? rest : "/");
    if (strcmp(host, "127.0.0.1") == 0 || strcmp(host, "localhost") == 0)
        snprintf(o->host, sizeof o->host, "127.0.0.1");
    else if (strcmp(host, "::1") == 0)
        snprintf(o->host, sizeof o->host, "::1");
    else {
        fprintf(stderr,
                "thue-loadgen: refusing server host '%s': only a server on this machine "
                "(127.0.0.1, localhost or [::1]) may be loaded\n",
                host);
        return 2;
    }
    return 0;
}

int lg_parse_args(int argc, char **argv, lg_opts *o)
{
    memset(o, 0, sizeof *o);
    o->matches = 10;
    o->duration_s = 10;
    o->warmup_s = 2;
    o->variant = THUE_SQUARE;
    o->k = 12;
    o->limit = 100;
    o->connect_rate = 1000;
    o->protocol = 2;
    o->bot_think_ms = 10;
    o->search_think_ms = 60000;
    snprintf(o->bot_spec, sizeof o->bot_spec, "greedy");
    snprintf(o->search_spec, sizeof o->search_spec, "uct:iterations=0,ms=60000");
    o->seed = 0;
    int have_seed = 0;
    int rc = parse_url(o, "ws://127.0.0.1:8080/ws");
    if (rc)
        return rc;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 1;
        }
        if (strcmp(a, "--json") == 0) {
            o->json = 1;
            continue;
        }
        if (strcmp(a, "--check") == 0) {
            o->check = 1;
            continue;
        }
        if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            o->verbose = 1;
            continue;
        }
        if (strncmp(a, "--", 2) != 0) {
            fprintf(stderr, "thue-loadgen: unexpected argument '%s' (see --help)\n", a);
            return 2;
        }
        char flag[64];
        const char *v;
        const char *eq = strchr(a, '=');
        if (eq) {
            if ((size_t)(eq - a) >= sizeof flag) {
                fprintf(stderr, "thue-loadgen: unknown flag '%s' (see --help)\n", a);
                return 2;
            }
            memcpy(flag, a, (size_t)(eq - a));
            flag[eq - a] = '\0';
            v = eq + 1;
        } else {
            snprintf(flag, sizeof flag, "%s", a);
            if (i + 1 >= argc) {
                fprintf(stderr, "thue-loadgen: %s needs a value (see --help)\n", a);
                return 2;
            }
            v = argv[++i];
        }
        long l;
        double d;
        rc = 0;
        if (strcmp(flag, "--server") == 0) {
            rc = parse_url(o, v);
        } else if (strcmp(flag, "--matches") == 0) {
            if (!(rc = parse_long(flag, v, 0, 100000, &l)))
                o->matches = (int)l;
        } else if (strcmp(flag, "--bot-share") == 0) {
            if (!(rc = parse_double(flag, v, 0, 1, &d)))
                o->bot_share = d;
        } else if (strcmp(flag, "--bot") == 0) {
            if (!spec_ok(v))
                rc = bad(flag, v, "a bot SPEC is 1..100 printable characters");
            else
                snprintf(o->bot_spec, sizeof o->bot_spec, "%s", v);
        } else if (strcmp(flag, "--bot-think-ms") == 0) {
            if (!(rc = parse_long(flag, v, 10, 60000, &l)))
                o->bot_think_ms = (int)l;
        } else if (strcmp(flag, "--idle") == 0) {
            if (!(rc = parse_long(flag, v, 0, 1000000, &l)))
                o->idle = (int)l;
        } else if (strcmp(flag, "--spectators") == 0) {
            if (!(rc = parse_long(flag, v, 0, 100000, &l)))
                o->spectators = (int)l;
        } else if (strcmp(flag, "--protocol") == 0) {
            if (strcmp(v, "1") == 0 || strcmp(v, "2") == 0)
                o->protocol = v[0] - '0';
            else
                rc = bad(flag, v, "expected 1 (thue.v1) or 2 (thue.v2)");
        } else if (strcmp(flag, "--check-every") == 0) {
            if (!(rc = parse_long(flag, v, 0, 1000000, &l)))
                o->check_every = (int)l;
        } else if (strcmp(flag, "--search-rooms") == 0) {
            if (!(rc = parse_long(flag, v, 0, 64, &l)))
                o->search_rooms = (int)l;
        } else if (strcmp(flag, "--search-bot") == 0) {
            if (!spec_ok(v))
                rc = bad(flag, v, "a bot SPEC is 1..100 printable characters");
            else
                snprintf(o->search_spec, sizeof o->search_spec, "%s", v);
        } else if (strcmp(flag, "--search-think-ms") == 0) {
            if (!(rc = parse_long(flag, v, 10, 60000, &l)))
                o->search_think_ms = (int)l;
        } else if (strcmp(flag, "--duration") == 0) {
            rc = parse_double(flag, v, 0.1, 86400, &o->duration_s);
        } else if (strcmp(flag, "--warmup") == 0) {
            rc = parse_double(flag, v, 0, 3600, &o->warmup_s);
        } else if (strcmp(flag, "--max-matches") == 0) {
            if (!(rc = parse_long(flag, v, 0, LONG_MAX, &l)))
                o->max_matches = l;
        } else if (strcmp(flag, "--server-pid") == 0) {
            if (!(rc = parse_long(flag, v, 1, INT_MAX, &l)))
                o->server_pid = (int)l;
        } else if (strcmp(flag, "--variant") == 0) {
            if (thue_variant_parse(v, &o->variant) != 0)
                rc = bad(flag, v, "expected square or overlap");
        } else if (strcmp(flag, "--k") == 0) {
            if (!(rc = parse_long(flag, v, 2, 64, &l)))
                o->k = (int)l;
        } else if (strcmp(flag, "--limit") == 0) {
            if (!(rc = parse_long(flag, v, 1, 10000, &l)))
                o->limit = (int)l;
        } else if (strcmp(flag, "--connect-rate") == 0) {
            rc = parse_double(flag, v, 1, 100000, &o->connect_rate);
        } else if (strcmp(flag, "--source") == 0) {
            rc = parse_sources(o, v);
        } else if (strcmp(flag, "--seed") == 0) {
            if (!(rc = parse_long(flag, v, 0, UINT_MAX > LONG_MAX ? LONG_MAX : (long)UINT_MAX,
                                  &l))) {
                o->seed = (unsigned)l;
                have_seed = 1;
            }
        } else {
            fprintf(stderr, "thue-loadgen: unknown flag '%s' (see --help)\n", flag);
            return 2;
        }
        if (rc)
            return rc;
    }
    if (o->matches == 0 && o->idle == 0 && o->search_rooms == 0) {
        fprintf(stderr, "thue-loadgen: nothing to do: --matches, --idle and --search-rooms are 0\n");
        return 2;
    }
    /* A source address must be of the server's family. */
    for (int i = 0; i < o->nsources; i++)
        if ((strchr(o->sources[i], ':') != NULL) != (strchr(o->host, ':') != NULL)) {
            fprintf(stderr,
                    "thue-loadgen: --source %s is not of the server's address family (the "
                    "server is %s)\n",
                    o->sources[i], o->host);
            return 2;
        }
    if (o->server_pid) {
        char p[64];
        snprintf(p, sizeof p, "/proc/%d/stat", o->server_pid);
        FILE *f = fopen(p, "r");
        if (f == NULL) {
            char s[32];
            snprintf(s, sizeof s, "%d", o->server_pid);
            return bad("--server-pid", s, "no such process");
        }
        fclose(f);
    }
    if (!have_seed)
        o->seed = 0; /* the caller seeds from the clock */
    return 0;
}
