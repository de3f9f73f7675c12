/* x86-64 and i386: the time-stamp counter, the FMA3 kernel, and the TLBs
 * and L1 caches the CPUID leaves describe (see isa.h). */
#include "isa.h"

#if defined(__x86_64__) || defined(__i386__)

#include <stddef.h>
#if defined(__GNUC__)
#include <cpuid.h>
#endif

const char xray__isa_tick_source[] = "tsc";

uint64_t
xray__isa_ticks(void)
{
  uint32_t lo, hi;
  /* lfence keeps earlier instructions from drifting past the read. */
  __asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) : : "memory");
  return ((uint64_t) hi << 32) | lo;
}

double
xray__isa_tick_hz(void)
{
  return 0;
}

const char *const xray__isa_fma_flag = "fma";

#if defined(__x86_64__)
const char *const xray__isa_fma_name = "x86-64 FMA3 (vfmadd231sd)";
static const double fma_in[2] = { 0.5, 0.25 };
#define F1(a) "vfmadd231sd %%xmm13, %%xmm12, %%xmm" #a "\n\t"
void
xray__isa_fma_loop(int chains, uint64_t iters)
{
  if (chains == 1)
    __asm__ __volatile__("vmovsd (%1), %%xmm12\n\tvmovsd 8(%1), %%xmm13\n\t"
                         "vxorpd %%xmm0, %%xmm0, %%xmm0\n"
                         "1:\n\t" F1(0) F1(0) F1(0) F1(0) F1(0) F1(0) F1(0) F1(0) F1(0) F1(0) F1(0)
                             F1(0) "dec %0\n\tjnz 1b"
                         : "+r"(iters)
                         : "r"(fma_in)
                         : "xmm0", "xmm12", "xmm13", "cc", "memory");
  else
    __asm__ __volatile__("vmovsd (%1), %%xmm12\n\tvmovsd 8(%1), %%xmm13\n\t"
                         "vxorpd %%xmm0, %%xmm0, %%xmm0\n\tvmovapd %%xmm0, %%xmm1\n\t"
                         "vmovapd %%xmm0, %%xmm2\n\tvmovapd %%xmm0, %%xmm3\n\t"
                         "vmovapd %%xmm0, %%xmm4\n\tvmovapd %%xmm0, %%xmm5\n\t"
                         "vmovapd %%xmm0, %%xmm6\n\tvmovapd %%xmm0, %%xmm7\n\t"
                         "vmovapd %%xmm0, %%xmm8\n\tvmovapd %%xmm0, %%xmm9\n\t"
                         "vmovapd %%xmm0, %%xmm10\n\tvmovapd %%xmm0, %%xmm11\n"
                         "1:\n\t" F1(0) F1(1) F1(2) F1(3) F1(4) F1(5) F1(6) F1(7) F1(8) F1(9) F1(10)
                             F1(11) "dec %0\n\tjnz 1b"
                         : "+r"(iters)
                         : "r"(fma_in)
                         : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
                           "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "cc", "memory");
}
#else
const char *const xray__isa_fma_name = NULL;
void
xray__isa_fma_loop(int chains, uint64_t iters)
{
  (void) chains, (void) iters;
}
#endif

int
xray__isa_tlb(int level, unsigned *entries, unsigned *ways)
{
#if defined(__GNUC__)
  /* Fn8000_0006's associativity codes, ways by code (-1 fully). */
  static const int code[16] = { 0, 1, 2, 3, 4, 6, 8, 0, 16, 0, 32, 48, 64, 96, 128, -1 };
  unsigned a, b, c, d, e, w;

  if ((level != 1 && level != 2)
      || !__get_cpuid(level == 1 ? 0x80000005 : 0x80000006, &a, &b, &c, &d))
    return -1;
  e = level == 1 ? (b >> 16) & 0xff : (b >> 16) & 0xfff;
  w = level == 1 ? b >> 24 : b >> 28;
  if (e == 0)
    return -1;
  *entries = e;
  if (level == 1)
    *ways = w == 0xff ? e : w;
  else
    *ways = code[w] < 0 ? e : (unsigned) code[w];
  return 0;
#else
  (void) level, (void) entries, (void) ways;
  return -1;
#endif
}

int
xray__isa_l1(int data, unsigned *size, unsigned *ways, unsigned *line)
{
#if defined(__GNUC__)
  unsigned a, b, c, d, i, r;

  /* AMD: Fn8000_0005 ECX (data) and EDX (instruction): KB, ways (0xff
   * fully associative), line bytes. */
  if (__get_cpuid(0x80000005, &a, &b, &c, &d) && (r = data ? c : d) >> 24 != 0 && (r & 0xff)) {
    *size = (r >> 24) * 1024;
    *line = r & 0xff;
    *ways = ((r >> 16) & 0xff) == 0xff ? *size / *line : (r >> 16) & 0xff;
    return *ways ? 0 : -1;
  }
  /* Leaf 4, one subleaf a cache: type 1 data, 2 instruction; level. */
  if (__get_cpuid_max(0, NULL) < 4)
    return -1;
  for (i = 0; i < 16; i++) {
    __cpuid_count(4, i, a, b, c, d);
    if ((a & 0x1f) == 0)
      break;
    if ((a & 0x1f) == (data ? 1u : 2u) && ((a >> 5) & 7) == 1) {
      *ways = (b >> 22) + 1;
      *line = (b & 0xfff) + 1;
      *size = *ways * (((b >> 12) & 0x3ff) + 1) * *line * (c + 1);
      return 0;
    }
  }
  return -1;
#else
  (void) data, (void) size, (void) ways, (void) line;
  return -1;
#endif
}

#else
typedef int xray__isa_x86_unused; /* ISO C wants a declaration */
#endif
