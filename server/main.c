/* main.c: placeholder until the server lands. */
#include <stdio.h>

int main(void)
{
    fputs("thue-server: not built yet\n", stderr);
    return 1;
}
