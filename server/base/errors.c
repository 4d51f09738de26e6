/* errors.c: messages and names of every code of THUE_ERRORS (see errors.h). */
#include "base/errors.h"

const char *thue_strerror(int err)
{
    switch (err) {
    case 0:
        return "success";
#define THUE__ERR_MSG(name, value, wire, msg)                                                      \
    case value:                                                                                    \
        return msg;
        THUE_ERRORS(THUE__ERR_MSG)
#undef THUE__ERR_MSG
    default:
        return "unknown error";
    }
}

const char *thue_err_name(int err)
{
    switch (err) {
    case 0:
        return "ok";
#define THUE__ERR_NAME(name, value, wire, msg)                                                     \
    case value:                                                                                    \
        return wire;
        THUE_ERRORS(THUE__ERR_NAME)
#undef THUE__ERR_NAME
    default:
        return "unknown_error";
    }
}
