/* Data TLB levels: entries, page size, associativity where it can be
 * established, and the cost of a miss.
 *
 * The paper (Sec. 4.7) treats a TLB as a cache whose line is a page and
 * insists that nothing else may miss while it is measured.  Here each
 * point is a pair of chases through the same n lines: one line in each of
 * n pages, at offsets rotated over the L1 sets, and the same lines packed
 * into the fewest pages.  The data caches see the same lines in both;
 * only the pages differ, so the difference is what translation costs.
 *
 * Consecutive pages find each level's step and its height.  They fill
 * every set of a set-associative level evenly, but past its entry count
 * the sets overflow one at a time, so the step is a slow ramp, and a
 * shared host (the SMT sibling holds entries too) moves its foot.  The
 * exact count comes from pages s apart instead (s a power of two): they
 * use 1/s of the sets, so the ramp starts at entries / s and is s times
 * steeper; s is the widest that keeps that count well above the level
 * below, whose misses the level must see.  A fully associative level has
 * the same count at every stride and is found with consecutive pages.
 * Each count is the least cost of draws spread over a pass (disturbance
 * only adds time), with a ramp fitted to it.  The host's SMT sibling
 * takes entries for seconds at a time, so the first level is counted up
 * to three times (as above, again after the next level, and with all its
 * pages in one set), and the largest count is its own.
 *
 * The page size: 3 E1 / 2 lines s bytes apart (E1 the first level's
 * entries) use 3 E1 / 4 pages while s is at most half a page, and
 * 3 E1 / 2 pages beyond.
 * The first level's ways: pages 4096 apart fall in one set.  The second
 * level's: the same, among more pages than the first level holds, in
 * other sets. */
#include "xray-internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define K_MIN 8
#define K_MAX 16384
#define MAX_STEPS 3
#define ONSET 0.25
#define RAMP_POINTS 24          /* coarse pass of the exact count */
#define RAMP_ROUNDS 3
#define FINE_POINTS 48          /* fine pass: every page count around the ramp */
#define FINE_ROUNDS 3
#define FINE_TRIES 5             /* fine passes: at least FINE_MIN, until two agree */
#define FINE_MIN 3
#define WAYS_STRIDE 4096       /* pages: one set of any level up to 4096 sets */
#define WAYS2_MAX 40            /* the most second-level ways looked for */
/* A second level's entries are its ways times a power of two sets (in
 * every TLB we know): a count within this of such a product is read as it
 * (a stride of 16 pages counts in steps of 16, and a pass the host
 * disturbs ends a step or two early: 3024 and 3056 for 3072 here), and
 * one farther is not confirmed. */
#define SETS_SNAP 0.03
/* How close the second level's counts at two strides must come, at least
 * (and within the wider stride's resolution). */
#define STRIDES_AGREE 0.03

struct tc {
  xray_machine *m;
  uint64_t *off;
  uint64_t rng;
  size_t page;
  double hit;
  int failed;
  size_t fill;                  /* pages that keep the first level missing (0: none);
                                 * see xray__tlb_cost */
};


static double
point(void *p, double x)
{
  struct tc *c = p;
  double base, d = xray__tlb_cost(c->m, c->off, (size_t) x, 0, 1, XRAY_ARENA_SMALL, &c->rng,
                                  "tlb", &base);

  if (isnan(d)) {
    c->failed = 1;
    return NAN;
  }
  if (!(c->hit > 0))
    c->hit = base;
  /* The translation cost on top of the lines' own latency. */
  return c->hit + fmax(0, d);
}

/* The median of three points: the bisection below follows every answer,
 * so one disturbed point must not steer it. */
static double
point3(struct tc *c, double x)
{
  double v[3];
  int i;

  for (i = 0; i < 3; i++)
    v[i] = point(c, x);
  return xray__median(v, 3);
}

/* The exact edge: the smallest page count whose cost is past the given
 * level of the step. */
static size_t
edge(struct tc *c, size_t a, size_t b, double mid)
{
  while (b - a > 1) {
    size_t m = a + (b - a) / 2;
    if (point3(c, (double) m) >= mid)
      b = m;
    else
      a = m;
  }
  return b;
}

/* The translation cost at stride s of every page count in x[0..n-1]:
 * the least time of `rounds` draws of each chain, strided and packed (t
 * and p hold the least so far), the one less the other in y.  Disturbance
 * only ever adds time, whether from the other tenants of a shared TLB
 * (the host's SMT sibling) or from a spike in either chain; its bursts
 * outlast one point, so the draws of a point are spread over the whole
 * pass. */
