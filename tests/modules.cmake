# Each ctest entry's module: exactly one LABELS entry naming the part of the source tree it
# tests, so that `ctest -L '^lobby$'` runs the lobby's tests and `bash scripts/test.sh
# --quick lobby` builds and runs only those (docs/testing.md, "Quick runs").
#
# A test is labelled where it is registered: thue_unit_test() does it, the integration
# and browser tests' loops (tests/CMakeLists.txt) do it, and every plain add_test() is
# followed by thue_test_label(NAME...). The module comes from the tables below, by the
# test's name: the patterns of exactly one module must match it. At the end of the
# configure step thue_test_labels_check() (CMakeLists.txt) stops the build when a
# registered test went unlabelled.
#
# The modules, after the source layout (scripts/test.sh maps changed paths to them):
#   thue      server/games/thue (engine, bots, proof checker), tests/reference
#   games     server/games/* but thue: Nim, Rims, Northcott, circle, Wythoff, dots
#   search    server/search: the worker pool, generic bots, budgets
#   protocol  protocol/: the codec and the JSON schemas
#   server    server/*.c: settings, log, quotas, passwords; the server as a program
#   net       server/net: HTTP, WebSocket, static files, keep-alive, the receive guard
#   lobby     server/lobby: rooms, matches, sessions, accounts, analyses
#   ladder    server/ladder: ratings and tournaments
#   store     server/store: SQLite and PostgreSQL
#   cluster   server/cluster: several nodes on PostgreSQL and Redis
#   cli       clients/cli and clients/examples: the `thue` tool
#   web       clients/web: the browser client (the e2e tests)
#   load      tests/load: the load generator and the benches' smoke tests
set(THUE_TEST_MODULES thue games search protocol server net lobby ladder store cluster cli
    web load)

set(THUE_TESTS_OF_thue
  "^test_(word|match|repetition|solve|uct|verify_proof)(_.*)?$"
  "^test_bots(_specs|_perfect)?$" "^test_game_thue$" "^reference_crosscheck$"
  "^fuzz_(repetition|word_parse|bot_spec|verify_proof)_smoke$")
set(THUE_TESTS_OF_games
  "^test_game_(heaps|registry|northcott|circle|circle_api|circle_cap|wythoff|dots)$"
  "^test_(wythoff_ptable|dots_bots)$" "^integration_games$" "^fuzz_games_smoke$")
set(THUE_TESTS_OF_search
  "^test_(pool|pool_owners|pool_game|pool_task|gbot|guct|search_bounds|budget|review|puzzle|puzzle_thue)$"
  "^integration_attack_(bots|search)$")
set(THUE_TESTS_OF_protocol "^test_codec(_.*)?$" "^protocol_schemas$" "^fuzz_protocol_smoke$"
  "^integration_v2$")
set(THUE_TESTS_OF_server
  "^test_(config_settings|config_errors|config_docs|quota|password|log)$"
  "^integration_(server|drain|deploy_settings)$")
set(THUE_TESTS_OF_net
  "^test_(rxguard|keepalive|trusted_proxy|config_trusted_proxy)$"
  "^integration_(strict|attack_http|attack_fd|attack_slow|keepalive|static|trusted_network|puzzles)$")
set(THUE_TESTS_OF_lobby
  "^test_lobby_.*$" "^test_names$"
  "^integration_(analysis|analysis_v2|attack_identity|attack_lobby|best_move|errors|legal_moves|match|passwords|review|session)$"
  "^fuzz_lobby_smoke$")
set(THUE_TESTS_OF_ladder "^test_(glicko|schedule)_.*$"
  "^integration_(ladder|ratings_games|tournament)$")
set(THUE_TESTS_OF_store "^test_store_.*$" "^integration_(attack_db|records)$")
set(THUE_TESTS_OF_cluster "^test_cluster_.*$" "^test_config_cluster_secret$"
  "^integration_(balancer|cluster|cluster_.*)$")
set(THUE_TESTS_OF_cli "^test_(cli|cli_.*|arena_cli_.*)$" "^integration_cli$")
set(THUE_TESTS_OF_web "^e2e_.*$")
set(THUE_TESTS_OF_load
  "^(test_lg_ws|test_lg_model|bench_quick|bench_startup_quick|bench_100k_quick|loadgen_sources|loadgen_models)$")

# thue_test_module(NAME OUT): OUT is the modules whose patterns match NAME (one, if all is
# well).
function(thue_test_module name out)
  set(found "")
  foreach(module ${THUE_TEST_MODULES})
    foreach(pattern ${THUE_TESTS_OF_${module}})
      if(name MATCHES "${pattern}")
        list(APPEND found ${module})
        break()
      endif()
    endforeach()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

# thue_test_label(NAME...): gives each test of the current directory its module's label.
function(thue_test_label)
  foreach(name ${ARGN})
    thue_test_module(${name} found)
    list(LENGTH found n)
    if(NOT n EQUAL 1)
      if(n EQUAL 0)
        set(found "none")
      endif()
      message(FATAL_ERROR "test ${name}: modules matching its name: ${found}; it needs "
                          "exactly one (add it to one module's patterns in tests/modules.cmake)")
    endif()
    get_property(labelled GLOBAL PROPERTY THUE_LABELLED_TESTS)
    if(name IN_LIST labelled)
      message(FATAL_ERROR "test ${name} is labelled twice")
    endif()
    set_property(GLOBAL APPEND PROPERTY THUE_LABELLED_TESTS ${name})
    set_property(TEST ${name} APPEND PROPERTY LABELS ${found})
  endforeach()
endfunction()

# thue_test_labels_check(): every test registered anywhere under the source tree went
# through thue_test_label(); called once, at the end of the top-level CMakeLists.txt.
function(thue_test_labels_check)
  get_property(labelled GLOBAL PROPERTY THUE_LABELLED_TESTS)
  set(dirs ${PROJECT_SOURCE_DIR})
  set(missing "")
  while(dirs)
    list(POP_FRONT dirs dir)
    get_property(tests DIRECTORY ${dir} PROPERTY TESTS)
    foreach(t ${tests})
      if(NOT t IN_LIST labelled)
        list(APPEND missing ${t})
      endif()
    endforeach()
    get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
    list(APPEND dirs ${subdirs})
  endwhile()
  if(missing)
    list(JOIN missing ", " missing)
    message(FATAL_ERROR "tests without a module label: ${missing}. Register them with "
                        "thue_unit_test() or follow their add_test() with "
                        "thue_test_label(NAME) (tests/modules.cmake)")
  endif()
endfunction()

# As a script (scripts/test.sh --quick uses it, without configuring):
#   cmake -P tests/modules.cmake                      the modules, one a line
#   cmake -DTHUE_NAMES="test_names;e2e_game" -P tests/modules.cmake
#                                                     each name's module ("-" for none)
if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  if(DEFINED THUE_NAMES)
    foreach(name ${THUE_NAMES})
      thue_test_module(${name} found)
      list(LENGTH found n)
      if(NOT n EQUAL 1)
        set(found "-")
      endif()
      message(NOTICE "${name} ${found}")
    endforeach()
  else()
    foreach(module ${THUE_TEST_MODULES})
      message(NOTICE "${module}")
    endforeach()
  endif()
endif()
