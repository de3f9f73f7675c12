/* The real machine: generated machine code timed by the sampler, cycles of
 * the core clock from a dependent-add chain timed the same way; its
 * compiled C kernels are kernels.c's. */
#include "real/real.h"
#include "real/real-machine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void
run_code(void *ctx, uint64_t iters)
{
  const struct run_ctx *r = ctx;

  xray__machine_code_run(r->code, r->n, iters);
}

/* Largest loop any probe asks for: 2 MB of code. */
#define CODE_BYTES_MAX (2u << 20)

static struct kind *
kind_for(struct real *m, const struct xray_stmt *s)
{
  struct kind *k;
  int i;

  for (i = 0; i < MAX_KINDS && m->kind[i].stmt && m->kind[i].stmt != s; i++)
    ;
  if (i == MAX_KINDS)
    return NULL;
  k = &m->kind[i];
  if (!k->code) {
    k->code = xray__machine_code_new(s, CODE_BYTES_MAX / s->len, m->base.error, sizeof m->base.error);
    if (!k->code)
      return NULL;
    k->stmt = s;
    /* Reference: 2 KB of the same statement, resident in every cache;
     * its best time is this buffer's, taken again (where the code lies
     * decides how fast it runs). */
    k->refctx.code = k->code;
    k->refctx.n = 2048 / s->len;
    k->ref.k.run = run_code;
    k->ref.k.ctx = &k->refctx;
    k->ref.iters = 0;
  }
  return k;
}

/* The reference that gates the samples of kind kd's code: its own 2 KB,
 * but for a statement with a taken jump the 4-byte NOPs'.  The time of 2
 * KB of taken jumps (the last of the kernel's own) depends on what ran
 * before them: the branch predictors' state, which the kernel's jumps
 * rewrite.  Where they run at their best only after runs of themselves
 * and slower beside the kernel (Golden Cove), the gate (a sample is kept
 * only where the reference ran within 5 % of its best on both sides)
 * keeps none, and every point waits out `hopeless` and is taken unsure.
 * Straight-line NOPs depend on no predictor, and a busy SMT sibling
 * slows them as much. */
static struct xray__ref *
ref_for(struct real *m, struct kind *kd)
{
  return kd->stmt->jumps ? xray__real_alu_ref(m) : &kd->ref;
}

double
xray__real_cycles(struct real *m, double ticks)
{
  return ticks / xray__clock_now(&m->clock);
}

static double
real_code(xray_machine *base, const struct xray_stmt *s, size_t n)
{
  struct real *m = (struct real *) base;
  struct run_ctx ctx;
  struct xray__kernel k = { run_code, &ctx };
  struct kind *kd = kind_for(m, s);

  if (!kd)
    return NAN;
  ctx.code = kd->code;
  ctx.n = n < kd->code->nmax ? n : kd->code->nmax;
  return xray__real_cycles(m, xray__measure(&m->sampler, &k, ref_for(m, kd)) / (double) ctx.n);
}

static void
run_chain(void *ctx, uint64_t iters)
{
  xray__chain_run(ctx, iters);
}

/* A chain is written for each call, in fresh pages: where its pieces lie
 * is what the caller measures.  Its samples are gated by its statement's
 * reference loop, like the loops of real_code. */
static double
real_jchain(xray_machine *base, const struct xray__jchain *c)
{
  struct real *m = (struct real *) base;
  struct kind *kd = kind_for(m, c->s);
  struct xray__machine_code *code;
  struct xray__kernel k = { run_chain, NULL };
  double ticks;

  if (!kd || !(code = xray__chain_new(c->s, c->p, c->n, c->link, base->error, sizeof base->error)))
    return NAN;
  k.ctx = code;
  run_chain(code, 2);
  ticks = xray__measure(&m->sampler, &k, ref_for(m, kd));
  xray__machine_code_free(code);
  return xray__real_cycles(m, ticks / (double) c->n);
}

/* The C path: generated C compiled and run as a program, which inherits
 * the pin, so that the home CPU's recent clock converts its times as it
 * does every other kernel's (cycles()). */
