/* The simulated machine: set-associative caches and TLBs behind the same
 * interface as the real machine, so that every control engine can be run
 * deterministically against parameters that are known, odd ones included
 * (non-power-of-two sizes and set counts, 3-, 5-, 12-, 20-way), with noise.
 *
 * Spec: comma-separated items
 *   l1i=SIZE:WAYS:LINE[:POLICY]   instruction cache (POLICY lru, plru, random)
 *   uop=OPS[:PER_ENTRY[:incl|excl]]
 *                                 decoded-op cache holding OPS operations; with
 *                                 PER_ENTRY, in entries of at most that many
 *                                 ops, one or more per 64-byte window, ended
 *                                 by a taken jump (AMD's op caches); incl: it
 *                                 serves a loop only while the L1I holds it
 *                                 too (default), excl: on its own
 *   fetch=OC:DECODE:BYTES:TAKEN   per cycle: ops the op cache delivers (6),
 *                                 instructions decoded (4), bytes fetched from
 *                                 the L1I (32), taken jumps (0: no limit)
 *   penalty=CYCLES                cost of an L1I miss per line (default line/16)
 *   l1d=SIZE:WAYS:LINE[:POLICY[:LATENCY]]   data caches, in order (default
 *   l2=..., l3=..., l4=...                  latencies 4, 12, 40, 80 cycles)
 *   mem=CYCLES                    memory latency (default 200)
 *   inclusive=yes|no              each level holds what the levels below
 *                                 hold, by back-invalidation (default no)
 *   tlb1=ENTRIES:WAYS:PAGE[:POLICY]   data TLB levels
 *   tlb2=ENTRIES:WAYS:PAGE[:POLICY]
 *   tlbpen=CYCLES                 a tlb1 miss that hits tlb2 (default 7)
 *   walk=CYCLES                   a miss in every TLB level (default 30, on
 *                                 top of tlbpen when there is a tlb2)
 *   colour=PAGE                   physical pages of PAGE bytes placed at
 *                                 random, as a hypervisor does: levels are
 *                                 indexed by physical address
 *   prefetch=next|stride|both     next-line prefetch on an L1D miss, and a
 *                                 stride prefetcher that follows two equal
 *                                 address deltas in a row
 *   tenant=LEVEL:RATE[:SWING]     another core's program sharing data level
 *                                 LEVEL (2-4): RATE loads of its own, to
 *                                 lines of a footprint 8 times the level's,
 *                                 for each of ours that reaches the level;
 *                                 its rate swings by SWING (0-1) around RATE
 *                                 over every 64 measurements, as a
 *                                 neighbour's share of a level moves
 *   noise=PERCENT                 Gaussian noise on every measurement (default 1)
 *   spikes=PERCENT                chance of an isolated 1.5-6x spike (default 2)
 *   seed=N                        noise seed
 * SIZE takes K and M suffixes (powers of 1024).  Arenas of large pages use
 * 2 MB TLB entries; the others use tlb1's PAGE. */
#include "sim.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const policies[] = { "lru", "plru", "random" };

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

/* --- spec parsing -------------------------------------------------------- */

/* The largest size, count or cycle figure a spec may give: 1 TiB. */
#define SIZE_LIMIT ((unsigned long) 1 << 40)
/* The most lines (or TLB entries) one simulated structure may have: a
 * 256 MB cache of 64-byte lines. */
#define LINES_LIMIT ((unsigned long) 1 << 22)

static int
parse_size(const char *s, const char *what, unsigned long *out, char *err, size_t errlen)
{
  char *end;
  unsigned long v;

  errno = 0;
  if (!isdigit((unsigned char) *s)) {
    snprintf(err, errlen, "%s: '%s' is not a number", what, s);
    return -1;
  }
  v = strtoul(s, &end, 10);
  if (*end == 'K' || *end == 'k')
    v = v > SIZE_LIMIT / 1024 ? SIZE_LIMIT + 1 : v * 1024, end++;
  else if (*end == 'M' || *end == 'm')
    v = v > SIZE_LIMIT / (1024 * 1024) ? SIZE_LIMIT + 1 : v * 1024 * 1024, end++;
  if (errno || *end || v == 0) {
    snprintf(err, errlen, "%s: '%s' is not a positive number (K and M suffixes allowed)",
             what, s);
    return -1;
  }
  if (v > SIZE_LIMIT) {
    snprintf(err, errlen, "%s: '%s' is more than the simulator takes (%lu)", what, s,
             (unsigned long) SIZE_LIMIT);
    return -1;
  }
  *out = v;
  return 0;
}

