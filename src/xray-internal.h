/* Internal interfaces of libxray (symbols xray__*).  Not installed as a
 * header; the engine sources are installed for the AX_XRAY_* macros. */
#ifndef XRAY__INTERNAL_H
#define XRAY__INTERNAL_H

#include "xray.h"
#include "isa/isa.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* run/report.c: the results behind xray.h's opaque types.  The fixed
 * arrays are private: a longer field changes no program linked to
 * libxray. */
struct xray_value {
  char name[48]; /* define name, e.g. XRAY_L1I_SIZE */
  char desc[96];
  char unit[16]; /* "bytes", "ops", ... */
  double value;
  xray_source source;
  int have_os; /* the OS view below is set */
  double os_value;
  char os_source[48]; /* "sysfs", "sysconf", "hwloc" */
  int disagree; /* measured and OS differ by > tolerance */
  int unconfirmed; /* repeated determinations did not agree */
  double seconds; /* spent measuring this value's probe */
  char method[640]; /* kernel, layout, backend; why not confirmed */
  char reason[400]; /* why unknown */
  double exact; /* unrounded value, or NAN */
  double ns; /* the value in nanoseconds (latencies), or NAN */
  int effective; /* a shared level: what this process gets */
};

#define XRAY__REPORT_MAX 256

struct xray_report {
  size_t n;
  xray_value v[XRAY__REPORT_MAX];
  char machine[200];
  char tick_source[32];
  char compiler[300]; /* CC and CFLAGS the C kernels were built with */
  double core_mhz;
  double seconds;
};

/* An empty report in place; a value added to it (NULL if it is full). */
void xray__report_init(xray_report *r);
xray_value *xray__report_add(xray_report *r, const char *name, const char *desc, const char *unit);

/* run/params.c: the table of every value xray reports.  A family's name
 * holds <n> (a level) or <TYPE>_<OP>; its desc a %s for each. */
struct xray__param {
  const char *name, *unit, *desc, *probe;
};
const struct xray__param *xray__param_at(size_t i); /* NULL past the last */
const struct xray__param *xray__param_find(const char *name);
/* Value name added to r with the table's unit and description (a and b
 * fill a family's %s); NULL if r is full or name is in no entry. */
xray_value *xray__report_param(xray_report *r, const char *name, const char *a, const char *b);

/* Timed loops run as the hardware runs them: a sanitizer's checks
 * (--enable-sanitizers) load shadow memory, which would share the caches
 * and TLBs the loops measure. */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 8)
#define XRAY__UNINSTRUMENTED __attribute__((no_sanitize("address", "undefined")))
#else
#define XRAY__UNINSTRUMENTED
#endif

/* measure/decimal.c: a decimal number as strtod reads it, and nothing else (no
 * hexadecimal, infinity or NaN); *end == s if there is none. */
double xray__decimal(const char *s, char **end);

/* measure/tick.c: ticks per second (of isa/'s counter); the wall clock. */
double xray__tick_hz(void);
double xray__now(void);

/* kernels/machine-code.c: statements the machine-code backend can emit. */
struct xray_stmt {
  const char *name;
  const char *desc;
  unsigned len;                 /* code bytes */
  unsigned ops;                 /* instructions */
  unsigned jumps;               /* taken jumps (each ends an op-cache entry) */
  unsigned char bytes[32];
  const char *asm_text;         /* the same instruction(s) for GNU as */
};

/* The loop control after the body: dec, jz, jmp (8 bytes, 3 instructions). */
#define XRAY__LOOP_TAIL_BYTES 8
#define XRAY__LOOP_TAIL_OPS 3

struct xray__machine_code {
  void *mem;
  size_t maplen;
  unsigned char *end;           /* address of the loop tail */
  size_t nmax;
  const struct xray_stmt *stmt;
};

const char *xray__machine_code_isa(void);
const struct xray_stmt *xray__stmt_find(const char *name);
const struct xray_stmt *xray__stmt_at(size_t i);
struct xray__machine_code *xray__machine_code_new(const struct xray_stmt *s, size_t nmax,
                                   char *err, size_t errlen);
void xray__machine_code_free(struct xray__machine_code *k);
void xray__machine_code_run(const struct xray__machine_code *k, size_t n, uint64_t iters);
int xray__machine_code_bytes(const struct xray_stmt *s, size_t nmax,
                      unsigned char **out, size_t *outlen);
