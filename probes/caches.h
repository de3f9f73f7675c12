/* The caches probe's shared state, split over caches.c (the probe, line
 * sizes, the draws' statistics), caches-pages.c (its pages and chains),
 * caches-model.c, caches-curve.c, caches-conflict.c and
 * caches-report.c. */
#ifndef XRAY__CACHES_H
#define XRAY__CACHES_H

#include "probes.h"

/* Footprints are whole pages (every c->step bytes of each: the L1D's
 * line, or LINE_STEP where it is not known), from an
 * eighth of a page, so that even a 2 KB L1 shows a plateau, to LINES_MAX
 * loads. */
#define LINE_STEP 64
#define K_MIN 0.125
#define LINES_MAX ((size_t) 1 << 21)
/* The fewest loads a chain may have where the memory for the chains'
 * offsets is short (a limit such as ulimit -v): a conflict set of
 * CONFLICT_MAX_PAGES pages at 256 loads a page. */
#define LINES_MIN ((size_t) 1 << 18)
#define BLOCK 16                        /* pages visited together */
#define PER_OCTAVE 6
#define POOL_MIN 8192
#define POOL_MAX 65536
#define MAX_LEVELS 6                    /* transitions, L1 included */
#define MAX_ASSOC 64
#define SCAN_DRAWS 2
#define FIT_DRAWS 40
#define SLOPE_DRAWS 8
#define FIT_LINES ((size_t) 1 << 20)    /* loads per transition point, beyond FIT_DRAWS x 4 */
#define MAX_PTS 128
/* The large page the real machine's arenas are aligned to: the offset of a
 * page within one fixes its colour in every level whose way fits in it. */
#define LARGE_PAGE ((size_t) 2 << 20)
/* The probe's time on the real machine, in --budget units, at which the
 * scan stops, the slopes stop getting draws, and the fits do (and the
 * conflict and line tests).  At the default budget the slowest of 20
 * runs took 6.2 s with 3 budgets for the fits and 5.2 s with 2.5, and the
 * memory probes together must stay under 8 s (tlb took up to 2.5 s). */
#define SCAN_BUDGETS 1.5
#define SLOPE_BUDGETS 2.0
#define FIT_BUDGETS 2.25
/* The least a private level's conflict sets get, however long the curve
 * took: without them its capacity stays unconfirmed, and a slow curve is
 * a busy host's, where the reductions need their retries most. */
#define WAYS_BUDGETS 0.25

struct pt {
  double k;                             /* pages */
  double v[FIT_DRAWS];                  /* cycles per load of each draw */
  int draws;
};

struct cc {
  xray_machine *m;
  size_t page, lpp, step;               /* page; loads per page; bytes between them */
  size_t pph;                           /* pages per large page (LARGE_PAGE) */
  size_t gap;                           /* bytes between loads where not step (0) */
  int step_known;                       /* the step is the L1D's confirmed line */
  /* Where the machine answers by key (a replay): no chain is laid, and
   * the shuffles' numbers are skipped with this table; else NULL. */
  const struct xray__rand_jumps *jumps;
  size_t l1col;                         /* the L1D's colours in pages, where more than one */
  uint64_t rng;
  uint64_t prng;                        /* frames of a packed draw (caches_pack) */
  uint64_t *pool, *off, *blk, *slot;
  /* By a page's offset within a large page: a packed draw's pages, then
   * next frame (cls); the frames given to conflict sets' pages (used). */
  unsigned *cls, *used;
  unsigned *place;                      /* a pool page's frame + 1 in conflict sets; 0: none yet */
  struct pt pt[MAX_PTS];
  int npt;
  int next;                             /* the scan's next point, K_MIN r^next */
  int failed;
  int unrecorded; /* the failure: a replay holds no such point */
  int noroom; /* the failure: no memory to lay the chain out in */
  int out_of_time;                      /* the scan stopped at its deadline */
  int out_of_room; /* a draw found no memory: the scan and the draws stopped */
  size_t lines_max; /* the loads a chain may have: LINES_MAX, or fewer */
  int at_lines_max; /* the scan stopped at lines_max (see caches_short_of_lines) */
  double start; /* when the probe began (0: a machine that takes no real time) */
  double deadline;                      /* refinement stops adding draws after it */
  long tests;                           /* conflict tests of the level so far */
};

/* Whether c's deadline has passed (a machine that takes no real time
 * has none). */
static inline int
caches_late(const struct cc *c)
{
  return xray__past(c->deadline);
}

/* The most pages of one colour whose miss chance is modelled (see
   colour_miss_q). */
#define QMAX 96

struct fitdata {
  const double *k, *f, *w;
  int n;
  const double *q;                      /* the measured miss function, or NULL: LRU */
  const struct lgtab *lg;               /* the points' log-gammas, or NULL (see caches-model.c) */
};

struct fit {
  double P, err, err2;                  /* err2: the best with another A */
  int A, A2;
  double rms;                           /* residual in miss fraction */
  double cap_lo, cap_hi;                /* P x A of every fit within FIT_SEPARATION */
  double PA[MAX_ASSOC + 1], errA[MAX_ASSOC + 1];        /* the best P for each A */
  int n;                                /* points fitted */
};

/* How close the fits to the even and the odd draws must come to the
 * capacity for it to be confirmed. */
#define HALVES_AGREE 0.15

/* The widest step a shared last level makes, as a factor in pages. */
#define MERGED_SPAN 6

