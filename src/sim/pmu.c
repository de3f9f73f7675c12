/* The simulated PMU: events that count something defined from the
 * simulated branch unit's runs (sim/branch.c), so that xray counters can
 * be checked against a known truth.
 *
 * Spec item:
 *   pmu=SEED[:EVENTS]   EVENTS events (up to 32; default 7 more than the
 *                       categories) drawn by SEED: one of each category
 *                       (conditional branches executed, down wrong paths
 *                       too; retired; taken; direct jumps; mispredictions;
 *                       and for each data level, loads it served and
 *                       loads it missed), then at random: another of a
 *                       category, one multiplexed (its count scaled up
 *                       from part of the run, off by up to 3 %), a
 *                       mixture of two categories, pure noise,
 *                       instructions retired, cycles, or loads (which
 *                       grow with every benchmark), or first-level DTLB
 *                       misses (no category of their own); and where the
 *                       machine has a page prefetcher (pfpages=N), the
 *                       lines it brought into the L2.
 *
 * Every read adds the cost of starting and stopping the counter, 30 to
 * 50 events.  An event's name says what it counts ("cr.3", "t-mux.7",
 * "mix-ce+l2-miss.2", "l1-hit.4", "l2-pf.9", "noise.5"): tests read it, xray
 * counters does not.
 *
 * On a pointer chase the branch events count its loop (one conditional
 * branch, taken, per 16 loads); on a branch benchmark the cache events
 * count its two loads of volatile globals an iteration, L1 hits. */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum kind { K_CAT, K_MUX, K_MIX, K_NOISE, K_INSNS, K_CYCLES, K_LOADS, K_PF, K_TLB, NKINDS };

static const char *const branch_names[5] = { "ce", "cr", "t", "d", "m" };

static double
uniform(uint64_t *rng)
{
  return (double) (xray__rand(rng) >> 11) / 9007199254740992.0;
}

int
xray__sim_pmu_item(struct xray__sim_pmu *p, const char *key, const char *val, char *err,
                   size_t errlen)
{
  char *end;
  unsigned long long seed;
  long n = 0;

  if (strcmp(key, "pmu") != 0)
    return 0;
  seed = strtoull(val, &end, 10);
  if (end != val && *end == ':')
    n = strtol(end + 1, &end, 10);
  if (end == val || *end || n < 0 || n > XRAY__SIM_EVENTS || (n > 0 && n < 5)) {
    snprintf(err, errlen, "pmu=%s: expected SEED[:EVENTS], EVENTS from 5 to %d", val,
             XRAY__SIM_EVENTS);
    return -1;
  }
  memset(p, 0, sizeof *p);
  p->on = 1;
  p->rng = seed * 0x9e3779b97f4a7c15ULL + 1;
  p->n = (int) n;
  return 1;
}

/* Category c's name: ce cr t d m, then l1-hit, l1-miss, l2-hit, ... */
static void
cat_name(int c, char *buf, size_t len)
{
  if (c < 5)
    snprintf(buf, len, "%s", branch_names[c]);
  else
    snprintf(buf, len, "l%d-%s", (c - 5) / 2 + 1, (c - 5) % 2 ? "miss" : "hit");
}

static void
name_event(struct xray__sim_event *e, int i)
{
  char a[16], b[16];

  cat_name(e->a, a, sizeof a);
  cat_name(e->b, b, sizeof b);
  switch (e->kind) {
  case K_CAT:
    snprintf(e->name, sizeof e->name, "%s.%d", a, i);
    break;
  case K_MUX:
    snprintf(e->name, sizeof e->name, "%s-mux.%d", a, i);
    break;
  case K_MIX:
    snprintf(e->name, sizeof e->name, "mix-%s+%s.%d", a, b, i);
    break;
  default:
    snprintf(e->name, sizeof e->name, "%s.%d",
             e->kind == K_NOISE       ? "noise"
                 : e->kind == K_INSNS ? "instructions"
                 : e->kind == K_LOADS ? "loads"
                 : e->kind == K_PF    ? "l2-pf"
                 : e->kind == K_TLB   ? "dtlb-miss"
                                      : "cycles",
             i);
  }
}

