/* The tlb probe's ways (see tlb.c): the first level's from pages 4096
 * apart, the second level's from pages 4096 apart among pages that keep
 * the first level missing, counted at several starts. */
#include "tlb.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Counts v[0..n-1] as text, each after a space (" 4 7 6 8"), in s. */
const char *
tlb_counts_text(const size_t *v, size_t n, char *s, size_t size)
{
  size_t i, len = 0;

  s[0] = 0;
  for (i = 0; i < n && len < size; i++)
    len += (size_t) snprintf(s + len, size - len, " %zu", v[i]);
  return s;
}

/* The entries nearest e that are w ways of a power of two sets, if e is
 * within SETS_SNAP of them; else 0. */
static size_t
snap_sets(size_t w, size_t e)
{
  double snapped = (double) w * exp2(floor(log2((double) e / (double) w) + 0.5));

  return fabs(snapped - (double) e) <= SETS_SNAP * (double) e ? (size_t) snapped : 0;
}

/* Whether the first level's exact count and its ways disagree: a set-
 * associative level holds its ways times a power of two sets, and a count
 * that is not was cut short by entries something else held (the host's
 * SMT sibling, or the chase's own code and stack pages, which fill some
 * sets a way early): either count may be the short one. */
int
tlb_ways_disagree(const struct found *f)
{
  return f->exact[0] && f->ways && 2 * f->ways <= f->e[0] && snap_sets(f->ways, f->e[0]) != f->e[0];
}

/* The first level's ways, from pages 4096 apart. */
void
tlb_report_dtlb_ways(struct tc *c, struct found *f, struct tvals *v)
{
  char method[200];

  if (c->failed)
    xray__value_unknown(v->a1, c->m->error);
  else if (!f->ways)
    xray__value_unknown(v->a1, "no clean step with pages 4096 apart");
  else {
    snprintf(method, sizeof method, "pages 4096 apart, one line each, less the same lines "
             "packed: translation costs from %zu pages on%s", f->ways + 1,
             2 * f->ways > f->e[0] ? ", more than half the entries: fully associative" : "");
    xray__value_measured(v->a1, (double) (2 * f->ways > f->e[0] ? f->e[0] : f->ways), method);
    if (tlb_ways_disagree(f))
      xray__value_doubt(v->a1,
                        "; not confirmed: %zu entries are not %zu ways times a power "
                        "of two sets, so one count is short",
                        f->e[0], f->ways);
  }
}

/* Pages 4096 apart, among fill pages that keep the first level missing,
 * from which on they cost a walk: the second level's ways (0: no clean
 * step). */
static size_t
count_l2_ways(struct tc *c, const struct found *f, size_t fill)
{
  size_t w;

  c->fill = fill;
  w = tlb_ramp_count(c, WAYS_STRIDE, 1, WAYS2_MAX, (f->st[1].hi - f->st[0].hi) / 8);
  c->fill = 0;
  return w;
}

/* The second level's ways counted where its pages start elsewhere.  Pages
 * 4096 apart share one set of a level indexed by the page number's low
 * bits wherever they start, and every start gives the same count.  On
 * some levels the count changes with the start instead, and repeats at
 * one start: one whose index takes in more of the address puts the fill
 * pages in the strided pages' set at some starts, and entries that the
 * chase does not make (the walks' own, the host's) hold ways of some sets
 * for a while.  A count taken again at the same start is then no second
 * view, and two starts can give the same short count.  So they are
 * counted at starts an odd number of pages apart (other sets of any
 * hashed index), three at least, and until the most any count came to
 * has come twice: a way held only ever shortens a count, so that most is
 * the level's.  Unless a count fell below three quarters of it: then
 * something held ways through several counts, and may have held them
 * through all (the host takes them for seconds at a time), so the most
 * is not confirmed, and no more are counted. */
#define PLACEMENTS 5
#define PLACED_MIN 3
static const size_t place_shift[PLACEMENTS] = { 0, 1031, 2053, 3079, 4093 };

struct placed {
  size_t w[PLACEMENTS], n, most, times, least; /* least: of the counts not 0 */
  char why[120]; /* why no more were counted, if they stop short */
};

/* Whether the counts so far spread too far to confirm their most. */
static int
placed_spread(const struct placed *k)
{
  return 4 * k->least < 3 * k->most;
}

/* The counts at place_shift's starts, in turn, into k (see above). */
static void
count_placed(struct tc *c, const struct found *f, size_t fill, struct placed *k)
{
  while (k->n < PLACEMENTS && (k->n < PLACED_MIN || k->times < 2) && !placed_spread(k)) {
    size_t w;
    if (k->n && tlb_late(c)) {
      snprintf(k->why, sizeof k->why, "the time budget (--budget) was spent");
      return;
    }
    c->shift = place_shift[k->n];
    w = count_l2_ways(c, f, fill);
    c->shift = 0;
    if (c->failed && k->n) {
      /* A start this process cannot map, or one a recording does not
       * hold: the counts so far stand, unconfirmed. */
      snprintf(k->why, sizeof k->why, "%s", c->m->error);
      c->failed = 0;
      return;
    }
    k->w[k->n++] = w;
    if (w > k->most)
      k->most = w, k->times = 1;
    else if (w && w == k->most)
      k->times++;
    if (w && (!k->least || w < k->least))
      k->least = w;
    if (c->failed || !k->most || 2 * k->most > f->e[1])
      return;
  }
}

