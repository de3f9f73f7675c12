/* model/: xray's own cache simulator, a leaf: set-associative caches of
 * any geometry (any set count, up to 64 ways for tree-PLRU) with LRU,
 * tree-PLRU or random replacement.  The simulated machine's caches and
 * TLBs are made of it (sim/), and the static I-cache simulator checks its
 * totals against it (icsim/). */
#include "model/cache.h"
#include "measure/measure.h"

#include <stdlib.h>
#include <string.h>

void
xray__cache_reset(struct xray__cache *c)
{
  unsigned long i;

  for (i = 0; i < c->sets * c->ways; i++) {
    c->tag[i] = ~0UL;
    c->age[i] = 0;
  }
}

int
xray__cache_init(struct xray__cache *c)
{
  c->sets = c->size / (c->ways * c->line);
  c->setmask = c->sets > 1 && (c->sets & (c->sets - 1)) == 0 ? c->sets - 1 : 0;
  for (c->lineshift = 0; (1UL << c->lineshift) < c->line && c->lineshift < 63; c->lineshift++)
    ;
  if ((1UL << c->lineshift) != c->line)
    c->lineshift = -1;
  c->tag = malloc(c->sets * c->ways * sizeof *c->tag);
  c->age = malloc(c->sets * c->ways * sizeof *c->age);
  if (!c->tag || !c->age)
    return -1;
  c->rng = 0x9e3779b97f4a7c15u;
  xray__cache_reset(c);
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
 * allocated), and in *evicted (if not NULL) the line it displaced, or ~0.
 * An LRU set keeps its tags from the most to the least recently used: a
 * hit moves its tag to the front, a miss fills an invalid way if there is
 * one (no line is displaced) or else displaces the last.  Which way holds
 * a line never matters under LRU, only the order, so this is the policy of
 * age stamps without their second array and second scan.  Tree-PLRU and
 * random replacement choose a way, and keep the ways in place. */
int
xray__cache_access(struct xray__cache *c, unsigned long lineaddr, unsigned long *evicted)
{
  unsigned long set = c->setmask ? lineaddr & c->setmask : lineaddr % c->sets, w, victim = 0,
                empty = c->ways;
  unsigned long *tag = c->tag + set * c->ways;
  uint64_t *age = c->age + set * c->ways;

  if (evicted)
    *evicted = ~0UL;
  for (w = 0; w < c->ways; w++) {
    if (tag[w] == lineaddr)
      break;
    if (tag[w] == ~0UL && empty == c->ways)
      empty = w;
  }
  if (c->policy == XRAY__POL_LRU) {
    if (w < c->ways) {
      memmove(tag + 1, tag, w * sizeof *tag);
      tag[0] = lineaddr;
      return 0;
    }
    victim = empty < c->ways ? empty : c->ways - 1;
    if (evicted)
      *evicted = tag[victim];
    memmove(tag + 1, tag, victim * sizeof *tag);
    tag[0] = lineaddr;
    return 1;
  }
  if (w < c->ways) {
    if (c->policy == XRAY__POL_PLRU)
      age[0] = plru_touch(age[0], c->ways, w);
    return 0;
  }
  if (empty < c->ways)
    victim = empty;
  else if (c->policy == XRAY__POL_PLRU)
    victim = plru_victim(age[0], c->ways);
  else
    victim = xray__rand(&c->rng) % c->ways;
  if (evicted)
    *evicted = tag[victim];
  tag[victim] = lineaddr;
  if (c->policy == XRAY__POL_PLRU)
    age[0] = plru_touch(age[0], c->ways, victim);
  return 1;
}

void
xray__cache_invalidate(struct xray__cache *c, unsigned long lineaddr)
{
  unsigned long set = c->setmask ? lineaddr & c->setmask : lineaddr % c->sets, w;
  unsigned long *tag = c->tag + set * c->ways;

  for (w = 0; w < c->ways; w++)
    if (tag[w] == lineaddr)
      tag[w] = ~0UL;
}

/* Misses per pass of a loop that sweeps lines [first, last] cyclically. */
double
xray__cache_sweep_misses(struct xray__cache *c, unsigned long first, unsigned long last)
{
  unsigned long a, misses = 0;
  int pass;

  xray__cache_reset(c);
  for (pass = 0; pass < 5; pass++)
    for (a = first; a <= last; a++) {
      int m = xray__cache_access(c, a, NULL);
      if (pass >= 2)
        misses += (unsigned long) m;
    }
  return misses / 3.0;
}

void
xray__cache_free(struct xray__cache *c)
{
  free(c->tag);
  free(c->age);
  c->tag = NULL;
  c->age = NULL;
}
