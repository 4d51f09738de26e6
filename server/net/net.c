/* net.c: placeholder until it lands. */
