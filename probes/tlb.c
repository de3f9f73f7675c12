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
#include "tlb.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ONSET 0.25
/* The counts taken again start within this many budgets: on a busy host
 * the first counts alone can take a budget, and the first level's second
 * count, the cheapest and the one that confirms it, comes after the
 * second level's. */
#define TLB_BUDGETS 1.5
/* How close the second level's counts at two strides must come, at least
 * (and within the wider stride's resolution). */
#define STRIDES_AGREE 0.03

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
  return xray__chase_time(c->m, c->off, n, XRAY__ARENA_SMALL, &c->rng, "tlb-page", layout);
}

/* The rough count of a level from its step: a quarter of the way up,
 * each point the median of three (see count_levels). */
static size_t
rough_count(struct tc *c, const struct xray__curve *cv, const struct xray__step *st)
{
  return tlb_edge(c, (size_t) cv->x[st->last_low], (size_t) cv->x[st->first_high],
                  st->lo + ONSET * (st->hi - st->lo))
      - 1;
}

int
tlb_exact_l2(struct tc *c, const struct found *f, size_t *entries, size_t *stride, char *why,
             size_t whylen)
{
  return tlb_exact_entries(c, (double) f->rough[1], f->e[0], f->st[1].hi - f->st[1].lo, entries,
                           stride, why, whylen);
}

/* Each level's entries: rough, then exact where a ramp allows; the first
 * level's ways. */
static void
count_levels(struct tc *c, const struct xray__curve *cv, struct found *f)
{
  size_t i;

  /* A quarter of the way up the step, each point the median of three:
   * the middle read 65-66 for a 64-entry DTLB and up to 2667 for a
   * 2048-entry L2 TLB here (a set-associative level overflows one set at a
   * time past its entry count, and the shared host adds a slope).  That is
   * the rough count; tlb_exact_entries finds the exact one from it. */
  for (i = 0; i < f->ns && i < 2; i++) {
    const struct xray__step *st = &f->st[i];
    f->rough[i] = rough_count(c, cv, st);
    f->exact[i] = !tlb_exact_entries(c, (double) f->rough[i], i ? f->e[i - 1] : 0, st->hi - st->lo,
                                     &f->e[i], &f->stride[i], f->whys[i], sizeof f->whys[i]);
    if (!f->exact[i])
      f->e[i] = f->rough[i];
    else if (i == 0)
      f->c0[f->nc0++] = f->e[0];
  }
  /* The first level once more, a second level's measurement later: the
   * host's SMT sibling holds some of its entries for a second or more at
   * a time, and takes them only away, so of two clean counts the larger is
   * the level's. */
  if (f->exact[0] && f->ns > 1 && !(f->late0 = tlb_late(c))) {
    size_t e2, s2;
    char w2[200];
    if (!tlb_exact_entries(c, (double) f->rough[0], 0, f->st[0].hi - f->st[0].lo, &e2, &s2, w2,
                           sizeof w2)) {
      f->c0[f->nc0++] = e2;
      if (e2 > f->e[0])
        f->e[0] = e2, f->stride[0] = s2;
    }
  }
  /* Ways of the first level: pages 4096 apart share one set of any level
   * with up to 4096 sets, so they start to cost where they outnumber its
   * ways (at its entry count if it is fully associative).  A level of two
   * sets or more has at most half its entries in one; more than that in
   * one set is a fully associative level, and as many entries at least
   * (the sibling takes entries from either count, at different times). */
  f->ways =
      tlb_ramp_count(c, WAYS_STRIDE, 1, ceil(1.5 * (double) f->e[0]), f->st[0].hi - f->st[0].lo);
  if (f->exact[0] && 2 * f->ways > f->e[0])
    f->c0[f->nc0++] = f->ways;
  if (f->exact[0] && f->ways > f->e[0])
    f->e[0] = f->ways, f->stride[0] = WAYS_STRIDE;
  /* A second level with no exact count gets one more try, later: its
   * ramp was lost to the sibling for a while (1472 entries for 2048, the
   * rough count, once in a make check). */
  if (f->ns > 1 && !f->exact[1] && !c->failed) {
    if (tlb_late(c)) {
      size_t len = strlen(f->whys[1]);
      snprintf(f->whys[1] + len, sizeof f->whys[1] - len,
               "; not tried again: the time budget (--budget) was spent");
    } else
      f->exact[1] = !tlb_exact_l2(c, f, &f->e[1], &f->stride[1], f->whys[1], sizeof f->whys[1]);
  }
  if (f->ns > 1 && !f->exact[1])
    f->e[1] = f->rough[1];
}

/* A second level with no exact count after two tries: its step may be
 * one the host drew.  Its bursts add time to a few points of the scan at
 * a time, and a burst early in the second level's plateau reads as a
 * step far below its entries, whose ramps then hold nothing to count.
 * So the scan is taken again past the first level's step, each point the
 * lesser of its two passes (the host only adds time), and the level is
 * counted again where its step moved.  The first level's step must stay
 * where it was. */