/* Cache (data: with a latency field) or TLB geometry.  Every number is at
 * most SIZE_LIMIT, and a TLB's entries times its page no more either, so
 * that no product wraps. */
static int
parse_geometry(char *val, const char *level, struct cache *c, int data, int tlb, char *err,
               size_t errlen)
{
  char *f[6] = { 0 };
  int n = 0;
  char what[64];
  size_t i;

  f[n++] = val;
  for (; *val; val++)
    if (*val == ':') {
      *val = 0;
      if (n == 6)
        break;
      f[n++] = val + 1;
    }
  if (n < 3 || n > (tlb ? 4 : data ? 5 : 4)) {
    snprintf(err, errlen, "%s: expected %s, e.g. %s=%s", level,
             tlb ? "ENTRIES:WAYS:PAGE[:POLICY]"
             : data ? "SIZE:WAYS:LINE[:POLICY[:LATENCY]]" : "SIZE:WAYS:LINE[:POLICY]",
             level, tlb ? "64:4:4K" : "48K:12:64");
    return -1;
  }
  snprintf(what, sizeof what, "%s %s", level, tlb ? "entries" : "size");
  if (parse_size(f[0], what, &c->size, err, errlen))
    return -1;
  snprintf(what, sizeof what, "%s ways", level);
  if (parse_size(f[1], what, &c->ways, err, errlen))
    return -1;
  snprintf(what, sizeof what, "%s %s", level, tlb ? "page" : "line");
  if (parse_size(f[2], what, &c->line, err, errlen))
    return -1;
  if (c->line & (c->line - 1) || c->line < (tlb ? 1024 : 8)) {
    snprintf(err, errlen, "%s %s: %lu is not a power of two of at least %d", level,
             tlb ? "page" : "line", c->line, tlb ? 1024 : 8);
    return -1;
  }
  if (tlb && c->size > SIZE_LIMIT / c->line) {
    snprintf(err, errlen, "%s: %lu entries of %lu bytes cover more than the simulator takes "
             "(%lu bytes)", level, c->size, c->line, (unsigned long) SIZE_LIMIT);
    return -1;
  }
  if (tlb)
    c->size *= c->line;
  if (c->ways > c->size / c->line) {
    snprintf(err, errlen, "%s: %lu ways of %lu-byte %s are more than %lu %s hold", level,
             c->ways, c->line, tlb ? "pages" : "lines", tlb ? c->size / c->line : c->size,
             tlb ? "entries" : "bytes");
    return -1;
  }
  /* Each line or entry is simulated (and reset) one by one: a structure
   * past this many is more than any probe sweeps within its budget, and
   * would cost gigabytes here. */
  if (c->size / c->line > LINES_LIMIT) {
    snprintf(err, errlen, "%s: %lu %s are more than the simulator takes (%lu)", level,
             c->size / c->line, tlb ? "entries" : "lines", (unsigned long) LINES_LIMIT);
    return -1;
  }
  if (c->size % (c->ways * c->line)) {
    if (tlb)
      snprintf(err, errlen, "%s: %lu entries are not a multiple of %lu ways", level,
               c->size / c->line, c->ways);
    else
      snprintf(err, errlen, "%s: size %lu is not a multiple of ways x line (%lu x %lu)",
               level, c->size, c->ways, c->line);
    return -1;
  }
  c->policy = POL_LRU;
  if (n >= 4) {
    for (i = 0; i < sizeof policies / sizeof *policies; i++)
      if (strcmp(f[3], policies[i]) == 0)
        break;
    if (i == sizeof policies / sizeof *policies) {
      snprintf(err, errlen, "%s: unknown replacement policy '%s' (lru, plru, random)",
               level, f[3]);
      return -1;
    }
    c->policy = (int) i;
  }
  if (c->policy == POL_PLRU && c->ways > 64) {
    snprintf(err, errlen, "%s: tree-PLRU is simulated up to 64 ways, not %lu", level, c->ways);
    return -1;
  }
  if (n == 5) {
    unsigned long lat;
    snprintf(what, sizeof what, "%s latency", level);
    if (parse_size(f[4], what, &lat, err, errlen))
      return -1;
    c->lat = (double) lat;
  }
  return 0;
}

