/* Data and unified cache levels beyond L1: capacity, associativity, line
 * size and latency of each, and the memory latency.
 *
 * The paper (Sec. 4.6, Fig. 12) extends the compact-set search to level i
 * with strides that defeat level i-1.  That needs the physical address
 * bits that index level i, and under a hypervisor they are not ours: the
 * host backs guest memory with 4 KB pages of random colour, even under
 * guest huge pages.  On this Zen 3 guest the search returned L2
 * associativities of 57-255.
 *
 * So the colour is modelled instead of controlled.  The probe chases
 * through k random whole pages (lay_pages says why whole).  Within a level
 * whose sets span P page colours (P = C / (A * page)), each page falls in
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
 * reported, marked effective. */
#include "xray-internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Footprints are whole pages (every LINE_STEP bytes of each), from an
 * eighth of a page, so that even a 2 KB L1 shows a plateau, to LINES_MAX
 * loads. */
#define LINE_STEP 64
#define K_MIN 0.125
#define LINES_MAX ((size_t) 1 << 21)
#define BLOCK 16                        /* pages visited together */
#define PER_OCTAVE 6
#define POOL_MIN 8192
#define POOL_MAX 65536
#define MAX_LEVELS 6                    /* transitions, L1 included */
#define MAX_ASSOC 64
#define SCAN_DRAWS 2
#define FIT_DRAWS 40
#define SLOPE_DRAWS 8
#define FIT_LINES ((size_t) 1 << 20)    /* loads per transition point, beyond FIT_DRAWS x 4 */
#define MAX_PTS 128
/* The probe's time on the real machine, in --budget units, at which the
 * scan stops, the slopes stop getting draws, and the fits do (and the
 * conflict and line tests).  At the default budget the slowest of 20
 * runs took 6.2 s with 3 budgets for the fits and 5.2 s with 2.5, and the
 * memory probes together must stay under 8 s (tlb took up to 2.5 s). */
#define SCAN_BUDGETS 1.5
#define SLOPE_BUDGETS 2.0
#define FIT_BUDGETS 2.25

struct pt {
  double k;                             /* pages */
  double v[FIT_DRAWS];                  /* cycles per load of each draw */
  int draws;
};

struct cc {
  xray_machine *m;
  size_t page, lpp;                     /* page; loads per page */
  uint64_t rng;
  uint64_t *pool, *off, *blk;
  struct pt pt[MAX_PTS];
  int npt;
  int next;                             /* the scan's next point, K_MIN r^next */
  int failed;
  int out_of_time;                      /* the scan stopped at its deadline */
  double start;                         /* when the probe began (0: simulated) */
  double deadline;                      /* refinement stops adding draws after it */
  long tests;                           /* conflict tests of the level so far */
};

static size_t
pool_for(size_t k)
{
  size_t p = 8 * k;

  return p < POOL_MIN ? POOL_MIN : p > POOL_MAX ? POOL_MAX : p;
}

/* Draw k distinct pages of the pool (partial Fisher-Yates), in random
 * order. */
static void
draw_pages(struct cc *c, size_t k, size_t pool)
{
  size_t i;

  for (i = 0; i < pool; i++)
    c->pool[i] = i;
  for (i = 0; i < k; i++) {
    size_t j = i + (size_t) (xray__rand(&c->rng) % (pool - i));
    uint64_t t = c->pool[i];
    c->pool[i] = c->pool[j];
    c->pool[j] = t;
  }
}

/* The chain through k random pages (k < 1: a fraction of one page).
 * Every page is used whole: whatever hash of the physical address picks
 * a level's set, the loads of one page then fill a fixed group of sets
 * (for an XOR hash, a coset), and pages either share that group or not,
 * so the level behaves as page colours with a group of A ways each.  A
 * single line per page does not: Zen 3's L2 held 512 lines at one page
 * offset, four times what 16 colours of 8 ways allow.
 *
 * Pages are visited BLOCK at a time, their loads shuffled together: a
 * page's translation is then used LINE_STEP-fold while it is cached, so
 * the TLB hardly shows (a global shuffle added a walk to most loads once
 * k passed the TLB).  Loads go in units: with pair = 0 one load, else two
 * loads pair bytes apart, one right after the other. */
static size_t
lay_pages(struct cc *c, const uint64_t *pages, size_t np, size_t per, uint64_t pair)
{
  size_t b, i, l, n = 0;
  uint64_t s = pair / LINE_STEP;

  for (b = 0; b < np; b += BLOCK) {
    size_t e = b + BLOCK < np ? b + BLOCK : np, nu = 0, u;
    for (i = b; i < e; i++)
      for (l = 0; l < per; l++)
        /* Pairs closer than LINE_STEP: every load and one pair bytes on;
         * farther: each load with the one whose index differs in bit s. */
        if (!pair || s == 0 || !(l & s))
          c->blk[nu++] = pages[i] * c->page + l * LINE_STEP;
    xray__shuffle(c->blk, nu, &c->rng);
    for (u = 0; u < nu; u++) {
      c->off[n++] = c->blk[u];
      if (pair)
        c->off[n++] = c->blk[u] + pair;
    }
  }
  return n;
}

static size_t
lay_out(struct cc *c, double k, uint64_t pair)
{
  size_t np = k < 1 ? 1 : (size_t) k, per = k < 1 ? (size_t) (k * (double) c->lpp) : c->lpp;

  draw_pages(c, np, pool_for(np));
  return lay_pages(c, c->pool, np, per < 1 ? 1 : per, pair);
}

static double
run_chain(struct cc *c, size_t n, double k, const char *what)
{
  struct xray__chase ch = { c->off, n, XRAY_ARENA_HUGE, 1 };
  double y = xray__point(c->m, "caches", what, k, c->m->ops->chase(c->m, &ch));

  if (isnan(y))
    c->failed = 1;
  return y;
}

static double
one_draw(struct cc *c, double k)
{
  return run_chain(c, lay_out(c, k, 0), k, "chase-pages");
}

static void
add_draws(struct cc *c, struct pt *p, int want)
{
  while (p->draws < want && !c->failed && !(p->draws > 0 && c->deadline > 0
                                            && xray__now() > c->deadline)) {
    p->v[p->draws++] = one_draw(c, p->k);
  }
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
 * disturbed draws (preempted, or a spike of the simulated noise).  It is
 * not the mean of the draws under 1.4 times their median: in the broad
 * transition to memory of a level shared with other tenants the draws
 * are a mixture of hits and misses (45 to 330 cycles at one point here),
 * and dropping the high half of them made flat stretches that passed for
 * a level. */
static double
mean(const struct pt *p)
{
  double v[FIT_DRAWS], sum = 0;
  int i, t = p->draws < 4 ? 0 : p->draws < 16 ? 1 : p->draws / 8;

  memcpy(v, p->v, (size_t) p->draws * sizeof *v);
  qsort(v, (size_t) p->draws, sizeof *v, cmp_double);
  for (i = t; i < p->draws - t; i++)
    sum += v[i];
  return sum / (p->draws - 2 * t);
}

/* How widely a point's draws spread about their mean: the median of
 * their absolute deviations from it, scaled to a standard deviation, over
 * the mean.  On a level every draw costs about the same (0.05 or less
 * here).  In the transition to memory of a level that other tenants
 * share, a draw meets the level free or taken (56 to 356 cycles at one
 * point here, spread 0.8).  About the mean, not the median: where most
 * draws still hit (57, 60, 51, 50, 49, 66 and two of 250 cycles) the
 * deviations from the median are small, but the mean lies between the two
 * groups, and three such points once made a "level" of 115 cycles between
 * L3 and memory. */
static double
draw_spread(const struct pt *p)
{
  double dev[FIT_DRAWS], mu = mean(p);
  int i;

  for (i = 0; i < p->draws; i++)
    dev[i] = fabs(p->v[i] - mu);
  return 1.4826 * xray__median(dev, (size_t) p->draws) / mu;
}

/* --- the model ----------------------------------------------------------- */

static double
lchoose(double n, double k)
{
  return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1);
}

double
xray__colour_miss(double k, double P, int A)
{
  double n = k - 1, below = 0;
  int x;

  if (P <= 1)
    return k - 1 >= A ? 1 : 0;
  if (n < A)
    return 0;
  for (x = 0; x < A; x++)
    below += exp(lchoose(n, x) + x * log(1 / P) + (n - x) * log1p(-1 / P));
  return below >= 1 ? 0 : 1 - below;
}

/* The same under the level's own replacement policy: q[x] is the chance
 * that a page misses a traversal when its colour holds x pages in all
 * (0 up to A; under LRU 1 beyond), for x up to QMAX, and 1 past it. */
