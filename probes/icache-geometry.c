/* L1 instruction-cache associativity and line size, by timing.
 *
 * X-Ray's compact sets (Yotov, Pingali, Stodghill, Sec. 4.2-4.3) applied
 * to code: a chain of code pieces, each ending in a jump to the next, is
 * compact when the L1I holds all of it at once, which shows as the time
 * per piece of a chain that surely fits.
 *
 *  - Ways.  k pieces of h bytes at a stride S that is a multiple of the
 *    way span W = C/A take the same sets: the chain is compact while k <= A
 *    (Theorem 1); at smaller strides they spread over W/S sets and C/S of
 *    them fit.  X-Ray's Fig. 8 doubles S until the limit stops falling:
 *    the ways are that limit and the span the stride where it was first
 *    reached, and the limit at half the span must be about twice as
 *    large.  A x W must give back the capacity the icache probe measured.
 *    The pieces are long (C/16 bytes, shorter if that is more than a
 *    way), and their code runs at one taken jump a cycle from an op cache
 *    or from the decoders alike: an op cache that serves short pieces or
 *    fast code without the L1I holds its own number of them in a set.
 *    Another kind of code (which an op cache does serve faster), or the
 *    OS on hardware, is the second view.
 *  - Line.  X-Ray's block-size experiment: 2j one-statement pieces a way
 *    apart, j of them (half, or every other one) moved by s bytes.  The
 *    whole set is not compact, each half is; the chain becomes compact
 *    once the moved pieces leave the others' line, at s = B.  j is three
 *    quarters of the most such pieces the front end holds in one set (so
 *    that an op cache serving some of them changes nothing), and the two
 *    ways of choosing the moved half must agree.
 *
 * Both need machine code placed at chosen addresses (kernels/machine-code.c
 * chains); the portable C path cannot place code. */
#include "probes.h"

#include <math.h>
#include <string.h>

/* Pieces in one set at most. */
#define KMAX 64
/* A chain is not compact when a piece costs this much more than in the
 * reference chain, which surely fits.  A missed line costs a fill from the
 * next level, several times a hit's fetch, so half-missed sets clear it. */
#define RISE 0.30
/* A decision takes the majority of this many draws, and of up to
 * MAX_DRAWS where they disagree: a host's other work slows a draw down,
 * and an op cache that captures a set's pieces for a while speeds one
 * up. */
#define DRAWS 3
#define MAX_DRAWS 7
/* The capacity the geometry gives back agrees with the measured one. */
#define GEOMETRY_AGREES 0.03
/* Chain layouts: no piece moved, the second half moved, every other one. */
enum { MOVE_NONE, MOVE_HALF, MOVE_ODD };

struct geo {
  xray_machine *m;
  const struct xray_stmt *s;
  double c; /* the measured L1I capacity */
  uint64_t big; /* the power of two nearest c: a multiple of any way span */
  struct xray__piece p[2 * KMAX];
  int link; /* how a piece leaves for the next (XRAY__LINK_JUMP or _RETURN) */
  uint64_t apart; /* the line experiment's stride between pieces (line_at) */
  int failed; /* a draw could not be timed: m->error says why */
  double deadline; /* where measurements take real time: the budget */
};

static int
moved(int how, size_t i, size_t k)
{
  return how == MOVE_HALF ? i >= k / 2 : how == MOVE_ODD ? (int) (i & 1) : 0;
}

/* One draw: cycles per piece of k pieces of len bytes at stride apart,
 * some moved by shift (how); NAN (and g->failed) if it cannot be timed. */