/* A fit is trusted when it explains the transition within this RMS miss
 * fraction, and its associativity when the next best A fits this much
 * worse (WAYS_SEPARATION: a 36 MB 12-way level with few draws fitted 13
 * ways 1.6 times better than 12).  Its capacity is trusted when every fit that close agrees on
 * P x A within CAP_SPREAD: the half-way point of a transition pins the
 * capacity down well before its width pins the ways (Zen 3's L2, whose
 * replacement is not LRU, fitted 9 x 14 and 7 x 18 for 16 x 8: 126 pages
 * each time, 128 in truth). */
#define FIT_RMS 0.1
#define FIT_SEPARATION 1.5
#define WAYS_SEPARATION 2.5             /* for the ways from the model alone */
#define CAP_SPREAD 1.1

struct level {
  double lo, hi;                        /* latency of this level, of the next */
  int a, b;                             /* transition: last lo point, first hi point */
  /* The transition is fitted to its points' median draws, not their
   * means (a level split off a wide step: see caches_split_wide). */
  int median;
  struct fit fit;
  double size, line, k50;
  double line_k;                        /* pages where the line was measured */
  int shared_lines;                     /* its line is longer than the loads' step */
  double half[2];                       /* P x A fitted to each half of the draws */
  double fk[MAX_PTS], ff[3][MAX_PTS];   /* the points fitted: pages; miss fraction of all
                                         * draws, of the even, of the odd ones */
  int fn;
  double q[QMAX + 1];                   /* the miss function measured on one colour */
  int qn;                               /* occupancies measured (A + 1 on); 0: none */
  double qP;                            /* the colours between the bounds */
  double qlo, qhi;                      /* the bounds on the colours (see fit_policy) */
  int qused; /* qlo is the one-colour miss chance's bound */
  char cwhy[200];                       /* why a capacity with conflict-set ways is not
                                         * confirmed */
  int ways;                             /* by the conflict test; 0: not */
  int lone; /* ways from one reduction alone */
  int conflict_ran;
  char why[160];                        /* why the line size is unknown */
  char wwhy[160];                       /* why the conflict test gave none */
};

struct shape {
  double y[MAX_PTS], sm[MAX_PTS];
  int first[MAX_PTS], last[MAX_PTS], np, nl;  /* plateaus, then levels */
  struct level L[MAX_LEVELS];
  int settled;
  /* The plateau found in the draws' floor, not their means
   * (caches_split_wide); 0: none. */
  int floor;
  /* Where that level is a knee within the noise of none: the slopes of
   * the floor's log over it and after it, per point (else 0, 0). */
  double knee[2];
};

/* The largest level the conflict test reduces (see ways_of). */
#define CONFLICT_MAX_PAGES 1024

/* caches-pages.c: pages, chains and draws */
size_t caches_pool_for(size_t k);
void caches_draw_pages(struct cc *c, size_t k, size_t pool);
size_t caches_lay_set(struct cc *c, const uint64_t *set, size_t n);
size_t caches_lay_out(struct cc *c, double k, uint64_t pair);
double caches_run_chain(struct cc *c, size_t n, double k, const char *what);
void caches_one_draw(struct cc *c, struct pt *p);
void caches_add_draws(struct cc *c, struct pt *p, int want);
/* Whether the loads at k pages share lines of the level that serves them
 * (its line longer than c->step): they then cost less than its latency
 * each.  1 yes, 0 no, 2 where a quarter of the lines cost less (a cache
 * holds some of them), -1 if it cannot be told (why says why). */
int caches_lines_shared(struct cc *c, double k, char *why, size_t whylen);
/* caches.c: line sizes and the draws' statistics */
/* The line size of the level whose transition is L, from pairs of loads
 * at k pages; NAN with why where no clean step shows. */
double caches_line_of(struct cc *c, const struct level *L, double k, char *why, size_t whylen);
double caches_mean(const struct pt *p);
double caches_draw_spread(const struct pt *p);
double caches_floor(const struct pt *p);

/* caches-model.c */
void caches_fit_level(const struct fitdata *d, double k50, struct fit *out);
int caches_fit_policy(struct level *L, int A);

/* caches-curve.c */
int caches_halves_agree(const struct level *l, double pages);
/* Whether the scan stopped at lines_max below LINES_MAX: a limit on the
 * process's memory (ulimit -v) left its chains shorter. */
static inline int
caches_short_of_lines(const struct cc *c)
{
  return c->at_lines_max && c->lines_max < LINES_MAX;
}
void caches_shape_of(struct cc *c, struct shape *S, int need_ns);
double caches_half_way(const struct cc *c, const struct shape *S, const struct level *L);
double caches_l1_pages(const struct cc *c, const struct shape *S);
void caches_analyse(struct cc *c, struct level *L, double *y);
int caches_refine_slopes(struct cc *c, const struct shape *S);
int caches_scan(struct cc *c, struct shape *S);
int caches_wide_step(const struct cc *c, const struct shape *S, int i);
int caches_split_wide(struct cc *c, struct shape *S);

/* caches-conflict.c */
int caches_ways_of(struct cc *c, struct level *L, double cap_pages, int aguess, double below,
                   char *why, size_t whylen);

/* caches-report.c: the probe's values, once the levels are measured.
 * why: the reason every level is unknown; lastwhy: the last level's;
 * unsettled: why the count is unknown where the curve never settled. */
void caches_probe_unavailable(xray_report *r, xray_value *vlev);
int caches_report_level(struct cc *c, struct shape *S, xray_report *r, int i, const char *why,
                        const char *lastwhy, const char *unsettled);
void caches_confirm_count(struct cc *c, const struct shape *S, xray_report *r, xray_value *vlev,
                          int nl);
void caches_report_memory(struct cc *c, struct shape *S, xray_report *r, const char *why,
                          int merged, const char *unsettled);
int caches_count_levels(struct cc *c, const struct shape *S, xray_value *vlev, char *why,
                        char *lastwhy, char *unsettled, size_t len);

#endif
