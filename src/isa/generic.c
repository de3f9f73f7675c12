/* Every other ISA: CLOCK_MONOTONIC for ticks, no FMA kernel, no TLB
 * description (see isa.h). */
#include "isa.h"

#if !defined(__x86_64__) && !defined(__i386__) && !defined(__aarch64__)

#include <stddef.h>
#include <time.h>

const char xray__isa_tick_source[] = "clock_gettime";

uint64_t
xray__isa_ticks(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

double
xray__isa_tick_hz(void)
{
  return 1e9;
}

const char *const xray__isa_fma_name = NULL;
const char *const xray__isa_fma_flag = NULL;

void
xray__isa_fma_loop(int chains, uint64_t iters)
{
  (void) chains, (void) iters;
}

int
xray__isa_tlb(int level, unsigned *entries, unsigned *ways)
{
  (void) level, (void) entries, (void) ways;
  return -1;
}

int
xray__isa_l1(int data, unsigned *size, unsigned *ways, unsigned *line)
{
  (void) data, (void) size, (void) ways, (void) line;
  return -1;
}

#else
typedef int xray__isa_generic_unused; /* ISO C wants a declaration */
#endif
