/* xray --plot=DIR: every curve the probes measured, drawn with cairo into
 * DIR/<label>.svg and .png, one pair per probe label of the trace (a
 * probe may trace under several labels, as tlb does), and DIR/plots.txt,
 * which lists what each file marks.
 *
 * A curve is one kernel's points at three or more sizes, the median time
 * at each.  The x axis is log-scaled where the sizes span 16 times or
 * more, as footprints do; so is the y axis where the times do.  Each value
 * xray found in the axis' units (a capacity, TLB entries, a distance) is a
 * solid red line labelled with its value, its OS view a dashed grey line
 * where there is one; values of the plot's probe that are unknown are said
 * in the caption, with their reasons. */
#include "cli/cli.h"
#include "xray.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef XRAY__HAVE_CAIRO
#include "cli/plot.h"

#include <cairo-svg.h>

#define W 900
#define H 560
#define ML 90 /* margins: left, right, top, bottom */
#define MR 30
#define MT 50
#define MB 140
#define MAX_SERIES 10

struct pt {
  char *label, *kernel;
  double x, y;
};

struct series {
  const char *kernel;
  double *x, *y; /* median y at each distinct x, ascending */
  size_t n, points;
};

/* What a label's curves are, in which units, and which values mark them:
 * names of values (a <n> matches a level), the page size divides byte
 * values where the axis counts pages. */
struct plotdef {
  const char *label, *prefix, *xlabel, *ylabel;
  const char *edges[4];
  int pages;
};

static const struct plotdef defs[] = {
  { "icache", "", "loop code (bytes)", "cycles per statement", { "XRAY_L1I_SIZE" }, 0 },
  { "dcache", "chase/", "chain length (loads)", "cycles per load", { NULL }, 0 },
  { "caches",
    "chase-pages",
    "footprint (pages of random placement)",
    "cycles per load",
    { "XRAY_L1D_SIZE", "XRAY_L<n>_SIZE" },
    1 },
  { "tlb",
    "",
    "pages touched",
    "cycles per load",
    { "XRAY_DTLB_ENTRIES", "XRAY_L2TLB_ENTRIES" },
    0 },
  { "bandwidth",
    "",
    "footprint (bytes)",
    "bytes per cycle",
    { "XRAY_L1D_SIZE", "XRAY_L<n>_SIZE" },
    0 },
  { "sharing",
    "duo-chase",
    "footprint of each chain (bytes)",
    "cycles per load",
    { "XRAY_L1D_SIZE", "XRAY_L<n>_SIZE" },
    0 },
  { "interference",
    "writes",
    "distance between the two words (bytes)",
    "cycles per increment",
    { "XRAY_DESTRUCTIVE_INTERFERENCE" },
    0 },
  { "branch",
    "",
    "fraction of branches that draw a random bit",
    "cycles per iteration",
    { NULL },
    0 },
  { "freq", "", "dependent adds in the chain", "cycles", { NULL }, 0 },
};

static const struct plotdef *
def_for(const char *label)
{
  static const struct plotdef other = { NULL,     "",       "size (as the kernel counts it)",
                                        "cycles", { NULL }, 0 };
  size_t i;

  for (i = 0; i < sizeof defs / sizeof *defs; i++)
    if (strcmp(defs[i].label, label) == 0)
      return &defs[i];
  return &other;
}

/* Whether value name is pattern (a <n> in it matching a level). */
static int
name_is(const char *pattern, const char *name)
{
  const char *lt = strstr(pattern, "<n>");
  size_t pre, post, n = strlen(name), i;

  if (!lt)
    return strcmp(pattern, name) == 0;
  pre = (size_t) (lt - pattern);
  post = strlen(lt + 3);
  if (n <= pre + post || strncmp(pattern, name, pre) || strcmp(name + n - post, lt + 3))
    return 0;
  for (i = pre; i < n - post; i++)
    if (name[i] < '0' || name[i] > '9')
      return 0;
  return 1;
}

static int
by_x(const void *a, const void *b)
{
  double d = ((const struct pt *) a)->x - ((const struct pt *) b)->x;
  return d < 0 ? -1 : d > 0;
}