int
xray__sim_pmu_init(struct xray__sim_pmu *p, int nlev, int pf, char *err, size_t errlen)
{
  int ncat = 5 + 2 * nlev, need = ncat + (pf != 0), i;

  if (!p->on)
    return 0;
  if (!p->n)
    p->n = need + 7 <= XRAY__SIM_EVENTS ? need + 7 : XRAY__SIM_EVENTS;
  if (p->n < need) {
    snprintf(err, errlen,
             "pmu: %d events are fewer than the %d categories of this machine "
             "(5 of branches, 2 per data level, its page prefetcher's)",
             p->n, need);
    return -1;
  }
  for (i = 0; i < p->n; i++) {
    struct xray__sim_event *e = &p->ev[i];
    e->kind = i < ncat ? K_CAT : i < need ? K_PF : (int) (xray__rand(&p->rng) % NKINDS);
    if (e->kind == K_PF && !pf)
      e->kind = K_LOADS;
    e->a = i < ncat ? i : (int) (xray__rand(&p->rng) % (uint64_t) ncat);
    do
      e->b = (int) (xray__rand(&p->rng) % (uint64_t) ncat);
    while (e->b == e->a);
    name_event(e, i);
  }
  /* The order the PMU lists them in is its own. */
  for (i = p->n - 1; i > 0; i--) {
    int j = (int) (xray__rand(&p->rng) % (uint64_t) (i + 1));
    struct xray__sim_event t = p->ev[i];
    p->ev[i] = p->ev[j];
    p->ev[j] = t;
  }
  return 0;
}

const char *
xray__sim_pmu_event_at(const struct xray__sim_pmu *p, size_t i)
{
  return p->on && i < (size_t) p->n ? p->ev[i].name : NULL;
}

/* Category c's count over a run: a branch benchmark's (b) or a chase's (c). */
static double
category(const struct xray__bstats *b, const struct xray__cstats *c, int k)
{
  static const double loop_share = 1.0 / 16; /* the chase's loop branch a load */

  if (b) {
    double v[5] = { b->exec_cond, b->cond, b->taken, b->direct, b->miss };
    return k < 5 ? v[k] : k == 5 ? 2 * b->iters : 0;
  }
  if (k < 5)
    return k == 3 || k == 4 ? 0 : c->loads * loop_share;
  k -= 5;
  if (k % 2 == 0)
    return c->served[k / 2];
  {
    double missed = 0;
    int l;
    for (l = k / 2 + 1; l <= c->nlev; l++)
      missed += c->served[l];
    return missed;
  }
}

double
xray__sim_pmu_count(struct xray__sim_pmu *p, const char *name, const struct xray__bstats *b,
                    const struct xray__cstats *c)
{
  const struct xray__sim_event *e = NULL;
  double v;
  int i;

  for (i = 0; i < p->n; i++)
    if (strcmp(p->ev[i].name, name) == 0)
      e = &p->ev[i];
  if (!e)
    return -1;
  switch (e->kind) {
  case K_CAT:
    v = category(b, c, e->a);
    break;
  case K_MUX:
    v = category(b, c, e->a) * (1 + 0.06 * (uniform(&p->rng) - 0.5));
    break;
  case K_MIX:
    v = category(b, c, e->a) + category(b, c, e->b);
    break;
  case K_NOISE:
    v = 5000 * uniform(&p->rng);
    break;
  case K_INSNS:
    v = b ? b->insns : c->loads * (1 + 2 * 1.0 / 16);
    break;
  case K_LOADS:
    v = b ? 2 * b->iters : c->loads;
    break;
  case K_PF:
    v = b ? 0 : c->prefetched;
    break;
  case K_TLB:
    v = b ? 0 : c->tlb_misses;
    break;
  default:
    v = b ? b->cycles : c->cycles;
  }
  return floor(v + 30 + 20 * uniform(&p->rng));
}