static int
parse_percent(const char *s, const char *what, double *out, char *err, size_t errlen)
{
  char *end;
  double v;

  errno = 0;
  v = xray__decimal(s, &end);
  if (errno || end == s || *end || !(v >= 0 && v <= 100)) {
    snprintf(err, errlen, "%s: '%s' is not a percentage from 0 to 100", what, s);
    return -1;
  }
  *out = v / 100;
  return 0;
}

static int
level_of(const char *item)
{
  static const char *const names[MAX_LEVELS] = { "l1d", "l2", "l3", "l4" };
  int i;

  for (i = 0; i < MAX_LEVELS; i++)
    if (strcmp(item, names[i]) == 0)
      return i;
  return -1;
}

/* uop=OPS[:PER_ENTRY[:incl|excl]] */
static int
parse_uop(struct sim *m, char *val, char *err, size_t errlen)
{
  char *f[3] = { val, NULL, NULL }, *c;
  int k;

  for (k = 1; k < 3 && (c = strchr(f[k - 1], ':')); k++) {
    *c = 0;
    f[k] = c + 1;
  }
  if (strchr(f[2] ? f[2] : "", ':')) {
    snprintf(err, errlen, "uop: expected OPS[:PER_ENTRY[:incl|excl]], e.g. uop=6K:8:excl");
    return -1;
  }
  if (parse_size(f[0], "uop ops", &m->uop_ops, err, errlen)
      || (f[1] && parse_size(f[1], "uop ops per entry", &m->uop_entry, err, errlen)))
    return -1;
  if (f[2] && strcmp(f[2], "incl") && strcmp(f[2], "excl")) {
    snprintf(err, errlen, "uop: '%s' is not incl or excl", f[2]);
    return -1;
  }
  m->uop_excl = f[2] && strcmp(f[2], "excl") == 0;
  if (m->uop_entry > m->uop_ops) {
    snprintf(err, errlen, "uop: %lu ops per entry, more than the %lu ops it holds",
             m->uop_entry, m->uop_ops);
    return -1;
  }
  return 0;
}

/* fetch=OC:DECODE:BYTES:TAKEN, per cycle; TAKEN may be 0 (no limit). */
static int
parse_fetch(struct sim *m, const char *val, char *err, size_t errlen)
{
  const char *p = val;
  int i;

  for (i = 0; i < 4; i++) {
    char *end;
    double v = xray__decimal(p, &end);
    if (end == p || !(v >= 0) || v > 1024 || (v == 0 && i < 3)
        || *end != (i < 3 ? ':' : 0)) {
      snprintf(err, errlen, "fetch=%s: expected OC:DECODE:BYTES:TAKEN per cycle, "
               "e.g. fetch=6:4:32:1 (TAKEN 0: no limit)", val);
      return -1;
    }
    m->fetch[i] = v;
    p = end + 1;
  }
  return 0;
}