static int
by_double(const void *a, const void *b)
{
  double d = *(const double *) a - *(const double *) b;
  return d < 0 ? -1 : d > 0;
}

/* The trace's points: label,kernel,x,y (the kernel may hold commas). */
static struct pt *
read_points(FILE *f, size_t *n)
{
  struct pt *p = NULL;
  size_t cap = 0;
  char line[4096];

  *n = 0;
  rewind(f);
  while (fgets(line, sizeof line, f)) {
    char *c1 = strchr(line, ','), *cl = strrchr(line, ','), *cx;
    if (!c1 || cl == c1)
      continue;
    *cl = 0;
    if (!(cx = strrchr(line, ',')) || cx == c1)
      continue;
    *c1 = *cx = 0;
    if (*n == cap) {
      struct pt *q = realloc(p, (cap = cap ? 2 * cap : 1024) * sizeof *p);
      if (!q)
        break;
      p = q;
    }
    {
      char *ex, *ey;
      p[*n].x = strtod(cx + 1, &ex);
      p[*n].y = strtod(cl + 1, &ey);
      /* The header, or a point without a time (NAN), is no point. */
      if (ex == cx + 1 || ey == cl + 1 || (*ey && *ey != '\n'))
        continue;
    }
    if (!isfinite(p[*n].x) || !isfinite(p[*n].y) || !(p[*n].label = strdup(line))
        || !(p[*n].kernel = strdup(c1 + 1)))
      continue;
    (*n)++;
  }
  return p;
}

/* The curves of label (kernels under the def's prefix) into s[]; how
 * many, at most MAX_SERIES: those of the most points. */
static size_t
curves(const struct pt *p, size_t n, const char *label, const char *prefix, struct series *s)
{
  struct pt *mine = malloc((n ? n : 1) * sizeof *mine);
  size_t i, j, k, ns = 0, m;

  if (!mine)
    return 0;
  for (i = 0; i < n; i++) {
    int seen = 0;
    if (strcmp(p[i].label, label) || strncmp(p[i].kernel, prefix, strlen(prefix)))
      continue;
    for (j = 0; j < i && !seen; j++)
      seen = !strcmp(p[j].label, label) && !strcmp(p[j].kernel, p[i].kernel);
    if (seen)
      continue;
    for (m = 0, j = i; j < n; j++)
      if (!strcmp(p[j].label, label) && !strcmp(p[j].kernel, p[i].kernel))
        mine[m++] = p[j];
    qsort(mine, m, sizeof *mine, by_x);
    {
      struct series c = { p[i].kernel, malloc(m * sizeof(double)), malloc(m * sizeof(double)), 0,
                          m };
      double *ys = malloc(m * sizeof(double));
      for (j = 0; c.x && c.y && ys && j < m; j = k) {
        size_t q = 0;
        for (k = j; k < m && mine[k].x == mine[j].x; k++)
          ys[q++] = mine[k].y;
        qsort(ys, q, sizeof *ys, by_double);
        c.x[c.n] = mine[j].x;
        c.y[c.n++] = q % 2 ? ys[q / 2] : (ys[q / 2 - 1] + ys[q / 2]) / 2;
      }
      free(ys);
      /* Fewer than three sizes is a point or two, not a curve. */
      if (c.n < 3 || !c.x || !c.y) {
        free(c.x);
        free(c.y);
        continue;
      }
      if (ns == MAX_SERIES) {
        size_t least = 0;
        for (k = 1; k < ns; k++)
          least = s[k].points < s[least].points ? k : least;
        if (s[least].points >= c.points) {
          free(c.x);
          free(c.y);
          continue;
        }
        free(s[least].x);
        free(s[least].y);
        s[least] = c;
      } else
        s[ns++] = c;
    }
  }
  free(mine);
  return ns;
}

struct mark {
  const char *name;
  double x, value; /* where it is drawn; the value, in its own unit */
  int os; /* the OS view, dashed */
};

struct plot {
  const char *label;
  const struct plotdef *def;
  struct series s[MAX_SERIES];
  size_t ns;
  struct axis xa, ya;
  struct mark mk[32];
  size_t nmk;
  char caption[6][160];
  int ncap;
};

