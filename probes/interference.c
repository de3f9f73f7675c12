/* The distances at which variables interfere: what C++ calls
 * std::hardware_destructive_interference_size and
 * std::hardware_constructive_interference_size, measured here rather
 * than assumed (compilers hard-code 64, 128 or 256).
 *
 *   XRAY_DESTRUCTIVE_INTERFERENCE  the first usable CPU and another core
 *       each increment a word of their own, D bytes apart, D = 8 ... 1024,
 *       and 8192 for reference.  Words in one line slow each other many
 *       times over (the line moves on every write); a prefetcher that
 *       pairs lines slows words in neighbouring lines too.  The value is
 *       the least D from which on no distance is slowed by more than
 *       CLEAN, and D/2 must be slowed by at least SLOWED (a clear knee).
 *   XRAY_CONSTRUCTIVE_INTERFERENCE  one thread chases pairs of loads
 *       through a footprint past the L2 (so the first load of a pair
 *       misses it): the last line of an aligned block of B bytes, then its
 *       first, B = 2, 4 and 8 lines (pairs_for: how many); the reference
 *       is the same distance and direction across the boundary of two
 *       blocks of B.  Where one miss brings the whole aligned block of B
 *       (an adjacent-line prefetcher), the second load inside hits: the
 *       pairs save at least WHOLE of the second load's miss (whole_share);
 *       at most MISSED, it missed.  A next-line or up/down prefetcher, or
 *       an open DRAM page, helps both alike.  The value is the one B whose
 *       pairs come whole, every other clearly missing (whole_at), or the
 *       line where none does.
 *
 * Each comes from interleaved rounds, ROUNDS at a time, at most
 * MAX_ROUNDS: the destructive size's until two rounds agree on each
 * distance (settled_knee), the constructive's until each layout's fastest
 * round is seen again (seen_twice), and it is measured on the fastest.
 * The destructive size is confirmed when most rounds' own curves have the
 * same knee, the constructive when each layout's second fastest round
 * gives the same size; each only where the other size, found by the other
 * method, is the same (without an adjacent-line prefetcher both are the
 * line; with one, both are its block). */
#include "probes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 3 /* rounds at a time */
#define MAX_ROUNDS 12 /* of the destructive size */
#define ROUNDS_AGREE 1.1 /* ratio of two rounds that agree, at most (a spike is 1.5x) */
#define ND 8 /* distances 8 ... 1024 */
#define FAR 8192
#define SLOWED 1.5
#define CLEAN 1.15
#define NB 3 /* blocks of 2, 4, 8 lines */
/* What pairs inside a block saved, as a share of what the second load
 * would save if it hit the L2 (whole_share): a block whose second load
 * saved at least WHOLE of that came whole; at most MISSED (the second
 * load missed at least as often as it hit), it did not.  A share, not a
 * ratio of times, because the gap between a miss past the L2 and an L2
 * hit differs from core to core; and on some (a slice or sector of the
 * L3 that serves a line's neighbour a few cycles sooner, a prefetcher
 * that serves some misses) pairs in one block gain part of a miss without
 * the block coming whole.  PAST_L2: the reference's loads must take this
 * many times the hit, or the pairs did not miss the L2 enough to tell. */
#define WHOLE 0.7
#define MISSED 0.5
#define PAST_L2 1.5

/* The destructive knee of q[0..n-1] (slowdowns at growing distances):
 * the least i from which on every q is at most CLEAN, with q[i - 1] at
 * least SLOWED; -1 if there is none. */
static int
clean_from(const double *q, int n)
{
  int i = n;

  while (i > 0 && q[i - 1] <= CLEAN)
    i--;
  return i > 0 && i < n && q[i - 1] >= SLOWED ? i : -1;
}

