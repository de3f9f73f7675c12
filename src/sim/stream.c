/* The simulated machine's streaming kernels: the bandwidth of each data
 * level and of memory.
 *
 * Spec items:
 *   bwN=READ:WRITE[:ALL]   level N (1: the L1D, up to 4) serves READ bytes
 *   bwmem=READ:WRITE[:ALL] per cycle of loads and WRITE of stores to one
 *                          core; ALL: bytes per cycle all cores together get
 *                          from it (a level whose bandwidth they share;
 *                          default: no such limit)
 *   bwnt=RATE              bytes per cycle non-temporal stores write to
 *                          memory (0: the ISA has none; default 1.4 times
 *                          bwmem's WRITE)
 *   bwloop=RATE            bytes per cycle a kernel's loop of four vectors
 *                          a step can move at most, its instructions' limit
 *                          (the twin of eight vectors a step: twice that;
 *                          default: no such limit)
 * The core itself issues two vector loads and one vector store a cycle,
 * of the vector width vec= gives (sim/core.c).
 *
 * A pass of a kernel over arrays of f bytes per thread is served by the
 * first level that holds f: its reads and writes overlap, so the pass
 * takes the longer of reads / READ and writes / WRITE cycles; threads on
 * every core at once get no more than ALL together. */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLES 5

static const double def_rd[MAX_LEVELS + 1] = { 64, 32, 20, 14, 10 };
static const double def_wr[MAX_LEVELS + 1] = { 32, 16, 12, 9, 7 };

void
xray__sim_stream_init(struct xray__sim_stream *s)
{
  memcpy(s->rd, def_rd, sizeof s->rd);
  memcpy(s->wr, def_wr, sizeof s->wr);
  memset(s->all, 0, sizeof s->all);
  s->nt = -1;
  s->loop = 0;
}

int
xray__sim_stream_item(struct xray__sim_stream *s, const char *key, const char *val, char *err,
                      size_t errlen)
{
  double v[3] = { 0, 0, 0 };
  const char *p = val;
  char *end;
  int i, slot, bad;

  if (strcmp(key, "bwnt") == 0) {
    s->nt = xray__decimal(val, &end);
    if (end == val || *end || !(s->nt >= 0) || s->nt > 1e4) {
      snprintf(err, errlen, "bwnt=%s: expected bytes per cycle, 0 (no such stores) to 10000", val);
      return -1;
    }
    return 1;
  }
  if (strcmp(key, "bwloop") == 0) {
    s->loop = xray__decimal(val, &end);
    if (end == val || *end || !(s->loop > 0) || s->loop > 1e4) {
      snprintf(err, errlen, "bwloop=%s: expected bytes per cycle, more than 0, up to 10000", val);
      return -1;
    }
    return 1;
  }
  if (strcmp(key, "bwmem") == 0)
    slot = MAX_LEVELS;
  else if (strncmp(key, "bw", 2) == 0 && key[2] >= '1' && key[2] <= '0' + MAX_LEVELS && !key[3])
    slot = key[2] - '1';
  else
    return 0;
  /* Two or three positive numbers, separated by ':'. */
  for (i = 0, bad = 0; i < 3 && !bad; i++) {
    v[i] = xray__decimal(p, &end);
    bad = end == p || !(v[i] > 0) || v[i] > 1e4 || (*end && *end != ':');
    if (!*end)
      break;
    p = end + 1;
  }
  if (bad || i == 0 || i == 3) {
    snprintf(err, errlen, "%s=%s: expected READ:WRITE[:ALL], bytes per cycle (0-10000)", key, val);
    return -1;
  }
  s->rd[slot] = v[0];
  s->wr[slot] = v[1];
  s->all[slot] = v[2];
  return 1;
}

/* The level (slot; MAX_LEVELS: memory) that serves f bytes. */
static int
serving(const struct sim *m, double f)
{
  int i;

  for (i = 0; i < m->nlev; i++)
    if (f <= (double) m->lev[i].size)
      return i;
  return MAX_LEVELS;
}

/* Bytes per cycle of kernel k served by slot on one core, and by threads
 * cores at once. */
