/* The simulated machine's memory side (see sim.c): its caches and TLBs
 * (made of model/cache.c), physical placement, the neighbour, and the
 * loads of a chase. */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* --- the data side ------------------------------------------------------- */

/* Virtual bases of the two arenas, far apart. */
#define HUGE_BASE (UINT64_C(1) << 40)
#define SMALL_BASE (UINT64_C(1) << 42)
#define HUGE_PAGE (UINT64_C(2) << 20)
/* A partner's copy of a chain lies this far past ours. */
#define PARTNER_BASE (UINT64_C(1) << 38)

/* Where vpage is in the page map (below), or the empty entry where it
 * would go. */
static size_t
pmap_slot(const struct pmap *p, uint64_t vpage)
{
  size_t i = (size_t) (vpage * UINT64_C(0x9e3779b97f4a7c15) >> 7) & (p->cap - 1);

  while (p->key[i] != ~UINT64_C(0) && p->key[i] != vpage)
    i = (i + 1) & (p->cap - 1);
  return i;
}

/* The physical page behind a virtual one: random, given on first touch,
 * kept until reset (like pages a hypervisor hands out).  An open-addressed
 * table whose capacity is a power of two (4096, doubled when half full). */
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
        size_t j = pmap_slot(&q, p->key[i]);
        q.key[j] = p->key[i];
        q.val[j] = p->val[i];
        q.n++;
      }
    free(p->key);
    free(p->val);
    *p = q;
  }
  i = pmap_slot(p, vpage);
  if (p->key[i] == ~UINT64_C(0)) {
    p->key[i] = vpage;
    p->val[i] = xray__rand(&m->prng) >> 28;
    p->n++;
  }
  return p->val[i];
}

/* The frame page vpage has, or ~0 where it has none yet: a look that
 * gives none (the page map's random frames are drawn in the order pages
 * are first touched, by pmap_get alone). */
static uint64_t
pmap_peek(const struct sim *m, uint64_t vpage)
{
  const struct pmap *p = &m->pmap;
  size_t i;

  if (!p->cap)
    return ~UINT64_C(0);
  i = pmap_slot(p, vpage);
  return p->key[i] == vpage ? p->val[i] : ~UINT64_C(0);
}

static uint64_t
physical(struct sim *m, uint64_t va)
{
  if (!m->colour)
    return va;
  return pmap_get(m, va / m->colour) * m->colour + va % m->colour;
}

/* pa of va where its page has a frame already (or there is no
 * colouring), else ~0: the hint for a load comes before the load, which
 * alone may give its page a frame. */
static uint64_t
physical_known(const struct sim *m, uint64_t va)
{
  uint64_t f;

  if (!m->colour)
    return va;
  f = pmap_peek(m, va / m->colour);
  return f == ~UINT64_C(0) ? f : f * m->colour + va % m->colour;
}

/* Bring the line of pa into levels from..nlev-1 and below it; returns the
 * index of the level that had it (nlev: memory).  Every level is indexed
 * by physical address: for an L1 whose way fits in a page (VIPT, as L1s
 * are) that is the same index as the virtual one. */
static int
fill_from(struct sim *m, uint64_t pa, int from)
{
  int i, j;

  for (i = from; i < m->nlev; i++) {
    unsigned long ev;
    if (!xray__cache_access(&m->lev[i], xray__cache_lineof(&m->lev[i], pa), &ev))
      break;
    if (m->inclusive && i > 0 && ev != ~0UL)
      for (j = 0; j < i; j++) {
        unsigned long a = ev * m->lev[i].line, e = a + m->lev[i].line;
        for (; a < e; a += m->lev[j].line)
          xray__cache_invalidate(&m->lev[j], a / m->lev[j].line);
      }
  }
  /* An inclusive level that hit still refreshes nothing below: the lines
   * were allocated on the way down by the misses above. */
  return i;
}

