/* The probe registry, and what every probe run shares: timing, the OS view
 * beside each value, the disagreement flag. */
#include "xray-internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

extern const xray_probe xray__probe_icache, xray__probe_dcache, xray__probe_caches,
  xray__probe_tlb;

static const xray_probe *const probes[] = { &xray__probe_icache, &xray__probe_dcache,
                                            &xray__probe_caches, &xray__probe_tlb };

const char *
xray_version(void)
{
  return XRAY_VERSION;
}

const xray_probe *
xray_probe_at(size_t i)
{
  return i < sizeof probes / sizeof *probes ? probes[i] : NULL;
}

const xray_probe *
xray_probe_find(const char *name)
{
  size_t i;

  for (i = 0; i < sizeof probes / sizeof *probes; i++)
    if (strcmp(probes[i]->name, name) == 0)
      return probes[i];
  return NULL;
}

/* Measured and OS values further apart than this are flagged. */
#define DISAGREE_TOLERANCE 0.03

int
xray_probe_run(const xray_probe *p, xray_machine *m, xray_report *r)
{
  size_t first = r->n, i;
  double t0 = xray__now(), dt;
  int rc;

  xray__machine_begin(m);
  m->error[0] = 0;
  rc = p->run(m, r);
  dt = xray__now() - t0;
  r->seconds += dt;
  for (i = first; i < r->n; i++) {
    xray_value *v = &r->v[i];
    v->seconds = dt;
    if (xray__os_view(m, v->name, &v->os_value, v->os_source, sizeof v->os_source) == 0) {
      v->have_os = 1;
      if (v->source == XRAY_SOURCE_MEASURED)
        v->disagree = fabs(v->value - v->os_value) > DISAGREE_TOLERANCE * v->os_value;
    }
  }
  return rc;
}

void
xray__value_measured(xray_value *v, double x, const char *method)
{
  if (!v)
    return;
  v->value = x;
  v->source = XRAY_SOURCE_MEASURED;
  snprintf(v->method, sizeof v->method, "%.199s", method);
}

void
xray__value_unknown(xray_value *v, const char *why)
{
  if (v)
    snprintf(v->reason, sizeof v->reason, "%.199s", why);
}
