/* Machines of more than one kind of core (performance and efficiency
 * cores): which kinds the OS tells apart, a machine to measure each on,
 * and each kind's values beside the default kind's in one report.
 *
 * On this machine a kind is measured by binding the measuring thread, and
 * every thread it starts, to that kind's CPUs: single-threaded probes run
 * on a CPU of the kind, and probes of every core at once (cores,
 * bandwidth, sharing) on all of its cores.  A machine model's kinds are
 * its spec's (sim/kinds.h).
 * Kinds come fastest first, and the first is the default: compute-bound
 * code, what these values size, is what schedulers place on the fastest
 * cores. */
#include "run/run.h"
#include "machine/machine.h"
#include "sim/kinds.h"

#include <stdlib.h>
#include <string.h>

struct xray_kinds {
  size_t n;
  char source[48];
  struct xray__kind k[XRAY__KINDS_MAX];
  char *spec; /* a machine model's spec (sim/kinds.h), or NULL: this machine */
  char cpus[XRAY__KINDS_MAX][160]; /* the CPU list, as sysfs writes one */
  int *mask, nmask; /* the binding to restore (this machine) */
};

/* cpu[0..n) as a list "0-3,8,10-11" into buf, shortened with "..." where
 * it does not fit. */
static void
cpu_list_text(const int *cpu, int n, char *buf, size_t len)
{
  size_t at = 0;
  int i = 0;

  buf[0] = 0;
  while (i < n) {
    int j = i;
    char part[32];
    while (j + 1 < n && cpu[j + 1] == cpu[j] + 1)
      j++;
    if (j > i)
      snprintf(part, sizeof part, "%s%d-%d", at ? "," : "", cpu[i], cpu[j]);
    else
      snprintf(part, sizeof part, "%s%d", at ? "," : "", cpu[i]);
    if (at + strlen(part) + 4 >= len) {
      strcpy(buf + at, "...");
      return;
    }
    strcpy(buf + at, part);
    at += strlen(part);
    i = j + 1;
  }
}

xray_kinds *
xray_kinds_find(const char *simulate, char *err, size_t errlen)
{
  xray_kinds *k = calloc(1, sizeof *k);
  size_t i;

  if (!k) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  if (simulate) {
    int n =
        xray__sim_kinds(simulate, k->k, XRAY__KINDS_MAX, k->source, sizeof k->source, err, errlen);
    if (n < 0 || !(k->spec = strdup(simulate))) {
      if (n >= 0)
        snprintf(err, errlen, "out of memory");
      xray_kinds_free(k);
      return NULL;
    }
    k->n = (size_t) n;
  } else {
    k->n = (size_t) xray__os_kinds(k->k, XRAY__KINDS_MAX, k->source, sizeof k->source);
    if (k->n < 2) {
      k->n = 1;
      snprintf(k->k[0].name, sizeof k->k[0].name, "all");
      k->k[0].ncpu = xray__affinity(k->k[0].cpu, XRAY__MAX_CPUS);
      if (k->k[0].ncpu > XRAY__MAX_CPUS)
        k->k[0].ncpu = XRAY__MAX_CPUS;
      snprintf(k->source, sizeof k->source, "one kind");
    }
  }
  for (i = 0; i < k->n; i++)
    cpu_list_text(k->k[i].cpu, k->k[i].ncpu, k->cpus[i], sizeof k->cpus[i]);
  return k;
}

size_t
xray_kinds_count(const xray_kinds *k)
{
  return k->n;
}

const char *
xray_kinds_name(const xray_kinds *k, size_t i)
{
  return i < k->n ? k->k[i].name : NULL;
}

const char *
xray_kinds_cpus(const xray_kinds *k, size_t i)
{
  return i < k->n ? k->cpus[i] : NULL;
}

const char *
xray_kinds_source(const xray_kinds *k)
{
  return k->source;
}

