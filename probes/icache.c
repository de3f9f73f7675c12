/* L1 instruction-cache capacity and decoded-op cache capacity.
 *
 * The paper's method (Yotov et al., LCPC 2005): time loops of growing code
 * size and report the largest one that still runs at full speed.  Its
 * statement, four independent register adds, is ALU-bound on wide cores:
 * on Zen 3 it runs at one cycle per statement from 3 KB to 1.2 MB and shows
 * no step at all.  A fetch-bound statement is needed, and C cannot express
 * one, so the kernels are machine code:
 *
 *  - 8-byte NOPs need 32 bytes of fetch per cycle at four per cycle, more
 *    than an L2 delivers: they step where the loop leaves the L1I, unless
 *    an op cache holds more of them than the L1I (Zen 5: 48 KB of them in
 *    6K ops, past a 32 KB L1I), where they step at the op cache's reach;
 *  - j32 and j16, NOPs with 2 and 4 taken jumps per 64 bytes: an op cache
 *    ends an entry at a taken jump, so it reaches half as far or less in
 *    them, while the L1I holds the same bytes.  An edge of the 8-byte NOPs
 *    counts as the L1I's only where j16 shares it, or j32 does and j16
 *    steps only at or past it (an op cache of entries under 8 ops, as
 *    Intel's, fills as fast with 8-byte NOPs as with j32); otherwise the
 *    L1I is left to the chase.  Where the L2 feeds the decoders as fast
 *    as the L1I does (Intel's), no loop shows the L1I;
 *  - a chase through 256-byte pieces of code, each left by a return that
 *    is predicted into the piece itself, fetches every piece only when the
 *    one before resolves: its edge is where fetch latency rises, whatever
 *    the fetch bandwidth, and an op cache holds fewer of its pieces than
 *    the L1I.  Its last edge is the L1I's where a loop or the same chase
 *    through 2-byte NOPs steps there too (chase_edge);
 *  - 4-byte NOPs need only 16 bytes per cycle, which the L2 sustains: they
 *    step only where the loop leaves the decoded-op cache (their plateau
 *    beyond it is the decoders' rate), unless the op cache holds as much
 *    as the L1I (Zen 4): then they step at the L1I edge, and the op cache
 *    is unknown.  A rise of theirs under 25 % is no edge, and not "none"
 *    either (Intel's op cache serves them at 5 a cycle, the decoders at
 *    4): the op cache is then unknown, as where the L1I is.
 *
 * On hardware the OS's L1I is a second view too (os_pick).  The curves and
 * their edges are icache-edge.c's. */
#include "icache.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Determinations at most (fewer once the time budget is spent; on a
 * machine that takes no real time, UNTIMED_RUNS), and how close two must
 * be to confirm a value. */
#define MAX_RUNS 16
#define UNTIMED_RUNS 8
#define RUNS_AGREE 0.03

/* The largest loop, in code bytes: twice the largest L1I xray is tested
 * on (a simulated 256 KB), where every loop has left the L1I and the op
 * cache.  The steps past it are the L2's and beyond, which no value
 * rests on, and the loops there cost the most time a point. */
#define SCAN_TOP (512.0 * 1024)

/* The fetch-bound kernels.  They differ in taken jumps and instructions
 * per 64-byte window, so an op cache (which ends an entry at a taken jump
 * and at a window's end) reaches a different code size in each; the L1I
 * holds the same bytes whatever they encode.  An edge is the L1I's only
 * where two of them step at the same code size. */
static const char *const fetch_kernels[] = { "nop8", "j32", "j16" };
#define NFETCH (sizeof fetch_kernels / sizeof *fetch_kernels)
#define MAX_EDGES 4
/* Another kernel shares an edge of the 8-byte NOPs when it steps at most
 * 12 % below it or 20 % above it.  The others have more instructions (10
 * and 12 against 8) and more taken jumps (2 and 4 against none) per
 * 64-byte window, so an op cache limited by instructions reaches 20 % or
 * more less far in them, and one that ends an entry at a taken jump half
 * as far or less in j16 (in j32 too where an entry holds a window's eight
 * 8-byte NOPs: see jumps_doubt); the L1I holds the same bytes.  Their L1I edge may show
 * late (a kernel with time to spare hides the first misses, as under
 * random replacement or in a direct-mapped L1I), or a little early (where
 * an op cache serves some of the 8-byte NOPs' windows). */
