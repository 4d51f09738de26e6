/*
 * static.c: the web root's small files kept in memory, each with its gzip form (made once,
 * when the file is first asked for or has changed) and an ETag from its content, so that
 * a page's first load travels compressed and a reload is a row of 304s (http.c serves
 * them; docs/web.md has the figures). Scripts and style sheets travel without the comments
 * that stand on lines of their own (strip_comments).
 *
 * An entry is keyed by the file's canonical path and checked against the file's size and
 * modification time on each request (the caller's stat): a changed file is read again. A
 * file above STATIC_FILE_MAX, or one that would take the cache past STATIC_TOTAL_MAX, is
 * not kept: http.c streams it as before, uncompressed. A body the server makes once for
 * its whole life (GET /api/games) is kept the same way under a key of its own. Loop thread
 * only (the reads are the same few small files lws_serve_http_file would read there,
 * once).
 */
#include "net/net_internal.h"
#include "base/hash.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define STATIC_FILE_MAX (512u << 10) /* bytes of one file kept */
#define STATIC_TOTAL_MAX (8u << 20)  /* bytes of every file kept, both forms */

struct thue__static {
    char path[PATH_MAX];
    off_t size;
    struct timespec mtime;
    char etag[24];   /* "\"" 16 hex digits "\"" */
    char *raw, *gz;  /* the file, and its gzip form (NULL when that is no smaller) */
    size_t rawlen, gzlen;
    thue__static *next;
};

/* The gzip form of raw (level 9: made once), or NULL when it is not smaller. */
static char *gzip_of(const char *raw, size_t rawlen, size_t *gzlen)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    /* windowBits 15 + 16: a gzip wrapper rather than zlib's. */
    if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
    size_t cap = deflateBound(&z, (uLong)rawlen);
    char *out = malloc(cap ? cap : 1);
    if (out == NULL) {
        deflateEnd(&z);
        return NULL;
    }
    z.next_in = (Bytef *)(uintptr_t)raw;
    z.avail_in = (uInt)rawlen;
    z.next_out = (Bytef *)out;
    z.avail_out = (uInt)cap;
    int r = deflate(&z, Z_FINISH);
    *gzlen = cap - z.avail_out;
    deflateEnd(&z);
    if (r != Z_STREAM_END || *gzlen >= rawlen) {
        free(out);
        return NULL;
    }
    return out;
}

static size_t held(const thue__static *e)
{
    return e->rawlen + (e->gz ? e->gzlen : 0);
}

static void entry_free(thue__static *e)
{
    free(e->raw);
    free(e->gz);
    free(e);
}

/* Whether the n bytes at s are only blanks. */
static bool blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return false;
    return true;
}

/*
 * The comments of a script or a style sheet that stand on lines of their own, left out of
 * what travels (they are a fifth of the client's scripts): a line whose first non-blank
 * characters are // (scripts), and a block from a line that starts with a slash-star to
 * the line that ends with the first star-slash after it. The lines stay, empty, so that
 * line numbers in the browser's messages are the file's. Nothing is touched inside a
 * template literal that spans lines (an odd count of backquotes so far), and a block
 * whose star-slash is followed by code on its line is left whole. In place; returns the
 * new length.
 */
