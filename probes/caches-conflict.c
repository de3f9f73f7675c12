/* The caches probe's conflict sets (see caches.c): the ways of a level from
 * a minimal set of pages of one colour, and its miss chance on that colour. */
#include "caches.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
/* At most this many conflict tests for a level, so that a machine with
 * no clock to run out of ends too: the group-testing reduction costs
 * in the order of ways^2 times log(pages) tests, while on a tree-PLRU
 * level, whose one extra page evicts too rarely to show, it would go on
 * retrying for many times that. */
#define CONFLICT_TESTS 2500

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
  uint64_t h = XRAY__FNV_BASIS, s[CONFLICT_MAX_PAGES];
  size_t i;
  int b;

  n = n < CONFLICT_MAX_PAGES ? n : CONFLICT_MAX_PAGES;
  memcpy(s, set, n * sizeof *s);
  qsort(s, n, sizeof *s, cmp_u64);
  for (i = 0; i < n; i++)
    for (b = 0; b < 64; b += 8)
      h = xray__fnv1a(h, (unsigned char) (s[i] >> b));
  snprintf(out, len, "conflict/r%u/%016llx", c->m->run, (unsigned long long) h);
}

/* The median of three chases through set[0..n-1], as the pages that miss
 * the level per traversal: (cost - lo) n / (hi - lo). */
static double
caches_missing(struct cc *c, const struct level *L, const uint64_t *set, size_t n)
{
  char what[64];
  double y[3];
  int j;

  c->tests++;
  conflict_label(c, set, n, what, sizeof what);
  for (j = 0; j < 3; j++)
    y[j] = caches_run_chain(c, caches_lay_set(c, set, n), (double) n, what);
  return (xray__median(y, 3) - L->lo) * (double) n / (L->hi - L->lo);
}

/* Whether x pages missing per traversal of n pages are a conflict: more
 * than half of the A + 1 that LRU misses (A the model's guess), but never
 * more than a quarter of a miss on every load, nor more than 1.5 pages or
 * 2 % of the set, whichever is more; and at least 3 % over the level's
 * latency (a next-line prefetcher's drift in the cost of sets that fit,
 * and a shared host's noise, can reach a page's worth).  Not a larger share
 * of the set: one overfull colour of a level that is not LRU misses only
 * a few pages a traversal, and a larger share hides it in the mid-sized
 * sets a reduction passes through, where it then stalls; sets that fit
 * drift by far less.  A + 1 pages of one colour miss at least one page per
 * traversal whatever the policy (A + 1 lines cannot all stay in A ways),
 * but a policy that is not LRU may miss far fewer of them (Zen 3's L2
 * misses about 3.7 of 9).  A bar at half of A + 1 then stops reductions
 * early, at sets of many colours, and a "minimal" set of the model's
 * guessed ways + 1 pages can confirm the guess; this bar does not. */
static int
over_bar(const struct level *L, double x, size_t n, int aguess)
{
  return x > fmin(fmin(0.5 * (aguess + 1), 0.25 * (double) n), fmax(1.5, 0.02 * (double) n))
         && x * (L->hi - L->lo) > 0.03 * L->lo * (double) n;
}

static int
caches_conflicts(struct cc *c, const struct level *L, const uint64_t *set, size_t n, int aguess)
{
  return over_bar(L, caches_missing(c, L, set, n), n, aguess);
}

/* One reduction from start pages; the minimal set's size, or 0.  A test
 * that passes by chance (a burst of the host over all three chases) lets
 * a group go that the conflict needed, and the reduction then stalls at a
 * set that no longer conflicts: chased again, such a set misses no page.
 * So a stalled set is chased again,
 * and while it does not conflict the groups go back, last out first in,
 * at most MAX_BACKTRACKS times. */
#define MAX_BACKTRACKS 12
/* A reduction that has not ended after this many tests for each page it
 * started from is stalled on a set whose conflict comes and goes (an
 * adaptive policy): another from fresh pages does better.  A stalled one
 * goes on re-chasing the same set and would spend the whole budget; 1.5
 * a page leaves one that is still shrinking its set room to end. */
