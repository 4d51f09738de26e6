# --trusted-proxy's addresses and networks (server/net/trusted.h, header-only): parsing
# and matching against a bit-by-bit reference (test_trusted_proxy), and the setting's
# errors and normalized text (server/config.c, built as the settings tests build it).
thue_unit_test(test_trusted_proxy test_trusted_proxy.c)
target_include_directories(test_trusted_proxy PRIVATE ${PROJECT_SOURCE_DIR}/server)
thue_unit_test(test_config_trusted_proxy test_config_trusted_proxy.c config_helpers.c
               ${PROJECT_SOURCE_DIR}/server/config.c ${PROJECT_SOURCE_DIR}/server/log.c)
target_include_directories(test_config_trusted_proxy PRIVATE ${PROJECT_SOURCE_DIR}/server)
target_compile_definitions(test_config_trusted_proxy PRIVATE
  THUE_WEB_ROOT_DEFAULT="${PROJECT_SOURCE_DIR}/clients/web"
  THUE_SERVER_DOC="${PROJECT_SOURCE_DIR}/docs/server.md")
target_link_libraries(test_config_trusted_proxy PRIVATE PkgConfig::JANSSON)
