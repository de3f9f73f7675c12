/* Internal interfaces of libxray (symbols xray__*).  Not installed as a
 * header; the engine sources are installed for the AX_XRAY_* macros. */
#ifndef XRAY_INTERNAL_H
#define XRAY_INTERNAL_H

#include "xray.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* tick.c */
uint64_t xray__ticks(void);
double xray__tick_hz(void);
double xray__now(void);
const char *xray__tick_source(void);

/* mcode.c: statements the machine-code backend can emit. */
struct xray_stmt {
  const char *name;
  const char *desc;
  unsigned len;                 /* code bytes */
  unsigned ops;                 /* instructions */
  unsigned char bytes[16];
  const char *asm_text;         /* the same instruction(s) for GNU as */
};

/* The loop control after the body: dec, jz, jmp (8 bytes, 3 instructions). */
#define XRAY_LOOP_TAIL_BYTES 8
#define XRAY_LOOP_TAIL_OPS 3

struct xray_mcode {
  void *mem;
  size_t maplen;
  unsigned char *end;           /* address of the loop tail */
  size_t nmax;
  const struct xray_stmt *stmt;
};

const char *xray__mcode_isa(void);
const struct xray_stmt *xray__stmt_find(const char *name);
const struct xray_stmt *xray__stmt_at(size_t i);
struct xray_mcode *xray__mcode_new(const struct xray_stmt *s, size_t nmax,
                                   char *err, size_t errlen);
void xray__mcode_free(struct xray_mcode *k);
void xray__mcode_run(const struct xray_mcode *k, size_t n, uint64_t iters);
int xray__mcode_bytes(const struct xray_stmt *s, size_t nmax,
                      unsigned char **out, size_t *outlen);
int xray__mcode_write_asm(FILE *f, const struct xray_stmt *s, size_t nmax);

/* gen.c: C nano-benchmarks from a configuration <S1|...|Sn, type, nvars>. */
enum xray_cstyle { XRAY_STYLE_BARRIER, XRAY_STYLE_SWITCH };

struct xray_cspec {
  const char *stmts;            /* "p0 = p0 + p1" or "S1|S2|..." */
  const char *type;             /* C type of p0..p(nvars-1) */
  int nvars;
  int unroll;                   /* statements per iteration, at least */
  enum xray_cstyle style;
};

int xray__gen_c(FILE *f, const struct xray_cspec *c, char *err, size_t errlen);
int xray__gen_c_main(FILE *f, const struct xray_cspec *c);

/* ckernel.c: compile and run a C kernel; ns per statement, code bytes. */
int xray__ckernel_run(const struct xray_cspec *c, const char *cc, const char *cflags,
                      double *ns_per_stmt, long *code_bytes, char *err, size_t errlen);

/* sample.c: a timed kernel is a callback that runs `iters` iterations. */
struct xray__kernel {
  void (*run)(void *ctx, uint64_t iters);
  void *ctx;
};

struct xray__low2 {             /* the two smallest values seen, a <= b */
  double a, b;
};

struct xray__ref {              /* reference kernel for gated sampling */
  struct xray__kernel k;
  uint64_t iters;               /* 0 until first used */
  struct xray__low2 t;          /* its times; t.b is the best one trusted */
};

struct xray__sampler {
  uint64_t target;              /* ticks per sample */
  int want;                     /* accepted samples wanted */
  int min_attempts, max_attempts;
  double tolerance;             /* reference gate */
  double deadline;              /* xray__now() after which we hurry */
  int unsure;                   /* points with fewer than 2 accepted samples */
  int measured;                 /* points measured */
};

uint64_t xray__iters_for(const struct xray__kernel *k, uint64_t target_ticks);
void xray__sampler_init(struct xray__sampler *s, double seconds);
double xray__measure(struct xray__sampler *s, const struct xray__kernel *k,
                     struct xray__ref *r);

/* engine.c: control-engine helpers */
struct xray__curve {
  size_t n, cap;
  double *x, *y;
};

struct xray__step {
  size_t last_low;              /* last point on the low plateau */
  size_t first_high;            /* first point on the high plateau */
  double lo, hi;                /* plateau levels */
};

int xray__curve_add(struct xray__curve *c, double x, double y);
void xray__curve_free(struct xray__curve *c);
void xray__smooth(const double *y, double *out, size_t n);
void xray__smooth_min(const double *y, double *out, size_t n, size_t w);
/* Median of the values that are not NAN; NAN if none. */
double xray__median(const double *v, size_t n);
int xray__scan(struct xray__curve *c, double lo, double hi, int per_octave,
               double (*f)(void *ctx, double x), void *ctx);
size_t xray__find_steps(const struct xray__curve *c, double min_jump,
                        struct xray__step *out, size_t max);
double xray__refine_edge(double a, double b, double lo, double hi, double g,
                         double (*f)(void *ctx, double x), void *ctx, int *gradual);