/* The block a miss brings whole, from f[0..n-1] (whole_share at blocks of
 * 2, 4, ... lines; pairs): a miss that brings a block of P bytes brings
 * the pairs inside every block up to P whole, and those across a boundary
 * of B < P too (they lie in one block of 2B), so only the pairs at B = P
 * gain.  i + 1 where f[i] alone came whole (at least WHOLE) and every
 * other clearly missed (at most MISSED); 0 where every one missed (the
 * line comes alone); -1 if unclear, where some f is not a number, or
 * where pairs inside a block took longer by more than a block that came
 * whole would save (below -1: a disturbance, which could hide a block
 * that came whole as well). */
static int
whole_at(const double *f, int n)
{
  int i, at = 0;

  for (i = 0; i < n; i++)
    if (!(f[i] >= -1))
      return -1;
    else if (f[i] >= WHOLE && !at)
      at = i + 1;
    else if (f[i] > MISSED)
      return -1;
  return at;
}

/* The share of a second load's miss that pairs inside a block saved: a
 * pair across blocks takes 2 across (both loads miss), one inside takes
 * 2 inside; had the second load hit the L2 (hit cycles), it would take
 * across + hit.  1: the block came whole; 0: nothing saved; NAN where
 * the pairs across took no longer than hits. */
static double
whole_share(double inside, double across, double hit)
{
  return across > hit ? 2 * (across - inside) / (across - hit) : NAN;
}

static double
race(xray_machine *m, int a, int b, size_t dist)
{
  struct xray__duo d;
  struct xray__ask ask = { .kind = XRAY__ASK_DUO, .duo = &d };

  memset(&d, 0, sizeof d);
  d.kind = XRAY__DUO_WRITES;
  d.a = a;
  d.b = b;
  d.dist = dist;
  return xray__machine_measure(m, "interference", "writes", (double) dist, &ask).y;
}

/* y[0..n-1] in t, fastest first. */
static void
sort_rounds(const double *y, int n, double *t)
{
  memcpy(t, y, (size_t) n * sizeof *t);
  xray__sort(t, (size_t) n);
}

/* The fastest of y[0..n-1] in *lo, the next in *hi: 1 where they agree
 * within ROUNDS_AGREE (a chase has no fast outliers; a disturbance only
 * slows it, and seldom two rounds alike). */
static int
seen_twice(const double *y, int n, double *lo, double *hi)
{
  double t[MAX_ROUNDS];

  sort_rounds(y, n, t);
  *lo = t[0];
  *hi = t[1];
  return t[1] <= ROUNDS_AGREE * t[0];
}

/* The knee of nr rounds y[distance][round] once they settle it, with the
 * slowdowns in q; -1 while they do not.  A disturbance slows a round, and
 * a partner that stalled for a while (the duo counts only rounds in which
 * it ran) makes one fast.  So a reading counts once two rounds agree
 * (within ROUNDS_AGREE, which a spike of 1.5 to 6 times seldom does): the
 * reference's fastest round and each clean distance's (at most CLEAN)
 * seen twice, each slowed distance's fastest time seen twice at least
 * SLOWED; and the curve must be slowed below the knee and clean from it
 * (the distances at which writes interfere are those below one line or
 * one prefetched block), or some reading is still a disturbance. */
static int
settled_knee(double (*y)[MAX_ROUNDS], int nr, double *q)
{
  double t[MAX_ROUNDS], ref, next;
  int i, p, k = -1, ok = seen_twice(y[ND], nr, &ref, &next);

  for (i = 0; i < ND; i++) {
    sort_rounds(y[i], nr, t);
    q[i] = t[0] / ref;
    if (q[i] <= CLEAN) {
      ok &= t[1] <= ROUNDS_AGREE * t[0];
      if (k < 0)
        k = i;
      continue;
    }
    for (p = 0; p + 1 < nr && t[p + 1] > ROUNDS_AGREE * t[p]; p++)
      ;
    q[i] = t[p] / ref;
    ok &= p + 1 < nr && q[i] >= SLOWED && k < 0;
  }
  return ok && k > 0 ? k : -1;
}

