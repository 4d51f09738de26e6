/*
 * svg.c: the log-scale line chart of svg.h.
 *
 * Layout: the plot area is a fixed 640 x 400 box; the legend sits to its right, as wide
 * as the longest label needs, and the document grows taller when the legend does. The
 * y axis covers whole decades from the smallest to the largest plotted value (at least
 * one), with minor ticks at 2..9 when there are few decades; the x axis runs from 0 to a
 * multiple of a 1-2-5 step above the largest x. Coordinates are printed with one decimal,
 * which is finer than a pixel.
 */
#include "svg.h"

#include <math.h>
#include <string.h>

#define PLOT_W 640.0
#define PLOT_H 400.0
#define LEFT 90.0
#define TOP 50.0
#define BOTTOM 60.0
#define LEGEND_ROW 18.0
#define CHAR_W 6.6 /* rough width of a 12px sans-serif character, for the legend's width */

/* Twenty colours, dark ones first (series beyond twenty reuse them). */
static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
                                      "#393b79", "#ad494a", "#637939", "#8c6d31", "#7b4173",
                                      "#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363"};
#define PALETTE_N (int)(sizeof palette / sizeof *palette)

void svg_escape(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&apos;", f);
            break;
        default:
            if (*p >= 0x20 || *p == '\t' || *p == '\n')
                fputc(*p, f);
        }
    }
}

static int plottable(double y)
{
    return isfinite(y) && y > 0;
}

/* The smallest 1, 2 or 5 times a power of ten that is >= raw (and >= 1: x values here
 * are counts). */
static double nice_step(double raw)
{
    if (!(raw > 1))
        return 1;
    double mag = pow(10, floor(log10(raw)));
    double steps[] = {1, 2, 5, 10};
    for (int i = 0; i < 4; i++)
        if (steps[i] * mag >= raw)
            return steps[i] * mag;
    return 10 * mag;
}

/* A decade's label: 1000, 1, 0.01, or 1e-06 far from 1. */
static void decade_label(char *buf, size_t size, int e)
{
    if (e >= 0 && e <= 6)
        snprintf(buf, size, "%.0f", pow(10, e));
    else if (e < 0 && e >= -4)
        snprintf(buf, size, "%.*f", -e, pow(10, e));
    else
        snprintf(buf, size, "1e%d", e);
}

typedef struct frame {
    double x0, x1; /* x range */
    int lo, hi;    /* y range: 10^lo .. 10^hi */
} frame;

static double map_x(const frame *fr, double x)
{
    return LEFT + (x - fr->x0) / (fr->x1 - fr->x0) * PLOT_W;
}

static double map_y(const frame *fr, double y)
{
    return TOP + PLOT_H - (log10(y) - fr->lo) / (double)(fr->hi - fr->lo) * PLOT_H;
}

static void text(FILE *f, double x, double y, const char *anchor, const char *extra, const char *s)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s>", x, y, anchor, extra);
    svg_escape(f, s);
    fputs("</text>\n", f);
}

static void axes(FILE *f, const frame *fr)
{
    char label[32];
    fputs("<g font-size=\"12\" fill=\"#333\">\n", f);
    /* y: a grid line and label per decade, minor ticks in between. */
    for (int e = fr->lo; e <= fr->hi; e++) {
        double y = map_y(fr, pow(10, e));
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
                LEFT, y, LEFT + PLOT_W, y, LEFT - 6, y, LEFT, y);
        decade_label(label, sizeof label, e);
        text(f, LEFT - 9, y + 4, "end", "", label);
        if (e < fr->hi && fr->hi - fr->lo <= 6)
            for (int m = 2; m <= 9; m++) {
                double ym = map_y(fr, m * pow(10, e));
                fprintf(f,
                        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
                        LEFT - 3, ym, LEFT, ym);
            }
    }
    /* x: a 1-2-5 step giving about 8 intervals. */
    double step = nice_step((fr->x1 - fr->x0) / 8);
    for (double t = fr->x0; t <= fr->x1 + step * 1e-9; t += step) {
        double x = map_x(fr, t);
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n"
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
                x, TOP, x, TOP + PLOT_H, x, TOP + PLOT_H, x, TOP + PLOT_H + 6);
        snprintf(label, sizeof label, "%g", t);
        text(f, x, TOP + PLOT_H + 20, "middle", "", label);
    }
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
            "stroke=\"#333\"/>\n",
            LEFT, TOP, PLOT_W, PLOT_H);
    fputs("</g>\n", f);
}