#define BELOW 0.12
#define ABOVE 0.20

static int
shares(double x, double edge)
{
  return x >= edge * (1 - BELOW) && x <= edge * (1 + ABOVE);
}

/* One determination of both capacities from fresh scans.  Returns -1 if
 * generated code cannot run; NAN for a capacity with no edge, with the
 * reason in why. */
struct once {
  double l1i, uop;
  double l1i_alone; /* the chase's edge where no other view shares it */
  int l1i_by; /* the second view of l1i: L1I_LOOPS, L1I_CHASE, L1I_OS */
  int uop_seen_twice;           /* an 8-byte NOP edge at the same op count */
  int l1i_gradual, uop_gradual;
  int l1i_noisy, uop_noisy;     /* an edge's onset set by noise (IC_NOISY) */
  char why[400]; /* as long as a value's reason */
  char uop_why[200]; /* why the op cache is NAN, where not hidden by the L1I */
};

enum { L1I_LOOPS = 1, L1I_CHASE, L1I_OS };

/* Whether the kernel with the most taken jumps doubts an edge x that j32
 * shares with the 8-byte NOPs: it steps well below x (an op cache that
 * ends entries at jumps reaches half as far or less in it), or nowhere
 * (bound by its jumps, it cannot tell).  An op cache of entries under 8
 * ops (Intel's hold 6) gives the 8-byte NOPs two entries a window, as
 * many as the 2 jumps of j32: both then leave it at one code size, and
 * only j16 (4 entries a window) tells that edge from the L1I's. */
static int
jumps_doubt(double e[][MAX_EDGES], const int *ne, double x)
{
  int b;

  if (ne[NFETCH - 1] == 0)
    return 1;
  for (b = 0; b < ne[NFETCH - 1]; b++)
    if (e[NFETCH - 1][b] < x * (1 - BELOW))
      return 1;
  return 0;
}

/* The L1I from the edges e (found as g says, in IC_ flags) of each
 * kernel, ne of them, untimed where a kernel could not be timed; else why
 * not, in o->why. */
static void
l1i_from_edges(struct once *o, double e[][MAX_EDGES], int g[][MAX_EDGES], const int *ne,
               const int *untimed)
{
  char *w = o->why;
  size_t wl = sizeof o->why, i, j;
  int a, b;

  /* The smallest edge of the 8-byte NOPs that another kernel shares, and
   * of the two the smaller: where an op cache serves some of the 8-byte
   * NOPs' windows the L1I edge shows late in them, and where a kernel has
   * time to spare (decode- or jump-bound) it hides the first misses. */
  for (a = ne[0] - 1; a >= 0; a--)
    for (j = 1; j < NFETCH; j++)
      for (b = 0; b < ne[j]; b++)
        if (shares(e[j][b], e[0][a]) && (j == NFETCH - 1 || !jumps_doubt(e, ne, e[0][a]))) {
          o->l1i = fmin(e[0][a], e[j][b]);
          o->l1i_gradual = g[0][a] & IC_GRADUAL;
          o->l1i_noisy = (g[0][a] | g[j][b]) & IC_NOISY;
        }
  if (isnan(o->l1i)) {
    size_t len = (size_t) snprintf(w, wl, "no edge passes for the L1I's (");
    for (i = 0; i < NFETCH && len < wl; i++) {
      len += (size_t) snprintf(w + len, wl - len, "%s%s:", i ? "; " : "", fetch_kernels[i]);
      for (a = 0; a < ne[i] && len < wl; a++)
        len += (size_t) snprintf(w + len, wl - len, " %.0f", e[i][a]);
      if (ne[i] == 0 && len < wl)
        len += (size_t) snprintf(w + len, wl - len, untimed[i] ? " not timed" : " none");
    }
    if (len < wl)
      snprintf(w + len, wl - len, " bytes): %s",
               untimed[1] || untimed[2]
                   ? "an edge no other kernel shares may be the op cache's reach"
                   : "the edges seen are an op cache's, and the L1I's shows in none (an op cache "
                     "holds more of this code, or the L2 feeds the decoders as fast)");
  }
}

