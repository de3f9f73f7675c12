/* The simulated machine: set-associative caches and TLBs behind the same
 * interface as the real machine, so that every control engine can be run
 * deterministically against parameters that are known, odd ones included
 * (non-power-of-two sizes and set counts, 3-, 5-, 12-, 20-way), with noise.
 * Its spec is read by spec.c (the items are listed there and in xray(1)),
 * its memory side is memory.c, its core core.c; here are the noise, the
 * front end and the ops every probe calls. */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double
rnd_unit(uint64_t *s)
{
  return (double) (xray__rand(s) >> 11) / 9007199254740992.0;
}

static double
rnd_gauss(uint64_t *s)
{
  double u = rnd_unit(s), v = rnd_unit(s);

  if (u < 1e-300)
    u = 1e-300;
  return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

/* --- the measurement ----------------------------------------------------- */

double
xray__sim_noise(struct sim *m, double cyc)
{
  /* Noise never makes a run faster than a twentieth of its time. */
  cyc *= fmax(0.05, 1 + m->noise * rnd_gauss(&m->rng));
  if (rnd_unit(&m->rng) < m->spikes)
    cyc *= 1.5 + 4.5 * rnd_unit(&m->rng);
  return cyc;
}

/* A factor of at least 1 by which a disturbance stretches a window: what
 * other tenants do to a real run, which is never faster than the hardware
 * allows. */
double
xray__sim_slowdown(struct sim *m)
{
  double slow = 1 + fabs(m->noise * rnd_gauss(&m->rng));

  if (rnd_unit(&m->rng) < m->spikes)
    slow *= 1.5 + 4.5 * rnd_unit(&m->rng);
  return slow;
}

/* Fetch model.  The op cache serves the loop when it holds all of it
 * (and, unless exclusive, the L1I does too), at fetch[0] ops per cycle;
 * otherwise the decoders take fetch[1] instructions per cycle from at most
 * fetch[2] bytes per cycle of L1I, and a line that misses the L1I costs the
 * penalty (by default line/16 cycles: 16 bytes per cycle from L2).  Either
 * way at most fetch[3] taken jumps per cycle.  The defaults are Zen 3's
 * figures, so that simulated curves look like real ones.  With ops per
 * entry given, the op cache counts entries: each 64-byte window needs one
 * per run of code between taken jumps, and more where a run has more ops
 * than an entry holds. */
static int
uop_holds(const struct sim *m, const struct xray_stmt *s, size_t n, double ops)
{
  double per_win, runs, windows;

  if (!m->uop_ops)
    return 0;
  if (!m->uop_entry)
    return ops <= (double) m->uop_ops;
  per_win = 64.0 / s->len;
  runs = s->jumps ? per_win * s->jumps : 1;
  if (runs < 1)
    runs = 1;
  windows = ceil(((double) n * s->len + XRAY__LOOP_TAIL_BYTES) / 64);
  return windows * runs * ceil(per_win * s->ops / runs / (double) m->uop_entry)
         <= (double) (m->uop_ops / m->uop_entry);
}

/* Code runs only on a machine with an L1I: 0, or -1 with why. */
static int
need_l1i(struct sim *m)
{
  if (m->have_l1i)
    return 0;
  snprintf(m->base.error, sizeof m->base.error,
           "the simulated machine has no instruction cache (give l1i=SIZE:WAYS:LINE)");
  return -1;
}

/* Cycles an L1I miss costs a line: penalty=, by default 16 bytes a cycle
 * from L2. */
static double
miss_penalty(const struct sim *m)
{
  return m->penalty > 0 ? m->penalty : (double) m->l1i.line / 16;
}

static double
sim_code(xray_machine *base, const struct xray_stmt *s, size_t n)
{
  struct sim *m = (struct sim *) base;
  const unsigned long tail_bytes = XRAY__LOOP_TAIL_BYTES, tail_ops = XRAY__LOOP_TAIL_OPS;
  const unsigned long end = 1UL << 30;
  unsigned long first, last;
  double ops = (double) n * s->ops + tail_ops, taken = (double) n * s->jumps + 1;
  double misses, lines, cyc;

  if (need_l1i(m))
    return NAN;
  first = (end - n * s->len) / m->l1i.line;
  last = (end + tail_bytes - 1) / m->l1i.line;
  misses = xray__cache_sweep_misses(&m->l1i, first, last);
  lines = (double) (last - first + 1);
  if (uop_holds(m, s, n, ops) && (m->uop_excl || misses == 0))
    cyc = ops / m->fetch[0];
  else {
    double fetch = (lines - misses) * (double) m->l1i.line / m->fetch[2] + misses * miss_penalty(m);
    cyc = fmax(ops / m->fetch[1], fetch);
  }
  if (m->fetch[3] > 0)
    cyc = fmax(cyc, taken / m->fetch[3]);
  return xray__sim_noise(m, cyc / (double) n);
}

/* Cycles a return link costs beyond its fetch: the mispredicted return's
 * redirect (kernels.h: enum xray__link). */
#define RETURN_REDIRECT 12

/* Where chains of code pieces lie in the simulated address space. */
#define CHAIN_BASE (1UL << 34)

/* The btb's misses of piece p's taken jumps (k statements of s, each
 * ending in its jumps, and a jump link at its end): none without a btb. */
static double
btb_misses(struct sim *m, const struct xray__jchain *c, const struct xray__piece *p, size_t k,
           unsigned long bytes)
{
  const unsigned long base = CHAIN_BASE;
  double misses = 0;
  size_t j;

  if (!m->have_btb)
    return 0;
  for (j = 0; c->s->jumps && j < k; j++)
    misses += xray__cache_access(
        &m->btb, xray__cache_lineof(&m->btb, base + p->off + (j + 1) * c->s->len - 1), NULL);
  if (c->link == XRAY__LINK_JUMP)
    misses +=
        xray__cache_access(&m->btb, xray__cache_lineof(&m->btb, base + p->off + bytes - 1), NULL);
  return misses;
}

/* One pass of a chain through the L1I: misses; in *cyc the cycles its
 * fetch takes where it hits, and the btb's misses. */
static double
chain_pass(struct sim *m, const struct xray__jchain *c, double *cyc)
{
  const unsigned long base = CHAIN_BASE, line = m->l1i.line;
  double misses = 0, t = 0;
  size_t i;

  for (i = 0; i < c->n; i++) {
    size_t k = c->p[i].len / c->s->len;
    unsigned long bytes = k * c->s->len + xray__piece_link_bytes(c->link, i + 1 == c->n);
    unsigned long a = (base + c->p[i].off) / line, b = (base + c->p[i].off + bytes - 1) / line;
    double ops = (double) (k * c->s->ops) + (c->link == XRAY__LINK_RETURN ? 5 : 1);
    for (; a <= b; a++)
      misses += xray__cache_access(&m->l1i, a, NULL);
    t += m->btbpen * btb_misses(m, c, &c->p[i], k, bytes);
    /* Decoders and fetch as in sim_code, and a taken jump ends each
     * piece's fetch: at least a cycle a piece; a return link waits for its
     * redirect. */
    t += fmax(1, fmax(ops / m->fetch[1], (double) bytes / m->fetch[2]))
        + (c->link == XRAY__LINK_RETURN ? RETURN_REDIRECT : 0);
  }
  *cyc = t;
  return misses;
}

/* A chain runs from the L1I alone (the simulated op cache holds loops,
 * not chains); every line it misses costs the penalty.  Two passes warm
 * the cache and four are counted, so that random replacement averages. */
static double
sim_jchain(xray_machine *base, const struct xray__jchain *c)
{
  struct sim *m = (struct sim *) base;
  double misses = 0, cyc = 0;
  int pass;

  if (need_l1i(m))
    return NAN;
  for (pass = 0; pass < 6; pass++) {
    double t, n = chain_pass(m, c, &t);
    if (pass >= 2) {
      misses += n / 4;
      cyc = t;
    }
  }
  return xray__sim_noise(m, (cyc + misses * miss_penalty(m)) / (double) c->n);
}

/* The C path on the simulated machine: X-Ray's statement of four
 * register adds, as a compiler lays it out (12 bytes). */
static double
sim_ccode(xray_machine *base, const struct xray_cspec *c, size_t n, double *bytes)
{
  const struct xray_stmt *s = xray__stmt_find("add4");

  (void) c;
  *bytes = (double) n * s->len + XRAY__LOOP_TAIL_BYTES;
  return sim_code(base, s, n);
}

/* --- the core ------------------------------------------------------------ */

static int
sim_kbuild(xray_machine *base, const struct xray_cspec *c, size_t n)
{
  struct sim *m = (struct sim *) base;

  return xray__sim_core_kbuild(&m->cpu, c, n, base->error, sizeof base->error);
}

static double
sim_ktime(xray_machine *base, size_t i, int *avail, double *stack)
{
  struct sim *m = (struct sim *) base;
  double t = xray__sim_core_ktime(&m->cpu, i, avail, stack);

  if (!*avail)
    snprintf(base->error, sizeof base->error, "the simulated compiler lacks this type");
  return isnan(t) ? t : xray__sim_noise(m, t);
}

static int
sim_kinfo(xray_machine *base, size_t i, double *stack)
{
  struct sim *m = (struct sim *) base;
  int avail;

  xray__sim_core_ktime(&m->cpu, i, &avail, stack);
  return avail;
}

/* The clock now against the one the machine was made with: it stepped
 * once since then, drifts with simulated time, and swings for a part of
 * each probe's run from 0.4 of the way on. */
static double
clock_now(const struct sim *m)
{
  double phase = fmod(m->cpu.t, 1.0);

  return (1 + m->cpu.step) * (1 + m->cpu.drift * m->cpu.t)
      * (phase > 0.4 && phase <= 0.4 + m->cpu.swing_for + 1e-9 ? 1 + m->cpu.swing : 1);
}

/* Noise only ever slows a window down. */
static double
sim_clock(xray_machine *base, double *tsc_hz)
{
  struct sim *m = (struct sim *) base;
  double slow = xray__sim_slowdown(m);

  *tsc_hz = m->cpu.tsc * 1e6;
  if (m->cpu.hidden)
    return xray__machine_fail(base, XRAY__FAIL_ABSENT,
                              "the simulated core's clock cannot be timed (clock=none)");
  m->cpu.t += 0.025; /* a probe's 40 bursts span the drift */
  return m->cpu.mhz * 1e6 * clock_now(m) / slow;
}

static double
sim_fma(xray_machine *base, int chains)
{
  struct sim *m = (struct sim *) base;
  const struct xray__sim_core *c = &m->cpu;

  if (!c->fma_isa)
    return xray__machine_fail(base, XRAY__FAIL_ABSENT,
                              "the simulated processor has no FMA instruction");
  chains = chains == 1 ? 1 : 12;
  /* Cycles as a real machine counts them: the time at the clock it was
   * made with, so that a clock that moved since shows. */
  return xray__sim_noise(m, fmax(c->lat[1][3] / chains, 1 / c->thru[1][3]) / clock_now(m));
}

static int
sim_cpus(xray_machine *base, int *cpu, int max)
{
  struct sim *m = (struct sim *) base;
  int i;

  for (i = 0; i < m->cpu.ncpu && i < max; i++)
    cpu[i] = i;
  return m->cpu.ncpu;
}

/* Two threads of one core each run at half speed. */
static double
sim_pair(xray_machine *base, int a, int b)
{
  struct sim *m = (struct sim *) base;

  if (a < 0 || b < 0 || a >= m->cpu.ncpu || b >= m->cpu.ncpu)
    return xray__machine_fail(base, XRAY__FAIL_ERROR, "no such simulated CPU");
  return 1 / xray__sim_noise(m, a / m->cpu.smt == b / m->cpu.smt ? 2 : 1);
}

/* --- the branch kernels --------------------------------------------------- */

static int
sim_bbuild(xray_machine *base)
{
  struct sim *m = (struct sim *) base;
  size_t k;

  for (k = 0; k < XRAY__BK_N; k++)
    xray__sim_branch_count(&m->br, k, &m->bcount[k]);
  m->bbuilt = 1;
  return 0;
}

static const struct xray__bcount *
sim_bcount(xray_machine *base, size_t k)
{
  struct sim *m = (struct sim *) base;

  return m->bbuilt && k < XRAY__BK_N ? &m->bcount[k] : NULL;
}

/* Iterations of one simulated run: enough that the predictor's warm-up
 * and the random bits' luck move the time by well under 1 %. */
#define BRANCH_ITERS 20000

static double
sim_btime(xray_machine *base, size_t k, double frac, int cpu)
{
  struct sim *m = (struct sim *) base;
  struct xray__sim_branch br = m->br;
  struct xray__bstats st;

  if (cpu >= m->cpu.ncpu)
    return xray__machine_fail(base, XRAY__FAIL_ERROR, "no such simulated CPU");
  if ((cpu < 0 ? base->home : cpu) == br.slow_cpu)
    br.penalty += br.slow;
  if (!m->bbuilt || k >= XRAY__BK_N
      || xray__sim_branch_run(&br, &m->cpu, k, BRANCH_ITERS, (long) (frac * BRANCH_ITERS + 0.5),
                              &m->rng, &st))
    return xray__machine_fail(base, XRAY__FAIL_ERROR, "the branch kernels are not built");
  return xray__sim_noise(m, st.cycles / BRANCH_ITERS);
}

static int
sim_pmu(xray_machine *base)
{
  struct sim *m = (struct sim *) base;

  if (m->pmu.on)
    return 0;
  snprintf(base->error, sizeof base->error,
           "the simulated machine has no PMU (give it one with pmu=SEED)");
  return -1;
}

static const char *
sim_event_at(xray_machine *base, size_t i)
{
  return xray__sim_pmu_event_at(&((struct sim *) base)->pmu, i);
}

static double
sim_bevent(xray_machine *base, const char *name, size_t k, long size)
{
  struct sim *m = (struct sim *) base;
  struct xray__bstats st;
  double v;

  if (sim_pmu(base))
    return NAN;
  if (!m->bbuilt || k >= XRAY__BK_N
      || xray__sim_branch_run(&m->br, &m->cpu, k, size, size, &m->rng, &st))
    return xray__machine_fail(base, XRAY__FAIL_ERROR, "the branch kernels are not built");
  if ((v = xray__sim_pmu_count(&m->pmu, name, &st, NULL)) < 0)
    return xray__machine_fail(base, XRAY__FAIL_ERROR, "the simulated PMU has no event '%.60s'",
                              name);
  return v;
}

static int
sim_cevents(xray_machine *base, const char *const *names, size_t n, const struct xray__chase *c,
            long loads, double *out)
{
  if (sim_pmu(base))
    return -1;
  return xray__sim_cevents(base, names, n, c, loads, out);
}

/* The simulated machine's OS view is its truth. */
static int
sim_os_view(const xray_machine *m, const char *name, double *v, char *src, size_t srclen)
{
  if (xray__sim_truth(m, name, v))
    return -1;
  snprintf(src, srclen, "simulation");
  return 0;
}

static const struct xray__machine_ops sim_ops = {
  .code = sim_code,
  .jchain = sim_jchain,
  .ccode = sim_ccode,
  .chase = xray__sim_chase,
  .kbuild = sim_kbuild,
  .ktime = sim_ktime,
  .kinfo = sim_kinfo,
  .bbuild = sim_bbuild,
  .bcount = sim_bcount,
  .btime = sim_btime,
  .sbuild = xray__sim_sbuild,
  .stream = xray__sim_stream,
  .pmu = sim_pmu,
  .event_at = sim_event_at,
  .bevent = sim_bevent,
  .cevents = sim_cevents,
  .clock = sim_clock,
  .fma = sim_fma,
  .cpus = sim_cpus,
  .pair = sim_pair,
  .duo = xray__sim_duo,
  .reset = xray__sim_reset,
  .free = xray__sim_free,
  .os_view = sim_os_view,
};

xray_machine *
xray_machine_simulated(const char *spec, char *err, size_t errlen)
{
  struct sim *m = calloc(1, sizeof *m);
  int i, bad;

  if (!m) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  m->noise = 0.01;
  m->spikes = 0.02;
  m->fetch[0] = 6;
  m->fetch[1] = 4;
  m->fetch[2] = 32;
  m->rng = 0x2545f4914f6cdd1dULL;
  m->prng = 0x853c49e6748fea9bULL;
  m->mem = 200;
  xray__sim_core_init(&m->cpu);
  xray__sim_branch_init(&m->br);
  xray__sim_stream_init(&m->stream);
  m->tlbpen = 7;
  m->walk = 30;
  m->btbpen = 2;
  bad = xray__sim_parse(m, spec, err, errlen)
      || xray__sim_pmu_init(&m->pmu, m->nlev, m->pf_pages > 0, err, errlen);
  if (!bad && m->have_l1i)
    bad = xray__cache_init(&m->l1i);
  if (!bad && m->have_btb)
    bad = xray__cache_init(&m->btb);
  for (i = 0; !bad && i < m->nlev; i++)
    bad = xray__cache_init(&m->lev[i]);
  for (i = 0; !bad && i < m->ntlb; i++)
    bad = xray__cache_init(&m->tlb[i]);
  if (bad) {
    if (!err[0])
      snprintf(err, errlen, "out of memory");
    xray__sim_free(&m->base);
    return NULL;
  }
  if (!m->rng)
    m->rng = 1;
  m->trng = m->rng ^ 0x9e3779b97f4a7c15ULL;
  m->arng = m->rng ^ 0xd1b54a32d192ed03ULL;
  if (m->tenant) {
    const struct xray__cache *t = &m->lev[m->tenant];
    m->tlines = 8 * (t->size / t->line);
    m->tbase = (unsigned long) ((UINT64_C(1) << 52) / t->line);
  }
  m->base.ops = &sim_ops;
  m->base.modelled = 1;
  m->base.code_words = "simulated machine";
  m->base.compiler_words = "the simulated compiler";
  m->base.counter_words = "simulated";
  m->base.tenants = m->tenant > 0;
  m->base.budget = 2.0;
  m->base.page = m->colour ? m->colour : m->ntlb ? m->tlb[0].line : 4096;
  m->base.core_hz = m->cpu.hidden ? 0 : m->cpu.mhz * 1e6;
  snprintf(m->base.desc, sizeof m->base.desc, "simulated (%s)", spec);
  if (xray_machine_set_compiler(&m->base, NULL, NULL)) {
    snprintf(err, errlen, "out of memory");
    xray__sim_free(&m->base);
    return NULL;
  }
  return &m->base;
}
