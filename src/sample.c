/* Timing that survives a shared, noisy VM.
 *
 * X-Ray's estimator (one run, R doubled until it lasts t_min) is off by 3-4x
 * once the machine is busy, and a preemption during an early short run ends
 * the doubling with a value 10^3-10^5 too large.  Here instead:
 *
 *  - the iteration count is fixed first, from the minimum of three runs at
 *    each doubling, so that one sample lasts about 25 us;
 *  - the estimate is the minimum over many such short samples (a short
 *    sample is rarely preempted, and noise only ever adds time);
 *  - for throughput-bound kernels each sample is bracketed by two runs of a
 *    small reference kernel and kept only when both ran within 5 % of the
 *    best reference time seen.  The host slows us down in stretches of tens
 *    of milliseconds: a busy SMT sibling on the host halves our throughput
 *    and also takes half of the op cache and L1I, which changes the very
 *    curve we measure, so such samples must be dropped, not corrected.
 *    A kept sample is scaled by best/mean(reference), which removes the
 *    remaining few percent of drift. */
#include "xray-internal.h"

#include <math.h>

static uint64_t
run_once(const struct xray__kernel *k, uint64_t iters)
{
  uint64_t t0 = xray__ticks();

  k->run(k->ctx, iters);
  return xray__ticks() - t0;
}

static uint64_t
run_min(const struct xray__kernel *k, uint64_t iters, int reps)
{
  uint64_t best = UINT64_MAX, t;

  while (reps-- > 0)
    if ((t = run_once(k, iters)) < best)
      best = t;
  return best;
}

uint64_t
xray__iters_for(const struct xray__kernel *k, uint64_t target_ticks)
{
  uint64_t it = 1, t;

  for (;;) {
    t = run_min(k, it, 3);
    if (t >= target_ticks / 4 || it >= (UINT64_C(1) << 40))
      break;
    /* Grow fast while far away, but never trust one ratio completely. */
    if (t > 0 && target_ticks / 4 / t > 2)
      it *= target_ticks / 4 / t;
    else
      it *= 2;
  }
  if (t == 0)
    return it;
  it = (uint64_t) ((double) it * (double) target_ticks / (double) t + 0.5);
  return it ? it : 1;
}

void
xray__sampler_init(struct xray__sampler *s, double seconds)
{
  double hz = xray__tick_hz();

  s->target = (uint64_t) (hz * 25e-6);
  if (s->target < 1000)
    s->target = 1000;
  s->want = 4;
  s->min_attempts = 8;
  s->max_attempts = 200;
  s->tolerance = 0.05;
  s->deadline = xray__now() + seconds;
  s->unsure = 0;
}

static void
ref_prepare(struct xray__sampler *s, struct xray__ref *r)
{
  int i;

  if (r->iters)
    return;
  r->iters = xray__iters_for(&r->k, s->target / 2);
  r->best = HUGE_VAL;
  for (i = 0; i < 32; i++) {
    double t = (double) run_once(&r->k, r->iters);
    if (t < r->best)
      r->best = t;
  }
}

double
xray__measure(struct xray__sampler *s, const struct xray__kernel *k, struct xray__ref *r)
{
  uint64_t iters = xray__iters_for(k, s->target);
  double best_ok = HUGE_VAL, best_any = HUGE_VAL;
  int att, ok = 0;

  if (r)
    ref_prepare(s, r);
  for (att = 0; att < s->max_attempts; att++) {
    double r0 = r ? (double) run_once(&r->k, r->iters) : 0;
    double t = (double) run_once(k, iters);
    double r1 = r ? (double) run_once(&r->k, r->iters) : 0;
    int good = 1;

    if (r) {
      if (r0 < r->best)
        r->best = r0;
      if (r1 < r->best)
        r->best = r1;
      good = r0 <= r->best * (1 + s->tolerance) && r1 <= r->best * (1 + s->tolerance);
      t = t / ((r0 + r1) / 2) * r->best;
    }
    if (t < best_any)
      best_any = t;
    if (good) {
      ok++;
      if (t < best_ok)
        best_ok = t;
    }
    if (ok >= s->want && att + 1 >= s->min_attempts)
      break;
    if (ok > 0 && xray__now() > s->deadline)
      break;
  }
  if (ok == 0) {
    s->unsure++;
    best_ok = best_any;
  }
  return best_ok / (double) iters;
}