static double
real_ccode(xray_machine *base, const struct xray_cspec *c, size_t n, double *bytes)
{
  struct xray_cspec k = *c;
  double ns;
  long size;

  k.unroll = (int) n;
  if (xray__ckernel_run(&k, base->cc, base->cflags, &ns, &size, base->error,
                        sizeof base->error))
    return NAN;
  *bytes = (double) size;
  return xray__real_cycles((struct real *) base, ns * 1e-9 * base->tick_hz);
}

struct chase_ctx {
  void *p;
};

static void
run_chase(void *ctx, uint64_t iters)
{
  struct chase_ctx *c = ctx;

  c->p = xray__chase_run(c->p, iters);
}

/* Loads one sample covers at least: enough of a long chain that the
 * luck of one stretch of it does not decide the time. */
#define CHASE_SAMPLE_LOADS 65536
/* Loads of a quick chase's window: a whole traversal of a conflict set
 * of up to 128 pages (the caches probe's tests run thousands of them),
 * and of a longer chain, in random order, a stretch that costs what the
 * whole does.  A shorter window is also less often hit by the host. */
#define QUICK_LOADS 8192

static double
real_chase(xray_machine *base, const struct xray__chase *c)
{
  struct real *m = (struct real *) base;
  struct xray__arena *a = &m->arena[c->arena];
  struct chase_ctx ctx;
  struct xray__kernel k = { run_chase, &ctx };
  struct xray__sampler s;
  uint64_t warm, t0, t1;
  double per_load, need, ticks;

  xray__arenas_free(m->team, m->nteam);
  xray__arenas_free(m->duo, 2);
  xray__arena_free(&m->arena[c->arena == XRAY__ARENA_HUGE ? XRAY__ARENA_SMALL : XRAY__ARENA_HUGE]);
  if (c->n == 0 || !(ctx.p = xray__chase_place(a, c, base->error, sizeof base->error))) {
    if (a->full)
      base->failure = XRAY__FAIL_ROOM; /* the caller may measure less instead */
    return NAN;
  }
  /* Warm up with two full traversals (a quick chase: one, prefetching
   * ahead where the chain allows): the whole chain is then resident
   * wherever it fits, and the chase goes on from where it stopped. */
  warm = ((c->quick ? 1 : 2) * (uint64_t) c->n + XRAY__CHASE_UNROLL - 1) / XRAY__CHASE_UNROLL;
  t0 = xray__isa_ticks();
  if (a->ahead)
    ctx.p = xray__chase_warm_ahead(ctx.p, warm * XRAY__CHASE_UNROLL);
  else
    run_chase(&ctx, warm);
  t1 = xray__isa_ticks();
  per_load = (double) (t1 - t0) / (double) (warm * XRAY__CHASE_UNROLL);
  if (c->quick) {
    /* QUICK_LOADS of the chain, the fastest of three: one draw of many,
     * whose spread the caller averages.  The chain is in random order,
     * so a stretch of it costs what the whole does. */
    uint64_t iters = (QUICK_LOADS + XRAY__CHASE_UNROLL - 1) / XRAY__CHASE_UNROLL;
    return xray__real_cycles(
        m, (double) xray__run_min(&k, iters, 3) / (double) (iters * XRAY__CHASE_UNROLL));
  }
  s = m->sampler;
  need = per_load * (double) (c->n < CHASE_SAMPLE_LOADS ? c->n : CHASE_SAMPLE_LOADS);
  if (need > (double) s.target)
    s.target = (uint64_t) need;
  ticks = xray__measure(&s, &k, NULL);
  m->sampler.unsure = s.unsure;
  m->sampler.measured = s.measured;
  return xray__real_cycles(m, ticks / XRAY__CHASE_UNROLL);
}

/* Throughput-bound samples are gated by the 4-byte NOP reference where there
 * is machine code: a busy SMT sibling on the host halves both. */
