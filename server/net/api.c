/*
 * api.c: the /api endpoints of the HTTP side (PROTOCOL.md section 13), behind http.c's
 * router, which has already taken the request's /api token (429 past --api-rate):
 *
 *   /api/rooms        the lobby's public rooms of a game (thue_lobby_rooms_json)
 *   /api/ladder       a rating pool's ladder (thue_lobby_ladder_json)
 *   /api/tournaments  a page of tournaments, or one (thue_lobby_tournament*_json)
 *   /api/games        the registry of games (built here from server/games)
 *   /api/matches      stored matches: answered by the store thread while the request
 *                     waits (a `deferred`, sent from HTTP_WRITEABLE by http.c)
 *   /api/puzzles      stored puzzles of a game, one by id, the day's (deferred too)
 *
 * Their JSON is built in one place each: the lobby's and the tournaments' by the codec
 * (the same members as the WebSocket replies, without type and id), the records' by the
 * store's reads, the games' here. Query arguments are checked here, each refused with
 * 400 and a sentence; unknown arguments are ignored, as unknown members are in messages.
 */
#include "net/net_internal.h"

#include "base/rng.h"
#include "games/game.h"
#include "search/gbot.h"
#include "search/puzzle.h"

#include <ctype.h>
#include <strings.h>
#include <time.h>

/* "name=value" of the i-th query argument into buf; 0, 1 when there is none, -1 when it
 * is too long. */
static int query_arg(struct lws *wsi, int i, char *buf, int size)
{
    int n = lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_URI_ARGS, i);
    if (n <= 0)
        return 1;
    if (n >= size)
        return -1;
    return lws_hdr_copy_fragment(wsi, buf, size, WSI_TOKEN_HTTP_URI_ARGS, i) < 0 ? -1 : 0;
}

/* The i-th query argument split at '=': arg holds its name, *value its value ("" when
 * it has none). 0, 1 when there is none, -1 when it is too long. */
static int query_pair(struct lws *wsi, int i, char *arg, int size, const char **value)
{
    int r = query_arg(wsi, i, arg, size);
    if (r != 0)
        return r;
    char *eq = strchr(arg, '=');
    *value = eq ? eq + 1 : "";
    if (eq)
        *eq = '\0';
    return 0;
}

/* An integer lo..hi from decimal digits; -1 when it is not. */
static long parse_range(const char *s, long lo, long hi)
{
    long v = 0;
    if (*s == '\0')
        return -1;
    for (; *s; s++) {
        if (!isdigit((unsigned char)*s) || v > hi)
            return -1;
        v = v * 10 + (*s - '0');
    }
    return v >= lo && v <= hi ? v : -1;
}

/* k: decimal digits, 2..64; -1 when it is not. */
static int parse_k(const char *s)
{
    return (int)parse_range(s, 2, 64);
}

/* offset= and count= of a page (as list_tournaments and get_ladder take them): 1 when arg
 * is one of them and its value is good (stored), 0 when it is neither, -1 with the 400
 * message in *why. */
static int page_arg(const char *arg, const char *value, long *offset, long *count,
                    const char **why)
{
    if (strcmp(arg, "offset") == 0) {
        *why = "offset must be an integer from 0 to 100000";
        return (*offset = parse_range(value, 0, 100000)) < 0 ? -1 : 1;
    }
    if (strcmp(arg, "count") == 0) {
        *why = "count must be an integer from 1 to 200";
        return (*count = parse_range(value, 1, 200)) < 0 ? -1 : 1;
    }
    return 0;
}

/* A game= argument: the game's wire name ("thue", or one of the registry's) into out
 * (size >= THUE_PROTO_GAME_MAX + 1): 0, or -1 with the 400 message in why ("game must be
 * one of thue, nim, ...", the registry's names in its order). */
