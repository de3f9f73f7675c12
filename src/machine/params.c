/* Every value xray reports, once: its name, unit, what it is and the
 * probe that owns it.  Probes add their values through this table
 * (xray__report_param), so that each is spelled here only; the OS view
 * and the simulator answer for its names only (xray__os_view); and
 * tests/unit/test-params.c checks the probes, xray(1) and the macros
 * against it. */
#include "xray-internal.h"

#include <ctype.h>
#include <string.h>

/* A row marked XRAY__IN_CYCLES is counted in core cycles (a latency, a
 * rate per cycle): without the core clock it has no figure; one marked
 * XRAY__LATENCY too is a latency, at least one cycle (run/probe.c).
 * Families: <n> is a level (2, 3, ...), <TYPE>_<OP> an operation of
 * --ops; their descriptions take the level, or the type and the operator,
 * for the %s. */
static const struct xray__param params[] = {
  { "XRAY_L1I_SIZE", "bytes", "L1 instruction cache capacity", "icache", 0 },
  { "XRAY_L1I_ASSOC", "ways", "L1 instruction cache associativity", "icache", 0 },
  { "XRAY_L1I_LINE", "bytes", "L1 instruction cache line size", "icache", 0 },
  { "XRAY_UOP_CACHE_OPS", "ops", "decoded-op cache capacity (0: none found)", "icache", 0 },
  { "XRAY_L1D_SIZE", "bytes", "L1 data cache capacity", "dcache", 0 },
  { "XRAY_L1D_ASSOC", "ways", "L1 data cache associativity", "dcache", 0 },
  { "XRAY_L1D_LINE", "bytes", "L1 data cache line size", "dcache", 0 },
  { "XRAY_L1D_LATENCY", "cycles", "L1 data cache load-to-use latency", "dcache",
    XRAY__IN_CYCLES | XRAY__LATENCY },
  { "XRAY_CACHE_LEVELS", "levels", "data or unified cache levels, L1 included", "caches", 0 },
  { "XRAY_L<n>_SIZE", "bytes", "L%s cache capacity", "caches", 0 },
  { "XRAY_L<n>_ASSOC", "ways", "L%s cache associativity", "caches", 0 },
  { "XRAY_L<n>_LINE", "bytes", "L%s cache line size", "caches", 0 },
  { "XRAY_L<n>_LATENCY", "cycles", "L%s cache load-to-use latency", "caches",
    XRAY__IN_CYCLES | XRAY__LATENCY },
  { "XRAY_MEM_LATENCY", "cycles", "memory load-to-use latency", "caches",
    XRAY__IN_CYCLES | XRAY__LATENCY },
  { "XRAY_PAGE_SIZE", "bytes", "base page size seen by the TLB", "tlb", 0 },
  { "XRAY_DTLB_ENTRIES", "entries", "first-level data TLB entries", "tlb", 0 },
  { "XRAY_DTLB_ASSOC", "ways", "first-level data TLB associativity", "tlb", 0 },
  { "XRAY_L2TLB_ENTRIES", "entries", "second-level TLB entries", "tlb", 0 },
  { "XRAY_L2TLB_ASSOC", "ways", "second-level TLB associativity", "tlb", 0 },
  { "XRAY_DTLB_MISS_LATENCY", "cycles", "cost of a first-level miss that hits the second level",
    "tlb", XRAY__IN_CYCLES | XRAY__LATENCY },
  { "XRAY_TLB_MISS_LATENCY", "cycles", "cost of a miss in every TLB level (page walk)", "tlb",
    XRAY__IN_CYCLES | XRAY__LATENCY },
  { "XRAY_CPU_MHZ", "MHz", "core clock", "freq", 0 },
  { "XRAY_TSC_MHZ", "MHz", "time-stamp counter rate", "freq", 0 },
  { "XRAY_LAT_<TYPE>_<OP>", "cycles", "latency of %s %s", "latency",
    XRAY__IN_CYCLES | XRAY__LATENCY },
  { "XRAY_II_<TYPE>_<OP>", "cycles per op", "initiation interval of %s %s", "throughput",
    XRAY__IN_CYCLES },
  { "XRAY_HAVE_FMA", "boolean", "the compiler fuses a+b*c at these flags", "fma", 0 },
  { "XRAY_HAVE_FMA_ISA", "boolean", "the processor executes a fused multiply-add", "fma", 0 },
  { "XRAY_FMA_LATENCY", "cycles", "fused multiply-add latency", "fma",
    XRAY__IN_CYCLES | XRAY__LATENCY },
  { "XRAY_FMA_PER_CYCLE", "ops", "fused multiply-adds started per cycle", "fma", XRAY__IN_CYCLES },
  { "XRAY_BRANCH_MISS_PENALTY", "cycles", "cycles a mispredicted conditional branch costs",
    "branch", XRAY__IN_CYCLES },
  { "XRAY_L1D_LRU", "boolean",
    "the L1D evicts by recency, LRU or close (starting each sweep a block later pays)", "lru", 0 },
  { "XRAY_BW_WIDTH", "bytes", "vector width the bandwidth kernels load and store at these flags",
    "bandwidth", 0 },
  { "XRAY_BW_L<n>_READ", "bytes/cycle", "L%s bandwidth, one core: reads", "bandwidth",
    XRAY__IN_CYCLES },
  { "XRAY_BW_L<n>_READ_ALL", "bytes/cycle", "L%s bandwidth, every core at once: reads", "bandwidth",
    XRAY__IN_CYCLES },
  { "XRAY_BW_L<n>_WRITE", "bytes/cycle", "L%s bandwidth, one core: writes", "bandwidth",
    XRAY__IN_CYCLES },
  { "XRAY_BW_L<n>_WRITE_ALL", "bytes/cycle", "L%s bandwidth, every core at once: writes",
    "bandwidth", XRAY__IN_CYCLES },
  { "XRAY_BW_L<n>_COPY", "bytes/cycle", "L%s bandwidth, one core: copies", "bandwidth",
    XRAY__IN_CYCLES },
  { "XRAY_BW_L<n>_COPY_ALL", "bytes/cycle", "L%s bandwidth, every core at once: copies",
    "bandwidth", XRAY__IN_CYCLES },
  { "XRAY_BW_L<n>_TRIAD", "bytes/cycle", "L%s bandwidth, one core: STREAM triad", "bandwidth",
    XRAY__IN_CYCLES },
  { "XRAY_BW_L<n>_TRIAD_ALL", "bytes/cycle", "L%s bandwidth, every core at once: STREAM triad",
    "bandwidth", XRAY__IN_CYCLES },
  { "XRAY_BW_MEM_READ", "bytes/cycle", "memory bandwidth, one core: reads", "bandwidth",
    XRAY__IN_CYCLES },
  { "XRAY_BW_MEM_READ_ALL", "bytes/cycle", "memory bandwidth, every core at once: reads",
    "bandwidth", XRAY__IN_CYCLES },
  { "XRAY_BW_MEM_WRITE", "bytes/cycle", "memory bandwidth, one core: writes", "bandwidth",
    XRAY__IN_CYCLES },
  { "XRAY_BW_MEM_WRITE_ALL", "bytes/cycle", "memory bandwidth, every core at once: writes",
    "bandwidth", XRAY__IN_CYCLES },
  { "XRAY_BW_MEM_COPY", "bytes/cycle", "memory bandwidth, one core: copies", "bandwidth",
    XRAY__IN_CYCLES },
  { "XRAY_BW_MEM_COPY_ALL", "bytes/cycle", "memory bandwidth, every core at once: copies",
    "bandwidth", XRAY__IN_CYCLES },
  { "XRAY_BW_MEM_TRIAD", "bytes/cycle", "memory bandwidth, one core: STREAM triad", "bandwidth",
    XRAY__IN_CYCLES },
  { "XRAY_BW_MEM_TRIAD_ALL", "bytes/cycle", "memory bandwidth, every core at once: STREAM triad",
    "bandwidth", XRAY__IN_CYCLES },
  { "XRAY_BW_MEM_WRITE_NT", "bytes/cycle", "memory bandwidth, one core: non-temporal writes",
    "bandwidth", XRAY__IN_CYCLES },
  { "XRAY_BW_MEM_WRITE_NT_ALL", "bytes/cycle",
    "memory bandwidth, every core at once: non-temporal writes", "bandwidth", XRAY__IN_CYCLES },
  { "XRAY_L<n>_SHARED_BY", "CPUs", "usable CPUs sharing the L%s with the first (itself too)",
    "sharing", 0 },
  { "XRAY_C2C_LATENCY", "cycles",
    "round trip of a written line between the first usable CPU and another core", "sharing",
    XRAY__IN_CYCLES | XRAY__LATENCY },
  { "XRAY_DESTRUCTIVE_INTERFERENCE", "bytes",
    "least distance at which writes of two cores stop slowing each other", "interference", 0 },
  { "XRAY_CONSTRUCTIVE_INTERFERENCE", "bytes",
    "the aligned block a load that misses brings in whole (a line, or more)", "interference", 0 },
  { "XRAY_NUM_INT_REGS", "registers", "integer registers usable for variables", "registers", 0 },
  { "XRAY_NUM_FP_REGS", "registers", "floating-point registers usable for variables", "registers",
    0 },
  { "XRAY_NUM_VEC_REGS", "registers", "vector registers usable for variables", "registers", 0 },
  { "XRAY_NUM_CPUS", "CPUs", "CPUs this process may use", "cores", 0 },
  { "XRAY_NUM_CORES", "cores", "physical cores among them", "cores", 0 },
  { "XRAY_SMT_WAYS", "threads", "hardware threads per core", "cores", 0 },
};

