# The store (server/store): SQLite on a temporary file or ":memory:", a real uv loop, and a
# forked child that dies inside a transaction.
foreach(t test_store_schema test_store_records test_store_writes)
  thue_unit_test(${t} ${t}.c store_helpers.c)
  target_link_libraries(${t} PRIVATE thue_store PkgConfig::JANSSON)
endforeach()