static int
fill(struct sim *m, uint64_t pa)
{
  return fill_from(m, pa, 0);
}

/* The adjacent-line prefetcher (adjline=BYTES[:PERCENT]): a load that
 * misses the L1D brings the other lines of its aligned block into the L2
 * and below, as Intel's spatial prefetcher pairs lines into 128-byte
 * blocks; on PERCENT of the misses only, as one that is throttled, or a
 * cache that serves a neighbouring line a little sooner, helps pairs in a
 * block without bringing the block whole. */
static int
serves(struct sim *m)
{
  return m->adjpct >= 100 || (int) (xray__rand(&m->arng) % 100) < m->adjpct;
}

static void
adjacent(struct sim *m, uint64_t pa, int from)
{
  uint64_t a = pa & ~(uint64_t) (m->adjline - 1), line = m->lev[1].line;

  for (; a < (pa & ~(uint64_t) (m->adjline - 1)) + m->adjline; a += line)
    if (a / line != pa / line)
      fill_from(m, a, from);
}

/* A partner chasing its own copy of the chain on a CPU that shares level
 * duo_level (sim/duo.c): the chains are alike, so each of our loads that
 * reaches that level meets one of its loads there. */
static void
partner(struct sim *m, int huge)
{
  const struct xray__chase *c = m->duo_c;

  uint64_t pa = physical(m, (huge ? HUGE_BASE : SMALL_BASE) + PARTNER_BASE + c->off[m->duo_i]);

  /* Its own prefetcher brings its block's other lines as ours does. */
  if (fill_from(m, pa, m->duo_level) > m->duo_level && m->adjline && m->nlev > 1 && serves(m))
    adjacent(m, pa, m->duo_level > 1 ? m->duo_level : 1);
  m->duo_i = m->duo_i + 1 < c->n ? m->duo_i + 1 : 0;
}

/* The page prefetcher (pfpages=N): an L1D miss to page pg; the fourth
 * such miss while the page is tracked brings its other lines into the
 * levels from the L2 down.  A page is tracked from its first miss until
 * N other pages have missed since its last: blocks of N pages or fewer
 * are served, larger ones rarely (each miss must come back within N). */
#define PF_CONFIRM 4
static void
page_prefetch(struct sim *m, uint64_t pa)
{
  uint64_t pg = pa / 4096, a;
  int i, lru = 0;

  for (i = 0; i < m->pf_pages && m->pf_page[i] != pg + 1; i++)
    if (m->pf_stamp[i] < m->pf_stamp[lru])
      lru = i;
  if (i == m->pf_pages) {
    m->pf_page[lru] = pg + 1;
    m->pf_seen[lru] = 1;
    m->pf_stamp[lru] = ++m->pf_clock;
    return;
  }
  m->pf_stamp[i] = ++m->pf_clock;
  if (++m->pf_seen[i] != PF_CONFIRM || m->nlev < 2)
    return;
  for (a = pg * 4096; a < (pg + 1) * 4096; a += m->lev[1].line) {
    int l;
    for (l = 1; l < m->nlev; l++)
      if (!xray__cache_access(&m->lev[l], xray__cache_lineof(&m->lev[l], a), NULL))
        break;
    if (l > 1 && m->counting)
      m->pf_fetched++;
  }
}

/* One load of the neighbour's, to a random line of a region 8 times the
 * size of level t (m->tlines lines from m->tbase). */
static void
tenant_load(struct sim *m, struct xray__cache *t)
{
  uint64_t r = xray__rand(&m->trng), lines = m->tlines;

  /* r % lines, without a division where lines is a power of two. */
  r = (lines & (lines - 1)) == 0 ? r & (lines - 1) : r % lines;
  xray__cache_access(t, m->tbase + (unsigned long) r, NULL);
}

/* One load of va.  slot, where not NULL, keeps va's physical address
 * from one pass of a chase to the next (~0 until the first): the page map
 * gives a page its frame on first touch and keeps it, so the first pass
 * touches pages in the same order as without it. */
