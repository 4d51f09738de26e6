/* cmd_arena.c: placeholder until `thue arena` lands. */
#include "cli.h"

int cmd_arena(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "thue arena: not built yet\n");
    return 1;
}
