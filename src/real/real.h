/* real/: what of the real machine other layers call: arenas and the
 * chase loop, the pairwise SMT test. */
#ifndef XRAY__REAL_H
#define XRAY__REAL_H

#include "machine/machine.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* real/arena.c: the real machine's memory for chases, and the chase. */
int xray__arena_reserve(struct xray__arena *a, size_t len, enum xray__arena_kind kind, char *err,
                        size_t errlen);
void xray__arena_free(struct xray__arena *a);
void xray__chase_link(char *base, const struct xray__chase *c);
void *xray__chase_run(void *p, uint64_t iters);

/* real/pairs.c: the pairwise test on the real machine. */
double xray__pair_speed(int a, int b, char *err, size_t errlen);

#endif
