/* The OS view of hardware parameters: printed beside measurements, used to
 * flag disagreement and as test ground truth, never reported as measured.
 * hwloc when built with it, else Linux sysfs keyed by level and type (not
 * by index: index order differs between kernels), else sysconf.  Under
 * $XRAY_FSROOT (as hwloc's HWLOC_FSROOT) it reads a recorded tree of /sys
 * and /proc instead, and only that tree: hwloc, sysconf, CPUID and the
 * affinity mask describe the machine xray runs on, not the tree. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity */
#endif
#ifdef HAVE_CONFIG_H
#include "config.h" /* XRAY__HAVE_HWLOC */
#endif
#include "machine/machine.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__unix__) || defined(__APPLE__)
#include <sys/resource.h>
#endif
#ifdef __linux__
#include <sched.h>
#endif
#ifdef XRAY__HAVE_HWLOC
#include <hwloc.h>
#endif

/* The CPUs this thread may use (its affinity mask, which taskset and
 * cpusets narrow; under a pin, the mask before it), at most max of them in
 * cpu[]; how many there are. */
int
xray__affinity(int *cpu, int max)
{
  const struct xray__pin *p = xray__pinned();
  int i;

  if (!p)
    return xray__thread_cpus(cpu, max);
  for (i = 0; i < p->n && i < max; i++)
    cpu[i] = p->cpu[i];
  return p->n;
}

#ifdef __linux__
int
xray__thread_cpus(int *cpu, int max)
{
  cpu_set_t set;
  int i, n = 0;

  if (sched_getaffinity(0, sizeof set, &set) != 0)
    return 0;
  for (i = 0; i < CPU_SETSIZE; i++)
    if (CPU_ISSET(i, &set)) {
      if (n < max)
        cpu[n] = i;
      n++;
    }
  return n;
}
#else
int
xray__thread_cpus(int *cpu, int max)
{
  (void) cpu, (void) max;
  return 0;
}
#endif

/* The recorded tree's root, or NULL for the live system. */
const char *
xray__os_root(void)
{
  const char *r = getenv("XRAY_FSROOT");

  return r && r[0] && strcmp(r, "/") != 0 ? r : NULL;
}

/* fopen of /sys or /proc path under the root. */
static FILE *
os_open(const char *path)
{
  char full[4096];
  const char *r = xray__os_root();

  if (!r)
    return fopen(path, "r");
  if (snprintf(full, sizeof full, "%s%s", r, path) >= (int) sizeof full)
    return NULL;
  return fopen(full, "r");
}

/* The first line of /sys or /proc file path under the root, without its
 * newline and trailing blanks; 0, or -1 if there is none. */
