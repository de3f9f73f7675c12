/* Cache signatures of hardware events (Counter Inspection Toolkit,
 * Sec. 4): a pointer chase in random order over a footprint that fits the
 * L1D, one that misses each level above a level and fits it, one that
 * misses every level; an event's count per load at each footprint is its
 * signature.  A level's hits are 1 at its own footprint and 0 elsewhere,
 * its misses 0 up to its footprint and 1 past it, which names the level
 * and whether the event counts hits or misses.  The footprints come from
 * xray's own measured capacities. */
#include "counters.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LENGTHS 3
/* The largest footprint: 4 times the last level, within what an arena
 * may take. */
#define FOOT_MAX (1024.0 * 1024 * 1024)

/* "32K,1M,32M" into level[]: their number, or -1 with why. */
static int
parse_levels(const char *spec, double *level, char *why, size_t len)
{
  const char *p = spec;
  int n = 0;

  while (*p) {
    char *end;
    double v = xray__decimal(p, &end);
    if (end == p || !(v >= 1)) {
      snprintf(why, len, "--levels=%s: expected capacities such as 32K,1M,32M", spec);
      return -1;
    }
    v *= *end == 'K' ? 1024 : *end == 'M' ? 1048576 : 1;
    end += *end == 'K' || *end == 'M';
    if ((*end && *end != ',') || n == XRAY__CLEVELS || (n && v <= level[n - 1])) {
      snprintf(why, len, "--levels=%s: up to %d capacities, growing, separated by ','", spec,
               XRAY__CLEVELS);
      return -1;
    }
    level[n++] = v;
    p = *end ? end + 1 : end;
  }
  return n;
}

int
xray__counter_levels(xray_machine *m, const char *spec, double *level, double *line, char *why,
                     size_t len)
{
  int n;

  *line = 64;
  if (spec)
    return parse_levels(spec, level, why, len);
  n = xray__data_levels(m, NULL, level, NULL, NULL, XRAY__CLEVELS, line, why, len);
  if (n)
    why[0] = 0;
  return n;
}

void
xray__counter_footprints(const double *level, int nlev, double *foot)
{
  int i;

  foot[0] = level[0] / 2;
  for (i = 1; i < nlev; i++)
    /* Half the level, where that is well past the one above it; else
     * midway (geometrically) between them. */
    foot[i] = level[i] / 2 >= 3 * level[i - 1] ? level[i] / 2 : sqrt(level[i] * level[i - 1]);
  foot[nlev] = fmin(4 * level[nlev - 1], FOOT_MAX);
}

/* The counts of the n events over three lengths of the chase off[0..k-1]
 * (in that order), and their slopes per load into slope[] and r2[] (NAN
 * where an event cannot be counted); -1 with why if it cannot run. */
static int
count_chase(xray_machine *m, const uint64_t *off, size_t k, const char **names, size_t n,
            double *slope, double *r2, char *why, size_t len)
{
  long base = (long) (2 * k > 65536 ? 2 * k : 65536);
  double(*cnt)[LENGTHS] = malloc(n * sizeof *cnt), *out = malloc(n * sizeof *out);
  double x[LENGTHS], y[LENGTHS];
  struct xray__chase c;
  size_t i;
  int l;

  if (!cnt || !out) {
    free(cnt);
    free(out);
    snprintf(why, len, "out of memory");
    return -1;
  }
  memset(&c, 0, sizeof c);
  c.off = off;
  c.n = k;
  c.arena = XRAY__ARENA_HUGE;
  for (l = 0; l < LENGTHS; l++) {
    x[l] = (double) (base * (l + 1));
    if (xray__machine_cevents(m, names, n, &c, base * (l + 1), out)) {
      snprintf(why, len, "%s", m->error);
      free(cnt);
      free(out);
      return -1;
    }
    for (i = 0; i < n; i++)
      cnt[i][l] = out[i];
  }
  for (i = 0; i < n; i++) {
    for (l = 0; l < LENGTHS; l++)
      y[l] = cnt[i][l];
    slope[i] = isnan(y[0]) || isnan(y[1]) || isnan(y[2])
        ? NAN
        : xray__fit_line(x, y, LENGTHS, NULL, &r2[i], NULL);
  }
  free(cnt);
  free(out);
  return 0;
}

