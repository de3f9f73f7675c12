/* icsim/: what its files share. */
#ifndef XRAY__ICSIM_PRIVATE_H
#define XRAY__ICSIM_PRIVATE_H

#include "icsim/icsim.h"

#define WORDS(n) (((n) + 63) / 64)

static inline int
bit(const uint64_t *b, size_t i)
{
  return (int) ((b[i / 64] >> (i % 64)) & 1);
}

static inline void
set_bit(uint64_t *b, size_t i)
{
  b[i / 64] |= UINT64_C(1) << (i % 64);
}

/* loops.c: the loops of every instance (s->loop, their nesting, each
 * node's innermost loop); -1 without memory. */
int xray__icsim_loops(struct xray__icsim *s);

#endif