struct xray__ref *
xray__real_alu_ref(struct real *m)
{
  struct kind *kd;

  if (!xray__machine_code_isa() || !(kd = kind_for(m, xray__stmt_find("nop4"))))
    return NULL;
  return &kd->ref;
}

/* --- hardware events (events.c) ----------------------------------------- */

static int
real_cevents(xray_machine *base, const char *const *names, size_t n, const struct xray__chase *c,
             long loads, double *out)
{
  return xray__real_cevents(base, &((struct real *) base)->arena[c->arena], names, n, c, loads,
                            out);
}

/* --- the core clock ------------------------------------------------------ */

/* Ticks per dependent add over a short burst (the best of `windows`
 * windows of about 20 us): machine code where there is some, else a C
 * chain.  The real machine's clock burst (clock.c). */
static double
add_ticks(void *mp, int windows)
{
  struct real *m = mp;
  struct xray__sampler s;
  struct xray__kernel k;
  struct run_ctx ctx;
  struct kind *kd;
  double per;

  xray__sampler_init(&s, 1.0);
  s.target = (uint64_t) (m->base.tick_hz * 20e-6);
  s.want = windows;
  s.min_attempts = windows;
  if (xray__machine_code_isa() && (kd = kind_for(m, xray__stmt_find("addchain")))) {
    ctx.code = kd->code;
    ctx.n = 1000;
    k.run = run_code;
    k.ctx = &ctx;
    per = 1000;
  } else {
    static const struct xray_cspec chain = { "p0 = p0 + p1", "long", 2, 100, XRAY__STYLE_BARRIER };
    if (!m->chain.n && xray__kernel_set_compile(&m->chain, &chain, 1, m->base.cc, m->base.cflags,
                                          m->base.error, sizeof m->base.error))
      return NAN;
    k.run = xray__real_run_kset;
    k.ctx = &m->chain.k[0];
    per = m->chain.k[0].w;
  }
  return xray__measure(&s, &k, NULL) / per;
}

int
xray__real_away(struct real *m, int cpu, struct xray__clock **clock, struct xray__ref **ref)
{
  struct xray__ref *home = xray__real_alu_ref(m);

  if (!m->pinned) {
    xray__machine_fail(&m->base, XRAY__FAIL_ERROR, "this thread cannot be bound to one CPU");
    return -1;
  }
  if (xray__bind(&cpu, 1)) {
    xray__machine_fail(&m->base, XRAY__FAIL_ERROR, "cannot bind to CPU %d", cpu);
    return -1;
  }
  if (m->away.cpu != cpu) {
    memset(&m->away.ref, 0, sizeof m->away.ref);
    if (!(xray__clock_calibrate(&m->away.clock, add_ticks, m, xray__now()) > 0)) {
      xray__real_home(m);
      xray__machine_fail(&m->base, XRAY__FAIL_ERROR, "no add chain to take CPU %d's clock", cpu);
      return -1;
    }
    m->away.cpu = cpu;
  }
  /* The reference's code may have been laid out again since (reset). */
  if (home)
    m->away.ref.k = home->k;
  *clock = &m->away.clock;
  *ref = home ? &m->away.ref : NULL;
  return 0;
}

void
xray__real_home(struct real *m)
{
  xray__bind(&m->pin.home, 1);
}

static double
real_clock(xray_machine *base, double *tsc_hz)
{
  struct real *m = (struct real *) base;
  double t = add_ticks(m, 8);

  *tsc_hz = strcmp(xray__isa_tick_source, "tsc") == 0 ? base->tick_hz : 0;
  return t > 0 ? base->tick_hz / t : NAN;
}

/* --- fused multiply-add instructions ------------------------------------ */

static void
run_fma(void *ctx, uint64_t iters)
{
  xray__isa_fma_loop(*(const int *) ctx, iters);
}

static void
try_fma(void *ctx)
{
  run_fma(ctx, 1);
}

