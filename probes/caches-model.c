/* The caches probe's page-colour model (see caches.c): the chance that a
 * load misses a level of P colours of A ways, under LRU, under a measured
 * replacement policy and under the optimal one, and its fit to a
 * transition. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* lgamma_r */
#endif
#include "caches.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* log(Gamma(x)).  lgamma also writes the sign of Gamma(x) to the global
 * signgam, where two threads fitting at once would race; lgamma_r gives
 * the same value and keeps the sign in the caller's int.  Where it is not
 * known to exist, lgamma under a lock. */
static double
log_gamma(double x)
{
#if defined(__linux__) || defined(__GLIBC__) || defined(__FreeBSD__) || defined(__NetBSD__)        \
    || defined(__OpenBSD__)
  int sign;

  return lgamma_r(x, &sign);
#else
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  double y;

  pthread_mutex_lock(&lock);
  y = lgamma(x);
  pthread_mutex_unlock(&lock);
  return y;
#endif
}

/* --- the model ----------------------------------------------------------- */

/* Pr[X = x] for X ~ Binomial(n, 1/P), by logarithms: lgn is log_gamma(n +
 * 1), lgx log_gamma(x + 1), lgnx log_gamma(n - x + 1), lp log(1 / P), lq
 * log1p(-1 / P).  A fit evaluates the model thousands of times over the
 * same points (n) and the same candidate P, so what depends on them alone
 * is computed once, and a fit keeps the log-gammas of its points in a
 * table (struct lgtab): the same numbers, so the same fit, at a fraction
 * of the cost. */
static double
binomial_at(double n, double x, double lgn, double lgx, double lgnx, double lp, double lq)
{
  return exp(lgn - lgx - lgnx + x * lp + (n - x) * lq);
}

/* The log-gammas of a fit's points: lgn[i] = log_gamma(n + 1) and nx[i][x] =
 * log_gamma(n - x + 1) for n = k[i] - 1 and x <= n, x < QMAX; lgx[x] =
 * log_gamma(x + 1). */
struct lgtab {
  double lgx[QMAX], lgn[MAX_PTS], nx[MAX_PTS][QMAX];
};

static struct lgtab *
lgtab_new(const struct fitdata *d)
{
  struct lgtab *t = malloc(sizeof *t);
  int i, x;

  if (!t)
    return NULL;
  for (x = 0; x < QMAX; x++)
    t->lgx[x] = log_gamma((double) x + 1);
  for (i = 0; i < d->n && i < MAX_PTS; i++) {
    double n = d->k[i] - 1;
    t->lgn[i] = log_gamma(n + 1);
    for (x = 0; x < QMAX && x <= n; x++)
      t->nx[i][x] = log_gamma(n - x + 1);
  }
  return t;
}

/* The chance under LRU, with point i's row of t (or t NULL). */
static double
colour_miss_t(double k, double P, int A, const struct lgtab *t, int i)
{
  double n = k - 1, below = 0, lgn, lp, lq;
  int x;

  if (P <= 1)
    return k - 1 >= A ? 1 : 0;
  if (n < A)
    return 0;
  lgn = t ? t->lgn[i] : log_gamma(n + 1);
  lp = log(1 / P);
  lq = log1p(-1 / P);
  for (x = 0; x < A; x++)
    below += t && x < QMAX ? binomial_at(n, x, lgn, t->lgx[x], t->nx[i][x], lp, lq)
                           : binomial_at(n, x, lgn, log_gamma(x + 1), log_gamma(n - x + 1), lp, lq);
  return below >= 1 ? 0 : 1 - below;
}

double
xray__colour_miss(double k, double P, int A)
{
  return colour_miss_t(k, P, A, NULL, 0);
}

/* The same under the level's own replacement policy: q[x] is the chance
 * that a page misses a traversal when its colour holds x pages in all
 * (0 up to A; under LRU 1 beyond), for x up to QMAX, and 1 past it. */