int xray__machine_code_write_asm(FILE *f, const struct xray_stmt *s, size_t nmax);

/* kernels/generate.c: C nano-benchmarks from a configuration <S1|...|Sn, type, nvars>. */
enum xray_cstyle { XRAY__STYLE_BARRIER, XRAY__STYLE_SWITCH };

struct xray_cspec {
  const char *stmts;            /* "p0 = p0 + p1" or "S1|S2|..." */
  const char *type;             /* C type of p0..p(nvars-1) */
  int nvars;
  int unroll;                   /* statements per iteration, at least */
  enum xray_cstyle style;
};

int xray__gen_c(FILE *f, const struct xray_cspec *c, char *err, size_t errlen);
int xray__gen_c_main(FILE *f, const struct xray_cspec *c);

/* kernels/c-kernel.c: compile and run a C kernel; ns per statement, code bytes. */
int xray__ckernel_run(const struct xray_cspec *c, const char *cc, const char *cflags,
                      double *ns_per_stmt, long *code_bytes, char *err, size_t errlen);

/* kernels/generate.c, kernels/kernel-set.c: kernel sets, many kernels in one compile.  The
 * generated unit defines xray_kernel_K(iters) and xray_avail_K for each
 * kernel K (barrier form); a type the compiler lacks at these flags
 * (__m512d without AVX-512) compiles to an unavailable kernel. */
int xray__gen_kernel_set(FILE *f, const struct xray_cspec *c, size_t n, char *err, size_t errlen);
/* The preprocessor condition for a type: NULL for a plain C type, "0" for
 * a type xray does not know, else e.g. "defined(__AVX__)". */
const char *xray__type_condition(const char *type);
/* Every type kernels can use, comma-separated, cut to len. */
void xray__type_list(char *buf, size_t len);
/* Register class of a known type: 0 integer, 1 floating scalar, 2 vector. */
int xray__type_class(const char *type);

struct xray__kernel_set {
  void *dl;
  size_t n;
  struct xray__kernel_set_k {
    long (*fn)(long);
    int avail;                  /* the compiler offers the type */
    int w;                      /* statements per iteration */
    double stack;               /* spill instructions per statement in the loop; -1 unknown */
  } *k;
};

int xray__kernel_set_compile(struct xray__kernel_set *s, const struct xray_cspec *c, size_t n,
                       const char *cc, const char *cflags, char *err, size_t errlen);
void xray__kernel_set_free(struct xray__kernel_set *s);

/* kernels/c-kernel.c: the private temporary directory (k.c and up to three more
 * files, removed by xray__tmp_close() and by xray_remove_temporaries()). */
int xray__tmp_open(const char **csrc, const char *const names[3], const char **paths, char *err,
                   size_t errlen);
/* Write the file path with gen (a generator of source text); 0, or -1
 * with why, a full disk included. */
int xray__write_source(const char *path,
                       int (*gen)(FILE *f, const void *arg, char *err, size_t errlen),
                       const void *arg, char *err, size_t errlen);
void xray__tmp_close(void);

/* kernels/command.c: commands run through /bin/sh without system(), so that the
 * caller's signal handlers stay live; 0 if cmd exits 0, else -1 with why
 * (exit status, signal).  stdout and stderr go to the file out, or
 * nowhere. */
int xray__run_shell(const char *cmd, const char *out, char *err, size_t errlen);
/* Stop the command in flight, with its whole process group;
 * async-signal-safe. */
void xray__run_stop(void);
/* printf to a new string, and s as one quoted shell word; NULL without
 * memory. */
char *xray__strf(const char *fmt, ...);
char *xray__shell_word(const char *s);

/* measure/sample.c: a timed kernel is a callback that runs `iters` iterations. */
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
/* The fastest of reps runs of iters iterations, in ticks; a run that moved
 * to another CPU does not count (and is run again). */
uint64_t xray__run_min(const struct xray__kernel *k, uint64_t iters, int reps);
void xray__sampler_init(struct xray__sampler *s, double seconds);
double xray__measure(struct xray__sampler *s, const struct xray__kernel *k,
                     struct xray__ref *r);