/* k of the n values agreeing within tol (relative) with one of them: 1,
 * and in *out the most frequent such value (the larger on a tie).  NANs
 * never agree. */
int xray__consensus(const double *v, size_t n, size_t k, double tol, double *out);

/* chase.c: pointer chasing over an arena of memory.  A chase visits the
 * arena offsets off[0], off[1], ..., off[n-1], off[0], ... and each load's
 * address is the value the previous load read (X-Ray's p = *(void **)p). */
enum xray__arena_kind {
  XRAY_ARENA_HUGE,              /* large pages where the OS gives them */
  XRAY_ARENA_SMALL              /* base pages only (TLB probes) */
};

struct xray__chase {
  const uint64_t *off;          /* byte offsets, multiples of 8 */
  size_t n;
  enum xray__arena_kind arena;
};

struct xray__arena {
  char *base;
  size_t len, maplen;
  void *map;
};

/* Loads per call of xray__chase_run per iteration. */
#define XRAY_CHASE_UNROLL 16

int xray__arena_reserve(struct xray__arena *a, size_t len, enum xray__arena_kind kind,
                        char *err, size_t errlen);
void xray__arena_free(struct xray__arena *a);
/* Whether large pages back a XRAY_ARENA_HUGE arena here; -1 if unknown. */
int xray__arena_huge_pages(void);
void xray__chase_link(char *base, const struct xray__chase *c);
void *xray__chase_run(void *p, uint64_t iters);

/* A random order of v[0..n-1], in place. */
void xray__shuffle(uint64_t *v, size_t n, uint64_t *rng);
uint64_t xray__rand(uint64_t *rng);
/* Shuffle off[0..n-1] into a random order and time the chase through it
 * (cycles per load); the point goes to the trace as (n, cycles). */
double xray__chase_time(xray_machine *m, uint64_t *off, size_t n,
                        enum xray__arena_kind arena, uint64_t *rng, const char *probe);

/* probes/caches.c: the chance that a load misses a level of A ways whose
 * sets span P page colours, with one line in each of k pages drawn from a
 * pool of N: Pr[X >= A], X ~ Hypergeometric(N - 1, N/P - 1, k - 1). */
double xray__colour_miss(double k, double P, int A, double N);

/* The cost per load of translation: n lines, one in each of n pages
 * (pages[i], or page i if pages is NULL) at offsets that spread them over
 * every L1 set, less the same lines packed into the fewest pages.  The
 * packed chain's time goes to *base if not NULL.  off has room for n. */
double xray__tlb_cost(xray_machine *m, uint64_t *off, size_t n, const uint64_t *pages,
                      enum xray__arena_kind arena, uint64_t *rng, const char *probe,
                      double *base);

/* probe.c: a value measured by `method`, or unknown because of `why`
 * (either may be given a NULL value, which does nothing). */
void xray__value_measured(xray_value *v, double x, const char *method);
void xray__value_unknown(xray_value *v, const char *why);

/* machine.c: the two measurement backends behind one interface. */
struct xray__machine_ops {
  /* Cycles per statement of a loop of n statements s; NAN if impossible. */
  double (*code)(xray_machine *m, const struct xray_stmt *s, size_t n);
  /* Cycles per statement of the C kernel c unrolled to n statements, and
   * its code bytes; NAN if impossible (see the machine's error). */
  double (*ccode)(xray_machine *m, const struct xray_cspec *c, size_t n, double *bytes);
  /* Cycles per load of a pointer chase; NAN if impossible. */
  double (*chase)(xray_machine *m, const struct xray__chase *c);
  /* Drop generated code and data, so the next measurement runs in fresh
   * memory (new pages, new physical colours). */
  void (*reset)(xray_machine *m);
  void (*free)(xray_machine *m);
};

struct xray_machine {
  const struct xray__machine_ops *ops;
  int simulated;
  char desc[200];
  double budget;                /* seconds one probe may spend */
  FILE *trace;                  /* CSV of every measured point, or NULL */
  double tick_hz, core_hz;      /* real machine only */
  size_t page;                  /* base page size: the unit of physical placement */
  xray_kernel kernel;           /* which kernels time code */
  char cc[256], cflags[512];    /* for C kernels */
  char error[200];              /* why a measurement was impossible */
};

/* The OS view of a value (sysfs, sysconf, hwloc), or the simulated truth. */
int xray__os_view(const xray_machine *m, const char *name, double *v, char *src, size_t srclen);
int xray__sim_truth(const xray_machine *m, const char *name, double *v);

void xray__trace(xray_machine *m, const char *probe, const char *kernel,
                 double bytes, double cycles);
void xray__machine_begin(xray_machine *m);
/* Whether probes must use the C path (xray_kernel, and the ISA). */
int xray__machine_uses_c(const xray_machine *m);
/* Points so far measured without two samples at full speed; and in
 * *measured, all points measured so far. */
int xray__machine_unsure(const xray_machine *m, int *measured);

#endif
