/* Timing that survives a shared, noisy VM.
 *
 * X-Ray's estimator (one run, R doubled until it lasts t_min) is off by 3-4x
 * once the machine is busy, and a preemption during an early short run ends
 * the doubling with a value 10^3-10^5 too large.  Here instead:
 *
 *  - the iteration count is fixed first, from the minimum of three runs at
 *    each doubling, so that one sample lasts about SAMPLE_S (12.5 us: as
 *    long as the counter's read and the loop's exit stay far under 0.1 %
 *    of it, a shorter sample is only less often interrupted, and the
 *    probes' points cost their sample count times it);
 *  - the estimate is the second smallest of many such short samples (a
 *    short sample is rarely preempted, and noise only ever adds time; the
 *    second smallest, because on this VM the counter now and then yields a
 *    run several times too fast, and one such glitch must not become the
 *    answer or the reference's best time);
 *  - for throughput-bound kernels each sample is bracketed by two runs of a
 *    small reference kernel and kept only when both ran within 5 % of the
 *    best reference time seen.  The host slows us down in stretches of tens
 *    of milliseconds: a busy SMT sibling on the host halves our throughput
 *    and also takes half of the op cache and L1I, which changes the very
 *    curve we measure, so such samples must be dropped, not corrected.
 *    A kept sample is scaled by best/mean(reference), which removes the
 *    remaining few percent of drift. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE             /* sched_getcpu */
#endif
#include "measure/measure.h"

#include <math.h>
#ifdef __linux__
#include <sched.h>
#endif

static int
cpu_now(void)
{
#ifdef __linux__
  return sched_getcpu();
#else
  return 0;
#endif
}

/* Ticks for one run, or UINT64_MAX if the run moved to another CPU: under
 * a hypervisor the CPUs' counters need not agree, and a migrated run reads
 * garbage (we saw 5x too fast as well as too slow) with cold caches. */
static uint64_t
run_once(const struct xray__kernel *k, uint64_t iters)
{
  int cpu = cpu_now();
  uint64_t t0 = xray__isa_ticks(), t1;

  k->run(k->ctx, iters);
  t1 = xray__isa_ticks();
  return cpu_now() == cpu && t1 >= t0 ? t1 - t0 : UINT64_MAX;
}

uint64_t
xray__run_min(const struct xray__kernel *k, uint64_t iters, int reps)
{
  uint64_t best = UINT64_MAX, t;

  while (reps-- > 0 || best == UINT64_MAX)
    if ((t = run_once(k, iters)) < best)
      best = t;
  return best;
}

uint64_t
xray__iters_for(const struct xray__kernel *k, uint64_t target_ticks)
{
  uint64_t it = 1, t;

  for (;;) {
    t = xray__run_min(k, it, 3);
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

#define SAMPLE_S 12.5e-6

void
xray__sampler_init(struct xray__sampler *s, double seconds)
{
  double hz = xray__tick_hz(), len;

  s->target = (uint64_t) (hz * SAMPLE_S);
  if (s->target < 1000)
    s->target = 1000;
  len = hz > 0 ? (double) s->target / hz : SAMPLE_S;
  s->want = 4;
  s->min_attempts = 8;
  /* In time, not in attempts: the host's stretches last milliseconds
   * whatever a sample's length.  An attempt with its references lasts
   * about two samples: a gated point gives up after 10 ms, and with none
   * accepted after 2 ms (see xray__measure); one without references
   * after half that.  A coarse counter's longer samples still get some
   * attempts. */
  s->max_attempts = (int) fmax(5 * s->min_attempts, 10e-3 / (2 * len));
  s->hopeless = (int) fmax(2 * s->min_attempts, 2e-3 / (2 * len));
  s->tolerance = 0.05;
  s->deadline = xray__now() + seconds;
  s->unsure = 0;
  s->measured = 0;
}

static void
low2_init(struct xray__low2 *l)
{
  l->a = l->b = HUGE_VAL;
}

static void
low2_add(struct xray__low2 *l, double v)
{
  if (v < l->a) {
    l->b = l->a;
    l->a = v;
  } else if (v < l->b)
    l->b = v;
}

static void
ref_prepare(struct xray__sampler *s, struct xray__ref *r)
{
  int i;

  if (r->iters)
    return;
  r->iters = xray__iters_for(&r->k, s->target / 2);
  low2_init(&r->t);
  for (i = 0; i < 32 || r->t.b == HUGE_VAL; i++) {
    uint64_t t = run_once(&r->k, r->iters);
    if (t != UINT64_MAX)
      low2_add(&r->t, (double) t);
  }
}

double
xray__measure(struct xray__sampler *s, const struct xray__kernel *k, struct xray__ref *r)
{
  uint64_t iters = xray__iters_for(k, s->target);
  struct xray__low2 good_t, any_t;
  int att, ok = 0;

  low2_init(&good_t);
  low2_init(&any_t);
  if (r)
    ref_prepare(s, r);
  for (att = 0; att < s->max_attempts; att++) {
    uint64_t u0 = r ? run_once(&r->k, r->iters) : 0;
    uint64_t ut = run_once(k, iters);
    uint64_t u1 = r ? run_once(&r->k, r->iters) : 0;
    double r0 = (double) u0, t = (double) ut, r1 = (double) u1;
    int good = 1;

    if (u0 == UINT64_MAX || ut == UINT64_MAX || u1 == UINT64_MAX)
      continue;

    /* The fallback keeps raw times, where noise only adds: scaled by a
     * preempted reference run, a sample would look impossibly fast. */
    low2_add(&any_t, t);
    if (r) {
      low2_add(&r->t, r0);
      low2_add(&r->t, r1);
      good = r0 <= r->t.b * (1 + s->tolerance) && r1 <= r->t.b * (1 + s->tolerance);
      t = t / ((r0 + r1) / 2) * r->t.b;
    }
    if (good) {
      ok++;
      low2_add(&good_t, t);
    }
    if (ok >= s->want && att + 1 >= s->min_attempts)
      break;
    /* A reference that has not once run at its speed in this many
     * attempts (milliseconds) is held back by a stretch of the host that
     * outlasts the point: waiting on to max_attempts mostly ends with none
     * accepted all the same, at five times the cost.  The point is unsure,
     * and the probe's own checks on unsure points (a run marked disturbed,
     * measured again) see it as they would at max_attempts. */
    if (ok == 0 && att + 1 >= s->hopeless)
      break;
    /* Past the budget, take what there is and give up quickly on the rest. */
    if ((ok > 0 || att >= 20) && xray__now() > s->deadline)
      break;
  }
  s->measured++;
  if (ok < 2) {
    s->unsure++;
    good_t = any_t;
  }
  return (good_t.b < HUGE_VAL ? good_t.b : good_t.a) / (double) iters;
}