int
xray__os_line(const char *path, char *buf, size_t len)
{
  FILE *f = os_open(path);
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

double
xray__os_memory_limit(char *src, size_t srclen)
{
  double lim = 0, v;
  char line[512], path[600];
  FILE *f;

  snprintf(src, srclen, "none");
#if defined(__unix__) || defined(__APPLE__)
  {
    struct rlimit r;
    if (getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY) {
      lim = (double) r.rlim_cur;
      snprintf(src, srclen, "ulimit -v");
    }
  }
#endif
  /* cgroup v2: this process's group, named by the line "0::PATH". */
  path[0] = 0;
  if ((f = fopen("/proc/self/cgroup", "r"))) {
    while (fgets(line, sizeof line, f))
      if (strncmp(line, "0::", 3) == 0) {
        line[strcspn(line, "\n")] = 0;
        snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", line + 3);
      }
    fclose(f);
  }
  if (path[0] && (f = fopen(path, "r"))) {
    if (fscanf(f, "%lf", &v) == 1 && v > 0 && (!(lim > 0) || v < lim)) {
      lim = v;
      snprintf(src, srclen, "cgroup memory.max");
    }
    fclose(f);
  } else if ((f = fopen("/sys/fs/cgroup/memory/memory.limit_in_bytes", "r"))) {
    /* cgroup v1 says "no limit" with a number near 2^63. */
    if (fscanf(f, "%lf", &v) == 1 && v > 0 && v < 1e18 && (!(lim > 0) || v < lim)) {
      lim = v;
      snprintf(src, srclen, "cgroup memory.limit_in_bytes");
    }
    fclose(f);
  }
  return lim;
}

/* The sysfs folder of CPU cpu's cache of this level and type ("Data",
 * "Instruction", "Unified") into dir; 0, or -1 if there is none. */
static int
cache_dir(int cpu, int level, const char *type, char *dir, size_t len)
{
  char path[160], buf[64];
  int i;

  for (i = 0; i < 16; i++) {
    snprintf(dir, len, "/sys/devices/system/cpu/cpu%d/cache/index%d", cpu, i);
    snprintf(path, sizeof path, "%s/level", dir);
    if (xray__os_line(path, buf, sizeof buf))
      break;
    if (atoi(buf) != level)
      continue;
    snprintf(path, sizeof path, "%s/type", dir);
    if (xray__os_line(path, buf, sizeof buf) == 0 && strcmp(buf, type) == 0)
      return 0;
  }
  return -1;
}

/* The CPU whose caches the OS view describes: the first this thread may
 * run on, which is the one xray measures on under its pin (and on a
 * machine of several kinds of core, one of the kind it measures); cpu0 in
 * a recorded tree. */
static int
view_cpu(void)
{
  int cpu[1];

  return !xray__os_root() && xray__thread_cpus(cpu, 1) > 0 ? cpu[0] : 0;
}

/* A field ("size", "ways_of_associativity", "coherency_line_size") of
 * the viewed CPU's cache of this level and type from /sys, in bytes for
 * sizes, or -1. */
static double
sysfs_cache(int level, const char *type, const char *field)
{
  char dir[128], path[192], buf[64], *end;
  double v;

  if (cache_dir(view_cpu(), level, type, dir, sizeof dir))
    return -1;
  snprintf(path, sizeof path, "%s/%s", dir, field);
  if (xray__os_line(path, buf, sizeof buf))
    return -1;
  v = strtod(buf, &end);
  if (*end == 'K')
    v *= 1024;
  else if (*end == 'M')
    v *= 1024 * 1024;
  return v > 0 ? v : -1;
}

#ifdef XRAY__HAVE_HWLOC
/* The L1I's size, ways or line size (field 0, 1, 2) as hwloc gives it. */
static double
hwloc_l1i(int field)
{
  hwloc_topology_t t;
  hwloc_obj_t o = NULL;
  double v = -1;

  if (hwloc_topology_init(&t))
    return -1;
  /* hwloc leaves instruction caches out unless asked. */
  hwloc_topology_set_icache_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL);
  /* The L1I of the viewed CPU. */
  if (hwloc_topology_load(t) == 0)
    for (o = NULL; (o = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_L1ICACHE, o));)
      if (!o->cpuset || hwloc_bitmap_isset(o->cpuset, (unsigned) view_cpu()))
        break;
  if (o && o->attr)
    v = field == 0   ? (double) o->attr->cache.size
        : field == 1 ? (double) o->attr->cache.associativity
                     : (double) o->attr->cache.linesize;
  hwloc_topology_destroy(t);
  return v > 0 ? v : -1;
}
#endif

/* The sysfs fields of a cache's size, ways and line size, indexed by
 * what - XRAY__W_CACHE_SIZE. */
static const char *const cache_fields[] = { "size", "ways_of_associativity",
                                            "coherency_line_size" };

/* The data and unified levels: the deepest whose size sysfs gives. */
static int
sysfs_levels(double *v)
{
  int level;

  for (level = 1; level < 8; level++)
    if (sysfs_cache(level + 1, "Unified", "size") < 0)
      break;
  *v = level;
  return level > 1 || sysfs_cache(1, "Data", "size") > 0 ? 0 : -1;
}

/* "cpu MHz : 2445.424" and "flags : ... fma ..." from /proc/cpuinfo. */
static double
cpuinfo(const char *key, const char *word)
{
  FILE *f = os_open("/proc/cpuinfo");
  char line[4096];
  double v = -1;

  if (!f)
    return -1;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, key, strlen(key)) == 0 && strchr(line, ':')) {
      char *val = strchr(line, ':') + 1;
      if (word) {
        char pat[40];
        snprintf(pat, sizeof pat, " %s", word);
        val[strcspn(val, "\n")] = ' ';
        if (strlen(line) + 2 < sizeof line)
          strcat(val, " ");
        v = strstr(val, pat) && strchr(" ", strstr(val, pat)[strlen(pat)]) ? 1 : 0;
      } else
        v = atof(val);
      break;
    }
  fclose(f);
  return v;
}

