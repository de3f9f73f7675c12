/* The core clock on the real machine, which converts ticks to cycles.
 *
 * A chain of dependent adds runs one add a cycle, so its ticks per add is
 * ticks per cycle; a burst is the best of eight ~20 us windows of it
 * (noise only slows a window down).  One burst alone can land in a
 * stretch where the core runs slow (a busy neighbour on the other hardware
 * thread), so a clock is the fastest of several bursts.  And the boost
 * clock of a shared host moves by per cents within seconds, so a clock
 * taken once, when the machine is made, would shift every latency taken
 * later: xray__clock_now gives the fastest burst of the last SPAN seconds,
 * taking a new one whenever the newest is older than EVERY, and more until
 * the span holds MIN_BURSTS. */
#include "real/real.h"

#include <math.h>
#include <string.h>

#define EVERY 0.010 /* s: the newest burst at most this old */
#define SPAN 0.050 /* s: the bursts this recent make the clock */
#define MIN_BURSTS 3 /* ... at least this many of them */
#define GAP 0.0005 /* s between bursts taken together */
#define CAL_SPIN 0.03 /* s: an idle core runs slow for a while */
#define CAL_BURSTS 20 /* at creation: bursts CAL_GAP apart */
#define CAL_GAP 0.002

static void
keep(struct xray__clock *c, double tpc)
{
  c->newest = xray__now();
  if (!(tpc > 0))
    return;
  c->at[c->next] = c->newest;
  c->tpc[c->next] = tpc;
  c->next = (c->next + 1) % XRAY__CLOCK_KEEP;
}

/* How many bursts of the last SPAN there are, and the fastest in *best. */
static int
recent(const struct xray__clock *c, double now, double *best)
{
  int i, n = 0;

  *best = HUGE_VAL;
  for (i = 0; i < XRAY__CLOCK_KEEP; i++)
    if (c->tpc[i] > 0 && c->at[i] > now - SPAN) {
      n++;
      if (c->tpc[i] < *best)
        *best = c->tpc[i];
    }
  return n;
}

double
xray__clock_calibrate(struct xray__clock *c, double (*burst)(void *ctx, int windows), void *ctx,
                      double busy_since)
{
  double best = HUGE_VAL, t0 = fmin(busy_since, xray__now());
  int i;

  memset(c, 0, sizeof *c);
  c->burst = burst;
  c->ctx = ctx;
  c->fallback = 1;
  while (xray__now() - t0 < CAL_SPIN)
    if (!(burst(ctx, 1) > 0))
      break;
  for (i = 0; i < CAL_BURSTS; i++) {
    double t = burst(ctx, 8);
    keep(c, t);
    if (t > 0 && t < best)
      best = t;
    while (xray__now() - t0 < CAL_SPIN + CAL_GAP * (i + 1))
      ;
  }
  /* Failing an add chain (neither machine code nor a compiler), a cycle is
   * a tick and probes say so. */
  if (best == HUGE_VAL) {
    c->burst = NULL;
    return 0;
  }
  c->fallback = best;
  return best;
}

/* A burst taken now, at least GAP after the last one. */
static void
burst_now(struct xray__clock *c)
{
  while (xray__now() - c->newest < GAP)
    ;
  keep(c, c->burst(c->ctx, 8));
}

double
xray__clock_now(struct xray__clock *c)
{
  double best = HUGE_VAL;
  int tries = 0;

  while (c->burst) {
    double now = xray__now();
    int n = recent(c, now, &best);
    if ((n >= MIN_BURSTS && now - c->newest <= EVERY) || tries++ == 2 * MIN_BURSTS)
      break;
    burst_now(c);
  }
  return best < HUGE_VAL ? best : c->fallback;
}

double
xray__clock_fresh(struct xray__clock *c)
{
  if (c->burst)
    burst_now(c);
  return xray__clock_now(c);
}