static int game_arg(const char *value, char *out, size_t size, char *why, size_t whysize)
{
    if (strlen(value) < size && (strcmp(value, "thue") == 0 || thue_game_find(value) != NULL)) {
        snprintf(out, size, "%s", value);
        return 0;
    }
    int n;
    const thue_gamedef *const *list = thue_game_list(&n);
    size_t at = (size_t)snprintf(why, whysize, "game must be one of");
    for (int i = 0; i < n && at < whysize; i++)
        at += (size_t)snprintf(why + at, whysize - at, "%s %s", i ? "," : "", list[i]->name);
    return -1;
}

/* GET /api/rooms?game=G&variant=V&k=K&status=S (no game: Thue's rooms) */
static int http_rooms(thue_net *net, struct lws *wsi, pss *p, int head)
{
    static const char *const statuses[] = {"waiting", "playing", "finished"};
    char arg[256];
    const char *variant = NULL, *game = NULL;
    char variant_buf[16], game_buf[THUE_PROTO_GAME_MAX + 1];
    int k = -1, status = -1;
    const char *value;
    for (int i = 0;; i++) {
        int r = query_pair(wsi, i, arg, sizeof arg, &value);
        if (r > 0)
            break;
        if (r < 0)
            return thue__http_error(wsi, p, 400, "bad_request", "query argument too long", head);
        if (strcmp(arg, "game") == 0) {
            /* As list_rooms: a name no game has lists none (PROTOCOL.md section 4). */
            char why[160];
            if (game_arg(value, game_buf, sizeof game_buf, why, sizeof why) != 0)
                snprintf(game_buf, sizeof game_buf, "%s", value);
            game = strcmp(value, "thue") == 0 ? NULL : game_buf;
        } else if (strcmp(arg, "variant") == 0) {
            if (strcmp(value, "square") != 0 && strcmp(value, "overlap") != 0)
                return thue__http_error(wsi, p, 400, "bad_request", "variant must be square or overlap",
                                  head);
            snprintf(variant_buf, sizeof variant_buf, "%s", value);
            variant = variant_buf;
        } else if (strcmp(arg, "k") == 0) {
            k = parse_k(value);
            if (k < 0)
                return thue__http_error(wsi, p, 400, "bad_request", "k must be an integer from 2 to 64",
                                  head);
        } else if (strcmp(arg, "status") == 0) {
            status = -1;
            for (int s = 0; s < 3; s++)
                if (strcmp(value, statuses[s]) == 0)
                    status = s; /* THUE_STATUS_WAITING, _PLAYING, _FINISHED */
            if (status < 0)
                return thue__http_error(wsi, p, 400, "bad_request",
                                  "status must be waiting, playing or finished", head);
        }
        /* other arguments are ignored, as unknown members are in messages */
    }
    char *text = thue_lobby_rooms_json(net->lobby, game, variant, k, status);
    if (text == NULL)
        return thue__http_error(wsi, p, 500, "internal", "out of memory", head);
    return thue__http_respond(wsi, p, 200, JSON_TYPE, text, strlen(text), head);
}

static int valid_key(const char *s, size_t n);

/* GET /api/rooms/{id}[?code=CODE]: one room, a private one with its invite code (what an
 * invite link's page shows before its reader joins). */
static int http_room(thue_net *net, struct lws *wsi, pss *p, const char *id, int head)
{
    char arg[256], code[THUE_PROTO_KEY_MAX + 1] = "";
    const char *value;
    for (int i = 0;; i++) {
        int r = query_pair(wsi, i, arg, sizeof arg, &value);
        if (r > 0)
            break;
        if (r < 0)
            return thue__http_error(wsi, p, 400, "bad_request", "query argument too long", head);
        if (strcmp(arg, "code") == 0)
            snprintf(code, sizeof code, "%s", value);
    }
    char *text = valid_key(id, strlen(id)) ? thue_lobby_room_json(net->lobby, id, code) : NULL;
    if (text == NULL)
        return thue__http_error(wsi, p, 404, "not_found",
                                "no room has that id (a private room also needs its invite code)",
                                head);
    return thue__http_respond(wsi, p, 200, JSON_TYPE, text, strlen(text), head);
}

