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
/* Cycles are the chains' time at the clock calibrated when the machine
 * was made, which moves (a clock that steps with the host's load, or
 * drops after wide instructions) and makes all three runs agree on a
 * wrong count.  So an add chain, one cycle an add, is timed just before
 * and just after them (the best of CLOCK_BURSTS bursts each): where the
 * two agree within CLOCK_HOLDS of the calibrated clock, the chains ran at
 * their mean, and their cycles are counted at it; where they do not, the
 * clock moved while the chains ran, and their figures are not
 * confirmed. */
#define CLOCK_BURSTS 3
#define CLOCK_HOLDS 0.05
/* A clock further than this from the calibrated one is named in the
 * method, so that a reader can tell the cycles were rescaled. */
#define CLOCK_SAID 0.005
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

/* The factor that turns the chains' cycles at the calibrated clock into
 * cycles at the clock around them (before, after: MHz), written into
 * how; 0 where that clock moved while they ran (why in how), and 1
 * where it cannot be told (no calibrated clock, or no add chain). */
static double
clock_factor(const xray_machine *m, double before, double after, char *how, size_t len)
{
  double f = m->core_hz / 1e6;

  how[0] = 0;
  if (!(f > 0) || isnan(before) || isnan(after))
    return 1;
  if (fabs(before - after) > CLOCK_HOLDS * f) {
    snprintf(how, len,
             "; not confirmed: an add chain ran at %.0f and %.0f MHz around the chains: the "
             "clock moved while they ran",
             before, after);
    return 0;
  }
  if (fabs((before + after) / 2 - f) > CLOCK_SAID * f)
    snprintf(how, len, "; counted at the %.0f MHz an add chain ran at around them (not %.0f)",
             (before + after) / 2, f);
  return (before + after) / 2 / f;
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

/* FMAs started a cycle from the cycles an FMA of 12 chains takes: a
 * whole number where there is one, as ports issue whole instructions. */
static double
rate_of(double cycles)
{
  double ii = xray__quantize(cycles);

  return floor(1 / ii + 0.5) >= 1 ? floor(1 / ii + 0.5) : 1 / ii;
}

/* The median of three runs of the chains' point; *apart, whether they
 * disagree: the latency's by more than RUNS_AGREE, the rate's (12
 * chains) on the number of FMAs a cycle: a core's issue of 12 chains
 * can settle a few per cent apart from run to run at the same whole
 * rate, which is the value, where all three give it. */
static double
three_runs(xray_machine *m, int chains, double first, int *apart)
{
  double v[3];
  int i;

  v[0] = first;
  for (i = 1; i < 3; i++)
    v[i] = fma_point(m, chains).y;
  if (chains == 1)
    *apart = fmax(v[0], fmax(v[1], v[2])) > (1 + RUNS_AGREE) * fmin(v[0], fmin(v[1], v[2]));
  else
    *apart = rate_of(v[0]) != rate_of(v[1]) || rate_of(v[1]) != rate_of(v[2]);
  return xray__median(v, 3);
}

static int
run_fma(xray_machine *m, xray_report *r)
{
  xray_value *have = xray__report_param(r, "XRAY_HAVE_FMA", NULL, NULL);
  xray_value *isa = xray__report_param(r, "XRAY_HAVE_FMA_ISA", NULL, NULL);
  xray_value *lat = xray__report_param(r, "XRAY_FMA_LATENCY", NULL, NULL);
  xray_value *per = xray__report_param(r, "XRAY_FMA_PER_CYCLE", NULL, NULL);
  char err[200], clocked[160], how[240];
  double l1, l12, chain = NAN, before, after, scale;
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
  if ((scale = clock_factor(m, before, after, clocked, sizeof clocked)) > 0) {
    l1 *= scale;
    l12 *= scale;
  } else
    lat_apart = per_apart = 1;
  xray__value_measured(isa, 1, "ran a fused multiply-add instruction");
  snprintf(how, sizeof how, "dependent chain of the machine instruction%s", clocked);
  xray__value_measured(lat, xray__quantize(l1), how);
  lat->exact = l1;
  lat->unconfirmed = lat_apart;
  xray__value_ns(m, lat, l1 / (scale > 0 ? scale : 1)); /* the chain's time */
  if (l12 > 0) {
    snprintf(how, sizeof how, "12 independent chains of the machine instruction%s", clocked);
    xray__value_measured(per, rate_of(l12), how);
    per->exact = 1 / l12;
    per->unconfirmed = per_apart;
  } else
    xray__value_unknown(per, m->error);
  return 0;
}

const xray_probe xray__probe_fma = { "fma",
                                     "fused multiply-add: compiler, processor, latency, rate",
                                     run_fma };