static void
rescan(struct tc *c, struct xray__curve *cv, struct found *f)
{
  struct xray__step st[MAX_STEPS];
  size_t i, ns, was = (size_t) cv->x[f->st[1].first_high];

  for (i = f->st[0].first_high; i < cv->n; i++) {
    double y = tlb_point(c, cv->x[i]);
    if (isnan(y)) {
      c->failed = 0; /* the first pass stands */
      return;
    }
    cv->y[i] = fmin(cv->y[i], y);
  }
  ns = xray__find_steps(cv, 0.3, st, MAX_STEPS);
  if (ns < 2 || st[0].first_high != f->st[0].first_high || st[0].last_low != f->st[0].last_low
      || (size_t) cv->x[st[1].first_high] == was || tlb_late(c))
    return;
  memcpy(f->st + 1, st + 1, (ns - 1) * sizeof *st);
  f->ns = ns;
  f->rough[1] = rough_count(c, cv, &st[1]);
  f->exact[1] = !tlb_exact_l2(c, f, &f->e[1], &f->stride[1], f->whys[1], sizeof f->whys[1]);
  if (!f->exact[1]) {
    size_t len = strlen(f->whys[1]);
    f->e[1] = f->rough[1];
    snprintf(f->whys[1] + len, sizeof f->whys[1] - len,
             "; scanned again, the step moved from %zu pages to %.0f", was,
             cv->x[st[1].first_high]);
  }
}

/* A second count of the second level, at half the stride, where its
 * ways cannot confirm the first. */
static void
recount_l2(struct tc *c, struct found *f)
{
  /* A second level's count with no ways to check it against needs another
   * view: the count at half the stride (twice the pages), which must come
   * out the same within a stride's worth of entries: a count from one
   * stride alone can sit anywhere on a ramp that is not clean. */
  size_t s2 = f->stride[1] / 2, k2 = 0;
  double r = (double) f->e[1] / (double) (s2 ? s2 : 1);

  if (!(f->ns > 1 && f->exact[1] && !f->e1_counted && !f->e1why[0] && !c->failed))
    return;
  if (tlb_late(c))
    snprintf(f->e1why, sizeof f->e1why,
             "not counted at half the stride: the time budget (--budget) was spent");
  else {
    if (s2)
      k2 = tlb_ramp_count(c, s2, fmax(2, floor(0.75 * r)), ceil(1.25 * r),
                          f->st[1].hi - f->st[1].lo);
    if (!s2)
      snprintf(f->e1why, sizeof f->e1why, "counted at one stride only, and its ways are not known");
    else if (!k2 || fabs((double) (k2 * s2) - (double) f->e[1])
                    > fmax((double) f->stride[1], STRIDES_AGREE * (double) f->e[1]))
      snprintf(f->e1why, sizeof f->e1why, "pages %zu apart counted %zu%s", s2, k2 * s2,
               k2 ? "" : " (no clean ramp)");
    else
      f->e1_strides = k2 * s2;
  }
}

/* Whether the first level's count (the largest of its exact counts: the
 * host's other thread takes entries away for a while, never adds them) is
 * one that at least two of them gave.  A count one above the rest comes
 * from a pass the host drew out at its end, one below from entries it
 * held: one count alone is not confirmed. */
static int
counted_twice(const struct found *f)
{
  size_t i, k = 0;

  for (i = 0; i < f->nc0; i++)
    k += f->c0[i] == f->e[0];
  return k >= 2;
}