static double
load(struct sim *m, uint64_t va, int huge, uint64_t *slot)
{
  double cyc = 0;
  uint64_t pa;
  int hit;

  if (m->ntlb) {
    uint64_t page =
        huge ? va / HUGE_PAGE + (UINT64_C(1) << 50) : xray__cache_lineof(&m->tlb[0], va);
    if (xray__cache_access(&m->tlb[0], (unsigned long) page, NULL)) {
      m->tlb_missed += m->counting;
      if (m->ntlb > 1) {
        uint64_t p2 = huge ? page : xray__cache_lineof(&m->tlb[1], va);
        cyc += m->tlbpen;
        if (xray__cache_access(&m->tlb[1], (unsigned long) p2, NULL))
          cyc += m->walk;
      } else
        cyc += m->walk;
    }
  }
  if (!slot)
    pa = physical(m, va);
  else if ((pa = *slot) == ~UINT64_C(0))
    pa = *slot = physical(m, va);
  hit = fill(m, pa);
  if (m->counting)
    m->served[hit]++;
  /* The neighbour's loads, at the shared level, to lines of its own. */
  if (m->tenant && hit >= m->tenant)
    for (m->tacc += m->tnow; m->tacc >= 1; m->tacc -= 1)
      tenant_load(m, &m->lev[m->tenant]);
  if (m->duo_c && hit >= m->duo_level)
    partner(m, huge);
  cyc += hit < m->nlev ? m->lev[hit].lat : m->mem;
  if (m->adjline && hit > 0 && m->nlev > 1 && serves(m))
    adjacent(m, pa, 1);
  if (m->pf_next && hit > 0)
    fill(m, pa + m->lev[0].line);
  if (m->pf_pages && hit > 0)
    page_prefetch(m, pa);
  if (m->pf_stride) {
    uint64_t d = va - m->pf_last;
    if (d == m->pf_delta && d != 0)
      fill(m, physical(m, va + d));
    m->pf_delta = d;
    m->pf_last = va;
  }
  return cyc;
}

/* How many loads of a chase ahead the host is asked for the sets they
 * will touch (xray__cache_prefetch): enough to cover a host miss to
 * memory with the loads between, few enough that the sets are still in
 * the host's caches when their turn comes. */
#define AHEAD 8

/* The hint for a load of va whose physical address is pa (~0: not known
 * yet, no hint): its set at every level and in the TLBs. */
static void
ahead(const struct sim *m, uint64_t va, int huge, uint64_t pa)
{
  int i;

  if (pa == ~UINT64_C(0))
    return;
  for (i = 0; i < m->nlev; i++)
    xray__cache_prefetch(&m->lev[i], xray__cache_lineof(&m->lev[i], pa));
  if (m->ntlb && !huge) {
    xray__cache_prefetch(&m->tlb[0], xray__cache_lineof(&m->tlb[0], va));
    if (m->ntlb > 1)
      xray__cache_prefetch(&m->tlb[1], xray__cache_lineof(&m->tlb[1], va));
  }
}

/* loads loads of chase c from its first, cyclically, with the hints
 * AHEAD loads ahead; their cycles' sum. */
static double
chase_loads(struct sim *m, const struct xray__chase *c, int huge, uint64_t *pa, size_t loads)
{
  uint64_t b = huge ? HUGE_BASE : SMALL_BASE;
  size_t i = 0, j = AHEAD % c->n, done;
  double sum = 0;

  for (done = 0; done < loads; done++) {
    /* A slot still empty takes the frame its page has (the one its load
     * would find), for the hint. */
    if (pa && pa[j] == ~UINT64_C(0))
      pa[j] = physical_known(m, b + c->off[j]);
    ahead(m, b + c->off[j], huge, pa ? pa[j] : physical_known(m, b + c->off[j]));
    sum += load(m, b + c->off[i], huge, pa ? &pa[i] : NULL);
    i = i + 1 < c->n ? i + 1 : 0;
    j = j + 1 < c->n ? j + 1 : 0;
  }
  return sum;
}

