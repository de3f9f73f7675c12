/* The OS view read from recorded trees of /sys and /proc (XRAY_FSROOT):
 * each value with its source, by cache level and type whatever the index
 * order, cores and threads from the topology files, and nothing taken
 * from the machine the test runs on (hwloc, sysconf, CPUID).  And the pin
 * a real machine measures under: one CPU while it holds, the caller's mask
 * reported all the same, and that mask back when it ends. */
#include "xray-internal.h"
#include "../tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PIN_CHECKS 6

/* A list of CPUs as "0,1,5", from get (the thread's own mask, or the one
 * xray__affinity reports). */
static void
mask_text(int (*get)(int *cpu, int max), char *buf, size_t len)
{
  int cpu[256], n = get(cpu, 256), i;
  size_t at = 0;

  buf[0] = 0;
  for (i = 0; i < n && i < 256 && at < len; i++)
    at += (size_t) snprintf(buf + at, len - at, "%s%d", at ? "," : "", cpu[i]);
}

static void
check_pins(void)
{
  struct xray__pin outer, inner;
  char caller[1024], now[1024], seen[1024], one[16];
  int cpu[256], n = xray__affinity(cpu, 256), last;

  mask_text(xray__thread_cpus, caller, sizeof caller);
  if (n < 1 || !caller[0] || xray__pin(&outer)) {
    for (n = 0; n < PIN_CHECKS; n++)
      tap_ok(1, "# SKIP this system does not let a thread be bound to CPUs");
    return;
  }
  mask_text(xray__thread_cpus, now, sizeof now);
  mask_text(xray__affinity, seen, sizeof seen);
  snprintf(one, sizeof one, "%d", outer.home);
  tap_ok(strcmp(now, one) == 0 && xray__pinned() == &outer,
         "pinned: the thread runs on CPU %s alone (its mask: %s, was %s)", one, now, caller);
  tap_ok(strcmp(seen, caller) == 0, "pinned: the CPUs reported are the caller's %s (%s)", caller,
         seen);
  /* A pin inside a narrower binding (a kind's CPUs) reports that binding. */
  last = cpu[(n < 256 ? n : 256) - 1];
  snprintf(one, sizeof one, "%d", last);
  if (xray__bind(&last, 1) || xray__pin(&inner)) {
    tap_ok(0, "a pin inside a binding to CPU %s", one);
    tap_ok(0, "as above");
  } else {
    mask_text(xray__affinity, seen, sizeof seen);
    tap_ok(inner.home == last && strcmp(seen, one) == 0,
           "a pin inside a binding to CPU %s: home %d, reported %s", one, inner.home, seen);
    xray__unpin(&inner);
    mask_text(xray__thread_cpus, now, sizeof now);
    mask_text(xray__affinity, seen, sizeof seen);
    tap_ok(strcmp(now, one) == 0 && strcmp(seen, caller) == 0 && xray__pinned() == &outer,
           "the inner pin undone: the thread on %s (%s), the outer pin's %s reported (%s)", one,
           now, caller, seen);
  }
  xray__unpin(&outer);
  mask_text(xray__thread_cpus, now, sizeof now);
  tap_ok(strcmp(now, caller) == 0 && xray__pinned() == NULL,
         "unpinned: the caller's mask %s is back (%s)", caller, now);
  mask_text(xray__affinity, seen, sizeof seen);
  tap_ok(strcmp(seen, caller) == 0, "unpinned: the CPUs reported are the thread's %s (%s)", caller,
         seen);
}

struct want {
  const char *name;
  double v; /* < 0: the tree gives no view */
  const char *src;
};

static void
check_tree(const char *root, const char *tree, const struct want *w, size_t n)
{
  size_t i;

  if (setenv("XRAY_FSROOT", root, 1) != 0) {
    tap_ok(0, "%s: setenv: %s", tree, strerror(errno));
    return;
  }
  for (i = 0; i < n; i++) {
    double v = -1;
    char src[64] = "";
    int rc = xray__os_read(w[i].name, &v, src, sizeof src);
    if (w[i].v < 0)
      tap_ok(rc != 0, "%s: %s has no view (got rc %d, %g from '%s')", tree, w[i].name, rc, v, src);
    else
      tap_ok(rc == 0 && v == w[i].v && strcmp(src, w[i].src) == 0,
             "%s: %s %g from %s (got rc %d, %g from '%s')", tree, w[i].name, w[i].v, w[i].src, rc,
             v, src);
  }
}