static int
parse_spec(struct sim *m, const char *spec, char *err, size_t errlen)
{
  char *buf = strdup(spec), *item, *save = NULL, *eq;
  int rc = -1, lv, r;
  unsigned long v;

  if (!buf) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
    if (!(eq = strchr(item, '='))) {
      snprintf(err, errlen, "'%s': expected LEVEL=VALUE, e.g. l1i=32K:8:64", item);
      goto out;
    }
    *eq++ = 0;
    if (strcmp(item, "l1i") == 0) {
      if (m->have_l1i) {
        snprintf(err, errlen, "l1i given twice");
        goto out;
      }
      if (parse_geometry(eq, item, &m->l1i, 0, 0, err, errlen))
        goto out;
      m->have_l1i = 1;
    } else if (strcmp(item, "uop") == 0) {
      if (parse_uop(m, eq, err, errlen))
        goto out;
    } else if (strcmp(item, "fetch") == 0) {
      if (parse_fetch(m, eq, err, errlen))
        goto out;
    } else if (strcmp(item, "penalty") == 0) {
      if (parse_size(eq, "penalty cycles", &v, err, errlen))
        goto out;
      m->penalty = (double) v;
    } else if (strcmp(item, "noise") == 0) {
      if (parse_percent(eq, "noise", &m->noise, err, errlen))
        goto out;
    } else if (strcmp(item, "spikes") == 0) {
      if (parse_percent(eq, "spikes", &m->spikes, err, errlen))
        goto out;
    } else if (strcmp(item, "seed") == 0) {
      /* Any whole number a 64-bit generator can start from: 0 too (the
       * generator's all-zero state is replaced below). */
      char *end;
      unsigned long long sv;
      errno = 0;
      sv = isdigit((unsigned char) *eq) ? strtoull(eq, &end, 10) : 0;
      if (!isdigit((unsigned char) *eq) || errno || *end) {
        snprintf(err, errlen, "seed: '%s' is not a whole number from 0 to %llu", eq,
                 (unsigned long long) UINT64_MAX);
        goto out;
      }
      m->rng = sv ? (uint64_t) sv : UINT64_C(0xd1b54a32d192ed03);
    } else if ((lv = level_of(item)) >= 0) {
      static const double deflat[MAX_LEVELS] = { 4, 12, 40, 80 };
      if (lv != m->nlev) {
        snprintf(err, errlen, lv < m->nlev ? "%s given twice"
                 : "%s needs the levels below it (give l1d, l2, ... in order)", item);
        goto out;
      }
      m->lev[lv].lat = deflat[lv];
      if (parse_geometry(eq, item, &m->lev[lv], 1, 0, err, errlen))
        goto out;
      m->nlev++;
    } else if (strcmp(item, "tlb1") == 0 || strcmp(item, "tlb2") == 0) {
      int t = item[3] - '1';
      if (t != m->ntlb) {
        snprintf(err, errlen, t < m->ntlb ? "%s given twice" : "tlb2 needs a tlb1", item);
        goto out;
      }
      if (parse_geometry(eq, item, &m->tlb[t], 0, 1, err, errlen))
        goto out;
      m->ntlb++;
    } else if (strcmp(item, "mem") == 0 || strcmp(item, "tlbpen") == 0
               || strcmp(item, "walk") == 0) {
      char what[32];
      snprintf(what, sizeof what, "%s cycles", item);
      if (parse_size(eq, what, &v, err, errlen))
        goto out;
      *(item[0] == 'm' ? &m->mem : item[0] == 't' ? &m->tlbpen : &m->walk) = (double) v;
    } else if (strcmp(item, "colour") == 0 || strcmp(item, "color") == 0) {
      if (parse_size(eq, "colour page", &m->colour, err, errlen))
        goto out;
      if (m->colour & (m->colour - 1) || m->colour < 1024) {
        snprintf(err, errlen, "colour page: %lu is not a power of two of at least 1024",
                 m->colour);
        goto out;
      }
    } else if (strcmp(item, "inclusive") == 0) {
      if (strcmp(eq, "yes") && strcmp(eq, "no")) {
        snprintf(err, errlen, "inclusive: '%s' is not yes or no", eq);
        goto out;
      }
      m->inclusive = strcmp(eq, "yes") == 0;
    } else if (strcmp(item, "prefetch") == 0) {
      m->pf_next = strcmp(eq, "next") == 0 || strcmp(eq, "both") == 0;
      m->pf_stride = strcmp(eq, "stride") == 0 || strcmp(eq, "both") == 0;
      if (!m->pf_next && !m->pf_stride && strcmp(eq, "none")) {
        snprintf(err, errlen, "prefetch: '%s' is not next, stride, both or none", eq);
        goto out;
      }
    } else if (strcmp(item, "tenant") == 0) {
      char *end;
      long lv = strtol(eq, &end, 10);
      m->tswing = 0;
      if (end == eq || *end != ':' || lv < 2 || lv > 4
          || !((m->trate = xray__decimal(end + 1, &end)) > 0) || m->trate > 64
          || (*end && (*end != ':' || !((m->tswing = xray__decimal(end + 1, &end)) >= 0)
                       || m->tswing > 1 || *end))) {
        snprintf(err, errlen, "tenant: '%s' is not LEVEL:RATE[:SWING] (level 2-4, rate above "
                 "0 up to 64 loads per load, swing 0-1)", eq);
        goto out;
      }
      m->tenant = (int) lv - 1;
    } else if ((r = xray__simcpu_item(&m->cpu, item, eq, err, errlen)) != 0) {
      if (r < 0)
        goto out;
      m->cpu_items = 1;
    } else {
      snprintf(err, errlen, "unknown simulated level '%s' (known: l1i, uop, fetch, penalty, "
               "l1d, l2, l3, l4, mem, inclusive, tlb1, tlb2, tlbpen, walk, colour, prefetch, "
               "tenant, clock, tsc, drift, int, fp, ithru, fthru, regs, vec, fma, contract, loop, "
               "cpus, smt, noise, spikes, seed)", item);
      goto out;
    }
  }
  if (!m->have_l1i && !m->nlev && !m->cpu_items) {
    snprintf(err, errlen, "the simulated machine needs an l1i=SIZE:WAYS:LINE or "
             "l1d=SIZE:WAYS:LINE item, or a core item such as clock=MHZ");
    goto out;
  }
  if (m->tenant && m->tenant >= m->nlev) {
    snprintf(err, errlen, "tenant: there is no data level %d", m->tenant + 1);
    goto out;
  }
  if (m->cpu.ncpu % m->cpu.smt) {
    snprintf(err, errlen, "cpus=%d is not a multiple of smt=%d", m->cpu.ncpu, m->cpu.smt);
    goto out;
  }
  rc = 0;
