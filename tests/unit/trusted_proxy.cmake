# --trusted-proxy's addresses and networks (server/net/trusted.h, header-only): parsing
# and matching against a bit-by-bit reference (test_trusted_proxy).
thue_unit_test(test_trusted_proxy test_trusted_proxy.c)
target_include_directories(test_trusted_proxy PRIVATE ${PROJECT_SOURCE_DIR}/server)