static void
destructive(xray_machine *m, const xray_report *rep, double deadline, xray_value *v,
            int *knee_round_agree)
{
  int cpu[XRAY__MAX_CPUS];
  double y[ND + 1][MAX_ROUNDS], q[ND];
  char why[400];
  int n = xray__machine_cpus(m, cpu, XRAY__MAX_CPUS), j, r, i, k = -1, nr = 0, settled = 1;

  *knee_round_agree = 0;
  if (n > XRAY__MAX_CPUS)
    n = XRAY__MAX_CPUS;
  if ((j = xray__other_core(m, rep, cpu, n, why, sizeof why)) < 0) {
    (n < 2 ? xray__value_moot : xray__value_unknown)(v, why);
    return;
  }
  /* Rounds, ROUNDS at a time, until they settle the knee. */
  while (k < 0 && nr < MAX_ROUNDS && !(nr && xray__past(deadline))) {
    for (r = nr; r < nr + ROUNDS; r++)
      for (i = 0; i <= ND; i++)
        if (isnan(y[i][r] = race(m, cpu[0], cpu[j], i < ND ? (size_t) 8 << i : FAR))) {
          xray__value_unknown(v, m->error);
          return;
        }
    nr += ROUNDS;
    k = settled_knee(y, nr, q);
  }
  if (k < 0) {
    /* Unsettled: the knee of each distance's fastest round, where it is
     * clear, not confirmed. */
    double t[MAX_ROUNDS], ref;
    sort_rounds(y[ND], nr, t);
    ref = t[0];
    for (i = 0; i < ND; i++) {
      sort_rounds(y[i], nr, t);
      q[i] = t[0] / ref;
    }
    if ((k = clean_from(q, ND)) < 0) {
      snprintf(why, sizeof why,
               "no clear knee: increments of words 8, 16, ... 1024 bytes apart on CPUs %d and "
               "%d took %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f times those 8192 apart "
               "(fastest of %d rounds)",
               cpu[0], cpu[j], q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7], nr);
      xray__value_unknown(v, why);
      return;
    }
    settled = 0;
  }
  snprintf(why, sizeof why,
           "two cores (CPUs %d, %d) incrementing words D bytes apart: slowed "
           "%.1f times at %d bytes, %.2f at %d (%d rounds)",
           cpu[0], cpu[j], q[k - 1], 8 << (k - 1), q[k], 8 << k, nr);
  xray__value_measured(v, (double) (8 << k), why);
  for (r = 0, i = 0; r < nr; r++) {
    double qr[ND];
    int d;
    for (d = 0; d < ND; d++)
      qr[d] = y[d][r] / y[ND][r];
    i += clean_from(qr, ND) == k;
  }
  *knee_round_agree = 2 * i > nr;
  if (!settled)
    xray__value_doubt(v,
                      "; not confirmed: %d rounds did not settle it (no two rounds agreed "
                      "on some distance, or the curve was not slowed below its knee and "
                      "clean from it)%s",
                      nr, nr < MAX_ROUNDS ? "; the time budget (--budget) was spent" : "");
}

/* Cycles per load of K pairs of loads B - line bytes apart, backwards,
 * in slots of 2B bytes at slot[]: inside one aligned block of B (its last
 * line, then its first) or across the boundary between the slot's two
 * blocks (the second block's first line, then the first block's second).
 * The two differ only in where the aligned block lies: the same distance,
 * direction, and DRAM page.  Both lie in the slot, an aligned block of
 * 2B: where a miss brings a block of 2B or more whole, pairs across come
 * whole too. */
static double
pairs(xray_machine *m, const uint64_t *slot, size_t K, size_t B, double line, int inside,
      uint64_t *off)
{
  char layout[48];
  size_t k;

  for (k = 0; k < K; k++) {
    uint64_t x = slot[k] * 2 * B;
    off[2 * k] = inside ? x + B - (uint64_t) line : x + B;
    off[2 * k + 1] = inside ? x : x + (uint64_t) line;
  }
  snprintf(layout, sizeof layout, "%s-%zu", inside ? "inside" : "across", B);
  return xray__chase_ordered(m, off, 2 * K, XRAY__ARENA_HUGE, "interference", layout);
}