/* measure/curve.c: control-engine helpers */
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
/* Least-squares fit of a ramp, y = a + b * clamp(x - c, 0, w): flat up to
 * c, rising over w, flat again.  x ascending.  Returns c (NAN if fewer
 * than 5 points); b to *slope, the rise within the points to *rise and
 * the rms residual to *rms (each may be NULL). */
double xray__fit_ramp(const double *x, const double *y, size_t n, double *slope, double *rise,
                      double *rms);
double xray__refine_edge(double a, double b, double lo, double hi, double g,
                         double (*f)(void *ctx, double x), void *ctx, int *gradual);

/* k of the n values agreeing within tol (relative) with one of them: 1,
 * and in *out the most frequent such value (the larger on a tie).  NANs
 * never agree. */
int xray__consensus(const double *v, size_t n, size_t k, double tol, double *out);

/* machine/chase.c: pointer chasing over an arena of memory.  A chase visits the
 * arena offsets off[0], off[1], ..., off[n-1], off[0], ... and each load's
 * address is the value the previous load read (X-Ray's p = *(void **)p). */
enum xray__arena_kind {
  XRAY__ARENA_HUGE, /* large pages where the OS gives them */
  XRAY__ARENA_SMALL /* base pages only (TLB probes) */
};

struct xray__chase {
  const uint64_t *off;          /* byte offsets, multiples of 8 */
  size_t n;
  enum xray__arena_kind arena;
  /* One of many draws that will be averaged: one warm traversal and the
   * fastest of three short timings, not the full sampler. */
  int quick;
};

struct xray__arena {
  char *base;
  size_t len, maplen;
  void *map;
};

/* Loads per call of xray__chase_run per iteration. */
#define XRAY__CHASE_UNROLL 16

/* real/arena.c: the real machine's memory for chases, and the chase. */
int xray__arena_reserve(struct xray__arena *a, size_t len, enum xray__arena_kind kind,
                        char *err, size_t errlen);
void xray__arena_free(struct xray__arena *a);
void xray__chase_link(char *base, const struct xray__chase *c);
void *xray__chase_run(void *p, uint64_t iters);

/* measure/random.c: a random order of v[0..n-1], in place; xorshift64*. */
void xray__shuffle(uint64_t *v, size_t n, uint64_t *rng);
uint64_t xray__rand(uint64_t *rng);
/* machine/chase.c: shuffle off[0..n-1] into a random order and time the chase through it
 * (cycles per load); the point is (n, cycles) of kernel "chase/LAYOUT"
 * ("chase-4k/" on base pages), LAYOUT naming what besides n made off. */
double xray__chase_time(xray_machine *m, uint64_t *off, size_t n,
                        enum xray__arena_kind arena, uint64_t *rng, const char *probe,
                        const char *layout);

/* probes/caches-model.c: the chance that a load misses a level of A ways whose
 * sets span P page colours, with k whole pages of random colour (as a
 * hypervisor hands them out): Pr[X >= A], X ~ Binomial(k - 1, 1/P) the
 * other pages of its colour. */
double xray__colour_miss(double k, double P, int A);

/* The cost per load of translation: n lines, one in each of pages 0,
 * stride, 2 stride, ... and in fill more pages past them, none a multiple
 * of 16 (so in other sets of any level of 16 sets or more than the strided
 * ones), at offsets that spread them over every L1 set, less the same
 * lines packed into the fewest pages.  The packed chain's time goes to
 * *base if not NULL.  off has room for n + fill. */
double xray__tlb_cost(xray_machine *m, uint64_t *off, size_t n, size_t fill, size_t stride,
                      enum xray__arena_kind arena, uint64_t *rng, const char *probe,
                      double *base);

/* run/probe.c: the pieces of a TYPE:OP list; 0, or -1 with a message. */
struct xray__op {
  char type[32];
  char op[4];                   /* + - * / fma */
};
int xray__parse_ops(const char *list, struct xray__op *out, size_t max, size_t *n, char *err,
                    size_t errlen);
/* XRAY_<prefix>_<TYPE>[_<OP>]: "__m256d" -> M256D, "long double" -> LONG_DOUBLE. */
void xray__define_name(char *out, size_t len, const char *prefix, const char *type,
                       const char *op);
