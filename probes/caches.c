/* Data and unified cache levels beyond L1: capacity, associativity, line
 * size and latency of each, and the memory latency.
 *
 * The paper (Sec. 4.6, Fig. 12) extends the compact-set search to level i
 * with strides that defeat level i-1.  That needs the physical address
 * bits that index level i, and under a hypervisor they are not ours: the
 * host backs guest memory with 4 KB pages of random colour, even under
 * guest huge pages, and the search then returns associativities that
 * are no cache's (tens to hundreds of ways).
 *
 * So the colour is modelled instead of controlled.  The probe chases
 * through k random whole pages (caches-pages.c says why whole).  Within a
 * level whose sets span P page colours (P = C / (A * page)), each page falls in
 * one colour at random, and a colour that receives more than A pages
 * thrashes (LRU, cyclic order), so the fraction of loads that miss the
 * level is the chance that a page's colour holds A others:
 *
 *     F(k) = Pr[X >= A],  X ~ Binomial(k - 1, 1/P).
 *
 * The mean time per load, averaged over random draws of pages, rises from
 * the level's latency to the next level's as lo + (hi - lo) F(k).  Its
 * half-way point pins the capacity C = P * A * page down well; its width
 * pins A only weakly, and not at all where the replacement is not LRU.
 * The ways are therefore measured apart, by a minimal conflict set of
 * pages (ways_of), and the model with those ways gives P.  L1, indexed
 * within a page, shows as the step at k = C1 / page + 1.
 *
 * The line size of each level: pairs of loads at offsets o and o + s in
 * the same page, with k large enough that the level misses; while s is
 * below its line the second load hits, so the pair costs less.
 *
 * Where the curve shows no transition or does not settle, the value is
 * unknown with the reason.  The last level is usually shared with other
 * cores (and here with other tenants): what a process gets of it is
 * reported, marked effective.
 *
 * The parts: this file (line sizes, the draws' statistics, the driver),
 * caches-pages.c (pages and their chains), caches-curve.c (the curve and
 * its levels), caches-model.c (the page-colour model), caches-conflict.c
 * (conflict sets), caches-report.c (the values). */
#include "caches.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* --- a level's line size ---------------------------------------------- */

/* Line size of the level whose transition is L, at k pages where it
 * misses: the smallest s at which a load s bytes after a missing one
 * misses too (below the line it hits).  The levels of the step are the
 * pairs' own: 8 bytes apart (one line) and half a page apart (two), not
 * the curve's plateaus, whose loads share a line where the line is longer
 * than their step and then cost less than a miss each (a 128-byte line
 * read as 64 against them).  Pairs half a page apart must cost at least
 * a quarter of a miss more than pairs in one line: where every line holds
 * several of the chase's loads, pairs in two lines also hit half the time,
 * and no step shows.  The step must be clean: every offset below it well
 * under the threshold and within LINE_FLAT of the level's step of the
 * smallest, it and the next above the threshold, and the step still there
 * when measured once more.  A prefetcher that brings the neighbouring line
 * along (Zen 3's L2 and DRAM) blurs it, and then the line size is not
 * given. */
#define LINE_FLAT 0.15

/* Cycles per load of one chase of pairs s bytes apart at k pages. */
static double
pair_chase(struct cc *c, double k, uint64_t s)
{
  char what[48];

  snprintf(what, sizeof what, "chase-pairs/k%g", k);
  return caches_run_chain(c, caches_lay_out(c, k, s), (double) s, what);
}

/* The same, the median of three chases, the first of which may be given
 * (t0; NAN: chased here). */
static double
pairs_from(struct cc *c, double k, uint64_t s, double t0)
{
  double t[3];
  int j;

  t[0] = isnan(t0) ? pair_chase(c, k, s) : t0;
  for (j = 1; j < 3; j++)
    t[j] = pair_chase(c, k, s);
  return xray__median(t, 3);
}

