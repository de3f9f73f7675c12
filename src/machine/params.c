/* Every value xray reports, once: its name, unit, description, the probe
 * that owns it, and what it is (enum xray__what, with its level and
 * arg).  Probes add their values through this table (xray__report_param),
 * so that each is spelled here only; the OS view (os.c), the simulator's
 * truth (sim/) and the rules of run/probe.c answer from a value's row,
 * never from its name; and tests/unit/test-params.c checks the probes,
 * xray(1) and the macros against it. */
#include "machine/machine.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* A row marked XRAY__IN_CYCLES is counted in core cycles (a latency, a
 * rate per cycle): without the core clock it has no figure; one marked
 * XRAY__LATENCY too is a latency, at least one cycle; one marked
 * XRAY__OS_SETTLES the OS gets right where it gives it (run/probe.c).
 * Families: <n> is a level (2, 3, ...), <TYPE>_<OP> an operation of
 * --ops; their descriptions take the level, or the type and the operator,
 * for the %s. */
static const struct xray__param params[] = {
  { "XRAY_L1I_SIZE", "bytes", "L1 instruction cache capacity", "icache", XRAY__OS_SETTLES,
    XRAY__W_CACHE_SIZE, XRAY__LEVEL_INSN, 0 },
  { "XRAY_L1I_ASSOC", "ways", "L1 instruction cache associativity", "icache", XRAY__OS_SETTLES,
    XRAY__W_CACHE_ASSOC, XRAY__LEVEL_INSN, 0 },
  { "XRAY_L1I_LINE", "bytes", "L1 instruction cache line size", "icache", XRAY__OS_SETTLES,
    XRAY__W_CACHE_LINE, XRAY__LEVEL_INSN, 0 },
  { "XRAY_UOP_CACHE_OPS", "ops", "decoded-op cache capacity (0: none found)", "icache", 0,
    XRAY__W_UOP_OPS, 0, 0 },
  { "XRAY_L1D_SIZE", "bytes", "L1 data cache capacity", "dcache", XRAY__OS_SETTLES,
    XRAY__W_CACHE_SIZE, 1, 0 },
  { "XRAY_L1D_ASSOC", "ways", "L1 data cache associativity", "dcache", XRAY__OS_SETTLES,
    XRAY__W_CACHE_ASSOC, 1, 0 },
  { "XRAY_L1D_LINE", "bytes", "L1 data cache line size", "dcache", XRAY__OS_SETTLES,
    XRAY__W_CACHE_LINE, 1, 0 },
  { "XRAY_L1D_LATENCY", "cycles", "L1 data cache load-to-use latency", "dcache",
    XRAY__IN_CYCLES | XRAY__LATENCY, XRAY__W_CACHE_LATENCY, 1, 0 },
  { "XRAY_CACHE_LEVELS", "levels", "data or unified cache levels, L1 included", "caches",
    XRAY__OS_SETTLES, XRAY__W_CACHE_LEVELS, 0, 0 },
  { "XRAY_L<n>_SIZE", "bytes", "L%s cache capacity", "caches", XRAY__OS_SETTLES, XRAY__W_CACHE_SIZE,
    2, 0 },
  { "XRAY_L<n>_ASSOC", "ways", "L%s cache associativity", "caches", XRAY__OS_SETTLES,
    XRAY__W_CACHE_ASSOC, 2, 0 },
  { "XRAY_L<n>_LINE", "bytes", "L%s cache line size", "caches", 0, XRAY__W_CACHE_LINE, 2, 0 },
  { "XRAY_L<n>_LATENCY", "cycles", "L%s cache load-to-use latency", "caches",
    XRAY__IN_CYCLES | XRAY__LATENCY, XRAY__W_CACHE_LATENCY, 2, 0 },
  { "XRAY_MEM_LATENCY", "cycles", "memory load-to-use latency", "caches",
    XRAY__IN_CYCLES | XRAY__LATENCY, XRAY__W_MEM_LATENCY, 0, 0 },
  { "XRAY_PAGE_SIZE", "bytes", "base page size seen by the TLB", "tlb", XRAY__OS_SETTLES,
    XRAY__W_PAGE_SIZE, 0, 0 },
  { "XRAY_DTLB_ENTRIES", "entries", "first-level data TLB entries", "tlb", XRAY__OS_SETTLES,
    XRAY__W_TLB_ENTRIES, 1, 0 },
  { "XRAY_DTLB_ASSOC", "ways", "first-level data TLB associativity", "tlb", XRAY__OS_SETTLES,
    XRAY__W_TLB_ASSOC, 1, 0 },
  { "XRAY_L2TLB_ENTRIES", "entries", "second-level TLB entries", "tlb", 0, XRAY__W_TLB_ENTRIES, 2,
    0 },
  { "XRAY_L2TLB_ASSOC", "ways", "second-level TLB associativity", "tlb", 0, XRAY__W_TLB_ASSOC, 2,
    0 },
  { "XRAY_DTLB_MISS_LATENCY", "cycles", "cost of a first-level miss that hits the second level",
    "tlb", XRAY__IN_CYCLES | XRAY__LATENCY, XRAY__W_TLB_HIT2, 0, 0 },
  { "XRAY_TLB_MISS_LATENCY", "cycles", "cost of a miss in every TLB level (page walk)", "tlb",
    XRAY__IN_CYCLES | XRAY__LATENCY, XRAY__W_TLB_WALK, 0, 0 },
  { "XRAY_CPU_MHZ", "MHz", "core clock", "freq", 0, XRAY__W_CPU_MHZ, 0, 0 },
  { "XRAY_TSC_MHZ", "MHz", "time-stamp counter rate", "freq", 0, XRAY__W_TSC_MHZ, 0, 0 },
  { "XRAY_LAT_<TYPE>_<OP>", "cycles", "latency of %s %s", "latency",
    XRAY__IN_CYCLES | XRAY__LATENCY, XRAY__W_OP, 0, 0 },
  { "XRAY_II_<TYPE>_<OP>", "cycles per op", "initiation interval of %s %s", "throughput",
    XRAY__IN_CYCLES, XRAY__W_OP, 0, 0 },
  { "XRAY_HAVE_FMA", "boolean", "the compiler fuses a+b*c at these flags", "fma", 0,
    XRAY__W_FMA_FUSES, 0, 0 },
  { "XRAY_HAVE_FMA_ISA", "boolean", "the processor executes a fused multiply-add", "fma", 0,
    XRAY__W_FMA_ISA, 0, 0 },
  { "XRAY_FMA_LATENCY", "cycles", "fused multiply-add latency", "fma",
    XRAY__IN_CYCLES | XRAY__LATENCY, XRAY__W_FMA_LATENCY, 0, 0 },
  { "XRAY_FMA_PER_CYCLE", "ops", "fused multiply-adds started per cycle", "fma", XRAY__IN_CYCLES,
    XRAY__W_FMA_RATE, 0, 0 },
  { "XRAY_BRANCH_MISS_PENALTY", "cycles", "cycles a mispredicted conditional branch costs",
    "branch", XRAY__IN_CYCLES, XRAY__W_BRANCH_PENALTY, 0, 0 },
  { "XRAY_L1D_LRU", "boolean",
    "the L1D evicts by recency, LRU or close (starting each sweep a block later pays)", "lru", 0,
    XRAY__W_LRU, 1, 0 },
  { "XRAY_BW_WIDTH", "bytes", "vector width the bandwidth kernels load and store at these flags",
    "bandwidth", 0, XRAY__W_BW_WIDTH, 0, 0 },
  { "XRAY_BW_L<n>_READ", "bytes/cycle", "L%s bandwidth, one core: reads", "bandwidth",
    XRAY__IN_CYCLES, XRAY__W_BW, 1, XRAY__SK_READ },
  { "XRAY_BW_L<n>_READ_ALL", "bytes/cycle", "L%s bandwidth, every core at once: reads", "bandwidth",
    XRAY__IN_CYCLES, XRAY__W_BW, 1, XRAY__SK_READ | XRAY__ALL_CORES },
  { "XRAY_BW_L<n>_WRITE", "bytes/cycle", "L%s bandwidth, one core: writes", "bandwidth",
    XRAY__IN_CYCLES, XRAY__W_BW, 1, XRAY__SK_WRITE },
  { "XRAY_BW_L<n>_WRITE_ALL", "bytes/cycle", "L%s bandwidth, every core at once: writes",
    "bandwidth", XRAY__IN_CYCLES, XRAY__W_BW, 1, XRAY__SK_WRITE | XRAY__ALL_CORES },
  { "XRAY_BW_L<n>_COPY", "bytes/cycle", "L%s bandwidth, one core: copies", "bandwidth",
    XRAY__IN_CYCLES, XRAY__W_BW, 1, XRAY__SK_COPY },
  { "XRAY_BW_L<n>_COPY_ALL", "bytes/cycle", "L%s bandwidth, every core at once: copies",
    "bandwidth", XRAY__IN_CYCLES, XRAY__W_BW, 1, XRAY__SK_COPY | XRAY__ALL_CORES },
  { "XRAY_BW_L<n>_TRIAD", "bytes/cycle", "L%s bandwidth, one core: STREAM triad", "bandwidth",
    XRAY__IN_CYCLES, XRAY__W_BW, 1, XRAY__SK_TRIAD },
  { "XRAY_BW_L<n>_TRIAD_ALL", "bytes/cycle", "L%s bandwidth, every core at once: STREAM triad",
    "bandwidth", XRAY__IN_CYCLES, XRAY__W_BW, 1, XRAY__SK_TRIAD | XRAY__ALL_CORES },
  { "XRAY_BW_MEM_READ", "bytes/cycle", "memory bandwidth, one core: reads", "bandwidth",
    XRAY__IN_CYCLES, XRAY__W_BW, XRAY__LEVEL_MEM, XRAY__SK_READ },
  { "XRAY_BW_MEM_READ_ALL", "bytes/cycle", "memory bandwidth, every core at once: reads",
    "bandwidth", XRAY__IN_CYCLES, XRAY__W_BW, XRAY__LEVEL_MEM, XRAY__SK_READ | XRAY__ALL_CORES },
  { "XRAY_BW_MEM_WRITE", "bytes/cycle", "memory bandwidth, one core: writes", "bandwidth",
    XRAY__IN_CYCLES, XRAY__W_BW, XRAY__LEVEL_MEM, XRAY__SK_WRITE },
  { "XRAY_BW_MEM_WRITE_ALL", "bytes/cycle", "memory bandwidth, every core at once: writes",
    "bandwidth", XRAY__IN_CYCLES, XRAY__W_BW, XRAY__LEVEL_MEM, XRAY__SK_WRITE | XRAY__ALL_CORES },
  { "XRAY_BW_MEM_COPY", "bytes/cycle", "memory bandwidth, one core: copies", "bandwidth",
    XRAY__IN_CYCLES, XRAY__W_BW, XRAY__LEVEL_MEM, XRAY__SK_COPY },
  { "XRAY_BW_MEM_COPY_ALL", "bytes/cycle", "memory bandwidth, every core at once: copies",
    "bandwidth", XRAY__IN_CYCLES, XRAY__W_BW, XRAY__LEVEL_MEM, XRAY__SK_COPY | XRAY__ALL_CORES },
  { "XRAY_BW_MEM_TRIAD", "bytes/cycle", "memory bandwidth, one core: STREAM triad", "bandwidth",
    XRAY__IN_CYCLES, XRAY__W_BW, XRAY__LEVEL_MEM, XRAY__SK_TRIAD },
  { "XRAY_BW_MEM_TRIAD_ALL", "bytes/cycle", "memory bandwidth, every core at once: STREAM triad",
    "bandwidth", XRAY__IN_CYCLES, XRAY__W_BW, XRAY__LEVEL_MEM, XRAY__SK_TRIAD | XRAY__ALL_CORES },
  { "XRAY_BW_MEM_WRITE_NT", "bytes/cycle", "memory bandwidth, one core: non-temporal writes",
    "bandwidth", XRAY__IN_CYCLES, XRAY__W_BW, XRAY__LEVEL_MEM, XRAY__SK_WRITE_NT },
  { "XRAY_BW_MEM_WRITE_NT_ALL", "bytes/cycle",
    "memory bandwidth, every core at once: non-temporal writes", "bandwidth", XRAY__IN_CYCLES,
    XRAY__W_BW, XRAY__LEVEL_MEM, XRAY__SK_WRITE_NT | XRAY__ALL_CORES },
  { "XRAY_L<n>_SHARED_BY", "CPUs", "usable CPUs sharing the L%s with the first (itself too)",
    "sharing", 0, XRAY__W_SHARED_BY, 1, 0 },
  { "XRAY_C2C_LATENCY", "cycles",
    "round trip of a written line between the first usable CPU and another core", "sharing",
    XRAY__IN_CYCLES | XRAY__LATENCY, XRAY__W_C2C, 0, 0 },
  { "XRAY_DESTRUCTIVE_INTERFERENCE", "bytes",
    "least distance at which writes of two cores stop slowing each other", "interference", 0,
    XRAY__W_DESTRUCTIVE, 0, 0 },
  { "XRAY_CONSTRUCTIVE_INTERFERENCE", "bytes",
    "the aligned block a load that misses brings in whole (a line, or more)", "interference", 0,
    XRAY__W_CONSTRUCTIVE, 0, 0 },
  { "XRAY_NUM_INT_REGS", "registers", "integer registers usable for variables", "registers", 0,
    XRAY__W_REGS, 0, 0 },
  { "XRAY_NUM_FP_REGS", "registers", "floating-point registers usable for variables", "registers",
    0, XRAY__W_REGS, 0, 1 },
  { "XRAY_NUM_VEC_REGS", "registers", "vector registers usable for variables", "registers", 0,
    XRAY__W_REGS, 0, 2 },
  { "XRAY_NUM_CPUS", "CPUs", "CPUs this process may use", "cores", 0, XRAY__W_NUM_CPUS, 0, 0 },
  { "XRAY_NUM_CORES", "cores", "physical cores among them", "cores", 0, XRAY__W_NUM_CORES, 0, 0 },
  { "XRAY_SMT_WAYS", "threads", "hardware threads per core", "cores", 0, XRAY__W_SMT_WAYS, 0, 0 },
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
xray__param_match(const char *name, int *level)
{
  const struct xray__param *p = xray__param_find(name);
  const char *lt;

  *level = 0;
  if (!p)
    return NULL;
  *level = p->level;
  if ((lt = strstr(p->name, "<n>"))) {
    *level = atoi(name + (lt - p->name));
    if (*level < p->level)
      return NULL;
  }
  return p;
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
