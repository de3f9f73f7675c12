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
  static const char *const names[XRAY__CLEVELS] = { "XRAY_L1D_SIZE", "XRAY_L2_SIZE", "XRAY_L3_SIZE",
                                                    "XRAY_L4_SIZE" };
  xray_report *r;
  const xray_value *v;
  int n = 0;

  *line = 64;
  if (spec)
    return parse_levels(spec, level, why, len);
  if (!(r = xray_report_new())) {
    snprintf(why, len, "out of memory");
    return -1;
  }
  xray_probe_run(xray_probe_find("dcache"), m, r);
  xray_probe_run(xray_probe_find("caches"), m, r);
  if ((v = xray_report_get(r, "XRAY_L1D_LINE")) && xray_value_source(v) == XRAY_SOURCE_MEASURED)
    *line = xray_value_number(v);
  while (n < XRAY__CLEVELS && (v = xray_report_get(r, names[n]))
         && xray_value_source(v) == XRAY_SOURCE_MEASURED
         && (!n || xray_value_number(v) > level[n - 1]))
    level[n++] = xray_value_number(v);
  if (!n)
    snprintf(why, len, "the L1D's capacity is not established here (%s)",
             (v = xray_report_get(r, names[0])) ? xray_value_reason(v) : "no value");
  xray_report_free(r);
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

/* One footprint: the counts of every event over three lengths of the
 * chase, and their slopes per load. */
static int
one_footprint(xray_machine *m, double foot, double line, int f, struct xray__event *ev, size_t n,
              const char **names, double (*cnt)[LENGTHS], char *why, size_t len)
{
  size_t lines = (size_t) (foot / line), i;
  uint64_t *off = malloc((lines ? lines : 1) * sizeof *off), rng = 0x9e3779b97f4a7c15ULL + f;
  long base = (long) (2 * lines > 65536 ? 2 * lines : 65536);
  double x[LENGTHS], y[LENGTHS];
  struct xray__chase c;
  int l;

  if (!off || !lines) {
    free(off);
    snprintf(why, len, "%s", off ? "a footprint smaller than a line" : "out of memory");
    return -1;
  }
  for (i = 0; i < lines; i++)
    off[i] = (uint64_t) (i * (size_t) line);
  xray__shuffle(off, lines, &rng);
  memset(&c, 0, sizeof c);
  c.off = off;
  c.n = lines;
  c.arena = XRAY__ARENA_HUGE;
  for (l = 0; l < LENGTHS; l++) {
    double *out = malloc(n * sizeof *out);
    x[l] = (double) (base * (l + 1));
    if (!out || m->ops->cevents(m, names, n, &c, base * (l + 1), out)) {
      snprintf(why, len, "%s", out ? m->error : "out of memory");
      free(out);
      free(off);
      return -1;
    }
    for (i = 0; i < n; i++)
      cnt[i][l] = out[i];
    free(out);
  }
  free(off);
  for (i = 0; i < n; i++) {
    for (l = 0; l < LENGTHS; l++)
      y[l] = cnt[i][l];
    if (isnan(y[0]) || isnan(y[1]) || isnan(y[2]))
      ev[i].ccounted = -1;
    else
      ev[i].sig[f] = xray__fit_line(x, y, LENGTHS, NULL, &ev[i].sr2[f], NULL);
  }
  return 0;
}

int
xray__counter_signatures(xray_machine *m, const double *foot, int nfoot, double line,
                         struct xray__event *ev, size_t n, char *why, size_t len)
{
  const char **names = malloc(n * sizeof *names);
  double(*cnt)[LENGTHS] = malloc(n * sizeof *cnt);
  size_t i;
  int f, rc = 0;

  if (!names || !cnt) {
    free(names);
    free(cnt);
    snprintf(why, len, "out of memory");
    return -1;
  }
  for (i = 0; i < n; i++)
    names[i] = ev[i].name;
  for (f = 0; f < nfoot && rc == 0; f++)
    rc = one_footprint(m, foot[f], line, f, ev, n, names, cnt, why, len);
  for (i = 0; i < n; i++)
    ev[i].ccounted = rc == 0 && ev[i].ccounted == 0;
  free(names);
  free(cnt);
  return rc;
}
