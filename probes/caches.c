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
 * So the colour is modelled instead of controlled.  The probe chases one
 * line in each of k pages, all at the same offset in their page, visiting
 * the pages in random order.  Within a level whose sets span P pages (P
 * page colours: P = C / (A * page)), the line of a page lands in the set
 * its colour selects, at random.  A set that receives more than A of the k
 * lines thrashes (LRU, cyclic order), so the fraction of loads that miss
 * the level is the chance that a load's set holds A others:
 *
 *     F(k) = Pr[X >= A],  X ~ Hypergeometric(N - 1, N/P - 1, k - 1)
 *
 * for k pages drawn from a pool of N (binomial as N grows).  The mean time
 * per load, averaged over several random draws of pages, rises from the
 * level's latency to the next level's as lo + (hi - lo) F(k); fitting P
 * and A to the measured transition gives the associativity and the
 * capacity C = P * A * page.  The same layout puts every line in one L1
 * set, so a level's transition is never hidden by the level below: L1
 * itself shows as the step at k = A1 + 1 (P = 1).
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

#define K_MIN 2
#define K_MAX 32768
#define PER_OCTAVE 6
#define POOL_MIN 8192
#define POOL_MAX 65536
#define MAX_LEVELS 6                    /* transitions, L1 included */
#define MAX_ASSOC 64
#define SCAN_DRAWS 2
#define FIT_DRAWS 40

struct pt {
  double k, sum;                        /* sum of per-draw cycles */
  int draws;
};

struct cc {
  xray_machine *m;
  size_t page;
  uint64_t rng;
  uint64_t *pool, *off;
  struct pt pt[128];
  int npt;
  int failed;
  double deadline;                      /* refinement stops adding draws after it */
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

static double
run_chain(struct cc *c, size_t n, double k)
{
  struct xray__chase ch = { c->off, n, XRAY_ARENA_HUGE };
  double y = c->m->ops->chase(c->m, &ch);

  xray__trace(c->m, "caches", "chase-pages", k, y);
  if (isnan(y))
    c->failed = 1;
  return y;
}

/* One line at the same offset in each of k random pages, less what the
 * TLB costs for those pages (under nested paging a guest's huge pages are
 * still translated in 4 KB pieces, so the TLB steps at its own sizes). */
static double
one_draw(struct cc *c, size_t k)
{
  size_t i, pool = pool_for(k);
  uint64_t o = (xray__rand(&c->rng) % (c->page / 64)) * 64;
  double y, tlb = 0;

  draw_pages(c, k, pool);
  for (i = 0; i < k; i++)
    c->off[i] = c->pool[i] * c->page + o;
  xray__shuffle(c->off, k, &c->rng);
  y = run_chain(c, k, (double) k);
  if (k > 2)
    tlb = xray__tlb_cost(c->m, c->off, k, c->pool, XRAY_ARENA_HUGE, &c->rng, "caches-tlb",
                         NULL);
  return isnan(tlb) ? y : y - fmax(0, tlb);
}

/* Loads in pairs: o then o + s in each of k random pages. */
static double
pair_draw(struct cc *c, size_t k, uint64_t s)
{
  size_t i, pool = pool_for(k);
  uint64_t o = 0;
  double y, tlb;

  draw_pages(c, k, pool);
  for (i = 0; i < k; i++) {
    c->off[2 * i] = c->pool[i] * c->page + o;
    c->off[2 * i + 1] = c->pool[i] * c->page + o + s;
  }
  y = run_chain(c, 2 * k, (double) (2 * k));
  tlb = xray__tlb_cost(c->m, c->off, k, c->pool, XRAY_ARENA_HUGE, &c->rng, "caches-tlb", NULL);
  return isnan(tlb) ? y : y - fmax(0, tlb) / 2;
}

static void
add_draws(struct cc *c, struct pt *p, int want)
{
  while (p->draws < want && !c->failed && !(p->draws > 0 && c->deadline > 0
                                            && xray__now() > c->deadline)) {
    p->sum += one_draw(c, (size_t) p->k);
    p->draws++;
  }
}

static double
mean(const struct pt *p)
{
  return p->sum / p->draws;
}

/* --- the model ----------------------------------------------------------- */

static double
lchoose(double n, double k)
{
  return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1);
}