static int
ramp_curve(struct tc *c, size_t s, const double *x, double *t, double *p, double *y, size_t n,
           int rounds)
{
  size_t i;
  int r;

  for (r = 0; r < rounds; r++)
    for (i = 0; i < n; i++) {
      double base, d = xray__tlb_cost(c->m, c->off, (size_t) x[i], c->fill, s,
                                      XRAY_ARENA_SMALL, &c->rng,
                                      c->fill ? "tlb-set" : "tlb-stride", &base);
      if (isnan(d)) {
        c->failed = 1;
        return -1;
      }
      t[i] = fmin(t[i], d + base);
      p[i] = fmin(p[i], base);
      y[i] = t[i] - p[i];
    }
  return 0;
}

/* The last page count before the cost leaves its floor for good in a fine
 * pass (so a lone disturbed point below the edge does not end it):
 * the floor is the median cost left of the fitted ramp, and a point has
 * left it once it is above by a sixth of a page's rise or a twentieth of
 * the whole step, whichever is less (the first page past this host's
 * 64-entry DTLB costs a tenth of a miss), or by three times the spread of
 * the points left of the ramp (their median deviation: the page at the
 * edge may already sit a little above the floor, and a disturbed packed
 * chain can put one below it), whichever is more.  0 if the pass shows no
 * ramp. */
static size_t
flat_end(const double *x, const double *y, size_t n, double height)
{
  double slope, rise, rms, edge = xray__fit_ramp(x, y, n, &slope, &rise, &rms);
  double fl, top, dev[RAMP_POINTS + FINE_POINTS], spread;
  size_t i, k = 0;

  if (isnan(edge) || !(edge >= x[0]) || !(rise >= 6 * rms))
    return 0;
  for (i = 0; i < n && x[i] <= edge; i++)
    dev[k++] = y[i];
  fl = xray__median(dev, k);
  /* The pass must climb an eighth of the step: a sibling that held a few
   * entries for a while once made a rise of a ninth over pages 2 apart,
   * and the 64-entry DTLB read 76; a random-replacement level climbs a
   * fifth over the pass. */
  for (i = 0, top = fl; i < n; i++)
    top = fmax(top, y[i]);
  if (top - fl < height / 8)
    return 0;
  for (i = 0; i < k; i++)
    dev[i] = fabs(dev[i] - fl);
  spread = 1.4826 * xray__median(dev, k);
  for (i = n; i-- > 0;)
    if (y[i] <= fl + fmax(fmin(slope / 6, height / 20), 3 * spread))
      return i + 1 < n ? (size_t) x[i] : 0;
  return 0;
}

/* Costs above the first point by more than the step's height are the
 * next level's: clipped, so that the ramp is this level's. */
static void
clip(double *y, size_t n, double height)
{
  size_t i;

  for (i = 1; i < n; i++)
    y[i] = fmin(y[i], y[0] + height);
}

/* The page count at which pages s apart start to cost translation, from
 * a window [lo, hi] of counts and a step `height` cycles high: a ramp
 * fitted to a coarse pass over the window places the fine pass over every
 * count around it; fine passes repeat, each lowering the least cost of
 * every point, at least FINE_MIN times and until two give the same count
 * (a tenant that held entries through one pass rarely holds them through
 * all).  0 if there is no
 * clean ramp in the window. */