/* The second level's ways, from pages 4096 apart among pages that keep
 * the first level missing; they must divide its entries. */
void
tlb_l2_ways(struct tc *c, struct found *f, struct tvals *v)
{
  char method[320], why[300], counts[48], src[48];
  double os;

  /* Ways of the second level: pages 4096 apart again, now with more
   * pages than the first level holds in its other sets (the fill below),
   * so that every load looks the second level up; the strided pages cost
   * a walk once they outnumber its ways.  Their first walk adds a walk per
   * pass over all the pages, so the step looked for is an eighth of a
   * walk.  The ways must divide the entries (a pass in which the host's
   * sibling thread held an entry counts one way short). */
  if (f->ns > 1 && f->exact[1] && !c->failed) {
    /* A quarter more pages than the first level holds put more than its
     * ways in each of its sets where it has four ways or more; with
     * fewer (a direct-mapped level), one more page a set does.  Else
     * the pages alone in a set hit it, every strided page (all of them
     * miss it) costs a little more than the average load, and their
     * slope ends the floor early: a 4-way second level read 2. */
    size_t sets1 = f->ways && f->ways < f->e[0] ? f->e[0] / f->ways : 1;
    size_t fill = f->e[0] + (f->e[0] / 4 > sets1 ? f->e[0] / 4 : sets1) + 1, w2, snapped = 0;
    struct placed k = { .n = 0 };
    int again = 0;

    count_placed(c, f, fill, &k);
    w2 = k.most;
    tlb_counts_text(k.w, k.n, counts, sizeof counts);
    /* A count that is not the ways x a power of two sets may be one
     * that the host cut short or drew out (it holds entries for a while,
     * or slows a pass): counted once more, from the start, and the new
     * count must fit the ways on its own. */
    if (!c->failed && w2 && 2 * w2 <= f->e[1] && !(snapped = snap_sets(w2, f->e[1]))
        && (again = !tlb_late(c))) {
      size_t e, s;
      char w[200];
      if (!tlb_exact_l2(c, f, &e, &s, w, sizeof w) && (snapped = snap_sets(w2, e)))
        f->e1_recounted = f->e[1], f->e[1] = e, f->stride[1] = s;
    }
    if (c->failed)
      xray__value_unknown(v->a2, c->m->error);
    else if (!w2)
      xray__value_unknown(v->a2, "no clean step with pages 4096 apart among pages that keep "
                          "the first level missing");
    else if (2 * w2 > f->e[1]) {
      xray__value_measured(v->a2, (double) f->e[1], "pages 4096 apart among pages that keep the "
                           "first level missing: more than half the entries in one set, "
                           "fully associative");
      f->e1_counted = f->e[1];
    } else if (!snapped) {
      snprintf(why, sizeof why,
               "pages 4096 apart among pages that keep the first level "
               "missing cost from %zu pages on (counts at %zu starts:%s), and %zu entries (%s) "
               "are not %zu ways of a power of two sets",
               w2 + 1, k.n, counts, f->e[1],
               again ? "counted twice" : "not counted again: the time budget (--budget) was spent",
               w2);
      xray__value_unknown(v->a2, why);
      snprintf(f->e1why, sizeof f->e1why, "not its ways x a power of two sets");
    } else {
      /* The fit to the entries is no second view of the ways: a power-
       * of-two count fits every power of two ways, and counts short by
       * a held way or two fit some other.  The counts at other starts
       * are that view: their most, twice.  The entries keep the fit as
       * their own check: an exact count within SETS_SNAP of ways x a
       * power of two sets is one few wrong counts come to. */
      snprintf(method, sizeof method,
               "pages 4096 apart among %zu that keep the first level "
               "missing, one line each, less the same lines packed: walks from %zu pages on "
               "(counts at %zu starts:%s)",
               fill, w2 + 1, k.n, counts);
      xray__value_measured(v->a2, (double) w2, method);
      if (placed_spread(&k))
        xray__value_doubt(v->a2,
                          "; not confirmed: a count below three quarters of the most "
                          "says other entries held ways of the set");
      else if (k.times < 2)
        xray__value_doubt(v->a2, "; not confirmed: the most came once%s%s",
                          k.why[0] ? "; not counted at another start: " : "", k.why);
      else if (xray__os_view(c->m, v->a2->name, &os, src, sizeof src) == 0 && os > (double) w2)
        /* Entries held for seconds (the host's other thread) shorten
         * every count alike, and a short count is a power of two as
         * often as the right one.  A count never comes out long, so
         * more ways in the processor's own description leave the most
         * in doubt (were they a hypervisor's invention, the count loses
         * its confirmation only); fewer there say nothing against it. */
        xray__value_doubt(v->a2,
                          "; not confirmed: %s says %.0f ways, and entries held by "
                          "another thread shorten every count alike",
                          src, os);
      f->e1_counted = f->e[1];
      f->e[1] = snapped;
    }
  } else
    xray__value_unknown(v->a2, f->ns > 1 ? "needs the second level's exact entry count, which was "
                        "not established"
                        : "one step only in the translation cost up to 16384 pages");
}