int
xray__os_guest(void)
{
#if defined(__x86_64__) || defined(__i386__)
  return cpuinfo("flags", "hypervisor") > 0;
#else
  return 0;
#endif
}

/* Cores and threads per core among the CPUs this process may use (its
 * affinity mask, which taskset and cpusets narrow), from sysfs topology:
 * the OS's view of what xray's cores probe can see. */
/* The CPUs of a sysfs CPU list ("0-3,8,10-11") in the tree, at most max
 * of them in cpu[]; how many it names, or -1. */
int
xray__os_cpu_list(const char *path, int *cpu, int max)
{
  char buf[4096], *p = buf, *end;
  int n = 0;

  if (xray__os_line(path, buf, sizeof buf))
    return -1;
  while (*p) {
    long a = strtol(p, &end, 10), b = a;
    if (end == p || a < 0 || a > 1 << 20)
      return -1;
    p = end;
    if (*p == '-') {
      b = strtol(p + 1, &end, 10);
      if (end == p + 1 || b < a || b > 1 << 20)
        return -1;
      p = end;
    }
    for (; a <= b; a++, n++)
      if (n < max)
        cpu[n] = (int) a;
    if (*p == ',')
      p++;
    else if (*p)
      return -1;
  }
  return n > 0 ? n : -1;
}

static int
online_cpus(int *cpu, int max)
{
  return xray__os_cpu_list("/sys/devices/system/cpu/online", cpu, max);
}

/* XRAY_L<n>_SHARED_BY: the usable CPUs in the shared_cpu_list of the
 * first usable CPU's unified level n. */
static int
sysfs_shared_by(int level, double *v)
{
  char dir[128], path[192];
  int *cpu = malloc(2 * XRAY__MAX_CPUS * sizeof *cpu), *with = cpu + XRAY__MAX_CPUS, n, k, j,
      nw = 0, count = 0;

  if (!cpu)
    return -1;
  n = xray__os_root() ? online_cpus(cpu, XRAY__MAX_CPUS) : xray__affinity(cpu, XRAY__MAX_CPUS);
  if (n >= 1 && !cache_dir(cpu[0], level, "Unified", dir, sizeof dir)) {
    snprintf(path, sizeof path, "%s/shared_cpu_list", dir);
    nw = xray__os_cpu_list(path, with, XRAY__MAX_CPUS);
  }
  for (k = 0; k < nw && k < XRAY__MAX_CPUS; k++)
    for (j = 0; j < n && j < XRAY__MAX_CPUS; j++)
      count += with[k] == cpu[j];
  free(cpu);
  *v = count;
  return count > 0 ? 0 : -1;
}

static int
sysfs_cores(double *cores, double *smt)
{
  char path[128], buf[64];
  int cpu[XRAY__MAX_CPUS];
  long seen[XRAY__MAX_CPUS][3];
  int ncpu =
          xray__os_root() ? online_cpus(cpu, XRAY__MAX_CPUS) : xray__affinity(cpu, XRAY__MAX_CPUS),
      i, k, n = 0, most = 0;

  for (k = 0; k < (ncpu > XRAY__MAX_CPUS ? XRAY__MAX_CPUS : ncpu); k++) {
    long pkg, core;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/core_id", cpu[k]);
    if (xray__os_line(path, buf, sizeof buf))
      continue;
    core = atol(buf);
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
             cpu[k]);
    pkg = xray__os_line(path, buf, sizeof buf) ? 0 : atol(buf);
    for (i = 0; i < n && !(seen[i][0] == pkg && seen[i][1] == core); i++)
      ;
    if (i == n && n < XRAY__MAX_CPUS) {
      seen[n][0] = pkg;
      seen[n][1] = core;
      seen[n][2] = 0;
      n++;
    }
    if (i < n && ++seen[i][2] > most)
      most = (int) seen[i][2];
  }
  if (!n)
    return -1;
  *cores = n;
  *smt = most;
  return 0;
}

