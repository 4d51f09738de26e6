/* lobby.c: placeholder until it lands. */