#define QMAX 96
static double
colour_miss_q(double k, double P, const double *q)
{
  double n = k - 1, sum = 0, cdf = 0;
  int j;

  if (P <= 1)
    return n + 1 <= QMAX ? q[(int) (n + 1)] : 1;
  for (j = 0; j <= n && j + 1 <= QMAX; j++) {
    double pm = exp(lchoose(n, j) + j * log(1 / P) + (n - j) * log1p(-1 / P));
    sum += pm * q[j + 1];
    cdf += pm;
  }
  return sum + fmax(0, 1 - cdf);
}

struct fitdata {
  const double *k, *f, *w;
  int n;
  const double *q;                      /* the measured miss function, or NULL: LRU */
};

static double
sse(const struct fitdata *d, double P, int A)
{
  double s = 0;
  int i;

  for (i = 0; i < d->n; i++) {
    double m = d->q ? colour_miss_q(d->k[i], P, d->q) : xray__colour_miss(d->k[i], P, A);
    double e = m - d->f[i];
    s += d->w[i] * e * e;
  }
  return s;
}

/* Best integer P for this A: golden section on log P, then the integers
 * around it. */
static double
best_p(const struct fitdata *d, int A, double plo, double phi, double *err)
{
  double a = log(plo), b = log(phi), g = 0.6180339887498949, x1, x2, f1, f2, p, best = NAN;
  int i;

  x1 = b - g * (b - a);
  x2 = a + g * (b - a);
  f1 = sse(d, exp(x1), A);
  f2 = sse(d, exp(x2), A);
  for (i = 0; i < 40; i++) {
    if (f1 < f2) {
      b = x2, x2 = x1, f2 = f1;
      x1 = b - g * (b - a);
      f1 = sse(d, exp(x1), A);
    } else {
      a = x1, x1 = x2, f1 = f2;
      x2 = a + g * (b - a);
      f2 = sse(d, exp(x2), A);
    }
  }
  *err = HUGE_VAL;
  for (p = floor(exp((a + b) / 2)) - 1; p <= ceil(exp((a + b) / 2)) + 1; p++) {
    double e;
    if (p < 1)
      continue;
    if ((e = sse(d, p, A)) < *err) {
      *err = e;
      best = p;
    }
  }
  return best;
}

struct fit {
  double P, err, err2;                  /* err2: the best with another A */
  int A, A2;
  double rms;                           /* residual in miss fraction */
  double cap_lo, cap_hi;                /* P x A of every fit within FIT_SEPARATION */
  double PA[MAX_ASSOC + 1], errA[MAX_ASSOC + 1];        /* the best P for each A */
  int n;                                /* points fitted */
};

/* How close the fits to the even and the odd draws must come to the
 * capacity for it to be confirmed. */
#define HALVES_AGREE 0.15

/* The widest step a shared last level makes, as a factor in pages. */
#define MERGED_SPAN 6

/* A fit is trusted when it explains the transition within this RMS miss
 * fraction, and its associativity when the next best A fits this much
 * worse (WAYS_SEPARATION: a 36 MB 12-way level with few draws fitted 13
 * ways 1.6 times better than 12).  Its capacity is trusted when every fit that close agrees on
 * P x A within CAP_SPREAD: the half-way point of a transition pins the
 * capacity down well before its width pins the ways (Zen 3's L2, whose
 * replacement is not LRU, fitted 9 x 14 and 7 x 18 for 16 x 8: 126 pages
 * each time, 128 in truth). */
#define FIT_RMS 0.1
#define FIT_SEPARATION 1.5
#define WAYS_SEPARATION 2.5             /* for the ways from the model alone */
#define CAP_SPREAD 1.1

static void
fit_level(const struct fitdata *d, double k50, struct fit *out)
{
  double *err = out->errA, *P = out->PA;
  int A;

  out->err = out->err2 = HUGE_VAL;
  out->A = out->A2 = 0;
  out->P = NAN;
  for (A = 1; A <= MAX_ASSOC; A++) {
    double e;
    P[A] = best_p(d, A, fmax(1, k50 / A / 4), k50 / A * 4 + 2, &e);
    err[A] = e;
    if (e < out->err) {
      out->err2 = out->err;
      out->A2 = out->A;
      out->err = e;
      out->A = A;
      out->P = P[A];
    } else if (e < out->err2) {
      out->err2 = e;
      out->A2 = A;
    }
  }
  out->cap_lo = out->cap_hi = out->P * out->A;
  for (A = 1; A <= MAX_ASSOC; A++)
    if (err[A] < FIT_SEPARATION * out->err) {
      out->cap_lo = fmin(out->cap_lo, P[A] * A);
      out->cap_hi = fmax(out->cap_hi, P[A] * A);
    }
}

/* --- the curve ----------------------------------------------------------- */

/* Plateaus: runs of at least minlen points each within FLAT of the
 * median of the run before it.  (Not of the point before it: the time
 * per load of memory, 2 draws a point on a busy host, zigzags by 5-10 %
 * from point to point and broke its plateau, while a transition that
 * rises 5 % a point passed for one.)  Returns their count; first/last
 * point of each. */
#define FLAT 0.06
/* How much a plateau may rise a point (see plateaus()). */
#define DRIFT 0.02

static int
drifts(const double *y, int a, int b)
{
  return fabs(y[b] - y[a]) > fmax(2 * FLAT, DRIFT * (b - a)) * y[a];
}

static int
plateaus(const double *y, int n, int minlen, int *first, int *last, int max)
{
  int i = 0, np = 0;

  while (i < n && np < max) {
    int j = i;
    double med = y[i];
    while (j + 1 < n && fabs(y[j + 1] - med) <= FLAT * med)
      med = xray__median(y + i, (size_t) (++j - i + 1));
    /* A plateau must not drift: its ends within 2 FLAT, or within
     * DRIFT a point (a shared level's time rises slowly with the
     * footprint, as translation costs and other tenants' share do; a
     * transition, even tree-PLRU's, rises faster).  Drift at its end is
     * the next transition beginning, at its start the slow tail of the
     * last one (a short shared L3 plateau after the L2's step): cut
     * whichever end leaves the longer plateau. */
    int a = i, b = j;
    while (j - i >= 2 && drifts(y, i, j))
      j--;
    while (b - a >= 2 && drifts(y, a, b))
      a++;
    if (b - a > j - i)
      i = a, j = b;
    if (j - i + 1 >= minlen) {
      first[np] = i;
      last[np] = j;
      np++;
    }
    i = j + 1;
  }
  return np;
}

static double
plateau_level(const double *y, int a, int b)
{
  return xray__median(y + a, (size_t) (b - a + 1));
}

/* The median spread of the draws of points a..b (draw_spread). */
#define SPREAD_MAX 0.25
static double
plateau_spread(const struct cc *c, int a, int b)
{
  double v[MAX_PTS];
  int i;

  for (i = a; i <= b; i++)
    v[i - a] = draw_spread(&c->pt[i]);
  return xray__median(v, (size_t) (b - a + 1));
}

struct level {
  double lo, hi;                        /* latency of this level, of the next */
  int a, b;                             /* transition: last lo point, first hi point */
  struct fit fit;
  double size, line, k50;
  double half[2];                       /* P x A fitted to each half of the draws */
  double fk[MAX_PTS], ff[3][MAX_PTS];   /* the points fitted: pages; miss fraction of all
                                         * draws, of the even, of the odd ones */
  int fn;
  double q[QMAX + 1];                   /* the miss function measured on one colour */
  int qn;                               /* occupancies measured (A + 1 on); 0: none */
  double qP;                            /* the colours between the bounds */
  double qlo, qhi;                      /* the bounds on the colours (see fit_policy) */
  char cwhy[200];                       /* why a capacity with conflict-set ways is not
                                         * confirmed */
  int ways;                             /* by the conflict test; 0: not */
  int conflict_ran;
  char why[160];                        /* why the line size is unknown */
  char wwhy[160];                       /* why the conflict test gave none */
};

static int
halves_agree(const struct level *l, double pages)
{
  return fabs(l->half[0] - pages) <= HALVES_AGREE * pages
         && fabs(l->half[1] - pages) <= HALVES_AGREE * pages;
}

/* The colours between two bounds.  Every policy misses at most every
 * page of an overfull colour, as LRU does, so the LRU model explains the
 * misses seen with at least as many colours as there are: an upper bound
 * (36 for 32 on Zen 4's L2, whose policy is not LRU).  No policy misses
 * less than the optimal one, which on a loop of x pages of a colour of A
 * ways loses x (x - A) / (x - 1) a traversal: the model with that gives a
 * lower bound.  The miss chance measured on one colour (miss_function)
 * is no less than the optimal one's, and where it was measured it raises
 * the lower bound (to 24 there): a colour alone, the rest of the level
 * quiet, loses no more of its pages than in a transition where most
 * colours overflow at once.  The count is the one power of two between
 * the bounds (a level's sets are a power of two in every design we know;
 * its ways need not be): with none or two, it is not known (NAN). */