/* The value on a grid fit for a define: latencies to half cycles,
 * initiation intervals below one cycle to 1/k. */
double xray__quantize(double x);

/* probes/ops.c: build kernels and time each in five interleaved rounds;
 * -1 with the machine's error if the set does not compile. */
struct xray__timed {
  double t;                     /* cycles per statement */
  double stack;                 /* static check, -1 unknown */
  int avail, agree;             /* type offered; rounds within 5 % */
};
int xray__time_set(xray_machine *m, const struct xray_cspec *k, size_t n,
                   struct xray__timed *out);
/* probes/ops.c: v's figure in nanoseconds too, where the clock is known. */
void xray__value_ns(xray_machine *m, xray_value *v, double cycles);

/* run/probe.c: a value measured by `method`, or unknown because of `why`
 * (either may be given a NULL value, which does nothing). */
void xray__value_measured(xray_value *v, double x, const char *method);
void xray__value_unknown(xray_value *v, const char *why);
/* Not confirmed after all: marks v so and adds to its method why,
 * formatted ("; not confirmed: ..."). */
void xray__value_doubt(xray_value *v, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));

/* machine/machine.c: the interface every probe uses and every backend
 * (real/, sim/, replay/) implements. */
struct xray__machine_ops {
  /* Cycles per statement of a loop of n statements s; NAN if impossible. */
  double (*code)(xray_machine *m, const struct xray_stmt *s, size_t n);
  /* Cycles per statement of the C kernel c unrolled to n statements, and
   * its code bytes; NAN if impossible (see the machine's error). */
  double (*ccode)(xray_machine *m, const struct xray_cspec *c, size_t n, double *bytes);
  /* Cycles per load of a pointer chase; NAN if impossible. */
  double (*chase)(xray_machine *m, const struct xray__chase *c);
  /* Compile the kernels c[0..n-1] together with the machine's compiler
   * and flags; 0, or -1 with the machine's error. */
  int (*kbuild)(xray_machine *m, const struct xray_cspec *c, size_t n);
  /* Cycles per statement of kernel i of the last kbuild; NAN if it cannot
   * be timed, with *avail 0 if the compiler lacks its type.  *stack: spill
   * instructions per statement in its timed loop (static check), -1 unknown. */
  double (*ktime)(xray_machine *m, size_t i, int *avail, double *stack);
  /* Whether kernel i's type is offered, and its static check (as ktime),
   * without timing it. */
  int (*kinfo)(xray_machine *m, size_t i, double *stack);
  /* The core clock over one short burst of dependent adds, in Hz; its
   * time-stamp counter's rate in *tsc_hz (0 if it has none). */
  double (*clock)(xray_machine *m, double *tsc_hz);
  /* Cycles per fused multiply-add instruction with `chains` independent
   * accumulators (1: the latency); NAN if the processor cannot execute one
   * or xray has no such kernel for this ISA (the error says which). */
  double (*fma)(xray_machine *m, int chains);
  /* The CPUs this process may run on: their number, the first max ids. */
  int (*cpus)(xray_machine *m, int *cpu, int max);
  /* The speed of a saturating kernel on CPU a while CPU b runs it too, as
   * a fraction of its speed alone (1: nothing shared); NAN if impossible. */
  double (*pair)(xray_machine *m, int a, int b);
  /* Drop generated code and data, so the next measurement runs in fresh
   * memory (new pages, new physical colours). */
  void (*reset)(xray_machine *m);
  void (*free)(xray_machine *m);
  /* The machine's OS view of a value: the real machine's operating system
   * (sysfs, hwloc, sysconf, CPUID), a simulation's truth, a recording's
   * recorded view; -1 if it has none. */
  int (*os_view)(const xray_machine *m, const char *name, double *v, char *src, size_t srclen);
  /* Optional.  begin: a probe starts (a new time budget).  unsure: points
   * measured without two samples at full speed, and all points measured,
   * in *measured.  recall: a recording's answer for a point (1, with *y
   * NAN and the reason if it has none), 0 where the machine times it. */
  void (*begin)(xray_machine *m);
  int (*unsure)(const xray_machine *m, int *measured);
  int (*recall)(xray_machine *m, const char *probe, const char *kernel, double x, double *y);
};

