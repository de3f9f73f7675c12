/* The simulated machine: a set-associative cache model behind the same
 * interface as the real machine, so that every control engine can be run
 * deterministically against parameters that are known, odd ones included
 * (non-power-of-two sizes and set counts, 3-, 5-, 12-, 20-way), with noise.
 *
 * Spec: comma-separated items
 *   l1i=SIZE:WAYS:LINE[:POLICY]   instruction cache (POLICY lru, plru, random)
 *   uop=OPS                       decoded-op cache holding OPS operations
 *   penalty=CYCLES                cost of an L1I miss per line (default line/16)
 *   noise=PERCENT                 Gaussian noise on every measurement (default 1)
 *   spikes=PERCENT                chance of an isolated 1.5-6x spike (default 2)
 *   seed=N                        noise seed
 * SIZE takes K and M suffixes (powers of 1024). */
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
  unsigned long *tag;           /* sets * ways, ~0 = invalid */
  uint64_t *age;                /* LRU stamps; PLRU: tree bits in age[set*ways] */
  unsigned long clock;
  uint64_t rng;
};

struct sim {
  struct xray_machine base;
  struct cache l1i;
  int have_l1i;
  unsigned long uop_ops;        /* 0: no op cache */
  double penalty;               /* cycles per missed line; 0: line / 16 */
  double noise, spikes;
  uint64_t rng;
};

static uint64_t
rnd(uint64_t *s)                /* xorshift64* */
{
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * UINT64_C(2685821657736338717);
}

static double
rnd_unit(uint64_t *s)
{
  return (double) (rnd(s) >> 11) / 9007199254740992.0;
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

/* Access one line address; returns 1 on a miss. */
static int
cache_access(struct cache *c, unsigned long lineaddr)
{
  unsigned long set = lineaddr % c->sets, w, victim = 0;
  unsigned long *tag = c->tag + set * c->ways;
  uint64_t *age = c->age + set * c->ways;

  c->clock++;
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
    victim = rnd(&c->rng) % c->ways;
  tag[victim] = lineaddr;
  if (c->policy == POL_PLRU)
    age[0] = plru_touch(age[0], c->ways, victim);
  else
    age[victim] = c->clock;
  return 1;
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
      int m = cache_access(c, a);
      if (pass >= 2)
        misses += (unsigned long) m;
    }
  return misses / 3.0;
}

/* --- spec parsing -------------------------------------------------------- */

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
    v *= 1024, end++;
  else if (*end == 'M' || *end == 'm')
    v *= 1024 * 1024, end++;
  if (errno || *end || v == 0) {
    snprintf(err, errlen, "%s: '%s' is not a positive number (K and M suffixes allowed)",
             what, s);
    return -1;
  }
  *out = v;
  return 0;
}

static int
parse_geometry(char *val, const char *level, struct cache *c, char *err, size_t errlen)
{
  char *f[5] = { 0 };
  int n = 0;
  char what[64];
  size_t i;

  f[n++] = val;
  for (; *val; val++)
    if (*val == ':') {
      *val = 0;
      if (n == 5)
        break;
      f[n++] = val + 1;
    }
  if (n < 3 || n > 4) {
    snprintf(err, errlen, "%s: expected SIZE:WAYS:LINE[:POLICY], e.g. %s=48K:12:64",
             level, level);
    return -1;
  }
  snprintf(what, sizeof what, "%s size", level);
  if (parse_size(f[0], what, &c->size, err, errlen))
    return -1;
  snprintf(what, sizeof what, "%s ways", level);
  if (parse_size(f[1], what, &c->ways, err, errlen))
    return -1;
  snprintf(what, sizeof what, "%s line", level);
  if (parse_size(f[2], what, &c->line, err, errlen))
    return -1;
  if (c->line & (c->line - 1) || c->line < 4) {
    snprintf(err, errlen, "%s line: %lu is not a power of two of at least 4", level, c->line);
    return -1;
  }
  if (c->size % (c->ways * c->line)) {
    snprintf(err, errlen, "%s: size %lu is not a multiple of ways x line (%lu x %lu)",
             level, c->size, c->ways, c->line);
    return -1;
  }
  if (c->ways > 64) {
    snprintf(err, errlen, "%s: at most 64 ways are simulated, not %lu", level, c->ways);
    return -1;
  }
  c->policy = POL_LRU;
  if (n == 4) {
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
  return 0;
}

static int
parse_percent(const char *s, const char *what, double *out, char *err, size_t errlen)
{
  char *end;
  double v;

  errno = 0;
  v = strtod(s, &end);
  if (errno || end == s || *end || v < 0 || v > 100) {
    snprintf(err, errlen, "%s: '%s' is not a percentage from 0 to 100", what, s);
    return -1;
  }
  *out = v / 100;
  return 0;
}

static int
parse_spec(struct sim *m, const char *spec, char *err, size_t errlen)
{
  char *buf = strdup(spec), *item, *save = NULL, *eq;
  int rc = -1;
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
      if (parse_geometry(eq, item, &m->l1i, err, errlen))
        goto out;
      m->have_l1i = 1;
    } else if (strcmp(item, "uop") == 0) {
      if (parse_size(eq, "uop ops", &m->uop_ops, err, errlen))
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
    } else {
      snprintf(err, errlen, "unknown simulated level '%s' (known: l1i, uop, penalty, noise, spikes, seed)",
               item);
      goto out;
    }
  }
  if (!m->have_l1i) {
    snprintf(err, errlen, "the simulated machine needs an l1i=SIZE:WAYS:LINE item");
    goto out;
  }
  rc = 0;