static size_t
ramp_count(struct tc *c, size_t s, double lo, double hi, double height)
{
  double x[RAMP_POINTS + FINE_POINTS], y[RAMP_POINTS + FINE_POINTS];
  double t[RAMP_POINTS + FINE_POINTS], p[RAMP_POINTS + FINE_POINTS];
  double edge, rise, rms, gap;
  size_t n, i, last = 0, prev = 0;
  int pass;

  hi = fmin(hi, K_MAX);                 /* the chain has room for twice that */
  gap = (hi - lo) / (RAMP_POINTS - 1);

  for (n = 0, i = 0; i < RAMP_POINTS; i++) {
    double v = floor(lo + gap * (double) i + 0.5);
    if (n == 0 || v > x[n - 1])
      t[n] = p[n] = INFINITY, x[n++] = v;
  }
  if (ramp_curve(c, s, x, t, p, y, n, RAMP_ROUNDS))
    return 0;
  clip(y, n, height);
  edge = xray__fit_ramp(x, y, n, NULL, &rise, &rms);
  if (isnan(edge) || !(edge >= x[0] && edge < x[n - 2] && rise >= 0.2 * height
                       && rise >= 6 * rms))
    return 0;
  /* From a coarse step and a half below the edge to three above. */
  lo = fmax(1, floor(edge - 1.5 * gap) - 1);
  for (n = 0; n < FINE_POINTS && lo + (double) n <= ceil(edge + 3 * gap) + 1; n++)
    x[n] = lo + (double) n, t[n] = p[n] = INFINITY;
  for (pass = 0; pass < FINE_TRIES; pass++, prev = last) {
    if (ramp_curve(c, s, x, t, p, y, n, FINE_ROUNDS))
      return 0;
    clip(y, n, height);
    last = flat_end(x, y, n, height);
    if (last && last == prev && pass + 1 >= FINE_MIN)
      break;
  }
  return last;
}

/* The exact entry count of a level whose step the scan put near r pages,
 * with `below` entries in the level before it and a step `height` cycles
 * high.  Pages s apart (s a power of two no larger than the level's set
 * count) use 1/s of its sets, so n of them overflow it exactly where
 * n > entries / s, and the step there is s times steeper than with
 * consecutive pages, whose first extra page overflows one set only.  The
 * widest stride whose count stays well above the level below (whose
 * misses the level must see) is tried first, then consecutive pages,
 * which a fully associative level needs (its count is the same at every
 * stride, so the strided ramp lies beyond the window).  Returns 0 with
 * *entries and *stride, or -1 with the reason in why. */
static int
exact_entries(struct tc *c, double r, size_t below, double height, size_t *entries,
              size_t *stride, char *why, size_t whylen)
{
  size_t s = 1, k;

  while (r / (2 * s) >= fmax(16, 1.5 * (double) below))
    s *= 2;
  for (;; s = 1) {
    /* Around r / s: the rough count is a point on a slope that the host
     * moves (1300-1500 pages for a 2048-entry level here while the
     * sibling was busy).  Strided windows end below r pages, where a
     * fully associative level shows at any stride, and start above the
     * level below, which (fully associative) shows at `below` pages at
     * any stride: a fully associative second level of 1024 entries once
     * read 512, the first level's 64 pages at stride 8. */
    k = ramp_count(c, s, fmax(2, fmax(floor(0.5 * r / s), ceil(1.25 * (double) below))),
                   ceil(s == 1 ? 2 * r : fmin(2 * r / s, 0.75 * r)), height);
    if (k && !c->failed) {
      *entries = k * s;
      *stride = s;
      return 0;
    }
    if (s == 1 || c->failed)
      break;
  }
  snprintf(why, whylen, "%s", c->failed ? c->m->error
           : "no clean ramp at any stride around the step");
  return -1;
}

/* Cycles per load of n lines s bytes apart, offsets rotated over the L1
 * sets within each stride. */
static double
strided(struct tc *c, size_t n, uint64_t s)
{
  uint64_t span = s < 4096 ? s : 4096;
  char layout[32];
  size_t i;

  for (i = 0; i < n; i++)
    c->off[i] = i * s + (i % (span / 64)) * 64;
  snprintf(layout, sizeof layout, "s%llu", (unsigned long long) s);
  return xray__chase_time(c->m, c->off, n, XRAY_ARENA_SMALL, &c->rng, "tlb-page", layout);
}

