# The cluster (server/cluster): against a real Redis. Registered only when THUE_TEST_REDIS
# is set at configure time (scripts/test.sh starts one with scripts/services.sh); the
# tests that stop and restart Redis start a redis-server of their own on a free port.
if(DEFINED ENV{THUE_TEST_REDIS} AND NOT "$ENV{THUE_TEST_REDIS}" STREQUAL "")
  find_program(THUE_REDIS_SERVER redis-server REQUIRED)
  pkg_check_modules(HIREDIS REQUIRED IMPORTED_TARGET hiredis)
  foreach(t test_cluster_redis test_cluster_directory test_cluster_match test_cluster_pubsub
            test_cluster_security)
    thue_unit_test(${t} ${t}.c cluster_helpers.c)
    target_link_libraries(${t} PRIVATE thue_cluster PkgConfig::HIREDIS)
    target_compile_definitions(${t} PRIVATE THUE_REDIS_SERVER="${THUE_REDIS_SERVER}")
    set_tests_properties(${t} PROPERTIES ENVIRONMENT "THUE_TEST_REDIS=$ENV{THUE_TEST_REDIS}")
  endforeach()
  # The lobby as two nodes (the lobby harness, each with a cluster client): guest names
  # drawn where another node holds them.
  thue_unit_test(test_cluster_guest_names test_cluster_guest_names.c cluster_helpers.c
                 lobby_harness.c ladder_moved_hook.c)
  target_link_libraries(test_cluster_guest_names PRIVATE thue_lobby thue_cluster
                        PkgConfig::HIREDIS PkgConfig::JANSSON)
  target_compile_definitions(test_cluster_guest_names PRIVATE
                             THUE_REDIS_SERVER="${THUE_REDIS_SERVER}")
  set_tests_properties(test_cluster_guest_names PROPERTIES
                       ENVIRONMENT "THUE_TEST_REDIS=$ENV{THUE_TEST_REDIS}")
else()
  message(STATUS "THUE_TEST_REDIS is not set: the cluster tests (test_cluster_*) are not "
                 "registered (scripts/services.sh redis DIR prints it)")
endif()

# Issue 31: the seal (server/cluster/seal.h) without Redis, the security of the cluster
# against someone who reaches Redis (with Redis), and the cluster secret's settings
# (server/config.c, built as the settings tests build it).
thue_unit_test(test_cluster_seal test_cluster_seal.c)
target_link_libraries(test_cluster_seal PRIVATE thue_cluster)
thue_unit_test(test_config_cluster_secret test_config_cluster_secret.c config_helpers.c
               ${PROJECT_SOURCE_DIR}/server/config.c ${PROJECT_SOURCE_DIR}/server/log.c)
target_include_directories(test_config_cluster_secret PRIVATE ${PROJECT_SOURCE_DIR}/server)
target_compile_definitions(test_config_cluster_secret PRIVATE
  THUE_WEB_ROOT_DEFAULT="${PROJECT_SOURCE_DIR}/clients/web"
  THUE_SERVER_DOC="${PROJECT_SOURCE_DIR}/docs/server.md")
target_link_libraries(test_config_cluster_secret PRIVATE PkgConfig::JANSSON)
