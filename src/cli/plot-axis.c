/* xray --plot's axes (plot.h): where a value lies on one, its span, its
 * ticks and their labels, drawn with cairo. */
#ifdef XRAY__HAVE_CAIRO
#include "cli/plot.h"

#include <math.h>
#include <stdio.h>

double
xray_plot_place(const struct axis *a, double v)
{
  double f =
      a->log ? (log(v) - log(a->lo)) / (log(a->hi) - log(a->lo)) : (v - a->lo) / (a->hi - a->lo);
  return a->from + f * (a->to - a->from);
}

void
xray_plot_span(struct axis *a, double lo, double hi, double from, double to)
{
  a->log = lo > 0 && hi / lo >= 16;
  if (!a->log) {
    double pad = (hi - lo) * 0.05 + (hi == lo ? fabs(hi) * 0.1 + 1 : 0);
    lo = lo - pad < 0 && lo >= 0 ? 0 : lo - pad;
    hi += pad;
  } else {
    lo /= 1.2;
    hi *= 1.2;
  }
  a->lo = lo;
  a->hi = hi;
  a->from = from;
  a->to = to;
}

void
xray_plot_human(char *out, size_t len, double v)
{
  static const char *const suf[] = { "", "K", "M", "G", "T" };
  int i = 0;

  while (fabs(v) >= 1024 && i < 4 && fmod(v, 1024) == 0)
    v /= 1024, i++;
  if (i == 0 && fabs(v) >= 1024 * 1024)
    while (fabs(v) >= 1024 && i < 4)
      v /= 1024, i++;
  snprintf(out, len, "%.4g%s", v, suf[i]);
}

void
xray_plot_text(cairo_t *cr, double x, double y, double size, const char *s, double align)
{
  cairo_text_extents_t e;

  cairo_set_font_size(cr, size);
  cairo_text_extents(cr, s, &e);
  cairo_move_to(cr, x - align * e.x_advance, y);
  cairo_show_text(cr, s);
}

/* Ticks: powers of two on a log axis (every k-th, at most 10), else steps
 * of 1, 2 or 5 times a power of ten. */
void
xray_plot_ticks(cairo_t *cr, const struct axis *a, int vertical, double other)
{
  double v, step, first;
  char buf[32];

  if (a->log) {
    int e0 = (int) ceil(log2(a->lo)), e1 = (int) floor(log2(a->hi)), k = (e1 - e0) / 10 + 1, e;
    for (e = e0; e <= e1; e += k) {
      double p = xray_plot_place(a, pow(2, e));
      xray_plot_human(buf, sizeof buf, pow(2, e));
      cairo_move_to(cr, vertical ? other - 4 : p, vertical ? p : other);
      cairo_line_to(cr, vertical ? other : p, vertical ? p : other + 4);
      cairo_stroke(cr);
      xray_plot_text(cr, vertical ? other - 8 : p, vertical ? p + 4 : other + 18, 11, buf,
                     vertical ? 1 : 0.5);
    }
    return;
  }
  step = pow(10, floor(log10((a->hi - a->lo) / 5)));
  step *= (a->hi - a->lo) / step > 25 ? 5 : (a->hi - a->lo) / step > 10 ? 2 : 1;
  first = ceil(a->lo / step) * step;
  for (v = first; v <= a->hi; v += step) {
    double p = xray_plot_place(a, v);
    snprintf(buf, sizeof buf, "%.4g", fabs(v) < step / 1e6 ? 0 : v);
    cairo_move_to(cr, vertical ? other - 4 : p, vertical ? p : other);
    cairo_line_to(cr, vertical ? other : p, vertical ? p : other + 4);
    cairo_stroke(cr);
    xray_plot_text(cr, vertical ? other - 8 : p, vertical ? p + 4 : other + 18, 11, buf,
                   vertical ? 1 : 0.5);
  }
}
#endif
