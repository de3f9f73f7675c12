/* Two simulated CPUs at once (machine.h: the duo op): which data levels
 * they share, what moving a line between them costs, and what the
 * adjacent-line prefetcher does to two writers.
 *
 * Spec items:
 *   share1..share4=CPUS   data level n is shared by each group of CPUS
 *                         consecutive CPUs (default: the hardware threads
 *                         of a core, and every CPU for the last level of
 *                         two or more); groups nest level by level
 *   c2c=CYCLES            moving a written line from one core to another
 *                         (default: twice the latency of the innermost
 *                         level they share, or memory's)
 *   adjline=BYTES[:PERCENT]
 *                         an adjacent-line prefetcher: an L1D miss brings
 *                         the rest of its aligned block of BYTES into the
 *                         L2 (sim/memory.c), on PERCENT of the misses
 *                         (default 100); two writers within one block then
 *                         take lines from each other too, that share of
 *                         the time
 *
 * Costs: a chase with a partner on a CPU that shares a level meets the
 * partner's loads there (memory.c); a round trip of a token is two line
 * moves between cores, two L1D hits between threads of a core; a load of
 * a line the other core wrote is one move (one hit within a core); an
 * increment costs an L1D hit and a cycle, plus a line move when the other
 * core writes the same line, half one when it writes in the same block
 * (times the share of misses the prefetcher serves). */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* CPUs sharing data level i (index) in groups. */
static int
group(const struct sim *m, int i)
{
  if (m->share[i])
    return m->share[i];
  return m->nlev >= 2 && i == m->nlev - 1 ? m->cpu.ncpu : m->cpu.smt;
}

/* The innermost level CPUs a and b share (index); nlev if none. */
static int
shared_level(const struct sim *m, int a, int b)
{
  int i;

  for (i = 0; i < m->nlev; i++)
    if (a / group(m, i) == b / group(m, i))
      break;
  return i;
}

static double
move_cost(const struct sim *m, int a, int b)
{
  int s = shared_level(m, a, b);

  if (m->c2c > 0)
    return m->c2c;
  return 2 * (s < m->nlev ? m->lev[s].lat : m->mem);
}

/* The bytes two writers must keep apart: the largest line, or the
 * prefetcher's block. */
static unsigned long
granule(const struct sim *m, unsigned long *line)
{
  unsigned long g = 0;
  int i;

  for (i = 0; i < m->nlev; i++)
    if (m->lev[i].line > g)
      g = m->lev[i].line;
  *line = g;
  return m->adjline > g ? m->adjline : g;
}

double
xray__sim_duo(xray_machine *base, const struct xray__duo *d)
{
  struct sim *m = (struct sim *) base;
  int core = m->cpu.smt, same;
  unsigned long line, block;
  double hit, cyc;

  if (!m->nlev)
    return xray__machine_fail(base, XRAY__FAIL_ERROR,
                              "the simulated machine has no data cache (give l1d=SIZE:WAYS:LINE)");
  if (d->a < 0 || d->a >= m->cpu.ncpu || d->b >= m->cpu.ncpu || d->a == d->b)
    return xray__machine_fail(base, XRAY__FAIL_ERROR, "no such pair of simulated CPUs (%d, %d)",
                              d->a, d->b);
  if (d->kind == XRAY__DUO_CHASE) {
    m->duo_level = d->b < 0 ? m->nlev : shared_level(m, d->a, d->b);
    m->duo_c = m->duo_level < m->nlev ? d->c : NULL;
    m->duo_i = 0;
    cyc = xray__sim_chase(base, d->c);
    m->duo_c = NULL;
    return cyc;
  }
  if (d->b < 0 || (d->kind == XRAY__DUO_WRITES && d->dist < 8)
      || (d->kind == XRAY__DUO_HANDOFF && (!d->c || !d->c->n)))
    return xray__machine_fail(base, XRAY__FAIL_ERROR,
                              "a race needs two CPUs and words 8 bytes apart");
  same = d->a / core == d->b / core;
  hit = m->lev[0].lat;
  block = granule(m, &line);
  if (d->kind == XRAY__DUO_PINGPONG)
    cyc = same ? 2 * hit : 2 * move_cost(m, d->a, d->b);
  else if (d->kind == XRAY__DUO_HANDOFF)
    cyc = same ? hit : move_cost(m, d->a, d->b);
  else if (same || d->dist >= block)
    cyc = hit + 1;
  else
    cyc = hit + 1 + (d->dist < line ? 1 : 0.005 * m->adjpct) * move_cost(m, d->a, d->b);
  return xray__sim_noise(m, cyc);
}