#define BOUNDS_SLACK 0.05
static double
colours_between(double lo, double hi)
{
  double p, found = NAN;

  if (!(lo > 0) || !(hi >= lo * (1 - BOUNDS_SLACK)))
    return NAN;
  for (p = 1; p <= hi * (1 + BOUNDS_SLACK); p *= 2)
    if (p >= lo * (1 - BOUNDS_SLACK)) {
      if (!isnan(found))
        return NAN;
      found = p;
    }
  return found;
}

/* The colours for A ways between the bounds above, for all draws and for
 * each half (L->half: NAN where a half's bounds hold no one count); 0, or
 * -1 if the bounds leave the count open. */
static int
fit_policy(struct level *L, int A)
{
  double w[MAX_PTS], opt[QMAX + 1], e, lo, hi, P, plo = fmax(1, L->fit.PA[A] / 4),
         phi = L->fit.PA[A] * 4 + 2;
  struct fitdata d = { L->fk, NULL, w, L->fn, NULL };
  int i, h;

  for (i = 0; i < L->fn; i++)
    w[i] = 1;
  for (i = 0; i <= QMAX; i++)
    opt[i] = i > A ? (double) (i - A) / (i - 1) : 0;
  for (h = 0; h < 3; h++) {
    d.f = L->ff[h];
    d.q = NULL;
    hi = best_p(&d, A, plo, phi, &e);
    d.q = opt;
    lo = best_p(&d, A, plo, phi, &e);
    if (L->qn) {
      d.q = L->q;
      lo = fmax(lo, best_p(&d, A, plo, phi, &e));
    }
    P = colours_between(lo, hi);
    if (h == 0) {
      L->qlo = lo;
      L->qhi = hi;
      L->qP = P;
    } else
      L->half[h - 1] = P * A;
  }
  return isnan(L->qP) ? -1 : 0;
}

struct shape {
  double y[MAX_PTS], sm[MAX_PTS];
  int first[MAX_PTS], last[MAX_PTS], np, nl;  /* plateaus, then levels */
  struct level L[MAX_LEVELS];
  int settled;
};

/* The levels of the curve so far.  It has settled on memory when its
 * last plateau reaches the end of the scan, spans an octave, and is at
 * least twice the level before it (DRAM is; a spurious flat stretch of L3
 * and page walks was not, and once gave 76 cycles here); with a clock
 * (real or simulated), no DRAM answers in less than 50 ns either.  A
 * scan stops early only on that clock rule: without it, a long L3
 * plateau looks like memory. */
static void
shape_of(struct cc *c, struct shape *S, int need_ns)
{
  int i, *first = S->first, *last = S->last;

  for (i = 0; i < c->npt; i++)
    S->y[i] = mean(&c->pt[i]);
  /* Plateaus on the curve smoothed by medians of three: single points
   * disturbed by the host must not split a level. */
  xray__smooth(S->y, S->sm, (size_t) c->npt);
  /* Every plateau, however many: flat stretches of transitions that the
   * rules below take back must not use up the room for the levels after
   * them (a busy host's curve had seven before memory's, and the scan ran
   * to its deadline looking for it). */
  S->np = c->failed ? 0 : plateaus(S->sm, c->npt, 3, first, last, MAX_PTS);
  /* A plateau shorter than an octave is a level only if it is flat end
   * to end, its draws agree, it is at least twice the one before and 1.5
   * times under the one after (levels are); otherwise it is a stretch of
   * a transition that looked flat (Zen 3's L2 step, not LRU, rises
   * slowly, then jumps, then slowly again; a tree-PLRU level's transition
   * rises 5 % a point for an octave; the shared L3's transition here is a
   * mixture of draws that hit and draws that miss), and its points go
   * back to it. */
  for (i = 1; i < S->np; i++)
    if (last[i] - first[i] + 1 < PER_OCTAVE
        && (fabs(S->sm[last[i]] - S->sm[first[i]]) > FLAT * S->sm[first[i]]
            || plateau_spread(c, first[i], last[i]) > SPREAD_MAX
            || plateau_level(S->sm, first[i], last[i])
               < 2 * plateau_level(S->sm, first[i - 1], last[i - 1])
            || (i + 1 < S->np && 1.5 * plateau_level(S->sm, first[i], last[i])
                                 > plateau_level(S->sm, first[i + 1], last[i + 1])))) {
      memmove(first + i, first + i + 1, (size_t) (S->np - i - 1) * sizeof *first);
      memmove(last + i, last + i + 1, (size_t) (S->np - i - 1) * sizeof *last);
      S->np--, i--;
    }
  S->nl = S->np - 1;
  for (i = 0; i < S->nl && i < MAX_LEVELS; i++) {
    struct level *L = &S->L[i];
    L->lo = plateau_level(S->sm, first[i], last[i]);
    L->hi = plateau_level(S->sm, first[i + 1], last[i + 1]);
    L->a = last[i];
    L->b = first[i + 1];
    L->size = L->line = L->k50 = NAN;
    /* Not a level: merge the plateaus.  A level costs at least 1.5 times
     * the one before it; a rise of 1.23 was Zen 3's L2 losing ways to the
     * host's SMT sibling for a while. */
    if (L->hi < L->lo * 1.5) {
      memmove(first + i + 1, first + i + 2, (size_t) (S->np - i - 2) * sizeof *first);
      last[i] = last[i + 1];
      memmove(last + i + 1, last + i + 2, (size_t) (S->np - i - 2) * sizeof *last);
      S->np--, S->nl--, i--;
    }
  }
  /* More levels than any machine has: keep the first, unsettled. */
  if (S->nl > MAX_LEVELS) {
    S->nl = MAX_LEVELS;
    S->np = MAX_LEVELS + 1;
  }
  S->settled = S->np > 0 && last[S->np - 1] >= c->npt - 3
               && last[S->np - 1] - first[S->np - 1] + 1 >= PER_OCTAVE
               && (S->nl < 1 || S->L[S->nl - 1].hi >= 2 * S->L[S->nl - 1].lo);
  if (S->settled && (need_ns || !c->m->simulated))
    S->settled = c->m->core_hz > 0
                 ? plateau_level(S->sm, first[S->np - 1], last[S->np - 1]) / c->m->core_hz >= 50e-9
                 : !need_ns;
}

/* Where the miss fraction of transition L crosses one half, in pages
 * (log-linear between points): a shared level's effective capacity. */
static double
half_way(const struct cc *c, const struct shape *S, const struct level *L)
{
  double mid = (L->lo + L->hi) / 2;
  int i;

  for (i = L->a; i < L->b + 1 && i + 1 < c->npt; i++)
    if (S->sm[i] < mid && S->sm[i + 1] >= mid) {
      double t = (mid - S->sm[i]) / (S->sm[i + 1] - S->sm[i]);
      return exp(log(c->pt[i].k) + t * (log(c->pt[i + 1].k) - log(c->pt[i].k)));
    }
  return c->pt[L->b].k;
}

/* The pages any L1 holds whatever their colours: one indexed within a
 * page steps sharply at its capacity in pages plus one, from under a
 * quarter of the step to over three quarters in one point; this is the
 * last point below.  (The scan's points skip some counts, so it is at most
 * that capacity.)  0 where the step is gradual: an L1 whose index reaches
 * above the page (64 KB of 4 ways) has colours of its own, and 9 pages of
 * one L2 colour need not fit it. */
static double
l1_pages(const struct cc *c, const struct shape *S)
{
  const struct level *L = &S->L[0];
  double q = (L->hi - L->lo) / 4;
  int j = L->a;

  while (j + 1 <= L->b && S->sm[j + 1] < L->lo + 2 * q)
    j++;
  return S->sm[j] <= L->lo + q && j + 1 < c->npt && S->sm[j + 1] >= L->hi - q ? c->pt[j].k : 0;
}

/* Draws for a point of k pages: up to want, fewer where a draw is long. */
static int
draws_for(const struct cc *c, double k, int want)
{
  double n = (double) FIT_LINES / (ceil(k) * (double) c->lpp);

  return n >= want ? want : n < 4 ? 4 : (int) n;
}

/* Draws for points a..b (but not those marked in skip), up to want each
 * (fewer where a draw is long), in rounds of one draw per point: a phase
 * of the host that lasts a while (other tenants taking most of the
 * shared level for a second) then falls on every point alike, instead of
 * bending the curve at the points it met.  Until the deadline, after
 * which a point with a draw gets no more. */