out:
  free(buf);
  return rc;
}

/* --- the measurement ----------------------------------------------------- */

/* Fetch model: an op-cache hit delivers 6 ops per cycle, the decoders 4
 * instructions per cycle from at most 32 bytes per cycle of L1I, and a line
 * that misses the L1I costs the penalty (by default line/16 cycles: 16
 * bytes per cycle from L2).  These are Zen 3's figures, so that simulated
 * curves look like real ones. */
static double
sim_code(xray_machine *base, const struct xray_stmt *s, size_t n)
{
  struct sim *m = (struct sim *) base;
  const unsigned long tail_bytes = XRAY_LOOP_TAIL_BYTES, tail_ops = XRAY_LOOP_TAIL_OPS;
  const unsigned long end = 1UL << 30;
  unsigned long first = (end - n * s->len) / m->l1i.line;
  unsigned long last = (end + tail_bytes - 1) / m->l1i.line;
  double ops = (double) n * s->ops + tail_ops, misses, lines, cyc;

  misses = cache_sweep_misses(&m->l1i, first, last);
  lines = (double) (last - first + 1);
  if (m->uop_ops && ops <= (double) m->uop_ops && misses == 0)
    cyc = ops / 6;
  else {
    double penalty = m->penalty > 0 ? m->penalty : (double) m->l1i.line / 16;
    double fetch = (lines - misses) * (double) m->l1i.line / 32 + misses * penalty;
    cyc = ops / 4 > fetch ? ops / 4 : fetch;
  }
  cyc /= (double) n;
  /* Noise never makes a run faster than a twentieth of its time. */
  cyc *= fmax(0.05, 1 + m->noise * rnd_gauss(&m->rng));
  if (rnd_unit(&m->rng) < m->spikes)
    cyc *= 1.5 + 4.5 * rnd_unit(&m->rng);
  return cyc;
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

int
xray__sim_truth(const xray_machine *base, const char *name, double *v)
{
  const struct sim *m = (const struct sim *) base;

  if (strcmp(name, "XRAY_L1I_SIZE") == 0 && m->have_l1i)
    *v = (double) m->l1i.size;
  else if (strcmp(name, "XRAY_UOP_CACHE_OPS") == 0)
    *v = (double) m->uop_ops;
  else
    return -1;
  return 0;
}

static void
sim_free(xray_machine *base)
{
  struct sim *m = (struct sim *) base;

  free(m->l1i.tag);
  free(m->l1i.age);
  free(m);
}

static void
sim_reset(xray_machine *base)
{
  (void) base;
}

static const struct xray__machine_ops sim_ops = { sim_code, sim_ccode, sim_reset, sim_free };

xray_machine *
xray_machine_simulated(const char *spec, char *err, size_t errlen)
{
  struct sim *m = calloc(1, sizeof *m);

  if (!m) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  m->noise = 0.01;
  m->spikes = 0.02;
  m->rng = 0x2545f4914f6cdd1dULL;
  if (parse_spec(m, spec, err, errlen) || cache_init(&m->l1i)) {
    if (!err[0])
      snprintf(err, errlen, "out of memory");
    free(m->l1i.tag);
    free(m->l1i.age);
    free(m);
    return NULL;
  }
  if (!m->rng)
    m->rng = 1;
  m->base.ops = &sim_ops;
  m->base.simulated = 1;
  m->base.budget = 2.0;
  xray_machine_set_compiler(&m->base, NULL, NULL);
  snprintf(m->base.desc, sizeof m->base.desc, "simulated (%s)", spec);
  return &m->base;
}
