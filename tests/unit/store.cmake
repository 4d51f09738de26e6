# The store (server/store): SQLite on a temporary file or ":memory:", a real uv loop, and a
# forked child that dies inside a transaction. Every store test also runs against
# PostgreSQL (the _pg entries: the same binary with THUE_STORE_TEST_BACKEND=pg, each test
# in a database of its own) when THUE_TEST_PG holds a connection URI at configure time
# (scripts/test.sh starts a throw-away server with scripts/services.sh and sets it).
pkg_check_modules(LIBPQ REQUIRED IMPORTED_TARGET libpq)
set(thue_store_tests test_store_schema test_store_records test_store_writes test_store_games
    test_store_engines test_store_passwords test_store_rating_tx test_store_leases
    test_store_puzzles)
foreach(t test_store_schema test_store_records test_store_writes test_store_passwords
        test_store_leases test_store_puzzles)
  thue_unit_test(${t} ${t}.c store_helpers.c store_testdb.c)
  target_link_libraries(${t} PRIVATE thue_store PkgConfig::JANSSON PkgConfig::LIBPQ)
endforeach()
# Ratings in the store's transaction against a naive replay, several stores at once, the
# pair limit and the changes other servers follow (schema 5).
thue_unit_test(test_store_rating_tx test_store_rating_tx.c store_helpers.c store_testdb.c)
target_link_libraries(test_store_rating_tx PRIVATE thue_store thue_ladder PkgConfig::JANSSON
                      PkgConfig::LIBPQ m)
# Other games' matches in the store (schema 2) and a version-1 file migrating.
thue_unit_test(test_store_games test_store_games.c store_testdb.c)
target_link_libraries(test_store_games PRIVATE thue_store thue_games PkgConfig::JANSSON
                      PkgConfig::LIBPQ)
# The two engines side by side: the same writes, the same reads' texts byte for byte; and
# PostgreSQL's own cases (several servers on one database, outages, a restart).
thue_unit_test(test_store_engines test_store_engines.c store_helpers.c store_testdb.c)
target_link_libraries(test_store_engines PRIVATE thue_store thue_games PkgConfig::JANSSON
                      PkgConfig::LIBPQ)
if(DEFINED ENV{THUE_TEST_PG} AND NOT "$ENV{THUE_TEST_PG}" STREQUAL "")
  foreach(t ${thue_store_tests})
    add_test(NAME ${t}_pg COMMAND ${t})
    thue_test_label(${t}_pg)
    set_tests_properties(${t}_pg PROPERTIES TIMEOUT 600 ENVIRONMENT
      "THUE_STORE_TEST_BACKEND=pg;THUE_TEST_PG=$ENV{THUE_TEST_PG};THUE_TEST_PG_DIR=$ENV{THUE_TEST_PG_DIR}")
  endforeach()
  # The restart test stops the whole server for a moment: nothing else may use it then.
  set_tests_properties(test_store_engines_pg PROPERTIES RUN_SERIAL TRUE)
endif()
target_compile_definitions(test_store_engines PRIVATE THUE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