static double
draw(struct geo *g, size_t k, uint64_t stride, uint32_t len, int how, uint64_t shift)
{
  static const char tag[] = "nho";
  struct xray__jchain c = { g->s, g->p, k, g->link };
  struct xray__ask a = { .kind = XRAY__ASK_JCHAIN, .jchain = &c };
  char label[96];
  size_t i;
  double y;

  if (g->m->timed && xray__now() > g->deadline) {
    snprintf(g->m->error, sizeof g->m->error,
             "the time budget (%.3g s) was spent before the L1I's geometry settled (give a "
             "larger --budget)",
             g->m->budget);
    g->failed = 1;
    return NAN;
  }
  for (i = 0; i < k; i++) {
    g->p[i].off = 4096 + i * stride + (moved(how, i, k) ? shift : 0);
    g->p[i].len = len;
  }
  snprintf(label, sizeof label, "%s/%s/%u/%llu/%c%llu",
           g->link == XRAY__LINK_RETURN ? "rchain" : "chain", g->s->name, (unsigned) len,
           (unsigned long long) stride, tag[how], (unsigned long long) shift);
  y = xray__machine_measure(g->m, "icache", label, (double) k, &a).y;
  if (!(y > 0)) {
    g->failed = 1;
    return NAN;
  }
  return y;
}

/* The time of a chain that surely fits, to judge others by: the median
 * of DRAWS draws. */
static double
chain_time(struct geo *g, size_t k, uint64_t stride, uint32_t len)
{
  double y[DRAWS];
  int d;

  for (d = 0; d < DRAWS; d++)
    if (isnan(y[d] = draw(g, k, stride, len, MOVE_NONE, 0)))
      return NAN;
  return xray__median(y, DRAWS);
}

/* Whether a chain is compact: a piece costs at most RISE more than in the
 * reference chain ref.  The majority of its draws decides: DRAWS of them,
 * and where they disagree more, up to MAX_DRAWS.  1, 0, or -1 if a draw
 * failed. */
static int
fits(struct geo *g, size_t k, uint64_t stride, uint32_t len, int how, uint64_t shift, double ref)
{
  int d, yes = 0, no = 0;

  for (d = 0; d < MAX_DRAWS && 2 * yes <= MAX_DRAWS && 2 * no <= MAX_DRAWS; d++) {
    double y = draw(g, k, stride, len, how, shift);
    if (isnan(y))
      return -1;
    if (y <= ref * (1 + RISE))
      yes++;
    else
      no++;
    if (d + 1 >= DRAWS && (yes == 0 || no == 0))
      break;
  }
  return yes > no;
}

/* The fewest pieces in (a, b] that are not compact, a's being compact
 * and b's not (f: b's verdict, -1 if a draw failed): bisection. */
static int
bisect(struct geo *g, uint64_t stride, uint32_t len, double ref, size_t a, size_t b, int f)
{
  while (f >= 0 && b - a > 1) {
    size_t mid = (a + b) / 2;
    if ((f = fits(g, mid, stride, len, MOVE_NONE, 0, ref)) == 1)
      a = mid;
    else if (f == 0)
      b = mid;
  }
  return f < 0 ? -1 : (int) b;
}

/* The fewest pieces in (lo, KMAX] that are not compact, lo's being
 * compact: doubling, then bisection.  0 if KMAX pieces are compact, -1 if
 * a draw failed. */
static int
first_conflict(struct geo *g, uint64_t stride, uint32_t len, double ref, size_t lo)
{
  size_t a = lo, b = lo + 1;
  int f;

  while ((f = fits(g, b, stride, len, MOVE_NONE, 0, ref)) == 1) {
    if (b == KMAX)
      return 0;
    a = b;
    b = 2 * b < KMAX ? 2 * b : KMAX;
  }
  return bisect(g, stride, len, ref, a, b, f);
}

/* The fewest pieces at stride apart that are not compact, at most hi
 * (whose chain is expected not to be); more if hi's is. */
static int
limit(struct geo *g, uint64_t stride, uint32_t len, double ref, size_t hi)
{
  int f = fits(g, hi, stride, len, MOVE_NONE, 0, ref);

  return f == 1 ? first_conflict(g, stride, len, ref, hi) : bisect(g, stride, len, ref, 1, hi, f);
}

