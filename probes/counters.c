/* Hardware events placed in categories (Counter Inspection Toolkit,
 * Danalis et al., Sec. 3.3-3.4 and 5): every event is counted over the
 * seven branch benchmarks of the paper's Fig. 11 at five iteration
 * counts; least squares gives its slope (events per iteration) and r^2
 * on each; the paper's goodness function
 *
 *     g = exp(-2 (slope r^2 - expected)^2)            (Eq. 1)
 *
 * compares it with each category's expected count per iteration.  The
 * expected counts come from the compiled benchmarks (kernels/branch.c's
 * static check: conditional branches, those taken, direct jumps), not
 * from the paper's Table 1, whose layout a compiler need not follow; the
 * mispredictions are the benchmarks' own (0.5 where the if tests a random
 * bit), and the executed branches are the retired ones plus the paper's
 * speculative extra of (e), whose loop branch lies within reach of a
 * wrong path.
 *
 * An event's score in a category is its worst goodness over the seven
 * benchmarks: it must match on every one (a mean lets an event that
 * counts nothing match the direct jumps, zero on six benchmarks of
 * seven).  It is placed where it scores PLACE or more, if only one
 * category does. */
#include "xray-internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NBENCH 7
#define NCAT 5
#define NSIZES 5
/* A score of 0.8 or more: every slope within 0.33 events per iteration. */
#define PLACE 0.8
#define MAX_EVENTS 4096

static const long sizes[NSIZES] = { 2000, 4000, 8000, 16000, 32000 };
static const char *const cat_name[NCAT] = { "CE", "CR", "T", "D", "M" };
static const char *const cat_define[NCAT] = {
  "XRAY_EVENT_COND_BRANCHES_EXECUTED", "XRAY_EVENT_COND_BRANCHES_RETIRED",
  "XRAY_EVENT_COND_BRANCHES_TAKEN", "XRAY_EVENT_DIRECT_BRANCHES", "XRAY_EVENT_BRANCH_MISSES"
};
static const char *const cat_desc[NCAT] = {
  "conditional branches executed, down wrong paths too", "conditional branches retired",
  "conditional branches taken", "direct (unconditional) branches", "mispredicted branches"
};

struct event {
  char name[128];
  double slope[NBENCH], r2[NBENCH], score[NCAT];
  int cat; /* -1: none */
  int counted; /* on every benchmark */
  char why[200]; /* why it could not be counted, or why in none */
};

struct xray_counters {
  size_t n;
  struct event *ev;
  double rows[NCAT][NBENCH];
  char machine[200], compiler[300];
};

static double
goodness(double slope, double r2, double expected)
{
  double d = slope * r2 - expected;

  return exp(-2 * d * d);
}

/* Each category's events per iteration of each benchmark, as compiled. */
static int
expected_rows(xray_machine *m, double rows[NCAT][NBENCH], char *err, size_t errlen)
{
  int b;

  for (b = 0; b < NBENCH; b++) {
    const struct xray__bkernel *bk = xray__bkernel_at(XRAY__BK_CIT + (size_t) b);
    const struct xray__bcount *c = m->ops->bcount(m, XRAY__BK_CIT + (size_t) b);
    if (!c || !c->ok || c->selects) {
      snprintf(err, errlen, "benchmark %s as compiled with %s %s: %s", bk->name, m->cc, m->cflags,
               !c           ? "not built"
                   : !c->ok ? c->why
                            : "its if became a select");
      return -1;
    }
    rows[0][b] = c->cond + (bk->paper[0] - bk->paper[1]);
    rows[1][b] = c->cond;
    rows[2][b] = c->taken;
    rows[3][b] = c->direct;
    rows[4][b] = bk->miss;
  }
  return 0;
}

/* Count event e on every benchmark and place it. */
static void
place(xray_machine *m, const double rows[NCAT][NBENCH], struct event *e)
{
  double x[NSIZES], y[NSIZES];
  int b, s, c, above = 0;

  for (s = 0; s < NSIZES; s++)
    x[s] = (double) sizes[s];
  e->cat = -1;
  for (b = 0; b < NBENCH; b++) {
    for (s = 0; s < NSIZES; s++) {
      m->error[0] = 0;
      y[s] = m->ops->bevent(m, e->name, XRAY__BK_CIT + (size_t) b, sizes[s]);
      if (isnan(y[s])) {
        snprintf(e->why, sizeof e->why, "%s", m->error[0] ? m->error : "cannot be counted");
        return;
      }
    }
    e->slope[b] = xray__fit_line(x, y, NSIZES, NULL, &e->r2[b], NULL);
  }
  e->counted = 1;
  for (c = 0; c < NCAT; c++) {
    e->score[c] = 1;
    for (b = 0; b < NBENCH; b++)
      e->score[c] = fmin(e->score[c], goodness(e->slope[b], e->r2[b], rows[c][b]));
    if (e->score[c] >= PLACE) {
      above++;
      e->cat = c;
    }
  }
  if (above > 1) {
    e->cat = -1;
    snprintf(e->why, sizeof e->why, "it matches %d categories", above);
  }
}

