/* The machine every probe measures through: the setters of the public
 * API, and the calls that go to whichever backend (real/, sim/, replay/)
 * filled the ops table.  Nothing here knows a backend. */
#ifdef HAVE_CONFIG_H
#include "config.h" /* XRAY__DEFAULT_CC */
#endif
#include "machine/ops.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

double
xray__machine_fail(xray_machine *m, enum xray__failure kind, const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(m->error, sizeof m->error, fmt, ap);
  va_end(ap);
  m->failure = kind;
  return NAN;
}

void
xray__machine_begin(xray_machine *m)
{
  if (m->ops->begin)
    m->ops->begin(m);
}

int
xray__os_view(const xray_machine *m, const char *name, double *v, char *src, size_t srclen)
{
  /* Every backend's view (the OS's, the simulator's truth, a recording's)
   * is of the values xray reports, and of no other name. */
  if (!xray__param_find(name))
    return -1;
  return m->ops->os_view ? m->ops->os_view(m, name, v, src, srclen) : -1;
}

int
xray_machine_set_kernel(xray_machine *m, xray_kernel k)
{
  if (k == XRAY_KERNEL_MACHINE_CODE && !m->modelled && !xray__machine_code_isa())
    return -1;
  m->kernel = k;
  return 0;
}

/* Where neither --cc nor CC names a compiler: cc, or for a cross-built
 * xray the cross compiler it was built with (configure.ac).  The engine a
 * consumer's configure builds has no config.h, and runs where it was
 * built: cc. */
#ifndef XRAY__DEFAULT_CC
#define XRAY__DEFAULT_CC "cc"
#endif

int
xray_machine_set_compiler(xray_machine *m, const char *cc, const char *cflags)
{
  const char *ecc = getenv("CC"), *ecf = getenv("CFLAGS");
  char *a = strdup(cc ? cc : ecc && *ecc ? ecc : XRAY__DEFAULT_CC);
  char *b = strdup(cflags ? cflags : ecf ? ecf : "-O2");

  if (!a || !b) {
    free(a);
    free(b);
    return -1;
  }
  free(m->cc);
  free(m->cflags);
  m->cc = a;
  m->cflags = b;
  return 0;
}

int
xray__machine_uses_c(const xray_machine *m)
{
  return m->kernel == XRAY_KERNEL_C
      || (m->kernel == XRAY_KERNEL_AUTO && !m->modelled && !xray__machine_code_isa());
}

void
xray_machine_free(xray_machine *m)
{
  if (m) {
    free(m->cc);
    free(m->cflags);
    free(m->jumps);
    m->ops->free(m);
  }
}

int
xray_machine_give(xray_machine *m, const char *name, double value, int confirmed)
{
  size_t i;

  if (!xray__param_find(name) || strlen(name) >= sizeof m->given[0].name || !isfinite(value))
    return -1;
  for (i = 0; i < m->ngiven && strcmp(m->given[i].name, name) != 0; i++)
    ;
  if (i == XRAY__GIVEN_MAX)
    return -1;
  if (i == m->ngiven)
    m->ngiven++;
  snprintf(m->given[i].name, sizeof m->given[i].name, "%s", name);
  m->given[i].value = value;
  m->given[i].confirmed = confirmed != 0;
  return 0;
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
    fprintf(f, "probe,kernel,x,cycles\n");
}

const char *
xray_machine_describe(const xray_machine *m)
{
  return m->desc;
}

int
xray_machine_is_timed(const xray_machine *m)
{
  return m->timed;
}

int
xray_machine_is_hardware(const xray_machine *m)
{
  return m->hardware;
}

void
xray__machine_hardware_words(xray_machine *m)
{
  m->code_words = xray__machine_code_words();
  m->compiler_words = "the compiler";
  m->counter_words = "against CLOCK_MONOTONIC over 20 ms";
}

double
xray_machine_core_mhz(const xray_machine *m)
{
  return m->core_hz / 1e6;
}

/* The most runs a pair's median takes. */
#define PAIR_RUNS_MAX 9

