/* config.c: placeholder until it lands. */
