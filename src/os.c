/* The OS view of hardware parameters: printed beside measurements, used to
 * flag disagreement and as test ground truth, never reported as measured.
 * hwloc when built with it, else Linux sysfs keyed by level and type (not
 * by index: index order differs between kernels), else sysconf. */
#ifdef HAVE_CONFIG_H
#include "config.h"             /* XRAY_HAVE_HWLOC */
#endif
#include "xray-internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef XRAY_HAVE_HWLOC
#include <hwloc.h>
#endif

static int
read_line(const char *path, char *buf, size_t len)
{
  FILE *f = fopen(path, "r");
  size_t n;

  if (!f)
    return -1;
  if (!fgets(buf, (int) len, f)) {
    fclose(f);
    return -1;
  }
  fclose(f);
  n = strlen(buf);
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
    buf[--n] = 0;
  return 0;
}

/* A field ("size", "ways_of_associativity", "coherency_line_size") of
 * the cache of this level and type ("Data", "Instruction", "Unified") from
 * /sys, in bytes for sizes, or -1. */
static double
sysfs_cache(int level, const char *type, const char *field)
{
  char path[128], buf[64];
  int i;

  for (i = 0; i < 16; i++) {
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
    if (read_line(path, buf, sizeof buf))
      break;
    if (atoi(buf) != level)
      continue;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
    if (read_line(path, buf, sizeof buf) || strcmp(buf, type) != 0)
      continue;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/%s", i, field);
    if (read_line(path, buf, sizeof buf))
      continue;
    {
      char *end;
      double v = strtod(buf, &end);
      if (*end == 'K')
        v *= 1024;
      else if (*end == 'M')
        v *= 1024 * 1024;
      return v > 0 ? v : -1;
    }
  }
  return -1;
}

#ifdef XRAY_HAVE_HWLOC
static double
hwloc_l1i(void)
{
  hwloc_topology_t t;
  hwloc_obj_t o;
  double v = -1;

  if (hwloc_topology_init(&t))
    return -1;
  /* hwloc leaves instruction caches out unless asked. */
  hwloc_topology_set_icache_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL);
  if (hwloc_topology_load(t) == 0
      && (o = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_L1ICACHE, NULL)) && o->attr)
    v = (double) o->attr->cache.size;
  hwloc_topology_destroy(t);
  return v > 0 ? v : -1;
}
#endif

/* XRAY_L1D_SIZE, XRAY_L2_ASSOC, XRAY_L3_LINE, ...: the data or unified
 * cache of that level in sysfs.  Latencies have no OS view. */
static int
sysfs_data_cache(const char *name, double *v)
{
  static const struct {
    const char *suffix, *field;
  } f[] = { { "SIZE", "size" }, { "ASSOC", "ways_of_associativity" },
            { "LINE", "coherency_line_size" } };
  char field[16];
  int level;
  size_t i;

  if (!((sscanf(name, "XRAY_L%dD_%15s", &level, field) == 2 && level == 1)
        || (sscanf(name, "XRAY_L%d_%15s", &level, field) == 2 && level >= 2)))
    return -1;
  for (i = 0; i < sizeof f / sizeof *f; i++)
    if (strcmp(field, f[i].suffix) == 0) {
      *v = sysfs_cache(level, level == 1 ? "Data" : "Unified", f[i].field);
      return *v > 0 ? 0 : -1;
    }
  return -1;
}

int
xray__os_view(const xray_machine *m, const char *name, double *v, char *src, size_t srclen)
{
  if (m->simulated) {
    if (xray__sim_truth(m, name, v))
      return -1;
    snprintf(src, srclen, "simulation");
    return 0;
  }
  if (strcmp(name, "XRAY_L1I_SIZE") == 0) {
#ifdef XRAY_HAVE_HWLOC
    if ((*v = hwloc_l1i()) > 0) {
      snprintf(src, srclen, "hwloc");
      return 0;
    }
#endif
    if ((*v = sysfs_cache(1, "Instruction", "size")) > 0) {
      snprintf(src, srclen, "sysfs");
      return 0;
    }
#ifdef _SC_LEVEL1_ICACHE_SIZE
    {
      long s = sysconf(_SC_LEVEL1_ICACHE_SIZE);
      if (s > 0) {
        *v = (double) s;
        snprintf(src, srclen, "sysconf");
        return 0;
      }
    }
#endif
  }
  if (sysfs_data_cache(name, v) == 0) {
    snprintf(src, srclen, "sysfs");
    return 0;
  }
  if (strcmp(name, "XRAY_PAGE_SIZE") == 0) {
    long p = sysconf(_SC_PAGESIZE);
    if (p > 0) {
      *v = (double) p;
      snprintf(src, srclen, "sysconf");
      return 0;
    }
  }
  return -1;
}
