/*
 * test_cluster_guest_names.c: the names drawn for guests who give none stay unique across
 * the nodes when the names drawn are held by another node (server/lobby/lobby.c,
 * guest_name). Two lobbies (the lobby harness) are nodes n1 and n2 of one cluster on the
 * test Redis, and draw from the same seed: n2's first guest draws, in order, exactly the
 * names n1's guests hold, as happens to every node of a cluster with more than 10,000
 * guests, where the four-digit names are all someone's. Before the fix n2 asked Redis
 * for four of them, was refused four times, and then kept the fifth although n1's fifth
 * guest holds it; now the draw after a refusal is an eight-digit name.
 */
#include "lobby_harness.h"
#include "cluster_helpers.h"

static thue_cluster *attach(harness *h, const char *node, const char *prefix)
{
    char address[64];
    snprintf(address, sizeof address, "%s.local:8080", node);
    thue_cluster_config cfg;
    memset(&cfg, 0, sizeof cfg);
    ch_secret(&cfg);
    cfg.url = ch_redis_url();
    cfg.node = node;
    cfg.address = address;
    cfg.prefix = prefix;
    cfg.hooks = (thue_cluster_hooks){.state = thue_lobby_cluster_state,
                                     .broadcast = thue_lobby_cluster_event,
                                     .message = thue_lobby_cluster_event,
                                     .paired = thue_lobby_cluster_paired,
                                     .data = h->lobby};
    char err[256];
    thue_cluster *c = thue_cluster_new(&h->loop, &cfg, err, sizeof err);
    if (c == NULL)
        fail_msg("thue_cluster_new: %s", err);
    thue_lobby_set_cluster(h->lobby, c);
    return c;
}

typedef struct two {
    harness *h[2];
    thue_cluster *c[2];
} two;

/* Runs both nodes' loops until cond(t, data) holds (or 10 s pass: a failure). */
static void spin(two *t, bool (*cond)(two *, void *), void *data, const char *what)
{
    for (int i = 0; i < 10000; i++) {
        if (cond(t, data))
            return;
        uv_run(&t->h[0]->loop, UV_RUN_NOWAIT);
        uv_run(&t->h[1]->loop, UV_RUN_NOWAIT);
        uv_sleep(1);
    }
    fail_msg("timed out waiting for %s", what);
}

static bool both_up(two *t, void *data)
{
    (void)data;
    for (int i = 0; i < 2; i++)
        if (!thue_cluster_up(t->c[i]) || thue_cluster_heartbeats(t->c[i]) < 1)
            return false;
    return true;
}

static bool answered(two *t, void *data)
{
    (void)t;
    thue_conn *c = data;
    return peek(c, "welcome", NULL, 0) != NULL || peek(c, "error", NULL, 0) != NULL;
}

/* A guest who gives no name says hello on node i: the name it was given. */
static const char *guest(two *t, int i)
{
    thue_conn *c = h_connect(t->h[i]);
    h_send(t->h[i], c, "{\"type\":\"hello\",\"protocol\":1}");
    spin(t, answered, c, "the welcome");
    json_t *w = peek(c, "welcome", NULL, 1);
    if (w == NULL)
        fail_msg("hello: %s", str(peek(c, "error", NULL, 0), "code"));
    return str(json_object_get(w, "player"), "name");
}

static void test_cluster_guest_names_unique(void **state)
{
    (void)state;
    char prefix[64];
    ch_prefix(prefix, "guests");
    two t;
    for (int i = 0; i < 2; i++) {
        t.h[i] = h_new(60, 20, 40); /* seed 42, both */
        t.c[i] = attach(t.h[i], i ? "n2" : "n1", prefix);
    }
    spin(&t, both_up, NULL, "both nodes to join the cluster");
    /* n1's five guests: the seed's first five four-digit names, all free in Redis. */
    const char *held[5];
    for (int k = 0; k < 5; k++) {
        held[k] = guest(&t, 0);
        assert_int_equal(strlen(held[k]), strlen("Guest-0000"));
    }
    /* n2 draws the same names: Redis refuses the first, and the next draw is wide. */
    const char *name = guest(&t, 1);
    for (int k = 0; k < 5; k++)
        if (strcmp(name, held[k]) == 0)
            fail_msg("n2's guest was named %s, as n1's guest %d is", name, k + 1);
    assert_int_equal(strlen(name), strlen("Guest-00000000"));
    assert_int_equal(strncmp(name, "Guest-", 6), 0);
    /* A name refused stays n1's: n2's next guest gets neither. */
    const char *next = guest(&t, 1);
    for (int k = 0; k < 5; k++)
        assert_string_not_equal(next, held[k]);
    assert_string_not_equal(next, name);

    for (int i = 0; i < 2; i++) {
        thue_lobby_set_cluster(t.h[i]->lobby, NULL);
        thue_cluster_free(t.c[i]);
        h_free(t.h[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cluster_guest_names_unique),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
