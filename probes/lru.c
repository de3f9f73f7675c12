/* Whether the L1D evicts by recency (LRU or an approximation), by timing the
 * access pattern of the Counter Inspection Toolkit's Sec. 4.1 (Fig. 16-17):
 * a buffer of N blocks, a block larger than the L1D holds, swept block by
 * block, N times.  Swept in the same order each time (offset 0), an LRU
 * cache loses every block before it comes back: every load misses.
 * Swept starting one block later each time (offset 1), the block left
 * out last is the one evicted, and only one block in N misses.  A cache
 * that replaces at random keeps most of the buffer either way.
 *
 * Loads within a block go in a random order (no prefetcher follows
 * them), and each sweep reads its own word of every line, so that the
 * pattern is one pointer chase.  Times are placed between a chase that
 * fits the L1D and one over four times it: 0 all hits, 1 all misses.
 *
 *   XRAY_L1D_LRU = 1  offset 0 misses (0.4 or more of the way) and
 *                     offset 1 misses half as much or less: the cache
 *                     evicts by recency, LRU or an approximation of it
 *                     (exact LRU misses on every load at offset 0), and
 *                     the toolkit's offset trick pays here;
 *                = 0  the order does not matter (the two within 0.15)
 *                     and some lines stay (0.8 or less): the cache does
 *                     not evict by recency (random replacement, say);
 *   and unknown otherwise (everything misses both ways: the buffer is
 *   much larger than the L1D, whose measured capacity is then wrong). 
 *
 * Two buffers (5 blocks of a quarter of the L1D, 3 of a half) must agree
 * for the value to be confirmed, in two clean attempts.  An attempt is
 * clean when its all-hits reference runs at the L1D's latency (within
 * 3 %): a host's other thread on the same core shares the L1D, and while
 * it runs, hits cost more and the order of the sweep matters less, so
 * that an LRU cache can look random (both buffers then say "not LRU"
 * together).  Attempts go on, up to MAX_ATTEMPTS, until two are clean. */
#include "probes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 3
#define MAX_ATTEMPTS 6
#define CLEAN 0.03

/* The sweep of nb blocks of bl bytes (lines of ln), each sweep starting
 * `shift` blocks after the last one's start, as chase offsets. */
static size_t
sweep(uint64_t *off, size_t nb, size_t bl, size_t ln, int shift, uint64_t *rng)
{
  size_t lpb = bl / ln, p, j, l, n = 0;
  uint64_t *perm = malloc(lpb * sizeof *perm);

  if (!perm)
    return 0;
  for (l = 0; l < lpb; l++)
    perm[l] = l;
  xray__shuffle(perm, lpb, rng);
  for (p = 0; p < nb; p++)
    for (j = 0; j < nb; j++) {
      size_t b = (j + p * (size_t) shift) % nb;
      for (l = 0; l < lpb; l++)
        off[n++] = (uint64_t) (b * bl + perm[l] * ln + 8 * p);
    }
  free(perm);
  return n;
}

/* Where t lies between lo (all hits) and hi (all misses). */
static double
between(double t, double lo, double hi)
{
  return (t - lo) / (hi - lo);
}

struct lru_view {
  double thrash, kept; /* offset 0 and offset 1, between 0 and 1 */
  int verdict; /* 1 LRU, 0 not, -1 neither */
};

/* One buffer of nb blocks over an L1D of c bytes; -1 if it cannot run. */
static int
view(xray_machine *m, double c, size_t ln, size_t nb, double lo, double hi, struct lru_view *v)
{
  size_t bl = (size_t) (c / (double) (nb - 1)) / ln * ln, n = nb * nb * (bl / ln);
  uint64_t *off = malloc(n * sizeof *off), rng = 0x2545f4914f6cdd1dULL + nb;
  double t[2][ROUNDS];
  char layout[48];
  int r, s;

  if (!off || bl < ln)
    return free(off), -1;
  for (r = 0; r < ROUNDS; r++)
    for (s = 0; s < 2; s++) {
      sweep(off, nb, bl, ln, s, &rng);
      snprintf(layout, sizeof layout, "sweep%zux%zu+%d", nb, bl, s);
      t[s][r] = xray__chase_ordered(m, off, n, XRAY__ARENA_HUGE, "lru", layout);
    }
  free(off);
  v->thrash = between(xray__median(t[0], ROUNDS), lo, hi);
  v->kept = between(xray__median(t[1], ROUNDS), lo, hi);
  if (isnan(v->thrash) || isnan(v->kept))
    return -1;
  v->verdict = v->thrash >= 0.4 && v->kept <= v->thrash / 2 ? 1
      : fabs(v->thrash - v->kept) <= 0.15 && v->kept <= 0.8 ? 0
                                                            : -1;
  return 0;
}

/* The L1D's capacity, line and latency: from an earlier probe of this
 * run, else as given, else from a run of the dcache probe
 * (xray__resting_on); 0, or -1 with why. */
