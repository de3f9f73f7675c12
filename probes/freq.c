/* Core clock (X-Ray Sec. 3.1): a chain of dependent integer adds runs at
 * one add per cycle, so adds per second is the clock.  Each burst is the
 * best of eight ~20 us windows (noise only slows a window down); the value
 * is the fastest of 40 bursts spread over ~0.1 s.  The fastest of the first
 * and of the last ten bursts are compared: a clock that moved between them
 * (frequency scaling, a thermal limit) is reported, and the value is left
 * unconfirmed.  The time-stamp counter's rate comes from the tick source's
 * calibration against CLOCK_MONOTONIC. */
#include "xray-internal.h"

#include <math.h>

#define BURSTS 40
#define EDGE 10
#define SPACING 0.0025          /* seconds between burst starts (real machine) */
#define MOVED 0.01              /* relative change that counts as moving */

static int
run_freq(xray_machine *m, xray_report *r)
{
  xray_value *cpu = xray__report_param(r, "XRAY_CPU_MHZ", NULL, NULL);
  xray_value *tsc = xray__report_param(r, "XRAY_TSC_MHZ", NULL, NULL);
  double hz[BURSTS], best = 0, first = 0, last = 0, tsc_hz = 0, t0 = xray__now();
  char how[200];
  int i, n = 0;

  if (!cpu || !tsc)
    return -1;
  for (i = 0; i < BURSTS; i++) {
    hz[i] = 1e6 * xray__point(m, "freq", "addchain", i, m->ops->clock(m, &tsc_hz) / 1e6);
    if (isnan(hz[i]))
      break;
    n++;
    best = fmax(best, hz[i]);
    if (i < EDGE)
      first = fmax(first, hz[i]);
    if (i >= BURSTS - EDGE)
      last = fmax(last, hz[i]);
    if (m->timed)
      while (xray__now() - t0 < SPACING * (i + 1))
        ;
  }
  if (n < BURSTS) {
    xray__value_unknown(cpu, m->error[0] ? m->error : "the add chain cannot be timed here");
  } else {
    snprintf(how, sizeof how, "dependent integer adds, fastest of %d bursts over %.2f s",
             BURSTS, xray__now() - t0);
    xray__value_measured(cpu, floor(best / 1e6 + 0.5), how);
    cpu->exact = best / 1e6;
    if (fabs(first - last) > MOVED * best) {
      snprintf(how, sizeof how, "the clock moved during the run: %.0f MHz at the start, "
               "%.0f MHz at the end", first / 1e6, last / 1e6);
      xray__value_measured(cpu, floor(best / 1e6 + 0.5), how);
      cpu->unconfirmed = 1;
    }
  }
  if (tsc_hz > 0) {
    xray__value_measured(tsc, floor(tsc_hz / 1e6 + 0.5),
                         m->hardware ? "against CLOCK_MONOTONIC over 20 ms" : "simulated");
    tsc->exact = tsc_hz / 1e6;
  } else
    xray__value_unknown(tsc, "no time-stamp counter here");
  return 0;
}

const xray_probe xray__probe_freq = { "freq", "core clock and time-stamp counter rate, MHz",
                                      run_freq };