/* One determination of the ways (and the way span) with statement s:
 * X-Ray's Fig. 8.  The stride doubles from the pieces' length until the
 * limit stops falling; the ways are the limit less one and the span the
 * stride where it was first reached, where the limit at half that stride
 * must be about twice as large.  Strides stay below a few spans: larger
 * ones also alias in structures indexed by more address bits (branch
 * targets, way predictors), which hold fewer pieces than the L1I.  0, or
 * -1 with why. */
static int
ways_once(struct geo *g, size_t *ways, uint64_t *span, char *why, size_t wl)
{
  uint32_t h = (uint32_t) fmax(64, floor(g->c / 16 / 64) * 64);
  int tries;

  for (tries = 0; tries < 3 && h >= 64; tries++, h /= 4) {
    /* Statement bytes: with its link a piece stays within h bytes. */
    uint32_t len = h - (g->link == XRAY__LINK_RETURN ? 32 : 16);
    double ref = chain_time(g, 1, g->big, len);
    int n = 0, prev = 0, prev2 = 0;
    uint64_t s = 64;
    if (isnan(ref))
      return -1;
    /* Strides are powers of two, from the first that holds a piece. */
    while (s < h)
      s *= 2;
    for (; s <= 4 * g->big; s *= 2, prev2 = prev, prev = n) {
      n = prev > 0 ? limit(g, s, len, ref, (size_t) prev) : first_conflict(g, s, len, ref, 1);
      if (n < 0)
        return -1;
      if (n == 0 || n != prev)
        continue;
      if (prev2 == 0)
        break; /* on the limit from the first stride: shorter pieces */
      /* Twice as many at half the span, or a few more: under random
       * replacement a set one line over misses rarely, and where only one
       * of the two sets is over, its misses are spread over twice the
       * pieces. */
      if (prev2 - 1 < 2 * (n - 1) || prev2 - 1 > 5 * (n - 1) / 2 + 1) {
        snprintf(why, wl,
                 "%s pieces %llu bytes apart: %d fit one set, but %llu bytes apart %d "
                 "(not about twice as many)",
                 g->s->name, (unsigned long long) (s / 2), n - 1, (unsigned long long) (s / 4),
                 prev2 - 1);
        return -1;
      }
      *ways = (size_t) n - 1;
      *span = s / 2;
      return 0;
    }
    if (s > 4 * g->big) {
      snprintf(why, wl, "the pieces one set holds keep falling up to strides of %llu bytes (%s)",
               (unsigned long long) (4 * g->big), g->s->name);
      return -1;
    }
  }
  snprintf(why, wl,
           "%s pieces as short as 64 bytes: the limit does not fall as the stride "
           "doubles",
           g->s->name);
  return -1;
}

/* The shift by which moved pieces leave the others' line (how: which
 * half moves), k pieces; hi: the largest shift tried.  0 with why.
 *
 * X-Ray's Fig. 10 moves the pieces up a byte at a time; here the shift
 * runs over powers of two from 16 bytes (every cache line we know of is
 * one) and the first at which the chain fits must have a line's edge just
 * below it: 8 bytes less must not fit.  Noise (another thread taking some
 * of the set's ways) only makes a chain that fits look as if it did not,
 * which moves the first fit up, where the edge check then fails. */
static size_t
line_once(struct geo *g, size_t k, int how, uint64_t hi, double ref, char *why, size_t wl)
{
  uint64_t s;
  int f = fits(g, k, g->apart, g->s->len, how, 8, ref);

  if (f == 1)
    snprintf(why, wl, "pieces 8 bytes apart already fit (a line under 16 bytes?)");
  if (f != 0)
    return 0;
  for (s = 16; s <= hi; s *= 2) {
    if ((f = fits(g, k, g->apart, g->s->len, how, s, ref)) < 0)
      return 0;
    if (f == 1)
      break;
  }
  if (s > hi) {
    snprintf(why, wl, "%zu pieces still conflict with half of them moved %llu bytes", k,
             (unsigned long long) hi);
    return 0;
  }
  if ((f = fits(g, k, g->apart, g->s->len, how, s - 8, ref)) != 0) {
    if (f == 1)
      snprintf(why, wl,
               "moved %llu bytes the pieces fit, but %llu already did: no edge at a "
               "power of two",
               (unsigned long long) s, (unsigned long long) (s - 8));
    return 0;
  }
  return (size_t) s;
}

