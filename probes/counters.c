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
 * category does.
 *
 * Events are also counted per load of pointer chases over footprints
 * from the data levels measured here (counters-cache.c): the same
 * goodness against each level's hit and miss signature places an event
 * that counts a level's hits or misses. */
#include "counters.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NBENCH XRAY__NBENCH
#define NBRANCH XRAY__NBRANCH
#define NCAT XRAY__NCAT
#define PF XRAY__PF
#define NSIZES 5
/* A prefetch-sensitive event: its count per load moves this much or more
 * between 2 and 512 pages per block. */
#define PF_MOVE 0.3
#define PLACE XRAY__PLACE
#define MAX_EVENTS 4096

static const long sizes[NSIZES] = { 2000, 4000, 8000, 16000, 32000 };
static const char *const branch_name[NBRANCH] = { "CE", "CR", "T", "D", "M" };
static const char *const branch_define[NBRANCH] = {
  "XRAY_EVENT_COND_BRANCHES_EXECUTED", "XRAY_EVENT_COND_BRANCHES_RETIRED",
  "XRAY_EVENT_COND_BRANCHES_TAKEN", "XRAY_EVENT_DIRECT_BRANCHES", "XRAY_EVENT_BRANCH_MISSES"
};
static const char *const branch_desc[NBRANCH] = {
  "conditional branches executed, down wrong paths too", "conditional branches retired",
  "conditional branches taken", "direct (unconditional) branches", "mispredicted branches"
};
static const char *const level_name[XRAY__CLEVELS] = { "L1D", "L2", "L3", "L4" };

const char *
xray__counter_cat_label(int k)
{
  static const char *const cache_label[2 * XRAY__CLEVELS] = { "L1D-HIT", "L1D-MISS", "L2-HIT",
                                                              "L2-MISS", "L3-HIT",   "L3-MISS",
                                                              "L4-HIT",  "L4-MISS" };

  return k < NBRANCH ? branch_name[k] : k == PF ? "L2-PREFETCH" : cache_label[k - NBRANCH];
}

void
xray__counter_cat_text(int k, char *label, size_t llen, char *define, size_t dlen, char *desc,
                       size_t desclen)
{
  snprintf(label, llen, "%s", xray__counter_cat_label(k));
  if (k < NBRANCH) {
    snprintf(define, dlen, "%s", branch_define[k]);
    snprintf(desc, desclen, "%s", branch_desc[k]);
    return;
  }
  if (k == PF) {
    snprintf(define, dlen, "XRAY_EVENT_L2_PREFETCHES");
    snprintf(desc, desclen,
             "lines a prefetcher brought into the L2 (none once a block spans "
             "more pages than it tracks)");
    return;
  }
  k -= NBRANCH;
  snprintf(define, dlen, "XRAY_EVENT_%s_%s", level_name[k / 2], k % 2 ? "MISSES" : "HITS");
  snprintf(desc, desclen, "loads %s the %s", k % 2 ? "that missed" : "served by",
           level_name[k / 2]);
}

double
xray__counter_cache_expected(int k, int f)
{
  int lev = (k - NBRANCH) / 2; /* 0: the L1D */

  if (k < NBRANCH)
    return k == 3 || k == 4 ? 0 : 1.0 / XRAY__CHASE_UNROLL;
  if (k == PF)
    return 0;
  return (k - NBRANCH) % 2 ? f > lev : f == lev;
}

/* Category k's count per iteration of branch benchmark b, as compiled:
 * the branch rows; the loads, all L1D hits (a few globals); no misses, no
 * prefetches. */
static double
branch_expected(const xray_counters *c, int k, int b)
{
  if (k < NBRANCH)
    return c->rows[k][b];
  return k == NBRANCH ? c->loads[b] : 0;
}

static double
goodness(double slope, double r2, double expected)
{
  double d = slope * r2 - expected;

  return exp(-2 * d * d);
}

/* Each category's events per iteration of each benchmark, as compiled. */
static int
expected_rows(xray_machine *m, double rows[NBRANCH][NBENCH], double *loads, char *err,
              size_t errlen)
{
  int b;

  for (b = 0; b < NBENCH; b++) {
    const struct xray__bkernel *bk = xray__bkernel_at(XRAY__BK_CIT + (size_t) b);
    const struct xray__bcount *c = xray__machine_bcount(m, XRAY__BK_CIT + (size_t) b);
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
    loads[b] = c->loads;
  }
  return 0;
}

/* Count event e on every branch benchmark. */
static void
count_branches(xray_machine *m, struct xray__event *e)
{
  double x[NSIZES], y[NSIZES];
  int b, s;

  for (s = 0; s < NSIZES; s++)
    x[s] = (double) sizes[s];
  for (b = 0; b < NBENCH; b++) {
    for (s = 0; s < NSIZES; s++) {
      m->error[0] = 0;
      y[s] = xray__machine_bevent(m, e->name, XRAY__BK_CIT + (size_t) b, sizes[s]);
      if (isnan(y[s])) {
        snprintf(e->why, sizeof e->why, "%s", m->error[0] ? m->error : "cannot be counted");
        return;
      }
    }
    e->slope[b] = xray__fit_line(x, y, NSIZES, NULL, &e->r2[b], NULL);
  }
  e->counted = 1;
}

/* The prefetch signature: an event that moves with the pages per block is
 * prefetch-sensitive (said in its reason, with where it moves); one in no
 * other category that falls to a fifth or less of its count is placed in
 * L2-PREFETCH, scored by how far it falls. */
