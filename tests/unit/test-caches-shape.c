/* caches_shape_of (probes/caches-curve.c), the caches probe's reading of
 * its curve into levels, on curves made here whose levels are known:
 * - a curve whose memory floor steps up a little half an octave before
 *   the end of the scan, so that plateaus() sees two plateaus, neither an
 *   octave long: unsettled while the scan could go on, settled on three
 *   levels once its chains are at their longest (the reading a scan cut
 *   short by its budget gets);
 * - a curve still rising steeply at the end of the scan (a last level
 *   larger than the longest chain): unsettled either way, since an
 *   octave that rises is no memory plateau;
 * - a curve that settles on its own: the same levels, plateau for
 *   plateau, whether or not the chains reached their longest. */
#include "probes/caches.h"
#include "../tap.h"

#include <math.h>
#include <string.h>

/* The scan's points: PER_OCTAVE an octave from K_MIN pages to kmax, as
 * caches_scan places them. */
static void
points(struct cc *c, double kmax)
{
  double r = pow(2, 1.0 / PER_OCTAVE), x;
  int i;

  c->npt = 0;
  for (i = 0; c->npt < MAX_PTS; i++) {
    x = K_MIN * pow(r, i);
    x = x < 1 ? floor(x * (double) c->lpp + 0.5) / (double) c->lpp : floor(x + 0.5);
    if (x > kmax)
      break;
    if (c->npt && x <= c->pt[c->npt - 1].k)
      continue;
    c->pt[c->npt].k = x;
    c->pt[c->npt].draws = 0;
    c->npt++;
  }
}

/* Log-linear from y0 at k0 to y1 at k1. */
static double
ramp(double k, double k0, double y0, double k1, double y1)
{
  return y0 + (y1 - y0) * log(k / k0) / log(k1 / k0);
}

/* Cycles per load of a 48 KB L1D (4), a 1 MB L2 (14) and an L3 (47)
 * whose step ends at l3_end pages; past it memory at 460 cycles, higher
 * by a factor 1 + creep from 1.5 l3_end pages on (its floor rises with
 * the footprint: DRAM pages, the reach of large pages); or, where
 * big > 0, a last step that starts at big pages and has not ended at
 * the scan's end. */
static double
curve(double k, double l3_end, double creep, double big)
{
  if (big > 0 && k >= big)
    return ramp(k, big, 47, 4 * big, 460);
  if (k <= 12)
    return 4;
  if (k <= 18)
    return ramp(k, 12, 4, 18, 14);
  if (k <= 256)
    return 14;
  if (k <= 456)
    return ramp(k, 256, 14, 456, 47);
  if (k <= 3000 || big > 0)
    return 47;
  if (k <= l3_end)
    return ramp(k, 3000, 47, l3_end, 460);
  return k < 1.5 * l3_end ? 460 : 460 * (1 + creep);
}

/* Two draws a point, 1 % either side of the curve. */
static void
draw(struct cc *c, double l3_end, double creep, double big)
{
  int i;

  for (i = 0; i < c->npt; i++) {
    double y = curve(c->pt[i].k, l3_end, creep, big);
    c->pt[i].v[0] = y * 0.99;
    c->pt[i].v[1] = y * 1.01;
    c->pt[i].draws = 2;
  }
}

static void
shape(struct cc *c, struct shape *S, int at_longest)
{
  memset(S, 0, sizeof *S);
  c->at_lines_max = at_longest;
  caches_shape_of(c, S, 0);
}

int
main(void)
{
  static struct cc c;
  static struct shape a, b;
  xray_machine m;
  int same, i;

  memset(&m, 0, sizeof m);
  m.timed = m.hardware = m.tenants = 1;
  m.core_hz = 4e9; /* 460 cycles: 115 ns, memory's */
  c.m = &m;
  c.lpp = 64;
  c.lines_max = LINES_MAX;
  points(&c, (double) (LINES_MAX / 64));
  tap_plan(7);

  /* Memory from 14596 pages, 9 % up half an octave later: two plateaus
   * back to back, neither an octave long. */
  draw(&c, 14596, 0.09, 0);
  shape(&c, &a, 0);
  tap_ok(!a.settled, "memory floor stepping up, the scan could go on: unsettled (%d levels)", a.nl);
  shape(&c, &b, 1);
  tap_ok(b.settled && b.nl == 3,
         "memory floor stepping up, chains at their longest: settled, "
         "%d levels (want 3)",
         b.nl);
  tap_ok(b.nl == 3 && c.pt[b.L[2].b].k >= 14596 / 1.5 && c.pt[b.L[2].b].k <= 14596 * 1.5,
         "the last step ends at %g pages (want about 14596)", b.nl == 3 ? c.pt[b.L[2].b].k : 0);

  /* A last level whose step starts at 16384 pages and ends past the
   * longest chain. */
  draw(&c, 0, 0, 16384);
  shape(&c, &a, 0);
  tap_ok(!a.settled, "a step still rising at the end, the scan could go on: unsettled");
  shape(&c, &b, 1);
  tap_ok(!b.settled, "a step still rising at the end, chains at their longest: unsettled");

  /* Memory from 4096 pages, flat: settled on its own. */
  draw(&c, 4096, 0, 0);
  shape(&c, &a, 0);
  shape(&c, &b, 1);
  tap_ok(a.settled && a.nl == 3, "a flat memory plateau: settled, %d levels (want 3)", a.nl);
  same = a.settled == b.settled && a.np == b.np && a.nl == b.nl;
  for (i = 0; same && i < a.np; i++)
    same = a.first[i] == b.first[i] && a.last[i] == b.last[i];
  tap_ok(same, "a curve settled on its own keeps its plateaus at the chains' longest");
  return tap_done();
}
