/*
 * test_config_trusted_proxy.c: --trusted-proxy with networks (server/config.c, the
 * entries' rules in server/net/trusted.h): addresses and prefixes mixed, normalized;
 * from flags, the environment and the config file; and each error with its message
 * (a prefix length out of range or not a number, bits set past the prefix, an address
 * that is not one, more than 8 entries).
 *
 * Every test starts with no THUE_* variable in the environment (setup).
 */
#include "config_helpers.h"

static void test_networks(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } ok[] = {
        {"10.244.0.0/16", "10.244.0.0/16"},
        {"fd00::/8", "fd00::/8"},
        {"10.244.0.0/16, 127.0.0.1, fd00::/8", "10.244.0.0/16,127.0.0.1,fd00::/8"},
        {"127.0.0.0/8", "127.0.0.0/8"},
        {"10.0.0.7/32,::1/128", "10.0.0.7,::1"},
        {"FD00:0::/8", "fd00::/8"},
        {"::ffff:10.0.0.0/104", "10.0.0.0/8"},
        {"::ffff:192.168.0.9", "192.168.0.9"},
        {"0.0.0.0/0", "0.0.0.0/0"},
        {"::/0", "::/0"},
        {"192.168.1.128/25 ,fe80::/10", "192.168.1.128/25,fe80::/10"},
        /* eight of the longest text there is: the setting holds them */
        {"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ff00/120,ffff:ffff:ffff:ffff:ffff:ffff:ffff:fe00/"
         "120,ffff:ffff:ffff:ffff:ffff:ffff:ffff:fd00/120,ffff:ffff:ffff:ffff:ffff:ffff:ffff:"
         "fc00/120,ffff:ffff:ffff:ffff:ffff:ffff:ffff:fb00/120,ffff:ffff:ffff:ffff:ffff:ffff:"
         "ffff:fa00/120,ffff:ffff:ffff:ffff:ffff:ffff:ffff:f900/120,ffff:ffff:ffff:ffff:ffff:"
         "ffff:ffff:f800/120",
         "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ff00/120,ffff:ffff:ffff:ffff:ffff:ffff:ffff:fe00/"
         "120,ffff:ffff:ffff:ffff:ffff:ffff:ffff:fd00/120,ffff:ffff:ffff:ffff:ffff:ffff:ffff:"
         "fc00/120,ffff:ffff:ffff:ffff:ffff:ffff:ffff:fb00/120,ffff:ffff:ffff:ffff:ffff:ffff:"
         "ffff:fa00/120,ffff:ffff:ffff:ffff:ffff:ffff:ffff:f900/120,ffff:ffff:ffff:ffff:ffff:"
         "ffff:ffff:f800/120"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        thue_config c;
        LOAD_OK(&c, "--trusted-proxy", ok[i].in);
        assert_string_equal(c.trusted_proxy, ok[i].out);
    }

    /* The environment and the config file take the same. */
    thue_config c;
    assert_int_equal(setenv("THUE_TRUSTED_PROXY", "10.244.0.0/16,fd00::/8", 1), 0);
    LOAD_OK(&c, "--port", "80");
    assert_string_equal(c.trusted_proxy, "10.244.0.0/16,fd00::/8");
    unsetenv("THUE_TRUSTED_PROXY");
    char *path = temp_file("{\"trusted-proxy\": \"10.244.0.0/16, 10.0.0.5\"}");
    LOAD_OK(&c, "--config", path);
    assert_string_equal(c.trusted_proxy, "10.244.0.0/16,10.0.0.5");
    remove_temp(path);
}

