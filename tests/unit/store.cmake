# The store (server/store): SQLite on a temporary file or ":memory:", a real uv loop, and a
# forked child that dies inside a transaction.
thue_unit_test(test_store test_store.c)
target_link_libraries(test_store PRIVATE thue_store PkgConfig::JANSSON)