/* The store's answer to a deferred request (loop thread). */
static void deferred_done(int status, char *body, size_t len, void *data)
{
    deferred *d = data;
    if (d->review_lobby != NULL && status == 200 && body != NULL &&
        strstr(body, "\"status\":\"pending\"") != NULL) {
        if (thue_lobby_reviews_on(d->review_lobby)) {
            thue_lobby_review_wanted(d->review_lobby, d->review_id);
        } else { /* nobody will review it: say so rather than "pending" for ever */
            char off[THUE_PROTO_KEY_MAX + 48];
            snprintf(off, sizeof off, "{\"match\":\"%s\",\"status\":\"off\"}", d->review_id);
            free(body);
            body = strdup(off);
            len = body ? strlen(body) : 0;
        }
    }
    if (d->wsi == NULL) { /* the client left */
        free(body);
        free(d);
        return;
    }
    d->done = 1;
    d->status = status;
    if (status != 200)
        d->type = JSON_TYPE; /* errors are JSON whatever the endpoint */
    d->body = body;
    d->len = body ? len : 0;
    if (body == NULL) {
        static const char oom[] = "{\"error\":{\"code\":\"internal\",\"message\":\"out of memory\"}}";
        d->body = malloc(sizeof oom);
        d->len = d->body ? sizeof oom - 1 : 0;
        if (d->body)
            memcpy(d->body, oom, sizeof oom);
        d->status = 500;
    }
    lws_callback_on_writable(d->wsi);
}

/* The account an `Authorization: Bearer TOKEN` header names (an account token): its id,
 * or 0 (no header, another scheme, an unknown token). Private rooms' matches are shown
 * only to their players' accounts. */
static int64_t request_viewer(thue_net *net, struct lws *wsi)
{
    char v[160];
    int n = lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_AUTHORIZATION);
    if (n <= 0 || n >= (int)sizeof v || lws_hdr_copy(wsi, v, sizeof v, WSI_TOKEN_HTTP_AUTHORIZATION) < 0)
        return 0;
    if (strncasecmp(v, "Bearer ", 7) != 0)
        return 0;
    const char *t = v + 7;
    while (*t == ' ')
        t++;
    return thue_lobby_account_id(net->lobby, t);
}

/* Queues a store read whose callback answers the request. */
static int http_defer(thue_net *net, struct lws *wsi, pss *p, const char *type, int head,
                      int (*start)(thue_net *net, const char *arg, int page, deferred *d),
                      const char *arg, int page, const char *game)
{
    deferred *d = calloc(1, sizeof *d);
    if (d == NULL)
        return thue__http_error(wsi, p, 500, "internal", "out of memory", head);
    d->wsi = wsi;
    d->head = head;
    d->type = type;
    d->viewer = request_viewer(net, wsi);
    if (game)
        snprintf(d->game, sizeof d->game, "%s", game);
    if (start(net, arg, page, d) != 0) {
        free(d);
        return thue__http_error(wsi, p, 503, "server_busy", "the database is not available", head);
    }
    p->wait = d;
    return 0;
}

static int start_match(thue_net *net, const char *id, int page, deferred *d)
{
    (void)page;
    return thue_store_match_json_as(net->store, id, d->viewer, deferred_done, d);
}

static int start_moves(thue_net *net, const char *id, int page, deferred *d)
{
    (void)page;
    return thue_store_moves_csv_as(net->store, id, d->viewer, deferred_done, d);
}

static int start_review(thue_net *net, const char *id, int page, deferred *d)
{
    (void)page;
    d->review_lobby = net->lobby;
    snprintf(d->review_id, sizeof d->review_id, "%s", id);
    return thue_store_review_json_as(net->store, id, d->viewer, deferred_done, d);
}