static void
place_prefetch(const xray_counters *c, struct xray__event *e, int above)
{
  double first = e->pf[0], last = e->pf[XRAY__NPPB - 1], mid = (first + last) / 2;
  size_t len = strlen(e->why);
  int p = 1;

  if (!(fabs(first - last) >= PF_MOVE))
    return;
  while (p < XRAY__NPPB - 1 && (first > last ? e->pf[p] > mid : e->pf[p] < mid))
    p++;
  snprintf(e->why + len, sizeof e->why - len,
           "%sprefetch-sensitive: %.2f to %.2f per load, "
           "%s past %d pages per block",
           len ? "; " : "", first, last, first > last ? "falling" : "rising",
           xray__counter_ppb[p - 1]);
  e->score[PF] = first > last && first > 0 ? fmax(0, 1 - last / first) : 0;
  for (p = 0; e->counted && p < NBENCH; p++)
    e->score[PF] = fmin(e->score[PF], goodness(e->slope[p], e->r2[p], branch_expected(c, PF, p)));
  if (e->cat < 0 && above == 0 && e->score[PF] >= PLACE)
    e->cat = PF;
}

/* Score e in every category it was counted for, and place it. */
static void
place(const xray_counters *c, struct xray__event *e)
{
  int b, k, above = 0;

  e->cat = -1;
  for (k = 0; k < NBRANCH + 2 * c->nlev; k++) {
    /* Its own family must have been counted; the other is checked too
     * where it was (a mixture of L1D hits and branches is 94 % L1D hits
     * per load of a chase, but twice too many on the branch benchmarks). */
    e->score[k] = 0;
    if (k < NBRANCH ? !e->counted : e->ccounted != 1)
      continue;
    e->score[k] = 1;
    for (b = 0; e->counted && b < NBENCH; b++)
      e->score[k] = fmin(e->score[k], goodness(e->slope[b], e->r2[b], branch_expected(c, k, b)));
    for (b = 0; e->ccounted == 1 && b <= c->nlev; b++)
      e->score[k] =
          fmin(e->score[k], goodness(e->sig[b], e->sr2[b], xray__counter_cache_expected(k, b)));
    if (e->score[k] >= PLACE) {
      above++;
      e->cat = k;
    }
  }
  if (above > 1) {
    e->cat = -1;
    snprintf(e->why, sizeof e->why, "it matches %d categories", above);
  }
  if (c->pf && e->pfcounted)
    place_prefetch(c, e, above);
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
      while (len > 0 && name[len - 1] == ' ')
        len--;
    } else {
      if (!(name = xray_machine_event_at(m, i)))
        break;
      len = strlen(name);
    }
    if (len >= sizeof c->ev->name) {
      snprintf(err, errlen, "event name '%.40s...' is longer than %zu characters", name,
               sizeof c->ev->name - 1);
      return -1;
    }
    if (c->n == cap) {
      struct xray__event *g = realloc(c->ev, (cap = cap ? 2 * cap : 32) * sizeof *g);
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

/* Whether a --levels spec reads; -1 with why. */
static int
parse_only(const char *levels, char *err, size_t errlen)
{
  double level[XRAY__CLEVELS], line;

  return xray__counter_levels(NULL, levels, level, &line, err, errlen) < 0 ? -1 : 0;
}

/* The cache signatures, where the machine has data levels to chase. */
static void
cache_part(xray_counters *c, xray_machine *m, const char *levels)
{
  int n = xray__counter_levels(m, levels, c->level, &c->line, c->cwhy, sizeof c->cwhy);

  if (n <= 0)
    return;
  xray__counter_footprints(c->level, n, c->foot);
  if (xray__counter_signatures(m, c->foot, n + 1, c->line, c->ev, c->n, c->cwhy, sizeof c->cwhy)
      == 0)
    c->nlev = n;
}

xray_counters *
xray_counters_run(xray_machine *m, const char *events, const char *levels, int *no_pmu, char *err,
                  size_t errlen)
{
  xray_counters *c;
  size_t i;

  *no_pmu = 0;
  if (xray_machine_counters(m, err, errlen)) {
    *no_pmu = 1;
    return NULL;
  }
  if (!(c = calloc(1, sizeof *c))) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  snprintf(c->machine, sizeof c->machine, "%s", xray_machine_describe(m));
  snprintf(c->compiler, sizeof c->compiler, "%s %s", m->cc, m->cflags);
  if (xray__machine_bbuild(m)) {
    snprintf(err, errlen, "%s", m->error);
    xray_counters_free(c);
    return NULL;
  }
  if (expected_rows(m, c->rows, c->loads, err, errlen) || add_names(c, m, events, err, errlen)) {
    xray_counters_free(c);
    return NULL;
  }
  if (levels && parse_only(levels, err, errlen)) {
    xray_counters_free(c);
    return NULL;
  }
  for (i = 0; i < c->n; i++)
    count_branches(m, &c->ev[i]);
  cache_part(c, m, levels);
  if (c->nlev < 2)
    snprintf(c->pfwhy, sizeof c->pfwhy, "it needs an L2's capacity");
  else
    c->pf = xray__counter_prefetch(m, c->level[1], c->ev, c->n, c->pfwhy, sizeof c->pfwhy) == 0;
  for (i = 0; i < c->n; i++)
    place(c, &c->ev[i]);
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
  return i < c->n && c->ev[i].cat >= 0 ? xray__counter_cat_label(c->ev[i].cat) : NULL;
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
