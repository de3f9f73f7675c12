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
 *    than an L2 delivers: they step where the loop leaves the L1I;
 *  - 4-byte NOPs need only 16 bytes per cycle, which the L2 sustains: they
 *    step only where the loop leaves the decoded-op cache (their plateau
 *    beyond it is the decoders' rate).
 *
 * A step of the 8-byte curve is the L1I edge when the level after it is
 * slower than the decoders (the fetch could not keep up); otherwise it is
 * the op cache seen through 8-byte NOPs, and the search goes on.
 *
 * Sizes are loop bytes: n statements plus the loop control.  The capacity is
 * the footprint of the largest full-speed loop in whole 64-byte blocks
 * (sharp edge), or the onset fitted on the transition (gradual, LRU-like
 * edge), rounded to a block. */
#include "xray-internal.h"

#include <math.h>
#include <string.h>

/* Determinations at most (fewer once the time budget is spent), and how
 * close two must be to confirm a value. */
#define MAX_RUNS 16
#define AGREE 0.03

struct ctx {
  xray_machine *m;
  const struct xray_stmt *s;
};

static double
loop_bytes(const struct xray_stmt *s, size_t n)
{
  return (double) n * s->len + XRAY_LOOP_TAIL_BYTES;
}

static size_t
stmts_for(const struct xray_stmt *s, double bytes)
{
  double n = floor((bytes - XRAY_LOOP_TAIL_BYTES) / s->len);

  return n < 1 ? 1 : (size_t) n;
}

static double
point(void *p, double bytes)
{
  struct ctx *c = p;
  size_t n = stmts_for(c->s, bytes);
  double y = c->m->ops->code(c->m, c->s, n);

  xray__trace(c->m, "icache", c->s->name, loop_bytes(c->s, n), y);
  return y;
}

static int
scan(struct ctx *c, struct xray__curve *cv, double hi)
{
  size_t i;

  if (xray__scan(cv, 1024, hi, 8, point, c))
    return -1;
  for (i = 0; i < cv->n; i++)
    if (!(cv->y[i] > 0))
      return -1;
  return 0;
}

/* Median time of the three 64-byte steps just above x. */
static double
level_above(struct ctx *c, double x)
{
  double y[3];
  int k;

  for (k = 0; k < 3; k++)
    y[k] = point(c, x + 64 * (k + 1));
  return xray__median(y, 3);
}

/* Capacity in bytes of the edge of step st on curve cv, measured up from
 * level lo (the plateau, or the decoders' rate for the L1I edge, so that an
 * op-cache edge just below it is not taken for it).  A sharp edge after
 * which the curve has not reached the high level was a lower edge (on Zen
 * 3, 8-byte NOPs leave the op cache at 30.5 KB and the L1I at 32.7 KB):
 * refine again from there, with the plateau found above it as the low
 * level. */
static double
edge(struct ctx *c, const struct xray__curve *cv, const struct xray__step *st, double lo,
     int *gradual)
{
  double a = cv->x[st->last_low], b = cv->x[st->first_high], x = a, above;
  int tries;

  for (tries = 0; tries < 3; tries++) {
    x = xray__refine_edge(a, b, lo, st->hi, 64, point, c, gradual);
    if (*gradual)
      return floor(x / 64 + 0.5) * 64;
    above = level_above(c, x);
    if (above >= st->hi - 0.25 * (st->hi - lo) || x + 256 >= b)
      break;
    a = x + 64;
    lo = above;
  }
  /* x is the largest full-speed loop: count the blocks it touches. */
  return ceil(loop_bytes(c->s, stmts_for(c->s, x)) / 64) * 64;
}

/* One determination of both capacities from fresh scans.  Returns -1 if
 * generated code cannot run; NAN for a capacity with no edge. */
struct once {
  double l1i, uop;
  int l1i_gradual, uop_gradual;
};

static int
measure_once(xray_machine *m, struct once *o)
{
  struct ctx c8 = { m, xray__stmt_find("nop8") }, c4 = { m, xray__stmt_find("nop4") };
  struct xray__curve cv8 = { 0 }, cv4 = { 0 };
  struct xray__step st8[8], st4[8];
  size_t n8, n4, i;
  double decode;
  int rc = -1;

  o->l1i = o->uop = NAN;
  if (scan(&c4, &cv4, 256 * 1024) || scan(&c8, &cv8, 1024 * 1024))
    goto out;
  n4 = xray__find_steps(&cv4, 0.25, st4, 8);
  n8 = xray__find_steps(&cv8, 0.25, st8, 8);

  /* Op cache: the first step of the 4-byte curve, unless the 8-byte curve
   * steps at the same code size: an edge bound by bytes, not by ops, is
   * the L1I's (seen where the L2 cannot feed even 4-byte NOPs). */
  for (i = 0; n4 > 0 && i < n8; i++)
    if (fabs(cv8.x[st8[i].first_high] - cv4.x[st4[0].first_high])
        <= 0.1 * cv4.x[st4[0].first_high])
      n4 = 0;
  if (n4 > 0) {
    o->uop = edge(&c4, &cv4, &st4[0], st4[0].lo, &o->uop_gradual) / c4.s->len * c4.s->ops;
    decode = st4[0].hi;
  } else {
    o->uop = 0;
    decode = cv4.y[0];
  }
  for (i = 0; i < n8; i++)
    if (st8[i].hi > 1.25 * decode) {
      o->l1i = edge(&c8, &cv8, &st8[i], st8[i].lo > decode ? st8[i].lo : decode,
                    &o->l1i_gradual);
      break;
    }
  rc = 0;
out:
  xray__curve_free(&cv8);
  xray__curve_free(&cv4);
  return rc;
}

/* The method, and every run's value; a disturbed run is marked '?'. */
static void
describe(xray_value *v, const xray_machine *m, const char *stmt, const double *runs,
         const int *clean, int n, int confirmed, int gradual)
{
  const struct xray_stmt *s = xray__stmt_find(stmt);
  size_t len;
  int i;

  snprintf(v->method, sizeof v->method,
           "%s, %s (%u code bytes, %u op per statement); %s edge; %s after %d run%s:",
           m->simulated ? "simulated machine" : "x86-64 machine code", s->desc, s->len, s->ops,
           gradual ? "LRU-like (fitted onset)" : "sharp", confirmed ? "confirmed" : "UNCONFIRMED",
           n, n == 1 ? "" : "s");
  for (i = 0; i < n && (len = strlen(v->method)) + 12 < sizeof v->method; i++)
    snprintf(v->method + len, sizeof v->method - len, " %.0f%s", runs[i], clean[i] ? "" : "?");
}

/* Confirmed: three clean runs agree, or four runs of any kind do.  Two
 * are not enough: some code buffers (their physical pages, it seems) make
 * 4-byte NOPs leave the op cache at 4 KB, and two such buffers in a row
 * happen in about 1 run of 200.  The value in *out. */
static int
consensus(const double *runs, const int *clean, int n, double *out)
{
  double v[MAX_RUNS];
  int i;

  for (i = 0; i < n; i++)
    v[i] = clean[i] ? runs[i] : NAN;
  return xray__consensus(v, (size_t) n, 3, AGREE, out)
         || xray__consensus(runs, (size_t) n, 4, AGREE, out);
}

static int
confirmed(const double *runs, const int *clean, int n)
{
  double c;

  return consensus(runs, clean, n, &c);
}

/* Report the consensus, or the median of all runs marked unconfirmed. */
static void
conclude(xray_value *v, const xray_machine *m, const char *stmt, double *runs,
         const int *clean, int n, int gradual, const char *none)
{
  double ok[MAX_RUNS], c;
  int i, k = 0, confirmed = consensus(runs, clean, n, &c);

  for (i = 0; i < n; i++)
    if (!isnan(runs[i]))
      ok[k++] = runs[i];
  if (!confirmed && k > 0)
    c = xray__median(ok, (size_t) k);
  describe(v, m, stmt, runs, clean, n, confirmed, gradual);
  if (k == 0) {
    snprintf(v->reason, sizeof v->reason, "%s", none);
    return;
  }
  v->value = floor(c + 0.5);
  v->source = XRAY_SOURCE_MEASURED;
  v->unconfirmed = !confirmed;
}

/* The portable C path (no machine-code backend for the ISA, or asked
 * for): the paper's own kernel, X-Ray's statement of four independent
 * register adds, compiled for each size.  It is ALU-bound on wide cores
 * (no step at all on Zen 3) and cannot tell an op cache apart; it runs
 * few, expensive points: 2 per octave, then a bisection. */
struct cctx {
  xray_machine *m;
  double bytes_per_stmt;
};

static double
cpoint(struct cctx *c, size_t n, double *bytes)
{
  static const struct xray_cspec add4 = { "p1 += p0; p2 += p0; p3 += p0; p4 += p0", "long", 5,
                                          1, XRAY_STYLE_BARRIER };
  double y = c->m->ops->ccode(c->m, &add4, n, bytes);

  xray__trace(c->m, "icache", "c-add4", *bytes, y);
  return y;
}

static void
icache_c(xray_machine *m, xray_value *l1i, xray_value *uop)
{
  struct cctx c = { m, 0 };
  struct xray__curve cv = { 0 };
  struct xray__step st;
  double t0 = xray__now(), bytes, y, lo, hi, limit = 15 * m->budget;
  size_t n, a, b, mid;

  snprintf(l1i->method, sizeof l1i->method,
           "portable C fallback: X-Ray's statement of four register adds, compiled for each "
           "size with '%.60s %.60s' (ALU-bound on wide cores)", m->cc, m->cflags);
  snprintf(uop->method, sizeof uop->method, "%s", l1i->method);
  snprintf(uop->reason, sizeof uop->reason,
           "the portable C kernel cannot tell a decoded-op cache apart");
  for (n = 64; n <= 40000 && xray__now() - t0 < limit; n = n * 3 / 2) {
    if (isnan(y = cpoint(&c, n, &bytes))) {
      snprintf(l1i->reason, sizeof l1i->reason, "%.190s", m->error);
      goto out;
    }
    xray__curve_add(&cv, (double) n, y);
    c.bytes_per_stmt = bytes / (double) n;
  }
  if (xray__find_steps(&cv, 0.25, &st, 1) == 0) {
    snprintf(l1i->reason, sizeof l1i->reason,
             "no step in C loops of up to %.0f bytes%s: the kernel is not fetch-bound here",
             cv.n ? cv.x[cv.n - 1] * c.bytes_per_stmt : 0,
             xray__now() - t0 >= limit ? " (time budget spent)" : "");
    goto out;
  }
  a = (size_t) cv.x[st.last_low];
  b = (size_t) cv.x[st.first_high];
  lo = st.lo;
  hi = st.hi;
  while (b - a > 8) {
    mid = (a + b) / 2;
    /* Low in the jump: an LRU-like transition starts right at capacity. */
    if (cpoint(&c, mid, &bytes) < lo + 0.1 * (hi - lo))
      a = mid;
    else
      b = mid;
  }
  cpoint(&c, a, &bytes);
  l1i->value = bytes;
  l1i->source = XRAY_SOURCE_MEASURED;
out:
  xray__curve_free(&cv);
}

static int
icache_run(xray_machine *m, xray_report *r)
{
  xray_value *l1i = xray_report_add(r, "XRAY_L1I_SIZE", "L1 instruction cache capacity", "bytes");
  xray_value *uop = xray_report_add(r, "XRAY_UOP_CACHE_OPS",
                                    "decoded-op cache capacity (0: none found)", "ops");
  double l1[MAX_RUNS], up[MAX_RUNS], deadline;
  int clean[MAX_RUNS], n = 0;
  struct once o = { 0 };

  if (!l1i || !uop)
    return -1;
  if (xray__machine_uses_c(m)) {
    icache_c(m, l1i, uop);
    return 0;
  }
  /* Repeat in fresh code buffers until both values are confirmed.  A run
   * can meet a contended phase of the host (an SMT sibling that takes half
   * of the op cache and L1I, for tens to hundreds of milliseconds) or a
   * conflict tied to its buffer's pages, so keep trying, starting new runs
   * only in the first 3/4 of the budget.  A disturbed run (many points
   * measured only at reduced speed) needs two others to confirm it. */
  deadline = xray__now() + 0.75 * m->budget;
  while (n < MAX_RUNS && (n < 4 || xray__now() < deadline)) {
    int measured, unsure = xray__machine_unsure(m, &measured), measured2, unsure2;
    m->ops->reset(m);
    if (measure_once(m, &o)) {
      snprintf(l1i->reason, sizeof l1i->reason, "cannot run generated code: %.170s", m->error);
      snprintf(uop->reason, sizeof uop->reason, "%s", l1i->reason);
      return -1;
    }
    l1[n] = o.l1i;
    up[n] = o.uop;
    /* Clean: at most 3 % of its points without two full-speed samples (a
     * disturbed run has tens of them; a good one, none to five in 190). */
    unsure2 = xray__machine_unsure(m, &measured2);
    clean[n] = (unsure2 - unsure) * 33 <= measured2 - measured;
    n++;
    if (confirmed(l1, clean, n) && confirmed(up, clean, n))
      break;
  }
  conclude(l1i, m, "nop8", l1, clean, n, o.l1i_gradual,
           "no fetch-bound step in loops of 1 KB to 1 MB of 8-byte NOPs");
  conclude(uop, m, "nop4", up, clean, n, o.uop_gradual, "no op-cache edge found");
  return 0;
}

const xray_probe xray__probe_icache = {
  "icache", "L1 instruction cache and decoded-op cache capacity", icache_run
};