#ifdef XRAY__HAVE_HWLOC
/* The CPUs this process may use (xray__affinity) as an hwloc bitmap. */
static int
mask_bitmap(hwloc_bitmap_t b)
{
  int n = xray__affinity(NULL, 0), *cpu, i;

  if (n <= 0 || !(cpu = malloc((size_t) n * sizeof *cpu)))
    return -1;
  n = xray__affinity(cpu, n);
  hwloc_bitmap_zero(b);
  for (i = 0; i < n; i++)
    hwloc_bitmap_set(b, (unsigned) cpu[i]);
  free(cpu);
  return 0;
}
#endif

/* The core and CPU values. */
static int
os_cpu(enum xray__what what, double *v, char *src, size_t srclen)
{
  double cores, smt;
  int cores_asked = what == XRAY__W_NUM_CORES; /* not XRAY__W_SMT_WAYS */

  if (what == XRAY__W_CPU_MHZ) {
    char buf[64];
    if (xray__os_line("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", buf, sizeof buf) == 0
        && atof(buf) > 0) {
      *v = atof(buf) / 1000;
      snprintf(src, srclen, "cpufreq max");
      return 0;
    }
    if ((*v = cpuinfo("cpu MHz", NULL)) > 0) {
      snprintf(src, srclen, "/proc/cpuinfo");
      return 0;
    }
  } else if (what == XRAY__W_FMA_ISA) {
    if (xray__isa_fma_flag && (*v = cpuinfo("flags", xray__isa_fma_flag)) >= 0) {
      snprintf(src, srclen, "/proc/cpuinfo");
      return 0;
    }
  } else if (what == XRAY__W_NUM_CPUS) {
    int cpu[1];
    long n = xray__os_root() ? online_cpus(cpu, 1) : sysconf(_SC_NPROCESSORS_ONLN);
    if (n > 0) {
      *v = (double) n;
      snprintf(src, srclen, xray__os_root() ? "sysfs (online)" : "sysconf (online)");
      return 0;
    }
  } else if (what == XRAY__W_NUM_CORES || what == XRAY__W_SMT_WAYS) {
#ifdef XRAY__HAVE_HWLOC
    hwloc_topology_t t;
    hwloc_bitmap_t mine = hwloc_bitmap_alloc(), in = hwloc_bitmap_alloc();
    if (mine && in && !xray__os_root() && hwloc_topology_init(&t) == 0) {
      /* Cores with a PU this process may use, and the most such PUs of one
       * (the mask as xray__affinity gives it, not hwloc's binding: xray's
       * own pin narrows that to one CPU). */
      int ok = hwloc_topology_load(t) == 0 && mask_bitmap(mine) == 0;
      int nc = 0, most = 0, w;
      hwloc_obj_t c = NULL;
      while (ok && (c = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_CORE, c))) {
        hwloc_bitmap_and(in, c->cpuset, mine);
        if ((w = hwloc_bitmap_weight(in)) > 0) {
          nc++;
          most = w > most ? w : most;
        }
      }
      hwloc_topology_destroy(t);
      if (nc > 0) {
        hwloc_bitmap_free(mine);
        hwloc_bitmap_free(in);
        *v = cores_asked ? nc : most;
        snprintf(src, srclen, "hwloc");
        return 0;
      }
    }
    hwloc_bitmap_free(mine);
    hwloc_bitmap_free(in);
#endif
    if (sysfs_cores(&cores, &smt) == 0) {
      *v = cores_asked ? cores : smt;
      snprintf(src, srclen, "sysfs");
      return 0;
    }
  }
  return -1;
}

/* The data TLBs as the processor describes them (isa/: AMD's CPUID leaves
 * on x86; other vendors leave them zero, and then there is no view). */
static int
isa_tlb(int level, int entries_asked, double *v, char *src, size_t srclen)
{
  unsigned entries, ways;

  if (xray__isa_tlb(level, &entries, &ways) != 0)
    return -1;
  if (entries_asked)
    *v = entries;
  else if (ways > 0)
    *v = ways;
  else
    return -1;
  snprintf(src, srclen, "cpuid");
  return 0;
}

