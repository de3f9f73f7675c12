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
#include "xray-internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { POL_LRU, POL_PLRU, POL_RANDOM };
static const char *const policies[] = { "lru", "plru", "random" };

struct cache {
  unsigned long size, ways, line, sets;
  int policy;
  double lat;                   /* cycles for a hit (data levels) */
  unsigned long *tag;           /* sets * ways, ~0 = invalid */
  uint64_t *age;                /* LRU stamps; PLRU: tree bits in age[set*ways] */
  unsigned long clock;
  uint64_t rng;
};

#define MAX_LEVELS 4

struct pmap {                   /* virtual page -> random physical page */
  uint64_t *key, *val;
  size_t cap, n;
};

struct sim {
  struct xray_machine base;
  struct cache l1i;
  int have_l1i;
  struct cache lev[MAX_LEVELS]; /* data levels, L1D first */
  int nlev;
  double mem;
  int inclusive;
  struct cache tlb[2];
  int ntlb;
  double tlbpen, walk;
  unsigned long colour;         /* physical page size; 0: identity */
  struct pmap pmap;
  uint64_t prng;                /* physical placement */
  int pf_next, pf_stride;
  uint64_t pf_last, pf_delta;
  int tenant;                   /* the level a neighbour shares (index), or 0 */
  double trate, tswing, tnow, tacc;  /* its loads per ours; swing; this measurement's
                                      * rate; loads owed */
  unsigned long tcalls;         /* measurements so far */
  uint64_t trng;
  unsigned long uop_ops;        /* 0: no op cache */
  unsigned long uop_entry;      /* ops per entry; 0: only the op count limits */
  int uop_excl;                 /* serves loops the L1I does not hold */
  double fetch[4];              /* op cache, decode, L1I bytes, taken jumps */
  double penalty;               /* cycles per missed line; 0: line / 16 */
  double noise, spikes;
  uint64_t rng;
  struct xray__simcpu cpu;
  int cpu_items;                /* the spec describes the core */
};

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

/* --- the cache ---------------------------------------------------------- */

static void
cache_reset(struct cache *c)
{
  unsigned long i;

  for (i = 0; i < c->sets * c->ways; i++) {
    c->tag[i] = ~0UL;
    c->age[i] = 0;
  }
  c->clock = 0;
}

static int
cache_init(struct cache *c)
{
  c->sets = c->size / (c->ways * c->line);
  c->tag = malloc(c->sets * c->ways * sizeof *c->tag);
  c->age = malloc(c->sets * c->ways * sizeof *c->age);
  if (!c->tag || !c->age)
    return -1;
  c->rng = 0x9e3779b97f4a7c15u;
  cache_reset(c);
  return 0;
}

/* Tree-PLRU over the next power of two >= ways; node k of the tree is bit
 * k of one 64-bit word per set (ways <= 64).  A set bit means the right
 * half was used last, so the victim search goes left; leaves beyond `ways`
 * are never chosen. */
static unsigned long
plru_victim(uint64_t bits, unsigned long ways)
{
  unsigned long n = 1, node = 1, lo = 0, span;

  while (n < ways)
    n <<= 1;
  for (span = n; span > 1;) {
    span >>= 1;
    if (!((bits >> node) & 1) && lo + span < ways) {
      lo += span;
      node = 2 * node + 1;
    } else
      node = 2 * node;
  }
  return lo;
}

static uint64_t
plru_touch(uint64_t bits, unsigned long ways, unsigned long way)
{
  unsigned long n = 1, node = 1, lo = 0, span;

  while (n < ways)
    n <<= 1;
  for (span = n; span > 1;) {
    span >>= 1;
    if (way >= lo + span) {
      bits |= UINT64_C(1) << node;
      lo += span;
      node = 2 * node + 1;
    } else {
      bits &= ~(UINT64_C(1) << node);
      node = 2 * node;
    }
  }
  return bits;
}

/* Access one line address; returns 1 on a miss (the line is then
 * allocated), and in *evicted (if not NULL) the line it displaced, or ~0. */
