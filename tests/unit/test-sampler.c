/* measure/sample.c's gated sampler, against kernels whose times are set
 * here: each run spins on the tick counter for a fixed number of ticks an
 * iteration, so what the gate sees is what the test chose, whatever the
 * machine's speed.  The checks count attempts (kernel runs after the
 * iteration count is fixed), not seconds:
 * - a reference that runs at its speed: every attempt is accepted, the
 *   point stops at min_attempts and is sure, its time the kernel's;
 * - no reference: the same;
 * - a reference held back from the point on (a contended stretch of the
 *   host): none accepted, and the point gives up after `hopeless`
 *   attempts, not max_attempts, and is counted unsure;
 * - a reference that ran at its speed for three attempts and then not:
 *   some accepted, fewer than wanted, so the point waits on to
 *   max_attempts for more.
 * A case a disturbance can spoil is tried again (see TRIES). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_setaffinity */
#endif
#include "measure/measure.h"
#include "../tap.h"

#ifdef __linux__
#include <sched.h>
#endif

#define PER 100 /* ticks an iteration of either kernel */
#define LOG 8192 /* runs logged: more than the checks below make */
#define TRIES 5 /* of the case a disturbance can spoil */

struct spin {
  double slow; /* times PER, from the run numbered slow_from on */
  int slow_from, runs;
  uint64_t iters[LOG]; /* each run's iterations */
};

static void
spin_run(void *ctx, uint64_t iters)
{
  struct spin *s = ctx;
  double per = s->runs++ >= s->slow_from ? PER * s->slow : PER;
  uint64_t t0 = xray__isa_ticks(), want = (uint64_t) ((double) iters * per);

  if (s->runs <= LOG)
    s->iters[s->runs - 1] = iters;

  while (xray__isa_ticks() - t0 < want)
    ;
}

/* The attempts of the point measured since run `from`: the runs at the
 * iteration count of the last one (xray__iters_for's runs before them try
 * fewer); -1 past the log. */
static int
attempts(const struct spin *sp, int from)
{
  int i, n = 0;

  if (sp->runs < 1 || sp->runs > LOG)
    return -1;
  for (i = from; i < sp->runs; i++)
    n += sp->iters[i] == sp->iters[sp->runs - 1];
  return n;
}

/* The point of kernel k (with reference r, or none) where every run is at
 * speed: the time of an iteration, with the kernel's run count and the
 * unsure count before the try that gave it in *before and *unsure.  A
 * spin absorbs an interruption in its middle, but one that spans its end
 * lengthens it, and a host that does that to most samples of a point
 * spoils the point: the point is measured again, up to TRIES times, each
 * spoiled try named.  A sampler that is off fails every try. */
static double
at_speed(struct xray__sampler *s, const struct xray__kernel *k, struct xray__ref *r,
         const char *what, int *before, int *unsure)
{
  const struct spin *sp = k->ctx;
  double v = NAN;
  int tries;

  for (tries = 0; tries < TRIES; tries++) {
    *before = sp->runs;
    *unsure = s->unsure;
    v = xray__measure(s, k, r);
    if (fabs(v / PER - 1) <= 0.05)
      break;
    tap_diag("%s, try %d: %g ticks an iteration, %llu iterations a sample", what, tries + 1, v,
             (unsigned long long) (sp->runs <= LOG ? sp->iters[sp->runs - 1] : 0));
  }
  return v;
}

int
main(void)
{
  struct xray__sampler s;
  static struct spin kern = { 1, 0, 0, { 0 } }, ref = { 1, 0, 0, { 0 } };
  struct xray__kernel k = { spin_run, &kern };
  struct xray__ref r = { { spin_run, &ref }, 0, { 0, 0 } };
  double v;
  int before, unsure, tries, measured;

  tap_plan(10);
#ifdef __linux__
  {
    /* A run that moves to another CPU is an attempt thrown away, which
     * would shift the counts: stay on this one. */
    cpu_set_t one;
    int cpu = sched_getcpu();

    CPU_ZERO(&one);
    if (cpu >= 0) {
      CPU_SET(cpu, &one);
      sched_setaffinity(0, sizeof one, &one);
    }
  }
#endif
  xray__sampler_init(&s, 60);

  v = at_speed(&s, &k, &r, "a reference at its speed", &before, &unsure);
  tap_ok(attempts(&kern, before) >= s.min_attempts && attempts(&kern, before) < s.hopeless
             && s.unsure == unsure,
         "a reference at its speed: sure, in %d attempts (hopeless at %d), unsure %d",
         attempts(&kern, before), s.hopeless, s.unsure - unsure);
  tap_near(v, PER, 0.05, "a reference at its speed: ticks an iteration");

  v = at_speed(&s, &k, NULL, "no reference", &before, &unsure);
  tap_ok(attempts(&kern, before) == s.min_attempts && s.unsure == unsure,
         "no reference: every attempt accepted, %d of them (min_attempts %d), unsure %d",
         attempts(&kern, before), s.min_attempts, s.unsure - unsure);
  tap_near(v, PER, 0.05, "no reference: ticks an iteration");
  measured = s.measured;

  /* From here on the reference takes half as long again as its best. */
  ref.slow = 1.5;
  ref.slow_from = ref.runs;
  before = kern.runs;
  unsure = s.unsure;
  xray__measure(&s, &k, &r);
  tap_ok(attempts(&kern, before) == s.hopeless,
         "a reference held back: gives up after %d attempts (hopeless %d, max %d)",
         attempts(&kern, before), s.hopeless, s.max_attempts);
  tap_ok(s.unsure == unsure + 1, "... and the point is unsure (%d)", s.unsure - unsure);
  tap_ok(s.measured == measured + 1, "points measured: %d after %d", s.measured, measured);
  measured = s.measured;

  /* The next three attempts' reference runs at speed, then held back: one
   * to three accepted, fewer than want.  An interrupt or the host may
   * cost one of them, and a stretch in which the host runs something
   * else all three (the point then gives up after hopeless, as above):
   * the case is tried again, up to TRIES times, for one in which a
   * sample was accepted.  A sampler that stops early fails every try. */
  for (tries = 0; tries < TRIES; tries++) {
    ref.slow_from = ref.runs + 6;
    before = kern.runs;
    xray__measure(&s, &k, &r);
    if (attempts(&kern, before) != s.hopeless)
      break;
  }
  tap_ok(attempts(&kern, before) == s.max_attempts,
         "a sample accepted, then none: waits on for more, %d attempts (max %d; try %d)",
         attempts(&kern, before), s.max_attempts, tries < TRIES ? tries + 1 : TRIES);
  tap_ok(s.measured == measured + 1 + (tries < TRIES ? tries : TRIES - 1),
         "points measured: %d after %d", s.measured, measured);
  unsure = s.unsure;

  /* The reference back at its speed: sure again. */
  ref.slow_from = 1 << 30;
  before = kern.runs;
  xray__measure(&s, &k, &r);
  tap_ok(attempts(&kern, before) >= s.min_attempts && attempts(&kern, before) < s.hopeless
             && s.unsure == unsure,
         "the reference at its speed again: sure, in %d attempts", attempts(&kern, before));
  return tap_done();
}
