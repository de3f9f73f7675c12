/* The simulated machine's spec, as --simulate and XRAY_SIMULATE give it:
 * every size, count and product checked, every refusal naming the item.
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
 *   btb=SIZE:WAYS:LINE[:POLICY]   branch target buffer of chains of code: an
 *                                 entry per LINE-byte block that holds a
 *                                 taken jump, SIZE bytes of blocks in all
 *   btbpen=CYCLES                 a taken jump it misses (default 2)
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
 *   pfpages=N                     an L2 page prefetcher tracking the N pages of
 *                                 the latest L1D misses (LRU): the fourth miss
 *                                 to a tracked page brings the rest of the
 *                                 page into the L2 and below (0: none)
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
 *   bw1..bw4, bwmem=READ:WRITE[:ALL], bwnt=RATE, bwloop=RATE
 *                                 bandwidth per level (sim/stream.c)
 *   share1..share4=CPUS, c2c=CYCLES, adjline=BYTES[:PERCENT]
 *                                 levels shared between CPUs, moving a line
 *                                 between cores, the adjacent-line
 *                                 prefetcher (sim/duo.c)
 *   branch=PENALTY[:HISTORY[:WINDOW]], bselect=yes|no, bslow=CPU:CYCLES
 *                                 the branch unit (sim/branch.c)
 *   pmu=SEED[:EVENTS]             a PMU of EVENTS events (sim/pmu.c)
 *   noise=PERCENT                 Gaussian noise on every measurement (default 1)
 *   spikes=PERCENT                chance of an isolated 1.5-6x spike (default 2)
 *   seed=N                        noise seed
 *   kind=NAME                     the name of this kind of core, in a hybrid
 *                                 machine's spec: machines separated by ';',
 *                                 one a kind, the fastest first (run/kinds.c);
 *                                 a machine measured without kinds is the
 *                                 first
 * SIZE takes K and M suffixes (powers of 1024).  Arenas of large pages use
 * 2 MB TLB entries; the others use tlb1's PAGE. */
#include "sim.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const policies[] = { "lru", "plru", "random" };

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

/* Whether the geometry in c adds up: a power-of-two line (page), ways
 * that fit, no more lines than the simulator takes, whole sets.  0, or
 * -1 with err. */
static int
check_geometry(struct xray__cache *c, const char *level, int tlb, char *err, size_t errlen)
{
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
  return 0;
}

/* The replacement policy name (NULL: LRU) into c; 0, or -1 with err. */
static int
parse_policy(const char *name, const char *level, struct xray__cache *c, char *err, size_t errlen)
{
  size_t i;

  c->policy = XRAY__POL_LRU;
  if (name) {
    for (i = 0; i < sizeof policies / sizeof *policies; i++)
      if (strcmp(name, policies[i]) == 0)
        break;
    if (i == sizeof policies / sizeof *policies) {
      snprintf(err, errlen, "%s: unknown replacement policy '%s' (lru, plru, random)", level, name);
      return -1;
    }
    c->policy = (int) i;
  }
  if (c->policy == XRAY__POL_PLRU && c->ways > 64) {
    snprintf(err, errlen, "%s: tree-PLRU is simulated up to 64 ways, not %lu", level, c->ways);
    return -1;
  }
  return 0;
}

/* Cache (data: with a latency field) or TLB geometry.  Every number is at
 * most SIZE_LIMIT, and a TLB's entries times its page no more either, so
 * that no product wraps. */
