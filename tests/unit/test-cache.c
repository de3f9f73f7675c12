/* model/cache.c, the truth under every simulated test, against what each
 * policy must do:
 * - LRU, against a plain age-stamp LRU written here, access by access
 *   (hit or miss, and the line displaced), over random streams with
 *   invalidations, in odd geometries (1 to 64 ways, set counts that are
 *   not powers of two); and tree-PLRU of 2 ways, which is LRU;
 * - known miss counts of cyclic sweeps: LRU misses nothing while a set
 *   holds its lines, and every access once one line too many maps there;
 * - tree-PLRU of 4 ways: the victim of a known sequence, which LRU would
 *   not choose; and no policy misses a set's worth of lines once held,
 *   whatever its ways (a leaf beyond the ways is never chosen);
 * - random replacement: a sweep of one line too many misses some of the
 *   time, not on every access (LRU's worst case). */
#include "model/cache.h"
#include "measure/measure.h"
#include "../tap.h"

#include <stdlib.h>
#include <string.h>

#define LINE 64
#define MAXWAYS 64

/* The reference: each set's lines with the time of their last use. */
struct ref {
  unsigned long sets, ways, tag[64 * MAXWAYS];
  unsigned long long used[64 * MAXWAYS], clock;
};

static int
ref_access(struct ref *r, unsigned long a, unsigned long *evicted)
{
  unsigned long s = a % r->sets, w, victim = r->ways, *tag = r->tag + s * r->ways;
  unsigned long long *used = r->used + s * r->ways;

  *evicted = ~0UL;
  for (w = 0; w < r->ways; w++)
    if (tag[w] == a) {
      used[w] = ++r->clock;
      return 0;
    }
  for (w = 0; w < r->ways; w++)
    if (tag[w] == ~0UL) {
      victim = w;
      break;
    }
  if (victim == r->ways)
    for (victim = 0, w = 1; w < r->ways; w++)
      if (used[w] < used[victim])
        victim = w;
  *evicted = tag[victim];
  tag[victim] = a;
  used[victim] = ++r->clock;
  return 1;
}

static void
ref_invalidate(struct ref *r, unsigned long a)
{
  unsigned long s = a % r->sets, w;

  for (w = 0; w < r->ways; w++)
    if (r->tag[s * r->ways + w] == a)
      r->tag[s * r->ways + w] = ~0UL;
}

static int
make(struct xray__cache *c, unsigned long sets, unsigned long ways, int policy)
{
  memset(c, 0, sizeof *c);
  c->size = sets * ways * LINE;
  c->ways = ways;
  c->line = LINE;
  c->policy = policy;
  return xray__cache_init(c);
}

/* A random stream of ACCESSES line addresses over twice the cache's
 * lines, one in 16 an invalidation; 1 where every access agrees with the
 * reference.  *misses counts the misses. */
static int
against_lru(unsigned long sets, unsigned long ways, int policy, long *misses, long *inval)
{
  struct xray__cache c;
  static struct ref r;
  uint64_t rng = 12345 + sets * 100 + ways;
  unsigned long ev, rev, pool = 2 * sets * ways, i;
  int ok = 1;

  memset(&r, 0xff, sizeof r);
  r.sets = sets, r.ways = ways, r.clock = 0;
  if (make(&c, sets, ways, policy))
    return 0;
  *misses = *inval = 0;
  for (i = 0; i < 40000 && ok; i++) {
    unsigned long a = (unsigned long) (xray__rand(&rng) % pool);
    if (xray__rand(&rng) % 16 == 0) {
      xray__cache_invalidate(&c, a);
      ref_invalidate(&r, a);
      ++*inval;
      continue;
    }
    int m = xray__cache_access(&c, a, &ev);
    ok = m == ref_access(&r, a, &rev) && ev == rev;
    *misses += m;
  }
  xray__cache_free(&c);
  return ok;
}

static double
sweep(unsigned long sets, unsigned long ways, int policy, unsigned long lines)
{
  struct xray__cache c;
  double m;

  if (make(&c, sets, ways, policy))
    return -1;
  m = xray__cache_sweep_misses(&c, 0, lines - 1);
  xray__cache_free(&c);
  return m;
}

