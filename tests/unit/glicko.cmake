# Glicko-2 ratings (server/ladder/glicko2.c): included from tests/unit/CMakeLists.txt.
thue_unit_test(test_glicko test_glicko.c)
target_link_libraries(test_glicko PRIVATE thue_ladder)
