/* The kinds of core of a hybrid machine model (sim/kinds.h). */
#include "sim/kinds.h"

#include <stdlib.h>
#include <string.h>

/* Part i (from 0) of spec, up to its ';', in a new string; NULL where
 * spec has fewer parts or memory ran out (*none says which). */
static char *
part(const char *spec, int i, int *none)
{
  const char *p = spec;
  size_t len;
  char *s;

  *none = 0;
  for (; i > 0; i--) {
    if (!(p = strchr(p, ';'))) {
      *none = 1;
      return NULL;
    }
    p++;
  }
  len = strcspn(p, ";");
  if ((s = malloc(len + 1))) {
    memcpy(s, p, len);
    s[len] = 0;
  }
  return s;
}

/* The kind=NAME item of a kind's spec into name, or "" if it has none. */
static void
kind_name(const char *spec, char *name, size_t len)
{
  const char *p = spec;

  name[0] = 0;
  while (p && *p) {
    if (strncmp(p, "kind=", 5) == 0) {
      snprintf(name, len, "%.*s", (int) strcspn(p + 5, ","), p + 5);
      return;
    }
    p = strchr(p, ',');
    p = p ? p + 1 : NULL;
  }
}

xray_machine *
xray__sim_kind_machine(const char *spec, int i, char *err, size_t errlen)
{
  int none;
  char *s = part(spec, i, &none);
  xray_machine *m;

  if (!s) {
    snprintf(err, errlen, none ? "the spec has no kind %d" : "out of memory", i + 1);
    return NULL;
  }
  m = xray_machine_simulated(s, err, errlen);
  free(s);
  return m;
}

int
xray__sim_kinds(const char *spec, struct xray__kind *k, int max, char *src, size_t srclen,
                char *err, size_t errlen)
{
  int n, next = 0;

  snprintf(src, srclen, "simulated");
  for (n = 0; n == 0 || strchr(spec, ';'); n++) {
    int none, ncpu, c;
    char *s = part(spec, n, &none), e[400];
    xray_machine *m;
    if (none)
      return n;
    if (n == max) {
      free(s);
      snprintf(err, errlen, "more than %d kinds of core", max);
      return -1;
    }
    if (!s) {
      snprintf(err, errlen, "out of memory");
      return -1;
    }
    e[0] = 0;
    if (!(m = xray_machine_simulated(s, e, sizeof e))) {
      if (strchr(spec, ';'))
        snprintf(err, errlen, "kind %d ('%s'): %s", n + 1, s, e);
      else
        snprintf(err, errlen, "%s", e);
      free(s);
      return -1;
    }
    ncpu = xray__machine_cpus(m, NULL, 0);
    xray_machine_free(m);
    kind_name(s, k[n].name, sizeof k[n].name);
    free(s);
    if (!k[n].name[0])
      snprintf(k[n].name, sizeof k[n].name, "kind%d", n + 1);
    for (c = 0; c < ncpu && c < XRAY__MAX_CPUS; c++)
      k[n].cpu[c] = next + c;
    k[n].ncpu = c;
    next += ncpu;
  }
  return n;
}
