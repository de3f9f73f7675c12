/* Curves of code size and their edges, for the icache probe: loops of
 * fetch-bound statements (the paper's method with a statement that needs
 * more fetch than the L2 gives) and chases through pieces of code whose
 * fetch latency each piece's return link exposes (icache.h).
 *
 * Sizes are code bytes: a loop's n statements and its control, a chase's n
 * slots.  An edge's capacity is the footprint of the largest size within
 * 3 % of full speed in whole 64-byte blocks (a sharp edge), or the onset
 * fitted on the transition (a gradual, LRU-like one), rounded to a block. */
#include "icache.h"

#include <math.h>
#include <stdlib.h>

double
xray__ic_bytes(const struct ictx *c, size_t n)
{
  return c->chase ? (double) n * CHASE_SLOT : (double) n * c->s->len + XRAY__LOOP_TAIL_BYTES;
}

size_t
xray__ic_units(const struct ictx *c, double bytes)
{
  double n = c->chase ? floor(bytes / CHASE_SLOT)
                      : floor((bytes - XRAY__LOOP_TAIL_BYTES) / c->s->len);

  return n < 1 ? 1 : (size_t) n;
}

/* The refinement's step: a statement's block, or a chase's slot. */
static double
grain(const struct ictx *c)
{
  return c->chase ? CHASE_SLOT : 64;
}

/* Cycles per piece of a chase through n slots in a random cyclic order:
 * piece i of the chain lies in slot order[i]; the point at x of the
 * icache probe's kernel label.  NAN if it cannot be run. */
static double
chase_point(struct ictx *c, size_t n, const char *label, double x)
{
  struct xray__jchain j = { c->s, NULL, n, XRAY__LINK_RETURN };
  struct xray__ask a = { .kind = XRAY__ASK_JCHAIN };
  size_t i;

  if (n > c->np) {
    struct xray__piece *p = realloc(c->p, n * sizeof *p);
    if (!p) {
      snprintf(c->m->error, sizeof c->m->error, "out of memory");
      return NAN;
    }
    c->p = p;
    c->np = n;
  }
  for (i = 0; i < n; i++)
    c->p[i].off = (uint64_t) i * CHASE_SLOT;
  for (i = n; i > 1; i--) {
    size_t k = (size_t) (xray__rand(&c->rng) % i);
    uint64_t t = c->p[i - 1].off;
    c->p[i - 1].off = c->p[k].off;
    c->p[k].off = t;
  }
  for (i = 0; i < n; i++)
    c->p[i].len = CHASE_SLOT - XRAY__PIECE_RET_END_BYTES;
  j.p = c->p;
  a.jchain = &j;
  return xray__machine_measure(c->m, "icache", label, x, &a).y;
}

double
xray__ic_point(void *p, double bytes)
{
  struct ictx *c = p;
  size_t n = xray__ic_units(c, bytes);
  struct xray__ask a = { .kind = XRAY__ASK_CODE, .stmt = c->s, .n = n };
  char label[64];

  if (!c->chase)
    return xray__machine_measure(c->m, "icache", c->s->name, xray__ic_bytes(c, n), &a).y;
  snprintf(label, sizeof label, "chase/%s/%d", c->s->name, CHASE_SLOT);
  return chase_point(c, n, label, xray__ic_bytes(c, n));
}

int
xray__ic_scan(struct ictx *c, struct xray__curve *cv, double hi)
{
  size_t i;

  if (xray__scan(cv, c->chase ? 8192 : 1024, hi, 8, xray__ic_point, c))
    return -1;
  for (i = 0; i < cv->n; i++)
    if (!(cv->y[i] > 0))
      return -1;
  return 0;
}

/* Median time of the three 64-byte steps just above x. */
static double
level_above(struct ictx *c, double x)
{
  double y[3];
  int k;

  for (k = 0; k < 3; k++)
    y[k] = xray__ic_point(c, x + grain(c) * (k + 1));
  return xray__median(y, 3);
}

/* The onset of an edge: the largest loop in [a, x] (a on the low plateau,
 * x past the onset) whose median time stays within ONSET of the low level,
 * or within the noise of a median if that is more.  The first misses cost
 * little: a set-associative L1I misses first in the few sets a loop just
 * over its size over-fills, and where an op cache serves part of the loop
 * or the kernel has time to spare (decode- or jump-bound) the time rises
 * by a few per cent long before it reaches the next level. */
#define ONSET 0.03
#define ONSET_DRAWS 5