/* An L1's size, ways or line size (field f) as the processor describes
 * its L1 caches (CPUID on x86): the last view, for hosts whose OS gives
 * no cache topology (a guest without sysfs cache folders). */
static int
isa_l1(int data, int f, double *v, char *src, size_t srclen)
{
  unsigned size, ways, line;

  if (xray__isa_l1(data, &size, &ways, &line))
    return -1;
  *v = f == 0 ? size : f == 1 ? ways : line;
  snprintf(src, srclen, "cpuid");
  return 0;
}

/* The L1I's size, ways or line size (field f): hwloc, else sysfs, else
 * sysconf. */
static int
l1i_read(int f, int live, double *v, char *src, size_t srclen)
{
#ifdef XRAY__HAVE_HWLOC
  if (live && (*v = hwloc_l1i(f)) > 0) {
    snprintf(src, srclen, "hwloc");
    return 0;
  }
#endif
  if ((*v = sysfs_cache(1, "Instruction", cache_fields[f])) > 0) {
    snprintf(src, srclen, "sysfs");
    return 0;
  }
#if defined(_SC_LEVEL1_ICACHE_SIZE) && defined(_SC_LEVEL1_ICACHE_ASSOC)                            \
    && defined(_SC_LEVEL1_ICACHE_LINESIZE)
  {
    static const int sc[] = { _SC_LEVEL1_ICACHE_SIZE, _SC_LEVEL1_ICACHE_ASSOC,
                              _SC_LEVEL1_ICACHE_LINESIZE };
    long s = sysconf(sc[f]);
    if (live && s > 0) {
      *v = (double) s;
      snprintf(src, srclen, "sysconf");
      return 0;
    }
  }
#endif
  return -1;
}

/* A cache's size, ways or line size (field f) at level (XRAY__LEVEL_INSN:
 * the L1I; 1: the L1D; else the unified level): the OS's view, else the
 * processor's of an L1. */
static int
os_cache(int f, int level, int live, double *v, char *src, size_t srclen)
{
  if (level == XRAY__LEVEL_INSN) {
    if (l1i_read(f, live, v, src, srclen) == 0)
      return 0;
  } else if ((*v = sysfs_cache(level, level == 1 ? "Data" : "Unified", cache_fields[f])) > 0) {
    snprintf(src, srclen, "sysfs");
    return 0;
  }
  return live && level <= 1 ? isa_l1(level == 1, f, v, src, srclen) : -1;
}

/* The OS's view of a value, found by what the value is (params.c). */
int
xray__os_read(const char *name, double *v, char *src, size_t srclen)
{
  int live = !xray__os_root(), level, ok = -1;
  const struct xray__param *p = xray__param_match(name, &level);
  const char *from = "sysfs";

  switch (p ? p->what : 0) {
  case XRAY__W_CACHE_SIZE:
  case XRAY__W_CACHE_ASSOC:
  case XRAY__W_CACHE_LINE:
    return os_cache(p->what - XRAY__W_CACHE_SIZE, level, live, v, src, srclen);
  case XRAY__W_CACHE_LEVELS:
    ok = sysfs_levels(v);
    break;
  case XRAY__W_SHARED_BY:
    ok = level >= 2 ? sysfs_shared_by(level, v) : -1;
    break;
  case XRAY__W_CPU_MHZ:
  case XRAY__W_FMA_ISA:
  case XRAY__W_NUM_CPUS:
  case XRAY__W_NUM_CORES:
  case XRAY__W_SMT_WAYS:
    return os_cpu(p->what, v, src, srclen);
  case XRAY__W_TLB_ENTRIES:
  case XRAY__W_TLB_ASSOC:
    return live ? isa_tlb(level, p->what == XRAY__W_TLB_ENTRIES, v, src, srclen) : -1;
  case XRAY__W_PAGE_SIZE:
    ok = live && (*v = (double) sysconf(_SC_PAGESIZE)) > 0 ? 0 : -1;
    from = "sysconf";
    break;
  default:
    return -1;
  }
  if (ok == 0)
    snprintf(src, srclen, "%s", from);
  return ok;
}
