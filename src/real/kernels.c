/* The real machine's compiled C kernels: kernel sets (latency,
 * throughput, FMA, registers) and the branch kernels, built with the
 * machine's compiler and timed by its sampler (real-machine.h). */
#include "real/real.h"
#include "real/real-machine.h"

#include <math.h>
#include <stdio.h>

/* --- kernel sets ------------------------------------------------------- */

int
xray__real_kset_build(xray_machine *base, const struct xray_cspec *c, size_t n)
{
  struct real *m = (struct real *) base;

  return xray__kernel_set_compile(&m->kernels, c, n, base->cc, base->cflags, base->error,
                                  sizeof base->error);
}

void
xray__real_run_kset(void *ctx, uint64_t iters)
{
  const struct xray__kernel_set_k *k = ctx;

  k->fn((long) iters);
}

double
xray__real_kset_time(xray_machine *base, size_t i, int *avail, double *stack)
{
  struct real *m = (struct real *) base;
  struct xray__kernel_set_k *k;
  struct xray__kernel kern;
  double ticks;

  *avail = 0;
  *stack = -1;
  if (i >= m->kernels.n)
    return xray__machine_fail(base, XRAY__FAIL_ERROR, "no such kernel");
  k = &m->kernels.k[i];
  *avail = k->avail;
  *stack = k->stack;
  if (!k->avail)
    return NAN;
  kern.run = xray__real_run_kset;
  kern.ctx = k;
  ticks = xray__measure(&m->sampler, &kern, xray__real_alu_ref(m));
  return xray__real_cycles(m, ticks / k->w);
}

int
xray__real_kset_info(xray_machine *base, size_t i, double *stack)
{
  struct real *m = (struct real *) base;

  *stack = i < m->kernels.n ? m->kernels.k[i].stack : -1;
  return i < m->kernels.n && m->kernels.k[i].avail;
}

/* --- branch kernels ------------------------------------------------------ */

int
xray__real_branch_build(xray_machine *base)
{
  struct real *m = (struct real *) base;

  return xray__branch_build(&m->branch, base->cc, base->cflags, base->error, sizeof base->error);
}

const struct xray__bcount *
xray__real_branch_count(xray_machine *base, size_t k)
{
  struct real *m = (struct real *) base;

  return m->branch.dl && k < XRAY__BK_N ? &m->branch.count[k] : NULL;
}

struct branch_ctx {
  long (*fn)(long size, long lim);
  double frac;
};

static void
run_branch(void *ctx, uint64_t iters)
{
  const struct branch_ctx *b = ctx;

  b->fn((long) iters, (long) (b->frac * (double) iters + 0.5));
}

double
xray__real_branch_time(xray_machine *base, size_t k, double frac, int cpu)
{
  struct real *m = (struct real *) base;
  struct branch_ctx ctx;
  struct xray__kernel kern = { run_branch, &ctx };
  struct xray__clock *clock;
  struct xray__ref *ref;
  double y;

  if (!m->branch.dl || k >= XRAY__BK_N)
    return xray__machine_fail(base, XRAY__FAIL_ERROR, "the branch kernels are not built");
  ctx.fn = m->branch.fn[k];
  ctx.frac = frac;
  if (cpu < 0 || cpu == base->home)
    return xray__real_cycles(m, xray__measure(&m->sampler, &kern, xray__real_alu_ref(m)));
  if (xray__real_away(m, cpu, &clock, &ref))
    return NAN;
  y = xray__measure(&m->sampler, &kern, ref) / xray__clock_now(clock);
  xray__real_home(m);
  return y;
}

double
xray__real_branch_event(xray_machine *base, const char *name, size_t k, long size)
{
  struct real *m = (struct real *) base;

  if (!m->branch.dl || k >= XRAY__BK_N)
    return xray__machine_fail(base, XRAY__FAIL_ERROR, "the branch kernels are not built");
  return xray__real_bevent(base, m->branch.fn[k], name, size);
}
