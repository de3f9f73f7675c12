/* Tick source: the cheapest monotonic counter the ISA offers, and its rate.
 *
 * x86-64 reads the TSC, aarch64 the virtual counter, everything else
 * clock_gettime(CLOCK_MONOTONIC).  The TSC is not the core clock on modern
 * parts (2445 MHz TSC against a 3245 MHz core on our reference machine), so
 * core cycles come from xray__calibrate_core(), never from this rate. */
#include "xray-internal.h"

#include <time.h>

uint64_t
xray__ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
  uint32_t lo, hi;
  /* lfence keeps earlier instructions from drifting past the read. */
  __asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) : : "memory");
  return ((uint64_t) hi << 32) | lo;
#elif defined(__aarch64__)
  uint64_t v;
  __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
  return v;
#else
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
#endif
}

const char *
xray__tick_source(void)
{
#if defined(__x86_64__) || defined(__i386__)
  return "tsc";
#elif defined(__aarch64__)
  return "cntvct";
#else
  return "clock_gettime";
#endif
}

double
xray__now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

/* Ticks per second, against CLOCK_MONOTONIC over about 20 ms.  Both clocks
 * keep running through a preemption, so a long spin is accurate here where
 * it would not be for timing a kernel. */
double
xray__tick_hz(void)
{
  static double hz;
  double t0, t1;
  uint64_t k0, k1;

  if (hz > 0)
    return hz;
#if !defined(__x86_64__) && !defined(__i386__) && !defined(__aarch64__)
  hz = 1e9;
  return hz;
#else
  t0 = xray__now();
  k0 = xray__ticks();
  do
    t1 = xray__now();
  while (t1 - t0 < 0.02);
  k1 = xray__ticks();
  hz = (double) (k1 - k0) / (t1 - t0);
  return hz;
#endif
}
