/* model/cache.c: xray's own cache simulator (see there). */
#ifndef XRAY__MODEL_CACHE_H
#define XRAY__MODEL_CACHE_H

#include <stdint.h>

enum { XRAY__POL_LRU, XRAY__POL_PLRU, XRAY__POL_RANDOM };

/* A set's LRU order (its most recent way and valid count), or under
 * tree-PLRU and random replacement its valid count alone (cache.c). */
struct xray__ring {
  uint32_t head, n;
};

struct xray__cache {
  unsigned long size, ways, line, sets;
  unsigned long setmask; /* sets - 1 where that is a power of two, else 0 */
  int lineshift; /* log2(line) where line is a power of two, else -1 */
  unsigned long leaves; /* tree-PLRU: the power of two >= ways */
  int policy;
  double lat; /* cycles for a hit (a modelled data level) */
  unsigned long *tag; /* sets * ways, ~0 = invalid */
  /* A byte of each tag, its fingerprint, at the same place: a set's
   * are fpw bytes apart, ways rounded up to 16, so that one compare of
   * 16 bytes finds the ways that may hold a line (cache.c). */
  unsigned char *fp;
  unsigned long fpw;
  uint64_t *age; /* PLRU: a set's tree bits */
  /* PLRU: the tree bits on way w's path, and those of them that point
   * right of it: a touch of w is (bits & ~path[w]) | right[w]. */
  uint64_t path[64], right[64];
  struct xray__ring *ring; /* per set (cache.c) */
  uint64_t rng;
};

/* Allocate for size, ways and line (sets follow) and empty it; -1 without
 * memory (nothing is then left allocated). */
int xray__cache_init(struct xray__cache *c);
void xray__cache_reset(struct xray__cache *c);
void xray__cache_free(struct xray__cache *c);
/* The line address of byte address a (a shift where the line allows). */
static inline unsigned long
xray__cache_lineof(const struct xray__cache *c, uint64_t a)
{
  return (unsigned long) (c->lineshift >= 0 ? a >> c->lineshift : a / c->line);
}
/* The set that holds line address a. */
static inline unsigned long
xray__cache_set(const struct xray__cache *c, unsigned long a)
{
  return c->setmask ? a & c->setmask : a % c->sets;
}
/* Ask the host to bring the set of line address a into its caches, as
 * a hint only (nothing in c changes): a model of a large level is larger
 * than the host's caches, and a chase that knows its next addresses
 * hides the host's misses on the set's tags behind the accesses before. */
static inline void
xray__cache_prefetch(const struct xray__cache *c, unsigned long a)
{
#if defined(__GNUC__)
  unsigned long set = xray__cache_set(c, a), w;
  const unsigned long *tag = c->tag + set * c->ways;

  for (w = 0; w < c->ways; w += 64 / sizeof *tag)
    __builtin_prefetch(tag + w);
  __builtin_prefetch(c->fp + set * c->fpw);
  __builtin_prefetch(&c->ring[set]);
  if (c->policy == XRAY__POL_PLRU)
    __builtin_prefetch(&c->age[set]);
#else
  (void) c;
  (void) a;
#endif
}
/* Access one line address; 1 on a miss (the line is then allocated), and
 * in *evicted (if not NULL) the line it displaced, or ~0. */
int xray__cache_access(struct xray__cache *c, unsigned long lineaddr, unsigned long *evicted);
void xray__cache_invalidate(struct xray__cache *c, unsigned long lineaddr);
/* Misses per pass of a loop that sweeps lines [first, last] cyclically. */
double xray__cache_sweep_misses(struct xray__cache *c, unsigned long first, unsigned long last);

#endif
