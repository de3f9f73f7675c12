/* AArch64: the virtual counter and the fmadd kernel (see isa.h). */
#include "isa.h"

#if defined(__aarch64__)

#include <stddef.h>

const char xray__isa_tick_source[] = "cntvct";

uint64_t
xray__isa_ticks(void)
{
  uint64_t v;
  __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
  return v;
}

double
xray__isa_tick_hz(void)
{
  return 0;
}

const char *const xray__isa_fma_name = "AArch64 fmadd";
const char *const xray__isa_fma_flag = NULL;
static const double fma_in[2] = { 0.5, 0.25 };
#define F1(a) "fmadd d" #a ", d12, d13, d" #a "\n\t"
void
xray__isa_fma_loop(int chains, uint64_t iters)
{
  if (chains == 1)
    __asm__ __volatile__("ldp d12, d13, [%1]\n\tmovi d0, #0\n"
                         "1:\n\t" F1(0) F1(0) F1(0) F1(0) F1(0) F1(0) F1(0) F1(0) F1(0) F1(0) F1(0)
                             F1(0) "subs %0, %0, #1\n\tb.ne 1b"
                         : "+r"(iters)
                         : "r"(fma_in)
                         : "d0", "d12", "d13", "cc", "memory");
  else
    __asm__ __volatile__("ldp d12, d13, [%1]\n\tmovi d0, #0\n\tmovi d1, #0\n\tmovi d2, #0\n\t"
                         "movi d3, #0\n\tmovi d4, #0\n\tmovi d5, #0\n\tmovi d6, #0\n\t"
                         "movi d7, #0\n\tmovi d8, #0\n\tmovi d9, #0\n\tmovi d10, #0\n\t"
                         "movi d11, #0\n"
                         "1:\n\t" F1(0) F1(1) F1(2) F1(3) F1(4) F1(5) F1(6) F1(7) F1(8) F1(9) F1(10)
                             F1(11) "subs %0, %0, #1\n\tb.ne 1b"
                         : "+r"(iters)
                         : "r"(fma_in)
                         : "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10", "d11",
                           "d12", "d13", "cc", "memory");
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
typedef int xray__isa_aarch64_unused; /* ISO C wants a declaration */
#endif