/* A rise of the 4-byte NOPs that is no step (under 25 %) but too much to
 * claim that no op cache is there. */
#define MINOR 0.10

/* The op cache from the 4-byte NOPs' curve cv4 (n4 steps, the first
 * st4) and the 8-byte NOPs' edges e8 (ne8 of them). */
static void
uop_from_curve(struct once *o, struct ictx *c4, struct xray__curve *cv4, struct xray__step *st4,
               size_t n4, const double *e8, int ne8)
{
  int a;

  /* Op cache: the first step of the 4-byte curve, unless the 8-byte NOPs
   * step there too: an edge bound by bytes, not by instructions, is the
   * L1I's (an op cache, if any, then holds at least as much of this code
   * as the L1I: its size is not seen). */
  if (n4 > 0) {
    int how;
    double x = xray__ic_edge(c4, cv4, st4, st4->lo, &how);
    o->uop_gradual = how & IC_GRADUAL;
    o->uop_noisy = how & IC_NOISY;
    for (a = 0; a < ne8 && !shares(x, e8[a]); a++)
      ;
    if (a == ne8) {
      const struct xray_stmt *s8 = xray__stmt_find(fetch_kernels[0]);
      o->uop = x / c4->s->len * c4->s->ops;
      /* The second view: an op cache holds ops, not bytes, so the 8-byte
       * NOPs (half the ops per byte) leave it at the same op count, where
       * that is below their L1I edge.  A step of the 4-byte NOPs alone is
       * not one. */
      for (a = 0; a < ne8; a++)
        if (fabs(e8[a] / s8->len * s8->ops - o->uop) <= 2 * RUNS_AGREE * o->uop)
          o->uop_seen_twice = 1;
    }
  } else if (xray__find_steps(cv4, MINOR, st4, 1) > 0)
    /* A smaller rise is what an op cache whose ops the decoders nearly
     * keep up with looks like (Intel's, whose 4-byte NOPs go from 5 to 4
     * a cycle), and also what a disturbance looks like: not "none". */
    snprintf(o->uop_why, sizeof o->uop_why,
             "the 4-byte NOPs rise by less than 25 %% (from %.3g to %.3g cycles a statement at "
             "%.0f bytes): too little to tell an op cache's edge from noise",
             st4->lo, st4->hi, cv4->x[st4->first_high]);
  else if (isnan(o->l1i))
    snprintf(o->uop_why, sizeof o->uop_why,
             "the 4-byte NOPs show no step, and the L1I edge, beyond which they would have "
             "to show one, was not established");
  else
    o->uop = 0;
}

/* The last edge up to CHASE_TOP of a chase through pieces of statements
 * stmt (icache.h): the largest code its pieces' fetch latency stays flat
 * for; NAN if none (or it cannot be timed: a recording made before it
 * existed).  An op cache holds fewer of its pieces than the L1I (a 64-byte
 * window of 4-byte NOPs needs more entries than one of 8-byte NOPs, and
 * each piece ends in taken branches), so any edge of its comes first. */
#define CHASE_TOP (160 * 1024)
static double
chase_last(xray_machine *m, const char *stmt, int *how)
{
  struct ictx cc = { m, xray__stmt_find(stmt), 1, UINT64_C(0x9e3779b97f4a7c15), NULL, 0 };
  double e[MAX_EDGES];
  int g[MAX_EDGES], n = xray__ic_edges(&cc, CHASE_TOP, 0, INFINITY, e, g, MAX_EDGES);

  xray__ic_free(&cc);
  if (n <= 0)
    return NAN;
  *how = g[n - 1];
  return e[n - 1];
}

/* Where the loops agree on no edge, the chase's: confirmed where a loop
 * kernel steps there too (the windows of shares()), or where a chase
 * through pieces of 2-byte NOPs ends at the same size (within RUNS_AGREE): it
 * has twice the ops in each window, so that an op cache reaches half as
 * far in it, while the L1I holds the same lines.  Alone it is a candidate
 * (o->l1i_alone). */