/* One determination of the ways with statement kern into *d: ok when ways
 * x span give back the capacity.  -1 if a chain could not be timed. */
struct det {
  size_t a;
  uint64_t w;
  int ok;
};

static int
determine(struct geo *g, const char *kern, int link, struct det *d, char *why, size_t wl)
{
  g->s = xray__stmt_find(kern);
  g->link = link;
  d->a = 0;
  d->w = 0;
  d->ok = 0;
  if (ways_once(g, &d->a, &d->w, why, wl) == 0) {
    d->ok = fabs((double) (d->a * d->w) - g->c) <= GEOMETRY_AGREES * g->c;
    if (!d->ok)
      snprintf(why, wl, "%s: %zu ways x %llu bytes is not the L1I's %.0f bytes", kern, d->a,
               (unsigned long long) d->w, g->c);
  }
  return g->failed ? -1 : 0;
}

static int
same(const struct det *x, const struct det *y)
{
  return x->ok && y->ok && x->a == y->a && x->w == y->w;
}

/* Append one determination to the method text. */
static void
note(char *method, size_t size, const char *kern, int link, const struct det *d)
{
  size_t len = strlen(method);

  if (len + 1 < size)
    snprintf(method + len, size - len, " %s%s %zu x %llu%s;", kern,
             link == XRAY__LINK_RETURN ? " left by returns" : "", d->a, (unsigned long long) d->w,
             d->ok ? "" : "?");
}

/* Which of the kinds of code confirm: pieces an op cache serves faster
 * than the decoders show the op cache's sets where it holds a different
 * number of them than the L1I (8-byte NOPs: it may capture a whole set's
 * pieces and hide the L1I's misses; two jumps per 64 bytes: its own
 * limit), so they are a second view only where they agree. */
static const char *const second[] = { "j32", "nop8" };

/* The second view of the ways d: on hardware (or a recording of it) the
 * OS's cache topology, which is right about private caches where it
 * gives them; else another kind of code.  1 if one agrees. */
static int
second_view(struct geo *g, const struct det *d, char *method, size_t size)
{
  struct det o;
  char src[64], why[200];
  double os;
  size_t i;

  if (g->m->hardware && xray__os_view(g->m, "XRAY_L1I_ASSOC", &os, src, sizeof src) == 0
      && os == (double) d->a) {
    size_t len = strlen(method);
    snprintf(method + len, size - len, " the OS (%s) agrees;", src);
    return 1;
  }
  for (i = 0; i < sizeof second / sizeof *second; i++) {
    if (determine(g, second[i], XRAY__LINK_JUMP, &o, why, sizeof why))
      return 0;
    note(method, size, second[i], XRAY__LINK_JUMP, &o);
    if (same(&o, d))
      return 1;
  }
  return 0;
}

/* Up to three determinations with statement kern linked by link into d,
 * noted in method (why: the first one's failure): the index of one that
 * agrees with an earlier one, -1 for none, -2 if a chain could not be
 * timed. */
static int
agreeing(struct geo *g, const char *kern, int link, struct det d[3], char *method, size_t size,
         char *why, size_t wl)
{
  int i, j;

  for (i = 0; i < 3; i++) {
    char w1[200] = "";
    if (determine(g, kern, link, &d[i], w1, sizeof w1))
      return -2;
    note(method, size, kern, link, &d[i]);
    if (!d[i].ok && !why[0])
      snprintf(why, wl, "%s", w1);
    for (j = 0; j < i; j++)
      if (same(&d[i], &d[j]))
        return i;
  }
  return -1;
}

