/* The tlb probe's exact counts (see tlb.c): the translation cost of n
 * pages, the exact edge of a step, and a level's entry count read from
 * the ramp of pages s apart. */
#include "tlb.h"

#include <math.h>
#include <string.h>

#define RAMP_POINTS 24 /* coarse pass of the exact count */
#define RAMP_ROUNDS 3
#define FINE_POINTS 48 /* fine pass: every page count around the ramp */
#define FINE_ROUNDS 3
#define FINE_TRIES 5 /* fine passes: at least FINE_MIN, until two agree */
#define FINE_MIN 3

/* One point of the scan: what x pages cost to translate, on top of the
 * lines' own latency (NAN, with c->failed, where the machine cannot run
 * the chase). */
double
tlb_point(void *p, double x)
{
  struct tc *c = p;
  double base,
      d = xray__tlb_cost(c->m, c->off, (size_t) x, 0, 1, 0, XRAY__ARENA_SMALL, &c->rng, "tlb",
                         &c->packed, &base);

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
    v[i] = tlb_point(c, x);
  return xray__median(v, 3);
}

/* The exact edge: the smallest page count whose cost is past the given
 * level of the step. */
size_t
tlb_edge(struct tc *c, size_t a, size_t b, double mid)
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
      double base,
          d = xray__tlb_cost(c->m, c->off, (size_t) x[i], c->fill, s, c->shift, XRAY__ARENA_SMALL,
                             &c->rng, c->fill ? "tlb-set" : "tlb-stride", &c->packed, &base);
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
 * the whole step, whichever is less (under a replacement that is not
 * LRU the first page past the level costs only a fraction of a miss), or
 * by three times the spread of the points left of the ramp (their median
 * deviation: the page at the edge may already sit a little above the
 * floor, and a disturbed packed chain can put one below it), whichever is
 * more.  0 if the pass shows no ramp. */
static size_t
flat_end(const double *x, const double *y, size_t n, double height)
{
  double slope, rise, rms, edge = xray__fit_ramp(x, y, n, &slope, &rise, &rms);
  double fl, top, dev[FINE_POINTS], spread;
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

/* A coarse pass: RAMP_POINTS counts over [lo, hi], RAMP_ROUNDS rounds,
 * and the edge of the ramp fitted to them (its spacing in *gap); NAN
 * where the pass shows no clean ramp inside the window, or the machine
 * failed. */
static double
coarse_edge(struct tc *c, size_t s, double lo, double hi, double height, double *gap)
{
  double x[RAMP_POINTS], y[RAMP_POINTS], t[RAMP_POINTS], p[RAMP_POINTS];
  double edge, rise, rms;
  size_t n, i;

  *gap = (hi - lo) / (RAMP_POINTS - 1);
  for (n = 0, i = 0; i < RAMP_POINTS; i++) {
    double v = floor(lo + *gap * (double) i + 0.5);
    if (n == 0 || v > x[n - 1])
      t[n] = p[n] = INFINITY, x[n++] = v;
  }
  if (n < 3 || ramp_curve(c, s, x, t, p, y, n, RAMP_ROUNDS))
    return NAN;
  clip(y, n, height);
  edge = xray__fit_ramp(x, y, n, NULL, &rise, &rms);
  if (isnan(edge) || !(edge >= x[0] && edge < x[n - 2] && rise >= 0.2 * height && rise >= 6 * rms))
    return NAN;
  return edge;
}

/* FINE_POINTS (48) consecutive counts from 1.5 gaps (and one count)
 * below the edge reach at least a gap above it while the gap is at most
 * 18. */
#define NARROW_GAP 18

/* The page count at which pages s apart start to cost translation, from
 * a window [lo, hi] of counts and a step `height` cycles high: a ramp
 * fitted to a coarse pass over the window places the fine pass over every
 * count around it; fine passes repeat, each lowering the least cost of
 * every point, at least FINE_MIN times and until two give the same count
 * (a tenant that held entries through one pass rarely holds them through
 * all), those past FINE_MIN only before the probe's deadline.  Where
 * the coarse points lie so far apart that FINE_POINTS consecutive counts
 * from a step and a half below the edge would not reach a step above it
 * (consecutive pages of a large level: a window of thousands of pages),
 * coarse passes over that span narrow it first, each fitting the edge
 * again.  0 if there is no clean ramp in the window. */
size_t
tlb_ramp_count(struct tc *c, size_t s, double lo, double hi, double height)
{
  double x[FINE_POINTS], y[FINE_POINTS], t[FINE_POINTS], p[FINE_POINTS];
  double edge, gap;
  size_t n, last = 0, prev = 0;
  int pass;

  hi = fmin(hi, K_MAX); /* the chain has room for twice that */
  edge = coarse_edge(c, s, lo, hi, height, &gap);
  /* Narrowed within the window: its ends keep clear of the level below
   * and of the chain's room. */
  while (!isnan(edge) && gap > NARROW_GAP)
    edge = coarse_edge(c, s, fmax(lo, floor(edge - 1.5 * gap)), fmin(hi, ceil(edge + 3 * gap)),
                       height, &gap);
  if (isnan(edge))
    return 0;
  /* From a coarse step and a half below the edge to three above. */
  lo = fmax(1, floor(edge - 1.5 * gap) - 1);
  for (n = 0; n < FINE_POINTS && lo + (double) n <= ceil(edge + 3 * gap) + 1; n++)
    x[n] = lo + (double) n, t[n] = p[n] = INFINITY;
  for (pass = 0; pass < FINE_TRIES && !(pass >= FINE_MIN && tlb_late(c)); pass++, prev = last) {
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
int
tlb_exact_entries(struct tc *c, double r, size_t below, double height, size_t *entries,
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
    k = tlb_ramp_count(c, s, fmax(2, fmax(floor(0.5 * r / s), ceil(1.25 * (double) below))),
                       ceil(s == 1 ? 2 * r : fmin(2 * r / s, 0.75 * r)), height);
    if (k && !c->failed) {
      *entries = k * s;
      *stride = s;
      return 0;
    }
    if (s == 1 || c->failed)
      break;
  }
  snprintf(why, whylen, "%s",
           c->failed ? c->m->error : "no clean ramp at any stride around the step");
  return -1;
}