static void
chase_edge(xray_machine *m, struct once *o, double e[][MAX_EDGES], int ge[][MAX_EDGES],
           const int *ne)
{
  double ch, ch2;
  int g, g2, b;
  size_t i;

  o->l1i_alone = NAN;
  if (!isnan(o->l1i) || isnan(ch = chase_last(m, "nop4", &g)))
    return;
  for (i = 0; i < NFETCH; i++)
    for (b = 0; b < ne[i]; b++)
      if (shares(e[i][b], ch)) {
        o->l1i = ch;
        o->l1i_by = L1I_CHASE;
        o->l1i_gradual = g & IC_GRADUAL;
        o->l1i_noisy = (g | ge[i][b]) & IC_NOISY;
        return;
      }
  if (!isnan(ch2 = chase_last(m, "nop2", &g2)) && fabs(ch2 - ch) <= RUNS_AGREE * ch) {
    o->l1i = fmin(ch, ch2);
    o->l1i_by = L1I_CHASE;
    o->l1i_gradual = g & g2 & IC_GRADUAL;
    o->l1i_noisy = (g | g2) & IC_NOISY;
    return;
  }
  o->l1i_alone = ch;
}

/* The OS's L1I on hardware (see os_pick), or 0. */
static double
os_l1i(xray_machine *m)
{
  double os;
  char src[48];

  return m->hardware && xray__os_view(m, "XRAY_L1I_SIZE", &os, src, sizeof src) == 0 && os > 0
             ? os
             : 0;
}

/* On hardware, the OS's L1I (its cache topology: hwloc, sysfs, sysconf,
 * CPUID) is a second view, right wherever it is given on the CPUs we know:
 * where the kernels agree on no edge, or on one it contradicts, the edge
 * any of them shows within RUNS_AGREE of it is the L1I's, confirmed by it (the
 * chase's first, then the 8-byte NOPs' and the jump kernels').  Never on
 * a machine that is not hardware, whose OS view is its truth. */
static void
os_pick(xray_machine *m, struct once *o, double e[][MAX_EDGES], const int *ne)
{
  double os = os_l1i(m), c[1 + NFETCH * MAX_EDGES];
  size_t i, k = 0;
  int b;

  if (!(os > 0) || (!isnan(o->l1i) && fabs(o->l1i - os) <= RUNS_AGREE * os))
    return;
  if (!isnan(o->l1i_alone))
    c[k++] = o->l1i_alone;
  for (i = 0; i < NFETCH; i++)
    for (b = 0; b < ne[i]; b++)
      c[k++] = e[i][b];
  for (i = 0; i < k; i++)
    if (fabs(c[i] - os) <= RUNS_AGREE * os) {
      o->l1i = c[i];
      o->l1i_by = L1I_OS;
      o->l1i_noisy = 0;
      return;
    }
}

/* One determination into o: the L1I (an edge two kernels share), the op
 * cache (the 4-byte NOPs' first edge), or why not.  -1 if the kernels
 * could not be timed. */
static int
measure_once(xray_machine *m, struct once *o)
{
  struct ictx c4 = { m, xray__stmt_find("nop4"), 0, 0, NULL, 0 };
  struct xray__curve cv4 = { 0 };
  struct xray__step st4;
  double e[NFETCH][MAX_EDGES], decode, decode_x;
  size_t n4;
  int g[NFETCH][MAX_EDGES], ne[NFETCH], untimed[NFETCH];
  size_t i;
  int rc = -1;

  o->l1i = o->uop = o->l1i_alone = NAN;
  o->l1i_by = 0;
  o->uop_seen_twice = 0;
  o->l1i_noisy = o->uop_noisy = 0;
  o->why[0] = o->uop_why[0] = 0;
  /* The 4-byte NOPs first: past their op-cache edge they run at the
   * decoders' rate, the level from which the 8-byte NOPs' L1I edge is
   * measured where it lies well past that edge (so that an op-cache edge
   * just below it is not taken for it); both are one instruction per
   * statement.  Where the 4-byte NOPs step at the same place, their step
   * is the L1I's (a slow L2) and gives no decoders' rate. */
  if (xray__ic_scan(&c4, &cv4, 256 * 1024))
    goto out;
  n4 = xray__find_steps(&cv4, 0.25, &st4, 1);
  decode = n4 > 0 ? st4.hi : 0;
  decode_x = n4 > 0 ? cv4.x[st4.first_high] : INFINITY;
  /* The 8-byte NOPs as far as SCAN_TOP, the others only as far as twice
   * the 8-byte NOPs' last edge (at least 256 KB, at most SCAN_TOP): the
   * large loops cost the most time.  One that cannot be timed (a
   * recording made before it existed) gives no edges, and then no
   * cross-check. */
  for (i = 0; i < NFETCH; i++) {
    struct ictx c = { m, xray__stmt_find(fetch_kernels[i]), 0, 0, NULL, 0 };
    double top =
        i == 0 ? SCAN_TOP : fmin(SCAN_TOP, fmax(256 * 1024, ne[0] ? 2 * e[0][ne[0] - 1] : 0));
    untimed[i] = (ne[i] = xray__ic_edges(&c, top, decode, i == 0 ? decode_x : INFINITY, e[i], g[i],
                                         MAX_EDGES))
        < 0;
    if (untimed[i] && i == 0)
      goto out;
    if (untimed[i])
      ne[i] = 0;
  }
  l1i_from_edges(o, e, g, ne, untimed);
  if (!isnan(o->l1i))
    o->l1i_by = L1I_LOOPS;
  chase_edge(m, o, e, g, ne);
  os_pick(m, o, e, ne);
  uop_from_curve(o, &c4, &cv4, &st4, n4, e[0], ne[0]);
  rc = 0;
out:
  xray__curve_free(&cv4);
  return rc;
}