static const double palette[MAX_SERIES][3] = {
  { 0.12, 0.47, 0.71 }, { 1.00, 0.50, 0.05 }, { 0.17, 0.63, 0.17 }, { 0.58, 0.40, 0.74 },
  { 0.55, 0.34, 0.29 }, { 0.89, 0.47, 0.76 }, { 0.50, 0.50, 0.50 }, { 0.74, 0.74, 0.13 },
  { 0.09, 0.75, 0.81 }, { 0.20, 0.20, 0.20 },
};
/* The colour of found edges: a test counts the marks by it. */
#define EDGE_RGB 0.8, 0.1, 0.1

static void
draw(cairo_t *cr, const struct plot *p, const char *machine)
{
  char buf[200];
  size_t i, j;

  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_source_rgb(cr, 0, 0, 0);
  snprintf(buf, sizeof buf, "xray %s: %s", p->label, machine);
  xray_plot_text(cr, ML, 28, 15, buf, 0);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, ML, MT, W - ML - MR, H - MT - MB);
  cairo_stroke(cr);
  xray_plot_ticks(cr, &p->xa, 0, H - MB);
  xray_plot_ticks(cr, &p->ya, 1, ML);
  snprintf(buf, sizeof buf, "%s%s", p->def->xlabel, p->xa.log ? ", log scale" : "");
  xray_plot_text(cr, (ML + W - MR) / 2.0, H - MB + 38, 12, buf, 0.5);
  cairo_save(cr);
  cairo_translate(cr, 22, (MT + H - MB) / 2.0);
  cairo_rotate(cr, -M_PI / 2);
  snprintf(buf, sizeof buf, "%s%s", p->def->ylabel, p->ya.log ? ", log scale" : "");
  xray_plot_text(cr, 0, 0, 12, buf, 0.5);
  cairo_restore(cr);
  /* The curves, and their legend under the axis. */
  for (i = 0; i < p->ns; i++) {
    cairo_set_source_rgb(cr, palette[i][0], palette[i][1], palette[i][2]);
    cairo_set_line_width(cr, 1.5);
    for (j = 0; j < p->s[i].n; j++) {
      double x = xray_plot_place(&p->xa, p->s[i].x[j]), y = xray_plot_place(&p->ya, p->s[i].y[j]);
      (j ? cairo_line_to : cairo_move_to)(cr, x, y);
    }
    cairo_stroke(cr);
    /* Each measured size a dot: the line between them is not measured. */
    for (j = 0; j < p->s[i].n; j++) {
      cairo_arc(cr, xray_plot_place(&p->xa, p->s[i].x[j]), xray_plot_place(&p->ya, p->s[i].y[j]), 2,
                0, 2 * M_PI);
      cairo_fill(cr);
    }
    snprintf(buf, sizeof buf, "%.60s", p->s[i].kernel);
    xray_plot_text(cr, ML + (double) (i % 2) * (W - ML - MR) / 2,
                   H - MB + 58 + (double) (i / 2) * 14, 10, buf, 0);
  }
  /* Edges xray found (solid) and the OS's (dashed), each labelled. */
  for (i = 0; i < p->nmk; i++) {
    double x = xray_plot_place(&p->xa, p->mk[i].x), dash = 5;
    if (p->mk[i].os)
      cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
    else
      cairo_set_source_rgb(cr, EDGE_RGB);
    cairo_set_dash(cr, &dash, p->mk[i].os ? 1 : 0, 0);
    cairo_set_line_width(cr, p->mk[i].os ? 1 : 1.5);
    cairo_move_to(cr, x, MT);
    cairo_line_to(cr, x, H - MB);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    xray_plot_human(buf, sizeof buf, p->mk[i].value);
    cairo_save(cr);
    cairo_translate(cr, x + (p->mk[i].os ? -4 : 12), MT + 6);
    cairo_rotate(cr, M_PI / 2);
    {
      char lab[96];
      snprintf(lab, sizeof lab, "%s%s %s", p->mk[i].os ? "OS: " : "", p->mk[i].name + 5, buf);
      xray_plot_text(cr, 0, 0, 10, lab, 0);
    }
    cairo_restore(cr);
  }
  cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
  for (i = 0; i < (size_t) p->ncap; i++)
    xray_plot_text(cr, ML, H - 52 + (double) i * 13, 10, p->caption[i], 0);
}

