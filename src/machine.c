/* The real machine: generated machine code timed by the sampler, cycles of
 * the core clock from a dependent-add chain timed the same way. */
#include "xray-internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_KINDS 8

struct run_ctx {
  const struct xray_mcode *code;
  size_t n;
};

/* One per statement kind.  The code is dropped by reset(); the reference's
 * iteration count and best time are not: they describe the machine, and a
 * run that starts while the host is busy must still be judged against a
 * time taken when it was not. */
struct kind {
  const struct xray_stmt *stmt;
  struct xray_mcode *code;
  struct run_ctx refctx;
  struct xray__ref ref;
};

struct real {
  struct xray_machine base;
  struct xray__sampler sampler;
  struct kind kind[MAX_KINDS];
  double ticks_per_cycle;
  double c_core_hz;             /* the clock as the C path measures it */
  struct xray__arena arena[2];  /* by enum xray__arena_kind */
};

static void
run_code(void *ctx, uint64_t iters)
{
  const struct run_ctx *r = ctx;

  xray__mcode_run(r->code, r->n, iters);
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
    k->code = xray__mcode_new(s, CODE_BYTES_MAX / s->len, m->base.error, sizeof m->base.error);
    if (!k->code)
      return NULL;
    k->stmt = s;
    /* Reference: 2 KB of the same statement, resident in every cache. */
    k->refctx.code = k->code;
    k->refctx.n = 2048 / s->len;
    k->ref.k.run = run_code;
    k->ref.k.ctx = &k->refctx;
  }
  return k;
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
  return xray__measure(&m->sampler, &k, &kd->ref) / (double) ctx.n / m->ticks_per_cycle;
}

/* The C path: generated C compiled and run as a program.  Cycles come
 * from a dependent-add chain timed on the same path, once. */