double
xray__sim_stream_rate(const struct sim *m, size_t k, int slot, int threads)
{
  const struct xray__skernel *sk = &xray__skernels[XRAY__SK_OF(k)];
  double w = m->cpu.vecbits / 8.0, rd = fmin(m->stream.rd[slot], 2 * w),
         wr = fmin(m->stream.wr[slot], w), one, nt;

  if (k == XRAY__SK_WRITE_NT && slot == MAX_LEVELS) {
    nt = m->stream.nt >= 0 ? m->stream.nt : 1.4 * m->stream.wr[slot];
    wr = fmin(nt, w);
  }
  one = sk->arrays / fmax(sk->reads / rd, (sk->arrays - sk->reads) / wr);
  return m->stream.all[slot] > 0 ? fmin(threads * one, m->stream.all[slot]) : threads * one;
}

int
xray__sim_sbuild(xray_machine *base, int *nt)
{
  struct sim *m = (struct sim *) base;

  *nt = m->stream.nt != 0;
  m->stream.built = 1;
  return m->cpu.vecbits / 8;
}

double
xray__sim_stream(xray_machine *base, size_t k, double bytes, int threads, double *hz)
{
  struct sim *m = (struct sim *) base;
  const struct xray__skernel *sk;
  double moved, rate, best;
  int i;

  (void) hz; /* cycles of the model's one clock */
  if (!m->stream.built || k >= XRAY__SK_N)
    return xray__machine_fail(base, XRAY__FAIL_ERROR, "the streaming kernels are not built");
  if (threads < 1 || threads > m->cpu.ncpu)
    return xray__machine_fail(base, XRAY__FAIL_ERROR, "%d threads asked, %d CPUs usable", threads,
                              m->cpu.ncpu);
  sk = &xray__skernels[k];
  moved = floor(bytes / sk->arrays / (m->cpu.vecbits / 8.0) / XRAY__STREAM_UNIT) * XRAY__STREAM_UNIT
      * (m->cpu.vecbits / 8.0) * sk->arrays;
  if (!(moved > 0))
    return xray__machine_fail(base, XRAY__FAIL_ERROR, "%.0f bytes are too few for %d arrays", bytes,
                              sk->arrays);
  /* A stream on a busy host is slowed, never sped up, so the real op
   * keeps the best of its samples, and the probe the best of its rounds;
   * the simulated one is disturbed the same way and answers the same. */
  rate = xray__sim_stream_rate(m, k, serving(m, moved), threads);
  /* The loop's own limit, each thread's: what the level could serve is
   * the truth, what the loop moves is measured. */
  if (m->stream.loop > 0)
    rate = fmin(rate, threads * m->stream.loop * (k >= XRAY__SK_BASE ? 2 : 1));
  best = 0;
  for (i = 0; i < SAMPLES; i++)
    best = fmax(best, rate / xray__sim_slowdown(m));
  return best;
}

/* The truth of row p at level: a bandwidth (XRAY_BW_L<n>_<KERNEL>,
 * XRAY_BW_MEM_<KERNEL>, _ALL every core at once) or XRAY_BW_WIDTH; -1
 * where p is none of them, or this machine has no such figure. */
int
xray__sim_stream_truth(const struct sim *m, const struct xray__param *p, int level, double *v)
{
  int threads = p->arg & XRAY__ALL_CORES ? m->cpu.ncpu : 1;
  size_t k = (size_t) (p->arg & ~XRAY__ALL_CORES);

  if (p->what == XRAY__W_BW_WIDTH) {
    *v = m->cpu.vecbits / 8.0;
    return 0;
  }
  if (p->what != XRAY__W_BW || (level != XRAY__LEVEL_MEM && level > m->nlev)
      || (k == XRAY__SK_WRITE_NT && (level != XRAY__LEVEL_MEM || !m->stream.nt)))
    return -1;
  /* One CPU has no "every core at once" apart from the one core. */
  if (p->arg & XRAY__ALL_CORES && m->cpu.ncpu < 2)
    return -1;
  *v = xray__sim_stream_rate(m, k, level == XRAY__LEVEL_MEM ? MAX_LEVELS : level - 1, threads);
  return 0;
}