/* The names of events, comma-separated, into c->ev; -1 with why. */
static int
add_names(xray_counters *c, xray_machine *m, const char *events, char *err, size_t errlen)
{
  size_t cap = 0, i;
  const char *p = events, *name;

  for (i = 0; i < MAX_EVENTS; i++) {
    size_t len;
    if (events) {
      while (*p == ',' || *p == ' ')
        p++;
      if (!*p)
        break;
      len = strcspn(p, ",");
      name = p;
      p += len;
    } else {
      if (!(name = m->ops->event_at(m, i)))
        break;
      len = strlen(name);
    }
    if (len >= sizeof c->ev->name) {
      snprintf(err, errlen, "event name '%.40s...' is longer than %zu characters", name,
               sizeof c->ev->name - 1);
      return -1;
    }
    if (c->n == cap) {
      struct event *g = realloc(c->ev, (cap = cap ? 2 * cap : 32) * sizeof *g);
      if (!g) {
        snprintf(err, errlen, "out of memory");
        return -1;
      }
      c->ev = g;
    }
    memset(&c->ev[c->n], 0, sizeof *c->ev);
    memcpy(c->ev[c->n].name, name, len);
    c->n++;
  }
  if (!c->n) {
    snprintf(err, errlen, "no events to count%s", events ? " (--events is empty)" : "");
    return -1;
  }
  return 0;
}

xray_counters *
xray_counters_run(xray_machine *m, const char *events, int *no_pmu, char *err, size_t errlen)
{
  xray_counters *c;
  size_t i;

  *no_pmu = 0;
  m->error[0] = 0;
  if (m->ops->pmu(m)) {
    *no_pmu = 1;
    snprintf(err, errlen, "%s", m->error);
    return NULL;
  }
  if (!(c = calloc(1, sizeof *c))) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  snprintf(c->machine, sizeof c->machine, "%s", xray_machine_describe(m));
  snprintf(c->compiler, sizeof c->compiler, "%s %s", m->cc, m->cflags);
  if (m->ops->bbuild(m)) {
    snprintf(err, errlen, "%s", m->error);
    xray_counters_free(c);
    return NULL;
  }
  if (expected_rows(m, c->rows, err, errlen) || add_names(c, m, events, err, errlen)) {
    xray_counters_free(c);
    return NULL;
  }
  for (i = 0; i < c->n; i++)
    place(m, c->rows, &c->ev[i]);
  return c;
}

size_t
xray_counters_count(const xray_counters *c)
{
  return c->n;
}

const char *
xray_counters_name(const xray_counters *c, size_t i)
{
  return i < c->n ? c->ev[i].name : NULL;
}

const char *
xray_counters_category(const xray_counters *c, size_t i)
{
  return i < c->n && c->ev[i].cat >= 0 ? cat_name[c->ev[i].cat] : NULL;
}

double
xray_counters_score(const xray_counters *c, size_t i)
{
  return i < c->n && c->ev[i].cat >= 0 ? c->ev[i].score[c->ev[i].cat] : 0;
}

void
xray_counters_free(xray_counters *c)
{
  if (c) {
    free(c->ev);
    free(c);
  }
}

/* The event that best represents category k: placed there, highest score
 * (the first on a tie); -1 if none. */
static long
best_of(const xray_counters *c, int k)
{
  long best = -1;
  size_t i;

  for (i = 0; i < c->n; i++)
    if (c->ev[i].cat == k && (best < 0 || c->ev[i].score[k] > c->ev[best].score[k]))
      best = (long) i;
  return best;
}