/* Names, slopes and r^2 for n events; NULL without memory. */
static const char **
scratch(const struct xray__event *ev, size_t n, double **slope, double **r2)
{
  const char **names = malloc(n * sizeof *names);
  size_t i;

  *slope = malloc(2 * n * sizeof **slope);
  *r2 = *slope ? *slope + n : NULL;
  if (!names || !*slope) {
    free(names);
    free(*slope);
    return NULL;
  }
  for (i = 0; i < n; i++)
    names[i] = ev[i].name;
  return names;
}

int
xray__counter_signatures(xray_machine *m, const double *foot, int nfoot, double line,
                         struct xray__event *ev, size_t n, char *why, size_t len)
{
  double *slope, *r2;
  const char **names = scratch(ev, n, &slope, &r2);
  size_t i;
  int f, rc = 0;

  if (!names) {
    snprintf(why, len, "out of memory");
    return -1;
  }
  for (f = 0; f < nfoot && rc == 0; f++) {
    size_t lines = (size_t) (foot[f] / line);
    uint64_t *off = malloc((lines ? lines : 1) * sizeof *off), rng = 0x9e3779b97f4a7c15ULL + f;
    if (!off || !lines) {
      snprintf(why, len, "%s", off ? "a footprint smaller than a line" : "out of memory");
      free(off);
      rc = -1;
      break;
    }
    for (i = 0; i < lines; i++)
      off[i] = (uint64_t) (i * (size_t) line);
    xray__shuffle(off, lines, &rng);
    rc = count_chase(m, off, lines, names, n, slope, r2, why, len);
    free(off);
    for (i = 0; rc == 0 && i < n; i++) {
      ev[i].sig[f] = slope[i];
      ev[i].sr2[f] = r2[i];
      if (isnan(slope[i]))
        ev[i].ccounted = -1;
    }
  }
  for (i = 0; i < n; i++)
    ev[i].ccounted = rc == 0 && ev[i].ccounted == 0;
  free(names);
  free(slope);
  return rc;
}

/* The prefetch signature (the toolkit's Fig. 15): a buffer four times the
 * L2 in blocks of P pages, chased block after block, each block's
 * 128-byte units in random order, for P = 2, 4, ..., 512 (a block is
 * at most the buffer).  A prefetcher
 * that tracks a few pages serves blocks within its reach and not the
 * others: its events fall (or a level's misses rise) past that many
 * pages. */
const int xray__counter_ppb[XRAY__NPPB] = { 2, 4, 8, 16, 32, 64, 128, 256, 512 };

int
xray__counter_prefetch(xray_machine *m, double l2, struct xray__event *ev, size_t n, char *why,
                       size_t len)
{
  size_t page = m->page ? m->page : 4096, units = page / 128, pages, k, i;
  double *slope, *r2;
  const char **names = scratch(ev, n, &slope, &r2);
  uint64_t *off, rng = 0x243f6a8885a308d3ULL;
  int p, rc = 0;

  pages = (size_t) (4 * l2 / (double) page);
  off = names && pages ? malloc(pages * units * sizeof *off) : NULL;
  if (!off) {
    free(names);
    free(slope);
    snprintf(why, len, "%s", pages ? "out of memory" : "no L2 to chase past");
    return -1;
  }
  for (p = 0; p < XRAY__NPPB && rc == 0; p++) {
    size_t per = (size_t) xray__counter_ppb[p] * units;
    if (per > pages * units)
      per = pages * units;
    for (k = 0; k < pages * units; k++)
      off[k] = (uint64_t) (k * 128);
    for (k = 0; k < pages * units; k += per)
      xray__shuffle(off + k, per < pages * units - k ? per : pages * units - k, &rng);
    rc = count_chase(m, off, pages * units, names, n, slope, r2, why, len);
    for (i = 0; rc == 0 && i < n; i++)
      ev[i].pf[p] = isnan(slope[i]) ? NAN : slope[i] * r2[i];
  }
  for (i = 0; i < n; i++)
    ev[i].pfcounted = rc == 0 && !isnan(ev[i].pf[0]);
  free(off);
  free(names);
  free(slope);
  return rc;
}