/* Each level's entry count, with how it was counted. */
static void
report_entries(struct found *f, struct tvals *v)
{
  char method[200];
  size_t i;

  for (i = 0; i < f->ns && i < 2; i++) {
    if (f->exact[i] && f->stride[i] == WAYS_STRIDE)
      snprintf(method, sizeof method, "pages %d apart, one line each, less the same lines "
               "packed: translation costs from %zu pages on, the largest count of the level "
               "(fully associative)", WAYS_STRIDE, f->e[i] + 1);
    else if (f->exact[i])
      snprintf(method, sizeof method, "pages %zu apart in random order, one line each, less "
               "the same lines packed: translation costs from %zu pages on%s", f->stride[i],
               f->e[i] / f->stride[i] + 1, i == 0 ? ", the largest count of the level" : "");
    else {
      snprintf(method, sizeof method, "consecutive pages, one line each, less the same lines "
               "packed: a quarter of the way up the step at %zu pages (not exact: %.100s)",
               f->rough[i] + 1, f->whys[i]);
    }
    if (i == 1 && f->e1_recounted) {
      size_t len = strlen(method);
      snprintf(method + len, sizeof method - len,
               "; counted %zu, not its ways x a power of two "
               "sets, then %zu",
               f->e1_recounted, f->e1_counted);
    }
    if (i == 1 && f->e1_counted && f->e1_counted != f->e[1]) {
      size_t len = strlen(method);
      snprintf(method + len, sizeof method - len, "; counted %zu: the nearest ways x a power "
               "of two sets", f->e1_counted);
    } else if (i == 1 && f->e1_strides) {
      size_t len = strlen(method);
      snprintf(method + len, sizeof method - len, "; pages %zu apart: %zu", f->stride[1] / 2,
               f->e1_strides);
    } else if (i == 1 && f->e1why[0] && f->exact[1]) {
      size_t len = strlen(method);
      snprintf(method + len, sizeof method - len, "; not confirmed: %s", f->e1why);
    }
    xray__value_measured(i ? v->e2 : v->e1, (double) f->e[i], method);
    /* A rough count is a guess from the shape of a step, not a second view. */
    (i ? v->e2 : v->e1)->unconfirmed = !f->exact[i] || (i == 1 && f->e1why[0]);
    if (i == 0 && tlb_ways_disagree(f))
      xray__value_doubt(v->e1,
                        "; not confirmed: not its %zu ways times a power of two sets, "
                        "so one count is short",
                        f->ways);
    else if (i == 0 && f->exact[0] && !counted_twice(f)) {
      char counts[64];
      xray__value_doubt(v->e1, "; not confirmed: counted %zu only once (counts:%s)%s", f->e[0],
                        tlb_counts_text(f->c0, f->nc0, counts, sizeof counts),
                        f->late0 ? "; not counted again: the time budget (--budget) was spent"
                                 : "");
    }
  }
}

/* The costs of a first-level and of a full miss. */
static void
report_costs(const struct tc *c, struct found *f, struct tvals *v)
{
  if (f->ns > 1) {
    xray__value_measured(v->m1, floor(f->st[0].hi - f->st[0].lo + 0.5),
                         "plateau after the first step");
    v->m1->exact = f->st[0].hi - f->st[0].lo;
    xray__value_measured(v->m, floor(f->st[1].hi - f->st[0].lo + 0.5),
                         "plateau after the second step");
    v->m->exact = f->st[1].hi - f->st[0].lo;
    /* A step whose extent was only guessed may not be the TLB's (a
     * cache's conflicts among pages of random colour also cost): its
     * cost is no more sure than its count. */
    v->m1->unconfirmed = !f->exact[0];
    v->m->unconfirmed = !f->exact[1];
    /* A miss in every level costs the second level's lookup and a page
     * walk, which reads the page tables from the caches, so at least twice
     * what a miss the second level catches costs (a full miss read as
     * barely dearer than a first-level one is two steps mistaken for
     * one): if not, neither step is sure. */
    if (!(f->st[1].hi - f->st[0].lo >= 2 * (f->st[0].hi - f->st[0].lo))) {
      xray__value_doubt(v->m, "; not confirmed: not twice the first-level miss");
      v->m1->unconfirmed = 1;
    }
  } else {
    char why[200];
    snprintf(why, sizeof why, "one step only in the translation cost up to %zu pages%s", c->kmax,
             c->kwhy);
    xray__value_unknown(v->e2, why);
    xray__value_unknown(v->a2, why);
    xray__value_unknown(v->m1, "one TLB level: see XRAY_TLB_MISS_LATENCY");
    xray__value_measured(v->m, floor(f->st[0].hi - f->st[0].lo + 0.5), "plateau after the step");
    v->m->exact = f->st[0].hi - f->st[0].lo;
    v->m->unconfirmed = !f->exact[0];
  }
  /* A page walk reads the page tables from whichever cache level holds
   * them, and on a shared machine other tenants' loads decide which: its
   * cost moves from run to run by a factor of several. */
  if (c->m->tenants && v->m->source == XRAY_SOURCE_MEASURED && !v->m->unconfirmed)
    xray__value_doubt(v->m, "; not confirmed: a page walk reads the page tables from whichever "
                      "level holds them, which other tenants' load moves");
}

