/* cli_run.c: running the built `thue` binary from cmocka tests (see cli_run.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli_run.h"

#ifndef THUE_CLI_PATH
#error "THUE_CLI_PATH must name the built thue binary"
#endif

char *slurp(FILE *f)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    rewind(f);
    for (;;) {
        if (cap - len < 2048) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0)
            break;
    }
    buf[len] = '\0';
    return buf;
}

run_result run_argv_limited(const char *input, size_t input_len, const char *const *args,
                            unsigned alarm_s, int *sig)
{
    char *argv[MAX_ARGS + 2];
    int n = 0;
    argv[n++] = (char *)THUE_CLI_PATH;
    for (; args[n - 1] != NULL; n++) {
        assert_true(n <= MAX_ARGS);
        argv[n] = (char *)args[n - 1];
    }
    argv[n] = NULL;

    FILE *in = tmpfile(), *out = tmpfile(), *err = tmpfile();
    assert_non_null(in);
    assert_non_null(out);
    assert_non_null(err);
    if (input_len > 0)
        assert_int_equal(fwrite(input, 1, input_len, in), input_len);
    fflush(in);
    rewind(in);
    fflush(stdout);
    fflush(stderr);

    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (dup2(fileno(in), STDIN_FILENO) < 0 || dup2(fileno(out), STDOUT_FILENO) < 0 ||
            dup2(fileno(err), STDERR_FILENO) < 0)
            _exit(126);
        if (alarm_s > 0)
            alarm(alarm_s); /* an alarm survives exec */
        execv(argv[0], argv);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        assert_int_equal(errno, EINTR);

    run_result r;
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (sig != NULL)
        *sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    r.out = slurp(out);
    r.err = slurp(err);
    fclose(in);
    fclose(out);
    fclose(err);
    return r;
}

/* Runs thue with args (NULL-terminated, without the program name), stdin holding
 * input[0..input_len-1]. */
run_result run_argv(const char *input, size_t input_len, const char *const *args)
{
    return run_argv_limited(input, input_len, args, 0, NULL);
}

static run_result run_va(const char *input, const char *first, va_list ap)
{
    const char *args[MAX_ARGS + 1];
    int n = 0;
    for (const char *a = first; a != NULL; a = va_arg(ap, const char *)) {
        assert_true(n < MAX_ARGS);
        args[n++] = a;
    }
    args[n] = NULL;
    return run_argv(input, input ? strlen(input) : 0, args);
}

/* run_in("stdin text", "arg", ..., NULL) */
run_result run_in(const char *input, const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    run_result r = run_va(input, first, ap);
    va_end(ap);
    return r;
}

/* run("arg", ..., NULL) with empty stdin. */
run_result run(const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    run_result r = run_va("", first, ap);
    va_end(ap);
    return r;
}

void run_free(run_result *r)
{
    free(r->out);
    free(r->err);
}

void contains_at(const char *hay, const char *needle, const char *file, int line)
{
    if (strstr(hay, needle) == NULL) {
        print_error("expected \"%s\" in:\n%s\n", needle, hay);
        _fail(file, line);
    }
}

void status_at(const run_result *r, int status, const char *file, int line)
{
    if (r->status != status) {
        print_error("exit status %d, expected %d\nstdout: %s\nstderr: %s\n", r->status, status,
                    r->out, r->err);
        _fail(file, line);
    }
}

void text_at(const char *got, const char *want, const char *what, const char *file, int line)
{
    if (strcmp(got, want) != 0) {
        print_error("%s is\n%s\nexpected\n%s\n", what, got, want);
        _fail(file, line);
    }
}

/* Exit 2, nothing on stdout, a message naming `what` on stderr; frees r. */
void usage_error_at(run_result r, const char *what, const char *file, int line)
{
    status_at(&r, 2, file, line);
    text_at(r.out, "", "stdout", file, line);
    contains_at(r.err, what, file, line);
    run_free(&r);
}

/* Exit `status`, stdout exactly `out`; frees r. */
void output_at(run_result r, int status, const char *out, const char *file, int line)
{
    status_at(&r, status, file, line);
    text_at(r.out, out, "stdout", file, line);
    run_free(&r);
}
