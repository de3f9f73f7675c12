/* The fused multiply-add (X-Ray Sec. 3.4): a*b+c as written, against the
 * same with a barrier between the multiply and the add (no compiler can
 * fuse across it): the compiler fuses when the first is clearly faster.
 * The instruction itself is run from machine code (XRAY__ASK_FMA): whether
 * the processor has it, its latency and its rate. */
#include "probes.h"

#include <math.h>
#include <stdio.h>

/* Fused if a*b+c as written is this much faster than across a barrier. */
#define FUSED 0.85

/* Cycles per instruction of the machine code's FMA with `chains`
 * independent chains (1: the latency): the point at chains of kernel
 * "chains". */
static struct xray__got
fma_point(xray_machine *m, int chains)
{
  struct xray__ask a = { .kind = XRAY__ASK_FMA, .a = chains };

  return xray__machine_measure(m, "fma", "chains", chains, &a);
}

static int
run_fma(xray_machine *m, xray_report *r)
{
  static const struct xray_cspec k[2] = {
    { "p0 = p0 * p1 + p2", "double", 3, 32, XRAY__STYLE_BARRIER },
    { "p3 = p0 * p1|p0 = p3 + p2", "double", 4, 32, XRAY__STYLE_BARRIER },
  };
  struct xray__timed t[2];
  xray_value *have = xray__report_param(r, "XRAY_HAVE_FMA", NULL, NULL);
  xray_value *isa = xray__report_param(r, "XRAY_HAVE_FMA_ISA", NULL, NULL);
  xray_value *lat = xray__report_param(r, "XRAY_FMA_LATENCY", NULL, NULL);
  xray_value *per = xray__report_param(r, "XRAY_FMA_PER_CYCLE", NULL, NULL);
  char how[200], err[200];
  double l1, l12;
  struct xray__got got;
  int fused = -1;

  if (!have || !isa || !lat || !per)
    return -1;
  /* The compiler. */
  if (xray__time_set(m, k, 2, t) == 0 && !isnan(t[0].t) && !isnan(t[1].t)) {
    double ratio = t[0].t / (2 * t[1].t);
    fused = ratio < FUSED;
    snprintf(how, sizeof how, "double a*b+c %.2f cycles as written, %.2f with a barrier "
             "between * and + (ratio %.2f, fused below %.2f); %s %s",
             t[0].t, 2 * t[1].t, ratio, FUSED, m->cc, m->cflags);
    xray__value_measured(have, fused, how);
    have->exact = ratio;
    have->unconfirmed = !t[0].agree || !t[1].agree;
  } else
    xray__value_unknown(have, m->error);
  /* The processor. */
  m->error[0] = 0;
  got = fma_point(m, 1);
  if (got.status != XRAY__MEASURED) {
    snprintf(err, sizeof err, "%s", m->error);
    /* A processor without the instruction has an answer: no. */
    if (got.status == XRAY__ABSENT) {
      xray__value_measured(isa, 0, err);
      xray__value_unknown(lat, err);
      xray__value_unknown(per, err);
    } else {
      xray__value_unknown(isa, err);
      /* The compiler's fused form still has a latency. */
      if (fused == 1) {
        xray__value_measured(lat, xray__quantize(t[0].t), "the compiler's fused a*b+c chain");
        lat->exact = t[0].t;
        xray__value_ns(m, lat, t[0].t);
      } else
        xray__value_unknown(lat, err);
      xray__value_unknown(per, err);
    }
    return 0;
  }
  {
    double a = got.y, b = fma_point(m, 1).y, c = fma_point(m, 1).y;
    double v[3] = { a, b, c };
    l1 = xray__median(v, 3);
    lat->unconfirmed = fmax(a, fmax(b, c)) > 1.05 * fmin(a, fmin(b, c));
  }
  {
    double v[3];
    int i;
    for (i = 0; i < 3; i++)
      v[i] = fma_point(m, 12).y;
    l12 = xray__median(v, 3);
    per->unconfirmed = fmax(v[0], fmax(v[1], v[2])) > 1.05 * fmin(v[0], fmin(v[1], v[2]));
  }
  xray__value_measured(isa, 1, "ran a fused multiply-add instruction");
  xray__value_measured(lat, xray__quantize(l1), "dependent chain of the machine instruction");
  lat->exact = l1;
  xray__value_ns(m, lat, l1);
  if (l12 > 0) {
    double ii = xray__quantize(l12);
    xray__value_measured(per, floor(1 / ii + 0.5) >= 1 ? floor(1 / ii + 0.5) : 1 / ii,
                         "12 independent chains of the machine instruction");
    per->exact = 1 / l12;
  } else
    xray__value_unknown(per, m->error);
  return 0;
}

const xray_probe xray__probe_fma = { "fma",
                                     "fused multiply-add: compiler, processor, latency, rate",
                                     run_fma };
