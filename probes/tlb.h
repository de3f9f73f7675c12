/* The tlb probe's shared state, split over tlb.c (the probe: levels,
 * ways, page size, costs) and tlb-ramp.c (the exact counts: the
 * translation cost of n pages, and the ramp a level's count is read
 * from). */
#ifndef XRAY__TLB_H
#define XRAY__TLB_H

#include "probes.h"

/* The scan's page counts. */
#define K_MIN 8
#define K_MAX 16384

struct tc {
  xray_machine *m;
  uint64_t *off;
  uint64_t rng;
  size_t page;
  double hit;
  int failed;
  /* Pages that keep the first level missing (0: none); see
   * xray__tlb_cost. */
  size_t fill;
  /* Where the strided pages (and their fill) start, in pages: see
   * l2_ways. */
  size_t shift;
  /* The scan's last page count: K_MAX, or fewer where this process may
   * map no more (kwhy says so; else it is empty). */
  size_t kmax;
  const char *kwhy;
  /* The probe's deadline (0: none, an untimed machine): every value is
   * measured once; the counts taken again, to agree or to confirm, only
   * before it. */
  double deadline;
};

/* Whether a count taken again would start past the deadline. */
static inline int
tlb_late(const struct tc *c)
{
  return xray__past(c->deadline);
}

/* tlb-ramp.c */
double tlb_point(void *p, double x);
size_t tlb_edge(struct tc *c, size_t a, size_t b, double mid);
size_t tlb_ramp_count(struct tc *c, size_t s, double lo, double hi, double height);
int tlb_exact_entries(struct tc *c, double r, size_t below, double height, size_t *entries,
                      size_t *stride, char *why, size_t whylen);

#endif