static double
onset(struct ictx *c, double a, double x, double thr)
{
  double g = grain(c);

  while (x - a > g) {
    double mid = floor((a + x) / (2 * g)) * g, y[ONSET_DRAWS];
    int k;
    if (mid <= a)
      break;
    for (k = 0; k < ONSET_DRAWS; k++)
      y[k] = xray__ic_point(c, mid);
    if (xray__median(y, ONSET_DRAWS) <= thr)
      a = mid;
    else
      x = mid;
  }
  return a;
}

/* The level the onset is measured from, lo, raised by ONSET or by 2.5
 * standard deviations of a median of ONSET_DRAWS points, whichever is
 * more; the deviation is estimated (from the median absolute deviation)
 * over the octave of the curve below the step.  *noisy where the noise
 * raises it by more than twice ONSET: a median may then read low well
 * into a rise whose first misses cost little (a set-associative cache
 * whose sets overfill one by one), so the edge may lie late by more than
 * runs must agree by, and every run shares that bias: their agreement
 * confirms nothing. */
static double
onset_threshold(const struct xray__curve *cv, const struct xray__step *st, double lo, int *noisy)
{
  double d[64], y[64], med, sigma, margin;
  size_t i, n = 0;

  *noisy = 0;
  for (i = 0; i <= st->last_low && n < 64; i++)
    if (cv->x[i] >= cv->x[st->last_low] / 2)
      y[n++] = cv->y[i];
  if (n < 4)
    return lo * (1 + ONSET);
  med = xray__median(y, n);
  for (i = 0; i < n; i++)
    d[i] = fabs(y[i] - med);
  sigma = 1.4826 * xray__median(d, n);
  margin = 2.5 * 1.25 * sigma / sqrt(ONSET_DRAWS);
  *noisy = margin > 2 * ONSET * lo;
  return lo + fmax(ONSET * lo, margin);
}

/* Capacity in bytes of the edge of step st on curve cv, measured up from
 * level lo (the plateau, or the decoders' rate for the L1I edge, so that an
 * op-cache edge just below it is not taken for it).  A sharp edge after
 * which the curve has not reached the high level was a lower edge (on Zen
 * 3, 8-byte NOPs leave the op cache at 30.5 KB and the L1I at 32.7 KB):
 * refine again from there, with the plateau found above it as the low
 * level. */
double
xray__ic_edge(struct ictx *c, const struct xray__curve *cv, const struct xray__step *st, double lo,
              int *how)
{
  double a = cv->x[st->last_low], b = cv->x[st->first_high], x = a, above, thr, g = grain(c);
  int tries, gradual, noisy;

  thr = onset_threshold(cv, st, lo, &noisy);
  *how = 0;
  for (tries = 0; tries < 3; tries++) {
    x = xray__refine_edge(a, b, lo, st->hi, g, xray__ic_point, c, &gradual);
    if (gradual) {
      *how = IC_GRADUAL;
      return floor(x / 64 + 0.5) * 64;
    }
    above = level_above(c, x);
    if (above >= st->hi - 0.25 * (st->hi - lo) || x + 4 * g >= b)
      break;
    /* A lower edge: the next is measured up from the level above it. */
    a = x + g;
    lo = above;
    thr = lo * (1 + ONSET);
    noisy = 0;
  }
  /* The last size below three quarters of the step lies past the first
   * misses: search below it. */
  x = onset(c, a, x + g, thr);
  if (noisy)
    *how = IC_NOISY;
  /* x is the largest full-speed size: count the blocks it touches. */
  return ceil(xray__ic_bytes(c, xray__ic_units(c, x)) / 64) * 64;
}

/* Two edges closer than this are one. */
#define SAME_EDGE 0.03

int
xray__ic_edges(struct ictx *c, double hi_bytes, double floor_lo, double floor_x, double *e,
               int *how, int max)
{
  struct xray__curve cv = { 0 };
  struct xray__step st[8];
  size_t ns, i;
  int n = 0;

  if (xray__ic_scan(c, &cv, hi_bytes)) {
    xray__curve_free(&cv);
    return -1;
  }
  ns = xray__find_steps(&cv, 0.25, st, 8);
  for (i = 0; i < ns && n < max; i++) {
    double lo = cv.x[st[i].first_high] > 1.25 * floor_x ? fmax(st[i].lo, floor_lo) : st[i].lo;
    double x = xray__ic_edge(c, &cv, &st[i], lo, &how[n]);
    if (n == 0 || x > e[n - 1] * (1 + SAME_EDGE))
      e[n++] = x;
  }
  xray__curve_free(&cv);
  return n;
}

void
xray__ic_free(struct ictx *c)
{
  free(c->p);
  c->p = NULL;
  c->np = 0;
}
