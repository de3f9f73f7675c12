/* The kinds of core the OS tells apart (performance and efficiency
 * cores), from hwloc's cpukinds or sysfs, under XRAY_FSROOT where a
 * recorded tree stands for the live system; binding a thread to one
 * kind's CPUs, and pinning it to one CPU while a real machine measures. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_setaffinity, CPU_COUNT */
#endif
#ifdef HAVE_CONFIG_H
#include "config.h" /* XRAY__HAVE_HWLOC */
#endif
#include "machine/machine.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sched.h>
#endif
#ifdef XRAY__HAVE_HWLOC
#include <hwloc.h>
#endif

/* Kind names go into shell assignments and C strings: letters, digits and
 * "._-" only, other bytes become '_'. */
static void
kind_name(struct xray__kind *k, const char *name)
{
  size_t i;

  snprintf(k->name, sizeof k->name, "%s", name);
  for (i = 0; k->name[i]; i++)
    if (!isalnum((unsigned char) k->name[i]) && !strchr("._-", k->name[i]))
      k->name[i] = '_';
}

/* Intel's hybrid parts give each core type a PMU of its own, whose cpus
 * file lists its CPUs: cpu_core (performance cores) before cpu_atom
 * (efficiency cores). */
static int
sysfs_pmu_kinds(struct xray__kind *k, int max)
{
  static const char *const pmus[][2] = { { "cpu_core", "core" }, { "cpu_atom", "atom" } };
  char path[96];
  size_t i;
  int n = 0;

  for (i = 0; i < sizeof pmus / sizeof *pmus && n < max; i++) {
    snprintf(path, sizeof path, "/sys/devices/%s/cpus", pmus[i][0]);
    if ((k[n].ncpu = xray__os_cpu_list(path, k[n].cpu, XRAY__MAX_CPUS)) > 0) {
      if (k[n].ncpu > XRAY__MAX_CPUS)
        k[n].ncpu = XRAY__MAX_CPUS;
      kind_name(&k[n], pmus[i][1]);
      n++;
    }
  }
  return n;
}

/* Arm's big.LITTLE and DynamIQ parts: the scheduler's cpu_capacity of
 * each online CPU; CPUs of one capacity are one kind, the largest first. */
static int
sysfs_capacity_kinds(struct xray__kind *k, int max)
{
  int cpu[XRAY__MAX_CPUS];
  long cap[16];
  char path[96], buf[32];
  int n = xray__os_cpu_list("/sys/devices/system/cpu/online", cpu, XRAY__MAX_CPUS), i, j, nk = 0;

  for (i = 0; i < n && i < XRAY__MAX_CPUS; i++) {
    long c;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpu_capacity", cpu[i]);
    if (xray__os_line(path, buf, sizeof buf) || (c = atol(buf)) <= 0)
      return 0;
    for (j = 0; j < nk && cap[j] != c; j++)
      ;
    if (j == nk) {
      if (nk == max || nk == 16)
        return 0;
      cap[nk] = c;
      k[nk].ncpu = 0;
      snprintf(buf, sizeof buf, "capacity%ld", c);
      kind_name(&k[nk], buf);
      nk++;
    }
    k[j].cpu[k[j].ncpu++] = cpu[i];
  }
  /* The largest capacity first (a few kinds: insertion sort). */
  for (i = 1; i < nk; i++)
    for (j = i; j > 0 && cap[j] > cap[j - 1]; j--) {
      struct xray__kind t = k[j];
      long c = cap[j];
      k[j] = k[j - 1], cap[j] = cap[j - 1];
      k[j - 1] = t, cap[j - 1] = c;
    }
  return nk;
}

#if defined(XRAY__HAVE_HWLOC) && HWLOC_API_VERSION >= 0x00020400
/* hwloc's CPU kinds, the most efficient (in hwloc's sense: the fastest)
 * first, where hwloc ranks them by what the hardware or the OS says of the
 * cores (an efficiency, a core type), not by their frequencies alone: the
 * preferred cores of one design boost higher and are no other kind. */
static int
hwloc_kinds(struct xray__kind *k, int max)
{
  hwloc_topology_t t;
  hwloc_bitmap_t set;
  int nr, i, n = 0, ranked = 1;

  if (hwloc_topology_init(&t))
    return 0;
  if (hwloc_topology_load(t) || !(set = hwloc_bitmap_alloc())) {
    hwloc_topology_destroy(t);
    return 0;
  }
  nr = hwloc_cpukinds_get_nr(t, 0);
  for (i = nr - 1; nr >= 2 && i >= 0 && n < max; i--) {
    struct hwloc_info_s *infos;
    unsigned ninfos, j;
    int eff, c;
    char name[32] = "";
    if (hwloc_cpukinds_get_info(t, (unsigned) i, set, &eff, &ninfos, &infos, 0))
      break;
    for (j = 0; j < ninfos; j++)
      if (strcmp(infos[j].name, "CoreType") == 0)
        snprintf(name, sizeof name, "%s", infos[j].value);
    if (eff < 0 && !name[0])
      ranked = 0;
    if (!name[0])
      snprintf(name, sizeof name, "efficiency%d", eff);
    k[n].ncpu = 0;
    hwloc_bitmap_foreach_begin(c, set) if (k[n].ncpu < XRAY__MAX_CPUS) k[n].cpu[k[n].ncpu++] = c;
    hwloc_bitmap_foreach_end();
    kind_name(&k[n], name);
    n += k[n].ncpu > 0;
  }
  hwloc_bitmap_free(set);
  hwloc_topology_destroy(t);
  return ranked && n >= 2 ? n : 0;
}
#endif