/* The base page size: the stride from which lines miss the first level. */
static void
report_page(struct tc *c, struct found *f, struct tvals *v)
{
  char method[200];

  /* Page size: 3 E1 / 2 lines s apart use 3 E1 / 4 pages at s = page / 2
   * and 3 E1 / 2 at s = page.  (Not 2 E1 lines: E1 pages at page / 2
   * left no room for the entries the host's SMT sibling holds, and twice
   * in 10 runs the page read 1024.) */
  {
    double mid = (f->st[0].lo + f->st[0].hi) / 2, y;
    uint64_t s;
    size_t n = 3 * f->e[0] / 2;
    /* The jump must hold at the next stride too: one noisy point is not a
     * page boundary. */
    for (s = 1024; s <= ((uint64_t) 1 << 22); s *= 2)
      if ((y = strided(c, n, s)) >= mid && strided(c, n, 2 * s) >= mid)
        break;
    if (s <= ((uint64_t) 1 << 22)) {
      double os;
      char src[48];
      snprintf(method, sizeof method, "%zu lines s bytes apart miss the first level from "
               "s = %llu", n, (unsigned long long) s);
      xray__value_measured(v->page, (double) s, method);
      /* The chains are in base pages: the OS's base page is the second
       * view, and a step at another stride was something else's (a step
       * of cache conflicts read 1024 on a machine model without a
       * TLB), or came from a first level that is not the TLB's. */
      if (xray__os_view(c->m, "XRAY_PAGE_SIZE", &os, src, sizeof src) != 0 || os != (double) s
          || !f->exact[0])
        xray__value_doubt(v->page, "; not confirmed: %s", !f->exact[0] ? "the first level's count "
                          "is not exact" : "the OS's base page differs, or it gives none");
    } else
      xray__value_unknown(v->page, "no stride up to 4 MB made the first level miss");
  }
}

/* The translation cost of K_MIN to K_MAX pages, 4 points an octave; a
 * point this process has no memory for (a limit such as ulimit -v) ends
 * the scan at the points before it, and the reasons that rest on its
 * extent say so. */
static void
scan(struct tc *c, struct xray__curve *cv)
{
  double r = pow(2.0, 1.0 / 4), x, y;
  int i;

  c->kmax = K_MAX;
  c->kwhy = "";
  for (i = 0; (x = K_MIN * pow(r, i)) <= K_MAX * 1.000001; i++) {
    unsigned room = c->m->short_of_room;
    y = tlb_point(c, x);
    if (isnan(y) && c->m->short_of_room > room && cv->n > 0) {
      c->failed = 0;
      c->kmax = (size_t) cv->x[cv->n - 1];
      c->kwhy = ", as many as this process may map (a limit such as ulimit -v)";
      return;
    }
    if (xray__curve_add(cv, x, y))
      return;
  }
}

static int
tlb_run(xray_machine *m, xray_report *r)
{
  struct tvals v;
  struct tc c = { 0 };
  struct xray__curve cv = { 0 };
  struct found f;
  char why[200];

  v.page = xray__report_param(r, "XRAY_PAGE_SIZE", NULL, NULL);
  v.e1 = xray__report_param(r, "XRAY_DTLB_ENTRIES", NULL, NULL);
  v.a1 = xray__report_param(r, "XRAY_DTLB_ASSOC", NULL, NULL);
  v.e2 = xray__report_param(r, "XRAY_L2TLB_ENTRIES", NULL, NULL);
  v.a2 = xray__report_param(r, "XRAY_L2TLB_ASSOC", NULL, NULL);
  v.m1 = xray__report_param(r, "XRAY_DTLB_MISS_LATENCY", NULL, NULL);
  v.m = xray__report_param(r, "XRAY_TLB_MISS_LATENCY", NULL, NULL);
  if (!v.m || !(c.off = malloc(2 * K_MAX * sizeof *c.off)))
    return -1;
  memset(&f, 0, sizeof f);
  c.m = m;
  c.rng = UINT64_C(0xa4093822299f31d0);
  c.page = m->page ? m->page : 4096;
  c.deadline = m->timed ? xray__now() + TLB_BUDGETS * m->budget : 0;
  scan(&c, &cv);
  f.ns = c.failed ? 0 : xray__find_steps(&cv, 0.3, f.st, MAX_STEPS);
  if (f.ns == 0) {
    if (c.failed)
      snprintf(why, sizeof why, "%.190s", m->error);
    else
      snprintf(why, sizeof why, "translation costs nothing measurable up to %zu pages%s", c.kmax,
               c.kwhy);
    xray__value_unknown(v.page, why);
    xray__value_unknown(v.e1, why);
    xray__value_unknown(v.a1, why);
    xray__value_unknown(v.e2, why);
    xray__value_unknown(v.a2, why);
    xray__value_unknown(v.m1, why);
    xray__value_unknown(v.m, why);
  } else {
    count_levels(&c, &cv, &f);
    if (f.ns > 1 && !f.exact[1] && !c.failed && !tlb_late(&c))
      rescan(&c, &cv, &f);
    tlb_report_dtlb_ways(&c, &f, &v);
    tlb_l2_ways(&c, &f, &v);
    recount_l2(&c, &f);
    report_entries(&f, &v);
    report_costs(&c, &f, &v);
    report_page(&c, &f, &v);
  }
  xray__curve_free(&cv);
  xray__packed_free(&c.packed);
  free(c.off);
  return 0;
}

const xray_probe xray__probe_tlb = {
  "tlb", "data TLB entries, page size and miss cost", tlb_run
};
