/*
 * test_store_passwords.c: passwords and login tokens in the store (schema 4): a hash is
 * read back as written, replaced only while it is still the one the caller read (compare
 * and set), never set for a bot or an unknown account; login tokens are loaded at
 * start-up; bad arguments are refused at once. The store never hashes: the hashes here
 * are strings of libsodium's form made up for the test.
 */
#include "store_helpers.h"

typedef struct hres {
    int calls, err, found;
    char hash[THUE_STORE_HASH_MAX];
} hres;

static void on_hash(int err, const char *hash, void *data)
{
    hres *r = data;
    r->calls++;
    r->err = err;
    r->found = hash != NULL;
    snprintf(r->hash, sizeof r->hash, "%s", hash ? hash : "");
}

static hres get(thue_store *s, uv_loop_t *loop, int64_t account)
{
    hres r;
    memset(&r, 0, sizeof r);
    assert_int_equal(thue_store_password_get(s, account, on_hash, &r), 0);
    while (r.calls == 0)
        uv_run(loop, UV_RUN_ONCE);
    assert_int_equal(r.calls, 1);
    return r;
}

static wres set(thue_store *s, uv_loop_t *loop, int64_t account, const char *hash,
                const char *expect)
{
    wres w = {0, 0, 0};
    assert_int_equal(thue_store_password_set(s, account, hash, expect, on_write, &w), 0);
    while (w.calls == 0)
        uv_run(loop, UV_RUN_ONCE);
    return w;
}

#define H1 "$argon2id$v=19$m=8192,t=1,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNo"
#define H2 "$argon2id$v=19$m=8192,t=1,p=1$b3RoZXJzYWx0b3RoZXJzYQ$b3RoZXJoYXNob3RoZXJoYXNob3RoZXI"

static void test_store_password_set_get(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    int64_t ann = 0, bot = 0;
    assert_int_equal(add_account(s, &loop, "Ann", THUE_KIND_ACCOUNT, 1, &ann), 0);
    assert_int_equal(add_account(s, &loop, "greedy", THUE_KIND_BOT, 2, &bot), 0);

    /* No password yet; nor has an unknown account or account 0 (login's unknown name). */
    hres r = get(s, &loop, ann);
    assert_int_equal(r.err, 0);
    assert_false(r.found);
    assert_false(get(s, &loop, 999).found);
    assert_false(get(s, &loop, 0).found);

    /* Set from none; read back. */
    wres w = set(s, &loop, ann, H1, NULL);
    assert_int_equal(w.err, 0);
    assert_int_equal(w.id, ann);
    r = get(s, &loop, ann);
    assert_true(r.found);
    assert_string_equal(r.hash, H1);

    /* A second "set from none" lost the race: nothing written. */
    w = set(s, &loop, ann, H2, NULL);
    assert_int_equal(w.err, 0);
    assert_int_equal(w.id, 0);
    assert_string_equal(get(s, &loop, ann).hash, H1);
    /* From a hash that is not the stored one: nothing either. */
    w = set(s, &loop, ann, H2, H2);
    assert_int_equal(w.id, 0);
    assert_string_equal(get(s, &loop, ann).hash, H1);
    /* From the stored one: replaced. */
    w = set(s, &loop, ann, H2, H1);
    assert_int_equal(w.err, 0);
    assert_int_equal(w.id, ann);
    assert_string_equal(get(s, &loop, ann).hash, H2);

    /* A bot has no password, and an unknown account gets none. */
    assert_int_equal(set(s, &loop, bot, H1, NULL).id, 0);
    assert_false(get(s, &loop, bot).found);
    assert_int_equal(set(s, &loop, 999, H1, NULL).id, 0);

    /* Bad arguments, refused at once. */
    assert_int_equal(thue_store_password_set(s, 0, H1, NULL, on_write, NULL), THUE_EINVAL);
    assert_int_equal(thue_store_password_set(s, ann, "", NULL, on_write, NULL), THUE_EINVAL);
    assert_int_equal(thue_store_password_set(s, ann, "has space", NULL, on_write, NULL),
                     THUE_EINVAL);
    assert_int_equal(thue_store_password_set(s, ann, NULL, NULL, on_write, NULL), THUE_EINVAL);
    char longer[THUE_STORE_HASH_MAX + 1];
    memset(longer, 'a', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    assert_int_equal(thue_store_password_set(s, ann, longer, NULL, on_write, NULL), THUE_EINVAL);
    assert_int_equal(thue_store_password_get(s, -1, on_hash, NULL), THUE_EINVAL);
    assert_int_equal(thue_store_password_get(s, ann, NULL, NULL), THUE_EINVAL);
    close_run(s, &loop);
    assert_int_equal(thue_store_password_get(NULL, ann, on_hash, NULL), THUE_EINVAL);
    uv_loop_close(&loop);
    tdir_remove(&t);
}

typedef struct toks {
    int n;
    int64_t account[8];
    unsigned char hash[8][32];
} toks;

static void on_token(void *ctx, int64_t account, const unsigned char hash[32])
{
    toks *k = ctx;
    if (k->n < 8) {
        k->account[k->n] = account;
        memcpy(k->hash[k->n], hash, 32);
    }
    k->n++;
}

static void test_store_tokens(void **state)
{
    (void)state;
    tdir t;
    tdir_make(&t);
    uv_loop_t loop;
    uv_loop_init(&loop);
    thue_store *s = open_started(t.path, &loop);
    int64_t ann = 0;
    assert_int_equal(add_account(s, &loop, "Ann", THUE_KIND_ACCOUNT, 1, &ann), 0);
    unsigned char h1[32], h2[32];
    thue_sha256("t_one", 5, h1);
    thue_sha256("t_two", 5, h2);
    wres w = {0, 0, 0};
    assert_int_equal(thue_store_add_token(s, ann, h1, on_write, &w), 0);
    assert_int_equal(thue_store_add_token(s, ann, h2, on_write, &w), 0);
    /* The same token again (a COMMIT whose answer was lost, tried again): in, once. */
    assert_int_equal(thue_store_add_token(s, ann, h1, on_write, &w), 0);
    while (w.calls < 3)
        uv_run(&loop, UV_RUN_ONCE);
    assert_int_equal(w.err, 0);
    assert_int_equal(thue_store_add_token(s, 0, h1, on_write, NULL), THUE_EINVAL);
    assert_int_equal(thue_store_add_token(s, ann, NULL, on_write, NULL), THUE_EINVAL);
    /* Loading is for start-up only. */
    char err[256];
    assert_int_equal(thue_store_load_tokens(s, on_token, NULL, err, sizeof err), THUE_EINVAL);
    close_run(s, &loop);
    uv_loop_close(&loop);

    s = open_ok(t.path);
    toks k;
    memset(&k, 0, sizeof k);
    assert_int_equal(thue_store_load_tokens(s, on_token, &k, err, sizeof err), 0);
    assert_int_equal(k.n, 2);
    assert_int_equal(k.account[0], ann);
    assert_int_equal(k.account[1], ann);
    assert_true((memcmp(k.hash[0], h1, 32) == 0 && memcmp(k.hash[1], h2, 32) == 0) ||
                (memcmp(k.hash[0], h2, 32) == 0 && memcmp(k.hash[1], h1, 32) == 0));
    thue_store_close(s, NULL, NULL);
    tdir_remove(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_password_set_get),
        cmocka_unit_test(test_store_tokens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