static void
add_rounds(struct cc *c, int a, int b, const char *skip, int want)
{
  int more = 1, i;

  while (more && !c->failed) {
    more = 0;
    for (i = a; i <= b && !c->failed; i++) {
      struct pt *p = &c->pt[i];
      if ((skip && skip[i]) || p->draws >= draws_for(c, p->k, want))
        continue;
      if (p->draws > 0 && c->deadline > 0 && xray__now() > c->deadline)
        return;
      p->v[p->draws++] = one_draw(c, p->k);
      more = 1;
    }
  }
}

/* Fit one transition: refine its points with more draws (fewer where a
 * draw is long), normalise. */
static void
analyse(struct cc *c, struct level *L, double *y)
{
  double k[MAX_PTS], f[MAX_PTS], w[MAX_PTS], k50 = 0;
  struct fitdata d = { k, f, w, 0, NULL };
  int h, i, a = L->a > 0 ? L->a - 1 : 0, b = L->b + 1 < c->npt ? L->b + 1 : c->npt - 1;

  add_rounds(c, a, b, NULL, FIT_DRAWS);
  for (i = a; i <= b; i++)
    y[i] = mean(&c->pt[i]);
  for (i = a; i <= b; i++) {
    k[d.n] = L->fk[d.n] = c->pt[i].k;
    f[d.n] = L->ff[0][d.n] = (y[i] - L->lo) / (L->hi - L->lo);
    w[d.n] = 1;
    if (!(k50 > 0) && f[d.n] >= 0.5)
      k50 = k[d.n];
    d.n++;
  }
  if (!(k50 > 0))
    k50 = c->pt[L->b].k;
  fit_level(&d, k50, &L->fit);
  L->fit.n = L->fn = d.n;
  L->fit.rms = d.n ? sqrt(L->fit.err / d.n) : HUGE_VAL;
  /* A second view: the same model fitted to the even and to the odd
   * draws of every point, which differ in their pages and (the rounds
   * interleave) in when they ran. */
  for (h = 0; h < 2; h++) {
    struct fit fh;
    for (i = a; i <= b; i++) {
      struct pt half = { c->pt[i].k, { 0 }, 0 };
      int j;
      for (j = h; j < c->pt[i].draws; j += 2)
        half.v[half.draws++] = c->pt[i].v[j];
      f[i - a] = half.draws ? (mean(&half) - L->lo) / (L->hi - L->lo) : f[i - a];
      L->ff[1 + h][i - a] = f[i - a];
    }
    fit_level(&d, k50, &fh);
    L->half[h] = fh.A > 0 ? fh.P * fh.A : NAN;
  }
}

/* More draws for the points that lie on no plateau, and many for those
 * on one shorter than an octave and their neighbours (a flat stretch of
 * a transition, until draws enough show otherwise: Zen 3's L2 step read
 * 26, 26, 27 cycles at 8 draws a point, 21, 22, 27 at 40); returns how
 * many points changed. */
static int
refine_slopes(struct cc *c, const struct shape *S)
{
  char skip[MAX_PTS], many[MAX_PTS];
  int i, p = 0, changed = 0;

  memset(many, 0, sizeof many);
  for (i = 0; i < S->np; i++)
    if (S->last[i] - S->first[i] + 1 < PER_OCTAVE) {
      int j;
      for (j = S->first[i] > 0 ? S->first[i] - 1 : 0; j <= S->last[i] + 1 && j < c->npt; j++)
        many[j] = 1;
    }
  for (i = 0; i < c->npt; i++) {
    while (p < S->np && S->last[p] < i)
      p++;
    skip[i] = (p < S->np && i >= S->first[p] && !many[i])
              || c->pt[i].draws >= draws_for(c, c->pt[i].k, SLOPE_DRAWS);
    changed += !skip[i];
  }
  add_rounds(c, 0, c->npt - 1, skip, SLOPE_DRAWS);
  for (i = 0; i < c->npt; i++) {
    skip[i] = !many[i] || c->pt[i].draws >= draws_for(c, c->pt[i].k, FIT_DRAWS);
    changed += !skip[i];
  }
  add_rounds(c, 0, c->npt - 1, skip, FIT_DRAWS);
  return changed;
}

/* Points from K_MIN pages up, PER_OCTAVE to the octave, until the curve
 * settles on memory, the chain would pass LINES_MAX loads or (on the real
 * machine) SCAN_BUDGETS budgets have passed; a later call goes on from
 * where the last one stopped.  Returns 1 if it can go on. */
static int
scan(struct cc *c, struct shape *S)
{
  double r = pow(2, 1.0 / PER_OCTAVE), x;

  for (; c->npt < MAX_PTS; c->next++) {
    x = K_MIN * pow(r, c->next);
    x = x < 1 ? floor(x * (double) c->lpp + 0.5) / (double) c->lpp : floor(x + 0.5);
    if (ceil(x) * (double) c->lpp > (double) LINES_MAX)
      return 0;
    if (c->npt && x <= c->pt[c->npt - 1].k)
      continue;
    if (c->start > 0 && xray__now() > c->start + SCAN_BUDGETS * c->m->budget) {
      c->out_of_time = 1;
      return 0;
    }
    c->pt[c->npt].k = x;
    c->pt[c->npt].draws = 0;
    add_draws(c, &c->pt[c->npt], SCAN_DRAWS);
    c->npt++;
    if (c->failed)
      return 0;
    if (x >= 16) {
      shape_of(c, S, 1);
      if (S->settled) {
        c->next++;
        return 1;
      }
    }
  }
  return 0;
}

/* Line size of the level whose transition is L, at k pages where it
 * misses: the smallest s at which a load s bytes after a missing one
 * misses too (below the line it hits).  The step must be clean: every
 * offset below it well under the threshold and within LINE_FLAT of the
 * level's step of the smallest, it and the next above the threshold, and
 * the step still there when measured once more.  A prefetcher that brings
 * the neighbouring line along (Zen 3's L2 and DRAM) blurs it, and then the
 * line size is not given. */
#define LINE_FLAT 0.15

/* Cycles per load of pairs s bytes apart at k pages: the median of three
 * chases. */
static double
pairs(struct cc *c, double k, uint64_t s)
{
  double t[3];
  int j;

  char what[48];

  snprintf(what, sizeof what, "chase-pairs/k%g", k);
  for (j = 0; j < 3; j++)
    t[j] = run_chain(c, lay_out(c, k, s), (double) s, what);
  return xray__median(t, 3);
}