static double
real_ccode(xray_machine *base, const struct xray_cspec *c, size_t n, double *bytes)
{
  struct real *m = (struct real *) base;
  struct xray_cspec k = *c;
  double ns;
  long size;

  if (!(m->c_core_hz > 0)) {
    static const struct xray_cspec chain = { "p0 = p0 + p1", "long", 2, 1000,
                                             XRAY_STYLE_BARRIER };
    if (xray__ckernel_run(&chain, base->cc, base->cflags, &ns, &size, base->error,
                          sizeof base->error))
      return NAN;
    m->c_core_hz = 1e9 / ns;
  }
  k.unroll = (int) n;
  if (xray__ckernel_run(&k, base->cc, base->cflags, &ns, &size, base->error,
                        sizeof base->error))
    return NAN;
  *bytes = (double) size;
  return ns * m->c_core_hz / 1e9;
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

static double
real_chase(xray_machine *base, const struct xray__chase *c)
{
  struct real *m = (struct real *) base;
  struct xray__arena *a = &m->arena[c->arena];
  struct chase_ctx ctx;
  struct xray__kernel k = { run_chase, &ctx };
  struct xray__sampler s;
  uint64_t maxoff = 0, warm, t0, t1;
  double per_load, need, ticks;
  size_t i;

  if (c->n == 0)
    return NAN;
  for (i = 0; i < c->n; i++)
    if (c->off[i] > maxoff)
      maxoff = c->off[i];
  if (xray__arena_reserve(a, (size_t) maxoff + 64, c->arena, base->error, sizeof base->error))
    return NAN;
  xray__chase_link(a->base, c);
  ctx.p = a->base + c->off[0];
  /* Warm up with two full traversals: the whole chain is then resident
   * wherever it fits, and the chase goes on from where it stopped. */
  warm = (2 * (uint64_t) c->n + XRAY_CHASE_UNROLL - 1) / XRAY_CHASE_UNROLL;
  t0 = xray__ticks();
  run_chase(&ctx, warm);
  t1 = xray__ticks();
  per_load = (double) (t1 - t0) / (double) (warm * XRAY_CHASE_UNROLL);
  s = m->sampler;
  need = per_load * (double) (c->n < CHASE_SAMPLE_LOADS ? c->n : CHASE_SAMPLE_LOADS);
  if (need > (double) s.target)
    s.target = (uint64_t) need;
  ticks = xray__measure(&s, &k, NULL);
  m->sampler.unsure = s.unsure;
  m->sampler.measured = s.measured;
  return ticks / XRAY_CHASE_UNROLL / m->ticks_per_cycle;
}

static void
real_reset(xray_machine *base)
{
  struct real *m = (struct real *) base;
  int i;

  for (i = 0; i < MAX_KINDS; i++) {
    xray__mcode_free(m->kind[i].code);
    m->kind[i].code = NULL;
  }
  xray__arena_free(&m->arena[0]);
  xray__arena_free(&m->arena[1]);
}

static void
real_free(xray_machine *base)
{
  real_reset(base);
  free(base);
}

static const struct xray__machine_ops real_ops = { real_code, real_ccode, real_chase, real_reset,
                                                  real_free };

/* Core clock: a chain of 1000 dependent adds, one cycle each, as the
 * minimum over many short samples (the maximum frequency seen). */
static void
calibrate(struct real *m)
{
  const struct xray_stmt *chain = xray__stmt_find("addchain");
  struct run_ctx ctx;
  struct xray__kernel k = { run_code, &ctx };
  struct xray__sampler s;
  struct kind *kd;

  if (!xray__mcode_isa() || !(kd = kind_for(m, chain))) {
    /* Without generated code, a cycle is a tick; probes say so. */
    m->ticks_per_cycle = 1;
    m->base.core_hz = 0;
    return;
  }
  ctx.code = kd->code;
  ctx.n = 1000;
  /* An idle core runs slow for a while: spin 30 ms before timing. */
  {
    double t0 = xray__now();
    while (xray__now() - t0 < 0.03)
      xray__mcode_run(ctx.code, ctx.n, 100);
  }
  xray__sampler_init(&s, 1.0);
  s.want = 30;
  s.min_attempts = 30;
  m->ticks_per_cycle = xray__measure(&s, &k, NULL) / 1000;
  m->base.core_hz = m->base.tick_hz / m->ticks_per_cycle;
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
  m->base.budget = 2.0;
  {
    long pg = sysconf(_SC_PAGESIZE);
    m->base.page = pg > 0 ? (size_t) pg : 4096;
  }
  xray_machine_set_compiler(&m->base, NULL, NULL);
  m->base.tick_hz = xray__tick_hz();
  calibrate(m);
  if (m->base.core_hz > 0)
    snprintf(m->base.desc, sizeof m->base.desc,
             "this machine (%s ticks at %.2f MHz, core %.1f MHz)", xray__tick_source(),
             m->base.tick_hz / 1e6, m->base.core_hz / 1e6);
  else
    snprintf(m->base.desc, sizeof m->base.desc, "this machine (%s ticks at %.2f MHz)",
             xray__tick_source(), m->base.tick_hz / 1e6);
  xray__machine_begin(&m->base);
  return &m->base;
}

void
xray__machine_begin(xray_machine *base)
{
  if (!base->simulated)
    xray__sampler_init(&((struct real *) base)->sampler, base->budget);
}

int
xray_machine_set_kernel(xray_machine *m, xray_kernel k)
{
  if (k == XRAY_KERNEL_MACHINE_CODE && !m->simulated && !xray__mcode_isa())
    return -1;
  m->kernel = k;
  return 0;
}

void
xray_machine_set_compiler(xray_machine *m, const char *cc, const char *cflags)
{
  const char *ecc = getenv("CC"), *ecf = getenv("CFLAGS");

  snprintf(m->cc, sizeof m->cc, "%s", cc ? cc : ecc && *ecc ? ecc : "cc");
  snprintf(m->cflags, sizeof m->cflags, "%s", cflags ? cflags : ecf ? ecf : "-O2");
}

int
xray__machine_uses_c(const xray_machine *m)
{
  return m->kernel == XRAY_KERNEL_C
         || (m->kernel == XRAY_KERNEL_AUTO && !m->simulated && !xray__mcode_isa());
}

void
xray_machine_free(xray_machine *m)
{
  if (m)
    m->ops->free(m);
}

void
xray_machine_set_budget(xray_machine *m, double seconds)
{
  m->budget = seconds;
}

void
xray_machine_set_trace(xray_machine *m, FILE *f)
{
  m->trace = f;
  if (f)
    fprintf(f, "probe,kernel,code_bytes,cycles_per_statement\n");
}

const char *
xray_machine_describe(const xray_machine *m)
{
  return m->desc;
}

int
xray_machine_is_simulated(const xray_machine *m)
{
  return m->simulated;
}

double
xray_machine_core_mhz(const xray_machine *m)
{
  return m->core_hz / 1e6;
}

void
xray__trace(xray_machine *m, const char *probe, const char *kernel, double bytes, double cycles)
{
  if (m->trace)
    fprintf(m->trace, "%s,%s,%.0f,%.5f\n", probe, kernel, bytes, cycles);
}

int
xray__machine_unsure(const xray_machine *base, int *measured)
{
  const struct real *m = (const struct real *) base;

  *measured = base->simulated ? 0 : m->sampler.measured;
  return base->simulated ? 0 : m->sampler.unsure;
}
