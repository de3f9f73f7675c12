/* The caches probe's pages and chains (caches.h; the probe's method is
 * in caches.c): pages drawn from a pool, packed into large pages, laid
 * out as a chain of loads, and chased; and the check that a level's
 * loads share its lines. */
#include "caches.h"

#include <math.h>
#include <string.h>

size_t
caches_pool_for(size_t k)
{
  size_t p = 8 * k;

  return p < POOL_MIN ? POOL_MIN : p > POOL_MAX ? POOL_MAX : p;
}

/* Draw k distinct pages of the pool (partial Fisher-Yates), in random
 * order. */
void
caches_draw_pages(struct cc *c, size_t k, size_t pool)
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
 * page's translation is then used lpp-fold while it is cached, so
 * the TLB hardly shows (a global shuffle added a walk to most loads once
 * k passed the TLB).  Loads go in units: with pair = 0 one load, else two
 * loads pair bytes apart, one right after the other. */
static size_t
lay_pages(struct cc *c, const uint64_t *pages, size_t np, size_t per, uint64_t pair)
{
  size_t b, i, l, n = 0;
  uint64_t s = pair / c->step, gap = c->gap ? c->gap : c->step;

  /* A machine that answers by key runs no chain: the loads are counted,
   * and the generator skips the numbers each block's shuffle would take
   * (one fewer than its units), so that every later draw is the same as
   * where the chain is laid out. */
  if (c->jumps) {
    size_t unit = 0;
    for (l = 0; l < per; l++)
      unit += !pair || s == 0 || !(l & s);
    for (b = 0; b < np; b += BLOCK) {
      size_t nu = ((b + BLOCK < np ? b + BLOCK : np) - b) * unit;
      if (nu > 1)
        xray__rand_skip(c->jumps, &c->rng, nu - 1);
      n += pair ? 2 * nu : nu;
    }
    return n;
  }
  for (b = 0; b < np; b += BLOCK) {
    size_t e = b + BLOCK < np ? b + BLOCK : np, nu = 0, u;
    for (i = b; i < e; i++)
      for (l = 0; l < per; l++)
        /* Pairs closer than a step: every load and one pair bytes on;
         * farther: each load with the one whose index differs in bit s. */
        if (!pair || s == 0 || !(l & s))
          c->blk[nu++] = pages[i] * c->page + l * gap;
    xray__shuffle(c->blk, nu, &c->rng);
    for (u = 0; u < nu; u++) {
      c->off[n++] = c->blk[u];
      if (pair)
        c->off[n++] = c->blk[u] + pair;
    }
  }
  return n;
}

/* The np pages just drawn (c->pool), packed into few large pages
 * (c->slot).  A draw takes its pages at random from a pool eight times
 * their number, so that their colours come out (nearly) independent, as
 * the model assumes; laid at their pool index, the chain's pages would
 * fault in the whole pool, 256 MB of large pages for a 32 MB chain.
 * Packed, a page keeps its offset within a large page, which fixes its
 * colour in every level whose way fits in one; the pages of one offset
 * go to distinct large pages, a run of F from a random start (F the most
 * pages of any offset), so that the colours a larger way adds stay
 * nearly uniform too (wherever they matter, F is many times their
 * number).  For fresh draws only: a conflict set's pages must keep their
 * places from one chase to the next (caches_lay_set). */
static void
caches_pack(struct cc *c, size_t np)
{
  size_t pph = c->pph, f = 1, i, o;

  memset(c->cls, 0, pph * sizeof *c->cls);
  for (i = 0; i < np; i++)
    if (++c->cls[c->pool[i] % pph] > f)
      f = c->cls[c->pool[i] % pph];
  for (o = 0; o < pph; o++)
    c->cls[o] = (unsigned) (xray__rand(&c->prng) % f);
  for (i = 0; i < np; i++) {
    o = c->pool[i] % pph;
    c->slot[i] = c->cls[o] * pph + o;
    c->cls[o] = (unsigned) ((c->cls[o] + 1) % f);
  }
}

/* Conflict set set[0..n-1] (pool pages), laid out whole.  A set is
 * chased again and again, with pages swapped in and out, so each page
 * keeps one place: at its first use, the next frame free for its
 * offset within a large page (caches_pack's reason; the sets' pages
 * come from all of POOL_MAX, and at their pool index would fault in
 * 256 MB). */
size_t
caches_lay_set(struct cc *c, const uint64_t *set, size_t n)
{
  size_t pph = c->pph, i;

  for (i = 0; i < n; i++) {
    uint64_t p = set[i] % POOL_MAX, o = p % pph;
    if (!c->place[p])
      c->place[p] = ++c->used[o];
    c->slot[i] = (uint64_t) (c->place[p] - 1) * pph + o;
  }
  return lay_pages(c, c->slot, n, c->lpp, 0);
}

