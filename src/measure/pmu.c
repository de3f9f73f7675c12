/* Hardware event counters through the kernel's interface: perf_event_open
 * for the generic events (perf's names) and raw ones (rHEX), and PAPI for
 * native event names where xray was built with it (--with-papi).
 *
 * Where counters cannot be read, one line says which of the causes it is
 * and how to fix it: no PMU exposed (a virtual machine whose hypervisor
 * does not pass one through), perf_event_paranoid, a container's seccomp
 * profile or a missing capability, a kernel without perf events. */
#ifdef HAVE_CONFIG_H
#include "config.h" /* XRAY__HAVE_PAPI */
#endif
#include "measure/measure.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#define HAVE_PERF 1
#endif
#ifdef XRAY__HAVE_PAPI
#include <papi.h>
#include <pthread.h>
#endif

/* perf's generic names: the hardware events and the hardware cache ones
 * perf stat knows, with their encodings. */
struct generic {
  const char *name;
  unsigned type;
  unsigned long long config;
};

#ifdef HAVE_PERF
#define HWC(cache, op, res)                                                                        \
  ((unsigned long long) (cache) | ((unsigned long long) (op) << 8)                                 \
   | ((unsigned long long) (res) << 16))
static const struct generic generics[] = {
  { "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
  { "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
  { "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
  { "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
  { "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
  { "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
  { "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
  { "L1-dcache-loads", PERF_TYPE_HW_CACHE,
    HWC(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_ACCESS) },
  { "L1-dcache-load-misses", PERF_TYPE_HW_CACHE,
    HWC(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS) },
  { "LLC-loads", PERF_TYPE_HW_CACHE,
    HWC(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_ACCESS) },
  { "LLC-load-misses", PERF_TYPE_HW_CACHE,
    HWC(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS) },
  { "dTLB-load-misses", PERF_TYPE_HW_CACHE,
    HWC(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS) },
  { "branch-loads", PERF_TYPE_HW_CACHE,
    HWC(PERF_COUNT_HW_CACHE_BPU, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_ACCESS) },
  { "branch-load-misses", PERF_TYPE_HW_CACHE,
    HWC(PERF_COUNT_HW_CACHE_BPU, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS) },
  /* The kernel's own, on every machine: they count no branch, and let
   * the counting path be checked where the CPU's PMU is missing. */
  { "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
  { "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
};
#define NGENERIC (sizeof generics / sizeof *generics)

static long
perf_open(unsigned type, unsigned long long config)
{
  struct perf_event_attr a;

  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = type;
  a.config = config;
  a.disabled = 1;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  return syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

/* A small integer from a /proc or /sys file; def if it cannot be read. */
static long
read_long(const char *path, long def)
{
  char buf[32];
  FILE *f = fopen(path, "r");
  long v = def;

  if (f) {
    if (fgets(buf, sizeof buf, f))
      v = strtol(buf, NULL, 10);
    fclose(f);
  }
  return v;
}

static int
under_hypervisor(void)
{
  char line[4096];
  FILE *f = fopen("/proc/cpuinfo", "r");
  int hv = 0;

  while (f && !hv && fgets(line, sizeof line, f))
    hv = strncmp(line, "flags", 5) == 0 && strstr(line, " hypervisor");
  if (f)
    fclose(f);
  return hv;
}
#endif

int
xray__pmu_access(char *why, size_t len)
{
#ifdef HAVE_PERF
  long fd = perf_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS), sw;
  int e = errno;
  long paranoid = read_long("/proc/sys/kernel/perf_event_paranoid", -99);

  if (fd >= 0) {
    close((int) fd);
    return 0;
  }
  if (e == ENOSYS) {
    snprintf(why, len, "this kernel has no perf_event_open (built without CONFIG_PERF_EVENTS)");
    return -1;
  }
  if (e == EACCES || e == EPERM) {
    if (paranoid > 2)
      snprintf(why, len,
               "kernel.perf_event_paranoid is %ld: counting one's own process needs "
               "2 or less (sysctl kernel.perf_event_paranoid=2) or CAP_PERFMON",
               paranoid);
    else
      snprintf(why, len,
               "perf_event_open is forbidden to this process although "
               "perf_event_paranoid is %ld: a container's seccomp profile or a missing "
               "capability (docker: --cap-add PERFMON, or a profile that allows perf_event_open)",
               paranoid);
    return -1;
  }
  sw = perf_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
  if (sw >= 0)
    close((int) sw);
  if ((e == ENOENT || e == EOPNOTSUPP || e == ENODEV) && sw >= 0) {
    snprintf(why, len, "no hardware performance counters: the kernel exposes no CPU PMU%s",
             under_hypervisor() ? " (this is a virtual machine whose hypervisor does not pass "
                                  "one through; KVM/QEMU: -cpu host,pmu=on)"
                                : " (no driver for this CPU's PMU in this kernel)");
    return -1;
  }
  snprintf(why, len, "perf_event_open fails: %s", strerror(e));
  return -1;
#else
  snprintf(why, len, "xray reads counters through Linux's perf_event_open, and this is not Linux");
  return -1;
#endif
}

#ifdef XRAY__HAVE_PAPI
/* PAPI's native events, each with every flag (unit mask) it takes, as
 * papi_native_avail -e lists them; read once a process (pthread_once),
 * then only read. */
static char **natives;
static size_t nnatives;
static pthread_once_t natives_once = PTHREAD_ONCE_INIT;

static void
add_native(int code, size_t *cap)
{
  char name[PAPI_MAX_STR_LEN], **g;

  if (PAPI_event_code_to_name(code, name) != PAPI_OK)
    return;
  if (nnatives == *cap) {
    if (!(g = realloc(natives, (*cap = *cap ? 2 * *cap : 256) * sizeof *g)))
      return;
    natives = g;
  }
  if ((natives[nnatives] = strdup(name)))
    nnatives++;
}

static void
read_natives(void)
{
  size_t cap = 0;
  int code = PAPI_NATIVE_MASK, umask;

  if ((PAPI_is_initialized() == PAPI_NOT_INITED
       && PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
      || PAPI_enum_event(&code, PAPI_ENUM_FIRST) != PAPI_OK)
    return;
  do {
    umask = code;
    if (PAPI_enum_event(&umask, PAPI_NTV_ENUM_UMASKS) == PAPI_OK)
      do
        add_native(umask, &cap);
      while (PAPI_enum_event(&umask, PAPI_NTV_ENUM_UMASKS) == PAPI_OK);
    else
      add_native(code, &cap);
  } while (PAPI_enum_event(&code, PAPI_ENUM_EVENTS) == PAPI_OK);
}
#endif

const char *
xray__pmu_event_at(size_t i)
{
#ifdef HAVE_PERF
  if (i < NGENERIC)
    return generics[i].name;
  i -= NGENERIC;
#endif
#ifdef XRAY__HAVE_PAPI
  pthread_once(&natives_once, read_natives);
  return i < nnatives ? natives[i] : NULL;
#else
  (void) i;
  return NULL;
#endif
}

#ifdef XRAY__HAVE_PAPI
/* A PAPI native event name: counted through PAPI's own event set. */
static double
papi_count(const char *name, void (*run)(void *ctx), void *ctx, char *err, size_t errlen)
{
  int set = PAPI_NULL, rc;
  long long v = 0;

  if (PAPI_is_initialized() == PAPI_NOT_INITED
      && PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
    snprintf(err, errlen, "PAPI cannot be initialised");
    return -1;
  }
  if ((rc = PAPI_create_eventset(&set)) != PAPI_OK
      || (rc = PAPI_add_named_event(set, name)) != PAPI_OK) {
    snprintf(err, errlen, "event '%s': %s", name, PAPI_strerror(rc));
    if (set != PAPI_NULL)
      PAPI_destroy_eventset(&set);
    return -1;
  }
  rc = PAPI_start(set);
  run(ctx);
  if (rc == PAPI_OK)
    rc = PAPI_stop(set, &v);
  PAPI_cleanup_eventset(set);
  PAPI_destroy_eventset(&set);
  if (rc != PAPI_OK) {
    snprintf(err, errlen, "event '%s': %s", name, PAPI_strerror(rc));
    return -1;
  }
  return (double) v;
}
#endif

double
xray__pmu_count(const char *name, void (*run)(void *ctx), void *ctx, char *err, size_t errlen)
{
#ifdef HAVE_PERF
  unsigned type = PERF_TYPE_RAW;
  unsigned long long config = 0, v[3];
  size_t i;
  long fd;
  char *end;

  for (i = 0; i < NGENERIC && strcmp(generics[i].name, name); i++)
    ;
  if (i < NGENERIC) {
    type = generics[i].type;
    config = generics[i].config;
  } else if (name[0] == 'r' && name[1] && (config = strtoull(name + 1, &end, 16), !*end)) {
    type = PERF_TYPE_RAW;
  } else {
#ifdef XRAY__HAVE_PAPI
    return papi_count(name, run, ctx, err, errlen);
#else
    snprintf(err, errlen,
             "unknown event '%s': give a generic one (xray counters --list), a raw "
             "one as rHEX, or build xray with PAPI for native names",
             name);
    return -1;
#endif
  }
  if ((fd = perf_open(type, config)) < 0) {
    snprintf(err, errlen, "event '%s': perf_event_open: %s", name, strerror(errno));
    return -1;
  }
  ioctl((int) fd, PERF_EVENT_IOC_RESET, 0);
  ioctl((int) fd, PERF_EVENT_IOC_ENABLE, 0);
  run(ctx);
  ioctl((int) fd, PERF_EVENT_IOC_DISABLE, 0);
  if (read((int) fd, v, sizeof v) != (ssize_t) sizeof v) {
    close((int) fd);
    snprintf(err, errlen, "event '%s': the count cannot be read", name);
    return -1;
  }
  close((int) fd);
  /* Multiplexed: the count covers v[2] of v[1] nanoseconds; scaled. */
  if (v[2] == 0) {
    snprintf(err, errlen, "event '%s' never got a counter", name);
    return -1;
  }
  return (double) v[0] * ((double) v[1] / (double) v[2]);
#else
  (void) name, (void) run, (void) ctx;
  snprintf(err, errlen,
           "xray reads counters through Linux's perf_event_open, and this is not Linux");
  return -1;
#endif
}
