/* log.c: placeholder until it lands. */