/* The ways.  The kernel is NOPs with four taken jumps per 64 bytes
 * (j16): they run at one taken jump a cycle whether an op cache or the
 * decoders serve them, so that only the L1I's misses change their time.
 * Where a branch target buffer holds fewer of its jumps than the L1I
 * holds of its code, in sets indexed by more address bits (Golden
 * Cove's), its misses set the limit instead, and no determination gives
 * back the capacity.  Then pieces of 4-byte
 * NOPs left by returns (see XRAY__LINK_RETURN), which hold no jump to
 * predict and whose fetch each costs its whole latency, determine them.
 * Two determinations that agree give the value (a third decides between
 * two that do not); it is confirmed where a second view agrees.  The way
 * span goes to *span (0 if unknown). */
static void
ways_value(struct geo *g, const xray_value *l1i, xray_value *v, uint64_t *span)
{
  struct det d[3];
  char why[200] = "", method[XRAY__METHOD_LEN];
  int i, found, confirmed;

  snprintf(method, sizeof method,
           "%s; chains of code pieces a power of two apart, the stride doubled until the "
           "pieces one set holds stop falling (X-Ray's compact sets on code); ways x span must "
           "give the L1I's %.0f bytes:",
           g->m->code_words, g->c);
  found = agreeing(g, "j16", XRAY__LINK_JUMP, d, method, sizeof method, why, sizeof why);
  if (found == -1)
    found = agreeing(g, "nop4", XRAY__LINK_RETURN, d, method, sizeof method, why, sizeof why);
  if (found == -2)
    goto failed;
  if (found < 0) {
    for (i = 0; i < 3 && !d[i].ok; i++)
      ;
    if (i == 3) {
      xray__value_unknown(v, why);
      return;
    }
    xray__value_measured(v, (double) d[i].a, method);
    xray__value_doubt(v, "; not confirmed: no two determinations agree");
    return;
  }
  *span = d[found].w;
  confirmed = second_view(g, &d[found], method, sizeof method);
  if (g->failed)
    goto failed;
  xray__value_measured(v, (double) d[found].a, method);
  if (!confirmed)
    xray__value_doubt(v,
                      "; not confirmed: neither the OS nor code an op cache serves "
                      "differently agrees");
  else if (l1i->unconfirmed)
    xray__value_doubt(v, "; not confirmed: the L1I capacity it rests on is not");
  return;
failed:
  xray__value_unknown(v, g->m->error[0] ? g->m->error : "a chain could not be timed");
}

/* The line size: X-Ray's block-size experiment on pieces of kern linked
 * by link, apart bytes apart, moving the second half and moving every
 * other piece in turn until the two agree (a noisy decision moves one
 * search's result anywhere, rarely to the same place twice), confirmed
 * where no search before gave another line. */