static int
l1d(xray_machine *m, xray_report *rep, double *c, double *ln, double *lat, char *why, size_t len)
{
  static const char *const needs[] = { "XRAY_L1D_SIZE", "XRAY_L1D_LINE", NULL };
  static const char *const deps[] = { "dcache", NULL };
  xray_report *own;
  const xray_report *r = xray__resting_on(m, rep, needs, deps, &own);
  const xray_value *vc, *vl, *vt;
  int rc = -1;

  if (!r) {
    snprintf(why, len, "out of memory");
    return -1;
  }
  vc = xray_report_get(r, "XRAY_L1D_SIZE");
  vl = xray_report_get(r, "XRAY_L1D_LINE");
  vt = xray_report_get(r, "XRAY_L1D_LATENCY");
  /* Its whole cycles: a disturbed dcache run reads the latency high too. */
  *lat = xray__established(vt) ? xray_value_number(vt) : NAN;
  /* Each sweep reads its own word of a line: five sweeps need 40 bytes. */
  if (xray__established(vc) && xray__sure(vl) && xray_value_number(vl) >= 40) {
    *c = xray_value_number(vc);
    *ln = xray_value_number(vl);
    rc = 0;
  } else
    snprintf(why, len, "the L1D's capacity and line are not established here: %s",
             !vc || !vl                   ? "no value"
                 : !xray__established(vc) ? xray_value_reason(vc)
                 : !xray__established(vl) ? xray_value_reason(vl)
                                          : "its line is not confirmed");
  xray_report_free(own);
  return rc;
}

/* One attempt: the two references, half the L1D and four times it,
 * random, each the median of three (a spike in one would move every
 * fraction), then both buffers.  0, 1 if the misses cost too little to
 * tell (why says so), -1 if it cannot run. */
struct attempt {
  double lo, hi;
  struct lru_view a, b;
};

static int
attempt(xray_machine *m, double c, double ln, uint64_t *rng, struct attempt *at, char *why,
        size_t len)
{
  double t[2][ROUNDS];
  uint64_t *off;
  size_t i, n = (size_t) (4 * c / ln);
  int r;

  if (!(off = malloc(n * sizeof *off))) {
    snprintf(why, len, "out of memory");
    return -1;
  }
  for (r = 0; r < ROUNDS; r++) {
    for (i = 0; i < n; i++)
      off[i] = (uint64_t) (i * (size_t) ln);
    t[0][r] = xray__chase_time(m, off, n / 8, XRAY__ARENA_HUGE, rng, "lru", "fit");
    t[1][r] = xray__chase_time(m, off, n, XRAY__ARENA_HUGE, rng, "lru", "out");
  }
  free(off);
  at->lo = xray__median(t[0], ROUNDS);
  at->hi = xray__median(t[1], ROUNDS);
  if (!(at->hi - at->lo >= 2)) {
    snprintf(why, len,
             "loads that miss the L1D cost %.1f cycles, %.1f more than hits: too little to tell",
             at->hi, at->hi - at->lo);
    return 1;
  }
  if (view(m, c, (size_t) ln, 5, at->lo, at->hi, &at->a)
      || view(m, c, (size_t) ln, 3, at->lo, at->hi, &at->b)) {
    snprintf(why, len, "%s", m->error[0] ? m->error : "out of memory");
    return -1;
  }
  return 0;
}

static const char *
said(int verdict)
{
  return verdict < 0 ? "neither" : verdict ? "LRU" : "not LRU";
}

static int
run_lru(xray_machine *m, xray_report *rep)
{
  xray_value *v = xray__report_param(rep, "XRAY_L1D_LRU", NULL, NULL);
  struct attempt at[MAX_ATTEMPTS], *first = NULL, *second = NULL;
  double c, ln, lat;
  uint64_t rng = 0x9e3779b97f4a7c15ULL;
  char why[400];
  int k, n = 0, rc;

  if (!v)
    return -1;
  if (l1d(m, rep, &c, &ln, &lat, why, sizeof why)) {
    xray__value_unknown(v, why);
    return 0;
  }
  for (k = 0; k < MAX_ATTEMPTS && !second; k++, n++) {
    if ((rc = attempt(m, c, ln, &rng, &at[k], why, sizeof why))) {
      xray__value_unknown(v, why);
      return 0;
    }
    if (isnan(lat) || at[k].lo <= lat * (1 + CLEAN)) {
      if (first)
        second = &at[k];
      else
        first = &at[k];
    }
  }
  /* No clean attempt: the last one, which the host disturbed. */
  if (!first)
    first = &at[n - 1];
  snprintf(why, sizeof why,
           "sweeping %.0f%% of the L1D (%.0f bytes) block by block, in the "
           "same order: %.2f of the way from hits (%.1f cycles) to misses (%.1f); starting a "
           "block later each time: %.2f; with 3 blocks of half of it: %.2f and %.2f",
           125.0, c, first->a.thrash, first->lo, first->hi, first->a.kept, first->b.thrash,
           first->b.kept);
  if (first->a.verdict < 0) {
    snprintf(why + strlen(why), sizeof why - strlen(why), ": neither LRU nor clearly not");
    xray__value_unknown(v, why);
    return 0;
  }
  xray__value_measured(v, first->a.verdict, why);
  if (first->b.verdict != first->a.verdict)
    xray__value_doubt(v, "; not confirmed: the sweep of 3 blocks says %s", said(first->b.verdict));
  else if (!second)
    xray__value_doubt(v,
                      "; not confirmed: %d of %d attempts ran their hits at the L1D's "
                      "latency (%.1f cycles), and two must (another thread on the core "
                      "shares the L1D)",
                      first == &at[n - 1] && !(first->lo <= lat * (1 + CLEAN)) ? 0 : 1, n, lat);
  else if (second->a.verdict != first->a.verdict || second->b.verdict != first->a.verdict)
    xray__value_doubt(v, "; not confirmed: a second clean attempt says %s and %s",
                      said(second->a.verdict), said(second->b.verdict));
  return 0;
}

const xray_probe xray__probe_lru = { "lru",
                                     "L1D replacement: does a sweep a block too large thrash it",
                                     run_lru };
