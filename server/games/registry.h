/*
 * registry.h: the list of games (the registry's one place to add a game), and each
 * game's table. X(symbol) in the order `thue games` lists them.
 */
#ifndef THUE_GAMES_REGISTRY_H
#define THUE_GAMES_REGISTRY_H

#include "games/game.h"

#define THUE_GAMES(X)                                                                              \
    X(thue_game_thue) X(thue_game_nim) X(thue_game_circle) X(thue_game_northcott) X(thue_game_rims) \
        X(thue_game_wythoff) X(thue_game_dots)

#define THUE__GAME_DECL(sym) extern const thue_gamedef sym;
THUE_GAMES(THUE__GAME_DECL)
#undef THUE__GAME_DECL

#endif