static int start_list(thue_net *net, const char *player, int page, deferred *d)
{
    return thue_store_matches_game_json_as(net->store, player, d->game[0] ? d->game : NULL,
                                           d->viewer, page, MATCHES_PER_PAGE, deferred_done, d);
}


/* A room-id-like key: 1..32 of A-Z a-z 0-9 _ -. */
static int valid_key(const char *s, size_t n)
{
    if (n == 0 || n > THUE_PROTO_KEY_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
            return 0;
    return 1;
}


/* GET /api/matches?player=NAME[&page=N], /api/matches/{id}, /api/matches/{id}/moves.csv,
 * /api/matches/{id}/review */
static int http_matches(thue_net *net, struct lws *wsi, pss *p, const char *uri, int head)
{
    if (net->store == NULL)
        return thue__http_error(wsi, p, 404, "not_available",
                          "this server runs without a database: no match records", head);
    const char *rest = uri + strlen("/api/matches");
    if (*rest == '/') {
        rest++;
        const char *slash = strchr(rest, '/');
        size_t n = slash ? (size_t)(slash - rest) : strlen(rest);
        char id[THUE_PROTO_KEY_MAX + 1];
        if (!valid_key(rest, n))
            return thue__http_error(wsi, p, 404, "not_found", "no stored match has that id", head);
        memcpy(id, rest, n);
        id[n] = '\0';
        if (slash == NULL)
            return http_defer(net, wsi, p, JSON_TYPE, head, start_match, id, 0, NULL);
        if (strcmp(slash, "/review") == 0)
            return http_defer(net, wsi, p, JSON_TYPE, head, start_review, id, 0, NULL);
        if (strcmp(slash, "/moves.csv") == 0)
            return http_defer(net, wsi, p, "text/csv; charset=utf-8", head, start_moves, id, 0,
                              NULL);
        return thue__http_error(wsi, p, 404, "not_found", "no such endpoint", head);
    }
    char arg[256], player[THUE_PROTO_NAME_MAX * 4 + 1] = "", game[THUE_PROTO_GAME_MAX + 1] = "";
    long page = 1;
    const char *value;
    for (int i = 0;; i++) {
        int r = query_pair(wsi, i, arg, sizeof arg, &value);
        if (r > 0)
            break;
        if (r < 0)
            return thue__http_error(wsi, p, 400, "bad_request", "query argument too long", head);
        if (strcmp(arg, "player") == 0) {
            if (*value == '\0' || strlen(value) >= sizeof player)
                return thue__http_error(wsi, p, 400, "bad_request", "player must be a player's name",
                                  head);
            snprintf(player, sizeof player, "%s", value);
        } else if (strcmp(arg, "game") == 0) {
            char why[160];
            if (game_arg(value, game, sizeof game, why, sizeof why) != 0)
                return thue__http_error(wsi, p, 400, "unknown_game", why, head);
        } else if (strcmp(arg, "page") == 0) {
            page = parse_range(value, 1, 1000000);
            if (page < 0)
                return thue__http_error(wsi, p, 400, "bad_request",
                                  "page must be an integer from 1 to 1000000", head);
        }
    }
    if (player[0] == '\0')
        return thue__http_error(wsi, p, 400, "bad_request", "player=NAME is required", head);
    return http_defer(net, wsi, p, JSON_TYPE, head, start_list, player, (int)page,
                      game[0] ? game : NULL);
}

/* ---- /api/puzzles ---------------------------------------------------------------------- */

#define PUZZLES_PER_PAGE 20

static int start_puzzles(thue_net *net, const char *game, int page, deferred *d)
{
    return thue_store_puzzles_json(net->store, game, page, PUZZLES_PER_PAGE, deferred_done, d);
}

static int start_puzzle(thue_net *net, const char *id, int page, deferred *d)
{
    (void)page;
    return thue_store_puzzle_json(net->store, strtoll(id, NULL, 10), deferred_done, d);
}

/* The day's puzzle: the UTC date now; the pick mixes the day number with the game's
 * name, so that each game's daily puzzle is its own and every server agrees. */
static int start_daily(thue_net *net, const char *game, int page, deferred *d)
{
    (void)page;
    int64_t day = (int64_t)time(NULL) / 86400;
    time_t at = (time_t)(day * 86400);
    struct tm tm;
    char date[16];
    gmtime_r(&at, &tm);
    strftime(date, sizeof date, "%Y-%m-%d", &tm);
    uint64_t h = (uint64_t)day;
    for (const char *c = game; *c; c++)
        h = thue_mix64(h ^ (unsigned char)*c);
    return thue_store_puzzle_daily_json(net->store, game, date, day * 86400000, thue_mix64(h),
                                        deferred_done, d);
}

/* A game= argument of /api/puzzles: a game the generator knows (every one-game game). 0,
 * or -1 with the 400 message in why. */
static int puzzle_game_arg(const char *value, char *out, size_t size, char *why, size_t whysize)
{
    int n, sets;
    const thue_gamedef *g = thue_game_find(value);
    if (g != NULL && strlen(value) < size && thue_puzzle_option_sets(g, &sets) != NULL) {
        snprintf(out, size, "%s", value);
        return 0;
    }
    const thue_gamedef *const *list = thue_game_list(&n);
    size_t at = (size_t)snprintf(why, whysize, "game must be one of");
    for (int i = 0, k = 0; i < n && at < whysize; i++)
        if (thue_puzzle_option_sets(list[i], &sets) != NULL)
            at += (size_t)snprintf(why + at, whysize - at, "%s %s", k++ ? "," : "", list[i]->name);
    return -1;
}

/* GET /api/puzzles?game=G[&page=N], /api/puzzles/daily?game=G, /api/puzzles/{id} */
static int http_puzzles(thue_net *net, struct lws *wsi, pss *p, const char *uri, int head)
{
    if (net->store == NULL)
        return thue__http_error(wsi, p, 404, "not_available",
                                "this server runs without a database: no puzzles", head);
    const char *rest = uri + strlen("/api/puzzles");
    int daily = strcmp(rest, "/daily") == 0;
    if (*rest == '/' && !daily) {
        /* An id: 1..2^53 in decimal digits. */
        rest++;
        size_t n = strlen(rest);
        if (n == 0 || n > 16 || strspn(rest, "0123456789") != n || rest[0] == '0' ||
            strtoll(rest, NULL, 10) > 9007199254740991LL)
            return thue__http_error(wsi, p, 404, "not_found", "no puzzle has that id", head);
        return http_defer(net, wsi, p, JSON_TYPE, head, start_puzzle, rest, 0, NULL);
    }
    char arg[256], game[THUE_PROTO_GAME_MAX + 1] = "";
    long page = 1;
    const char *value;
    for (int i = 0;; i++) {
        int r = query_pair(wsi, i, arg, sizeof arg, &value);
        if (r > 0)
            break;
        if (r < 0)
            return thue__http_error(wsi, p, 400, "bad_request", "query argument too long", head);
        if (strcmp(arg, "game") == 0) {
            char why[160];
            if (puzzle_game_arg(value, game, sizeof game, why, sizeof why) != 0)
                return thue__http_error(wsi, p, 400, "unknown_game", why, head);
        } else if (strcmp(arg, "page") == 0 && !daily) {
            page = parse_range(value, 1, 1000000);
            if (page < 0)
                return thue__http_error(wsi, p, 400, "bad_request",
                                        "page must be an integer from 1 to 1000000", head);
        }
    }
    if (game[0] == '\0')
        return thue__http_error(wsi, p, 400, "bad_request", "game=G is required", head);
    return http_defer(net, wsi, p, JSON_TYPE, head, daily ? start_daily : start_puzzles, game,
                      (int)page, NULL);
}

/* GET /api/tournaments[?status=S][&offset=N][&count=N] (one page, as list_tournaments),
 * /api/tournaments/{id} (from the lobby's memory) */
static int http_tournaments(thue_net *net, struct lws *wsi, pss *p, const char *uri, int head)
{
    if (net->store == NULL)
        return thue__http_error(wsi, p, 404, "not_available",
                          "this server runs without a database: no tournaments", head);
    const char *rest = uri + strlen("/api/tournaments");
    char *text;
    if (*rest == '\0') {
        static const char *const statuses[] = {"open", "running", "finished"};
        char arg[256];
        const char *value;
        int status = -1;
        long offset = 0, count = 50;
        const char *bad = NULL;
        for (int i = 0;; i++) {
            int r = query_pair(wsi, i, arg, sizeof arg, &value);
            if (r > 0)
                break;
            if (r < 0)
                return thue__http_error(wsi, p, 400, "bad_request", "query argument too long", head);
            if (strcmp(arg, "status") == 0) {
                status = -2;
                for (int j = 0; j < 3; j++)
                    if (strcmp(value, statuses[j]) == 0)
                        status = j;
                if (status < 0)
                    return thue__http_error(wsi, p, 400, "bad_request",
                                      "status must be open, running or finished", head);
            } else if (page_arg(arg, value, &offset, &count, &bad) < 0) {
                return thue__http_error(wsi, p, 400, "bad_request", bad, head);
            }
        }
        text = thue_lobby_tournaments_json(net->lobby, status, (int)offset, (int)count);
    } else {
        rest++;
        int unknown = 0;
        if (!valid_key(rest, strlen(rest)))
            return thue__http_error(wsi, p, 404, "not_found", "no tournament has that id", head);
        text = thue_lobby_tournament_json(net->lobby, rest, &unknown);
        if (unknown)
            return thue__http_error(wsi, p, 404, "not_found", "no tournament has that id", head);
    }
    if (text == NULL)
        return thue__http_error(wsi, p, 500, "internal", "out of memory", head);
    return thue__http_respond(wsi, p, 200, JSON_TYPE, text, strlen(text), head);
}

/* GET /api/ladder?variant=V&k=K[&kind=K][&offset=N][&count=N] (Thue's pools), or
 * ?game=G[&game_options=JSON] with the same kind, offset and count (another game's pool:
 * the one its options belong to; no options: the defaults'). */
static int http_ladder(thue_net *net, struct lws *wsi, pss *p, int head)
{
    static const char *const kinds[] = {"all", "human", "bot"};
    char arg[THUE_PROTO_GOPT_MAX + 64];
    char game[THUE_PROTO_GAME_MAX + 1] = "", options[THUE_PROTO_GOPT_MAX + 1] = "";
    bool has_options = false;
    int variant = -1, k = -1, kind = 0;
    long offset = 0, count = 50;
    const char *bad = NULL;
    const char *value;
    for (int i = 0;; i++) {
        int r = query_pair(wsi, i, arg, sizeof arg, &value);
        if (r > 0)
            break;
        if (r < 0)
            return thue__http_error(wsi, p, 400, "bad_request", "query argument too long", head);
        if (strcmp(arg, "game") == 0) {
            char why[160];
            if (game_arg(value, game, sizeof game, why, sizeof why) != 0)
                return thue__http_error(wsi, p, 400, "unknown_game", why, head);
        } else if (strcmp(arg, "game_options") == 0) {
            if (strlen(value) >= sizeof options)
                return thue__http_error(wsi, p, 400, "bad_request", "game_options is too long", head);
            snprintf(options, sizeof options, "%s", value);
            has_options = true;
        } else if (strcmp(arg, "variant") == 0) {
            variant = strcmp(value, "square") == 0 ? THUE_SQUARE
                      : strcmp(value, "overlap") == 0 ? THUE_OVERLAP
                                                      : -2;
            if (variant == -2)
                return thue__http_error(wsi, p, 400, "bad_request", "variant must be square or overlap",
                                  head);
        } else if (strcmp(arg, "k") == 0) {
            if ((k = parse_k(value)) < 0)
                return thue__http_error(wsi, p, 400, "bad_request", "k must be an integer from 2 to 64",
                                  head);
        } else if (strcmp(arg, "kind") == 0) {
            kind = -1;
            for (int j = 0; j < 3; j++)
                if (strcmp(value, kinds[j]) == 0)
                    kind = j;
            if (kind < 0)
                return thue__http_error(wsi, p, 400, "bad_request", "kind must be all, human or bot",
                                  head);
        } else if (page_arg(arg, value, &offset, &count, &bad) < 0) {
            return thue__http_error(wsi, p, 400, "bad_request", bad, head);
        }
    }
    bool thue = game[0] == '\0' || strcmp(game, "thue") == 0;
    if (thue && (variant < 0 || k < 0))
        return thue__http_error(wsi, p, 400, "bad_request",
                          "variant and k are required (or game, for another game's ladder)", head);
    thue_lobby_ladder_ask ask = {thue ? NULL : game,
                                 has_options ? options : NULL,
                                 variant < 0 ? THUE_SQUARE : (thue_variant)variant,
                                 k,
                                 (thue_ladder_kind)kind,
                                 (int)offset,
                                 (int)count};
    char *text = NULL, why[THUE_PROTO_TEXT_MAX + 1];
    int err = thue_lobby_ladder_json(net->lobby, &ask, &text, why, sizeof why);
    if (err == THUE_PERR_NOT_AVAILABLE)
        return thue__http_error(wsi, p, 404, "not_available", why, head);
    if (err == THUE_ENOMEM)
        return thue__http_error(wsi, p, 500, "internal", why, head);
    if (err)
        return thue__http_error(wsi, p, 400, thue_err_name(err), why, head);
    return thue__http_respond(wsi, p, 200, JSON_TYPE, text, strlen(text), head);
}

/* ---- GET /api/games ----------------------------------------------------------------------
 *
 * The registry as JSON: every game of thue_game_list() in its order (Thue first). An
 * option's "default" is its JSON value. */

/* The bots a seat_bot of g takes: {"spec","help"} each (PROTOCOL.md section 15); the
 * generic ones of search/gbot.h, then g's own; Thue's own grammar for Thue. NULL when
 * out of memory. */
static json_t *game_bots(const thue_gamedef *g)
{
    static const char *const thue_bots[][2] = {
        {"greedy", "RULES.md's level 0 (also 0 and nested:0)"},
        {"nested:L", "RULES.md's nested level L, 1..9 (also L)"},
        {"uct[:iterations=N,ms=T,playout=M,c=X]",
         "Monte Carlo tree search (defaults 10000 iterations, playout 100, c sqrt 2)"},
        {"perfect[:depth=D]", "exact minimax, at most D insertions ahead (0: no cap)"},
    };
    json_t *bots = json_array();
    if (bots == NULL)
        return NULL;
    int fail = 0;
    if (strcmp(g->name, "thue") == 0) {
        for (size_t i = 0; i < sizeof thue_bots / sizeof thue_bots[0]; i++)
            fail |= json_array_append_new(bots, json_pack("{s:s,s:s}", "spec", thue_bots[i][0],
                                                          "help", thue_bots[i][1]));
    } else {
        fail |= json_array_append_new(
            bots, json_pack("{s:s,s:s}", "spec", "random", "help", "a random legal move"));
        fail |= json_array_append_new(
            bots, json_pack("{s:s,s:s}", "spec", "uct[:iterations=N,ms=T,playout=M,c=X]", "help",
                            "Monte Carlo tree search (defaults 10000 iterations, playout 100, "
                            "c sqrt 2)"));
        if (thue_gbot_has_perfect(g))
            fail |= json_array_append_new(
                bots, json_pack("{s:s,s:s}", "spec", "perfect", "help",
                                g->perfect_help != NULL
                                    ? g->perfect_help
                                    : "exact play: a winning move when there is one (within its "
                                      "budget; else the first legal move)"));
        for (int i = 0; i < g->nbots; i++)
            fail |= json_array_append_new(bots, json_pack("{s:s,s:s}", "spec", g->bots[i].name,
                                                          "help", g->bots[i].help));
    }
    if (fail) {
        json_decref(bots);
        return NULL;
    }
    return bots;
}

/* One game's entry; NULL when out of memory. */
static json_t *game_entry(const thue_gamedef *g)
{
    json_t *options = json_array();
    for (int i = 0; options && i < g->noptions; i++) {
        const thue_goption_doc *o = &g->options[i];
        json_t *deflt = json_loads(o->deflt, JSON_DECODE_ANY, NULL);
        json_t *e = json_pack("{s:s,s:s,s:o,s:s}", "name", o->name, "type", o->type, "default",
                              deflt ? deflt : json_null(), "help", o->help);
        if (json_array_append_new(options, e) != 0) {
            json_decref(options);
            options = NULL;
        }
    }
    json_t *bots = options ? game_bots(g) : NULL;
    if (bots == NULL) {
        json_decref(options);
        return NULL;
    }
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:o,s:o,s:o,s:{s:b,s:b},s:o}", "name", g->name,
                     "title", g->title, "summary", g->summary, "move", g->move_doc, "position",
                     g->position_doc ? g->position_doc : "", "move_schema",
                     thue_game_schema(g, false), "position_schema", thue_game_schema(g, true),
                     "options", options, "flags",
                     "acyclic", (g->flags & THUE_GAME_ACYCLIC) != 0, "draws",
                     (g->flags & THUE_GAME_DRAWS) != 0, "bots", bots);
}