/* A fresh draw of np pages, packed (caches_pack), and laid out with per
 * loads of each. */
static size_t
lay_fresh(struct cc *c, size_t np, size_t per, uint64_t pair)
{
  caches_draw_pages(c, np, caches_pool_for(np));
  caches_pack(c, np);
  return lay_pages(c, c->slot, np, per, pair);
}

size_t
caches_lay_out(struct cc *c, double k, uint64_t pair)
{
  size_t np = k < 1 ? 1 : (size_t) k, per = k < 1 ? (size_t) (k * (double) c->lpp) : c->lpp;

  return lay_fresh(c, np, per < 1 ? 1 : per, pair);
}

/* The least of three chases at k pages, every gap bytes of each page:
 * other tenants only ever slow a chase down. */
static double
gapped(struct cc *c, double k, size_t gap)
{
  double t[3];
  char what[48];
  int j;

  snprintf(what, sizeof what, "chase-gap%zu", gap);
  c->gap = gap;
  for (j = 0; j < 3; j++) {
    t[j] = caches_run_chain(c, lay_fresh(c, k < 1 ? 1 : (size_t) k, c->page / gap, 0), k, what);
  }
  c->gap = 0;
  return fmin(t[0], fmin(t[1], t[2]));
}

/* Loads every step bytes and every four steps, at the same pages: where
 * the level's line is no longer than a step, each load has a line of its
 * own either way and they cost the same; where it is longer, the dense
 * loads share lines and cost less: half as much above the level's hit
 * for a line of two steps, a quarter for four, so that the sparse loads
 * cost 1.5 to 3 times as much.  40 % more is the bar: an adjacent-line prefetcher, which
 * brings a line's neighbour along, gives the dense loads some of that too,
 * and less than that.  The sparse loads' lines fill a quarter as much of
 * the levels, so k must lie where the level misses even so (the end of
 * the next plateau). */
#define SHARED_LINES 0.40
/* A quarter of the lines cost this much less: a cache serves some. */
#define CACHED_LINES 0.15
int
caches_lines_shared(struct cc *c, double k, char *why, size_t whylen)
{
  double dense, sparse;

  if (k < 4) {
    snprintf(why, whylen, "too few pages (%.3g) to compare loads a step and four apart", k);
    return -1;
  }
  dense = gapped(c, k, c->step);
  sparse = gapped(c, k, 4 * c->step);
  if (c->failed || !(dense > 0 && sparse > 0)) {
    snprintf(why, whylen, "%s", c->m->error[0] ? c->m->error : "the chases did not run");
    c->failed = 0;
    return -1;
  }
  if (sparse > dense * (1 + SHARED_LINES)) {
    snprintf(why, whylen,
             "loads %zu bytes apart cost %.1f cycles at %.0f pages, loads %zu apart %.1f: the "
             "level's line is longer than %zu bytes, and its loads share lines",
             c->step, dense, k, 4 * c->step, sparse, c->step);
    return 1;
  }
  /* Fewer lines that cost less are lines a cache still holds: the pages
   * are not past every level. */
  if (sparse < dense * (1 - CACHED_LINES)) {
    snprintf(why, whylen,
             "loads %zu bytes apart cost %.1f cycles at %.0f pages, loads %zu apart %.1f: a cache "
             "still holds some of the lines",
             c->step, dense, k, 4 * c->step, sparse);
    return 2;
  }
  return 0;
}

double
caches_run_chain(struct cc *c, size_t n, double k, const char *what)
{
  struct xray__chase ch = { c->off, n, XRAY__ARENA_HUGE, 1 };
  struct xray__ask a = { .kind = XRAY__ASK_CHASE, .chase = &ch };
  struct xray__got g = xray__machine_measure(c->m, "caches", what, k, &a);

  if (isnan(g.y)) {
    c->failed = 1;
    c->unrecorded = g.status == XRAY__UNRECORDED;
    c->noroom = g.status == XRAY__NO_ROOM;
  }
  return g.y;
}

/* One more draw of point p; a draw the machine had no memory for (a
 * limit such as ulimit -v: a point of more pages, or pages drawn from a
 * larger pool) is taken back, and no more are made (c->out_of_room): the
 * curve ends with the points it has, as at a deadline. */
void
caches_one_draw(struct cc *c, struct pt *p)
{
  p->v[p->draws++] = caches_run_chain(c, caches_lay_out(c, p->k, 0), p->k, "chase-pages");
  if (c->failed && c->noroom) {
    p->draws--;
    c->failed = c->noroom = 0;
    c->out_of_room = 1;
  }
}

void
caches_add_draws(struct cc *c, struct pt *p, int want)
{
  while (p->draws < want && !c->failed && !c->out_of_room && !(p->draws > 0 && caches_late(c)))
    caches_one_draw(c, p);
}
