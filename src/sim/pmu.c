/* The simulated PMU: events that count something defined from the
 * simulated branch unit's runs (sim/branch.c), so that xray counters can
 * be checked against a known truth.
 *
 * Spec item:
 *   pmu=SEED[:EVENTS]   EVENTS events (5 to 32, default 12) drawn by SEED:
 *                       one of each category (conditional branches
 *                       executed, down wrong paths too; retired; taken;
 *                       direct jumps; mispredictions), then at random:
 *                       another of a category, one multiplexed (its count
 *                       scaled up from part of the run, off by up to 3 %),
 *                       a mixture of two categories, pure noise,
 *                       instructions retired or cycles (which grow with
 *                       every benchmark's iterations).
 *
 * Every read adds the cost of starting and stopping the counter, 30 to
 * 50 events.  An event's name says what it counts ("cr.3", "t-mux.7",
 * "mix-ce+d.2", "noise.5"): tests read it, xray counters does not. */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum kind { K_CAT, K_MUX, K_MIX, K_NOISE, K_INSNS, K_CYCLES };

static const char *const cat_names[5] = { "ce", "cr", "t", "d", "m" };

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
  long n = 12;
  int i;

  if (strcmp(key, "pmu") != 0)
    return 0;
  seed = strtoull(val, &end, 10);
  if (end != val && *end == ':')
    n = strtol(end + 1, &end, 10);
  if (end == val || *end || n < 5 || n > XRAY__SIM_EVENTS) {
    snprintf(err, errlen, "pmu=%s: expected SEED[:EVENTS], EVENTS from 5 to %d", val,
             XRAY__SIM_EVENTS);
    return -1;
  }
  memset(p, 0, sizeof *p);
  p->on = 1;
  p->rng = seed * 0x9e3779b97f4a7c15ULL + 1;
  p->n = (int) n;
  for (i = 0; i < p->n; i++) {
    struct xray__sim_event *e = &p->ev[i];
    e->a = (int) (xray__rand(&p->rng) % 5);
    if (i < 5) {
      e->kind = K_CAT;
      e->a = i;
    } else {
      e->kind = (int) (xray__rand(&p->rng) % 6);
      do
        e->b = (int) (xray__rand(&p->rng) % 5);
      while (e->b == e->a);
    }
    switch (e->kind) {
    case K_CAT:
      snprintf(e->name, sizeof e->name, "%s.%d", cat_names[e->a], i);
      break;
    case K_MUX:
      snprintf(e->name, sizeof e->name, "%s-mux.%d", cat_names[e->a], i);
      break;
    case K_MIX:
      snprintf(e->name, sizeof e->name, "mix-%s+%s.%d", cat_names[e->a], cat_names[e->b], i);
      break;
    default:
      snprintf(e->name, sizeof e->name, "%s.%d",
               e->kind == K_NOISE       ? "noise"
                   : e->kind == K_INSNS ? "instructions"
                                        : "cycles",
               i);
    }
  }
  /* The order the PMU lists them in is its own. */
  for (i = p->n - 1; i > 0; i--) {
    int j = (int) (xray__rand(&p->rng) % (uint64_t) (i + 1));
    struct xray__sim_event t = p->ev[i];
    p->ev[i] = p->ev[j];
    p->ev[j] = t;
  }
  return 1;
}

const char *
xray__sim_pmu_event_at(const struct xray__sim_pmu *p, size_t i)
{
  return p->on && i < (size_t) p->n ? p->ev[i].name : NULL;
}

static double
category(const struct xray__bstats *st, int c)
{
  switch (c) {
  case 0:
    return st->exec_cond;
  case 1:
    return st->cond;
  case 2:
    return st->taken;
  case 3:
    return st->direct;
  default:
    return st->miss;
  }
}

double
xray__sim_pmu_count(struct xray__sim_pmu *p, const char *name, const struct xray__bstats *st)
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
    v = category(st, e->a);
    break;
  case K_MUX:
    v = category(st, e->a) * (1 + 0.06 * (uniform(&p->rng) - 0.5));
    break;
  case K_MIX:
    v = category(st, e->a) + category(st, e->b);
    break;
  case K_NOISE:
    v = 5000 * uniform(&p->rng);
    break;
  case K_INSNS:
    v = st->insns;
    break;
  default:
    v = st->cycles;
  }
  return floor(v + 30 + 20 * uniform(&p->rng));
}