static cairo_status_t
put(void *f, const unsigned char *data, unsigned int len)
{
  return fwrite(data, 1, len, f) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

/* Marks and caption of label from the report; own[] says which values
 * each probe set. */
static void
annotate(struct plot *p, const xray_report *rep, const struct xray_cli_owned *own, size_t nown)
{
  const xray_value *pg = xray_report_get(rep, "XRAY_PAGE_SIZE");
  double page = pg && xray_value_source(pg) == XRAY_SOURCE_MEASURED ? xray_value_number(pg) : 4096;
  size_t i, k, unknown = 0;

  for (i = 0; i < xray_report_count(rep); i++) {
    const xray_value *v = xray_report_at(rep, i);
    const char *src;
    double os, div = p->def->pages ? page : 1;
    for (k = 0; k < 4 && p->def->edges[k]; k++)
      if (name_is(p->def->edges[k], xray_value_name(v)))
        break;
    if (k == 4 || !p->def->edges[k])
      continue;
    if (xray_value_source(v) == XRAY_SOURCE_MEASURED && p->nmk < 32) {
      double x = xray_value_number(v) / div;
      if (x >= p->xa.lo && x <= p->xa.hi)
        p->mk[p->nmk++] = (struct mark){ xray_value_name(v), x, xray_value_number(v), 0 };
      else if (p->ncap < 5)
        snprintf(p->caption[p->ncap++], sizeof p->caption[0], "%s = %.6g lies outside the curves",
                 xray_value_name(v), xray_value_number(v));
    }
    if (xray_value_os(v, &os, &src) && os / div >= p->xa.lo && os / div <= p->xa.hi && p->nmk < 32)
      p->mk[p->nmk++] = (struct mark){ xray_value_name(v), os / div, os, 1 };
  }
  /* The probe's own unknown values, with their reasons. */
  for (k = 0; k < nown; k++) {
    size_t n = strlen(own[k].probe);
    if (strncmp(p->label, own[k].probe, n) || (p->label[n] && p->label[n] != '-'))
      continue;
    for (i = own[k].first; i < own[k].last; i++) {
      const xray_value *v = xray_report_at(rep, i);
      if (xray_value_source(v) != XRAY_SOURCE_UNKNOWN)
        continue;
      if (p->ncap < 5)
        snprintf(p->caption[p->ncap++], sizeof p->caption[0], "%s unknown: %.120s",
                 xray_value_name(v), xray_value_reason(v));
      else
        unknown++;
    }
  }
  if (unknown)
    snprintf(p->caption[p->ncap++], sizeof p->caption[0], "and %zu more values unknown", unknown);
}

/* One image of p into path, SVG or PNG; 0, or -1. */
static int
render(const struct plot *p, const char *machine, const char *path, int png,
       const struct xray_cli_files *io)
{
  FILE *f = io->open(1, path);
  cairo_surface_t *s = png ? cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H)
                           : cairo_svg_surface_create_for_stream(put, f, W, H);
  cairo_t *cr = cairo_create(s);
  int bad;

  draw(cr, p, machine);
  bad = cairo_status(cr) != CAIRO_STATUS_SUCCESS;
  cairo_destroy(cr);
  if (png)
    bad |= cairo_surface_write_to_png_stream(s, put, f) != CAIRO_STATUS_SUCCESS;
  cairo_surface_finish(s);
  bad |= cairo_surface_status(s) != CAIRO_STATUS_SUCCESS;
  cairo_surface_destroy(s);
  return io->commit(1, path) | -bad;
}