/* The method, and every run's value; a disturbed or noisy run (clean
 * not above 0) is marked '?'.
 * kernels says what was timed. */
static void
describe(xray_value *v, const xray_machine *m, const char *kernels, const double *runs,
         const int *clean, int n, int confirmed, int gradual)
{
  size_t len;
  int i;

  snprintf(v->method, sizeof v->method, "%s, %s; %s edge; %s after %d run%s:", m->code_words,
           kernels, gradual ? "LRU-like (fitted onset)" : "sharp",
           confirmed ? "confirmed" : "UNCONFIRMED", n, n == 1 ? "" : "s");
  for (i = 0; i < n && (len = strlen(v->method)) + 12 < sizeof v->method; i++)
    snprintf(v->method + len, sizeof v->method - len, " %.0f%s", runs[i],
             clean[i] > 0 ? "" : "?");
}

/* A run is clean (1), disturbed (0: many of its points measured only at
 * reduced speed) or noisy (-1: its edge's onset was set by the noise,
 * IC_NOISY).  Confirmed: three clean runs agree, or four that are not
 * noisy do.  Two are not enough: some code buffers (their physical pages,
 * it seems) make 4-byte NOPs leave the op cache at 4 KB, and two such
 * buffers in a row do happen.  A disturbed run errs anywhere, noisy ones
 * late together, so they never confirm.  The value in *out. */
static int
consensus(const double *runs, const int *clean, int n, double *out)
{
  double v[MAX_RUNS], w[MAX_RUNS];
  int i;

  for (i = 0; i < n; i++) {
    v[i] = clean[i] > 0 ? runs[i] : NAN;
    w[i] = clean[i] >= 0 ? runs[i] : NAN;
  }
  return xray__consensus(v, (size_t) n, 3, RUNS_AGREE, out)
      || xray__consensus(w, (size_t) n, 4, RUNS_AGREE, out);
}

/* Settled as unknown: three runs saw no edge of the value's own, and they
 * are at least half of all runs. */
static int
unseen(const double *runs, int n)
{
  int i, k = 0;

  for (i = 0; i < n; i++)
    k += isnan(runs[i]);
  return k >= 3 && 2 * k >= n;
}

static int
confirmed(const double *runs, const int *clean, int n, int hidden_settles)
{
  double c;

  return consensus(runs, clean, n, &c) || (hidden_settles && unseen(runs, n));
}

/* Runs that agree with the OS's L1I, os (0: none) confirm the L1I as the
 * runs that agree with each other do, two clean ones or three of any
 * kind: the OS's cache topology is the view that tells a run that met a
 * contended phase of the host from one that did not.  Their median in
 * *out. */
