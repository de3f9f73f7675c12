/* The caches probe's curve (see caches.c): the time per load over random
 * whole pages, its plateaus and transitions, and the draws that refine
 * them (a level's line size is caches.c's). */
#include "caches.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* --- the curve ----------------------------------------------------------- */

/* Plateaus: runs of at least minlen points each within FLAT of the
 * median of the run before it.  (Not of the point before it: the time
 * per load of memory, 2 draws a point on a busy host, zigzags by 5-10 %
 * from point to point and broke its plateau, while a transition that
 * rises 5 % a point passed for one.)  Returns their count; first/last
 * point of each. */
#define FLAT 0.06
/* How much a plateau may rise a point (see plateaus()). */
#define DRIFT 0.02

static int
drifts(const double *y, int a, int b)
{
  return fabs(y[b] - y[a]) > fmax(2 * FLAT, DRIFT * (b - a)) * y[a];
}

static int
plateaus(const double *y, int n, int minlen, int *first, int *last, int max)
{
  int i = 0, np = 0;

  while (i < n && np < max) {
    int j = i;
    double med = y[i];
    while (j + 1 < n && fabs(y[j + 1] - med) <= FLAT * med)
      med = xray__median(y + i, (size_t) (++j - i + 1));
    /* A plateau must not drift: its ends within 2 FLAT, or within
     * DRIFT a point (a shared level's time rises slowly with the
     * footprint, as translation costs and other tenants' share do; a
     * transition, even tree-PLRU's, rises faster).  Drift at its end is
     * the next transition beginning, at its start the slow tail of the
     * last one (a short shared L3 plateau after the L2's step): cut
     * whichever end leaves the longer plateau. */
    int a = i, b = j;
    while (j - i >= 2 && drifts(y, i, j))
      j--;
    while (b - a >= 2 && drifts(y, a, b))
      a++;
    if (b - a > j - i)
      i = a, j = b;
    if (j - i + 1 >= minlen) {
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

/* The median spread of the draws of points a..b (draw_spread). */
#define SPREAD_MAX 0.25
static double
plateau_spread(const struct cc *c, int a, int b)
{
  double v[MAX_PTS];
  int i;

  for (i = a; i <= b; i++)
    v[i - a] = caches_draw_spread(&c->pt[i]);
  return xray__median(v, (size_t) (b - a + 1));
}

int
caches_halves_agree(const struct level *l, double pages)
{
  return fabs(l->half[0] - pages) <= HALVES_AGREE * pages
         && fabs(l->half[1] - pages) <= HALVES_AGREE * pages;
}

/* A plateau shorter than an octave is a level only if it is flat end
 * to end, its draws agree, it is at least twice the one before and 1.5
 * times under the one after (levels are); otherwise it is a stretch of
 * a transition that looked flat (Zen 3's L2 step, not LRU, rises
 * slowly, then jumps, then slowly again; a tree-PLRU level's transition
 * rises 5 % a point for an octave; the shared L3's transition here is a
 * mixture of draws that hit and draws that miss), and its points go
 * back to it. */
static void
drop_short(const struct cc *c, struct shape *S)
{
  int i, *first = S->first, *last = S->last;

  for (i = 1; i < S->np; i++)
    if (last[i] - first[i] + 1 < PER_OCTAVE
        && (fabs(S->sm[last[i]] - S->sm[first[i]]) > FLAT * S->sm[first[i]]
            || plateau_spread(c, first[i], last[i]) > SPREAD_MAX
            || plateau_level(S->sm, first[i], last[i])
                < 2 * plateau_level(S->sm, first[i - 1], last[i - 1])
            || (i + 1 < S->np
                && 1.5 * plateau_level(S->sm, first[i], last[i])
                    > plateau_level(S->sm, first[i + 1], last[i + 1])))) {
      memmove(first + i, first + i + 1, (size_t) (S->np - i - 1) * sizeof *first);
      memmove(last + i, last + i + 1, (size_t) (S->np - i - 1) * sizeof *last);
      S->np--, i--;
    }
}

/* Once the scan has stopped short (see caches_shape_of), the last octave
 * of the scan as one plateau where every point lies within FLAT of their
 * median and the octave does not drift: memory's points have two draws
 * each by then, and zigzag by as much as FLAT from one to the next, which
 * breaks a plateau whose running median they are measured against.
 * Plateaus inside the octave give way to it; one that reaches into it is
 * extended to the end. */
static void
last_octave(const struct cc *c, struct shape *S)
{
  int a = c->npt - PER_OCTAVE, k;
  double med;

  if (a < 1)
    return;
  med = xray__median(S->sm + a, PER_OCTAVE);
  for (k = a; k < c->npt && fabs(S->sm[k] - med) <= FLAT * med; k++)
    ;
  if (k < c->npt || drifts(S->sm, a, c->npt - 1))
    return;
  while (S->np > 0 && S->first[S->np - 1] >= a)
    S->np--;
  /* One that ends where the octave begins joins it only at its level: a
   * step from the level before, sharp enough to leave no point between,
   * is a level of its own. */
  if (S->np > 0 && S->last[S->np - 1] >= a - 1
      && fabs(log(plateau_level(S->sm, S->first[S->np - 1], S->last[S->np - 1]) / med)) < log(1.5))
    S->last[S->np - 1] = c->npt - 1;
  else if (S->np < MAX_PTS) {
    S->first[S->np] = S->np > 0 && S->last[S->np - 1] >= a ? S->last[S->np - 1] + 1 : a;
    S->last[S->np++] = c->npt - 1;
  }
}

/* The levels of the curve so far, the scan having stopped short (cut:
 * see caches_shape_of) or not. */
static void
shape_of(struct cc *c, struct shape *S, int need_ns, int cut)
{
  int i, *first = S->first, *last = S->last;

  for (i = 0; i < c->npt; i++)
    S->y[i] = caches_mean(&c->pt[i]);
  /* Plateaus on the curve smoothed by medians of three: single points
   * disturbed by the host must not split a level. */
  xray__smooth(S->y, S->sm, (size_t) c->npt);
  /* Every plateau, however many: flat stretches of transitions that the
   * rules below take back must not use up the room for the levels after
   * them (a busy host's curve had seven before memory's, and the scan ran
   * to its deadline looking for it). */
  S->np = c->failed ? 0 : plateaus(S->sm, c->npt, 3, first, last, MAX_PTS);
  /* Memory's time per load creeps up with the footprint (DRAM pages, the
   * reach of large pages), about as fast as plateaus() lets a plateau
   * drift, so that its running median falls behind and the plateau
   * breaks in two.  With time left the scan goes on until the last part
   * alone spans an octave; once the scan has stopped short, the last
   * two, back to back, less than 1.5 times apart and not drifting end to
   * end, are taken as one (else the count is lost for want of a few
   * points). */
  if (cut && S->np >= 2 && first[S->np - 1] == last[S->np - 2] + 1
      && plateau_level(S->sm, first[S->np - 1], last[S->np - 1])
          < 1.5 * plateau_level(S->sm, first[S->np - 2], last[S->np - 2])
      && !drifts(S->sm, first[S->np - 2], last[S->np - 1])) {
    last[S->np - 2] = last[S->np - 1];
    S->np--;
  }
  if (cut)
    last_octave(c, S);
  drop_short(c, S);
  S->nl = S->np - 1;
  for (i = 0; i < S->nl && i < MAX_LEVELS; i++) {
    struct level *L = &S->L[i];
    L->lo = plateau_level(S->sm, first[i], last[i]);
    L->hi = plateau_level(S->sm, first[i + 1], last[i + 1]);
    L->a = last[i];
    L->b = first[i + 1];
    L->size = L->line = L->k50 = NAN;
    L->median = 0;
    /* Not a level: merge the plateaus.  A level costs at least 1.5 times
     * the one before it; a rise of 1.23 was Zen 3's L2 losing ways to the
     * host's SMT sibling for a while. */
    if (L->hi < L->lo * 1.5) {
      memmove(first + i + 1, first + i + 2, (size_t) (S->np - i - 2) * sizeof *first);
      last[i] = last[i + 1];
      memmove(last + i + 1, last + i + 2, (size_t) (S->np - i - 2) * sizeof *last);
      S->np--, S->nl--, i--;
    }
  }
  /* More levels than any machine has: keep the first, unsettled. */
  if (S->nl > MAX_LEVELS) {
    S->nl = MAX_LEVELS;
    S->np = MAX_LEVELS + 1;
  }
  S->settled = S->np > 0 && last[S->np - 1] >= c->npt - 3
               && last[S->np - 1] - first[S->np - 1] + 1 >= PER_OCTAVE
               && (S->nl < 1 || S->L[S->nl - 1].hi >= 2 * S->L[S->nl - 1].lo);
  if (S->settled && (need_ns || c->m->hardware))
    S->settled = c->m->core_hz > 0
                 ? plateau_level(S->sm, first[S->np - 1], last[S->np - 1]) / c->m->core_hz >= 50e-9
                 : !need_ns;
}

/* The levels of the curve so far.  It has settled on memory when its
 * last plateau reaches the end of the scan, spans an octave, and is at
 * least twice the level before it (DRAM is; a flat stretch of L3 hits
 * and page walks, which can pass for memory, is not); with a clock
 * (a host's or a model's), no DRAM answers in less than 50 ns either.  A
 * scan stops early only on that clock rule: without it, a long L3
 * plateau looks like memory.
 *
 * A scan that stopped short (its budget spent, or no memory for a longer
 * chain) has its last points read as memory's where they may be (see
 * last_octave).  So has one whose chains reached their longest with the
 * curve still unsettled: a curve that still creeps up there is as
 * settled as it will get (memory's floor rises with the footprint, and a
 * last level that is not LRU still serves some loads at twice its
 * capacity).  A curve settled without that reading keeps its levels. */
void
caches_shape_of(struct cc *c, struct shape *S, int need_ns)
{
  int cut = c->out_of_time || c->out_of_room || caches_short_of_lines(c);

  shape_of(c, S, need_ns, cut);
  if (!S->settled && !cut && c->at_lines_max)
    shape_of(c, S, need_ns, 1);
}

/* Whether transition i, the last, spans more than MERGED_SPAN: the step
 * to memory of a shared last level spans a few octaves at most, so one
 * that spans more is two levels seen as one (see caches_count_levels).
 * Only where other tenants may squeeze the next level: a private level's
 * own step may be as wide (a 4-way or tree-PLRU level under random
 * placement spans up to 14 times). */
int
caches_wide_step(const struct cc *c, const struct shape *S, int i)
{
  return i >= 1 && i == S->nl - 1 && c->m->tenants && S->settled
      && c->pt[S->L[i].b].k > MERGED_SPAN * c->pt[S->L[i].a].k;
}

/* Where the miss fraction of transition L crosses one half, in pages
 * (log-linear between points): a shared level's effective capacity. */
double
caches_half_way(const struct cc *c, const struct shape *S, const struct level *L)
{
  double mid = (L->lo + L->hi) / 2;
  int i;

  for (i = L->a; i < L->b + 1 && i + 1 < c->npt; i++)
    if (S->sm[i] < mid && S->sm[i + 1] >= mid) {
      double t = (mid - S->sm[i]) / (S->sm[i + 1] - S->sm[i]);
      return exp(log(c->pt[i].k) + t * (log(c->pt[i + 1].k) - log(c->pt[i].k)));
    }
  return c->pt[L->b].k;
}

/* The pages any L1 holds whatever their colours: one indexed within a
 * page steps sharply at its capacity in pages plus one, from under a
 * quarter of the step to over three quarters in one point; this is the
 * last point below.  (The scan's points skip some counts, so it is at most
 * that capacity.)  0 where the step is gradual: an L1 whose index reaches
 * above the page (64 KB of 4 ways) has colours of its own, and 9 pages of
 * one L2 colour need not fit it. */
double
caches_l1_pages(const struct cc *c, const struct shape *S)
{
  const struct level *L = &S->L[0];
  double q = (L->hi - L->lo) / 4;
  int j = L->a;

  while (j + 1 <= L->b && S->sm[j + 1] < L->lo + 2 * q)
    j++;
  return S->sm[j] <= L->lo + q && j + 1 < c->npt && S->sm[j + 1] >= L->hi - q ? c->pt[j].k : 0;
}

/* Draws for a point of k pages: up to want, fewer where a draw is long. */
static int
draws_for(const struct cc *c, double k, int want)
{
  double n = (double) FIT_LINES / (ceil(k) * (double) c->lpp);

  return n >= want ? want : n < 4 ? 4 : (int) n;
}

/* Draws for points a..b (but not those marked in skip), up to want each
 * (fewer where a draw is long), in rounds of one draw per point: a phase
 * of the host that lasts a while (other tenants taking most of the
 * shared level for a second) then falls on every point alike, instead of
 * bending the curve at the points it met.  Until the deadline, after
 * which a point with a draw gets no more. */
static void
add_rounds(struct cc *c, int a, int b, const char *skip, int want)
{
  int more = 1, i;

  while (more && !c->failed && !c->out_of_room) {
    more = 0;
    for (i = a; i <= b && !c->failed && !c->out_of_room; i++) {
      struct pt *p = &c->pt[i];
      if ((skip && skip[i]) || p->draws >= draws_for(c, p->k, want))
        continue;
      if (p->draws > 0 && caches_late(c))
        return;
      caches_one_draw(c, p);
      more = 1;
    }
  }
}

/* The least-squares line through (j, y[j]), j = s..e: its slope; *sse
 * gets the sum of its squared residuals. */
static double
line_fit(const double *y, int s, int e, double *sse)
{
  double n = e - s + 1, mx = (s + e) / 2.0, my = 0, sxx = 0, sxy = 0, b;
  int j;

  for (j = s; j <= e; j++)
    my += y[j] / n;
  for (j = s; j <= e; j++) {
    sxx += (j - mx) * (j - mx);
    sxy += (j - mx) * (y[j] - my);
  }
  b = sxx > 0 ? sxy / sxx : 0;
  for (j = s, *sse = 0; j <= e; j++)
    *sse += (y[j] - my - b * (j - mx)) * (y[j] - my - b * (j - mx));
  return b;
}

/* A level in the floors of transition L's points, where none is flat
 * enough for plateaus(): other tenants that never leave a shared level
 * alone make its floor rise a few per cent a point, for an octave or
 * more, between two steps that rise much faster.  The logarithm of the
 * floors, from L's last lower point to where they near memory, is fitted
 * with three lines where they fit best, the middle one at least
 * KNEE_POINTS long and ending before L's upper plateau.  The middle is a
 * level if it rises at most 1 / KNEE_RATIO as fast as either of the
 * others and lies between 1.5 lo and hi / 1.5.  One smooth transition
 * never fits so: the slope of its rise has one peak, so that a middle
 * stretch rises at least as fast as the slower of the two beside it.
 * Other tenants that take most of the level leave less of a knee: the
 * middle still rises at most 1 / KNEE_RATIO as fast as L's own rise, but
 * the rise after it, toward memory, is slow too.  A middle slower than
 * both is still no one transition's, but within the noise of one: such a
 * knee is a level whose count is not confirmed (rise[0] and rise[1] get
 * the middle's and the third line's slopes, in log per point; 0 for a
 * knee by the full ratio).  It keeps L's own rise apart from the rest,
 * which a step taken whole would fit as one level several times L's
 * capacity.  Returns the level (its floors' median), 0 for none; *f and
 * *l the middle's first and last points. */
#define KNEE_POINTS 4
#define KNEE_RATIO 2
static double
knee_level(const struct cc *c, const struct level *L, int *f, int *l, double *rise)
{
  double y[MAX_PTS], v[MAX_PTS], best = HUGE_VAL, lev = 0, mid = 0, after = 0;
  int n, s, e, j, a = L->a;

  /* From where the floors leave L's level (the means leave it first, as
   * some draws meet a colour that overflows) to where they, too, reach
   * memory's (the means may get there first, when other tenants take the
   * level in every draw but a few): the first line is the rise alone. */
  while (a + 1 < L->b && caches_floor(&c->pt[a + 1]) <= (1 + FLAT) * L->lo)
    a++;
  for (j = 0, n = 0; a + j < c->npt && j < MAX_PTS; j++) {
    y[j] = log(v[j] = caches_floor(&c->pt[a + j]));
    n = j + 1;
    if (a + j >= L->b && (v[j] >= 0.8 * L->hi || a + j >= L->b + PER_OCTAVE))
      break;
  }
  for (s = 1; s + KNEE_POINTS < n; s++)
    for (e = s + KNEE_POINTS - 1; e + 1 < n && a + e < L->b; e++) {
      double e1, e2, e3, b1 = line_fit(y, 0, s, &e1), b2 = line_fit(y, s, e, &e2),
                         b3 = line_fit(y, e, n - 1, &e3), m;
      if (!(e1 + e2 + e3 < best))
        continue;
      best = e1 + e2 + e3;
      m = xray__median(v + s, (size_t) (e - s + 1));
      lev = KNEE_RATIO * b2 <= b1 && (KNEE_RATIO * b2 <= b3 || b2 < b3) && m >= 1.5 * L->lo
              && 1.5 * m <= L->hi
          ? m
          : 0;
      mid = b2, after = b3;
      *f = a + s, *l = a + e;
    }
  rise[0] = rise[1] = 0;
  if (lev > 0 && !(KNEE_RATIO * mid <= after))
    rise[0] = mid, rise[1] = after;
  return lev;
}

/* The last step after L2 split at the level hidden in it.  Other
 * tenants of a shared level take it in phases, so that at one footprint
 * some draws meet it free and others taken: the mean rises on through
 * the level, but the draws' floor stays near its latency while the
 * footprint still fits (on Zen 4 and Zen 5 hosts, for an octave or more
 * while the means rose up to five-fold).  Where the floor of the step's
 * points has a plateau that is a level (by the curve's rules: flat end to
 * end if shorter than an octave, 1.5 times over the level before and
 * under memory), or else a knee_level(), the step is two: L2's
 * transition to it, fitted to the points' medians, and the shared level's
 * own, from its last point to memory.  Only after L2: past a shared
 * level, a plateau in the floor of its fade would pass for a level of
 * its own.  Returns whether it split; S->floor is then the new level's
 * plateau. */
int
caches_split_wide(struct cc *c, struct shape *S)
{
  double fl[MAX_PTS], sm[MAX_PTS], lev = 0;
  int i = S->nl - 1, j, n, np, f[MAX_PTS], l[MAX_PTS], p, a, b, first = 0, last = 0;

  S->floor = 0;
  S->knee[0] = S->knee[1] = 0;
  if (i != 1 || !c->m->tenants || !S->settled || S->np >= MAX_LEVELS + 1)
    return 0;
  a = S->L[i].a;
  b = S->L[i].b;
  add_rounds(c, a, b, NULL, FIT_DRAWS);
  if (c->failed || b - a < 4)
    return 0;
  for (j = a + 1, n = 0; j < b; j++)
    fl[n++] = caches_floor(&c->pt[j]);
  xray__smooth(fl, sm, (size_t) n);
  np = plateaus(sm, n, 3, f, l, MAX_PTS);
  /* As on the curve: plateaus less than 1.5 times apart are one level
   * (the floor, too, drifts up as the footprint grows, and plateaus()
   * cuts a drifting stretch in two). */
  for (p = 0; p + 1 < np; p++)
    if (plateau_level(sm, f[p + 1], l[p + 1]) < 1.5 * plateau_level(sm, f[p], l[p])) {
      l[p] = l[p + 1];
      memmove(f + p + 1, f + p + 2, (size_t) (np - p - 2) * sizeof *f);
      memmove(l + p + 1, l + p + 2, (size_t) (np - p - 2) * sizeof *l);
      np--, p--;
    }
  for (p = 0; p < np; p++) {
    lev = plateau_level(sm, f[p], l[p]);
    if ((l[p] - f[p] + 1 >= PER_OCTAVE || fabs(sm[l[p]] - sm[f[p]]) <= FLAT * sm[f[p]])
        && lev >= 1.5 * S->L[i].lo && 1.5 * lev <= S->L[i].hi)
      break;
  }
  if (p < np)
    first = a + 1 + f[p], last = a + 1 + l[p];
  else if (!((lev = knee_level(c, &S->L[i], &first, &last, S->knee)) > 0))
    return 0;
  /* Plateau np - 1 is memory's; the new one goes before it. */
  S->first[S->np] = S->first[S->np - 1];
  S->last[S->np] = S->last[S->np - 1];
  S->first[S->np - 1] = first;
  S->last[S->np - 1] = last;
  S->floor = S->np - 1;
  S->np++;
  S->nl++;
  S->L[i + 1] = S->L[i];
  S->L[i].hi = S->L[i + 1].lo = lev;
  S->L[i].median = 1;
  S->L[i].b = S->first[S->floor];
  S->L[i + 1].a = S->last[S->floor];
  return 1;
}

/* A point's time for a transition's fit: the mean of its draws, which
 * differ by their pages' colours (see caches_mean); or their median where
 * other tenants' misses of the next level add a tail of slow draws (see
 * caches_split_wide).  The colours spread the draws about evenly either
 * side, so the median follows the miss fraction as the mean does, but
 * the tail moves the mean alone, and a fit to means would read the level
 * as missing more, that is, as smaller than it is. */
static double
point_y(const struct pt *p, int median)
{
  return median ? xray__median(p->v, (size_t) p->draws) : caches_mean(p);
}

/* Fit one transition: refine its points with more draws (fewer where a
 * draw is long), normalise. */
void
caches_analyse(struct cc *c, struct level *L, double *y)
{
  double k[MAX_PTS], f[MAX_PTS], w[MAX_PTS], k50 = 0;
  struct fitdata d = { k, f, w, 0, NULL, NULL };
  int h, i, a = L->a > 0 ? L->a - 1 : 0, b = L->b + 1 < c->npt ? L->b + 1 : c->npt - 1;

  add_rounds(c, a, b, NULL, FIT_DRAWS);
  for (i = a; i <= b; i++)
    y[i] = point_y(&c->pt[i], L->median);
  for (i = a; i <= b; i++) {
    k[d.n] = L->fk[d.n] = c->pt[i].k;
    f[d.n] = L->ff[0][d.n] = (y[i] - L->lo) / (L->hi - L->lo);
    w[d.n] = 1;
    if (!(k50 > 0) && f[d.n] >= 0.5)
      k50 = k[d.n];
    d.n++;
  }
  if (!(k50 > 0))
    k50 = c->pt[L->b].k;
  caches_fit_level(&d, k50, &L->fit);
  L->fit.n = L->fn = d.n;
  L->fit.rms = d.n ? sqrt(L->fit.err / d.n) : HUGE_VAL;
  /* A second view: the same model fitted to the even and to the odd
   * draws of every point, which differ in their pages and (the rounds
   * interleave) in when they ran. */
  for (h = 0; h < 2; h++) {
    struct fit fh;
    for (i = a; i <= b; i++) {
      struct pt half = { c->pt[i].k, { 0 }, 0 };
      int j;
      for (j = h; j < c->pt[i].draws; j += 2)
        half.v[half.draws++] = c->pt[i].v[j];
      f[i - a] = half.draws ? (point_y(&half, L->median) - L->lo) / (L->hi - L->lo) : f[i - a];
      L->ff[1 + h][i - a] = f[i - a];
    }
    caches_fit_level(&d, k50, &fh);
    L->half[h] = fh.A > 0 ? fh.P * fh.A : NAN;
  }
}

/* More draws for the points that lie on no plateau, and many for those
 * on one shorter than an octave and their neighbours (a flat stretch of
 * a transition, until draws enough show otherwise: Zen 3's L2 step read
 * 26, 26, 27 cycles at 8 draws a point, 21, 22, 27 at 40); returns how
 * many points changed. */
int
caches_refine_slopes(struct cc *c, const struct shape *S)
{
  char skip[MAX_PTS], many[MAX_PTS];
  int i, p = 0, changed = 0;

  memset(many, 0, sizeof many);
  for (i = 0; i < S->np; i++)
    if (S->last[i] - S->first[i] + 1 < PER_OCTAVE) {
      int j;
      for (j = S->first[i] > 0 ? S->first[i] - 1 : 0; j <= S->last[i] + 1 && j < c->npt; j++)
        many[j] = 1;
    }
  for (i = 0; i < c->npt; i++) {
    while (p < S->np && S->last[p] < i)
      p++;
    skip[i] = (p < S->np && i >= S->first[p] && !many[i])
              || c->pt[i].draws >= draws_for(c, c->pt[i].k, SLOPE_DRAWS);
    changed += !skip[i];
  }
  add_rounds(c, 0, c->npt - 1, skip, SLOPE_DRAWS);
  for (i = 0; i < c->npt; i++) {
    skip[i] = !many[i] || c->pt[i].draws >= draws_for(c, c->pt[i].k, FIT_DRAWS);
    changed += !skip[i];
  }
  add_rounds(c, 0, c->npt - 1, skip, FIT_DRAWS);
  return changed;
}

/* Points from K_MIN pages up, PER_OCTAVE to the octave, until the curve
 * settles on memory, the chain would pass c->lines_max loads or (on the real
 * machine) SCAN_BUDGETS budgets have passed; a later call goes on from
 * where the last one stopped.  Returns 1 if it can go on. */
int
caches_scan(struct cc *c, struct shape *S)
{
  double r = pow(2, 1.0 / PER_OCTAVE), x;

  for (; c->npt < MAX_PTS; c->next++) {
    x = K_MIN * pow(r, c->next);
    x = x < 1 ? floor(x * (double) c->lpp + 0.5) / (double) c->lpp : floor(x + 0.5);
    if (ceil(x) * (double) c->lpp > (double) c->lines_max) {
      c->at_lines_max = 1;
      return 0;
    }
    if (c->npt && x <= c->pt[c->npt - 1].k)
      continue;
    if (c->start > 0 && xray__now() > c->start + SCAN_BUDGETS * c->m->budget) {
      c->out_of_time = 1;
      return 0;
    }
    if (c->out_of_room)
      return 0;
    c->pt[c->npt].k = x;
    c->pt[c->npt].draws = 0;
    caches_add_draws(c, &c->pt[c->npt], SCAN_DRAWS);
    /* No memory for a draw of this point: the scan ends at the points
     * before it (and this one, where a draw of it was made). */
    if (c->out_of_room) {
      c->npt += c->pt[c->npt].draws > 0;
      return 0;
    }
    /* A replay that holds no draw of a new point replays a run whose
     * scan stopped before it, at its deadline: the scan ends there too
     * (an untimed machine has no deadline of its own to stop it). */
    if (c->failed && c->unrecorded && c->pt[c->npt].draws == 1 && c->npt > 0) {
      c->failed = c->unrecorded = 0;
      c->out_of_time = 1;
      return 0;
    }
    c->npt++;
    if (c->failed)
      return 0;
    if (x >= 16) {
      caches_shape_of(c, S, 1);
      if (S->settled) {
        c->next++;
        return 1;
      }
    }
  }
  return 0;
}
