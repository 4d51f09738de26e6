# Glicko-2 ratings (server/ladder/glicko2.c): included from tests/unit/CMakeLists.txt.
foreach(t test_glicko_example test_glicko_edges test_glicko_reference)
  thue_unit_test(${t} ${t}.c glicko_helpers.c)
  target_link_libraries(${t} PRIVATE thue_ladder)
endforeach()
