/*
 * peer.c: who a connection is from (net_internal.h): per-address connection counts, and
 * the client's address behind a trusted proxy (--trusted-proxy: the rightmost
 * X-Forwarded-For hop that is not a trusted proxy).
 */
#include "net/net_internal.h"

/* ---- per-IP counters --------------------------------------------------------------- */

static unsigned ip_hash(const char *ip)
{
    unsigned h = 2166136261u; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)ip; *p; p++)
        h = (h ^ *p) * 16777619u;
    return h % IP_BUCKETS;
}

static ip_slot *ip_find(thue_net *net, const char *ip)
{
    for (ip_slot *s = net->ips[ip_hash(ip)]; s; s = s->next)
        if (strcmp(s->ip, ip) == 0)
            return s;
    return NULL;
}

int thue__ip_count(thue_net *net, const char *ip)
{
    ip_slot *s = ip_find(net, ip);
    return s ? s->count : 0;
}

/* One more connection from ip: its slot, or NULL when out of memory. */
ip_slot *thue__ip_acquire(thue_net *net, const char *ip)
{
    ip_slot *s = ip_find(net, ip);
    if (s == NULL) {
        s = calloc(1, sizeof *s);
        if (s == NULL)
            return NULL;
        snprintf(s->ip, sizeof s->ip, "%s", ip);
        unsigned b = ip_hash(s->ip);
        s->next = net->ips[b];
        net->ips[b] = s;
    }
    s->count++;
    return s;
}

void thue__ip_release(thue_net *net, ip_slot *slot)
{
    if (--slot->count > 0)
        return;
    for (ip_slot **p = &net->ips[ip_hash(slot->ip)]; *p; p = &(*p)->next) {
        if (*p == slot) {
            *p = slot->next;
            free(slot);
            return;
        }
    }
}

/* The peer's address text ("unknown" when lws cannot tell). */
static void peer_ip(struct lws *wsi, char *buf, size_t size)
{
    if (lws_get_peer_simple(wsi, buf, size) == NULL || buf[0] == '\0')
        snprintf(buf, size, "unknown");
}

/* 0 and *a, or -1 when text is not an IPv4 or IPv6 address. */
int thue__addr_parse(const char *text, net_addr *a)
{
    static const unsigned char v4_mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (inet_pton(AF_INET, text, a->b) == 1) {
        a->len = 4;
        return 0;
    }
    if (inet_pton(AF_INET6, text, a->b) != 1)
        return -1;
    a->len = 16;
    if (memcmp(a->b, v4_mapped, sizeof v4_mapped) == 0) {
        memmove(a->b, a->b + 12, 4);
        a->len = 4;
    }
    return 0;
}

static int is_proxy(const thue_net *net, const net_addr *a)
{
    for (int i = 0; i < net->nproxies; i++)
        if (net->proxies[i].len == a->len && memcmp(net->proxies[i].b, a->b, (size_t)a->len) == 0)
            return 1;
    return 0;
}

/*
 * The client's address, for the per-address limit and the logs: the peer's; or, when the
 * peer is a trusted proxy (--trusted-proxy), the rightmost address in X-Forwarded-For
 * that is not one (each proxy appends the address it was reached from, so what is left
 * of the last untrusted hop may be forged). A hop that is not an address ends the walk.
 */
void thue__client_ip(const thue_net *net, struct lws *wsi, char *buf, size_t size)
{
    peer_ip(wsi, buf, size);
    net_addr a;
    if (net->nproxies == 0 || thue__addr_parse(buf, &a) != 0 || !is_proxy(net, &a))
        return;
    char xff[512];
    int n = lws_hdr_total_length(wsi, WSI_TOKEN_X_FORWARDED_FOR);
    if (n <= 0 || n >= (int)sizeof xff ||
        lws_hdr_copy(wsi, xff, sizeof xff, WSI_TOKEN_X_FORWARDED_FOR) < 0)
        return;
    char *end = xff + strlen(xff);
    for (;;) {
        char *start = end;
        while (start > xff && start[-1] != ',')
            start--;
        char *first = start, *last = end;
        while (first < last && (*first == ' ' || *first == '\t'))
            first++;
        while (last > first && (last[-1] == ' ' || last[-1] == '\t'))
            last--;
        *last = '\0';
        net_addr hop;
        if (thue__addr_parse(first, &hop) != 0)
            return;
        inet_ntop(hop.len == 4 ? AF_INET : AF_INET6, hop.b, buf, (socklen_t)size);
        if (!is_proxy(net, &hop) || start == xff)
            return;
        end = start - 1; /* the comma */
    }
}