static double
colour_miss_q(double k, double P, const double *q, const struct lgtab *t, int i)
{
  double n = k - 1, sum = 0, cdf = 0, lgn, lp, lq;
  int j;

  if (P <= 1)
    return n + 1 <= QMAX ? q[(int) (n + 1)] : 1;
  lgn = t ? t->lgn[i] : log_gamma(n + 1);
  lp = log(1 / P);
  lq = log1p(-1 / P);
  for (j = 0; j <= n && j + 1 <= QMAX; j++) {
    double pm = t ? binomial_at(n, j, lgn, t->lgx[j], t->nx[i][j], lp, lq)
                  : binomial_at(n, j, lgn, log_gamma(j + 1), log_gamma(n - j + 1), lp, lq);
    sum += pm * q[j + 1];
    cdf += pm;
  }
  return sum + fmax(0, 1 - cdf);
}

static double
sse(const struct fitdata *d, double P, int A)
{
  double s = 0;
  int i;

  for (i = 0; i < d->n; i++) {
    const struct lgtab *t = i < MAX_PTS ? d->lg : NULL;
    double m = d->q ? colour_miss_q(d->k[i], P, d->q, t, i) : colour_miss_t(d->k[i], P, A, t, i);
    double e = m - d->f[i];
    s += d->w[i] * e * e;
  }
  return s;
}

/* Best integer P for this A: golden section on log P, then the integers
 * around it. */
static double
caches_best_p(const struct fitdata *d, int A, double plo, double phi, double *err)
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

void
caches_fit_level(const struct fitdata *given, double k50, struct fit *out)
{
  double *err = out->errA, *P = out->PA;
  struct fitdata fd = *given;
  const struct fitdata *d = &fd;
  struct lgtab *t = fd.lg ? NULL : lgtab_new(&fd);
  int A;

  if (t)
    fd.lg = t;
  out->err = out->err2 = HUGE_VAL;
  out->A = out->A2 = 0;
  out->P = NAN;
  for (A = 1; A <= MAX_ASSOC; A++) {
    double e;
    P[A] = caches_best_p(d, A, fmax(1, k50 / A / 4), k50 / A * 4 + 2, &e);
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
  free(t);
}

/* The colours between two bounds.  Every policy misses at most every
 * page of an overfull colour, as LRU does, so the LRU model explains the
 * misses seen with at least as many colours as there are: an upper bound
 * (36 for 32 on Zen 4's L2, whose policy is not LRU).  No policy misses
 * less than the optimal one, which on a loop of x pages of a colour of A
 * ways loses x (x - A) / (x - 1) a traversal: the model with that gives a
 * lower bound.  The count is the one power of two between the bounds (a
 * level's sets are a power of two in every design we know; its ways need
 * not be): with none or two, it is not known (NAN).  Where two lie
 * between them, the miss chance measured on one colour (miss_function)
 * raises the lower bound (to 24 for Zen 4's L2): it is no less than the
 * optimal one's.  It is not a sound bound everywhere: a policy that
 * adapts to the level's misses as a whole (set dueling) can lose fewer
 * pages of each overfull colour in a transition, where most colours
 * overflow at once, than of one colour alone, and the bound then passes
 * the true count.  With the upper bound below twice the count, that
 * leaves none between them (unknown), never a wrong one; so it is asked
 * only where the sound bounds leave the choice open. */
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
int
caches_fit_policy(struct level *L, int A)
{
  double w[MAX_PTS], opt[QMAX + 1], e, lo, hi, P, plo = fmax(1, L->fit.PA[A] / 4),
         phi = L->fit.PA[A] * 4 + 2;
  struct fitdata d = { L->fk, NULL, w, L->fn, NULL, NULL };
  struct lgtab *t = lgtab_new(&d);
  int i, h, used;

  d.lg = t;
  for (i = 0; i < L->fn; i++)
    w[i] = 1;
  for (i = 0; i <= QMAX; i++)
    opt[i] = i > A ? (double) (i - A) / (i - 1) : 0;
  for (h = 0; h < 3; h++) {
    d.f = L->ff[h];
    d.q = NULL;
    hi = caches_best_p(&d, A, plo, phi, &e);
    d.q = opt;
    lo = caches_best_p(&d, A, plo, phi, &e);
    P = colours_between(lo, hi);
    used = isnan(P) && L->qn;
    if (used) {
      d.q = L->q;
      lo = fmax(lo, caches_best_p(&d, A, plo, phi, &e));
      P = colours_between(lo, hi);
    }
    if (h == 0) {
      L->qused = used;
      L->qlo = lo;
      L->qhi = hi;
      L->qP = P;
    } else
      L->half[h - 1] = P * A;
  }
  free(t);
  return isnan(L->qP) ? -1 : 0;
}