/* The frame that holds every plottable point; 0 when there is none. */
static int fit(const svg_chart *c, frame *fr)
{
    double xmax = 0, ymin = INFINITY, ymax = 0;
    int any = 0;
    for (int s = 0; s < c->nseries; s++)
        for (int i = 0; i < c->series[s].n; i++) {
            double y = c->series[s].y[i];
            if (!plottable(y))
                continue;
            any = 1;
            if (c->series[s].x[i] > xmax)
                xmax = c->series[s].x[i];
            ymin = fmin(ymin, y);
            ymax = fmax(ymax, y);
        }
    fr->x0 = 0;
    if (!any) {
        fr->x1 = 10;
        fr->lo = -3;
        fr->hi = 0;
        return 0;
    }
    double step = nice_step(xmax / 8);
    fr->x1 = fmax(step, ceil(xmax / step) * step);
    fr->lo = (int)floor(log10(ymin));
    fr->hi = (int)ceil(log10(ymax));
    if (fr->hi <= fr->lo)
        fr->hi = fr->lo + 1;
    return 1;
}

static void series_line(FILE *f, const frame *fr, const svg_series *s, const char *colour)
{
    const char *dash = s->dashed ? " stroke-dasharray=\"7 4\"" : "";
    int open = 0, run = 0;
    for (int i = 0; i <= s->n; i++) {
        int ok = i < s->n && plottable(s->y[i]);
        if (ok) {
            if (!open) {
                fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"%s points=\"",
                        colour, dash);
                open = 1;
                run = 0;
            }
            fprintf(f, "%s%.1f,%.1f", run ? " " : "", map_x(fr, s->x[i]), map_y(fr, s->y[i]));
            run++;
        } else if (open) {
            fputs("\"/>\n", f);
            open = 0;
        }
    }
    /* Markers where the points are sparse enough to tell apart (and always for a lone
     * point, which a polyline would not show). */
    for (int i = 0; i < s->n; i++) {
        if (!plottable(s->y[i]))
            continue;
        int lone =
            (i == 0 || !plottable(s->y[i - 1])) && (i + 1 == s->n || !plottable(s->y[i + 1]));
        if (s->n <= 40 || lone)
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n",
                    map_x(fr, s->x[i]), map_y(fr, s->y[i]), colour);
    }
}

int svg_write_log_chart(FILE *f, const svg_chart *c)
{
    frame fr;
    int any = fit(c, &fr);
    size_t longest = 0;
    for (int s = 0; s < c->nseries; s++)
        if (strlen(c->series[s].label) > longest)
            longest = strlen(c->series[s].label);
    double legend_w = fmin(fmax(60 + CHAR_W * (double)longest, 160), 560);
    double width = LEFT + PLOT_W + 20 + legend_w;
    double legend_h = 30 + LEGEND_ROW * c->nseries;
    double height = fmax(TOP + PLOT_H + BOTTOM, TOP + legend_h + 10);

    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"Helvetica, Arial, sans-serif\">\n",
            width, height, width, height);
    fprintf(f, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n", width, height);
    text(f, LEFT + PLOT_W / 2, 28, "middle", " font-size=\"16\" font-weight=\"bold\"", c->title);
    axes(f, &fr);
    char rot[64];
    snprintf(rot, sizeof rot, " font-size=\"13\" transform=\"rotate(-90 %.1f %.1f)\"", 22.0,
             TOP + PLOT_H / 2);
    text(f, LEFT + PLOT_W / 2, TOP + PLOT_H + 45, "middle", " font-size=\"13\"", c->xlabel);
    text(f, 22, TOP + PLOT_H / 2, "middle", rot, c->ylabel);
    if (!any)
        text(f, LEFT + PLOT_W / 2, TOP + PLOT_H / 2, "middle", " font-size=\"14\" fill=\"#999\"",
             "no data");

    for (int s = 0; s < c->nseries; s++)
        series_line(f, &fr, &c->series[s], palette[s % PALETTE_N]);

    /* Legend: a sample of each line and its label. */
    double lx = LEFT + PLOT_W + 20, ly = TOP;
    fprintf(f,
            "<g font-size=\"12\" fill=\"#333\">\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
            "height=\"%.1f\" fill=\"white\" stroke=\"#bbb\"/>\n",
            lx, ly, legend_w - 10, legend_h - 10);
    for (int s = 0; s < c->nseries; s++) {
        double y = ly + 20 + LEGEND_ROW * s;
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"2\"%s/>\n",
                lx + 8, y - 4, lx + 36, y - 4, palette[s % PALETTE_N],
                c->series[s].dashed ? " stroke-dasharray=\"7 4\"" : "");
        text(f, lx + 44, y, "start", "", c->series[s].label);
    }
    fputs("</g>\n</svg>\n", f);
    return ferror(f) ? -1 : 0;
}