struct xray_machine {
  const struct xray__machine_ops *ops;
  int simulated;                /* kernels are modelled, not run: any ISA's will do */
  /* What a probe may ask of a machine (it never asks which backend it
   * is).  timed: its measurements take real time on this host, so
   * deadlines, pauses and this host's limits (CFS quota) apply.
   * hardware: it is real hardware or a recording of it: other tenants may
   * share its last level, memory answers in no less than 50 ns, and its
   * OS view is a second view rather than the truth. */
  int timed, hardware;
  /* Runs so far of each probe on this machine (a recording holds several),
   * and run, the current probe's: 1 for its first. */
  const void *probe_seen[16];
  unsigned probe_runs[16];
  unsigned run;
  char desc[200];
  double budget;                /* seconds one probe may spend */
  FILE *trace;                  /* CSV of every measured point, or NULL */
  double tick_hz, core_hz;      /* real machine only */
  size_t page;                  /* base page size: the unit of physical placement */
  xray_kernel kernel;           /* which kernels time code */
  char *cc, *cflags;            /* for C kernels: never NULL once the machine exists */
  char oplist[512];             /* TYPE:OP,... for the latency and throughput probes */
  char types[256];              /* TYPE,... for the registers probe */
  char error[200];              /* why a measurement was impossible */
};

/* sim/core.c: the simulated core (clock, operations, registers, FMA, CPUs),
 * part of the simulated machine. */
struct xray__sim_core {
  double mhz, tsc, drift;       /* core and TSC clocks; drift: relative change per probe */
  double lat[2][4], thru[2][4]; /* [int, fp][add, mul, div, fma]: cycles, ops per cycle */
  int regs[3];                  /* variables that fit in registers: int, fp, vector */
  int vecbits;                  /* widest vector type the compiler offers */
  int fma_isa, contract;        /* the ISA has FMA; the compiler fuses a*b+c */
  int ncpu, smt;
  double spill;                 /* cycles a spilled variable adds to its chain */
  double loop;                  /* integer adds of the loop control an iteration */
  double t;                     /* simulated time, for the drift */
  struct xray_cspec *k;         /* the last kernel set */
  char *text;
  size_t nk;
};

void xray__sim_core_init(struct xray__sim_core *c);
void xray__sim_core_free(struct xray__sim_core *c);
/* 1 if key is a core item (set from val), 0 if not, -1 on a bad value. */
int xray__sim_core_item(struct xray__sim_core *c, const char *key, const char *val, char *err,
                      size_t errlen);
int xray__sim_core_truth(const struct xray__sim_core *c, const char *name, double *v);
int xray__sim_core_kbuild(struct xray__sim_core *c, const struct xray_cspec *k, size_t n,
                        char *err, size_t errlen);
/* Noise-free cycles per statement; NAN with *avail 0 if unavailable. */
double xray__sim_core_ktime(struct xray__sim_core *c, size_t i, int *avail, double *stack);

/* real/pairs.c: the pairwise test on the real machine. */
double xray__pair_speed(int a, int b, char *err, size_t errlen);
int xray__affinity(int *cpu, int max);

/* The machine's OS view of a value (its backend's os_view). */
int xray__os_view(const xray_machine *m, const char *name, double *v, char *src, size_t srclen);
/* run/os.c: this operating system's view of a value (sysfs, hwloc, sysconf,
 * CPUID), by name; -1 if it gives none. */
int xray__os_read(const char *name, double *v, char *src, size_t srclen);

/* A measured point, y cycles at x (code bytes, pages, loads, ...) of a
 * probe's kernel: written to the trace and returned.  On a replaying
 * machine the recording's answer replaces y (NAN, with the machine's
 * error, where it has none).  The kernel label names everything besides x
 * that decides the time, so that a recording answers only like with like. */
double xray__point(xray_machine *m, const char *probe, const char *kernel, double x, double y);
/* A probe starts: the backend's begin. */
void xray__machine_begin(xray_machine *m);
/* Whether probes must use the C path (xray_kernel, and the ISA). */
int xray__machine_uses_c(const xray_machine *m);
/* Points so far measured without two samples at full speed; and in
 * *measured, all points measured so far. */
int xray__machine_unsure(const xray_machine *m, int *measured);

#endif