static void test_network_errors(void **state)
{
    (void)state;
    /* The prefix length. */
    LOAD_ERR("--trusted-proxy: \"10.0.0.0/33\": the prefix length after '/' must be a number "
             "0..32 for an IPv4 address",
             "--trusted-proxy", "10.0.0.0/33");
    LOAD_ERR("--trusted-proxy: \"fd00::/129\": the prefix length after '/' must be a number "
             "0..128 for an IPv6 address",
             "--trusted-proxy", "127.0.0.1,fd00::/129");
    LOAD_ERR("--trusted-proxy: \"::ffff:10.0.0.0/129\": the prefix length after '/' must be a "
             "number 0..128 for an IPv6 address",
             "--trusted-proxy", "::ffff:10.0.0.0/129");
    const char *notnum[] = {"10.0.0.0/", "10.0.0.0/x", "10.0.0.0/-8", "10.0.0.0/+8",
                            "10.0.0.0/8/8", "10.0.0.0/1000", "10.0.0.0/8.0", "10.0.0.0/ 8"};
    for (size_t i = 0; i < sizeof notnum / sizeof notnum[0]; i++) {
        char want[ERR_SIZE];
        snprintf(want, sizeof want,
                 "--trusted-proxy: \"%s\": the prefix length after '/' must be a number 0..32 "
                 "for an IPv4 address",
                 notnum[i]);
        LOAD_ERR(want, "--trusted-proxy", notnum[i]);
    }

    /* Bits set past the prefix: refused, naming the network. */
    LOAD_ERR("--trusted-proxy: \"10.244.1.0/16\" is not a network: its address has bits set "
             "past its first 16 bits (the network is 10.244.0.0/16; one address alone is "
             "written without /16)",
             "--trusted-proxy", "10.244.1.0/16");
    LOAD_ERR("--trusted-proxy: \"10.244.1.7/24\" is not a network: its address has bits set "
             "past its first 24 bits (the network is 10.244.1.0/24; one address alone is "
             "written without /24)",
             "--trusted-proxy", "127.0.0.1, 10.244.1.7/24");
    LOAD_ERR("--trusted-proxy: \"fd00::1/8\" is not a network: its address has bits set past "
             "its first 8 bits (the network is fd00::/8; one address alone is written "
             "without /8)",
             "--trusted-proxy", "fd00::1/8");
    LOAD_ERR("--trusted-proxy: \"::ffff:10.1.0.0/104\" is not a network: its address has bits "
             "set past its first 104 bits (the network is 10.0.0.0/8; one address alone is "
             "written without /104)",
             "--trusted-proxy", "::ffff:10.1.0.0/104");

    /* Addresses that are not. */
    LOAD_ERR("--trusted-proxy: \"10.0.0/8\" is not an IPv4 or IPv6 prefix (10.0.0.0/8, "
             "fd00::/8)",
             "--trusted-proxy", "10.0.0/8");
    LOAD_ERR("--trusted-proxy: \"/8\" is not an IPv4 or IPv6 prefix (10.0.0.0/8, fd00::/8)",
             "--trusted-proxy", "/8");
    LOAD_ERR("--trusted-proxy: \"10.0.0.0 /8\" is not an IPv4 or IPv6 prefix (10.0.0.0/8, "
             "fd00::/8)",
             "--trusted-proxy", "10.0.0.0 /8");
    LOAD_ERR("--trusted-proxy: \"pods/16\" is not an IPv4 or IPv6 prefix (10.0.0.0/8, "
             "fd00::/8)",
             "--trusted-proxy", "pods/16");
    LOAD_ERR("--trusted-proxy: \"10.0.0.1 10.0.0.2\" is not an IPv4 or IPv6 address",
             "--trusted-proxy", "10.0.0.1 10.0.0.2");

    /* At most 8 entries, addresses and networks together. */
    LOAD_ERR("--trusted-proxy: more than 8 addresses", "--trusted-proxy",
             "10.0.0.0/8,2.2.2.2,fd00::/8,4.4.4.0/24,5.5.5.5,6.6.0.0/16,7.7.7.7,8.8.8.8,"
             "9.9.0.0/16");
    LOAD_ERR("--trusted-proxy: \"10.0.0.0/8,\" ends with a comma", "--trusted-proxy",
             "10.0.0.0/8,");

    /* The same messages from the environment and the config file. */
    assert_int_equal(setenv("THUE_TRUSTED_PROXY", "10.244.1.0/16", 1), 0);
    LOAD_ERR("THUE_TRUSTED_PROXY: \"10.244.1.0/16\" is not a network: its address has bits "
             "set past its first 16 bits (the network is 10.244.0.0/16; one address alone is "
             "written without /16)",
             "--port", "80");
    unsetenv("THUE_TRUSTED_PROXY");
    expect_file_error("{\"trusted-proxy\": \"10.244.0.0/40\"}",
                      ": trusted-proxy: \"10.244.0.0/40\": the prefix length after '/' must be "
                      "a number 0..32 for an IPv4 address");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_networks, setup),
        cmocka_unit_test_setup(test_network_errors, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