static size_t strip_comments(char *raw, size_t len, bool script)
{
    size_t out = 0, at = 0;
    bool in_template = false;
    while (at < len) {
        size_t end = at;
        while (end < len && raw[end] != '\n')
            end++;
        size_t first = at;
        while (first < end && (raw[first] == ' ' || raw[first] == '\t'))
            first++;
        size_t drop_to = at; /* the lines [at, drop_to) are a comment to leave out */
        if (!in_template && end - first >= 2 && raw[first] == '/' && raw[first + 1] == '/' && script) {
            drop_to = end;
        } else if (!in_template && end - first >= 2 && raw[first] == '/' && raw[first + 1] == '*') {
            const char *close = NULL;
            for (size_t i = first + 2; i + 1 < len; i++)
                if (raw[i] == '*' && raw[i + 1] == '/') {
                    close = raw + i + 2;
                    break;
                }
            if (close != NULL) {
                size_t c = (size_t)(close - raw), e2 = c;
                while (e2 < len && raw[e2] != '\n')
                    e2++;
                if (blank(raw + c, e2 - c))
                    drop_to = e2;
            }
        }
        if (drop_to > at) {
            /* keep the newlines of the lines left out */
            for (size_t i = at; i < drop_to; i++)
                if (raw[i] == '\n')
                    raw[out++] = '\n';
            at = drop_to;
            continue;
        }
        if (script)
            for (size_t i = at; i < end; i++)
                if (raw[i] == '`' && (i == at || raw[i - 1] != '\\'))
                    in_template = !in_template;
        memmove(raw + out, raw + at, end - at);
        out += end - at;
        at = end;
        if (at < len)
            raw[out++] = raw[at++]; /* the newline */
    }
    return out;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

/* Takes raw (got bytes, owned) as e's contents: its gzip form and its tag. */
static void keep(thue__static *e, char *raw, size_t got)
{
    size_t gzlen = 0;
    char *gz = gzip_of(raw, got, &gzlen);
    free(e->raw);
    free(e->gz);
    e->raw = raw;
    e->rawlen = got;
    e->gz = gz;
    e->gzlen = gz ? gzlen : 0;
    snprintf(e->etag, sizeof e->etag, "\"%016llx\"", (unsigned long long)thue_hash64_bytes(raw, got));
}

/* Reads path (st its stat) into e; 0, or -1 (then e holds nothing). */
static int load(thue__static *e, const char *path, const struct stat *st)
{
    FILE *f = fopen(path, "rb");
    char *raw = f ? malloc((size_t)st->st_size + 1) : NULL;
    size_t got = raw ? fread(raw, 1, (size_t)st->st_size, f) : 0;
    if (f)
        fclose(f);
    if (raw == NULL || got != (size_t)st->st_size) {
        free(raw);
        return -1;
    }
    bool script = ends_with(path, ".js") || ends_with(path, ".mjs");
    if (script || ends_with(path, ".css"))
        got = strip_comments(raw, got, script);
    keep(e, raw, got);
    e->size = st->st_size;
    e->mtime = st->st_mtim;
    return 0;
}

const thue__static *thue__static_get(thue_net *net, const char *path, const struct stat *st)
{
    if (st->st_size < 0 || (uint64_t)st->st_size > STATIC_FILE_MAX)
        return NULL;
    thue__static **pp = &net->statics, *e = NULL;
    for (; *pp; pp = &(*pp)->next)
        if (strcmp((*pp)->path, path) == 0) {
            e = *pp;
            break;
        }
    if (e != NULL && e->size == st->st_size && e->mtime.tv_sec == st->st_mtim.tv_sec &&
        e->mtime.tv_nsec == st->st_mtim.tv_nsec)
        return e;
    if (e != NULL) { /* changed on disk: read again, or forget it */
        net->static_bytes -= held(e);
        if (load(e, path, st) == 0 && net->static_bytes + held(e) <= STATIC_TOTAL_MAX) {
            net->static_bytes += held(e);
            return e;
        }
        *pp = e->next;
        entry_free(e);
        return NULL;
    }
    if (net->static_bytes + 2 * (size_t)st->st_size > STATIC_TOTAL_MAX)
        return NULL;
    e = calloc(1, sizeof *e);
    if (e == NULL)
        return NULL;
    snprintf(e->path, sizeof e->path, "%s", path);
    if (load(e, path, st) != 0) {
        entry_free(e);
        return NULL;
    }
    net->static_bytes += held(e);
    e->next = net->statics;
    net->statics = e;
    return e;
}

const thue__static *thue__static_made(thue_net *net, const char *key, char *(*make)(void))
{
    for (thue__static *e = net->statics; e; e = e->next)
        if (e->size < 0 && strcmp(e->path, key) == 0)
            return e;
    char *raw = make();
    thue__static *e = raw ? calloc(1, sizeof *e) : NULL;
    if (e == NULL) {
        free(raw);
        return NULL;
    }
    snprintf(e->path, sizeof e->path, "%s", key);
    keep(e, raw, strlen(raw));
    e->size = -1; /* made, not read: never compared with a file */
    net->static_bytes += held(e);
    e->next = net->statics;
    net->statics = e;
    return e;
}

const char *thue__static_etag(const thue__static *e)
{
    return e->etag;
}

const char *thue__static_body(const thue__static *e, int gzip, size_t *len)
{
    if (gzip && e->gz) {
        *len = e->gzlen;
        return e->gz;
    }
    *len = e->rawlen;
    return e->raw;
}

int thue__static_has_gzip(const thue__static *e)
{
    return e->gz != NULL;
}

void thue__statics_free(thue_net *net)
{
    while (net->statics) {
        thue__static *e = net->statics;
        net->statics = e->next;
        entry_free(e);
    }
    net->static_bytes = 0;
}