out:
  free(buf);
  return rc;
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
  windows = ceil(((double) n * s->len + XRAY_LOOP_TAIL_BYTES) / 64);
  return windows * runs * ceil(per_win * s->ops / runs / (double) m->uop_entry)
         <= (double) (m->uop_ops / m->uop_entry);
}

static double
sim_code(xray_machine *base, const struct xray_stmt *s, size_t n)
{
  struct sim *m = (struct sim *) base;
  const unsigned long tail_bytes = XRAY_LOOP_TAIL_BYTES, tail_ops = XRAY_LOOP_TAIL_OPS;
  const unsigned long end = 1UL << 30;
  unsigned long first = (end - n * s->len) / m->l1i.line;
  unsigned long last = (end + tail_bytes - 1) / m->l1i.line;
  double ops = (double) n * s->ops + tail_ops, taken = (double) n * s->jumps + 1;
  double misses, lines, cyc;

  if (!m->have_l1i) {
    snprintf(base->error, sizeof base->error,
             "the simulated machine has no instruction cache (give l1i=SIZE:WAYS:LINE)");
    return NAN;
  }

  misses = xray__simcache_sweep_misses(&m->l1i, first, last);
  lines = (double) (last - first + 1);
  if (uop_holds(m, s, n, ops) && (m->uop_excl || misses == 0))
    cyc = ops / m->fetch[0];
  else {
    double penalty = m->penalty > 0 ? m->penalty : (double) m->l1i.line / 16;
    double fetch = (lines - misses) * (double) m->l1i.line / m->fetch[2] + misses * penalty;
    cyc = fmax(ops / m->fetch[1], fetch);
  }
  if (m->fetch[3] > 0)
    cyc = fmax(cyc, taken / m->fetch[3]);
  return xray__sim_noise(m, cyc / (double) n);
}

/* The C path on the simulated machine: X-Ray's statement of four
 * register adds, as a compiler lays it out (12 bytes). */
static double
sim_ccode(xray_machine *base, const struct xray_cspec *c, size_t n, double *bytes)
{
  const struct xray_stmt *s = xray__stmt_find("add4");

  (void) c;
  *bytes = (double) n * s->len + XRAY_LOOP_TAIL_BYTES;
  return sim_code(base, s, n);
}

/* --- the core ------------------------------------------------------------ */