static int
cache_access(struct cache *c, unsigned long lineaddr, unsigned long *evicted)
{
  unsigned long set = lineaddr % c->sets, w, victim = 0;
  unsigned long *tag = c->tag + set * c->ways;
  uint64_t *age = c->age + set * c->ways;

  c->clock++;
  if (evicted)
    *evicted = ~0UL;
  for (w = 0; w < c->ways; w++)
    if (tag[w] == lineaddr) {
      if (c->policy == POL_PLRU)
        age[0] = plru_touch(age[0], c->ways, w);
      else
        age[w] = c->clock;
      return 0;
    }
  for (w = 0; w < c->ways; w++)
    if (tag[w] == ~0UL)
      break;
  if (w < c->ways)
    victim = w;
  else if (c->policy == POL_LRU) {
    for (w = 1; w < c->ways; w++)
      if (age[w] < age[victim])
        victim = w;
  } else if (c->policy == POL_PLRU)
    victim = plru_victim(age[0], c->ways);
  else
    victim = xray__rand(&c->rng) % c->ways;
  if (evicted)
    *evicted = tag[victim];
  tag[victim] = lineaddr;
  if (c->policy == POL_PLRU)
    age[0] = plru_touch(age[0], c->ways, victim);
  else
    age[victim] = c->clock;
  return 1;
}

static void
cache_invalidate(struct cache *c, unsigned long lineaddr)
{
  unsigned long set = lineaddr % c->sets, w;
  unsigned long *tag = c->tag + set * c->ways;

  for (w = 0; w < c->ways; w++)
    if (tag[w] == lineaddr)
      tag[w] = ~0UL;
}

/* Misses per pass of a loop that sweeps lines [first, last] cyclically. */
static double
cache_sweep_misses(struct cache *c, unsigned long first, unsigned long last)
{
  unsigned long a, misses = 0;
  int pass;

  cache_reset(c);
  for (pass = 0; pass < 5; pass++)
    for (a = first; a <= last; a++) {
      int m = cache_access(c, a, NULL);
      if (pass >= 2)
        misses += (unsigned long) m;
    }
  return misses / 3.0;
}

/* --- spec parsing -------------------------------------------------------- */