int
main(void)
{
  static const unsigned long geo[][2] = { { 1, 1 }, { 1, 3 }, { 3, 5 }, { 6, 12 },
                                          { 5, 20 }, { 4, 8 }, { 1, 64 } };
  static const unsigned long odd[][2] = { { 3, 5 }, { 6, 12 }, { 5, 20 }, { 1, 3 } };
  struct xray__cache c;
  unsigned long ev, i, s, w;
  long misses, inval;
  size_t k;

  tap_plan(7 + 1 + 4 + 4 + 1 + 2);
  for (k = 0; k < sizeof geo / sizeof geo[0]; k++) {
    int same;
    s = geo[k][0], w = geo[k][1];
    same = against_lru(s, w, XRAY__POL_LRU, &misses, &inval);
    tap_ok(same,
           "LRU, %lu sets of %lu ways: every access of a random stream (%ld misses, %ld "
           "invalidations) as an age-stamp LRU has it, the line displaced too",
           s, w, misses, inval);
  }
  k = (size_t) against_lru(7, 2, XRAY__POL_PLRU, &misses, &inval);
  tap_ok(k == 1,
         "tree-PLRU of 2 ways is LRU: every access of a random stream (%ld misses) as "
         "the age-stamp LRU has it",
         misses);
  for (k = 0; k < sizeof odd / sizeof odd[0]; k++) {
    double full, one, all;
    s = odd[k][0], w = odd[k][1];
    full = sweep(s, w, XRAY__POL_LRU, s * w);
    one = sweep(s, w, XRAY__POL_LRU, s * w + 1);
    all = sweep(s, w, XRAY__POL_LRU, s * (w + 1));
    tap_ok(full == 0 && one == (double) (w + 1) && all == (double) (s * (w + 1)),
           "LRU, %lu sets of %lu ways, misses a pass of a cyclic sweep: of %lu lines %g "
           "(want 0), of one more %g (want %lu: its set thrashes), of %lu %g (want all)",
           s, w, s * w, full, one, w + 1, s * (w + 1), all);
  }
  for (k = 0; k < sizeof odd / sizeof odd[0]; k++) {
    double p, r;
    s = odd[k][0], w = odd[k][1];
    p = sweep(s, w, XRAY__POL_PLRU, s * w);
    r = sweep(s, w, XRAY__POL_RANDOM, s * w);
    tap_ok(p == 0 && r == 0,
           "%lu sets of %lu ways hold a sweep of %lu lines: tree-PLRU misses %g a pass, "
           "random %g (want 0: no way beyond the set is chosen)",
           s, w, s * w, p, r);
  }
  /* Tree-PLRU, 4 ways: A B C D fill ways 0-3; A again points the root
   * at the right half and its node at way 2 (D, way 3, was used after
   * C); so E displaces C, where LRU would displace B. */
  if (make(&c, 1, 4, XRAY__POL_PLRU) == 0) {
    int bhit;
    for (i = 1; i <= 4; i++)
      xray__cache_access(&c, i, NULL);
    xray__cache_access(&c, 1, NULL);
    xray__cache_access(&c, 5, &ev);
    bhit = !xray__cache_access(&c, 2, NULL);
    tap_ok(ev == 3 && bhit,
           "tree-PLRU, 4 ways, A B C D A E: E displaces C (line %lu displaced, want 3), B "
           "still hits (%s)",
           ev, bhit ? "yes" : "no");
    xray__cache_free(&c);
  } else
    tap_ok(0, "a 4-way cache: out of memory");
  {
    double r = sweep(1, 8, XRAY__POL_RANDOM, 9), l = sweep(1, 8, XRAY__POL_LRU, 9);
    tap_ok(r > 0 && r < 9 && l == 9,
           "random, 8 ways, a cyclic sweep of 9 lines misses %g a pass: some, not all "
           "(LRU misses %g)",
           r, l);
  }
  {
    /* Random replacement displaces only lines the set held. */
    uint64_t rng = 99;
    int ok = make(&c, 3, 5, XRAY__POL_RANDOM) == 0, held[64] = { 0 };
    for (i = 0; ok && i < 5000; i++) {
      unsigned long a = (unsigned long) (xray__rand(&rng) % 60);
      int m = xray__cache_access(&c, a, &ev);
      ok = (!m && ev == ~0UL && held[a]) || (m && !held[a] && (ev == ~0UL || held[ev]));
      if (m && ev != ~0UL) {
        ok = ok && ev % 3 == a % 3;
        held[ev] = 0;
      }
      held[a] = 1;
    }
    tap_ok(ok, "random, 3 sets of 5 ways: each miss displaces a line of its own set that "
               "was held, each hit is a line held, over 5000 accesses");
    if (c.tag)
      xray__cache_free(&c);
  }
  return tap_failed ? 1 : 0;
}
