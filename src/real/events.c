/* Hardware events on the real machine: the counters of measure/pmu.c
 * around one run of a branch kernel or a stretch of a pointer chase. */
#include "real/real.h"

#include <math.h>
#include <string.h>

int
xray__real_pmu(xray_machine *m)
{
  return xray__pmu_access(m->error, sizeof m->error);
}

const char *
xray__real_event_at(xray_machine *m, size_t i)
{
  (void) m;
  return xray__pmu_event_at(i);
}

struct branch_run {
  long (*fn)(long size, long lim);
  long size;
};

static void
run_branch(void *ctx)
{
  const struct branch_run *b = ctx;

  b->fn(b->size, b->size);
}

double
xray__real_bevent(xray_machine *m, long (*fn)(long size, long lim), const char *name, long size)
{
  struct branch_run b = { fn, size };
  double v = xray__pmu_count(name, run_branch, &b, m->error, sizeof m->error);

  return v < 0 ? NAN : v;
}

struct chase_run {
  void *p;
  uint64_t iters;
};

static void
run_chase(void *ctx)
{
  struct chase_run *c = ctx;

  c->p = xray__chase_run(c->p, c->iters);
}

/* Each event counts its own stretch of the chase: the counters are opened
 * one at a time, so none is multiplexed. */
int
xray__real_cevents(xray_machine *m, struct xray__arena *a, const char *const *names, size_t n,
                   const struct xray__chase *c, long loads, double *out)
{
  struct chase_run run;
  size_t i;

  if (c->n == 0 || loads < XRAY__CHASE_UNROLL) {
    snprintf(m->error, sizeof m->error, "an empty chase");
    return -1;
  }
  if (!(run.p = xray__chase_place(a, c, m->error, sizeof m->error)))
    return -1;
  run.iters = (2 * (uint64_t) c->n + XRAY__CHASE_UNROLL - 1) / XRAY__CHASE_UNROLL;
  run_chase(&run);
  run.iters = (uint64_t) loads / XRAY__CHASE_UNROLL;
  for (i = 0; i < n; i++) {
    double v = xray__pmu_count(names[i], run_chase, &run, m->error, sizeof m->error);
    out[i] = v < 0 ? NAN : v;
  }
  return 0;
}