static int
os_consensus(const double *runs, const int *clean, int n, double os, double *out)
{
  double v[MAX_RUNS], w[MAX_RUNS];
  int i, k = 0, kc = 0;

  if (!(os > 0))
    return 0;
  for (i = 0; i < n; i++)
    if (fabs(runs[i] - os) <= RUNS_AGREE * os) {
      w[k++] = runs[i];
      if (clean[i] > 0)
        v[kc++] = runs[i];
    }
  if (kc >= 2)
    *out = xray__median(v, (size_t) kc);
  else if (k >= 3)
    *out = xray__median(w, (size_t) k);
  return kc >= 2 || k >= 3;
}

/* Report the consensus, or the median of all runs marked unconfirmed. */
static void
conclude(xray_value *v, const xray_machine *m, const char *kernels, double *runs,
         const int *clean, int n, int gradual, int nan_settles, const char *none, double os)
{
  double ok[MAX_RUNS], c;
  int i, k = 0,
         confirmed = consensus(runs, clean, n, &c) || os_consensus(runs, clean, n, os, &c);

  for (i = 0; i < n; i++)
    if (!isnan(runs[i]))
      ok[k++] = runs[i];
  if (!confirmed && k > 0)
    c = xray__median(ok, (size_t) k);
  describe(v, m, kernels, runs, clean, n, confirmed || (nan_settles && unseen(runs, n)),
           gradual);
  if (k == 0 || (nan_settles && !confirmed && unseen(runs, n))) {
    snprintf(v->reason, sizeof v->reason, "%s", none);
    return;
  }
  v->value = floor(c + 0.5);
  v->source = XRAY_SOURCE_MEASURED;
  v->unconfirmed = !confirmed;
}

/* The icache probe's runs, each in fresh code buffers, and what each saw. */
struct runs {
  double l1[MAX_RUNS], up[MAX_RUNS], alone[MAX_RUNS];
  int l1c[MAX_RUNS], upc[MAX_RUNS]; /* clean 1, not 0, noisy -1 */
  int twice[MAX_RUNS]; /* the run's 8-byte NOPs have an edge at its op count */
  int n, k, by[4]; /* runs, chase-alone edges, 8-byte NOP edges */
  char uop_why[200];
  struct once o; /* the last run */
};

/* Repeat in fresh code buffers until both values are confirmed.  A run
 * can meet a contended phase of the host (an SMT sibling that takes half
 * of the op cache and L1I, for tens to hundreds of milliseconds) or a
 * conflict tied to its buffer's pages, so keep trying, starting new runs
 * only in the first 3/4 of the budget.  A disturbed run (many points
 * measured only at reduced speed) needs two others to confirm it.  A
 * machine that takes no real time gets UNTIMED_RUNS, about what the
 * budget buys a simulation.  -1 if generated code cannot run. */
static int
run_until_confirmed(xray_machine *m, struct runs *s, xray_value *l1i, xray_value *uop)
{
  double deadline = xray__now() + 0.75 * m->budget, c;
  struct once *o = &s->o;

  while (s->n < MAX_RUNS
         && (s->n < 4 || xray__machine_more_runs(m, deadline, s->n, UNTIMED_RUNS))) {
    int measured, unsure = xray__machine_unsure(m, &measured), measured2, unsure2, n = s->n;
    xray__machine_reset(m);
    if (measure_once(m, o)) {
      snprintf(l1i->reason, sizeof l1i->reason, "cannot run generated code: %.170s", m->error);
      snprintf(uop->reason, sizeof uop->reason, "%s", l1i->reason);
      return -1;
    }
    s->l1[n] = o->l1i;
    s->up[n] = o->uop;
    s->by[o->l1i_by]++;
    if (!isnan(o->l1i_alone))
      s->alone[s->k++] = o->l1i_alone;
    if (o->uop_why[0])
      snprintf(s->uop_why, sizeof s->uop_why, "%s", o->uop_why);
    s->twice[n] = o->uop_seen_twice;
    /* Clean: at most 3 % of its points without two full-speed samples (a
     * disturbed run has tens of them; a good one, none to five in 190). */
    unsure2 = xray__machine_unsure(m, &measured2);
    s->l1c[n] = s->upc[n] = (unsure2 - unsure) * 33 <= measured2 - measured;
    if (o->l1i_noisy)
      s->l1c[n] = -1;
    if (o->uop_noisy)
      s->upc[n] = -1;
    s->n++;
    if ((confirmed(s->l1, s->l1c, s->n, 0) || os_consensus(s->l1, s->l1c, s->n, os_l1i(m), &c))
        && confirmed(s->up, s->upc, s->n, 1))
      break;
  }
  return 0;
}

