/* Ticks and time: the rate of the ISA's tick counter (isa/), and the wall
 * clock.
 *
 * The TSC is not the core clock on modern parts (its rate is fixed, the
 * core's moves with load and temperature), so core cycles come from
 * xray__calibrate_core(), never from this rate. */
#include "measure/measure.h"

#include <pthread.h>
#include <time.h>

double
xray__now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

/* Ticks per second: the ISA's where it fixes one, else against
 * CLOCK_MONOTONIC over about 20 ms.  Both clocks keep running through a
 * preemption, so a long spin is accurate here where it would not be for
 * timing a kernel.  Measured once a process (pthread_once: every thread
 * and machine then converts with the same rate). */
static double hz;
static pthread_once_t hz_once = PTHREAD_ONCE_INIT;

static void
find_hz(void)
{
  double t0, t1;
  uint64_t k0, k1;

  if ((hz = xray__isa_tick_hz()) > 0)
    return;
  t0 = xray__now();
  k0 = xray__isa_ticks();
  do
    t1 = xray__now();
  while (t1 - t0 < 0.02);
  k1 = xray__isa_ticks();
  hz = (double) (k1 - k0) / (t1 - t0);
}

double
xray__tick_hz(void)
{
  pthread_once(&hz_once, find_hz);
  return hz;
}