static int
sim_kbuild(xray_machine *base, const struct xray_cspec *c, size_t n)
{
  struct sim *m = (struct sim *) base;

  return xray__simcpu_kbuild(&m->cpu, c, n, base->error, sizeof base->error);
}

static double
sim_ktime(xray_machine *base, size_t i, int *avail, double *stack)
{
  struct sim *m = (struct sim *) base;
  double t = xray__simcpu_ktime(&m->cpu, i, avail, stack);

  if (!*avail)
    snprintf(base->error, sizeof base->error, "the simulated compiler lacks this type");
  return isnan(t) ? t : xray__sim_noise(m, t);
}

static int
sim_kinfo(xray_machine *base, size_t i, double *stack)
{
  struct sim *m = (struct sim *) base;
  int avail;

  xray__simcpu_ktime(&m->cpu, i, &avail, stack);
  return avail;
}

/* Noise only ever slows a window down; the clock drifts with simulated
 * time. */
static double
sim_clock(xray_machine *base, double *tsc_hz)
{
  struct sim *m = (struct sim *) base;
  double slow = 1 + fabs(m->noise * rnd_gauss(&m->rng));

  if (rnd_unit(&m->rng) < m->spikes)
    slow *= 1.5 + 4.5 * rnd_unit(&m->rng);
  m->cpu.t += 0.025;             /* a probe's 40 bursts span the drift */
  *tsc_hz = m->cpu.tsc * 1e6;
  return m->cpu.mhz * 1e6 * (1 + m->cpu.drift * m->cpu.t) / slow;
}

static double
sim_fma(xray_machine *base, int chains)
{
  struct sim *m = (struct sim *) base;
  const struct xray__simcpu *c = &m->cpu;

  if (!c->fma_isa) {
    snprintf(base->error, sizeof base->error, "the simulated processor has no FMA instruction");
    return NAN;
  }
  chains = chains == 1 ? 1 : 12;
  return xray__sim_noise(m, fmax(c->lat[1][3] / chains, 1 / c->thru[1][3]));
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

  if (a < 0 || b < 0 || a >= m->cpu.ncpu || b >= m->cpu.ncpu) {
    snprintf(base->error, sizeof base->error, "no such simulated CPU");
    return NAN;
  }
  return 1 / xray__sim_noise(m, a / m->cpu.smt == b / m->cpu.smt ? 2 : 1);
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
  .code = sim_code, .ccode = sim_ccode, .chase = xray__sim_chase, .kbuild = sim_kbuild,
  .ktime = sim_ktime, .kinfo = sim_kinfo, .clock = sim_clock, .fma = sim_fma,
  .cpus = sim_cpus, .pair = sim_pair, .reset = xray__sim_reset, .free = xray__sim_free,
  .os_view = sim_os_view
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
  xray__simcpu_init(&m->cpu);
  m->tlbpen = 7;
  m->walk = 30;
  bad = parse_spec(m, spec, err, errlen);
  if (!bad && m->have_l1i)
    bad = xray__simcache_init(&m->l1i);
  for (i = 0; !bad && i < m->nlev; i++)
    bad = xray__simcache_init(&m->lev[i]);
  for (i = 0; !bad && i < m->ntlb; i++)
    bad = xray__simcache_init(&m->tlb[i]);
  if (bad) {
    if (!err[0])
      snprintf(err, errlen, "out of memory");
    xray__sim_free(&m->base);
    return NULL;
  }
  if (!m->rng)
    m->rng = 1;
  m->trng = m->rng ^ 0x9e3779b97f4a7c15ULL;
  m->base.ops = &sim_ops;
  m->base.simulated = 1;
  m->base.budget = 2.0;
  m->base.page = m->colour ? m->colour : m->ntlb ? m->tlb[0].line : 4096;
  m->base.core_hz = m->cpu.mhz * 1e6;
  snprintf(m->base.desc, sizeof m->base.desc, "simulated (%s)", spec);
  if (xray_machine_set_compiler(&m->base, NULL, NULL)) {
    snprintf(err, errlen, "out of memory");
    xray__sim_free(&m->base);
    return NULL;
  }
  return &m->base;
}