xray_machine *
xray_kinds_machine(xray_kinds *k, size_t i, char *err, size_t errlen)
{
  if (i >= k->n) {
    snprintf(err, errlen, "there is no kind %zu (the machine has %zu)", i + 1, k->n);
    return NULL;
  }
  if (k->spec)
    return xray__sim_kind_machine(k->spec, (int) i, err, errlen);
  if (k->n > 1) {
    /* The binding the caller had comes back with xray_kinds_free. */
    if (!k->mask) {
      if (!(k->mask = malloc(XRAY__MAX_CPUS * sizeof *k->mask))) {
        snprintf(err, errlen, "out of memory");
        return NULL;
      }
      k->nmask = xray__affinity(k->mask, XRAY__MAX_CPUS);
    }
    if (xray__bind(k->k[i].cpu, k->k[i].ncpu)) {
      snprintf(err, errlen, "cannot bind to the CPUs of kind %zu (%s: %s)", i + 1, k->k[i].name,
               k->cpus[i]);
      return NULL;
    }
  }
  return xray_machine_real(err, errlen);
}

void
xray_kinds_free(xray_kinds *k)
{
  if (!k)
    return;
  if (k->mask && k->nmask > 0)
    xray__bind(k->mask, k->nmask < XRAY__MAX_CPUS ? k->nmask : XRAY__MAX_CPUS);
  free(k->mask);
  free(k->spec);
  free(k);
}

/* --- the kinds in a report ---------------------------------------------- */

static int
add_text(xray_report *r, const char *name, const char *desc, const char *text, const char *source)
{
  xray_value *v = xray__report_add(r, name, desc, "name");

  if (!v)
    return -1;
  v->source = XRAY_SOURCE_OS;
  v->value = 0;
  snprintf(v->text, sizeof v->text, "%s", text);
  snprintf(v->method, sizeof v->method, "the OS's core kinds: %s", source);
  return 0;
}

int
xray_report_add_kinds(xray_report *r, const xray_kinds *k)
{
  char name[48], desc[96];
  xray_value *v =
      xray__report_add(r, "XRAY_CPU_KINDS", "kinds of core, the fastest first", "kinds");
  size_t i;

  if (!v)
    return -1;
  v->source = XRAY_SOURCE_OS;
  v->value = v->exact = (double) k->n;
  snprintf(v->method, sizeof v->method,
           "the OS's core kinds: %s; XRAY_..._KIND<n> are kind "
           "n's values, the names without a suffix kind 1's",
           k->source);
  for (i = 0; i < k->n; i++) {
    snprintf(name, sizeof name, "XRAY_KIND%zu_NAME", i + 1);
    snprintf(desc, sizeof desc, "name of core kind %zu", i + 1);
    if (add_text(r, name, desc, k->k[i].name, k->source))
      return -1;
    snprintf(name, sizeof name, "XRAY_KIND%zu_CPUS", i + 1);
    snprintf(desc, sizeof desc, "CPUs of core kind %zu", i + 1);
    if (add_text(r, name, desc, k->cpus[i], k->source))
      return -1;
  }
  return 0;
}

int
xray_report_add_kind(xray_report *r, const xray_report *from, size_t i)
{
  size_t j, n = from->n; /* from may be r itself */

  for (j = 0; j < n; j++) {
    xray_value *v;
    char name[48], desc[96];
    if (snprintf(name, sizeof name, "%s_KIND%zu", from->v[j].name, i + 1) >= (int) sizeof name)
      return -1;
    snprintf(desc, sizeof desc, "%s (kind %zu)", from->v[j].desc, i + 1);
    if (!(v = xray__report_add(r, name, desc, from->v[j].unit)))
      return -1;
    *v = from->v[j];
    memcpy(v->name, name, sizeof v->name);
    memcpy(v->desc, desc, sizeof v->desc);
  }
  if (from != r)
    r->seconds += from->seconds;
  return 0;
}
