/* metrics.c: placeholder until it lands. */