/* The slot the ask names, with its arguments. */
static double
slot(xray_machine *m, const struct xray__ask *a)
{
  const struct xray__machine_ops *o = m->ops;

  switch (a->kind) {
  case XRAY__ASK_CODE:
    return o->code(m, a->stmt, a->n);
  case XRAY__ASK_CCODE:
    return o->ccode(m, a->cspec, a->n, a->bytes);
  case XRAY__ASK_JCHAIN:
    return o->jchain(m, a->jchain);
  case XRAY__ASK_CHASE:
    return o->chase(m, a->chase);
  case XRAY__ASK_KTIME:
    return o->ktime(m, a->n, a->avail, a->stack);
  case XRAY__ASK_BTIME:
    return o->btime(m, a->n, a->arg, a->away - 1);
  case XRAY__ASK_STREAM:
    return o->stream(m, a->n, a->arg, a->a, a->cycle_hz);
  case XRAY__ASK_CLOCK:
    return o->clock(m, a->tsc_hz) / 1e6;
  case XRAY__ASK_FMA:
    return o->fma(m, a->a);
  case XRAY__ASK_PAIR: {
    double v[PAIR_RUNS_MAX];
    size_t i, n = a->n < 1 ? 1 : a->n > PAIR_RUNS_MAX ? PAIR_RUNS_MAX : a->n;
    for (i = 0; i < n; i++)
      if (isnan(v[i] = o->pair(m, a->a, a->b)))
        return v[i];
    return xray__median(v, n);
  }
  case XRAY__ASK_DUO:
    return o->duo(m, a->duo);
  }
  return xray__machine_fail(m, XRAY__FAIL_ERROR, "no such measurement (%d)", (int) a->kind);
}

struct xray__got
xray__machine_measure(xray_machine *m, const char *probe, const char *kernel, double x,
                      const struct xray__ask *ask)
{
  struct xray__got g;

  m->failure = XRAY__FAIL_ERROR;
  if (!m->ops->lookup)
    g.y = slot(m, ask);
  /* A C kernel's point lies at the code bytes the compiler gave it. */
  if (x == XRAY__X_BYTES && ask->kind == XRAY__ASK_CCODE)
    x = *ask->bytes;
  if (m->ops->lookup)
    g.y = m->ops->lookup(m, probe, kernel, x, ask);
  if (m->trace)
    fprintf(m->trace, "%s,%s,%.10g,%.5f\n", probe, kernel, x, g.y);
  if (!isnan(g.y))
    g.status = XRAY__MEASURED;
  else
    g.status = m->failure == XRAY__FAIL_ABSENT ? XRAY__ABSENT
        : m->failure == XRAY__FAIL_UNRECORDED  ? XRAY__UNRECORDED
        : m->failure == XRAY__FAIL_ROOM        ? XRAY__NO_ROOM
                                               : XRAY__FAILED;
  m->short_of_room += g.status == XRAY__NO_ROOM;
  return g;
}

int
xray__machine_answers_by_key(const xray_machine *m)
{
  return m->ops->lookup != NULL;
}

const struct xray__rand_jumps *
xray__machine_jumps(xray_machine *m)
{
  if (!xray__machine_answers_by_key(m))
    return NULL;
  if (!m->jumps && (m->jumps = malloc(sizeof *m->jumps)))
    xray__rand_jumps(m->jumps);
  return m->jumps;
}

int
xray__machine_cpus(xray_machine *m, int *cpu, int max)
{
  return m->ops->cpus(m, cpu, max);
}

int
xray__machine_kbuild(xray_machine *m, const struct xray_cspec *c, size_t n)
{
  return m->ops->kbuild(m, c, n);
}

int
xray__machine_kinfo(xray_machine *m, size_t i, double *stack)
{
  return m->ops->kinfo(m, i, stack);
}

int
xray__machine_bbuild(xray_machine *m)
{
  return m->ops->bbuild(m);
}

const struct xray__bcount *
xray__machine_bcount(xray_machine *m, size_t k)
{
  return m->ops->bcount(m, k);
}

int
xray__machine_sbuild(xray_machine *m, int *nt)
{
  return m->ops->sbuild(m, nt);
}

double
xray__machine_bevent(xray_machine *m, const char *name, size_t k, long size)
{
  return m->ops->bevent(m, name, k, size);
}

int
xray__machine_cevents(xray_machine *m, const char *const *names, size_t n,
                      const struct xray__chase *c, long loads, double *out)
{
  return m->ops->cevents(m, names, n, c, loads, out);
}

void
xray__machine_reset(xray_machine *m)
{
  m->ops->reset(m);
}

int
xray__machine_unsure(const xray_machine *m, int *measured)
{
  *measured = 0;
  return m->ops->unsure ? m->ops->unsure(m, measured) : 0;
}

int
xray__machine_more_runs(const xray_machine *m, double deadline, int n, int runs)
{
  return m->timed ? xray__now() < deadline : n < runs;
}

/* The library's version (xray.h's XRAY_VERSION when it was built). */
const char *
xray_version(void)
{
  return XRAY_VERSION;
}

int
xray_machine_counters(xray_machine *m, char *why, size_t len)
{
  m->error[0] = 0;
  if (m->ops->pmu(m) == 0)
    return 0;
  snprintf(why, len, "%s", m->error);
  return -1;
}

const char *
xray_machine_event_at(xray_machine *m, size_t i)
{
  return m->ops->event_at(m, i);
}