const struct xray__param *
xray__param_at(size_t i)
{
  return i < sizeof params / sizeof *params ? &params[i] : NULL;
}

/* Whether name is of the family pattern: the text before the first '<'
 * and after the last '>' match, and between them stands a level (digits)
 * for <n>, anything not empty for the rest. */
static int
in_family(const char *pattern, const char *name)
{
  const char *lt = strchr(pattern, '<'), *gt = strrchr(pattern, '>');
  size_t pre, post, n = strlen(name), i;

  if (!lt || !gt)
    return 0;
  pre = (size_t) (lt - pattern);
  post = strlen(gt + 1);
  if (n <= pre + post || strncmp(name, pattern, pre) != 0 || strcmp(name + n - post, gt + 1) != 0)
    return 0;
  if (strncmp(lt, "<n>", 3) == 0)
    for (i = pre; i < n - post; i++)
      if (!isdigit((unsigned char) name[i]))
        return 0;
  return 1;
}

const struct xray__param *
xray__param_find(const char *name)
{
  size_t i;

  for (i = 0; i < sizeof params / sizeof *params; i++)
    if (!strchr(params[i].name, '<') && strcmp(params[i].name, name) == 0)
      return &params[i];
  for (i = 0; i < sizeof params / sizeof *params; i++)
    if (strchr(params[i].name, '<') && in_family(params[i].name, name))
      return &params[i];
  return NULL;
}
