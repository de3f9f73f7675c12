/* The machine every probe measures through: the setters of the public
 * API, and the calls that go to whichever backend (real/, sim/, replay/)
 * filled the ops table.  Nothing here knows a backend. */
#ifdef HAVE_CONFIG_H
#include "config.h" /* XRAY__DEFAULT_CC */
#endif
#include "machine/machine.h"

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
    m->ops->free(m);
  }
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

double
xray_machine_core_mhz(const xray_machine *m)
{
  return m->core_hz / 1e6;
}

double
xray__point(xray_machine *m, const char *probe, const char *kernel, double x, double y)
{
  if (m->ops->recall)
    m->ops->recall(m, probe, kernel, x, &y);
  if (m->trace)
    fprintf(m->trace, "%s,%s,%.10g,%.5f\n", probe, kernel, x, y);
  return y;
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