/* The largest size, count or cycle figure a spec may give: 1 TiB. */
#define SIZE_LIMIT ((unsigned long) 1 << 40)

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
  v = strtod(s, &end);
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
    double v = strtod(p, &end);
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
      if (parse_size(eq, "seed", &v, err, errlen))
        goto out;
      m->rng = v;
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
          || !((m->trate = strtod(end + 1, &end)) > 0) || m->trate > 64
          || (*end && (*end != ':' || !((m->tswing = strtod(end + 1, &end)) >= 0)
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

static double
add_noise(struct sim *m, double cyc)
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

  misses = cache_sweep_misses(&m->l1i, first, last);
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
  return add_noise(m, cyc / (double) n);
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


/* --- the data side ------------------------------------------------------- */

/* Virtual bases of the two arenas, far apart. */
#define HUGE_BASE (UINT64_C(1) << 40)
#define SMALL_BASE (UINT64_C(1) << 42)
#define HUGE_PAGE (UINT64_C(2) << 20)

/* The physical page behind a virtual one: random, given on first touch,
 * kept until reset (like pages a hypervisor hands out). */
static uint64_t
pmap_get(struct sim *m, uint64_t vpage)
{
  struct pmap *p = &m->pmap;
  size_t i;

  if (2 * (p->n + 1) > p->cap) {
    struct pmap q = { 0, 0, p->cap ? 2 * p->cap : 4096, 0 };
    q.key = malloc(q.cap * sizeof *q.key);
    q.val = malloc(q.cap * sizeof *q.val);
    if (!q.key || !q.val) {
      free(q.key);
      free(q.val);
      return vpage;             /* out of memory: identity, still a valid machine */
    }
    for (i = 0; i < q.cap; i++)
      q.key[i] = ~UINT64_C(0);
    for (i = 0; i < p->cap; i++)
      if (p->key[i] != ~UINT64_C(0)) {
        size_t j = (size_t) (p->key[i] * UINT64_C(0x9e3779b97f4a7c15) >> 7) % q.cap;
        while (q.key[j] != ~UINT64_C(0))
          j = (j + 1) % q.cap;
        q.key[j] = p->key[i];
        q.val[j] = p->val[i];
        q.n++;
      }
    free(p->key);
    free(p->val);
    *p = q;
  }
  i = (size_t) (vpage * UINT64_C(0x9e3779b97f4a7c15) >> 7) % p->cap;
  while (p->key[i] != ~UINT64_C(0) && p->key[i] != vpage)
    i = (i + 1) % p->cap;
  if (p->key[i] == ~UINT64_C(0)) {
    p->key[i] = vpage;
    p->val[i] = xray__rand(&m->prng) >> 28;
    p->n++;
  }
  return p->val[i];
}

static uint64_t
physical(struct sim *m, uint64_t va)
{
  if (!m->colour)
    return va;
  return pmap_get(m, va / m->colour) * m->colour + va % m->colour;
}

/* Bring the line of pa into levels from..nlev-1 and below it; returns the
 * index of the level that had it (nlev: memory).  Every level is indexed
 * by physical address: for an L1 whose way fits in a page (VIPT, as L1s
 * are) that is the same index as the virtual one. */
static int
fill(struct sim *m, uint64_t pa)
{
  int i, j;

  for (i = 0; i < m->nlev; i++) {
    unsigned long ev;
    if (!cache_access(&m->lev[i], (unsigned long) (pa / m->lev[i].line), &ev))
      break;
    if (m->inclusive && i > 0 && ev != ~0UL)
      for (j = 0; j < i; j++) {
        unsigned long a = ev * m->lev[i].line, e = a + m->lev[i].line;
        for (; a < e; a += m->lev[j].line)
          cache_invalidate(&m->lev[j], a / m->lev[j].line);
      }
  }
  /* An inclusive level that hit still refreshes nothing below: the lines
   * were allocated on the way down by the misses above. */
  return i;
}

static double
load(struct sim *m, uint64_t va, int huge)
{
  double cyc = 0;
  uint64_t pa;
  int hit;

  if (m->ntlb) {
    uint64_t page = huge ? va / HUGE_PAGE + (UINT64_C(1) << 50) : va / m->tlb[0].line;
    if (cache_access(&m->tlb[0], (unsigned long) page, NULL)) {
      if (m->ntlb > 1) {
        uint64_t p2 = huge ? page : va / m->tlb[1].line;
        cyc += m->tlbpen;
        if (cache_access(&m->tlb[1], (unsigned long) p2, NULL))
          cyc += m->walk;
      } else
        cyc += m->walk;
    }
  }
  pa = physical(m, va);
  hit = fill(m, pa);
  /* The neighbour's loads, at the shared level, to lines of its own. */
  if (m->tenant && hit >= m->tenant)
    for (m->tacc += m->tnow; m->tacc >= 1; m->tacc -= 1) {
      struct cache *t = &m->lev[m->tenant];
      unsigned long lines = 8 * (t->size / t->line);
      cache_access(t, (unsigned long) ((UINT64_C(1) << 52) / t->line
                                       + xray__rand(&m->trng) % lines), NULL);
    }
  cyc += hit < m->nlev ? m->lev[hit].lat : m->mem;
  if (m->pf_next && hit > 0)
    fill(m, pa + m->lev[0].line);
  if (m->pf_stride) {
    uint64_t d = va - m->pf_last;
    if (d == m->pf_delta && d != 0)
      fill(m, physical(m, va + d));
    m->pf_delta = d;
    m->pf_last = va;
  }
  return cyc;
}

/* Loads timed at most per measurement: a long chain is timed on a stretch
 * of it, as the real machine does. */
#define SIM_LOADS_MAX 262144
#define SIM_LOADS_MIN 4096
#define SIM_LOADS_QUICK 49152

static double
sim_chase(xray_machine *base, const struct xray__chase *c)
{
  struct sim *m = (struct sim *) base;
  int huge = c->arena == XRAY_ARENA_HUGE;
  uint64_t b = huge ? HUGE_BASE : SMALL_BASE;
  size_t i, loads, done = 0;
  double sum = 0;
  int pass;

  if (!m->nlev) {
    snprintf(base->error, sizeof base->error,
             "the simulated machine has no data cache (give l1d=SIZE:WAYS:LINE)");
    return NAN;
  }
  if (c->n == 0)
    return NAN;
  m->tnow = m->trate * (1 + m->tswing * sin(6.283185307179586 * (double) m->tcalls++ / 64));
  /* A quick draw (one of many to be averaged) warms with one traversal,
   * as the real machine does. */
  for (pass = 0; pass < (c->quick ? 1 : 2); pass++)
    for (i = 0; i < c->n; i++)
      load(m, b + c->off[i], huge);
  loads = c->n < SIM_LOADS_MIN ? SIM_LOADS_MIN : c->n > SIM_LOADS_MAX ? SIM_LOADS_MAX : c->n;
  if (c->quick && loads > SIM_LOADS_QUICK)
    loads = SIM_LOADS_QUICK;
  for (i = 0; done < loads; done++, i = i + 1 < c->n ? i + 1 : 0)
    sum += load(m, b + c->off[i], huge);
  return add_noise(m, sum / (double) loads);
}

/* The simulated truth of a named value, for the OS view. */
int
xray__sim_truth(const xray_machine *base, const char *name, double *v)
{
  const struct sim *m = (const struct sim *) base;
  int lv;
  char field[16];

  if (xray__simcpu_truth(&m->cpu, name, v) == 0)
    return 0;
  if (strcmp(name, "XRAY_L1I_SIZE") == 0 && m->have_l1i)
    *v = (double) m->l1i.size;
  else if (strcmp(name, "XRAY_UOP_CACHE_OPS") == 0 && m->have_l1i)
    *v = (double) m->uop_ops;
  else if (strcmp(name, "XRAY_CACHE_LEVELS") == 0 && m->nlev)
    *v = m->nlev;
  else if (strcmp(name, "XRAY_MEM_LATENCY") == 0 && m->nlev)
    *v = m->mem;
  else if (strcmp(name, "XRAY_PAGE_SIZE") == 0 && (m->ntlb || m->colour))
    *v = (double) (m->ntlb ? m->tlb[0].line : m->colour);
  else if (strcmp(name, "XRAY_DTLB_ENTRIES") == 0 && m->ntlb)
    *v = (double) (m->tlb[0].size / m->tlb[0].line);
  else if (strcmp(name, "XRAY_DTLB_ASSOC") == 0 && m->ntlb)
    *v = (double) m->tlb[0].ways;
  else if (strcmp(name, "XRAY_L2TLB_ENTRIES") == 0 && m->ntlb > 1)
    *v = (double) (m->tlb[1].size / m->tlb[1].line);
  else if (strcmp(name, "XRAY_L2TLB_ASSOC") == 0 && m->ntlb > 1)
    *v = (double) m->tlb[1].ways;
  else if (strcmp(name, "XRAY_DTLB_MISS_LATENCY") == 0 && m->ntlb > 1)
    *v = m->tlbpen;
  else if (strcmp(name, "XRAY_TLB_MISS_LATENCY") == 0 && m->ntlb)
    *v = m->walk + (m->ntlb > 1 ? m->tlbpen : 0);
  else if ((sscanf(name, "XRAY_L%dD_%15s", &lv, field) == 2 && lv == 1)
           || (sscanf(name, "XRAY_L%d_%15s", &lv, field) == 2 && lv >= 2)) {
    const struct cache *c;
    if (lv > m->nlev)
      return -1;
    c = &m->lev[lv - 1];
    if (strcmp(field, "SIZE") == 0)
      *v = (double) c->size;
    else if (strcmp(field, "ASSOC") == 0)
      *v = (double) c->ways;
    else if (strcmp(field, "LINE") == 0)
      *v = (double) c->line;
    else if (strcmp(field, "LATENCY") == 0)
      *v = c->lat;
    else
      return -1;
  } else
    return -1;
  return 0;
}

static void
cache_free(struct cache *c)
{
  free(c->tag);
  free(c->age);
  c->tag = NULL;
  c->age = NULL;
}

static void
sim_free(xray_machine *base)
{
  struct sim *m = (struct sim *) base;
  int i;

  cache_free(&m->l1i);
  for (i = 0; i < MAX_LEVELS; i++)
    cache_free(&m->lev[i]);
  cache_free(&m->tlb[0]);
  cache_free(&m->tlb[1]);
  free(m->pmap.key);
  free(m->pmap.val);
  xray__simcpu_free(&m->cpu);
  free(m);
}

/* Fresh memory: new physical pages. */
static void
sim_reset(xray_machine *base)
{
  struct sim *m = (struct sim *) base;

  free(m->pmap.key);
  free(m->pmap.val);
  memset(&m->pmap, 0, sizeof m->pmap);
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
  return isnan(t) ? t : add_noise(m, t);
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
  return add_noise(m, fmax(c->lat[1][3] / chains, 1 / c->thru[1][3]));
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
  return 1 / add_noise(m, a / m->cpu.smt == b / m->cpu.smt ? 2 : 1);
}

static const struct xray__machine_ops sim_ops = {
  sim_code, sim_ccode, sim_chase, sim_kbuild, sim_ktime, sim_kinfo, sim_clock,
  sim_fma,  sim_cpus,  sim_pair,  sim_reset,  sim_free
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
    bad = cache_init(&m->l1i);
  for (i = 0; !bad && i < m->nlev; i++)
    bad = cache_init(&m->lev[i]);
  for (i = 0; !bad && i < m->ntlb; i++)
    bad = cache_init(&m->tlb[i]);
  if (bad) {
    if (!err[0])
      snprintf(err, errlen, "out of memory");
    sim_free(&m->base);
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
  xray_machine_set_compiler(&m->base, NULL, NULL);
  snprintf(m->base.desc, sizeof m->base.desc, "simulated (%s)", spec);
  return &m->base;
}
