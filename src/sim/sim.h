/* The simulated machine, shared by sim.c (its spec, the front end and the
 * core) and memory.c (caches, TLBs and the loads of a chase). */
#ifndef XRAY__SIM_H
#define XRAY__SIM_H

#include "machine/ops.h"
#include "sim/core.h"
#include "model/cache.h"

struct pmap {                   /* virtual page -> random physical page */
  uint64_t *key, *val;
  size_t cap, n;
};

/* branch.c: the simulated branch unit and compiler of the branch kernels. */
struct xray__sim_branch {
  double penalty; /* cycles per misprediction */
  int hist; /* gshare's global history bits; 0: bimodal */
  double window; /* wrong-path instructions fetched before a misprediction resolves */
  int select; /* the simulated compiler turns ifs into selects */
  int slow_cpu; /* the CPU whose mispredictions cost slow cycles more; -1: none */
  double slow;
};

/* One run of a branch kernel: what happened, in total. */
struct xray__bstats {
  double cond; /* conditional branches retired */
  double exec_cond; /* executed, down wrong paths too */
  double taken; /* conditional branches taken */
  double direct; /* unconditional jumps */
  double miss; /* mispredictions */
  double insns; /* instructions retired */
  double cycles;
  double iters;
};

#define MAX_LEVELS 4

/* One counted stretch of a pointer chase: loads served by each data
 * level (served[nlev]: memory). */
struct xray__cstats {
  double served[MAX_LEVELS + 1];
  double loads, cycles;
  double prefetched; /* lines the page prefetcher brought into the L2 */
  double tlb_misses; /* first-level DTLB misses */
  int nlev;
};

void xray__sim_branch_init(struct xray__sim_branch *b);
/* 1 if key is a branch item (set from val), 0 if not, -1 on a bad value. */
int xray__sim_branch_item(struct xray__sim_branch *b, const char *key, const char *val, char *err,
                          size_t errlen);
/* Kernel k run for size iterations, the first lim drawing the random bit. */
int xray__sim_branch_run(const struct xray__sim_branch *b, const struct xray__sim_core *c, size_t k,
                         long size, long lim, uint64_t *rng, struct xray__bstats *out);
/* The simulated compiler's loop of kernel k, as the static check reads it. */
void xray__sim_branch_count(const struct xray__sim_branch *b, size_t k, struct xray__bcount *out);

/* pmu.c: the simulated PMU (events defined from the branch unit's runs). */
#define XRAY__SIM_EVENTS 32
struct xray__sim_event {
  char name[32];
  int kind, a, b; /* what it counts (pmu.c) */
};
struct xray__sim_pmu {
  int on, n;
  struct xray__sim_event ev[XRAY__SIM_EVENTS];
  uint64_t rng;
};
int xray__sim_pmu_item(struct xray__sim_pmu *p, const char *key, const char *val, char *err,
                       size_t errlen);
const char *xray__sim_pmu_event_at(const struct xray__sim_pmu *p, size_t i);
/* The events, once the machine's data levels are known; 0, or -1 with why. */
int xray__sim_pmu_init(struct xray__sim_pmu *p, int nlev, int pf, char *err, size_t errlen);
/* Event name's count over a branch benchmark's run b or a chase's c (the
 * other NULL); -1 if the PMU has no such event. */
double xray__sim_pmu_count(struct xray__sim_pmu *p, const char *name, const struct xray__bstats *b,
                           const struct xray__cstats *c);

/* stream.c: the streaming kernels' bandwidth, per data level and memory
 * (slot MAX_LEVELS): bytes per cycle of loads and of stores to one core,
 * all cores' together (0: no limit), memory's non-temporal stores (-1: the
 * default, 0: none), and a kernel loop's own limit (0: none). */
struct xray__sim_stream {
  double rd[MAX_LEVELS + 1], wr[MAX_LEVELS + 1], all[MAX_LEVELS + 1], nt, loop;
  int built;
};
void xray__sim_stream_init(struct xray__sim_stream *s);
int xray__sim_stream_item(struct xray__sim_stream *s, const char *key, const char *val, char *err,
                          size_t errlen);