/* A tree of one file, cpu/online, holding list. */
static int
online_tree(char *dir, size_t len, const char *list)
{
  char path[4096];
  FILE *f;

  snprintf(dir, len, "%s/xray-os.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(dir))
    return -1;
  snprintf(path, sizeof path, "%s/sys", dir);
  mkdir(path, 0700);
  snprintf(path, sizeof path, "%s/sys/devices", dir);
  mkdir(path, 0700);
  snprintf(path, sizeof path, "%s/sys/devices/system", dir);
  mkdir(path, 0700);
  snprintf(path, sizeof path, "%s/sys/devices/system/cpu", dir);
  mkdir(path, 0700);
  snprintf(path, sizeof path, "%s/sys/devices/system/cpu/online", dir);
  if (!(f = fopen(path, "w")))
    return -1;
  fprintf(f, "%s\n", list);
  return fclose(f);
}

static void
remove_online_tree(const char *dir)
{
  static const char *const sub[] = { "/sys/devices/system/cpu/online",
                                     "/sys/devices/system/cpu",
                                     "/sys/devices/system",
                                     "/sys/devices",
                                     "/sys",
                                     "" };
  char path[4096];
  size_t i;

  for (i = 0; i < sizeof sub / sizeof *sub; i++) {
    snprintf(path, sizeof path, "%s%s", dir, sub[i]);
    if (i == 0)
      unlink(path);
    else
      rmdir(path);
  }
}

/* The core kinds of tree (XRAY_FSROOT), against want: "name:cpus;..."
 * with the fastest first, or "" for one kind. */
static void
check_kinds(const char *root, const char *tree, const char *want)
{
  struct xray__kind k[XRAY__KINDS_MAX];
  char got[512] = "", src[64] = "";
  size_t at = 0;
  int n, i, j;

  setenv("XRAY_FSROOT", root, 1);
  n = xray__os_kinds(k, XRAY__KINDS_MAX, src, sizeof src);
  for (i = 0; n > 1 && i < n; i++) {
    at += (size_t) snprintf(got + at, sizeof got - at, "%s%s:", i ? ";" : "", k[i].name);
    for (j = 0; j < k[i].ncpu && at < sizeof got - 8; j++)
      at += (size_t) snprintf(got + at, sizeof got - at, "%s%d", j ? "," : "", k[i].cpu[j]);
  }
  tap_ok(strcmp(got, want) == 0, "%s: core kinds '%s' (got '%s'%s%s)", tree, want, got,
         n > 1 ? " from " : "", n > 1 ? src : "");
}

int
main(void)
{
  /* Recorded on Zen 4 (capture.sh): sysfs cache folders, no cpufreq. */
  static const struct want zen4[] = {
    { "XRAY_L1I_SIZE", 32768, "sysfs" },
    { "XRAY_L1D_SIZE", 32768, "sysfs" },
    { "XRAY_L1D_ASSOC", 8, "sysfs" },
    { "XRAY_L1D_LINE", 64, "sysfs" },
    { "XRAY_CACHE_LEVELS", 3, "sysfs" },
    { "XRAY_L2_SIZE", 1048576, "sysfs" },
    { "XRAY_L2_ASSOC", 8, "sysfs" },
    { "XRAY_L3_SIZE", 33554432, "sysfs" },
    { "XRAY_L3_ASSOC", 16, "sysfs" },
    { "XRAY_L4_SIZE", -1, NULL },
    { "XRAY_CPU_MHZ", 2596.142, "/proc/cpuinfo" },
    { "XRAY_NUM_CPUS", 2, "sysfs (online)" },
    { "XRAY_NUM_CORES", 2, "sysfs" },
    { "XRAY_SMT_WAYS", 1, "sysfs" },
    /* Not in the tree: the live machine's sysconf and CPUID are not asked. */
    { "XRAY_PAGE_SIZE", -1, NULL },
    { "XRAY_DTLB_ENTRIES", -1, NULL },
    { "XRAY_L2TLB_ENTRIES", -1, NULL },
    { "XRAY_L2_LATENCY", -1, NULL },
  };
  /* A Zen 5 guest without cache folders: no cache has a view. */
  static const struct want zen5[] = {
    { "XRAY_L1I_SIZE", -1, NULL },
    { "XRAY_L1D_SIZE", -1, NULL },
    { "XRAY_CACHE_LEVELS", -1, NULL },
    { "XRAY_L2_SIZE", -1, NULL },
    { "XRAY_CPU_MHZ", 2096.062, "/proc/cpuinfo" },
    { "XRAY_NUM_CORES", 2, "sysfs" },
  };
  /* Hand-made: indices last level first, 12-way 48K L1D, two threads a
   * core, cpufreq, no FMA flag. */
  static const struct want smt[] = {
    { "XRAY_L1I_SIZE", 32768, "sysfs" },     { "XRAY_L1D_SIZE", 49152, "sysfs" },
    { "XRAY_L1D_ASSOC", 12, "sysfs" },       { "XRAY_CACHE_LEVELS", 3, "sysfs" },
    { "XRAY_L2_SIZE", 1310720, "sysfs" },    { "XRAY_L2_ASSOC", 10, "sysfs" },
    { "XRAY_L3_SIZE", 31457280, "sysfs" },   { "XRAY_L3_LINE", 64, "sysfs" },
    { "XRAY_CPU_MHZ", 3500, "cpufreq max" }, { "XRAY_NUM_CPUS", 4, "sysfs (online)" },
    { "XRAY_NUM_CORES", 2, "sysfs" },        { "XRAY_SMT_WAYS", 2, "sysfs" },
  };
  static const struct want fma_yes[] = { { "XRAY_HAVE_FMA_ISA", 1, "/proc/cpuinfo" } };
  static const struct want fma_no[] = { { "XRAY_HAVE_FMA_ISA", 0, "/proc/cpuinfo" } };
  static const struct want none[] = { { "XRAY_L1D_SIZE", -1, NULL },
                                      { "XRAY_CPU_MHZ", -1, NULL },
                                      { "XRAY_NUM_CPUS", -1, NULL } };
  static const struct want six[] = { { "XRAY_NUM_CPUS", 6, "sysfs (online)" } };
  static const struct want bad[] = { { "XRAY_NUM_CPUS", -1, NULL } };
  static const char *const bad_lists[] = { "3-1", "0-1,x", "-1", "0,,1" };
  const char *top = getenv("top_srcdir");
  char root[4096], dir[4096];
  size_t i;
  int x86 = 0;

#if defined(__x86_64__) || defined(__i386__)
  x86 = 1;
#endif
  tap_plan((int) (sizeof zen4 / sizeof *zen4 + sizeof zen5 / sizeof *zen5 + sizeof smt / sizeof *smt
                  + 2 + sizeof none / sizeof *none + 1 + sizeof bad_lists / sizeof *bad_lists + 1
                  + 4 + 3 + PIN_CHECKS));
  if (!top)
    top = ".";
#define TREE(name, w)                                                                              \
  do {                                                                                             \
    snprintf(root, sizeof root, "%s/tests/data/fsroot/%s", top, name);                             \
    check_tree(root, name, w, sizeof w / sizeof *w);                                               \
  } while (0)
  TREE("zen4-genoa", zen4);
  TREE("zen5-nocache", zen5);
  TREE("smt-reordered", smt);
  /* The FMA flag is read on x86 only, where /proc/cpuinfo names it. */
  if (x86) {
    TREE("zen5-nocache", fma_yes);
    TREE("smt-reordered", fma_no);
  } else {
    tap_ok(1, "# SKIP the FMA flag of /proc/cpuinfo is read on x86 only");
    tap_ok(1, "# SKIP the FMA flag of /proc/cpuinfo is read on x86 only");
  }
  snprintf(root, sizeof root, "%s/tests/data/fsroot/no-such-tree", top);
  check_tree(root, "a root that does not exist", none, sizeof none / sizeof *none);
  if (online_tree(dir, sizeof dir, "0-2,5,8-9") == 0) {
    check_tree(dir, "online 0-2,5,8-9", six, 1);
    remove_online_tree(dir);
  } else
    tap_ok(0, "a temporary tree: %s", strerror(errno));
  for (i = 0; i < sizeof bad_lists / sizeof *bad_lists; i++)
    if (online_tree(dir, sizeof dir, bad_lists[i]) == 0) {
      char what[64];
      snprintf(what, sizeof what, "online '%s'", bad_lists[i]);
      check_tree(dir, what, bad, 1);
      remove_online_tree(dir);
    } else
      tap_ok(0, "a temporary tree: %s", strerror(errno));
  /* Core kinds: Intel's PMUs, Arm's capacities, and one kind where the
   * tree tells none apart. */
  snprintf(root, sizeof root, "%s/tests/data/fsroot/intel-hybrid", top);
  check_kinds(root, "intel-hybrid", "core:0,1,2,3,4,5,6,7;atom:8,9,10,11,12,13,14,15");
  snprintf(root, sizeof root, "%s/tests/data/fsroot/arm-dynamiq", top);
  check_kinds(root, "arm-dynamiq", "capacity1024:7;capacity871:4,5,6;capacity446:0,1,2,3");
  snprintf(root, sizeof root, "%s/tests/data/fsroot/zen4-genoa", top);
  check_kinds(root, "zen4-genoa", "");
  snprintf(root, sizeof root, "%s/tests/data/fsroot/smt-reordered", top);
  check_kinds(root, "smt-reordered", "");
  /* A guest says so in /proc/cpuinfo's flags (x86); a tree without the
   * flag, or without a cpuinfo, is not one. */
  {
    static const struct {
      const char *tree;
      int want;
    } g[] = { { "zen4-genoa", 1 }, { "smt-reordered", 0 }, { "no-such-tree", 0 } };
    for (i = 0; i < sizeof g / sizeof *g; i++) {
      int got;
      snprintf(root, sizeof root, "%s/tests/data/fsroot/%s", top, g[i].tree);
      setenv("XRAY_FSROOT", root, 1);
      got = xray__os_guest();
      if (x86)
        tap_ok(got == g[i].want, "%s: under a hypervisor %d (want %d)", g[i].tree, got, g[i].want);
      else
        tap_ok(got == 0, "%s: under a hypervisor %d (x86's flag only: want 0)", g[i].tree, got);
    }
  }
  /* Unset, the live system answers again: its page size from sysconf. */
  unsetenv("XRAY_FSROOT");
  {
    double v = -1;
    char src[64] = "";
    int rc = xray__os_read("XRAY_PAGE_SIZE", &v, src, sizeof src);
    tap_ok(rc == 0 && v >= 1024 && strcmp(src, "sysconf") == 0,
           "XRAY_FSROOT unset: the live page size %g from %s", v, src);
  }
  check_pins();
  return tap_done();
}