static int
tlb_run(xray_machine *m, xray_report *r)
{
  xray_value *vpage = xray_report_add(r, "XRAY_PAGE_SIZE", "base page size seen by the TLB",
                                      "bytes");
  xray_value *ve1 = xray_report_add(r, "XRAY_DTLB_ENTRIES", "first-level data TLB entries",
                                    "entries");
  xray_value *va1 = xray_report_add(r, "XRAY_DTLB_ASSOC",
                                    "first-level data TLB associativity", "ways");
  xray_value *ve2 = xray_report_add(r, "XRAY_L2TLB_ENTRIES", "second-level TLB entries",
                                    "entries");
  xray_value *va2 = xray_report_add(r, "XRAY_L2TLB_ASSOC", "second-level TLB associativity",
                                    "ways");
  xray_value *vm1 = xray_report_add(r, "XRAY_DTLB_MISS_LATENCY",
                                    "cost of a first-level miss that hits the second level",
                                    "cycles");
  xray_value *vm = xray_report_add(r, "XRAY_TLB_MISS_LATENCY",
                                   "cost of a miss in every TLB level (page walk)", "cycles");
  struct tc c = { 0 };
  struct xray__curve cv = { 0 };
  struct xray__step st[MAX_STEPS];
  size_t ns, i, e[MAX_STEPS], rough[2], stride[2], ways, e1_counted = 0, e1_strides = 0;
  char e1why[120] = "";
  int exact[2] = { 0, 0 };
  char method[200], why[200], whys[2][200];

  if (!vm || !(c.off = malloc(2 * K_MAX * sizeof *c.off)))
    return -1;
  c.m = m;
  c.rng = UINT64_C(0xa4093822299f31d0);
  c.page = m->page ? m->page : 4096;
  xray__scan(&cv, K_MIN, K_MAX, 4, point, &c);
  ns = c.failed ? 0 : xray__find_steps(&cv, 0.3, st, MAX_STEPS);
  if (ns == 0) {
    snprintf(why, sizeof why, "%.190s", c.failed ? m->error
             : "translation costs nothing measurable up to 16384 pages");
    xray__value_unknown(vpage, why), xray__value_unknown(ve1, why), xray__value_unknown(va1, why), xray__value_unknown(ve2, why), xray__value_unknown(va2, why);
    xray__value_unknown(vm1, why), xray__value_unknown(vm, why);
    goto out;
  }
  /* A quarter of the way up the step, each point the median of three:
   * the middle read 65-66 for a 64-entry DTLB and up to 2667 for a
   * 2048-entry L2 TLB here (a set-associative level overflows one set at a
   * time past its entry count, and the shared host adds a slope).  That is
   * the rough count; exact_entries finds the exact one from it. */
  for (i = 0; i < ns && i < 2; i++) {
    rough[i] = edge(&c, (size_t) cv.x[st[i].last_low], (size_t) cv.x[st[i].first_high],
                    st[i].lo + ONSET * (st[i].hi - st[i].lo)) - 1;
    exact[i] = !exact_entries(&c, (double) rough[i], i ? e[i - 1] : 0, st[i].hi - st[i].lo,
                              &e[i], &stride[i], whys[i], sizeof whys[i]);
    if (!exact[i])
      e[i] = rough[i];
  }
  /* The first level once more, a second level's measurement later: the
   * host's SMT sibling holds some of its entries for a second or more at
   * a time (the 64-entry DTLB read 59-63 in 4 of 10 runs here), and takes
   * them only away, so of two clean counts the larger is the level's. */
  if (exact[0] && ns > 1) {
    size_t e2, s2;
    char w2[200];
    if (!exact_entries(&c, (double) rough[0], 0, st[0].hi - st[0].lo, &e2, &s2, w2,
                       sizeof w2) && e2 > e[0])
      e[0] = e2, stride[0] = s2;
  }
  /* Ways of the first level: pages 4096 apart share one set of any level
   * with up to 4096 sets, so they start to cost where they outnumber its
   * ways (at its entry count if it is fully associative).  A level of two
   * sets or more has at most half its entries in one; more than that in
   * one set is a fully associative level, and as many entries at least
   * (the sibling takes entries from either count, at different times). */
  ways = ramp_count(&c, WAYS_STRIDE, 1, ceil(1.5 * (double) e[0]), st[0].hi - st[0].lo);
  if (exact[0] && ways > e[0])
    e[0] = ways, stride[0] = WAYS_STRIDE;
  /* A second level with no exact count gets one more try, later: its
   * ramp was lost to the sibling for a while (1472 entries for 2048, the
   * rough count, once in a make check). */
  if (ns > 1 && !exact[1] && !c.failed)
    exact[1] = !exact_entries(&c, (double) rough[1], e[0], st[1].hi - st[1].lo, &e[1],
                              &stride[1], whys[1], sizeof whys[1]);
  if (ns > 1 && !exact[1])
    e[1] = rough[1];
  if (c.failed)
    xray__value_unknown(va1, m->error);
  else if (!ways)
    xray__value_unknown(va1, "no clean step with pages 4096 apart");
  else {
    snprintf(method, sizeof method, "pages 4096 apart, one line each, less the same lines "
             "packed: translation costs from %zu pages on%s", ways + 1,
             2 * ways > e[0] ? ", more than half the entries: fully associative" : "");
    xray__value_measured(va1, (double) (2 * ways > e[0] ? e[0] : ways), method);
  }
  /* Ways of the second level: pages 4096 apart again, now with a quarter
   * more pages than the first level holds in other sets, so that every
   * load looks the second level up; the strided pages cost a walk once
   * they outnumber its ways.  Their first walk adds a walk per pass over
   * all the pages (11 cycles a load here, from 7), so the step looked for
   * is an eighth of a walk.  The ways must divide the entries (a pass in
   * which the sibling held an entry once counted 7). */
  if (ns > 1 && exact[1] && !c.failed) {
    size_t w2;
    double snapped;
    c.fill = e[0] + e[0] / 4 + 1;
    w2 = ramp_count(&c, WAYS_STRIDE, 1, WAYS2_MAX, (st[1].hi - st[0].hi) / 8);
    c.fill = 0;
    if (c.failed)
      xray__value_unknown(va2, m->error);
    else if (!w2)
      xray__value_unknown(va2, "no clean step with pages 4096 apart among pages that keep "
                          "the first level missing");
    else if (2 * w2 > e[1]) {
      xray__value_measured(va2, (double) e[1], "pages 4096 apart among pages that keep the "
                           "first level missing: more than half the entries in one set, "
                           "fully associative");
      e1_counted = e[1];
    }
    else if (fabs((snapped = w2 * exp2(floor(log2((double) e[1] / w2) + 0.5))) - (double) e[1])
             > SETS_SNAP * (double) e[1]) {
      snprintf(why, sizeof why, "pages 4096 apart among pages that keep the first level "
               "missing cost from %zu pages on, and %zu entries are not %zu ways of a power "
               "of two sets", w2 + 1, e[1], w2);
      xray__value_unknown(va2, why);
      snprintf(e1why, sizeof e1why, "not its ways x a power of two sets");
    } else {
      snprintf(method, sizeof method, "pages 4096 apart among %zu that keep the first level "
               "missing, one line each, less the same lines packed: walks from %zu pages on",
               e[0] + e[0] / 4 + 1, w2 + 1);
      xray__value_measured(va2, (double) w2, method);
      e1_counted = e[1];
      e[1] = (size_t) snapped;
    }
  } else
    xray__value_unknown(va2, ns > 1 ? "needs the second level's exact entry count, which was "
                        "not established"
                        : "one step only in the translation cost up to 16384 pages");
  /* A second level's count with no ways to check it against needs another
   * view: the count at half the stride (twice the pages), which must come
   * out the same within a stride's worth of entries.  (Zen 5 read
   * 4000-4734 for 4096 with its ways unknown.) */
  if (ns > 1 && exact[1] && !e1_counted && !e1why[0] && !c.failed) {
    size_t s2 = stride[1] / 2, k2 = 0;
    double r = (double) e[1] / (double) (s2 ? s2 : 1);
    if (s2)
      k2 = ramp_count(&c, s2, fmax(2, floor(0.75 * r)), ceil(1.25 * r), st[1].hi - st[1].lo);
    if (!s2)
      snprintf(e1why, sizeof e1why, "counted at one stride only, and its ways are not known");
    else if (!k2 || fabs((double) (k2 * s2) - (double) e[1])
                    > fmax((double) stride[1], STRIDES_AGREE * (double) e[1]))
      snprintf(e1why, sizeof e1why, "pages %zu apart counted %zu%s", s2, k2 * s2,
               k2 ? "" : " (no clean ramp)");
    else
      e1_strides = k2 * s2;
  }
  for (i = 0; i < ns && i < 2; i++) {
    if (exact[i] && stride[i] == WAYS_STRIDE)
      snprintf(method, sizeof method, "pages %d apart, one line each, less the same lines "
               "packed: translation costs from %zu pages on, the largest count of the level "
               "(fully associative)", WAYS_STRIDE, e[i] + 1);
    else if (exact[i])
      snprintf(method, sizeof method, "pages %zu apart in random order, one line each, less "
               "the same lines packed: translation costs from %zu pages on%s", stride[i],
               e[i] / stride[i] + 1, i == 0 ? ", the largest count of the level" : "");
    else {
      snprintf(method, sizeof method, "consecutive pages, one line each, less the same lines "
               "packed: a quarter of the way up the step at %zu pages (not exact: %.100s)",
               rough[i] + 1, whys[i]);
    }
    if (i == 1 && e1_counted && e1_counted != e[1]) {
      size_t len = strlen(method);
      snprintf(method + len, sizeof method - len, "; counted %zu: the nearest ways x a power "
               "of two sets", e1_counted);
    } else if (i == 1 && e1_strides) {
      size_t len = strlen(method);
      snprintf(method + len, sizeof method - len, "; pages %zu apart: %zu", stride[1] / 2,
               e1_strides);
    } else if (i == 1 && e1why[0] && exact[1]) {
      size_t len = strlen(method);
      snprintf(method + len, sizeof method - len, "; not confirmed: %s", e1why);
    }
    xray__value_measured(i ? ve2 : ve1, (double) e[i], method);
    /* A rough count is a guess from the shape of a step, not a second view. */
    (i ? ve2 : ve1)->unconfirmed = !exact[i] || (i == 1 && e1why[0]);
  }
  if (ns > 1) {
    xray__value_measured(vm1, floor(st[0].hi - st[0].lo + 0.5), "plateau after the first step");
    vm1->exact = st[0].hi - st[0].lo;
    xray__value_measured(vm, floor(st[1].hi - st[0].lo + 0.5), "plateau after the second step");
    vm->exact = st[1].hi - st[0].lo;
    /* A step whose extent was only guessed may not be the TLB's (a
     * cache's conflicts among pages of random colour also cost): its
     * cost is no more sure than its count. */
    vm1->unconfirmed = !exact[0];
    vm->unconfirmed = !exact[1];
    /* A miss in every level costs the second level's lookup and a page
     * walk, which reads the page tables from the caches, so at least twice
     * what a miss the second level catches costs (Zen 5 once read a full
     * miss of 11 cycles after a first-level miss of 7): if not, neither
     * step is sure. */
    if (!(st[1].hi - st[0].lo >= 2 * (st[0].hi - st[0].lo))) {
      xray__value_doubt(vm, "; not confirmed: not twice the first-level miss");
      vm1->unconfirmed = 1;
    }
  } else {
    xray__value_unknown(ve2, "one step only in the translation cost up to 16384 pages");
    xray__value_unknown(va2, "one step only in the translation cost up to 16384 pages");
    xray__value_unknown(vm1, "one TLB level: see XRAY_TLB_MISS_LATENCY");
    xray__value_measured(vm, floor(st[0].hi - st[0].lo + 0.5), "plateau after the step");
    vm->exact = st[0].hi - st[0].lo;
    vm->unconfirmed = !exact[0];
  }
  /* Page size: 3 E1 / 2 lines s apart use 3 E1 / 4 pages at s = page / 2
   * and 3 E1 / 2 at s = page.  (Not 2 E1 lines: E1 pages at page / 2
   * left no room for the entries the host's SMT sibling holds, and twice
   * in 10 runs the page read 1024.) */
  {
    double mid = (st[0].lo + st[0].hi) / 2, y;
    uint64_t s;
    size_t n = 3 * e[0] / 2;
    /* The jump must hold at the next stride too: one noisy point is not a
     * page boundary. */
    for (s = 1024; s <= ((uint64_t) 1 << 22); s *= 2)
      if ((y = strided(&c, n, s)) >= mid && strided(&c, n, 2 * s) >= mid)
        break;
    if (s <= ((uint64_t) 1 << 22)) {
      double os;
      char src[48];
      snprintf(method, sizeof method, "%zu lines s bytes apart miss the first level from "
               "s = %llu", n, (unsigned long long) s);
      xray__value_measured(vpage, (double) s, method);
      /* The chains are in base pages: the OS's base page is the second
       * view, and a step at another stride was something else's (a step
       * of cache conflicts read 1024 on a simulated machine without a
       * TLB), or came from a first level that is not the TLB's. */
      if (xray__os_view(m, "XRAY_PAGE_SIZE", &os, src, sizeof src) != 0 || os != (double) s
          || !exact[0])
        xray__value_doubt(vpage, "; not confirmed: %s", !exact[0] ? "the first level's count "
                          "is not exact" : "the OS's base page differs, or it gives none");
    } else
      xray__value_unknown(vpage, "no stride up to 4 MB made the first level miss");
  }
out:
  xray__curve_free(&cv);
  free(c.off);
  return 0;
}

const xray_probe xray__probe_tlb = {
  "tlb", "data TLB entries, page size and miss cost", tlb_run
};