static double
real_fma(xray_machine *base, int chains)
{
  struct real *m = (struct real *) base;
  struct xray__kernel k = { run_fma, &chains };

  if (!xray__isa_fma_name)
    return xray__machine_fail(base, XRAY__FAIL_ERROR,
                              "xray has no fused multiply-add kernel for this ISA");
  if (chains != 1)
    chains = 12;
  if (!xray__real_executes(try_fma, &chains))
    return xray__machine_fail(base, XRAY__FAIL_ABSENT, "the processor does not execute %s",
                              xray__isa_fma_name);
  /* Both loops run 12 instructions per iteration. */
  {
    double ticks = xray__measure(&m->sampler, &k, chains == 1 ? NULL : xray__real_alu_ref(m));
    return xray__real_cycles(m, ticks / 12.0);
  }
}

/* --- CPUs ---------------------------------------------------------------- */

static int
real_cpus(xray_machine *base, int *cpu, int max)
{
  (void) base;
  return xray__affinity(cpu, max);
}

static double
real_pair(xray_machine *base, int a, int b)
{
  return xray__pair_speed(a, b, base->error, sizeof base->error);
}

static double
real_duo(xray_machine *base, const struct xray__duo *d)
{
  struct real *m = (struct real *) base;

  xray__arenas_free(m->team, m->nteam);
  xray__arenas_free(m->arena, 2);
  return xray__real_duo(d, m->duo, xray__clock_now(&m->clock), base->error, sizeof base->error);
}

/* --- streaming kernels (stream.c) ---------------------------------------- */

static int
real_sbuild(xray_machine *base, int *nt)
{
  struct real *m = (struct real *) base;

  if (xray__stream_build(&m->stream, base->cc, base->cflags, base->error, sizeof base->error))
    return 0;
  *nt = m->stream.nt;
  return m->stream.width;
}

#define MAX_TEAM 1024

static double
real_stream(xray_machine *base, size_t k, double bytes, int threads, double *hz)
{
  struct real *m = (struct real *) base;
  int cpu[MAX_TEAM], n = xray__affinity(cpu, MAX_TEAM), i;
  double before, per_tick, tpc;

  /* The first thread streams on the home CPU, whose clock converts the
   * samples' ticks (xray__clock_now): CPUs may run at clocks some per
   * cent apart. */
  for (i = 1; m->pinned && i < n && i < MAX_TEAM; i++)
    if (cpu[i] == m->pin.home) {
      cpu[i] = cpu[0];
      cpu[0] = m->pin.home;
    }
  if (!m->stream.dl || k >= XRAY__SK_N)
    return xray__machine_fail(base, XRAY__FAIL_ERROR, "the streaming kernels are not built");
  if (threads > n || threads > MAX_TEAM)
    return xray__machine_fail(base, XRAY__FAIL_ERROR, "%d threads asked, %d CPUs usable", threads,
                              n);
  xray__arenas_free(m->arena, 2);
  xray__arenas_free(m->duo, 2);
  if (!m->nodes)
    m->nodes = xray__real_one_node(cpu, n) ? 1 : 2;
  /* Bytes a tick, in cycles of the faster of the clocks just before and
   * just after the samples: the best sample is the one the core ran
   * fastest in, and where the clock stepped up while it ran (a boost
   * step, some per cent), the clock of the bursts before it alone would
   * count too few cycles, and more bytes a cycle than the core moves. */
  before = xray__clock_now(&m->clock);
  per_tick = xray__real_stream(&m->stream, k, bytes, threads, cpu, n, m->nodes == 1, &m->team,
                               &m->nteam, base->tick_hz, base->error, sizeof base->error);
  tpc = fmin(before, xray__clock_fresh(&m->clock));
  /* The figure in bytes a second is the same figure in that clock. */
  if (hz && tpc > 0 && base->core_hz > 0)
    *hz = base->tick_hz / tpc;
  return per_tick * tpc;
}

static void
real_reset(xray_machine *base)
{
  struct real *m = (struct real *) base;
  int i;

  for (i = 0; i < MAX_KINDS; i++) {
    xray__machine_code_free(m->kind[i].code);
    m->kind[i].code = NULL;
  }
  xray__arenas_free(m->arena, 2);
  xray__arenas_free(m->duo, 2);
  xray__kernel_set_free(&m->kernels);
  xray__branch_free(&m->branch);
  xray__stream_free(&m->stream);
  xray__arenas_free(m->team, m->nteam);
  free(m->team);
  m->team = NULL;
  m->nteam = 0;
}

