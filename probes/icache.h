/* The icache probe's shared state, split over icache.c (the probe: which
 * edge is the L1I's, which the op cache's), icache-edge.c (curves of code
 * size and their edges), icache-geometry.c (ways and line) and icache-c.c
 * (the portable C path). */
#ifndef XRAY__ICACHE_H
#define XRAY__ICACHE_H

#include "probes.h"

/* What a curve of code size times.  A loop: n statements s and the loop
 * control, run straight through (fetch-bound: an edge is where fetch
 * bandwidth drops).  A chase (chase set): n pieces of CHASE_SLOT bytes of
 * statements s, each in a slot of its own, visited in a random cyclic
 * order and left by a return link (kernels.h), so that each piece's fetch
 * costs its whole latency: an edge is where that latency rises. */
#define CHASE_SLOT 256
struct ictx {
  xray_machine *m;
  const struct xray_stmt *s;
  int chase;
  uint64_t rng; /* the chase's order */
  struct xray__piece *p; /* the chase's pieces */
  size_t np;
};

/* icache-edge.c: code bytes of n units (statements of a loop, pieces of a
 * chase), the units in a size, and the cycles per unit of a size. */
double xray__ic_bytes(const struct ictx *c, size_t n);
size_t xray__ic_units(const struct ictx *c, double bytes);
double xray__ic_point(void *p, double bytes);
/* The curve from 1024 bytes (a chase: 8192) to hi, 8 points an octave;
 * -1 if a point cannot be timed. */
int xray__ic_scan(struct ictx *c, struct xray__curve *cv, double hi);
/* How an edge was found: IC_GRADUAL where it is LRU-like (a fitted
 * onset), IC_NOISY where the noise of the plateau below it, not the
 * onset's own margin, set how high its time may rise (icache-edge.c). */
enum { IC_GRADUAL = 1, IC_NOISY = 2 };
/* Capacity in bytes of the edge of step st on curve cv, measured up from
 * level lo; in *how, IC_ flags. */
double xray__ic_edge(struct ictx *c, const struct xray__curve *cv, const struct xray__step *st,
                     double lo, int *how);
/* Every edge of one kernel's curve up to hi_bytes, ascending, at most
 * max (a step well past floor_x measured up from at least floor_lo);
 * their number, or -1 if the kernel cannot be timed. */
int xray__ic_edges(struct ictx *c, double hi_bytes, double floor_lo, double floor_x, double *e,
                   int *how, int max);
void xray__ic_free(struct ictx *c);

/* icache-c.c: the L1I from C loops compiled for each size, where no
 * machine-code backend serves (the op cache stays unknown). */
void xray__icache_c(xray_machine *m, xray_value *l1i, xray_value *uop);

#endif
