/* Core clock (X-Ray Sec. 3.1): a chain of dependent integer adds runs at
 * one add per cycle, so adds per second is the clock.  Each burst is the
 * best of eight ~20 us windows (noise only slows a window down), and 40
 * bursts spread over ~0.1 s make four quarters.  A quarter's clock is its
 * fastest burst; the value is the median of the four quarters' clocks.
 * Not the fastest burst of all: a shared host's boost can rise for a
 * moment and fall back, and one quarter's rise is then one moment's clock,
 * not the one code runs at.  Where the quarters' clocks differ by more
 * than MOVED (frequency scaling, a thermal limit, a boost that held for
 * part of the run), the value is left unconfirmed and the four are named.
 * Four quarters that agree still share one tenth of a second: a slowdown
 * that lasts it through (a busy neighbour on the other hardware thread, a
 * clock that stepped and held) passes them.  So the value is confirmed
 * only where the clock the machine took when it was made, another moment
 * and the fastest of its own bursts, agrees within AGREE.
 * The time-stamp counter's rate comes from the tick source's calibration
 * against CLOCK_MONOTONIC. */
#include "probes.h"

#include <math.h>

#define BURSTS 40
#define PARTS 4 /* quarters of the run compared */
#define SPACING 0.0025          /* seconds between burst starts (real machine) */
#define MOVED 0.01              /* relative change that counts as moving */
#define AGREE 0.005 /* ... and the largest difference from the machine's own clock */

static int
run_freq(xray_machine *m, xray_report *r)
{
  xray_value *cpu = xray__report_param(r, "XRAY_CPU_MHZ", NULL, NULL);
  xray_value *tsc = xray__report_param(r, "XRAY_TSC_MHZ", NULL, NULL);
  double hz, part[PARTS] = { 0 }, lo, hi, mid, tsc_hz = 0, t0 = xray__now();
  struct xray__ask a = { .kind = XRAY__ASK_CLOCK, .tsc_hz = &tsc_hz };
  char how[200];
  int i, n = 0, moved;

  if (!cpu || !tsc)
    return -1;
  for (i = 0; i < BURSTS; i++) {
    hz = 1e6 * xray__machine_measure(m, "freq", "addchain", i, &a).y;
    if (isnan(hz))
      break;
    n++;
    part[i * PARTS / BURSTS] = fmax(part[i * PARTS / BURSTS], hz);
    if (m->timed)
      while (xray__now() - t0 < SPACING * (i + 1))
        ;
  }
  if (n < BURSTS) {
    xray__value_unknown(cpu, m->error[0] ? m->error : "the add chain cannot be timed here");
  } else {
    mid = xray__median(part, PARTS);
    for (lo = hi = part[0], i = 1; i < PARTS; i++)
      lo = fmin(lo, part[i]), hi = fmax(hi, part[i]);
    if ((moved = hi - lo > MOVED * mid))
      snprintf(how, sizeof how,
               "the clock moved during the run: the fastest bursts of its quarters ran at "
               "%.0f, %.0f, %.0f and %.0f MHz",
               part[0] / 1e6, part[1] / 1e6, part[2] / 1e6, part[3] / 1e6);
    else if ((moved = m->core_hz > 0 && fabs(mid - m->core_hz) > AGREE * m->core_hz))
      snprintf(how, sizeof how,
               "the clock moved since xray started: %.0f MHz over the run's %d bursts, "
               "%.0f MHz when it started",
               mid / 1e6, BURSTS, m->core_hz / 1e6);
    else
      snprintf(how, sizeof how,
               "dependent integer adds: the median of the fastest bursts of the quarters of %d "
               "bursts over %.2f s",
               BURSTS, xray__now() - t0);
    xray__value_measured(cpu, floor(mid / 1e6 + 0.5), how);
    cpu->exact = mid / 1e6;
    cpu->unconfirmed = moved;
  }
  if (tsc_hz > 0) {
    xray__value_measured(tsc, floor(tsc_hz / 1e6 + 0.5), m->counter_words);
    tsc->exact = tsc_hz / 1e6;
  } else
    xray__value_unknown(tsc, "no time-stamp counter here");
  return 0;
}

const xray_probe xray__probe_freq = { "freq", "core clock and time-stamp counter rate, MHz",
                                      run_freq };
