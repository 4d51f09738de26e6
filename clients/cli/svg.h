/*
 * svg.h: a hand-written SVG line chart with a linear x axis and a logarithmic y axis,
 * in the manner of the thesis's decision-time figures: axes with ticks and labels, a
 * light grid, one polyline per series and a legend. The output is a complete, valid XML
 * document that starts with the <svg> element itself (no XML declaration: UTF-8 is the
 * default) and escapes every text; it depends on nothing but stdio.
 */
#ifndef THUE_CLI_SVG_H
#define THUE_CLI_SVG_H

#include <stdio.h>

typedef struct svg_series {
    const char *label; /* borrowed; shown in the legend */
    const double *x;   /* borrowed: n points, x ascending */
    const double *y;   /* borrowed: n values; a value <= 0 (or not finite) has no place
                          on a log axis: it is left out and breaks the line */
    int n;
    int dashed; /* 1: a dashed line (the painter's series in the arena) */
} svg_series;

typedef struct svg_chart {
    const char *title;  /* borrowed */
    const char *xlabel; /* borrowed */
    const char *ylabel; /* borrowed */
    const svg_series *series;
    int nseries;
} svg_chart;

/*
 * Writes the chart to f as a standalone SVG document. The axes span the data (the y
 * axis whole decades, the x axis from 0 to a round number); with no plottable point at
 * all the chart still has its axes and says "no data". Returns 0, or -1 when f reports
 * a write error.
 */
int svg_write_log_chart(FILE *f, const svg_chart *chart);

/* Writes s with &, <, >, " and ' escaped as XML entities (control characters other
 * than tab and newline, which XML 1.0 forbids, are dropped). */
void svg_escape(FILE *f, const char *s);

#endif
