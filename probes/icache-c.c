/* The icache probe's portable C path (no machine-code backend for the
 * ISA, or asked for): the paper's own kernel, X-Ray's statement of four
 * independent register adds, compiled for each size.  It is ALU-bound on
 * wide cores (no step at all on Zen 3) and cannot tell an op cache apart;
 * it runs few, expensive points: 2 per octave, then a bisection. */
#include "icache.h"

#include <math.h>
#include <stdio.h>

struct cctx {
  xray_machine *m;
  double bytes_per_stmt;
};

static double
cpoint(struct cctx *c, size_t n, double *bytes)
{
  static const struct xray_cspec add4 = { "p1 += p0; p2 += p0; p3 += p0; p4 += p0", "long", 5, 1,
                                          XRAY__STYLE_BARRIER };
  struct xray__ask a = { .kind = XRAY__ASK_CCODE, .cspec = &add4, .n = n, .bytes = bytes };

  return xray__machine_measure(c->m, "icache", "c-add4", XRAY__X_BYTES, &a).y;
}

void
xray__icache_c(xray_machine *m, xray_value *l1i, xray_value *uop)
{
  struct cctx c = { m, 0 };
  struct xray__curve cv = { 0 };
  struct xray__step st;
  /* The budget holds here too, although every point is a compile: a
   * longer one (--budget) buys the points this path needs.  A machine that
   * takes no real time has none. */
  double t0 = xray__now(), bytes, y, lo, hi, limit = m->timed ? m->budget : INFINITY;
  size_t n, a, b, mid;

  snprintf(l1i->method, sizeof l1i->method,
           "portable C fallback: X-Ray's statement of four register adds, compiled for each "
           "size with '%.60s %.60s' (ALU-bound on wide cores)",
           m->cc, m->cflags);
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
    snprintf(l1i->reason, sizeof l1i->reason, "no step in C loops of up to %.0f bytes%s",
             cv.n ? cv.x[cv.n - 1] * c.bytes_per_stmt : 0,
             xray__now() - t0 >= limit ? " before the time budget was spent (each point is "
                                         "a compile: give a larger --budget)"
                                       : ": the kernel is not fetch-bound here");
    goto out;
  }
  a = (size_t) cv.x[st.last_low];
  b = (size_t) cv.x[st.first_high];
  lo = st.lo;
  hi = st.hi;
  while (b - a > 8) {
    if (xray__now() - t0 >= limit) {
      snprintf(l1i->reason, sizeof l1i->reason,
               "a step between C loops of %.0f and %.0f "
               "bytes, not narrowed before the time budget was spent (give a larger --budget)",
               (double) a * c.bytes_per_stmt, (double) b * c.bytes_per_stmt);
      goto out;
    }
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