struct sim {
  struct xray_machine base;
  struct xray__cache l1i;
  int have_l1i;
  struct xray__cache lev[MAX_LEVELS]; /* data levels, L1D first */
  int nlev;
  double mem;
  int inclusive;
  struct xray__cache tlb[2];
  int ntlb;
  double tlbpen, walk;
  unsigned long colour;         /* physical page size; 0: identity */
  struct pmap pmap;
  uint64_t prng;                /* physical placement */
  int pf_next, pf_stride;
  /* The L2's page prefetcher: the pages it tracks (up to 256), LRU; the
   * fourth L1D miss to a tracked page brings the rest of the page into
   * the L2 (memory.c). */
  int pf_pages;
  uint64_t pf_page[256];
  unsigned pf_seen[256];
  unsigned long pf_stamp[256], pf_clock;
  double pf_fetched; /* lines it brought, while counting */
  double tlb_missed; /* first-level TLB misses, while counting */
  uint64_t pf_last, pf_delta;
  unsigned long adjline; /* adjacent-line prefetcher's block; 0: none */
  int adjpct; /* the share of misses it serves, percent */
  uint64_t arng; /* which misses those are */
  int share[MAX_LEVELS]; /* CPUs sharing each data level; 0: default */
  double c2c; /* cycles to move a line between cores; 0: default */
  const struct xray__chase *duo_c; /* a partner's chain, while it runs (duo.c) */
  size_t duo_i;
  int duo_level; /* the level it shares with us (index) */
  int tenant;                   /* the level a neighbour shares (index), or 0 */
  double trate, tswing, tnow, tacc;  /* its loads per ours; swing; this measurement's
                                      * rate; loads owed */
  unsigned long tcalls;         /* measurements so far */
  uint64_t trng;
  unsigned long tlines, tbase;  /* the lines of its region, and the first */
  unsigned long uop_ops;        /* 0: no op cache */
  unsigned long uop_entry;      /* ops per entry; 0: only the op count limits */
  int uop_excl;                 /* serves loops the L1I does not hold */
  double fetch[4];              /* op cache, decode, L1I bytes, taken jumps */
  double penalty;               /* cycles per missed line; 0: line / 16 */
  struct xray__cache btb; /* taken jumps of chains, a line a block */
  int have_btb;
  double btbpen; /* cycles a taken jump the btb misses costs */
  double noise, spikes;
  uint64_t rng;
  struct xray__sim_core cpu;
  struct xray__sim_branch br;
  struct xray__sim_pmu pmu;
  struct xray__sim_stream stream;
  struct xray__bcount bcount[XRAY__BK_N]; /* the last bbuild */
  int bbuilt;
  double served[MAX_LEVELS + 1]; /* loads each level served, while counting */
  int counting;
  int cpu_items;                /* the spec describes the core */
};

/* memory.c */
double xray__sim_chase(xray_machine *base, const struct xray__chase *c);
/* Events names[0..n-1] over `loads` loads of chase c, after warming it. */
int xray__sim_cevents(xray_machine *base, const char *const *names, size_t n,
                      const struct xray__chase *c, long loads, double *out);
void xray__sim_free(xray_machine *base);
void xray__sim_reset(xray_machine *base);
/* The simulated machine's true value of a parameter (its OS view). */
int xray__sim_truth(const xray_machine *base, const char *name, double *v);

/* spec.c: read a spec into m (defaults already set); 0, or -1 with why. */
int xray__sim_parse(struct sim *m, const char *spec, char *err, size_t errlen);

/* stream.c */
double xray__sim_stream_rate(const struct sim *m, size_t k, int slot, int threads);
int xray__sim_sbuild(xray_machine *base, int *nt);
double xray__sim_stream(xray_machine *base, size_t k, double bytes, int threads, double *hz);
/* The true values of the rows of params.c that streams (stream.c) and two
 * CPUs at once (duo.c) give, at the name's level; -1 where none. */
int xray__sim_stream_truth(const struct sim *m, const struct xray__param *p, int level, double *v);

/* duo.c: two simulated CPUs at once (machine.h: the duo op), the items
 * that say what they share, and their truths. */
double xray__sim_duo(xray_machine *base, const struct xray__duo *d);
int xray__sim_duo_item(struct sim *m, const char *key, const char *val, char *err, size_t errlen);
int xray__sim_duo_check(const struct sim *m, char *err, size_t errlen);
int xray__sim_duo_truth(const struct sim *m, const struct xray__param *p, int level, double *v);

/* sim.c */
double xray__sim_noise(struct sim *m, double cyc);
double xray__sim_slowdown(struct sim *m);

#endif