/* Whether a run that found the op cache at about v ops saw the 8-byte
 * NOPs' edge there too: the second view must be of the value reported,
 * not of another run's (a run whose op cache the host's other thread
 * shared for a while ends lower, and runs in such a stretch agree). */
static int
seen_twice_at(const struct runs *s, double v)
{
  int i;

  for (i = 0; i < s->n; i++)
    if (s->twice[i] && fabs(s->up[i] - v) <= 2 * RUNS_AGREE * v)
      return 1;
  return 0;
}

/* Runs where only the chase saw an edge give a candidate, unconfirmed. */
static void
chase_candidate(xray_value *l1i, const struct runs *s)
{
  int i;

  for (i = 0; i < s->n && isnan(s->l1[i]); i++)
    ;
  if (i == s->n && s->k > 0) {
    l1i->value = floor(xray__median(s->alone, (size_t) s->k) + 0.5);
    l1i->source = XRAY_SOURCE_MEASURED;
    xray__value_doubt(l1i,
                      "; not confirmed: the chase's edge alone (%d of %d runs), which no "
                      "other view shares",
                      s->k, s->n);
  }
}

static int
icache_run(xray_machine *m, xray_report *r)
{
  xray_value *l1i = xray__report_param(r, "XRAY_L1I_SIZE", NULL, NULL);
  xray_value *assoc = xray__report_param(r, "XRAY_L1I_ASSOC", NULL, NULL);
  xray_value *line = xray__report_param(r, "XRAY_L1I_LINE", NULL, NULL);
  xray_value *uop = xray__report_param(r, "XRAY_UOP_CACHE_OPS", NULL, NULL);
  struct runs *s;
  char how[300];

  if (!l1i || !uop || !assoc || !line)
    return -1;
  if (xray__machine_uses_c(m)) {
    xray__icache_c(m, l1i, uop);
    xray__value_unknown(assoc,
                        "the portable C path cannot place code where the L1I's sets "
                        "and lines show");
    xray__value_unknown(line, assoc->reason);
    return 0;
  }
  if (!(s = calloc(1, sizeof *s)))
    return -1;
  if (run_until_confirmed(m, s, l1i, uop)) {
    free(s);
    return -1;
  }
  /* An op cache hidden behind the L1I edge is an answer of its own; an
   * L1I edge no two kernels shared is not, while other runs found one. */
  snprintf(how, sizeof how,
           "loops of 8-byte NOPs and of NOPs with 2 and 4 taken jumps per 64 bytes, and a chase "
           "through %d-byte pieces of 4-byte (and 2-byte) NOPs left by returns; the L1I's edge, in "
           "runs, shared by the loops %d, by the chase and a loop or both chases %d, by the OS "
           "view and a kernel %d",
           CHASE_SLOT, s->by[L1I_LOOPS], s->by[L1I_CHASE], s->by[L1I_OS]);
  conclude(l1i, m, how, s->l1, s->l1c, s->n, s->o.l1i_gradual, 0, s->o.why, os_l1i(m));
  chase_candidate(l1i, s);
  conclude(uop, m, "loops of 4-byte NOPs (4 code bytes, 1 op per statement)", s->up, s->upc, s->n,
           s->o.uop_gradual, 1,
           s->uop_why[0] ? s->uop_why
                         : "4-byte NOP loops step only at the L1I edge: an op cache, if any, "
                           "holds at least as much of this code as the L1I, and its size is not "
                           "seen",
           0);
  if (uop->source == XRAY_SOURCE_MEASURED && uop->value > 0 && !uop->unconfirmed
      && !seen_twice_at(s, uop->value))
    xray__value_doubt(uop, "; not confirmed: the 8-byte NOPs show no edge at that many ops "
                      "(a step of the 4-byte NOPs alone may be something else's)");
  free(s);
  xray__machine_reset(m);
  xray__icache_geometry(m, l1i, assoc, line);
  return 0;
}

const xray_probe xray__probe_icache = {
  "icache", "L1 instruction cache and decoded-op cache capacity", icache_run
};
