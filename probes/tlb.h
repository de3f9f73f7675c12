/* The tlb probe's shared state, split over tlb.c (the probe: levels,
 * page size, costs), tlb-ramp.c (the exact counts: the translation cost
 * of n pages, and the ramp a level's count is read from) and tlb-ways.c
 * (each level's ways). */
#ifndef XRAY__TLB_H
#define XRAY__TLB_H

#include "probes.h"

/* The scan's page counts. */
#define K_MIN 8
#define K_MAX 16384
#define MAX_STEPS 3 /* levels of translation cost the scan finds */
/* The ways. */
#define WAYS_STRIDE 4096 /* pages: one set of any level up to 4096 sets */
#define WAYS2_MAX 40 /* the most second-level ways looked for */
/* A second level's entries are its ways times a power of two sets (in
 * every TLB we know): a count within this of such a product is read as it
 * (a stride of 16 pages counts in steps of 16, and a pass the host
 * disturbs ends a step or two early), and one farther is not
 * confirmed. */
#define SETS_SNAP 0.03

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
   * tlb-ways.c. */
  size_t shift;
  /* The scan's last page count: K_MAX, or fewer where this process may
   * map no more (kwhy says so; else it is empty). */
  size_t kmax;
  const char *kwhy;
  /* The probe's deadline (0: none, an untimed machine): every value is
   * measured once; the counts taken again, to agree or to confirm, only
   * before it. */
  double deadline;
  struct xray__packed packed; /* the packed chains' least times */
};

/* What tlb_run has established so far. */
struct found {
  struct xray__step st[MAX_STEPS];
  size_t ns, e[MAX_STEPS], rough[2], stride[2], ways, e1_counted, e1_strides;
  size_t e1_recounted; /* a first count of the second level that did not fit its ways */
  size_t c0[3], nc0; /* the first level's exact counts (strided, again, one set) */
  int exact[2], late0; /* late0: the first level's second count was left out */
  char e1why[120], whys[2][200];
};

/* The probe's values. */
struct tvals {
  xray_value *page, *e1, *a1, *e2, *a2, *m1, *m;
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

/* tlb.c: tlb_exact_entries for the second level, from its rough count and
 * step, above the first level's count. */
int tlb_exact_l2(struct tc *c, const struct found *f, size_t *entries, size_t *stride, char *why,
                 size_t whylen);

/* tlb-ways.c */
const char *tlb_counts_text(const size_t *v, size_t n, char *s, size_t size);
int tlb_ways_disagree(const struct found *f);
void tlb_report_dtlb_ways(struct tc *c, struct found *f, struct tvals *v);
void tlb_l2_ways(struct tc *c, struct found *f, struct tvals *v);

#endif
