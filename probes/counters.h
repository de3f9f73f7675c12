/* probes/counters*.c: hardware events placed in categories (xray
 * counters).  counters.c: the branch benchmarks, the scoring, the
 * results; counters-cache.c: the cache signatures; counters-write.c:
 * the results written out. */
#ifndef XRAY__COUNTERS_H
#define XRAY__COUNTERS_H

#include "probes.h"

#define XRAY__NBENCH 7 /* the branch benchmarks (a)..(g) */
#define XRAY__NBRANCH 5 /* CE CR T D M */
#define XRAY__CLEVELS 4 /* data levels with signatures, at most */
#define XRAY__NCAT (XRAY__NBRANCH + 2 * XRAY__CLEVELS)
#define XRAY__NFOOT (XRAY__CLEVELS + 1)
#define XRAY__NPPB 9 /* pages per block of the prefetch signature */

struct xray__event {
  char name[128];
  double slope[XRAY__NBENCH], r2[XRAY__NBENCH]; /* per iteration of each benchmark */
  double sig[XRAY__NFOOT], sr2[XRAY__NFOOT]; /* per load at each footprint */
  double pf[XRAY__NPPB]; /* per load, by pages per block */
  double score[XRAY__NCAT + 1];
  int cat; /* -1: none */
  int counted, ccounted, pfcounted; /* on the branch benchmarks; at every
                                     * footprint; by pages per block */
  char why[200]; /* why it could not be counted, or why in none */
};

#define XRAY__PF XRAY__NCAT /* the prefetch category, after every cache one */
/* A score of 0.8 or more: every slope within 0.33 events per iteration. */
#define XRAY__PLACE 0.8

/* A run's events and what they were placed against (counters.c). */
struct xray_counters {
  size_t n;
  struct xray__event *ev;
  double rows[XRAY__NBRANCH][XRAY__NBENCH];
  double loads[XRAY__NBENCH]; /* loads per iteration of each, as compiled */
  int nlev; /* data levels with signatures; 0: none (cwhy) */
  double level[XRAY__CLEVELS], foot[XRAY__NFOOT], line;
  char cwhy[200];
  int pf; /* the prefetch signature was taken; else why not in pfwhy */
  char pfwhy[200];
  char machine[200], compiler[300];
};

/* Category k's label ("CR", "L2-MISS"): constant text, so that
 * xray_counters_category can hand it out with no buffer of its own. */
const char *xray__counter_cat_label(int k);
/* Category k's count per load at footprint f (f levels missed): a
 * level's hits and misses; the chase loop's one conditional branch,
 * taken, per XRAY__CHASE_UNROLL loads. */
double xray__counter_cache_expected(int k, int f);
/* Category k's label, define and description. */
void xray__counter_cat_text(int k, char *label, size_t llen, char *define, size_t dlen, char *desc,
                            size_t desclen);

/* The data levels' capacities, from spec ("32K,1M,32M") or measured here
 * (the dcache and caches probes); their number, 0 with why where there
 * are none to use.  *line: the L1D's line (64 where it is unknown). */
int xray__counter_levels(xray_machine *m, const char *spec, double *level, double *line, char *why,
                         size_t len);
/* The footprints of the cache signatures over nlev levels: one that fits
 * the L1D, one for each level that misses the levels above it and fits
 * it, one that misses them all. */
void xray__counter_footprints(const double *level, int nlev, double *foot);
/* Count the n events ev at every footprint (a random chase over it) and
 * fill their signatures; -1 with why if the chases cannot run. */
int xray__counter_signatures(xray_machine *m, const double *foot, int nfoot, double line,
                             struct xray__event *ev, size_t n, char *why, size_t len);

/* The prefetch signature of the n events: per load, chasing four times
 * the L2 (l2 bytes) in blocks of xray__counter_ppb[] pages; -1 with why. */
extern const int xray__counter_ppb[XRAY__NPPB];
int xray__counter_prefetch(xray_machine *m, double l2, struct xray__event *ev, size_t n, char *why,
                           size_t len);

#endif