static double
pairs(struct cc *c, double k, uint64_t s)
{
  return pairs_from(c, k, s, NAN);
}

/* Whether the deadline has passed; then why says so. */
static int
budget_spent(const struct cc *c, char *why, size_t whylen)
{
  if (!caches_late(c))
    return 0;
  snprintf(why, whylen, "not measured: the time budget (--budget) was spent");
  return 1;
}

/* Whether, a pair taking d seconds, the line's pairs can still
 * start before the deadline; else why says not.  An offset is measured
 * only where the deadline has not passed (caches_line_of's loop), and the
 * shortest line a level can have, the loads' step (the L1D's line: no
 * level below it has a shorter one), needs the second reference pair,
 * every offset from 8 bytes up to twice the step, and the two either side
 * of the step again.  Where those cannot all start in time, nothing more
 * is spent on them: chases past the level are the probe's longest, and a
 * test cut short by the deadline gives nothing. */
static int
line_in_time(const struct cc *c, double d, char *why, size_t whylen)
{
  uint64_t s;
  int need = 3;

  for (s = 8; s <= 2 * c->step; s *= 2)
    need++;
  if (!(c->deadline > 0 && xray__now() + need * d > c->deadline))
    return 1;
  snprintf(why, whylen, "not measured: the time budget (--budget) would be spent first");
  return 0;
}

double
caches_line_of(struct cc *c, const struct level *L, double k, char *why, size_t whylen)
{
  double thr, mid, y[16], one, two, t0 = xray__now();
  uint64_t s;
  int n = 0, i, j;

  if (budget_spent(c, why, whylen))
    return NAN;
  /* One chase says what a pair costs: past a large level each chase
   * warms a chain of every line of the pages at a memory latency a line,
   * and where the pairs would not all fit in the budget the other two
   * are not spent either. */
  one = pair_chase(c, k, 8);
  if (!c->failed && !line_in_time(c, 3 * (xray__now() - t0), why, whylen))
    return NAN;
  one = pairs_from(c, k, 8, one);
  two = pairs(c, k, c->page / 2);
  if (c->failed) {
    snprintf(why, whylen, "%s", c->m->error);
    return NAN;
  }
  if (!(two - one >= (L->hi - L->lo) / 4)) {
    snprintf(why, whylen,
             "pairs of loads half a page apart cost %.1f cycles, pairs in one line %.1f: no "
             "step (each line holds several of the chase's loads)",
             two, one);
    return NAN;
  }
  thr = (3 * two + one) / 4;
  mid = (two + one) / 2;
  for (s = 8; s < c->page && n < 16; s *= 2, n++) {
    if (budget_spent(c, why, whylen))
      return NAN;
    y[n] = pairs(c, k, s);
    if (c->failed) {
      snprintf(why, whylen, "%s", c->m->error);
      return NAN;
    }
    if (n >= 1 && y[n] >= thr && y[n - 1] >= thr)
      break;
    /* While no offset has reached the step, one that already costs
     * more than half a miss more, or climbs off the smallest, fails the
     * checks below whatever the later offsets give: no more are chased
     * (those past the level are the probe's longest). */
    for (j = 0; j <= n && y[j] < thr; j++)
      ;
    if (j > n && y[n] > mid) {
      snprintf(why, whylen,
               "pairs of loads %d bytes apart already cost more than half a "
               "miss more, where no offset yet makes both loads miss: no clean step (a "
               "prefetcher brings neighbouring lines)",
               8 << n);
      return NAN;
    }
    if (j > n && n >= 1 && fabs(y[n] - y[0]) > LINE_FLAT * (two - one)) {
      snprintf(why, whylen,
               "pairs of loads 8 and %d bytes apart cost %.0f and %.0f cycles, "
               "where no offset yet makes both loads miss: no clean step",
               8 << n, y[0], y[n]);
      return NAN;
    }
  }
  for (i = 0; i < n && y[i] < thr; i++)
    ;
  if (i >= n) {
    snprintf(why, whylen, "no pair offset below a page made both loads miss");
    return NAN;
  }
  for (j = 0; j < i; j++)
    if (y[j] > mid) {
      snprintf(why, whylen, "pairs of loads %d bytes apart already cost more than half a "
               "miss more, below the step at %d: no clean step (a prefetcher brings "
               "neighbouring lines)", 8 << j, 8 << i);
      return NAN;
    }
  if (i == 0) {
    snprintf(why, whylen, "pairs of loads 8 bytes apart already both miss");
    return NAN;
  }
  /* Within a line the second load always hits, at any offset: the pairs
   * below the step cost the same.  Where they climb towards it, a
   * prefetcher or a level shared with other tenants decides the step,
   * not the line (a shared L3's pairs can climb from offset to offset
   * long before the step at its line). */
  for (j = 1; j < i; j++)
    if (fabs(y[j] - y[0]) > LINE_FLAT * (two - one)) {
      snprintf(why, whylen, "pairs of loads 8 and %d bytes apart, both below the step at "
               "%d, cost %.0f and %.0f cycles: no clean step", 8 << j, 8 << i, y[0], y[j]);
      return NAN;
    }
  /* Once more, either side of the step: a busy host once moved the cost
   * of memory between two offsets, and a line of 16 bytes came out. */
  if (!(pairs(c, k, (uint64_t) 4 << i) < mid && pairs(c, k, (uint64_t) 8 << i) >= thr)
      || c->failed) {
    snprintf(why, whylen, "the step at %d bytes did not hold when measured again", 8 << i);
    return NAN;
  }
  return (double) (8 << i);
}