#define REDUCE_TESTS_PER_PAGE 1.5
static size_t
caches_reduce(struct cc *c, const struct level *L, uint64_t *set, size_t n, int aguess,
              uint64_t *tmp)
{
  long last = c->tests + (long) (REDUCE_TESTS_PER_PAGE * (double) n) + 50;
  /* Groups: with A + 2 of them, one holds none of a colour's A + 1
   * pages, so a round removes a group in at most A + 2 tests. */
  size_t groups = (size_t) aguess + 2, ng = 0, top = 0;
  uint64_t *gone = malloc(n * sizeof *gone);  /* the pages taken out, in order */
  size_t *gsize = malloc(n * sizeof *gsize);  /* how many each removal took */
  int back = 0;

  if (!gone || !gsize || !caches_conflicts(c, L, set, n, aguess))
    n = 0;
  while (n > 1 && !c->failed) {
    size_t g, removed = 0;
    xray__shuffle(set, n, &c->rng);
    for (g = 0; g < groups && !removed; g++) {
      size_t lo = n * g / groups, hi = n * (g + 1) / groups, m = 0, i;
      for (i = 0; i < n; i++)
        if (i < lo || i >= hi)
          tmp[m++] = set[i];
      if (m > 0 && caches_conflicts(c, L, tmp, m, aguess)) {
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
    else if (groups == (size_t) aguess + 2 || groups >= n) {
      /* No group could go.  Where A + 2 groups were tried, one held none
       * of a conflicting colour's pages, so the set has most likely
       * stopped conflicting: it is chased again before finer groups (a
       * round at n groups costs n tests, and that is where a stalled
       * reduction spent its budget).  Where every page was a group, it
       * is minimal if it still conflicts. */
      int popped = 0;
      while (!c->failed && !caches_conflicts(c, L, set, n, aguess)) {
        if (ng == 0 || back++ >= MAX_BACKTRACKS) {
          n = 0;
          break;
        }
        top -= gsize[--ng];
        memcpy(set + n, gone + top, gsize[ng] * sizeof *set);
        n += gsize[ng];
        popped = 1;
      }
      if (popped)
        groups = (size_t) aguess + 2;
      else if (groups >= n)
        break;
      else
        groups = 2 * groups < n ? 2 * groups : n;
    } else
      groups = 2 * groups < n ? 2 * groups : n;
    if (caches_late(c) || c->tests > CONFLICT_TESTS || c->tests > last)
      n = 0;
  }
  free(gone);
  free(gsize);
  return n;
}

/* A random page to swap for page p: one of p's colour in the L1D, where
 * the L1D's way spans pages (c->l1col), so that only this level's colour
 * can change.  A set of more pages of one L1D colour than the L1D has
 * ways thrashes it, and one that conflicts in both levels at once (all
 * its pages of one L1D colour, A + 1 of them of one colour here, the rest
 * of others) would lose its conflict at every swap that changes the L1D
 * colour, as a set of one colour here does at any swap. */
static uint64_t
swap_for(struct cc *c, uint64_t p)
{
  uint64_t q = xray__rand(&c->rng) % POOL_MAX;

  if (c->l1col > 1) {
    q = q - q % c->l1col + p % c->l1col;
    if (q >= POOL_MAX)
      q -= c->l1col;
  }
  return q;
}

/* Whether a minimal conflict set is all one colour: every page, swapped
 * for a fresh one (twice, in case the fresh one shares the colour), leaves
 * less than ONE_COLOUR_SHARE of its misses and less than ONE_COLOUR_LEFT
 * pages missing a traversal: A pages of a colour fit (swaps of a true set
 * of 9 here left -0.4 to -0.04 pages).  A set that is minimal only
 * because one page fewer fits the level below (a 12-page L1 before a
 * 10-way L2) has pages of other colours, whose swap leaves it conflicting;
 * so has one whose colours each miss too little to pass caches_conflicts() alone
 * (two colours of A + 1 pages, each under the bar): swapping one of their
 * pages leaves half the misses.  And a set of A + 2 of one colour whose
 * A + 1 missed under the bar for a while (a busy run gave 9 ways) leaves
 * a page or so. */
#define ONE_COLOUR_SHARE 0.35
#define ONE_COLOUR_TRIES 3
#define ONE_COLOUR_LEFT 0.5
static int
caches_one_colour(struct cc *c, const struct level *L, uint64_t *set, size_t n, int aguess)
{
  uint64_t *tmp = malloc(n * sizeof *tmp);
  double x = caches_missing(c, L, set, n);
  size_t i, j;
  int ok = tmp != NULL && over_bar(L, x, n, aguess);

  for (i = 0; ok && i < n && !c->failed; i++) {
    int keeps = 1, tries;
    for (tries = 0; tries < 2 && keeps; tries++) {
      uint64_t q;
      double xs;
      do {
        q = swap_for(c, set[i]);
        for (j = 0; j < n && set[j] != q; j++)
          ;
      } while (j < n);
      memcpy(tmp, set, n * sizeof *tmp);
      tmp[i] = q;
      xs = caches_missing(c, L, tmp, n);
      keeps = xs >= fmin(ONE_COLOUR_SHARE * x, ONE_COLOUR_LEFT) || over_bar(L, xs, n, aguess);
    }
    ok = !keeps;
  }
  free(tmp);
  return ok && !c->failed;
}

/* caches_one_colour() up to ONE_COLOUR_TRIES times, until it passes.
 * Other threads' loads only add misses, and what they add comes and
 * goes: a set that failed the test because a swap left it conflicting
 * may pass once they pause, but one that truly holds pages of another
 * colour keeps conflicting every time.  The later tries only within the
 * budget; *tries gets how many ran. */
static int
one_colour_tries(struct cc *c, const struct level *L, uint64_t *set, size_t n, int aguess,
                 size_t *tries)
{
  int ok = 0;

  for (*tries = 0; *tries < ONE_COLOUR_TRIES && !ok && !c->failed; ++*tries) {
    if (*tries > 0 && caches_late(c))
      break;
    ok = caches_one_colour(c, L, set, n, aguess);
  }
  return ok;
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
    if (!caches_conflicts(c, L, t, (size_t) A + ng, A))
      continue;
    /* Halved towards the half that misses more: a threshold on each
     * half alone lets noise send the search down the wrong one. */
    while (ng > 1 && !c->failed) {
      size_t half = ng / 2;
      double x0, x1;
      memcpy(t + A, g, half * sizeof *g);
      x0 = caches_missing(c, L, t, (size_t) A + half);
      memcpy(t + A, g + half, (ng - half) * sizeof *g);
      x1 = caches_missing(c, L, t, (size_t) A + ng - half);
      if (x1 > x0) {
        memmove(g, g + half, (ng - half) * sizeof *g);
        ng -= half;
      } else
        ng = half;
    }
    t[A] = g[0];
    if (!c->failed && caches_conflicts(c, L, t, (size_t) A + 1, A)) {
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
    surv[n] = fmin(A, fmax(0, have - caches_missing(c, L, s, (size_t) have)));
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

/* Why no reduction gave ways: what stopped them, and each one's pages. */
static void
none_ended(char *why, size_t whylen, const char *stop, const size_t *got, size_t t)
{
  int len = snprintf(why, whylen, "%s%sno reduction ended (pages:", stop ? stop : "",
                     stop ? " and " : "");
  size_t u;

  for (u = 0; u < t && len > 0 && (size_t) len < whylen; u++)
    len += snprintf(why + len, whylen - (size_t) len, " %zu", got[u]);
  if (len > 0 && (size_t) len < whylen)
    snprintf(why + len, whylen - (size_t) len, "; 0: the set stopped conflicting)");
}

/* The reductions of one level's conflict sets: the pages each ended
 * with (0: lost its conflict), how many ran, how many agree with the
 * last, the fewest pages any ended with, and what stopped them early. */
struct tries {
  size_t got[CONFLICT_TRIES], t, nbest;
  int agree;
  const char *stop;
};

/* Reduce fresh conflict sets of n0 pages until two agree; not after
 * LOST_TRIES that all lost their conflict (the level's conflicts are too
 * weak to reduce, as a tree-PLRU level's of a way count that is no power
 * of two can be, or an adaptive policy's that stop conflicting while the
 * set shrinks): where two fresh sets lost theirs, the next one has not
 * ended right in any recording, and each costs hundreds of tests.  set
 * has room for 3 n0 pages: it ends holding the last reduction, and
 * set + 2 n0 the smallest. */
#define LOST_TRIES 2
static void
reduce_tries(struct cc *c, struct level *L, uint64_t *set, size_t n0, int aguess, struct tries *r)
{
  uint64_t *best = set + 2 * n0;
  size_t u;
  int any = 0;

  memset(r, 0, sizeof *r);
  c->tests = 0;
  for (r->t = 0; r->t < CONFLICT_TRIES && r->agree < 2 && (r->t < LOST_TRIES || any); r->t++) {
    size_t t = r->t;
    if (caches_late(c)) {
      r->stop = "the time budget (--budget) was spent";
      break;
    }
    if (c->tests > CONFLICT_TESTS) {
      r->stop = "the conflict tests allowed were spent";
      break;
    }
    caches_draw_pages(c, n0, caches_pool_for(n0));
    memcpy(set, c->pool, n0 * sizeof *set);
    r->got[t] = caches_reduce(c, L, set, n0, aguess, set + n0);
    for (u = 0, r->agree = 0; u <= t; u++)
      r->agree += r->got[u] > 0 && r->got[u] == r->got[t];
    any |= r->got[t] > 0;
    if (r->got[t] > 0 && (!r->nbest || r->got[t] < r->nbest)) {
      r->nbest = r->got[t];
      memcpy(best, set, r->nbest * sizeof *set);
    }
  }
}

/* The level's ways, or 0 with why; and its miss function where the set
 * allows (L->qn).  L->lone says the ways came from one reduction that no
 * other repeated. */
int
caches_ways_of(struct cc *c, struct level *L, double cap_pages, int aguess, double below, char *why,
               size_t whylen)
{
  size_t n0 = (size_t) ceil(cap_pages), t, u;
  uint64_t *set = malloc(3 * n0 * sizeof *set);
  struct tries r;

  L->lone = 0;
  if (!set || n0 < 2 || n0 > CONFLICT_MAX_PAGES) {
    free(set);
    snprintf(why, whylen,
             "no conflict test for a level of more than %d pages (it would "
             "take too long)",
             CONFLICT_MAX_PAGES);
    return 0;
  }
  reduce_tries(c, L, set, n0, aguess, &r);
  t = r.t;
  /* Two that agree; else the smallest of those that ended, which must
   * then pass the one-colour test on its own (every page needed, and of
   * one colour), as must the ways it gives the capacity's check: an
   * adaptive policy lets a reduction stop a page early now and then, and
   * two seldom stop on the same count within the budget.  Such ways are
   * not confirmed: a level that keeps A + 1 pages of a colour at times
   * (Zen's L2s, after A of them ran a while) lets a reduction stop at
   * A + 2 of one colour, whose swaps then pass the one-colour test too. */
  if (r.agree >= 2)
    t--;                                /* the one that agreed: set holds it */
  else if (r.nbest) {
    memcpy(set, set + 2 * n0, r.nbest * sizeof *set);
    r.got[t = 0] = r.nbest;
    L->lone = 1;
  } else {
    none_ended(why, whylen, r.stop, r.got, t);
    free(set);
    return 0;
  }
  /* A set that the level below holds whole cannot miss this level by
   * itself: it conflicted because the host's other threads took ways of
   * both for a while. */
  if ((double) r.got[t] <= below) {
    snprintf(why, whylen,
             "the minimal conflict set of %zu pages fits the level below "
             "(%.0f pages): other threads held ways, and the level's are not shown",
             r.got[t], below);
    free(set);
    return 0;
  }
  if (!one_colour_tries(c, L, set, r.got[t], aguess, &u)) {
    snprintf(why, whylen,
             "the minimal set of %zu pages failed the one-colour test "
             "(chased again, each page swapped) %zu time%s: the level below may hold A + 1 "
             "pages, or other threads held ways",
             r.got[t], u, u == 1 ? "" : "s");
    free(set);
    return 0;
  }
  L->qn = miss_function(c, L, set, (int) r.got[t] - 1);
  free(set);
  return (int) r.got[t] - 1;
}