/* K distinct slots of 2K, in random order. */
static void
draw_blocks(uint64_t *blk, size_t K, uint64_t *rng)
{
  size_t i;

  for (i = 0; i < 2 * K; i++)
    blk[i] = i;
  xray__shuffle(blk, 2 * K, rng);
}

/* Pairs for blocks of B bytes: the pairs' lines take 2 of every 2B / line
 * line positions, so they load the L2's sets they use LOAD times over
 * (they miss it, whatever its policy) with LOAD x L2 / B lines, and the
 * L3's only LOAD x L2 / L3 times (they hit it).  LOAD is 3, or 2 where
 * the L3 is less than 6 L2. */
static size_t
pairs_for(const double *level, int nl, size_t B)
{
  double load = nl >= 3 && level[2] < 6 * level[1] ? 2 : 3;

  return (size_t) (load * level[1] / (2.0 * (double) B));
}

static void
constructive(xray_machine *m, xray_report *rep, double *deadline, xray_value *v, int *agree)
{
  double level[4], lat[4], line, y[NB][2][MAX_ROUNDS], t[NB][2][2], f[NB], miss, hit;
  char why[400];
  int nl = xray__data_levels(m, rep, level, NULL, lat, 4, &line, why, sizeof why), r, b, i, k;
  int nr = 0, settled = 0;
  size_t K;
  uint64_t *blk, *off, rng = 0xc0ffee11ULL;

  /* The budget starts once the levels are known (they may be another
   * probe's run): one for both sizes' further rounds. */
  *deadline = xray__budget_deadline(m);
  *agree = 0;
  if (nl < 2) {
    xray__value_unknown(v, why[0] ? why : "one cache level: no L2 to miss");
    return;
  }
  K = pairs_for(level, nl, (size_t) (2 * line));
  blk = malloc(2 * K * sizeof *blk);
  off = malloc(2 * K * sizeof *off);
  if (!blk || !off) {
    free(blk);
    free(off);
    xray__value_unknown(v, "out of memory");
    return;
  }
  /* The L2's hit: the caches probe's latency, else (values given without
   * it) a chase through four L1Ds' worth of lines, or half the L2 where
   * that is less (some may hit the L1D: a lower bound, with which a block
   * seems to save less, so it comes whole less readily). */
  hit = lat[1];
  if (!isfinite(hit)) {
    size_t n = (size_t) (fmin(level[1] / 2, 4 * level[0]) / line), j;
    for (j = 0; j < n && j < 2 * K; j++)
      off[j] = (uint64_t) j * (uint64_t) line;
    hit = xray__chase_time(m, off, j, XRAY__ARENA_HUGE, &rng, "interference", "l2-hit");
    if (!(hit > 0)) {
      free(blk);
      free(off);
      xray__value_unknown(v, m->error[0] ? m->error : "the L2's hit could not be timed");
      return;
    }
  }
  /* Rounds, ROUNDS at a time, until each layout's fastest time is seen
   * again, within the budget. */
  while (K && !settled && nr < MAX_ROUNDS && !(nr && xray__past(*deadline))) {
    for (r = nr; r < nr + ROUNDS && K; r++)
      for (b = 0; b < NB && K; b++) {
        size_t B = (size_t) line << (b + 1), kb = pairs_for(level, nl, B);
        draw_blocks(blk, kb, &rng);
        y[b][0][r] = pairs(m, blk, kb, B, line, 1, off);
        y[b][1][r] = pairs(m, blk, kb, B, line, 0, off);
        if (kb < 16 || isnan(y[b][0][r]) || isnan(y[b][1][r]))
          K = 0;
      }
    nr += ROUNDS;
    for (b = 0, settled = 1; K && b < NB; b++)
      for (i = 0; i < 2; i++)
        settled &= seen_twice(y[b][i], nr, &t[b][i][0], &t[b][i][1]);
  }
  free(blk);
  free(off);
  if (!K) {
    xray__value_unknown(v, m->error[0] ? m->error : "no footprint to chase");
    return;
  }
  if (!settled) {
    snprintf(why, sizeof why,
             "pairs of loads past the L2: in %d rounds some layout's fastest time was not seen "
             "again within %.0f %% (disturbed)%s",
             nr, 100 * (ROUNDS_AGREE - 1),
             nr < MAX_ROUNDS ? "; the time budget (--budget) was spent" : "");
    xray__value_unknown(v, why);
    return;
  }
  for (b = 0, miss = 0; b < NB; b++) {
    f[b] = whole_share(t[b][0][0], t[b][1][0], hit);
    miss = t[b][1][0] > miss ? t[b][1][0] : miss;
  }
  if (miss < PAST_L2 * hit) {
    snprintf(why, sizeof why,
             "the pairs did not miss the L2: at most %.1f cycles a load, against its hit in %.1f",
             miss, hit);
    xray__value_unknown(v, why);
    return;
  }
  if ((k = whole_at(f, NB)) < 0) {
    snprintf(why, sizeof why,
             "no clear answer: a block's last line then its first, in blocks of "
             "%.0f, %.0f and %.0f bytes, saved %.2f %.2f %.2f of a second miss against the same "
             "across two blocks (whole from %.1f, missed to %.1f; a miss %.1f cycles, a hit %.1f)",
             2 * line, 4 * line, 8 * line, f[0], f[1], f[2], WHOLE, MISSED, miss, hit);
    xray__value_unknown(v, why);
    return;
  }
  snprintf(why, sizeof why,
           "a block's last line then its first, against the same across two blocks, past the L2: "
           "blocks of %.0f, %.0f and %.0f bytes saved %.2f %.2f %.2f of a second miss (%s; a "
           "miss %.1f cycles, a hit %.1f; %d rounds)",
           2 * line, 4 * line, 8 * line, f[0], f[1], f[2],
           k ? "one came whole" : "none came whole: the line comes alone", miss, hit, nr);
  xray__value_measured(v, line * (1 << k), why);
  /* The second view: each layout's second fastest round. */
  for (b = 0; b < NB; b++)
    f[b] = whole_share(t[b][0][1], t[b][1][1], hit);
  *agree = whole_at(f, NB) == k;
}

