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
/* The chains' three runs agree within this to be confirmed. */
#define RUNS_AGREE 0.05
/* Cycles are the chains' time at the clock calibrated at the start.  A
 * core slowed for a while (a tenant on its sibling thread, a clock that
 * drops after wide instructions) makes all three runs agree on too many
 * cycles, so an add chain, one cycle an add, is timed just before and
 * just after them (the best of CLOCK_BURSTS bursts each); the chains'
 * figures are confirmed only where both run within CLOCK_HOLDS of the
 * calibrated clock. */
#define CLOCK_BURSTS 3
#define CLOCK_HOLDS 0.05

/* Cycles per instruction of the machine code's FMA with `chains`
 * independent chains (1: the latency): the point at chains of kernel
 * "chains". */
static struct xray__got
fma_point(xray_machine *m, int chains)
{
  struct xray__ask a = { .kind = XRAY__ASK_FMA, .a = chains };

  return xray__machine_measure(m, "fma", "chains", chains, &a);
}

/* The best of CLOCK_BURSTS add-chain bursts, in MHz (point `at` and
 * on), or NAN where the add chain cannot be timed. */
static double
clock_now(xray_machine *m, int at)
{
  double tsc_hz = 0, best = NAN;
  struct xray__ask a = { .kind = XRAY__ASK_CLOCK, .tsc_hz = &tsc_hz };
  int i;

  for (i = 0; i < CLOCK_BURSTS; i++) {
    struct xray__got got = xray__machine_measure(m, "fma", "addchain", at + i, &a);
    if (got.status != XRAY__MEASURED)
      return NAN;
    best = isnan(best) ? got.y : fmax(best, got.y);
  }
  return best;
}

/* Doubt lat and per where the clock around their chains (before, after:
 * MHz) strayed from the calibrated one. */
static void
clock_check(const xray_machine *m, double before, double after, xray_value *lat, xray_value *per)
{
  double f = m->core_hz / 1e6, off;

  if (!(f > 0) || isnan(before) || isnan(after))
    return;
  off = fmax(fabs(before - f), fabs(after - f)) / f;
  if (off <= CLOCK_HOLDS)
    return;
  xray__value_doubt(lat,
                    "; not confirmed: an add chain ran at %.0f and %.0f MHz around the chains, "
                    "not the %.0f they are counted at",
                    before, after, f);
  if (per->source == XRAY_SOURCE_MEASURED)
    xray__value_doubt(per,
                      "; not confirmed: an add chain ran at %.0f and %.0f MHz around the "
                      "chains, not %.0f",
                      before, after, f);
}

/* Whether the compiler fuses a*b+c (have), from the two kernels t: 1, 0,
 * or -1 where they could not be timed; *chain, the fused form's cycles. */
static int
compiler_fuses(xray_machine *m, xray_value *have, double *chain)
{
  static const struct xray_cspec k[2] = {
    { "p0 = p0 * p1 + p2", "double", 3, 32, XRAY__STYLE_BARRIER },
    { "p3 = p0 * p1|p0 = p3 + p2", "double", 4, 32, XRAY__STYLE_BARRIER },
  };
  struct xray__timed t[2];
  char how[200];
  double ratio;
  int fused;

  if (xray__time_set(m, k, 2, t) != 0 || isnan(t[0].t) || isnan(t[1].t)) {
    xray__value_unknown(have, m->error);
    return -1;
  }
  ratio = t[0].t / (2 * t[1].t);
  fused = ratio < FUSED;
  snprintf(how, sizeof how,
           "double a*b+c %.2f cycles as written, %.2f with a barrier "
           "between * and + (ratio %.2f, fused below %.2f); %s %s",
           t[0].t, 2 * t[1].t, ratio, FUSED, m->cc, m->cflags);
  xray__value_measured(have, fused, how);
  have->exact = ratio;
  have->unconfirmed = !t[0].agree || !t[1].agree;
  *chain = t[0].t;
  return fused;
}

/* The median of three runs of the chains' point; *apart, whether they
 * disagree. */
static double
three_runs(xray_machine *m, int chains, double first, int *apart)
{
  double v[3];
  int i;

  v[0] = first;
  for (i = 1; i < 3; i++)
    v[i] = fma_point(m, chains).y;
  *apart = fmax(v[0], fmax(v[1], v[2])) > (1 + RUNS_AGREE) * fmin(v[0], fmin(v[1], v[2]));
  return xray__median(v, 3);
}

static int
run_fma(xray_machine *m, xray_report *r)
{
  xray_value *have = xray__report_param(r, "XRAY_HAVE_FMA", NULL, NULL);
  xray_value *isa = xray__report_param(r, "XRAY_HAVE_FMA_ISA", NULL, NULL);
  xray_value *lat = xray__report_param(r, "XRAY_FMA_LATENCY", NULL, NULL);
  xray_value *per = xray__report_param(r, "XRAY_FMA_PER_CYCLE", NULL, NULL);
  char err[200];
  double l1, l12, chain = NAN, before, after;
  struct xray__got got;
  int fused, lat_apart, per_apart;

  if (!have || !isa || !lat || !per)
    return -1;
  fused = compiler_fuses(m, have, &chain);
  /* The processor. */
  m->error[0] = 0;
  before = clock_now(m, 0);
  got = fma_point(m, 1);
  if (got.status != XRAY__MEASURED) {
    snprintf(err, sizeof err, "%s", m->error);
    /* A processor without the instruction has an answer: no. */
    if (got.status == XRAY__ABSENT) {
      xray__value_measured(isa, 0, err);
      xray__value_unknown(lat, err);
    } else {
      xray__value_unknown(isa, err);
      /* The compiler's fused form still has a latency. */
      if (fused == 1) {
        xray__value_measured(lat, xray__quantize(chain), "the compiler's fused a*b+c chain");
        lat->exact = chain;
        xray__value_ns(m, lat, chain);
      } else
        xray__value_unknown(lat, err);
    }
    xray__value_unknown(per, err);
    return 0;
  }
  l1 = three_runs(m, 1, got.y, &lat_apart);
  l12 = three_runs(m, 12, fma_point(m, 12).y, &per_apart);
  after = clock_now(m, CLOCK_BURSTS);
  xray__value_measured(isa, 1, "ran a fused multiply-add instruction");
  xray__value_measured(lat, xray__quantize(l1), "dependent chain of the machine instruction");
  lat->exact = l1;
  lat->unconfirmed = lat_apart;
  xray__value_ns(m, lat, l1);
  if (l12 > 0) {
    double ii = xray__quantize(l12);
    xray__value_measured(per, floor(1 / ii + 0.5) >= 1 ? floor(1 / ii + 0.5) : 1 / ii,
                         "12 independent chains of the machine instruction");
    per->exact = 1 / l12;
    per->unconfirmed = per_apart;
  } else
    xray__value_unknown(per, m->error);
  clock_check(m, before, after, lat, per);
  return 0;
}

const xray_probe xray__probe_fma = { "fma",
                                     "fused multiply-add: compiler, processor, latency, rate",
                                     run_fma };