static int
plot_label(struct plot *p, const struct pt *pts, size_t n, const xray_report *rep,
           const struct xray_cli_owned *own, size_t nown, const char *dir, FILE *idx,
           const struct xray_cli_files *io, struct xray_cli_figure *fig)
{
  double xlo = HUGE_VAL, xhi = -HUGE_VAL, ylo = HUGE_VAL, yhi = -HUGE_VAL;
  char path[4096], name[64];
  size_t i, j;
  int rc = 0;

  p->def = def_for(p->label);
  if (!(p->ns = curves(pts, n, p->label, p->def->prefix, p->s))) {
    fprintf(idx, "%s: no curve (no kernel measured at three sizes or more)\n", p->label);
    return 0;
  }
  for (i = 0; i < p->ns; i++)
    for (j = 0; j < p->s[i].n; j++) {
      xlo = fmin(xlo, p->s[i].x[j]);
      xhi = fmax(xhi, p->s[i].x[j]);
      ylo = fmin(ylo, p->s[i].y[j]);
      yhi = fmax(yhi, p->s[i].y[j]);
    }
  xray_plot_span(&p->xa, xlo, xhi, ML, W - MR);
  xray_plot_span(&p->ya, ylo, yhi, H - MB, MT);
  annotate(p, rep, own, nown);
  for (i = 0; p->label[i] && i + 1 < sizeof name; i++)
    name[i] =
        strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_", p->label[i])
        ? p->label[i]
        : '_';
  name[i] = 0;
  for (i = 0; i < 2; i++) {
    snprintf(path, sizeof path, "%s/%s.%s", dir, name, i ? "png" : "svg");
    rc |= render(p, xray_report_machine(rep), path, (int) i, io);
  }
  for (i = 0; i < p->ns; i++)
    fprintf(idx, "%s.svg curve %s (%zu points)\n", name, p->s[i].kernel, p->s[i].points);
  for (i = 0; i < p->nmk; i++)
    fprintf(idx, "%s.svg %s %s %.10g\n", name, p->mk[i].os ? "os" : "edge", p->mk[i].name,
            p->mk[i].value);
  for (i = 0; i < (size_t) p->ncap; i++)
    fprintf(idx, "%s.svg caption %s\n", name, p->caption[i]);
  /* The same for index.html: the figure's name, marks and caption. */
  snprintf(fig->name, sizeof fig->name, "%s", name);
  for (i = 0; i < p->nmk; i++)
    if (!p->mk[i].os && strlen(fig->marks) + strlen(p->mk[i].name) + 2 < sizeof fig->marks)
      snprintf(fig->marks + strlen(fig->marks), sizeof fig->marks - strlen(fig->marks), "%s%s",
               fig->marks[0] ? " " : "", p->mk[i].name);
  for (i = 0; i < (size_t) p->ncap; i++)
    snprintf(fig->caption + strlen(fig->caption), sizeof fig->caption - strlen(fig->caption),
             "%s%s", i ? "; " : "", p->caption[i]);
  for (i = 0; i < p->ns; i++) {
    free(p->s[i].x);
    free(p->s[i].y);
  }
  return rc;
}

int
xray_cli_plot(const char *dir, FILE *trace, const xray_report *rep,
              const struct xray_cli_owned *own, size_t nown, const struct xray_cli_files *io)
{
  size_t n, i, j, nfig = 0;
  struct pt *pts = read_points(trace, &n);
  struct xray_cli_figure *fig = calloc(n ? n : 1, sizeof *fig);
  char path[4096];
  FILE *idx;
  int rc = 0;

  if (!fig) {
    free(pts);
    return -1;
  }
  snprintf(path, sizeof path, "%s/plots.txt", dir);
  idx = io->open(0, path);
  fprintf(idx,
          "# xray --plot: each file, its curves, the edges it marks (found: edge, the "
          "OS's: os) and its caption\n");
  for (i = 0; i < n; i++) {
    struct plot *p;
    for (j = 0; j < i && strcmp(pts[j].label, pts[i].label); j++)
      ;
    if (j < i)
      continue;
    if (!(p = calloc(1, sizeof *p))) {
      rc = -1;
      break;
    }
    p->label = pts[i].label;
    rc |= plot_label(p, pts, n, rep, own, nown, dir, idx, io, &fig[nfig]);
    nfig += fig[nfig].name[0] != 0;
    free(p);
  }
  rc |= io->commit(0, path);
  rc |= xray_cli_plot_html(dir, rep, fig, nfig, io);
  free(fig);
  for (i = 0; i < n; i++) {
    free(pts[i].label);
    free(pts[i].kernel);
  }
  free(pts);
  return rc;
}

#endif