static double
line_of(struct cc *c, const struct level *L, double k, char *why, size_t whylen)
{
  double thr = (3 * L->hi + L->lo) / 4, mid = (L->hi + L->lo) / 2, y[16];
  uint64_t s;
  int n = 0, i, j;

  for (s = 8; s < c->page && n < 16; s *= 2, n++) {
    if (c->deadline > 0 && xray__now() > c->deadline) {
      snprintf(why, whylen, "not measured: the time budget (--budget) was spent");
      return NAN;
    }
    y[n] = pairs(c, k, s);
    if (c->failed) {
      snprintf(why, whylen, "%s", c->m->error);
      return NAN;
    }
    if (n >= 1 && y[n] >= thr && y[n - 1] >= thr)
      break;
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
   * not the line (the shared L3 here once read 87, 105, 134, 162, 150
   * and 164 cycles for pairs 8 to 256 bytes apart, then 315 at 512). */
  for (j = 1; j < i; j++)
    if (fabs(y[j] - y[0]) > LINE_FLAT * (L->hi - L->lo)) {
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

/* --- ways by a minimal conflict set ------------------------------------ */

/* The ways of a level, measured without the model: a set of whole pages
 * whose chase misses the level is cut down, a group of pages at a time,
 * while it still misses; what remains, when no single page can go, is
 * A + 1 pages of one colour (A of them fit, whatever the replacement
 * policy; one more misses, under LRU all of them).  This is the eviction-
 * set reduction of Vila, Koepf and Morales (S&P 2019), on pages instead
 * of lines, so that it holds for hashed set indices too.  Where the level
 * below holds A + 1 pages itself the set cannot show the level's misses,
 * and one_colour says so. */
#define CONFLICT_TRIES 5
/* At most this many conflict tests for a level, so that a simulation (no
 * clock) ends too: this host's L2 took 500-1000, a simulated tree-PLRU
 * L2 whose conflicts are too weak to reduce over 7000. */
#define CONFLICT_TESTS 2500
#define CONFLICT_MAX_PAGES 1024

static int
cmp_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

  return x < y ? -1 : x > y;
}

/* A conflict set's time depends on which physical pages it holds, not
 * on its size: its label names the pages (a hash of their numbers in the
 * arena) and the run of the probe (each run has a fresh arena), so that a
 * replay answers only a set that was measured, in the arena it was. */

static void
conflict_label(const struct cc *c, const uint64_t *set, size_t n, char *out, size_t len)
{
  uint64_t h = UINT64_C(14695981039346656037), s[CONFLICT_MAX_PAGES];    /* FNV-1a */
  size_t i;
  int b;

  n = n < CONFLICT_MAX_PAGES ? n : CONFLICT_MAX_PAGES;
  memcpy(s, set, n * sizeof *s);
  qsort(s, n, sizeof *s, cmp_u64);
  for (i = 0; i < n; i++)
    for (b = 0; b < 64; b += 8) {
      h ^= (s[i] >> b) & 0xff;
      h *= UINT64_C(1099511628211);
    }
  snprintf(out, len, "conflict/r%u/%016llx", c->m->run, (unsigned long long) h);
}

/* The median of three chases through set[0..n-1], as the pages that miss
 * the level per traversal: (cost - lo) n / (hi - lo). */
static double
missing(struct cc *c, const struct level *L, const uint64_t *set, size_t n)
{
  char what[64];
  double y[3];
  int j;

  c->tests++;
  conflict_label(c, set, n, what, sizeof what);
  for (j = 0; j < 3; j++)
    y[j] = run_chain(c, lay_pages(c, set, n, c->lpp, 0), (double) n, what);
  return (xray__median(y, 3) - L->lo) * (double) n / (L->hi - L->lo);
}

/* Whether x pages missing per traversal of n pages are a conflict: more
 * than half of the A + 1 that LRU misses (A the model's guess), but never
 * more than a quarter of a miss on every load, nor more than 1.5 pages;
 * and at least 3 % over the level's latency (a next-line prefetcher's
 * drift in the cost of sets that fit, and the noise: up to 1.1 pages at
 * 29 pages here).  A + 1 pages of one colour miss at least one page per
 * traversal whatever the policy (A + 1 lines cannot all stay in A ways),
 * but Zen 3's L2 (not LRU) misses only about 3.7 of 9: with the bar at
 * half of A + 1 the reductions stopped at 26-77 pages of many colours,
 * and with the model's guess of 17 ways a "minimal" set of 18 pages
 * confirmed 17 ways in 5 of 20 runs (what the 18 pages were is not
 * known: every swap there ended the conflict).  With this bar: 8 ways in
 * 8 of 20 runs, unknown in the rest, no other value. */
static int
over_bar(const struct level *L, double x, size_t n, int aguess)
{
  return x > fmin(fmin(0.5 * (aguess + 1), 0.25 * (double) n), fmax(1.5, 0.04 * (double) n))
         && x * (L->hi - L->lo) > 0.03 * L->lo * (double) n;
}

static int
conflicts(struct cc *c, const struct level *L, const uint64_t *set, size_t n, int aguess)
{
  return over_bar(L, missing(c, L, set, n), n, aguess);
}

/* One reduction from start pages; the minimal set's size, or 0.  A test
 * that passes by chance (a burst of the host over all three chases) lets
 * a group go that the conflict needed, and the reduction then stalls at a
 * set that no longer conflicts (22-41 pages, chased again: no page
 * missing, in 8 of 10 stalls here).  So a stalled set is chased again,
 * and while it does not conflict the groups go back, last out first in,
 * at most MAX_BACKTRACKS times. */
#define MAX_BACKTRACKS 12
/* A reduction that has not ended after this many tests for each page it
 * started from is stalled on a set whose conflict comes and goes (an
 * adaptive policy): another from fresh pages does better.  Those that end
 * took 0.3 tests a page on Zen 4's L2; stalled ones ran on to 4.6 and
 * used up the budget. */
#define REDUCE_TESTS_PER_PAGE 1.5
static size_t
reduce(struct cc *c, const struct level *L, uint64_t *set, size_t n, int aguess,
       uint64_t *tmp)
{
  long last = c->tests + (long) (REDUCE_TESTS_PER_PAGE * (double) n) + 50;
  /* Groups: with A + 2 of them, one holds none of a colour's A + 1
   * pages, so a round removes a group in at most A + 2 tests. */
  size_t groups = (size_t) aguess + 2, ng = 0, top = 0;
  uint64_t *gone = malloc(n * sizeof *gone);  /* the pages taken out, in order */
  size_t *gsize = malloc(n * sizeof *gsize);  /* how many each removal took */
  int back = 0;

  if (!gone || !gsize || !conflicts(c, L, set, n, aguess))
    n = 0;
  while (n > 1 && !c->failed) {
    size_t g, removed = 0;
    xray__shuffle(set, n, &c->rng);
    for (g = 0; g < groups && !removed; g++) {
      size_t lo = n * g / groups, hi = n * (g + 1) / groups, m = 0, i;
      for (i = 0; i < n; i++)
        if (i < lo || i >= hi)
          tmp[m++] = set[i];
      if (m > 0 && conflicts(c, L, tmp, m, aguess)) {
        memcpy(gone + top, set + lo, (hi - lo) * sizeof *set);
        top += gsize[ng++] = hi - lo;
        memcpy(set, tmp, m * sizeof *set);
        n = m;
        removed = 1;
      }
    }
    if (groups > n)
      groups = n;
    if (removed)
      ;
    else if (groups >= n) {
      /* No page can go: minimal, if it still conflicts. */
      int popped = 0;
      while (!c->failed && !conflicts(c, L, set, n, aguess)) {
        if (ng == 0 || back++ >= MAX_BACKTRACKS) {
          n = 0;
          break;
        }
        top -= gsize[--ng];
        memcpy(set + n, gone + top, gsize[ng] * sizeof *set);
        n += gsize[ng];
        popped = 1;
      }
      if (!popped)
        break;
      groups = (size_t) aguess + 2;
    } else
      groups = 2 * groups < n ? 2 * groups : n;
    if ((c->deadline > 0 && xray__now() > c->deadline) || c->tests > CONFLICT_TESTS
        || c->tests > last)
      n = 0;
  }
  free(gone);
  free(gsize);
  return n;
}

/* Whether a minimal conflict set is all one colour: every page, swapped
 * for a fresh one (twice, in case the fresh one shares the colour), leaves
 * less than ONE_COLOUR_SHARE of its misses and less than ONE_COLOUR_LEFT
 * pages missing a traversal: A pages of a colour fit (swaps of a true set
 * of 9 here left -0.4 to -0.04 pages).  A set that is minimal only
 * because one page fewer fits the level below (a 12-page L1 before a
 * 10-way L2) has pages of other colours, whose swap leaves it conflicting;
 * so has one whose colours each miss too little to pass conflicts() alone
 * (two colours of A + 1 pages, each under the bar): swapping one of their
 * pages leaves half the misses.  And a set of A + 2 of one colour whose
 * A + 1 missed under the bar for a while (a busy run gave 9 ways) leaves
 * a page or so. */
#define ONE_COLOUR_SHARE 0.35
#define ONE_COLOUR_LEFT 0.5
static int
one_colour(struct cc *c, const struct level *L, uint64_t *set, size_t n, int aguess)
{
  uint64_t *tmp = malloc(n * sizeof *tmp);
  double x = missing(c, L, set, n);
  size_t i, j;
  int ok = tmp != NULL && over_bar(L, x, n, aguess);

  for (i = 0; ok && i < n && !c->failed; i++) {
    int keeps = 1, tries;
    for (tries = 0; tries < 2 && keeps; tries++) {
      uint64_t q;
      double xs;
      do {
        q = xray__rand(&c->rng) % POOL_MAX;
        for (j = 0; j < n && set[j] != q; j++)
          ;
      } while (j < n);
      memcpy(tmp, set, n * sizeof *tmp);
      tmp[i] = q;
      xs = missing(c, L, tmp, n);
      keeps = xs >= fmin(ONE_COLOUR_SHARE * x, ONE_COLOUR_LEFT) || over_bar(L, xs, n, aguess);
    }
    ok = !keeps;
  }
  free(tmp);
  return ok && !c->failed;
}

/* --- the level's miss function, on one colour ---------------------------- */

/* A page of the colour of base[0..A-1] (A pages of one colour, which fit
 * the level), none of have[0..nh-1]: groups of GROUP random pages join the
 * A until one conflicts, then the group is halved down to the page that
 * made it conflict, which must then conflict with the A alone.  Other colours cannot conflict: GROUP pages put A + 1
 * in none of them but by a chance below 1e-6.  1 with the page in *out,
 * 0 if none was found in FIND_GROUPS groups. */
#define GROUP 16
#define FIND_GROUPS 12
static int
same_colour(struct cc *c, const struct level *L, const uint64_t *base, int A,
            const uint64_t *have, size_t nh, uint64_t *out)
{
  uint64_t t[MAX_ASSOC + GROUP], g[GROUP];
  size_t ng, i, h;
  int tries;

  for (tries = 0; tries < FIND_GROUPS && !c->failed; tries++) {
    for (ng = 0; ng < GROUP;) {
      uint64_t p = xray__rand(&c->rng) % POOL_MAX;
      for (i = 0; i < nh && have[i] != p; i++)
        ;
      for (h = 0; i == nh && h < ng && g[h] != p; h++)
        ;
      if (i == nh && h == ng)
        g[ng++] = p;
    }
    memcpy(t, base, (size_t) A * sizeof *t);
    memcpy(t + A, g, ng * sizeof *g);
    if (!conflicts(c, L, t, (size_t) A + ng, A))
      continue;
    /* Halved towards the half that misses more: a threshold on each
     * half alone lets noise send the search down the wrong one. */
    while (ng > 1 && !c->failed) {
      size_t half = ng / 2;
      double x0, x1;
      memcpy(t + A, g, half * sizeof *g);
      x0 = missing(c, L, t, (size_t) A + half);
      memcpy(t + A, g + half, (ng - half) * sizeof *g);
      x1 = missing(c, L, t, (size_t) A + ng - half);
      if (x1 > x0) {
        memmove(g, g + half, (ng - half) * sizeof *g);
        ng -= half;
      } else
        ng = half;
    }
    t[A] = g[0];
    if (!c->failed && conflicts(c, L, t, (size_t) A + 1, A)) {
      *out = g[0];
      return 1;
    }
  }
  return 0;
}

/* The miss function of a level whose minimal conflict set set[0..A] is
 * one colour: the pages missing a traversal of A + 1, A + 2 and A + 3
 * pages of that colour (the extra ones found by same_colour), as q[x], the
 * chance a page misses; past A + 3 the pages that survive a traversal
 * shrink on by the ratio of the last two measured.  Under LRU every page
 * of an overfull colour misses; under other policies some survive (about
 * 4 of 9 in Zen 4's L2), and the LRU model then reads a slower, wider
 * transition as more colours: 36 x 8 pages for 32 x 8.  Returns the
 * occupancies measured (0: none; the model stays LRU). */
#define QMEASURED 3
static int
miss_function(struct cc *c, struct level *L, const uint64_t *set, int A)
{
  uint64_t s[MAX_ASSOC + QMEASURED];
  double surv[QMEASURED], r;
  int n, x;

  if (A + QMEASURED > QMAX || A > MAX_ASSOC)
    return 0;
  memcpy(s, set, (size_t) (A + 1) * sizeof *s);
  for (n = 0; n < QMEASURED && !c->failed; n++) {
    int have = A + 1 + n;
    if (n > 0 && !same_colour(c, L, s, A, s, (size_t) (have - 1), &s[have - 1]))
      break;
    surv[n] = fmin(A, fmax(0, have - missing(c, L, s, (size_t) have)));
  }
  if (n < 2 || c->failed)
    return 0;
  for (x = 0; x <= QMAX; x++)
    L->q[x] = 0;
  r = surv[n - 2] > 0 ? fmin(1, surv[n - 1] / surv[n - 2]) : 0;
  for (x = A + 1; x <= QMAX; x++) {
    double sv = x - A - 1 < n ? surv[x - A - 1] : surv[n - 1] * pow(r, x - A - n);
    L->q[x] = 1 - sv / x;
  }
  return n;
}

/* The level's ways, or 0 with why; and its miss function where the set
 * allows (L->qn). */
static int
ways_of(struct cc *c, struct level *L, double cap_pages, int aguess, double below,
        char *why, size_t whylen)
{
  size_t n0 = (size_t) ceil(cap_pages), got[CONFLICT_TRIES], t, u, nbest = 0;
  uint64_t *set = malloc(3 * n0 * sizeof *set), *best = set ? set + 2 * n0 : NULL;
  int agree = 0, any = 0;
  const char *stop = NULL;

  if (!set || n0 < 2 || n0 > CONFLICT_MAX_PAGES) {
    free(set);
    snprintf(why, whylen, "no conflict test for a level of more than %d pages (it would "
             "take too long)", CONFLICT_MAX_PAGES);
    return 0;
  }
  c->tests = 0;
  /* Until two agree; not after three that all lost their conflict (the
   * level's conflicts are too weak to reduce: tree-PLRU of 10 ways here). */
  for (t = 0; t < CONFLICT_TRIES && agree < 2 && (t < 3 || any); t++) {
    if (c->deadline > 0 && xray__now() > c->deadline) {
      stop = "the time budget (--budget) was spent";
      break;
    }
    if (c->tests > CONFLICT_TESTS) {
      stop = "the conflict tests allowed were spent";
      break;
    }
    draw_pages(c, n0, pool_for(n0));
    memcpy(set, c->pool, n0 * sizeof *set);
    got[t] = reduce(c, L, set, n0, aguess, set + n0);
    for (u = 0, agree = 0; u <= t; u++)
      agree += got[u] > 0 && got[u] == got[t];
    any |= got[t] > 0;
    if (got[t] > 0 && (!nbest || got[t] < nbest)) {
      nbest = got[t];
      memcpy(best, set, nbest * sizeof *set);
    }
  }
  /* Two that agree; else the smallest of those that ended, which must
   * then pass the one-colour test on its own (every page needed, and of
   * one colour), as must the ways it gives the capacity's check: an
   * adaptive policy lets a reduction stop a page early now and then, and
   * two seldom stop on the same count within the budget. */
  if (agree >= 2)
    t--;                                /* the one that agreed: set holds it */
  else if (nbest) {
    memcpy(set, best, nbest * sizeof *set);
    got[t = 0] = nbest;
  } else {
    int len = snprintf(why, whylen, "%s%sno reduction ended (pages:", stop ? stop : "",
                       stop ? " and " : "");
    for (u = 0; u < t && len > 0 && (size_t) len < whylen; u++)
      len += snprintf(why + len, whylen - (size_t) len, " %zu", got[u]);
    if (len > 0 && (size_t) len < whylen)
      snprintf(why + len, whylen - (size_t) len, "; 0: the set stopped conflicting)");
    free(set);
    return 0;
  }
  /* A set that the level below holds whole cannot miss this level by
   * itself: it conflicted because the host's other threads took ways of
   * both for a while (8 pages, for 7 ways, once here). */
  if ((double) got[t] <= below) {
    snprintf(why, whylen, "the minimal conflict set of %zu pages fits the level below "
             "(%.0f pages): other threads held ways, and the level's are not shown", got[t],
             below);
    free(set);
    return 0;
  }
  if (!one_colour(c, L, set, got[t], aguess)) {
    snprintf(why, whylen, "the minimal set of %zu pages failed the one-colour test "
             "(chased again, each page swapped): the level below may hold A + 1 pages, or "
             "other threads held ways", got[t]);
    free(set);
    return 0;
  }
  L->qn = miss_function(c, L, set, (int) got[t] - 1);
  free(set);
  return (int) got[t] - 1;
}

static void
set_unknown2(xray_value *a, xray_value *b, const char *msg, const char *method)
{
  xray__value_unknown(a, msg);
  xray__value_unknown(b, msg);
  snprintf(a->method, sizeof a->method, "%s", method);
  snprintf(b->method, sizeof b->method, "%s", method);
}

static int
caches_run(xray_machine *m, xray_report *r)
{
  struct cc *c = calloc(1, sizeof *c);
  struct shape *S = calloc(1, sizeof *S);
  xray_value *vlev = xray_report_add(r, "XRAY_CACHE_LEVELS",
                                     "data or unified cache levels, L1 included", "levels");
  xray_value *vmem;
  struct level *L;
  int *first, *last, nl, i, j, rc = 0, merged;
  char method[240], why[200], lastwhy[200], msg[200], unsettled[200], os_src[48];
  double os_levels;
  double kmax;

  if (c) {
    c->page = m->page ? m->page : 4096;
    c->lpp = c->page / LINE_STEP;
  }
  if (!c || !S || !vlev || !(c->pool = malloc(POOL_MAX * sizeof *c->pool))
      || !(c->off = malloc(2 * LINES_MAX * sizeof *c->off))
      || !(c->blk = malloc(BLOCK * c->lpp * sizeof *c->blk))) {
    if (c) {
      free(c->pool);
      free(c->off);
    }
    free(c);
    free(S);
    return -1;
  }
  c->m = m;
  c->rng = UINT64_C(0x13198a2e03707344);
  kmax = (double) (LINES_MAX / c->lpp);
  c->start = m->simulated ? 0 : xray__now();
  c->deadline = m->simulated ? 0 : c->start + SLOPE_BUDGETS * m->budget;
  /* Two draws place a point of a gradual transition only roughly, and
   * three rough points in a row can pass for a plateau of their own (a
   * level at 16 cycles inside Zen 3's L2 step): points off the plateaus
   * get more draws, twice, and the levels are found again.  If the curve
   * no longer looks settled then, the scan goes on (at most twice). */
  for (j = 0; j < 3; j++) {
    int more = scan(c, S);
    shape_of(c, S, 0);
    for (i = 0; i < 2 && !c->failed && refine_slopes(c, S); i++)
      shape_of(c, S, 0);
    if (S->settled || c->failed || !more)
      break;
  }
  L = S->L;
  first = S->first;
  last = S->last;
  nl = S->nl;
  /* Refining the transitions may take a budget, up to FIT_BUDGETS in
   * all; later levels get what is left, and the rest is said.  A
   * simulation has no deadline, so that it gives the same answers on any
   * machine. */
  c->deadline = m->simulated ? 0 : fmin(xray__now() + m->budget,
                                        c->start + FIT_BUDGETS * m->budget);
  if (c->failed)
    snprintf(why, sizeof why, "%.190s", m->error);
  else if (nl < 1)
    snprintf(why, sizeof why, "no step in the time per load over %g to %.0f pages", K_MIN, kmax);
  else
    why[0] = 0;
  /* Transition 0 is L1's; each later one is a level of its own. */
  for (i = 1; i < nl && !c->failed; i++) {
    int shared = !m->simulated && i == nl - 1 && S->settled;
    struct level *l = &L[i];
    analyse(c, l, S->y);
    l->ways = l->conflict_ran = l->qn = 0;
    l->wwhy[0] = 0;
    /* The ways by a conflict set, where the model saw a level (not a
     * shared one: other tenants' lines come and go in its sets); then the
     * colours with those ways give the capacity. */
    if (!shared && l->fit.A > 0 && l->fit.rms <= 2 * FIT_RMS) {
      /* Pages up to a page-indexed L1's capacity fit it whatever their
       * colours (l1_pages); beyond L2 the level below has colours of its
       * own. */
      int a = ways_of(c, l, l->fit.P * l->fit.A, l->fit.A, i == 1 ? l1_pages(c, S) : 0,
                      l->wwhy, sizeof l->wwhy);
      l->conflict_ran = l->fit.P * l->fit.A <= CONFLICT_MAX_PAGES;
      /* The ways must also be ones the transition can have come from
       * (under tree-PLRU a reduction once stalled at 147 pages). */
      if (a > 0 && a <= MAX_ASSOC && sqrt(l->fit.errA[a] / l->fit.n) <= 2 * FIT_RMS) {
        l->ways = a;
        l->size = l->fit.PA[a] * a * (double) c->page;
        l->cwhy[0] = 0;
        if (fit_policy(l, a))
          snprintf(l->cwhy, sizeof l->cwhy, "the colours lie between %.0f (%s) and %.0f "
                   "(LRU), which hold no one power of two", l->qlo,
                   l->qn ? "miss chance measured on one colour" : "optimal replacement",
                   l->qhi);
        else
          l->size = l->qP * a * (double) c->page;
      } else if (a > 0)
        snprintf(l->wwhy, sizeof l->wwhy, "a conflict set gave %d ways, which the transition "
                 "does not fit (rms %.3f)", a,
                 a <= MAX_ASSOC ? sqrt(l->fit.errA[a] / l->fit.n) : HUGE_VAL);
    }
    if (l->ways && !isnan(l->size))
      ;
    else if (l->fit.A > 0 && l->fit.rms <= FIT_RMS && l->fit.cap_hi <= CAP_SPREAD * l->fit.cap_lo)
      l->size = l->fit.P * l->fit.A * (double) c->page;
    else if (shared)
      L[i].k50 = half_way(c, S, &L[i]);
    /* The pair test needs k where the level surely misses: into the next
     * plateau, where the model or the half-way point placed the level. */
    if (!isnan(L[i].size) || !isnan(L[i].k50)) {
      int j = first[i + 1] + 2 <= last[i + 1] ? first[i + 1] + 2 : last[i + 1];
      L[i].line = line_of(c, &L[i], c->pt[j].k, L[i].why, sizeof L[i].why);
    }
  }
  /* The step to memory of a shared last level spans a few octaves at
   * most; one that spans more is two levels seen as one (a shared L3 of
   * which other tenants leave little, just past a private L2: its
   * capacity read 4-8 MB for a 1 MB L2 on Zen 4 and Zen 5), and neither
   * the level count nor any capacity from it holds.  (A private level's
   * step may be wider: a 4-way or tree-PLRU L2 under random placement
   * spans up to 14 times; a simulation has no other tenants.)  After a
   * level with a step of its own, such a step is the shared level fading
   * as other tenants take it: only its own capacity is lost. */
  i = nl - 1;
  merged = i >= 1 && !why[0] && !c->failed && !m->simulated && S->settled
           && c->pt[L[i].b].k > MERGED_SPAN * c->pt[L[i].a].k;
  lastwhy[0] = 0;
  if (merged)
    snprintf(i == 1 ? why : lastwhy, sizeof why, "the step after level %d spans %.0f-%.0f "
             "pages, more than a factor %d: %s", i + 1, c->pt[L[i].a].k, c->pt[L[i].b].k,
             MERGED_SPAN, i == 1 ? "two levels may have merged into one (a shared level "
             "other tenants leave little of)" : "a shared level other tenants take, or two "
             "levels seen as one");
  if (why[0])
    xray__value_unknown(vlev, why);
  else if (!S->settled) {
    snprintf(unsettled, sizeof unsettled, "the time per load does not settle on a memory "
             "plateau by %.0f pages (one octave long, twice the level before it%s)%s: levels "
             "beyond the %d found may follow", c->pt[c->npt - 1].k,
             m->simulated ? "" : ", 50 ns or more",
             c->out_of_time ? " within the time budget (--budget)" : "", nl);
    xray__value_unknown(vlev, unsettled);
  } else {
    snprintf(method, sizeof method, "steps in the time per load through %g-%.0f random "
             "whole pages", K_MIN, c->pt[c->npt - 1].k);
    xray__value_measured(vlev, nl, method);
  }
  for (i = 1; i <= (nl - 1 > 2 ? nl - 1 : 2); i++) {
    static const struct {
      const char *suffix, *desc, *unit;
    } fields[4] = { { "SIZE", "capacity", "bytes" }, { "ASSOC", "associativity", "ways" },
                    { "LINE", "line size", "bytes" },
                    { "LATENCY", "load-to-use latency", "cycles" } };
    char name[32], desc[64];
    xray_value *v[4] = { 0 };
    int f, lv = i + 1, have = i < nl && !why[0];
    const struct level *l = &L[i];
    int shared;
    for (f = 0; f < 4; f++) {
      snprintf(name, sizeof name, "XRAY_L%d_%s", lv, fields[f].suffix);
      snprintf(desc, sizeof desc, "L%d cache %s", lv, fields[f].desc);
      v[f] = xray_report_add(r, name, desc, fields[f].unit);
    }
    if (!v[0] || !v[1] || !v[2] || !v[3]) {
      rc = -1;
      break;
    }
    if (!have) {
      const char *no = why[0] ? why : "no such level: the time per load shows no further step";
      for (f = 0; f < 4; f++)
        xray__value_unknown(v[f], no);
      continue;
    }
    shared = !m->simulated && i == nl - 1 && S->settled;
    if (i == nl - 1 && lastwhy[0]) {
      for (f = 0; f < 3; f++)
        xray__value_unknown(v[f], lastwhy);
      goto latency;
    }
    snprintf(method, sizeof method,
             "page-colour model fitted to the transition at %.0f-%.0f pages: %.0f colours "
             "x %d ways x %zu B, rms %.3f (next best: %d ways, error x%.2f)%s",
             c->pt[l->a].k, c->pt[l->b].k, l->fit.P, l->fit.A, c->page, l->fit.rms,
             l->fit.A2, l->fit.err > 0 ? l->fit.err2 / l->fit.err : 0,
             shared ? "; shared last level: what this process gets" : "");
    if (l->ways && !isnan(l->size) && !l->cwhy[0]) {
      snprintf(method, sizeof method, "ways: a minimal conflict set of %d whole pages; "
               "capacity: %.0f colours x %zu B, the power of two between the page-colour "
               "models fitted to the transition at %.0f-%.0f pages with LRU (%.0f colours) "
               "and with %s (%.0f)", l->ways + 1, l->qP, c->page, c->pt[l->a].k,
               c->pt[l->b].k, l->qhi, l->qn ? "the miss chance measured on one colour"
               : "optimal replacement", l->qlo);
      xray__value_measured(v[0], l->size, method);
      xray__value_measured(v[1], l->ways, method);
    } else if (l->ways && !isnan(l->size)) {
      snprintf(method, sizeof method, "ways: a minimal conflict set of %d whole pages; "
               "capacity: the page-colour model with %d ways fitted to the transition at "
               "%.0f-%.0f pages, %.0f colours x %zu B, rms %.3f", l->ways + 1, l->ways,
               c->pt[l->a].k, c->pt[l->b].k, l->fit.PA[l->ways], c->page,
               sqrt(l->fit.errA[l->ways] / l->fit.n));
      xray__value_measured(v[0], l->size, method);
      xray__value_measured(v[1], l->ways, method);
      /* The ways must make a power of two colours of the transition too:
       * a minimal set one page too large (an adaptive policy that let A + 1
       * pages of a colour miss too little for a while) gave 9 for 8. */
      v[0]->unconfirmed = v[1]->unconfirmed = 1;
      snprintf(v[0]->method + strlen(v[0]->method), sizeof v[0]->method - strlen(v[0]->method),
               "; not confirmed: %s", l->cwhy);
      snprintf(v[1]->method, sizeof v[1]->method, "%s", v[0]->method);
    } else if (!isnan(l->size)) {
      xray__value_measured(v[0], l->size, method);
      v[0]->effective = shared;
      /* A private level's capacity from the model alone, with no conflict
       * set to confirm its ways, is not confirmed: a neighbour's share of
       * the level moves the whole transition (589824 for a 1 MB L2 on Zen
       * 4, both halves of the draws alike). */
      v[0]->unconfirmed = !shared;
      if (l->ways) {
        snprintf(msg, sizeof msg, "a minimal conflict set of %d whole pages", l->ways + 1);
        xray__value_measured(v[1], l->ways, msg);
      } else if (!l->conflict_ran && l->fit.err2 >= WAYS_SEPARATION * l->fit.err) {
        /* The model's ways alone only where no conflict test could run: one
         * that ran and failed has seen what the model did not (tree-PLRU
         * fitted 2 ways, clearly, for 10). */
        xray__value_measured(v[1], l->fit.A, method);
        v[1]->effective = shared;
      } else {
        if (l->conflict_ran)
          snprintf(msg, sizeof msg, "%s", l->wwhy);
        else
          snprintf(msg, sizeof msg, "%s%sthe page-colour model fits %d and %d ways about "
                   "equally (error x%.2f), with the same capacity", l->wwhy,
                   l->wwhy[0] ? "; " : "", l->fit.A, l->fit.A2, l->fit.err2 / l->fit.err);
        xray__value_unknown(v[1], msg);
        snprintf(v[1]->method, sizeof v[1]->method, "%s", method);
      }
    } else {
      if (l->fit.rms > FIT_RMS)
        /* Capacity and ways come from one model: if it does not explain
         * the transition, it has not identified the level. */
        snprintf(msg, sizeof msg, "the page-colour model does not fit the transition at "
                 "%.0f-%.0f pages (rms %.3f > %.2f)", c->pt[l->a].k, c->pt[l->b].k,
                 l->fit.rms, FIT_RMS);
      else
        snprintf(msg, sizeof msg, "the page-colour models that fit about equally disagree "
                 "on the capacity (%.0f-%.0f pages): the level is not identified",
                 l->fit.cap_lo, l->fit.cap_hi);
      set_unknown2(v[0], v[1], msg, method);
      if (!isnan(l->k50)) {
        /* A shared level whose ways other tenants take is no geometry to
         * fit; what this process gets of it is where half its loads miss. */
        snprintf(method, sizeof method, "effective: half the loads miss at %.0f pages "
                 "(transition %.0f-%.0f pages); shared last level, %s", l->k50,
                 c->pt[l->a].k, c->pt[l->b].k, msg);
        xray__value_measured(v[0], floor(l->k50 + 0.5) * (double) c->page, method);
        v[0]->effective = 1;
      }
    }
    if (!isnan(l->size) && !halves_agree(l, l->size / (double) c->page)) {
      /* Two halves of the draws that disagree saw the level change under
       * them (a neighbour's share of it moving): not confirmed. */
      size_t len = strlen(v[0]->method);
      v[0]->unconfirmed = 1;
      snprintf(v[0]->method + len, sizeof v[0]->method - len, "; the even and odd draws fit "
               "%.0f and %.0f pages, not both within %.0f %% of it", l->half[0], l->half[1],
               100 * HALVES_AGREE);
    }
    /* The level holds its capacity: misses begin after its own plateau
     * and are all but complete where the next level's begins. */
    if (!isnan(l->size) && !v[0]->unconfirmed
        && (l->size / (double) c->page < c->pt[last[i]].k
            || l->size / (double) c->page > c->pt[first[i + 1]].k)) {
      size_t len = strlen(v[0]->method);
      v[0]->unconfirmed = 1;
      snprintf(v[0]->method + len, sizeof v[0]->method - len, "; not confirmed: %.0f pages "
               "is not between the end of its plateau (%.0f) and the start of the next (%.0f)",
               l->size / (double) c->page, c->pt[last[i]].k, c->pt[first[i + 1]].k);
    }
    if (isnan(l->size) && isnan(l->k50))
      xray__value_unknown(v[2], "needs the level's capacity, which the model did not establish");
    else if (isnan(l->line))
      xray__value_unknown(v[2], l->why);
    else
      xray__value_measured(v[2], l->line, "pairs of loads s bytes apart in each page, beyond "
                           "the level");
  latency:
    snprintf(method, sizeof method, "plateau of the time per load at %.0f-%.0f pages",
             c->pt[first[i]].k, c->pt[last[i]].k);
    if (!S->settled && last[i] - first[i] + 1 < PER_OCTAVE) {
      /* Short flat stretches of an unsettled curve are not levels one
       * can trust (L3 came out 17-37 cycles across runs here). */
      snprintf(msg, sizeof msg, "the plateau at %.0f-%.0f pages is shorter than an octave "
               "on a curve that does not settle", c->pt[first[i]].k, c->pt[last[i]].k);
      xray__value_unknown(v[3], msg);
      continue;
    }
    xray__value_measured(v[3], floor(l->lo + 0.5), method);
    v[3]->exact = l->lo;
    if (m->core_hz > 0)
      v[3]->ns = l->lo / m->core_hz * 1e9;
  }
  /* A step is a level of its own when the level's capacity is confirmed
   * (its ways by a conflict set, the colours a power of two between the
   * model's bounds, inside its own transition): every level but the last
   * (which may be shared and fade) must be, or the count may hold one
   * level in two steps (a shared L3 that other tenants take in two stages
   * read as an L4 on Zen 5, where the OS gave no level count to check).
   * Where the OS's cache topology gives the same count, that is the second
   * view (not on a simulated machine, whose OS view is the truth). */
  if (vlev && vlev->source == XRAY_SOURCE_MEASURED
      && (m->simulated || xray__os_view(m, "XRAY_CACHE_LEVELS", &os_levels, os_src,
                                        sizeof os_src) != 0 || os_levels != nl))
    for (i = 1; i < nl - 1; i++) {
      char name[32];
      const xray_value *v;
      snprintf(name, sizeof name, "XRAY_L%d_SIZE", i + 1);
      if (!(v = xray_report_get(r, name)) || v->source != XRAY_SOURCE_MEASURED
          || v->unconfirmed) {
        size_t len = strlen(vlev->method);
        vlev->unconfirmed = 1;
        snprintf(vlev->method + len, sizeof vlev->method - len, "; not confirmed: the L%d "
                 "capacity is not, so its step may not be one level", i + 1);
        break;
      }
    }
  vmem = xray_report_add(r, "XRAY_MEM_LATENCY", "memory load-to-use latency", "cycles");
  if (vmem) {
    /* Memory's plateau holds when the levels before it merged. */
    if (why[0] && !merged)
      xray__value_unknown(vmem, why);
    else if (!S->settled)
      xray__value_unknown(vmem, unsettled);
    else {
      /* The end of the scan: the plateau may still rise with the tail of
       * the last transition. */
      double lat = xray__median(S->sm + c->npt - 3, 3);
      snprintf(method, sizeof method, "plateau of the time per load at %.0f-%.0f pages "
               "(whole pages, large pages)", c->pt[first[nl]].k, c->pt[last[nl]].k);
      xray__value_measured(vmem, floor(lat + 0.5), method);
      vmem->exact = lat;
      if (m->core_hz > 0)
        vmem->ns = lat / m->core_hz * 1e9;
    }
  }
  free(c->pool);
  free(c->off);
  free(c->blk);
  free(c);
  free(S);
  return rc;
}

const xray_probe xray__probe_caches = {
  "caches", "capacity, associativity, line and latency of every cache level beyond L1, and "
  "memory latency", caches_run
};