/* A chase's slots for load: none where physical addresses are the
 * virtual ones, or without memory (each load then asks the page map). */
static uint64_t *
physical_slots(const struct sim *m, size_t n)
{
  uint64_t *pa = m->colour ? malloc(n * sizeof *pa) : NULL;

  if (pa)
    memset(pa, 0xff, n * sizeof *pa);
  return pa;
}

/* Loads timed at most per measurement: a long chain is timed on a stretch
 * of it, as the real machine does. */
#define SIM_LOADS_MAX 262144
#define SIM_LOADS_MIN 4096
#define SIM_LOADS_QUICK 49152

double
xray__sim_chase(xray_machine *base, const struct xray__chase *c)
{
  struct sim *m = (struct sim *) base;
  int huge = c->arena == XRAY__ARENA_HUGE;
  uint64_t *pa;
  size_t loads;
  double sum;
  int pass;

  if (!m->nlev)
    return xray__machine_fail(base, XRAY__FAIL_ERROR,
                              "the simulated machine has no data cache (give l1d=SIZE:WAYS:LINE)");
  if (c->n == 0)
    return NAN;
  m->tnow = m->trate * (1 + m->tswing * sin(6.283185307179586 * (double) m->tcalls++ / 64));
  pa = physical_slots(m, c->n);
  /* A quick draw (one of many to be averaged) warms with one traversal,
   * as the real machine does. */
  for (pass = 0; pass < (c->quick ? 1 : 2); pass++)
    chase_loads(m, c, huge, pa, c->n);
  loads = c->n < SIM_LOADS_MIN ? SIM_LOADS_MIN : c->n > SIM_LOADS_MAX ? SIM_LOADS_MAX : c->n;
  if (c->quick && loads > SIM_LOADS_QUICK)
    loads = SIM_LOADS_QUICK;
  sum = chase_loads(m, c, huge, pa, loads);
  free(pa);
  return xray__sim_noise(m, sum / (double) loads);
}

int
xray__sim_cevents(xray_machine *base, const char *const *names, size_t n,
                  const struct xray__chase *c, long loads, double *out)
{
  struct sim *m = (struct sim *) base;
  int huge = c->arena == XRAY__ARENA_HUGE, pass;
  uint64_t *pa;
  struct xray__cstats st;
  size_t k;

  if (!m->nlev || c->n == 0 || loads < 1) {
    snprintf(base->error, sizeof base->error, "the simulated machine has no data cache");
    return -1;
  }
  pa = physical_slots(m, c->n);
  for (pass = 0; pass < 2; pass++)
    chase_loads(m, c, huge, pa, c->n);
  memset(&st, 0, sizeof st);
  memset(m->served, 0, sizeof m->served);
  m->pf_fetched = m->tlb_missed = 0;
  m->counting = 1;
  st.cycles = chase_loads(m, c, huge, pa, (size_t) loads);
  free(pa);
  m->counting = 0;
  memcpy(st.served, m->served, sizeof st.served);
  st.prefetched = m->pf_fetched;
  st.tlb_misses = m->tlb_missed;
  st.loads = (double) loads;
  st.nlev = m->nlev;
  for (k = 0; k < n; k++)
    if ((out[k] = xray__sim_pmu_count(&m->pmu, names[k], NULL, &st)) < 0)
      out[k] = NAN;
  return 0;
}

/* The truth of a cache's size, ways, line or latency at level (the L1I:
 * XRAY__LEVEL_INSN); -1 where the machine has no such cache. */
