/*
 * config_helpers.h: what the settings tests (test_config_*.c) share: the setup that
 * clears every THUE_* variable, loading from a list of arguments, temporary config files,
 * and the table of every setting with its member, range and text.
 */
#ifndef THUE_TEST_CONFIG_HELPERS_H
#define THUE_TEST_CONFIG_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "config.h"

extern char **environ;

#define ERR_SIZE 512

#define MAX_ARGS 32

/* ---- helpers ---- */

void clear_thue_env(void);

int setup(void **state);

/* thue_config_load with argv = {"thue-server", args..., NULL}; args ends with NULL. */
int load_list(thue_config *c, char *err, const char *const *args);

#define LOAD(c, err, ...) load_list(c, err, (const char *const[]){__VA_ARGS__, NULL})

/* Loads and expects success (err empty). */
#define LOAD_OK(c, ...)                                                                            \
    do {                                                                                           \
        char err_[ERR_SIZE];                                                                       \
        int r_ = LOAD(c, err_, __VA_ARGS__);                                                       \
        if (r_ != 0)                                                                               \
            fail_msg("load failed (%d): %s", r_, err_);                                            \
        assert_string_equal(err_, "");                                                             \
    } while (0)

/* Loads and expects failure with exactly the message want. */
#define LOAD_ERR(want, ...)                                                                        \
    do {                                                                                           \
        thue_config c_;                                                                            \
        char err_[ERR_SIZE];                                                                       \
        assert_int_equal(LOAD(&c_, err_, __VA_ARGS__), -1);                                        \
        assert_string_equal(err_, want);                                                           \
    } while (0)

/* A temporary file holding text; returns its path (free it, and unlink the file). */
char *temp_file(const char *text);

void remove_temp(char *path);

/* Expects the config file holding text to fail with "PATH" + suffix. */
void expect_file_error(const char *text, const char *suffix);

/* ---- the settings as the tests know them ---- */

typedef enum { T_INT, T_STR, T_LEVEL, T_REAL } tkind;

typedef struct tsetting {
    const char *name; /* flag name without dashes */
    tkind kind;
    size_t offset;
    long long min, max; /* T_INT */
    const char *text;   /* a valid non-default value as text */
    const char *range;  /* T_REAL: the range as documented */
} tsetting;

#define TINT(name, member, lo, hi, text)                                                           \
    {                                                                                              \
        name, T_INT, offsetof(thue_config, member), lo, hi, text, NULL                             \
    }

#define TSTR(name, member, text)                                                                   \
    {                                                                                              \
        name, T_STR, offsetof(thue_config, member), 0, 0, text, NULL                               \
    }

#define TREAL(name, member, range, text)                                                           \
    {                                                                                              \
        name, T_REAL, offsetof(thue_config, member), 0, 0, text, range                             \
    }

extern const tsetting tsettings[];

/* The number of rows of tsettings. */
extern const size_t ntsettings;
#define NTSETTINGS ntsettings

void env_name(const tsetting *s, char *buf, size_t size);

/* Expects c's tau to be exactly want. */
void check_tau(const thue_config *c, double want);

#endif