/* The body of GET /api/games; NULL when out of memory. */
static char *games_json(void)
{
    int n;
    const thue_gamedef *const *list = thue_game_list(&n);
    json_t *games = json_array();
    for (int i = 0; games && i < n; i++)
        if (json_array_append_new(games, game_entry(list[i])) != 0) {
            json_decref(games);
            games = NULL;
        }
    json_t *root = games ? json_pack("{s:o}", "games", games) : NULL;
    char *text = root ? json_dumps(root, JSON_COMPACT) : NULL;
    json_decref(root);
    return text;
}

/* The games do not change while the server runs: their list is made once, kept gzipped
 * with a tag, and a page's reload revalidates it (304). */
static int http_games(thue_net *net, struct lws *wsi, pss *p, int head)
{
    const thue__static *e = thue__static_made(net, "/api/games", games_json);
    if (e == NULL)
        return thue__http_error(wsi, p, 500, "internal", "out of memory", head);
    return thue__http_static(wsi, p, e, JSON_TYPE, head);
}

int thue__api_request(thue_net *net, struct lws *wsi, pss *p, const char *uri, int head)
{
    if (strcmp(uri, "/api/rooms") == 0)
        return http_rooms(net, wsi, p, head);
    if (strncmp(uri, "/api/rooms/", 11) == 0 && strchr(uri + 11, '/') == NULL)
        return http_room(net, wsi, p, uri + 11, head);
    if (strcmp(uri, "/api/ladder") == 0)
        return http_ladder(net, wsi, p, head);
    if (strcmp(uri, "/api/games") == 0)
        return http_games(net, wsi, p, head);
    if (thue__http_path_under(uri, "/api/matches"))
        return http_matches(net, wsi, p, uri, head);
    if (thue__http_path_under(uri, "/api/tournaments"))
        return http_tournaments(net, wsi, p, uri, head);
    if (thue__http_path_under(uri, "/api/puzzles"))
        return http_puzzles(net, wsi, p, uri, head);
    return thue__http_error(wsi, p, 404, "not_found", "no such endpoint", head);
}