static int
parse_geometry(char *val, const char *level, struct xray__cache *c, int data, int tlb, char *err,
               size_t errlen)
{
  char *f[6] = { 0 };
  int n = 0;
  char what[64];

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
             tlb        ? "ENTRIES:WAYS:PAGE[:POLICY]"
                 : data ? "SIZE:WAYS:LINE[:POLICY[:LATENCY]]"
                        : "SIZE:WAYS:LINE[:POLICY]",
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
  if (check_geometry(c, level, tlb, err, errlen))
    return -1;
  if (parse_policy(n >= 4 ? f[3] : NULL, level, c, err, errlen))
    return -1;
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

/* seed=N: any whole number a 64-bit generator can start from, 0 too (the
 * generator's all-zero state is replaced). */
static int
parse_seed(struct sim *m, const char *eq, char *err, size_t errlen)
{
  char *end;
  unsigned long long sv;

  errno = 0;
  sv = isdigit((unsigned char) *eq) ? strtoull(eq, &end, 10) : 0;
  if (!isdigit((unsigned char) *eq) || errno || *end) {
    snprintf(err, errlen, "seed: '%s' is not a whole number from 0 to %llu", eq,
             (unsigned long long) UINT64_MAX);
    return -1;
  }
  m->rng = sv ? (uint64_t) sv : UINT64_C(0xd1b54a32d192ed03);
  return 0;
}

/* tenant=LEVEL:RATE[:SWING]. */
static int
parse_tenant(struct sim *m, const char *eq, char *err, size_t errlen)
{
  char *end;
  long lv = strtol(eq, &end, 10);

  m->tswing = 0;
  if (end == eq || *end != ':' || lv < 2 || lv > 4
      || !((m->trate = xray__decimal(end + 1, &end)) > 0) || m->trate > 64
      || (*end
          && (*end != ':' || !((m->tswing = xray__decimal(end + 1, &end)) >= 0) || m->tswing > 1
              || *end))) {
    snprintf(err, errlen,
             "tenant: '%s' is not LEVEL:RATE[:SWING] (level 2-4, rate above "
             "0 up to 64 loads per load, swing 0-1)",
             eq);
    return -1;
  }
  m->tenant = (int) lv - 1;
  return 0;
}

/* The structures: l1i, the data levels (in order) and the TLBs.  0, -1
 * with err, or 1 if item is none of them. */
static int
parse_structure(struct sim *m, const char *item, char *eq, char *err, size_t errlen)
{
  static const double deflat[MAX_LEVELS] = { 4, 12, 40, 80 };
  int lv;

  if (strcmp(item, "l1i") == 0 || strcmp(item, "btb") == 0) {
    int *have = item[0] == 'l' ? &m->have_l1i : &m->have_btb;
    if (*have) {
      snprintf(err, errlen, "%s given twice", item);
      return -1;
    }
    if (parse_geometry(eq, item, item[0] == 'l' ? &m->l1i : &m->btb, 0, 0, err, errlen))
      return -1;
    *have = 1;
  } else if ((lv = level_of(item)) >= 0) {
    if (lv != m->nlev) {
      snprintf(err, errlen,
               lv < m->nlev ? "%s given twice"
                            : "%s needs the levels below it (give l1d, l2, ... in order)",
               item);
      return -1;
    }
    m->lev[lv].lat = deflat[lv];
    if (parse_geometry(eq, item, &m->lev[lv], 1, 0, err, errlen))
      return -1;
    m->nlev++;
  } else if (strcmp(item, "tlb1") == 0 || strcmp(item, "tlb2") == 0) {
    int t = item[3] - '1';
    if (t != m->ntlb) {
      snprintf(err, errlen, t < m->ntlb ? "%s given twice" : "tlb2 needs a tlb1", item);
      return -1;
    }
    if (parse_geometry(eq, item, &m->tlb[t], 0, 1, err, errlen))
      return -1;
    m->ntlb++;
  } else
    return 1;
  return 0;
}

/* The memory side's costs and behaviour.  0, -1 with err, or 1 if item is
 * none of them. */
static int
parse_memory(struct sim *m, const char *item, char *eq, char *err, size_t errlen)
{
  unsigned long v;

  if (strcmp(item, "mem") == 0 || strcmp(item, "tlbpen") == 0 || strcmp(item, "walk") == 0) {
    char what[32];
    snprintf(what, sizeof what, "%s cycles", item);
    if (parse_size(eq, what, &v, err, errlen))
      return -1;
    *(item[0] == 'm' ? &m->mem : item[0] == 't' ? &m->tlbpen : &m->walk) = (double) v;
  } else if (strcmp(item, "colour") == 0 || strcmp(item, "color") == 0) {
    if (parse_size(eq, "colour page", &m->colour, err, errlen))
      return -1;
    if (m->colour & (m->colour - 1) || m->colour < 1024) {
      snprintf(err, errlen, "colour page: %lu is not a power of two of at least 1024", m->colour);
      return -1;
    }
  } else if (strcmp(item, "inclusive") == 0) {
    if (strcmp(eq, "yes") && strcmp(eq, "no")) {
      snprintf(err, errlen, "inclusive: '%s' is not yes or no", eq);
      return -1;
    }
    m->inclusive = strcmp(eq, "yes") == 0;
  } else if (strcmp(item, "pfpages") == 0) {
    char *end;
    long n = strtol(eq, &end, 10);
    if (end == eq || *end || n < 0 || n > 256) {
      snprintf(err, errlen, "pfpages: '%s' is not a number of pages from 0 to 256", eq);
      return -1;
    }
    m->pf_pages = (int) n;
  } else if (strcmp(item, "prefetch") == 0) {
    m->pf_next = strcmp(eq, "next") == 0 || strcmp(eq, "both") == 0;
    m->pf_stride = strcmp(eq, "stride") == 0 || strcmp(eq, "both") == 0;
    if (!m->pf_next && !m->pf_stride && strcmp(eq, "none")) {
      snprintf(err, errlen, "prefetch: '%s' is not next, stride, both or none", eq);
      return -1;
    }
  } else if (strcmp(item, "tenant") == 0)
    return parse_tenant(m, eq, err, errlen);
  else
    return 1;
  return 0;
}

/* One ITEM=VALUE of the spec; 0, or -1 with err. */
static int
parse_item(struct sim *m, const char *item, char *eq, char *err, size_t errlen)
{
  unsigned long v;
  int r;

  if (strcmp(item, "uop") == 0)
    return parse_uop(m, eq, err, errlen);
  if (strcmp(item, "fetch") == 0)
    return parse_fetch(m, eq, err, errlen);
  if (strcmp(item, "penalty") == 0 || strcmp(item, "btbpen") == 0) {
    if (parse_size(eq, item[0] == 'p' ? "penalty cycles" : "btbpen cycles", &v, err, errlen))
      return -1;
    *(item[0] == 'p' ? &m->penalty : &m->btbpen) = (double) v;
    return 0;
  }
  if (strcmp(item, "noise") == 0)
    return parse_percent(eq, "noise", &m->noise, err, errlen);
  if (strcmp(item, "spikes") == 0)
    return parse_percent(eq, "spikes", &m->spikes, err, errlen);
  if (strcmp(item, "seed") == 0)
    return parse_seed(m, eq, err, errlen);
  if (strcmp(item, "kind") == 0) {
    /* A kind of core's name (run/kinds.c reads it): it goes into shell
     * assignments and C strings as it is. */
    if (!*eq || strlen(eq) > 31
        || strspn(eq,
                  "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                  "0123456789._-")
            != strlen(eq)) {
      snprintf(err, errlen, "kind=%s: a name of 1 to 31 letters, digits, '.', '_' or '-'", eq);
      return -1;
    }
    return 0;
  }
  if ((r = parse_structure(m, item, eq, err, errlen)) <= 0
      || (r = parse_memory(m, item, eq, err, errlen)) <= 0)
    return r;
  if ((r = xray__sim_duo_item(m, item, eq, err, errlen)) != 0)
    return r < 0 ? -1 : 0;
  if ((r = xray__sim_stream_item(&m->stream, item, eq, err, errlen)) != 0)
    return r < 0 ? -1 : 0;
  if ((r = xray__sim_branch_item(&m->br, item, eq, err, errlen)) != 0
      || (r = xray__sim_pmu_item(&m->pmu, item, eq, err, errlen)) != 0) {
    if (r > 0)
      m->cpu_items = 1;
    return r < 0 ? -1 : 0;
  }
  if ((r = xray__sim_core_item(&m->cpu, item, eq, err, errlen)) != 0) {
    if (r > 0)
      m->cpu_items = 1;
    return r < 0 ? -1 : 0;
  }
  snprintf(
      err, errlen,
      "unknown simulated level '%s' (known: l1i, uop, fetch, penalty, btb, btbpen, "
      "l1d, l2, l3, l4, mem, inclusive, tlb1, tlb2, tlbpen, walk, colour, prefetch, pfpages, "
      "tenant, clock, tsc, drift, swing, step, int, fp, ithru, fthru, regs, vec, fma, contract, "
      "loop, cpus, smt, share1-share4, c2c, adjline, branch, bselect, bslow, pmu, bw1-bw4, bwmem, "
      "bwnt, bwloop, noise, spikes, seed, kind)",
      item);
  return -1;
}

int
xray__sim_parse(struct sim *m, const char *spec, char *err, size_t errlen)
{
  char *buf = strdup(spec), *item, *save = NULL, *eq;
  int rc = -1;

  if (!buf) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  /* A hybrid machine's spec: the first kind. */
  buf[strcspn(buf, ";")] = 0;
  for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
    if (!(eq = strchr(item, '='))) {
      snprintf(err, errlen, "'%s': expected LEVEL=VALUE, e.g. l1i=32K:8:64", item);
      goto out;
    }
    *eq++ = 0;
    if (parse_item(m, item, eq, err, errlen))
      goto out;
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
  if (xray__sim_duo_check(m, err, errlen))
    goto out;
  rc = 0;
out:
  free(buf);
  return rc;
}
