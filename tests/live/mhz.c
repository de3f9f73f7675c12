/* An independent measure of the core clock, for tests/live/freq.test and
 * bench/freq.sh: a chain of dependent adds (inline asm, x86-64) timed with
 * clock_gettime, 40 bursts 2.5 ms apart, each the fastest of 8 windows of
 * 65536 adds, after a 50 ms spin.  Prints the clock, the median of the
 * fastest bursts of the four quarters of the run (the statistic xray
 * reports: a rise for a moment is not the clock), and the median burst,
 * in MHz: apart, the clock moved.  A window lasts about 20 us: the clock
 * read inside it costs some nanoseconds, and a guest's clock may advance
 * in steps of 10 ns, which would be 0.2 % of a 5 us window. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double
now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
static int
up(const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}
int
main(void)
{
  double burst[40], quarter[4] = { 0 }, t0 = now();
  long x = 0, y = 1;
  int b, w, i;
  /* An idle core runs slow for a while: spin first, as xray does. */
  while (now() - t0 < 0.05)
    ;
  /* 40 bursts 2.5 ms apart, each the fastest of 8 windows. */
  for (b = 0; b < 40; b++) {
    double start = now(), best = 1e9;
    for (w = 0; w < 8; w++) {
      double t1 = now();
      /* A long body: some cores (Intel's Ice Lake) lose a cycle at the
         loop's taken branch even in a latency-bound chain, which a short
         body would count as a slower clock. */
      for (i = 0; i < 64; i++)
        __asm__ __volatile__(".rept 1024\n\tadd %1, %0\n\t.endr" : "+r"(x) : "r"(y));
      double t = now() - t1;
      if (t < best)
        best = t;
    }
    burst[b] = 65536.0 / best / 1e6;
    while (now() - start < 0.0025)
      ;
  }
  /* Each quarter's fastest burst; the clock is their median. */
  for (b = 0; b < 40; b++)
    if (burst[b] > quarter[b / 10])
      quarter[b / 10] = burst[b];
  qsort(quarter, 4, sizeof *quarter, up);
  /* ... and the median burst: apart, the clock moved. */
  qsort(burst, 40, sizeof *burst, up);
  printf("%.1f %.1f\n", (quarter[1] + quarter[2]) / 2, (burst[19] + burst[20]) / 2);
  return 0;
}