/* Keeps of each kind the CPUs this process may use (taskset and cpusets
 * narrow the machine), and the kinds with any left; how many. */
static int
usable_kinds(struct xray__kind *k, int n)
{
  int mine[XRAY__MAX_CPUS];
  int nm = xray__affinity(mine, XRAY__MAX_CPUS), i, j, a, kept = 0;

  if (nm <= 0)
    return n;
  for (i = 0; i < n; i++) {
    int c = 0;
    for (j = 0; j < k[i].ncpu; j++)
      for (a = 0; a < nm && a < XRAY__MAX_CPUS; a++)
        if (mine[a] == k[i].cpu[j]) {
          k[i].cpu[c++] = k[i].cpu[j];
          break;
        }
    k[i].ncpu = c;
    if (c > 0)
      k[kept++] = k[i];
  }
  return kept;
}

int
xray__os_kinds(struct xray__kind *k, int max, char *src, size_t srclen)
{
  int n = 0;

#if defined(XRAY__HAVE_HWLOC) && HWLOC_API_VERSION >= 0x00020400
  if (!xray__os_root() && (n = hwloc_kinds(k, max)) >= 2)
    snprintf(src, srclen, "hwloc cpukinds");
#endif
  if (n < 2 && (n = sysfs_pmu_kinds(k, max)) >= 2)
    snprintf(src, srclen, "sysfs (cpu_core, cpu_atom)");
  if (n < 2 && (n = sysfs_capacity_kinds(k, max)) >= 2)
    snprintf(src, srclen, "sysfs (cpu_capacity)");
  if (n >= 2 && !xray__os_root())
    n = usable_kinds(k, n);
  return n >= 2 ? n : 1;
}

#ifdef __linux__
int
xray__bind(const int *cpu, int n)
{
  cpu_set_t set;
  int i;

  CPU_ZERO(&set);
  for (i = 0; i < n; i++)
    if (cpu[i] >= 0 && cpu[i] < CPU_SETSIZE)
      CPU_SET(cpu[i], &set);
  return CPU_COUNT(&set) > 0 ? sched_setaffinity(0, sizeof set, &set) : -1;
}
#else
int
xray__bind(const int *cpu, int n)
{
  (void) cpu, (void) n;
  return -1;
}
#endif

/* The pins this thread holds, innermost first.  Per thread: a binding is
 * a thread's, and two threads may each measure a machine of their own. */
static XRAY__THREAD_LOCAL struct xray__pin *pins;

const struct xray__pin *
xray__pinned(void)
{
  return pins;
}

int
xray__pin(struct xray__pin *p)
{
  int now = -1, i;

  memset(p, 0, sizeof *p);
#ifdef __linux__
  now = sched_getcpu();
#endif
  p->n = xray__thread_cpus(NULL, 0);
  if (p->n <= 0 || !(p->cpu = malloc((size_t) p->n * sizeof *p->cpu)))
    return -1;
  p->n = xray__thread_cpus(p->cpu, p->n);
  /* The CPU the thread is on, unless the mask has just moved it away. */
  p->home = p->cpu[0];
  for (i = 0; i < p->n; i++)
    if (p->cpu[i] == now)
      p->home = now;
  if (xray__bind(&p->home, 1)) {
    free(p->cpu);
    p->cpu = NULL;
    return -1;
  }
  /* Commands that time nothing (a compiler) keep the CPUs the thread
   * had. */
  if (!pins)
    xray__run_cpus(p->cpu, p->n);
  p->outer = pins;
  pins = p;
  return 0;
}

void
xray__unpin(struct xray__pin *p)
{
  struct xray__pin **at;

  if (!p->cpu)
    return;
  /* Pins are undone in the reverse order; one undone out of turn gives
   * back its mask all the same and leaves the list. */
  for (at = &pins; *at && *at != p; at = &(*at)->outer)
    ;
  if (*at)
    *at = p->outer;
  if (!pins)
    xray__run_cpus(NULL, 0);
  xray__bind(p->cpu, p->n);
  free(p->cpu);
  p->cpu = NULL;
}
