/* measure/: leaves for timing and reading curves: decimal numbers, the
 * tick rate and wall clock, gated sampling, curve analysis, the PRNG. */
#ifndef XRAY__MEASURE_H
#define XRAY__MEASURE_H

#include "xray.h"
#include "isa/isa.h"
#include "isa/compiler.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* measure/decimal.c: a decimal number as strtod reads it, and nothing else (no
 * hexadecimal, infinity or NaN); *end == s if there is none. */
double xray__decimal(const char *s, char **end);

/* measure/tick.c: ticks per second (of isa/'s counter); the wall clock. */
double xray__tick_hz(void);
double xray__now(void);

/* measure/sample.c: a timed kernel is a callback that runs `iters` iterations. */
struct xray__kernel {
  void (*run)(void *ctx, uint64_t iters);
  void *ctx;
};

struct xray__low2 { /* the two smallest values seen, a <= b */
  double a, b;
};

struct xray__ref { /* reference kernel for gated sampling */
  struct xray__kernel k;
  uint64_t iters; /* 0 until first used */
  struct xray__low2 t; /* its times; t.b is the best one trusted */
};

struct xray__sampler {
  uint64_t target; /* ticks per sample */
  int want; /* accepted samples wanted */
  int min_attempts, max_attempts;
  int hopeless; /* attempts after which a point with none accepted stops */
  double tolerance; /* reference gate */
  double deadline; /* xray__now() after which we hurry */
  int unsure; /* points with fewer than 2 accepted samples */
  int measured; /* points measured */
};

uint64_t xray__iters_for(const struct xray__kernel *k, uint64_t target_ticks);
/* The fastest of reps runs of iters iterations, in ticks; a run that moved
 * to another CPU does not count (and is run again). */
uint64_t xray__run_min(const struct xray__kernel *k, uint64_t iters, int reps);
void xray__sampler_init(struct xray__sampler *s, double seconds);
double xray__measure(struct xray__sampler *s, const struct xray__kernel *k, struct xray__ref *r);

/* measure/curve.c: control-engine helpers */
struct xray__curve {
  size_t n, cap;
  double *x, *y;
};

struct xray__step {
  size_t last_low; /* last point on the low plateau */
  size_t first_high; /* first point on the high plateau */
  double lo, hi; /* plateau levels */
};

int xray__curve_add(struct xray__curve *c, double x, double y);
void xray__curve_free(struct xray__curve *c);
void xray__smooth(const double *y, double *out, size_t n);
void xray__smooth_min(const double *y, double *out, size_t n, size_t w);
/* v[0..n-1] in ascending order (insertion sort: the few rounds or runs
 * of a probe). */
void xray__sort(double *v, size_t n);
/* Median of the values that are not NAN; NAN if none. */
double xray__median(const double *v, size_t n);
/* best[0] <= best[1], the two smallest values so far (HUGE_VAL at first),
 * with t among them where it belongs. */
void xray__keep_fastest(double best[2], double t);
int xray__scan(struct xray__curve *c, double lo, double hi, int per_octave,
               double (*f)(void *ctx, double x), void *ctx);
size_t xray__find_steps(const struct xray__curve *c, double min_jump, struct xray__step *out,
                        size_t max);
/* Least-squares fit of a ramp, y = a + b * clamp(x - c, 0, w): flat up to
 * c, rising over w, flat again.  x ascending.  Returns c (NAN if fewer
 * than 5 points); b to *slope, the rise within the points to *rise and
 * the rms residual to *rms (each may be NULL). */
double xray__fit_ramp(const double *x, const double *y, size_t n, double *slope, double *rise,
                      double *rms);
double xray__refine_edge(double a, double b, double lo, double hi, double g,
                         double (*f)(void *ctx, double x), void *ctx, int *gradual);

/* measure/curve.c: the least-squares line y = a + b x over n points (x
 * not all equal): b, and its r^2 (0 where y is constant) and rms
 * residual; each output may be NULL.  Returns b. */
double xray__fit_line(const double *x, const double *y, size_t n, double *a, double *r2,
                      double *rms);

/* k of the n values agreeing within tol (relative) with one of them: 1,
 * and in *out the most frequent such value (the larger on a tie).  NANs
 * never agree. */
int xray__consensus(const double *v, size_t n, size_t k, double tol, double *out);

/* FNV-1a, a byte at a time from XRAY__FNV_BASIS: the hash of keys that
 * recordings carry (the same on every host). */
#define XRAY__FNV_BASIS UINT64_C(14695981039346656037)
static inline uint64_t
xray__fnv1a(uint64_t h, unsigned char byte)
{
  return (h ^ byte) * UINT64_C(1099511628211);
}

/* measure/random.c: a random order of v[0..n-1], in place; xorshift64*. */
void xray__shuffle(uint64_t *v, size_t n, uint64_t *rng);
uint64_t xray__rand(uint64_t *rng);
/* The state n calls of xray__rand leave, in one product of a 64-bit
 * matrix and vector per set bit of n: the generator's state moves by a
 * linear map of 64 bits, whose powers 2^k (k < 64) the table holds
 * (xray__rand_jumps fills it), as the images of every value of each
 * 4-bit digit of the state (a product is 16 looks-up). */
struct xray__rand_jumps {
  uint64_t nib[64][16][16];
};
void xray__rand_jumps(struct xray__rand_jumps *j);
void xray__rand_skip(const struct xray__rand_jumps *j, uint64_t *rng, uint64_t n);

/* measure/pmu.c: hardware event counters (perf_event_open; PAPI native
 * names where built with it).  access: 0 if this process can count
 * hardware events, else -1 with one line saying why and how to fix it.
 * event_at: the events by name, perf's generic ones, then PAPI's native
 * ones with each flag where built with PAPI; NULL past the last.
 * count: the count of event name over one call of run(ctx), scaled where
 * the counter was multiplexed; -1 with why. */
int xray__pmu_access(char *why, size_t len);
const char *xray__pmu_event_at(size_t i);
double xray__pmu_count(const char *name, void (*run)(void *ctx), void *ctx, char *err,
                       size_t errlen);

/* measure/json.c: s as a JSON string, valid whatever bytes s holds. */
void xray__json_string(FILE *f, const char *s);

#endif