static void
real_free(xray_machine *base)
{
  struct real *m = (struct real *) base;

  real_reset(base);
  xray__kernel_set_free(&m->chain);
  if (m->pinned)
    xray__unpin(&m->pin);
  free(base);
}

static int
real_os_view(const xray_machine *m, const char *name, double *v, char *src, size_t srclen)
{
  (void) m;
  return xray__os_read(name, v, src, srclen);
}

static void
real_begin(xray_machine *base)
{
  xray__sampler_init(&((struct real *) base)->sampler, base->budget);
}

static int
real_unsure(const xray_machine *base, int *measured)
{
  const struct real *m = (const struct real *) base;

  *measured = m->sampler.measured;
  return m->sampler.unsure;
}

static const struct xray__machine_ops real_ops = {
  .code = real_code,
  .jchain = real_jchain,
  .ccode = real_ccode,
  .chase = real_chase,
  .kbuild = xray__real_kset_build,
  .ktime = xray__real_kset_time,
  .kinfo = xray__real_kset_info,
  .bbuild = xray__real_branch_build,
  .bcount = xray__real_branch_count,
  .btime = xray__real_branch_time,
  .pmu = xray__real_pmu,
  .event_at = xray__real_event_at,
  .bevent = xray__real_branch_event,
  .cevents = real_cevents,
  .sbuild = real_sbuild,
  .stream = real_stream,
  .clock = real_clock,
  .fma = real_fma,
  .cpus = real_cpus,
  .pair = real_pair,
  .duo = real_duo,
  .reset = real_reset,
  .free = real_free,
  .os_view = real_os_view,
  .begin = real_begin,
  .unsure = real_unsure,
};

/* The machine's description: tick source, clock, and the CPU measured on. */
static void
where(struct real *m)
{
  char cpu[32] = "";
  char clock[48] = "";

  if (m->pinned)
    snprintf(cpu, sizeof cpu, ", CPU %d", m->pin.home);
  if (m->base.core_hz > 0)
    snprintf(clock, sizeof clock, ", core %.1f MHz", m->base.core_hz / 1e6);
  snprintf(m->base.desc, sizeof m->base.desc, "this machine (%s ticks at %.2f MHz%s%s)",
           xray__isa_tick_source, m->base.tick_hz / 1e6, clock, cpu);
}

xray_machine *
xray_machine_real(char *err, size_t errlen)
{
  struct real *m = calloc(1, sizeof *m);

  if (!m) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  m->base.ops = &real_ops;
  m->base.timed = m->base.hardware = m->base.tenants = 1;
  xray__machine_hardware_words(&m->base);
  m->base.budget = 2.0;
  {
    long pg = sysconf(_SC_PAGESIZE);
    m->base.page = pg > 0 ? (size_t) pg : 4096;
  }
  if (xray_machine_set_compiler(&m->base, NULL, NULL)) {
    snprintf(err, errlen, "out of memory");
    free(m);
    return NULL;
  }
  /* One CPU for the clock and every single-threaded kernel (see
   * xray__pin); a thread that cannot be bound measures where it runs. */
  m->pinned = xray__pin(&m->pin) == 0;
  m->base.home = m->pinned ? m->pin.home : -1;
  m->away.cpu = -1;
  {
    /* The tick rate, where it is timed, spins on this CPU (tick.c): the
     * clock's warm-up spin counts that time rather than repeat it. */
    double busy = xray__now(), tpc;
    m->base.tick_hz = xray__tick_hz();
    tpc = xray__clock_calibrate(&m->clock, add_ticks, m, busy);
    m->base.core_hz = tpc > 0 ? m->base.tick_hz / tpc : 0;
  }
  where(m);
  xray__machine_begin(&m->base);
  return &m->base;
}