double
xray__colour_miss(double k, double P, int A, double N)
{
  double K = N / P - 1, pop = N - 1, n = k - 1, below = 0;
  int x;

  if (P <= 1)
    return k - 1 >= A ? 1 : 0;
  if (n < A)
    return 0;
  if (K < 0)
    K = 0;
  for (x = 0; x < A; x++) {
    if (x > K || n - x > pop - K || x > n)
      continue;
    below += exp(lchoose(K, x) + lchoose(pop - K, n - x) - lchoose(pop, n));
  }
  return below >= 1 ? 0 : 1 - below;
}

struct fitdata {
  const double *k, *f, *w;
  int n;
};

static double
sse(const struct fitdata *d, double P, int A)
{
  double s = 0;
  int i;

  for (i = 0; i < d->n; i++) {
    double e = xray__colour_miss(d->k[i], P, A, (double) pool_for((size_t) d->k[i])) - d->f[i];
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
};

/* A fit is trusted when it explains the transition within this RMS miss
 * fraction, and its associativity when the next best A fits this much
 * worse. */
#define FIT_RMS 0.08
#define FIT_SEPARATION 1.5

static void
fit_level(const struct fitdata *d, double k50, struct fit *out)
{
  int A;

  out->err = out->err2 = HUGE_VAL;
  out->A = out->A2 = 0;
  out->P = NAN;
  for (A = 1; A <= MAX_ASSOC; A++) {
    double e, P = best_p(d, A, fmax(1, k50 / A / 4), k50 / A * 4 + 2, &e);
    if (e < out->err) {
      out->err2 = out->err;
      out->A2 = out->A;
      out->err = e;
      out->A = A;
      out->P = P;
    } else if (e < out->err2) {
      out->err2 = e;
      out->A2 = A;
    }
  }
}

/* --- the curve ----------------------------------------------------------- */

/* Plateaus: runs of at least three points whose neighbours differ by at
 * most FLAT.  Returns their count; first/last point of each. */
#define FLAT 0.06
static int
plateaus(const double *y, int n, int *first, int *last, int max)
{
  int i = 0, np = 0;

  while (i < n && np < max) {
    int j = i;
    while (j + 1 < n && fabs(y[j + 1] - y[j]) <= FLAT * y[j])
      j++;
    /* A plateau must not drift: its ends within 2 FLAT. */
    while (j - i >= 2 && fabs(y[j] - y[i]) > 2 * FLAT * y[i])
      j--;
    if (j - i >= 2) {
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

struct level {
  double lo, hi;                        /* latency of this level, of the next */
  int a, b;                             /* transition: last lo point, first hi point */
  struct fit fit;
  double size, line;
};

/* Fit one transition: refine its points with more draws, normalise. */
static void
analyse(struct cc *c, struct level *L, double *y)
{
  double k[128], f[128], w[128], k50 = 0;
  struct fitdata d = { k, f, w, 0 };
  int i, a = L->a > 0 ? L->a - 1 : 0, b = L->b + 1 < c->npt ? L->b + 1 : c->npt - 1;

  for (i = a; i <= b; i++) {
    add_draws(c, &c->pt[i], FIT_DRAWS);
    y[i] = mean(&c->pt[i]);
  }
  for (i = a; i <= b; i++) {
    k[d.n] = c->pt[i].k;
    f[d.n] = (y[i] - L->lo) / (L->hi - L->lo);
    w[d.n] = 1;
    if (!(k50 > 0) && f[d.n] >= 0.5)
      k50 = k[d.n];
    d.n++;
  }
  if (!(k50 > 0))
    k50 = c->pt[L->b].k;
  fit_level(&d, k50, &L->fit);
  L->fit.rms = d.n ? sqrt(L->fit.err / d.n) : HUGE_VAL;
}

static void
scan(struct cc *c)
{
  double r = pow(2, 1.0 / PER_OCTAVE), x;
  int i;

  c->npt = 0;
  for (i = 0; (x = floor(K_MIN * pow(r, i) + 0.5)) <= K_MAX && c->npt < 128; i++) {
    if (c->npt && x <= c->pt[c->npt - 1].k)
      continue;
    c->pt[c->npt].k = x;
    c->pt[c->npt].sum = 0;
    c->pt[c->npt].draws = 0;
    add_draws(c, &c->pt[c->npt], SCAN_DRAWS);
    c->npt++;
    if (c->failed)
      return;
  }
}

/* Line size of the level whose transition is L: the smallest s at which
 * a pair of loads s apart costs two misses. */
static double
line_of(struct cc *c, const struct level *L)
{
  size_t k = (size_t) c->pt[L->b].k;
  double thr = (3 * L->hi + L->lo) / 4;
  uint64_t s;

  for (s = 8; s < c->page; s *= 2) {
    double y = (pair_draw(c, k, s) + pair_draw(c, k, s)) / 2;
    if (c->failed)
      return NAN;
    if (y >= thr)
      return (double) s;
  }
  return NAN;
}

static int
caches_run(xray_machine *m, xray_report *r)
{
  struct cc *c = calloc(1, sizeof *c);
  xray_value *vlev = xray_report_add(r, "XRAY_CACHE_LEVELS",
                                     "data or unified cache levels, L1 included", "levels");
  xray_value *vmem;
  struct level L[MAX_LEVELS];
  double y[128];
  int first[MAX_LEVELS + 1], last[MAX_LEVELS + 1], np, nl, i, rc = 0, settled;
  char method[200], why[200], msg[200], unsettled[200];
  double sm[128];

  if (!c || !vlev || !(c->pool = malloc(POOL_MAX * sizeof *c->pool))
      || !(c->off = malloc(2 * K_MAX * sizeof *c->off))) {
    if (c) {
      free(c->pool);
      free(c);
    }
    return -1;
  }
  c->m = m;
  c->page = m->page ? m->page : 4096;
  c->rng = UINT64_C(0x13198a2e03707344);
  scan(c);
  for (i = 0; i < c->npt; i++)
    y[i] = mean(&c->pt[i]);
  /* Plateaus on the curve smoothed by medians of three: single points
   * disturbed by the host must not split a level. */
  xray__smooth(y, sm, (size_t) c->npt);
  np = c->failed ? 0 : plateaus(sm, c->npt, first, last, MAX_LEVELS + 1);
  nl = np - 1;
  for (i = 0; i < nl; i++) {
    L[i].lo = plateau_level(sm, first[i], last[i]);
    L[i].hi = plateau_level(sm, first[i + 1], last[i + 1]);
    L[i].a = last[i];
    L[i].b = first[i + 1];
    L[i].size = L[i].line = NAN;
    if (L[i].hi < L[i].lo * 1.2) {      /* not a level: merge the plateaus */
      memmove(first + i + 1, first + i + 2, (size_t) (np - i - 2) * sizeof *first);
      last[i] = last[i + 1];
      memmove(last + i + 1, last + i + 2, (size_t) (np - i - 2) * sizeof *last);
      np--, nl--, i--;
    }
  }
  /* The curve settles on memory: a last plateau that reaches the end of
   * the scan, spans an octave, and is at least twice the level before it
   * (DRAM is; a spurious flat stretch of L3 and page walks was not, and
   * once gave 76 cycles here).  And no DRAM answers in less than 50 ns. */
  settled = np > 0 && last[np - 1] >= c->npt - 3 && last[np - 1] - first[np - 1] + 1 >= PER_OCTAVE
            && (nl < 1 || L[nl - 1].hi >= 2 * L[nl - 1].lo)
            && (m->simulated || !(m->core_hz > 0)
                || plateau_level(sm, first[np - 1], last[np - 1]) / m->core_hz >= 50e-9);
  /* Refining the transitions may take this long; later levels get what
   * is left, and the rest is said. */
  c->deadline = xray__now() + m->budget;
  if (c->failed)
    snprintf(why, sizeof why, "%.190s", m->error);
  else if (nl < 1)
    snprintf(why, sizeof why, "no step in the time per load over 2 to %d pages", K_MAX);
  else
    why[0] = 0;
  /* Transition 0 is L1's (k = A1 + 1); each later one is a level of its own. */
  for (i = 1; i < nl && !c->failed; i++) {
    analyse(c, &L[i], y);
    if (L[i].fit.A > 0 && L[i].fit.rms <= FIT_RMS
        && L[i].fit.err2 >= FIT_SEPARATION * L[i].fit.err)
      L[i].size = L[i].fit.P * L[i].fit.A * (double) c->page;
    /* The pair test needs k where the level surely misses: only where
     * the model placed the level's transition. */
    if (!isnan(L[i].size))
      L[i].line = line_of(c, &L[i]);
  }
  if (why[0])
    xray__value_unknown(vlev, why);
  else if (!settled) {
    snprintf(unsettled, sizeof unsettled, "the time per load does not settle on a memory "
             "plateau by %d pages (one octave long, twice the level before it%s): levels "
             "beyond the %d found may follow", K_MAX, m->simulated ? "" : ", 50 ns or more",
             nl);
    xray__value_unknown(vlev, unsettled);
  } else {
    snprintf(method, sizeof method,
             "steps in the time per load of one line in each of 2-%d random pages", K_MAX);
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
    {
      const struct level *l = &L[i];
      int shared = !m->simulated && i == nl - 1 && settled;
      snprintf(method, sizeof method,
               "page-colour model fitted to the transition at %.0f-%.0f pages: %.0f colours "
               "x %d ways x %zu B, rms %.3f (next best: %d ways, error x%.2f)%s",
               c->pt[l->a].k, c->pt[l->b].k, l->fit.P, l->fit.A, c->page, l->fit.rms,
               l->fit.A2, l->fit.err > 0 ? l->fit.err2 / l->fit.err : 0,
               shared ? "; shared last level: what this process gets" : "");
      if (l->fit.rms > FIT_RMS) {
        snprintf(msg, sizeof msg, "the page-colour model does not fit the transition at "
                 "%.0f-%.0f pages (rms %.3f > %.2f): the level is not indexed by page "
                 "colour as modelled", c->pt[l->a].k, c->pt[l->b].k, l->fit.rms, FIT_RMS);
        xray__value_unknown(v[0], msg);
        xray__value_unknown(v[1], msg);
        snprintf(v[0]->method, sizeof v[0]->method, "%s", method);
        snprintf(v[1]->method, sizeof v[1]->method, "%s", method);
      } else if (l->fit.err2 < FIT_SEPARATION * l->fit.err) {
        /* Capacity and ways come from one model: if it cannot tell its
         * ways apart it has not identified the level (on Zen 3, whose L2
         * index is not plain page colour, such fits land at 5 MB). */
        snprintf(msg, sizeof msg, "the colour model fits %d and %d ways about equally "
                 "(error x%.2f): the level is not identified", l->fit.A, l->fit.A2,
                 l->fit.err2 / l->fit.err);
        xray__value_unknown(v[0], msg);
        xray__value_unknown(v[1], msg);
        snprintf(v[0]->method, sizeof v[0]->method, "%s", method);
        snprintf(v[1]->method, sizeof v[1]->method, "%s", method);
      } else {
        xray__value_measured(v[0], l->size, method);
        xray__value_measured(v[1], l->fit.A, method);
      }
      v[0]->effective = v[1]->effective = shared;
      if (isnan(l->size))
        xray__value_unknown(v[2], "needs the level's capacity, which the model did not establish");
      else if (isnan(l->line))
        xray__value_unknown(v[2], "no pair offset below a page made both loads miss");
      else
        xray__value_measured(v[2], l->line, "pairs of loads s bytes apart in each page, beyond the level");
      snprintf(method, sizeof method, "plateau of the time per load at %.0f-%.0f pages",
               c->pt[first[i]].k, c->pt[last[i]].k);
      if (!settled && last[i] - first[i] + 1 < PER_OCTAVE) {
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
  }
  vmem = xray_report_add(r, "XRAY_MEM_LATENCY", "memory load-to-use latency", "cycles");
  if (vmem) {
    if (why[0])
      xray__value_unknown(vmem, why);
    else if (!settled)
      xray__value_unknown(vmem, unsettled);
    else {
      double lat = L[nl - 1].hi;
      snprintf(method, sizeof method,
               "plateau of the time per load at %.0f-%.0f pages (one line per page, large "
               "pages)", c->pt[first[nl]].k, c->pt[last[nl]].k);
      xray__value_measured(vmem, floor(lat + 0.5), method);
      vmem->exact = lat;
      if (m->core_hz > 0)
        vmem->ns = lat / m->core_hz * 1e9;
    }
  }
  free(c->pool);
  free(c->off);
  free(c);
  return rc;
}

const xray_probe xray__probe_caches = {
  "caches", "capacity, associativity, line and latency of every cache level beyond L1, and "
  "memory latency", caches_run
};