int
xray__sim_duo_item(struct sim *m, const char *key, const char *val, char *err, size_t errlen)
{
  char *end;
  long v;

  if (strcmp(key, "c2c") != 0 && strcmp(key, "adjline") != 0
      && !(strncmp(key, "share", 5) == 0 && key[5] >= '1' && key[5] <= '4' && !key[6]))
    return 0;
  v = strtol(val, &end, 10);
  if (key[0] == 'a')
    m->adjpct = 100;
  if (key[0] == 'a' && end != val && *end == ':') {
    const char *p = end + 1;
    long pct = strtol(p, &end, 10);
    if (end == p || *end || pct < 1 || pct > 100) {
      snprintf(err, errlen, "adjline: '%s' is not a percentage from 1 to 100", p);
      return -1;
    }
    m->adjpct = (int) pct;
  }
  if (end == val || *end || v < 1 || v > 65536) {
    snprintf(err, errlen, "%s: '%s' is not a number from 1 to 65536", key, val);
    return -1;
  }
  if (key[0] == 'c')
    m->c2c = (double) v;
  else if (key[0] == 'a') {
    if (v & (v - 1) || v < 16) {
      snprintf(err, errlen, "adjline: %ld is not a power of two of at least 16", v);
      return -1;
    }
    m->adjline = (unsigned long) v;
  } else
    m->share[key[5] - '1'] = (int) v;
  return 1;
}

/* After the whole spec: groups that exist and nest. */
int
xray__sim_duo_check(const struct sim *m, char *err, size_t errlen)
{
  int i;

  for (i = 0; i < MAX_LEVELS; i++) {
    if (!m->share[i])
      continue;
    if (i >= m->nlev) {
      snprintf(err, errlen, "share%d: there is no data level %d", i + 1, i + 1);
      return -1;
    }
    if (m->cpu.ncpu % m->share[i] || m->share[i] % m->cpu.smt) {
      snprintf(err, errlen,
               "share%d=%d: groups must divide cpus=%d and hold whole cores of "
               "smt=%d",
               i + 1, m->share[i], m->cpu.ncpu, m->cpu.smt);
      return -1;
    }
    if (i > 0 && m->share[i] % group(m, i - 1)) {
      snprintf(err, errlen, "share%d=%d: not a multiple of level %d's group of %d", i + 1,
               m->share[i], i, group(m, i - 1));
      return -1;
    }
  }
  if (m->adjline && m->nlev && m->adjline < m->lev[0].line) {
    snprintf(err, errlen, "adjline=%lu is smaller than the L1D's line", m->adjline);
    return -1;
  }
  return 0;
}

/* The truths, for the first CPU: how many CPUs share each level with it,
 * a round trip to the nearest other core, the interference sizes. */
int
xray__sim_duo_truth(const struct sim *m, const struct xray__param *p, int level, double *v)
{
  unsigned long line, block;

  if (!m->nlev)
    return -1;
  block = granule(m, &line);
  switch (p->what) {
  case XRAY__W_SHARED_BY:
    if (level < 1 || level > m->nlev || m->cpu.ncpu < 2)
      return -1;
    *v = group(m, level - 1);
    return 0;
  /* One thread finds the constructive size (the prefetcher's block where
   * it serves most misses); the others need two cores. */
  case XRAY__W_CONSTRUCTIVE:
    *v = (double) (m->adjline > line && 2 * m->adjpct > 100 ? m->adjline : line);
    return 0;
  case XRAY__W_C2C:
  case XRAY__W_DESTRUCTIVE:
    if (m->cpu.ncpu / m->cpu.smt < 2)
      return -1;
    *v = p->what == XRAY__W_C2C ? 2 * move_cost(m, 0, m->cpu.smt) : (double) block;
    return 0;
  default:
    return -1;
  }
}
