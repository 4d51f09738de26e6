# The store (server/store): SQLite on a temporary file or ":memory:", a real uv loop, and a
# forked child that dies inside a transaction.
foreach(t test_store_schema test_store_records test_store_writes)
  thue_unit_test(${t} ${t}.c store_helpers.c)
  target_link_libraries(${t} PRIVATE thue_store PkgConfig::JANSSON)
endforeach()
# Other games' matches in the store (schema 2) and a version-1 file migrating.
thue_unit_test(test_store_games test_store_games.c)
target_link_libraries(test_store_games PRIVATE thue_store thue_games PkgConfig::JANSSON)