static int
cache_truth(const struct sim *m, enum xray__what what, int level, double *v)
{
  const struct xray__cache *c;

  if (level == XRAY__LEVEL_INSN) {
    if (!m->have_l1i || what == XRAY__W_CACHE_LATENCY)
      return -1;
    c = &m->l1i;
  } else if (level >= 1 && level <= m->nlev)
    c = &m->lev[level - 1];
  else
    return -1;
  *v = what == XRAY__W_CACHE_SIZE   ? (double) c->size
      : what == XRAY__W_CACHE_ASSOC ? (double) c->ways
      : what == XRAY__W_CACHE_LINE  ? (double) c->line
                                    : c->lat;
  return 0;
}

/* The simulated truth of a named value, for the OS view: found by what
 * the value is (params.c), and whether this machine has it. */
int
xray__sim_truth(const xray_machine *base, const char *name, double *v)
{
  const struct sim *m = (const struct sim *) base;
  int level, tlb;
  const struct xray__param *p = xray__param_match(name, &level);

  if (!p)
    return -1;
  if (xray__sim_core_truth(&m->cpu, p, v) == 0 || xray__sim_stream_truth(m, p, level, v) == 0
      || xray__sim_duo_truth(m, p, level, v) == 0)
    return 0;
  tlb = level == 2 ? 1 : 0;
  switch (p->what) {
  case XRAY__W_BRANCH_PENALTY:
    *v = m->br.penalty;
    return m->cpu_items ? 0 : -1;
  case XRAY__W_CACHE_SIZE:
  case XRAY__W_CACHE_ASSOC:
  case XRAY__W_CACHE_LINE:
  case XRAY__W_CACHE_LATENCY:
    return cache_truth(m, p->what, level, v);
  case XRAY__W_UOP_OPS:
    *v = (double) m->uop_ops;
    return m->have_l1i ? 0 : -1;
  case XRAY__W_LRU:
    *v = m->nlev && m->lev[0].policy != XRAY__POL_RANDOM;
    return m->nlev ? 0 : -1;
  case XRAY__W_CACHE_LEVELS:
    *v = m->nlev;
    return m->nlev ? 0 : -1;
  case XRAY__W_MEM_LATENCY:
    *v = m->mem;
    return m->nlev ? 0 : -1;
  case XRAY__W_PAGE_SIZE:
    *v = (double) (m->ntlb ? m->tlb[0].line : m->colour);
    return m->ntlb || m->colour ? 0 : -1;
  case XRAY__W_TLB_ENTRIES:
  case XRAY__W_TLB_ASSOC:
    if (m->ntlb <= tlb)
      return -1;
    *v = p->what == XRAY__W_TLB_ENTRIES ? (double) (m->tlb[tlb].size / m->tlb[tlb].line)
                                        : (double) m->tlb[tlb].ways;
    return 0;
  case XRAY__W_TLB_HIT2:
    *v = m->tlbpen;
    return m->ntlb > 1 ? 0 : -1;
  case XRAY__W_TLB_WALK:
    *v = m->walk + (m->ntlb > 1 ? m->tlbpen : 0);
    return m->ntlb ? 0 : -1;
  default:
    return -1;
  }
}

void
xray__sim_free(xray_machine *base)
{
  struct sim *m = (struct sim *) base;
  int i;

  xray__cache_free(&m->l1i);
  xray__cache_free(&m->btb);
  for (i = 0; i < MAX_LEVELS; i++)
    xray__cache_free(&m->lev[i]);
  xray__cache_free(&m->tlb[0]);
  xray__cache_free(&m->tlb[1]);
  free(m->pmap.key);
  free(m->pmap.val);
  xray__sim_core_free(&m->cpu);
  free(m);
}

/* Fresh memory: new physical pages. */
void
xray__sim_reset(xray_machine *base)
{
  struct sim *m = (struct sim *) base;

  free(m->pmap.key);
  free(m->pmap.val);
  memset(&m->pmap, 0, sizeof m->pmap);
  memset(m->pf_page, 0, sizeof m->pf_page);
}
