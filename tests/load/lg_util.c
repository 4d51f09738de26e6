/* lg_util.c: the round-trip histogram, the error table and /proc readings. */
#include "lg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lg_hist_add(lg_hist *h, uint64_t ns)
{
    uint64_t us = ns / 1000;
    if (us < LG_HIST_FINE) {
        h->fine[us]++;
    } else {
        uint64_t ms = us / 1000;
        if (ms >= LG_HIST_COARSE)
            ms = LG_HIST_COARSE - 1;
        h->coarse[ms]++;
    }
    h->n++;
    if (ns > h->max_ns)
        h->max_ns = ns;
}

double lg_hist_quantile(const lg_hist *h, double q)
{
    if (h->n == 0)
        return 0;
    uint64_t want = (uint64_t)(q * (double)h->n);
    if (want >= h->n)
        want = h->n - 1;
    uint64_t seen = 0;
    for (int i = 0; i < LG_HIST_FINE; i++) {
        seen += h->fine[i];
        if (seen > want)
            return (i + 1) / 1000.0;
    }
    for (int i = 0; i < LG_HIST_COARSE; i++) {
        seen += h->coarse[i];
        if (seen > want)
            return (double)(i + 1);
    }
    return (double)h->max_ns / 1e6;
}

#define ERR_KINDS 64
static struct {
    char kind[64];
    long n;
} errs[ERR_KINDS];
static int nerrs;
static long errs_total;

void lg_err_count(const char *kind)
{
    errs_total++;
    for (int i = 0; i < nerrs; i++)
        if (strcmp(errs[i].kind, kind) == 0) {
            errs[i].n++;
            return;
        }
    int at;
    if (nerrs < ERR_KINDS - 1) {
        at = nerrs++;
        snprintf(errs[at].kind, sizeof errs[at].kind, "%s", kind);
    } else {
        at = ERR_KINDS - 1; /* everything past the table's size */
        if (nerrs < ERR_KINDS) {
            nerrs = ERR_KINDS;
            snprintf(errs[at].kind, sizeof errs[at].kind, "other");
        }
    }
    errs[at].n++;
}

int lg_err_kinds(void)
{
    return nerrs;
}

const char *lg_err_kind(int i, long *count)
{
    *count = errs[i].n;
    return errs[i].kind;
}

long lg_err_total(void)
{
    return errs_total;
}

int lg_proc_cpu_ticks(int pid, int tid, uint64_t *ticks)
{
    char path[80], buf[1024];
    if (tid > 0)
        snprintf(path, sizeof path, "/proc/%d/task/%d/stat", pid, tid);
    else
        snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* The command name may hold spaces: fields restart after the last ')'. */
    char *p = strrchr(buf, ')');
    if (p == NULL)
        return -1;
    p += 2; /* field 3, the state */
    unsigned long long utime = 0, stime = 0;
    /* fields 3..13 skipped, 14 utime, 15 stime */
    for (int field = 3; field < 14; field++) {
        p = strchr(p, ' ');
        if (p == NULL)
            return -1;
        p++;
    }
    if (sscanf(p, "%llu %llu", &utime, &stime) != 2)
        return -1;
    *ticks = utime + stime;
    return 0;
}

int lg_proc_rss_kib(int pid, long *rss, long *hwm)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    *rss = *hwm = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "VmRSS:", 6) == 0)
            *rss = strtol(line + 6, NULL, 10);
        else if (strncmp(line, "VmHWM:", 6) == 0)
            *hwm = strtol(line + 6, NULL, 10);
    }
    fclose(f);
    return *rss >= 0 ? 0 : -1;
}
