/* codec.c: placeholder until the codec lands. */
#include "protocol/codec.h"
