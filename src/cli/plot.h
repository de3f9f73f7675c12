/* xray --plot's axes (plot-axis.c), for plot.c: built with cairo only. */
#ifndef XRAY_CLI_PLOT_H
#define XRAY_CLI_PLOT_H

#include <cairo.h>
#include <stddef.h>

struct axis {
  double lo, hi;
  int log;
  double from, to; /* pixels */
};

/* Where v lies on axis a, in pixels. */
double xray_plot_place(const struct axis *a, double v);
/* An axis over [lo, hi], drawn from pixel from to pixel to: log where it
 * spans 16 times or more. */
void xray_plot_span(struct axis *a, double lo, double hi, double from, double to);
/* 1536 -> "1.5K", 33554432 -> "32M" (powers of 1024), small ones as are. */
void xray_plot_human(char *out, size_t len, double v);
/* Text s at (x, y), of size size, its align share left of x. */
void xray_plot_text(cairo_t *cr, double x, double y, double size, const char *s, double align);
/* Axis a's ticks and their labels, at other on the other axis. */
void xray_plot_ticks(cairo_t *cr, const struct axis *a, int vertical, double other);

#endif