static int
run_interference(xray_machine *m, xray_report *rep)
{
  xray_value *d = xray__report_param(rep, "XRAY_DESTRUCTIVE_INTERFERENCE", NULL, NULL);
  xray_value *c = xray__report_param(rep, "XRAY_CONSTRUCTIVE_INTERFERENCE", NULL, NULL);
  int dagree, cagree;
  double deadline;

  if (!d || !c)
    return -1;
  constructive(m, rep, &deadline, c, &cagree);
  destructive(m, rep, deadline, d, &dagree);
  if (c->source == XRAY_SOURCE_MEASURED && !cagree)
    xray__value_doubt(c,
                      "; not confirmed: each layout's second fastest round gives "
                      "another size");
  if (d->source == XRAY_SOURCE_MEASURED && !dagree)
    xray__value_doubt(d, "; not confirmed: most rounds alone find another knee");
  if (c->source == XRAY_SOURCE_MEASURED && d->source == XRAY_SOURCE_MEASURED
      && c->value != d->value) {
    if (!c->unconfirmed)
      xray__value_doubt(c, "; not confirmed: two writers interfere up to %.0f bytes", d->value);
    if (!d->unconfirmed)
      xray__value_doubt(d, "; not confirmed: one miss brings %.0f bytes", c->value);
  } else if (d->source != XRAY_SOURCE_MEASURED && c->source == XRAY_SOURCE_MEASURED
             && !c->unconfirmed)
    xray__value_doubt(c, "; not confirmed: the destructive size, its check, is unknown");
  else if (c->source != XRAY_SOURCE_MEASURED && d->source == XRAY_SOURCE_MEASURED
           && !d->unconfirmed)
    xray__value_doubt(d, "; not confirmed: the constructive size, its check, is unknown");
  return 0;
}

const xray_probe xray__probe_interference = { "interference",
                                              "destructive and constructive interference sizes",
                                              run_interference };