static int
cmp_double(const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* The mean time of a point's draws, an eighth of them (at least one from
 * four draws) left out at either end.  Draws differ by their pages'
 * colours, and that spread is what the mean is for; the extremes are
 * disturbed draws (preempted, or a spike of a model's noise).  It is
 * not the mean of the draws under 1.4 times their median: in the broad
 * transition to memory of a level shared with other tenants the draws
 * are a mixture of hits and misses, and dropping the high half of them
 * made flat stretches that passed for a level. */
double
caches_mean(const struct pt *p)
{
  double v[FIT_DRAWS], sum = 0;
  int i, t = p->draws < 4 ? 0 : p->draws < 16 ? 1 : p->draws / 8;

  memcpy(v, p->v, (size_t) p->draws * sizeof *v);
  qsort(v, (size_t) p->draws, sizeof *v, cmp_double);
  for (i = t; i < p->draws - t; i++)
    sum += v[i];
  return sum / (p->draws - 2 * t);
}

/* A point's floor: the draw an eighth of the way up its sorted draws (the
 * least of fewer than eight), what a draw costs when the host leaves it
 * alone (see caches_split_wide). */
double
caches_floor(const struct pt *p)
{
  double v[FIT_DRAWS];

  memcpy(v, p->v, (size_t) p->draws * sizeof *v);
  qsort(v, (size_t) p->draws, sizeof *v, cmp_double);
  return v[p->draws / 8];
}

/* How widely a point's draws spread about their mean: the median of
 * their absolute deviations from it, scaled to a standard deviation, over
 * the mean.  On a level every draw costs about the same (a spread of a
 * few per cent).  In the transition to memory of a level that other
 * tenants share, a draw meets the level free or taken, and the spread
 * nears 1.  About the mean, not the median: where most draws still hit
 * and a few miss, the deviations from the median are small, but the mean
 * lies between the two groups, and a few such points in a row pass for a
 * level between L3 and memory. */
double
caches_draw_spread(const struct pt *p)
{
  double dev[FIT_DRAWS], mu = caches_mean(p);
  int i;

  for (i = 0; i < p->draws; i++)
    dev[i] = fabs(p->v[i] - mu);
  return 1.4826 * xray__median(dev, (size_t) p->draws) / mu;
}

/* The ways of level i by a conflict set, where the model saw a level
 * (not a shared one: other tenants' lines come and go in its sets);
 * then the colours with those ways give the capacity. */
static void
ways_by_conflict(struct cc *c, struct shape *S, int i)
{
  xray_machine *m = c->m;
  struct level *l = &S->L[i];
  double deadline = c->deadline;
  int a, unfit;

  if (deadline > 0)
    c->deadline = fmax(deadline, xray__now() + WAYS_BUDGETS * m->budget);
  /* Pages up to a page-indexed L1's capacity fit it whatever their
   * colours (l1_pages); beyond L2 the level below has colours of its
   * own. */
  a = caches_ways_of(c, l, l->fit.P * l->fit.A, l->fit.A, i == 1 ? caches_l1_pages(c, S) : 0,
                     l->wwhy, sizeof l->wwhy);
  c->deadline = deadline;
  l->conflict_ran = l->fit.P * l->fit.A <= CONFLICT_MAX_PAGES;
  /* A conflict set the machine could not time (a replay that did not
   * record it) loses the ways only, not the levels after this one. */
  if (c->failed) {
    snprintf(l->wwhy, sizeof l->wwhy, "%.150s", m->error);
    c->failed = 0;
    a = 0;
  }
  /* The ways must also be ones the transition can have come from
   * (under tree-PLRU a reduction once stalled at 147 pages). */
  if (a > 0 && a <= MAX_ASSOC && sqrt(l->fit.errA[a] / l->fit.n) <= 2 * FIT_RMS) {
    l->ways = a;
    l->size = l->fit.PA[a] * a * (double) c->page;
    l->cwhy[0] = 0;
    /* The policy's colours are fitted whatever the ways' source: the
     * halves' check reads them too. */
    unfit = caches_fit_policy(l, a);
    if (l->lone)
      snprintf(l->cwhy, sizeof l->cwhy,
               "the ways come from one conflict set that no "
               "second reduction repeated (a level that at times keeps A + 1 pages of a "
               "colour can stop one at A + 2)");
    else if (unfit)
      snprintf(l->cwhy, sizeof l->cwhy,
               "the colours lie between %.0f (%s) and %.0f "
               "(LRU), which hold no one power of two",
               l->qlo, l->qused ? "miss chance measured on one colour" : "optimal replacement",
               l->qhi);
    else
      l->size = l->qP * a * (double) c->page;
  } else if (a > 0)
    snprintf(l->wwhy, sizeof l->wwhy,
             "a conflict set gave %d ways, which the transition "
             "does not fit (rms %.3f)",
             a, a <= MAX_ASSOC ? sqrt(l->fit.errA[a] / l->fit.n) : HUGE_VAL);
}

/* Level i's ways (a conflict set), capacity (the page-colour model, or
 * where half the loads miss for a shared last level) and line. */
static void
size_level(struct cc *c, struct shape *S, int i)
{
  xray_machine *m = c->m;
  struct level *L = S->L;
  int *first = S->first, *last = S->last, nl = S->nl;

  int shared = m->hardware && i == nl - 1 && S->settled;
  struct level *l = &L[i];
  caches_analyse(c, l, S->y);
  l->ways = l->conflict_ran = l->qn = 0;
  l->wwhy[0] = 0;
  /* A transition whose points could not be measured again has nothing
   * to give (c->failed stops the levels after it too).  Past here, a
   * failure is a conflict set's or a line pair's, and is theirs alone. */
  if (c->failed)
    return;
  if (!shared && l->fit.A > 0 && l->fit.rms <= 2 * FIT_RMS)
    ways_by_conflict(c, S, i);
  if (l->ways && !isnan(l->size))
    ;
  else if (l->fit.A > 0 && l->fit.rms <= FIT_RMS && l->fit.cap_hi <= CAP_SPREAD * l->fit.cap_lo)
    l->size = l->fit.P * l->fit.A * (double) c->page;
  else if (shared)
    L[i].k50 = caches_half_way(c, S, &L[i]);
  /* The pair test needs k where the level surely misses: into the next
   * plateau, where the model or the half-way point placed the level.  A
   * last step too wide to be one level's is reported as the level
   * fading, its line unknown (caches_count_levels): its pairs, the
   * probe's longest chases, would be spent for nothing. */
  if ((!isnan(L[i].size) || !isnan(L[i].k50)) && !caches_wide_step(c, S, i)) {
    int j = first[i + 1] + 2 <= last[i + 1] ? first[i + 1] + 2 : last[i + 1];
    /* The shared-lines check needs pages enough that a quarter of them
     * still miss the level: up to 8 times the start of the next plateau,
     * within it. */
    {
      int e = first[i + 1];
      while (e < last[i + 1] && c->pt[e + 1].k <= 8 * c->pt[first[i + 1]].k)
        e++;
      L[i].line_k = c->pt[e].k;
    }
    L[i].line = caches_line_of(c, &L[i], c->pt[j].k, L[i].why, sizeof L[i].why);
    c->failed = 0; /* as for a conflict set: the line only */
  }
}

/* The curve and its levels: scanned, with more draws off the plateaus,
 * until it settles on memory (S). */
static void
find_levels(struct cc *c, struct shape *S)
{
  int i, j;

  /* Two draws place a point of a gradual transition only roughly, and
   * three rough points in a row can pass for a plateau of their own (a
   * level at 16 cycles inside Zen 3's L2 step): points off the plateaus
   * get more draws, twice, and the levels are found again.  If the curve
   * no longer looks settled then, the scan goes on (at most twice). */
  for (j = 0; j < 3; j++) {
    int more = caches_scan(c, S);
    caches_shape_of(c, S, 0);
    for (i = 0; i < 2 && !c->failed && caches_refine_slopes(c, S); i++)
      caches_shape_of(c, S, 0);
    if (S->settled || c->failed || !more)
      break;
  }
}

/* The step between a page's loads: the L1D's line where the dcache probe
 * confirms one (in this report, where it ran before, else in a run of its
 * own), else LINE_STEP: loads that share an L1D line hit it after the
 * first, and L2's time per load would average in those hits; loads a step
 * apart that skip lines leave the pages half used.  And c->l1col, the
 * colours of the L1D in pages where its confirmed way spans more than one
 * (0: none, or not known). */
static void
load_step(xray_machine *m, xray_report *r, struct cc *c)
{
  static const char *const needs[] = { "XRAY_L1D_LINE", NULL }, *const deps[] = { "dcache", NULL };
  xray_report *own;
  const xray_report *from = xray__resting_on(m, r, needs, deps, &own);
  const xray_value *v = from ? xray_report_get(from, "XRAY_L1D_LINE") : NULL, *sz, *ways;
  double line = 0;

  if (xray__sure(v))
    line = xray_value_number(v);
  sz = from ? xray_report_get(from, "XRAY_L1D_SIZE") : NULL;
  ways = from ? xray_report_get(from, "XRAY_L1D_ASSOC") : NULL;
  c->l1col = 0;
  if (xray__sure(sz) && xray__sure(ways) && xray_value_number(ways) >= 1) {
    double col = xray_value_number(sz) / xray_value_number(ways) / (double) c->page;
    c->l1col = col >= 2 && col == floor(col) ? (size_t) col : 0;
  }
  xray_report_free(own);
  c->step_known = line >= 16 && line <= 512 && exp2(floor(log2(line))) == line;
  c->step = c->step_known ? (size_t) line : LINE_STEP;
}

static void
cc_free(struct cc *c)
{
  if (c) {
    free(c->pool);
    free(c->slot);
    free(c->cls);
    free(c->used);
    free(c->place);
    free(c->off);
    free(c->blk);
    free(c);
  }
}

/* The chains' offsets (two a load, for the pairs of the line test), for
 * LINES_MAX loads, or where a limit on the process's memory (ulimit -v)
 * refuses that, for fewer, down to LINES_MIN: the scan then ends
 * earlier, and says why.  0 if not even those. */
static int
alloc_offsets(struct cc *c)
{
  for (c->lines_max = LINES_MAX; c->lines_max >= LINES_MIN; c->lines_max /= 2)
    if ((c->off = malloc(2 * c->lines_max * sizeof *c->off)))
      return 1;
  return 0;
}

static int
caches_run(xray_machine *m, xray_report *r)
{
  struct cc *c = calloc(1, sizeof *c);
  struct shape *S = calloc(1, sizeof *S);
  xray_value *vlev = xray__report_param(r, "XRAY_CACHE_LEVELS", NULL, NULL);
  int nl, i, rc = 0, merged;
  char why[XRAY__REASON_LEN], lastwhy[XRAY__REASON_LEN], unsettled[XRAY__REASON_LEN] = "";
  double kmax;

  if (c) {
    c->page = m->page ? m->page : 4096;
    c->pph = c->page < LARGE_PAGE ? LARGE_PAGE / c->page : 1;
    load_step(m, r, c);
    c->lpp = c->page / c->step;
  }
  if (!c || !S || !vlev || !(c->pool = malloc(POOL_MAX * sizeof *c->pool))
      || !(c->slot = malloc(POOL_MAX * sizeof *c->slot))
      || !(c->cls = malloc(c->pph * sizeof *c->cls)) || !(c->used = calloc(c->pph, sizeof *c->used))
      || !(c->place = calloc(POOL_MAX, sizeof *c->place)) || !alloc_offsets(c)
      || !(c->blk = malloc(BLOCK * c->lpp * sizeof *c->blk))) {
    cc_free(c);
    free(S);
    caches_probe_unavailable(r, vlev);
    return -1;
  }
  c->m = m;
  /* Without the table a replay lays its chains out, as it did. */
  c->jumps = xray__machine_jumps(m);
  c->rng = UINT64_C(0x13198a2e03707344);
  c->prng = UINT64_C(0xa4093822299f31d0);
  kmax = (double) (c->lines_max / c->lpp);
  c->start = m->timed ? xray__now() : 0;
  c->deadline = m->timed ? c->start + SLOPE_BUDGETS * m->budget : 0;
  find_levels(c, S);
  /* Refining the transitions may take a budget, up to FIT_BUDGETS in
   * all; later levels get what is left, and the rest is said.  A
   * simulation has no deadline, so that it gives the same answers on any
   * machine. */
  c->deadline = !m->timed ? 0 : fmin(xray__now() + m->budget,
                                     c->start + FIT_BUDGETS * m->budget);
  caches_split_wide(c, S);
  nl = S->nl;
  if (c->failed)
    snprintf(why, sizeof why, "%.190s", m->error[0] ? m->error : "the measurement failed");
  else if (nl < 1)
    snprintf(why, sizeof why, "no step in the time per load over %g to %.0f pages", K_MIN, kmax);
  else
    why[0] = 0;
  /* Transition 0 is L1's; each later one is a level of its own. */
  for (i = 1; i < nl && !c->failed; i++)
    size_level(c, S, i);
  merged = caches_count_levels(c, S, vlev, why, lastwhy, unsettled, sizeof why);
  for (i = 1; i <= (nl - 1 > 2 ? nl - 1 : 2); i++)
    if (caches_report_level(c, S, r, i, why, lastwhy, unsettled)) {
      rc = -1;
      break;
    }
  caches_confirm_count(c, S, r, vlev, nl);
  caches_report_memory(c, S, r, why, merged, unsettled);
  cc_free(c);
  free(S);
  return rc;
}

const xray_probe xray__probe_caches = {
  "caches", "capacity, associativity, line and latency of every cache level beyond L1, and "
  "memory latency", caches_run
};