static void
write_text(const xray_counters *c, FILE *f)
{
  size_t i;
  int k, b;

  fprintf(f, "events on %s, over the branch benchmarks built with %s\n", c->machine, c->compiler);
  fprintf(f, "expected per iteration of benchmarks a..g (from the compiled code):\n");
  for (k = 0; k < NCAT; k++) {
    fprintf(f, "  %-2s", cat_name[k]);
    for (b = 0; b < NBENCH; b++)
      fprintf(f, " %5.2f", c->rows[k][b]);
    fprintf(f, "   %s\n", cat_desc[k]);
  }
  for (i = 0; i < c->n; i++) {
    const struct event *e = &c->ev[i];
    int best = 0;
    for (k = 1; k < NCAT; k++)
      if (e->score[k] > e->score[best])
        best = k;
    fprintf(f, "%-40s %-4s", e->name, e->cat >= 0 ? cat_name[e->cat] : "-");
    if (!e->counted)
      fprintf(f, " %s\n", e->why);
    else {
      fprintf(f, " score %.2f%s slopes", e->score[best], e->cat >= 0 ? "" : " (best)");
      for (b = 0; b < NBENCH; b++)
        fprintf(f, " %.2f", e->slope[b] * e->r2[b]);
      fprintf(f, "%s%s\n", e->why[0] ? "; " : "", e->why);
    }
  }
}

static void
write_json(const xray_counters *c, FILE *f)
{
  size_t i;
  int k, b;

  fprintf(f, "{\n  \"machine\": ");
  xray__json_string(f, c->machine);
  fprintf(f, ",\n  \"compiler\": ");
  xray__json_string(f, c->compiler);
  fprintf(f, ",\n  \"threshold\": %g,\n  \"expected\": {", PLACE);
  for (k = 0; k < NCAT; k++) {
    fprintf(f, "%s\"%s\": [", k ? ", " : "", cat_name[k]);
    for (b = 0; b < NBENCH; b++)
      fprintf(f, "%s%g", b ? ", " : "", c->rows[k][b]);
    fprintf(f, "]");
  }
  fprintf(f, "},\n  \"events\": [");
  for (i = 0; i < c->n; i++) {
    const struct event *e = &c->ev[i];
    fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
    xray__json_string(f, e->name);
    fprintf(f, ", \"category\": ");
    if (e->cat >= 0)
      fprintf(f, "\"%s\", \"score\": %.4f", cat_name[e->cat], e->score[e->cat]);
    else
      fprintf(f, "null");
    fprintf(f, ", \"slopes\": [");
    for (b = 0; b < NBENCH; b++)
      fprintf(f, "%s%.4f", b ? ", " : "", e->slope[b]);
    fprintf(f, "], \"r2\": [");
    for (b = 0; b < NBENCH; b++)
      fprintf(f, "%s%.4f", b ? ", " : "", e->r2[b]);
    fprintf(f, "], \"scores\": {");
    for (k = 0; k < NCAT; k++)
      fprintf(f, "%s\"%s\": %.4f", k ? ", " : "", cat_name[k], e->score[k]);
    fprintf(f, "}");
    if (e->why[0]) {
      fprintf(f, ", \"reason\": ");
      xray__json_string(f, e->why);
    }
    fprintf(f, "}");
  }
  fprintf(f, "\n  ]\n}\n");
}

/* NAME='event' for the shell, or #define NAME "event"; names that would
 * need escaping are left out, with a comment. */
static void
write_defines(const xray_counters *c, FILE *f, int header)
{
  int k;

  for (k = 0; k < NCAT; k++) {
    long i = best_of(c, k);
    if (i < 0)
      fprintf(f, "%s %s unknown: no event scored %.1f or more as %s%s\n", header ? "/*" : "#",
              cat_define[k], PLACE, cat_desc[k], header ? " */" : "");
    else if (strpbrk(c->ev[i].name, "'\"\\\n"))
      fprintf(f, "%s %s unknown: its event's name holds a quote or a backslash%s\n",
              header ? "/*" : "#", cat_define[k], header ? " */" : "");
    else if (header)
      fprintf(f, "#define %s \"%s\" /* %s, score %.3f */\n", cat_define[k], c->ev[i].name,
              cat_desc[k], c->ev[i].score[k]);
    else
      fprintf(f, "%s='%s'\n# %s score %.3f\n", cat_define[k], c->ev[i].name, cat_define[k],
              c->ev[i].score[k]);
  }
}

int
xray_counters_write(const xray_counters *c, FILE *f, xray_format fmt)
{
  if (fmt == XRAY_FORMAT_JSON)
    write_json(c, f);
  else if (fmt == XRAY_FORMAT_SHELL || fmt == XRAY_FORMAT_HEADER)
    write_defines(c, f, fmt == XRAY_FORMAT_HEADER);
  else
    write_text(c, f);
  return ferror(f) ? -1 : 0;
}