static void
line_at(struct geo *g, uint64_t span, uint64_t apart, const char *kern, int link, xray_value *v)
{
  static const int how[] = { MOVE_HALF, MOVE_ODD, MOVE_HALF, MOVE_ODD, MOVE_HALF };
#define NHOW (sizeof how / sizeof *how)
  uint64_t hi = span >= 2048 || !span ? 1024 : span / 2;
  size_t l[NHOW] = { 0 }, k, i, j, o;
  double ref1, ref;
  int n1;
  char why[200] = "", method[300];

  g->s = xray__stmt_find(kern);
  g->link = link;
  g->apart = apart;
  ref1 = chain_time(g, 1, g->apart, g->s->len);
  n1 = isnan(ref1) ? -1 : first_conflict(g, g->apart, g->s->len, ref1, 1);
  if (n1 == 0)
    snprintf(why, sizeof why, "%d one-statement pieces %llu bytes apart fit one set", KMAX,
             (unsigned long long) g->apart);
  if (n1 <= 0) {
    xray__value_unknown(v, n1 < 0 ? g->m->error : why);
    return;
  }
  /* Each half a quarter short of what one set holds, so that it fits
   * with room to spare; the whole is then half as much again over. */
  k = 2 * ((size_t) n1 - 1 - ((size_t) n1 - 1) / 4);
  ref = chain_time(g, k / 2, g->apart, g->s->len);
  snprintf(method, sizeof method,
           "%s; %zu one-statement pieces%s %llu bytes apart, half of them (the second half, or "
           "every other one) moved until the chain fits (X-Ray's block-size experiment):",
           g->m->code_words, k, link == XRAY__LINK_RETURN ? " left by returns" : "",
           (unsigned long long) g->apart);
  for (i = 0; i < NHOW && !isnan(ref); i++) {
    size_t len = strlen(method);
    char w1[200] = "";
    l[i] = line_once(g, k, how[i], hi, ref, w1, sizeof w1);
    if (g->failed)
      break;
    if (!why[0])
      snprintf(why, sizeof why, "%s", w1);
    snprintf(method + len, sizeof method - len, " %s %zu;", how[i] == MOVE_HALF ? "half" : "odd",
             l[i]);
    for (j = 0; j < i; j++)
      if (l[i] && l[i] == l[j] && how[i] != how[j]) {
        xray__value_measured(v, (double) l[i], method);
        /* Two that agree after a third gave another line may agree by
         * the noise's chance: under noise each search ends anywhere. */
        for (o = 0; o < i; o++)
          if (l[o] && l[o] != l[i]) {
            xray__value_doubt(v, "; not confirmed: another search gave %zu", l[o]);
            break;
          }
        return;
      }
  }
  if (g->failed || isnan(ref)) {
    xray__value_unknown(v, g->m->error[0] ? g->m->error : "a chain could not be timed");
    return;
  }
  for (i = 0; i < NHOW; i++)
    if (l[i]) {
      xray__value_measured(v, (double) l[i], method);
      xray__value_doubt(v, "; not confirmed: the two halves disagree");
      return;
    }
  xray__value_unknown(v, why);
}

/* The line size from pieces of 8-byte NOPs linked by jumps, g->big (a
 * multiple of every way span) apart.  Where that leaves it unknown and
 * the way span is known and smaller, from pieces of 4-byte NOPs left by
 * returns a span apart: one-jump pieces far apart can meet a branch
 * target buffer's sets (Golden Cove's, as the ways' chains do), which no
 * shift within a page ends, and pieces a span apart its sets indexed by
 * lower bits; pieces left by returns hold no jump to predict. */
static void
line_value(struct geo *g, uint64_t span, xray_value *v)
{
  char first[XRAY__REASON_LEN];

  line_at(g, span, g->big, "nop8", XRAY__LINK_JUMP, v);
  if (v->source == XRAY_SOURCE_UNKNOWN && !g->failed && span && span < g->big) {
    snprintf(first, sizeof first, "%s", v->reason);
    line_at(g, span, span, "nop4", XRAY__LINK_RETURN, v);
    if (v->source == XRAY_SOURCE_UNKNOWN) {
      char both[XRAY__REASON_LEN];
      snprintf(both, sizeof both, "%s; pieces left by returns %llu bytes apart: %s", first,
               (unsigned long long) span, v->reason);
      xray__value_unknown(v, both);
    }
  }
}

void
xray__icache_geometry(xray_machine *m, const xray_value *l1i, xray_value *assoc, xray_value *line)
{
  struct geo g = { 0 };
  uint64_t span = 0;

  g.m = m;
  if (l1i->source != XRAY_SOURCE_MEASURED || !(l1i->value >= 256)) {
    xray__value_unknown(assoc, "it rests on the L1I capacity, which is unknown here");
    xray__value_unknown(line, assoc->reason);
    return;
  }
  g.c = l1i->value;
  g.deadline = xray__now() + m->budget;
  /* The power of two nearest the capacity: the capacity itself where it
   * is one, measured a little short or long. */
  for (g.big = 256; (double) g.big * 1.5 < g.c; g.big *= 2)
    ;
  ways_value(&g, l1i, assoc, &span);
  g.failed = 0;
  line_value(&g, span, line);
}
