/* real/: what of the real machine other layers call: arenas and the
 * chase loop, the core clock, the pairwise SMT test. */
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
/* The n arenas a[0..n-1] freed (mapped again on their next reserve). */
void xray__arenas_free(struct xray__arena *a, int n);
/* The chase c laid out in a (reserved for its offsets, linked): its first
 * element, or NULL with why.  c->n must not be 0. */
void *xray__chase_place(struct xray__arena *a, const struct xray__chase *c, char *err,
                        size_t errlen);
void *xray__chase_run(void *p, uint64_t iters);
/* loads loads of a chain with look-ahead pointers, from p, prefetching
 * ahead: where the chase then stands. */
void *xray__chase_warm_ahead(void *p, uint64_t loads);

#ifdef __linux__
#include <pthread.h>
/* real/pairs.c: pthread_create for a timing thread, with a small stack. */
int xray__real_thread(pthread_t *t, void *(*fn)(void *), void *arg);
/* ... the calling thread bound to CPU cpu: 0, or -1. */
int xray__real_pin(int cpu);
#endif

/* real/sigill.c: 1 if fn(ctx) ran to its end, 0 if the processor
 * refused one of its instructions (SIGILL).  Threads take turns. */
int xray__real_executes(void (*fn)(void *ctx), void *ctx);

/* real/events.c: hardware events on the real machine (measure/pmu.c):
 * whether they can be counted, which, and their counts over one run of
 * a branch kernel fn or over loads of a chase in arena a. */
int xray__real_pmu(xray_machine *m);
const char *xray__real_event_at(xray_machine *m, size_t i);
double xray__real_bevent(xray_machine *m, long (*fn)(long size, long lim), const char *name,
                         long size);
int xray__real_cevents(xray_machine *m, struct xray__arena *a, const char *const *names, size_t n,
                       const struct xray__chase *c, long loads, double *out);

/* real/clock.c: ticks per core cycle, as the core runs now.  burst gives
 * ticks per add of a dependent add chain over `windows` windows of ~20 us
 * (the best of them), or NAN where the chain cannot be timed. */
#define XRAY__CLOCK_KEEP 8
struct xray__clock {
  double (*burst)(void *ctx, int windows); /* NULL: no add chain here */
  void *ctx;
  double fallback; /* the clock at creation, or 1 */
  double at[XRAY__CLOCK_KEEP], tpc[XRAY__CLOCK_KEEP], newest;
  int next;
};
/* Sets c up with a clock taken now (after a spin, the fastest of bursts
 * over ~40 ms): ticks per cycle, or 0 where there is no add chain (every
 * later clock is then 1).  busy_since: since when this thread has kept
 * its CPU busy without a pause (xray__now() where it has not): the spin
 * that wakes an idle core, which runs slow for a while, ends 30 ms after
 * it. */
double xray__clock_calibrate(struct xray__clock *c, double (*burst)(void *ctx, int windows),
                             void *ctx, double busy_since);
/* Ticks per cycle now: the fastest recent burst, taking new ones where
 * they are old (about 0.2 ms every 10 ms, under 2 ms after a pause). */
double xray__clock_now(struct xray__clock *c);
/* Ticks per cycle, with a burst taken now whatever the newest's age: the
 * clock right after a measurement that was short. */
double xray__clock_fresh(struct xray__clock *c);

/* real/pairs.c: the pairwise test on the real machine. */
double xray__pair_speed(int a, int b, char *err, size_t errlen);

/* real/duo.c: the duo op (machine.h) with the sides' chains in
 * arena[0..1]; NAN with why. */
double xray__real_duo(const struct xray__duo *d, struct xray__arena *arena, double ticks_per_cycle,
                      char *err, size_t errlen);

/* real/stream.c: bytes per tick of streaming kernel k of set with
 * `threads` threads pinned to cpu[0..threads-1] (of the ncpu usable CPUs
 * cpu[0..ncpu-1]), each over its own arrays of `bytes` bytes in all
 * (machine.h: the stream op): in (*team)[0] for them all where shared
 * (the CPUs share a memory node), else thread i's in (*team)[i]; there
 * are *nteam arenas, grown here and kept by the caller for the next call,
 * on the same CPUs; NAN with why. */
double xray__real_stream(const struct xray__stream_set *set, size_t k, double bytes, int threads,
                         const int *cpu, int ncpu, int shared, struct xray__arena **team,
                         int *nteam, double tick_hz, char *err, size_t errlen);
/* ... whether CPUs cpu[0..n-1] share one memory node (the nodeN in each
 * one's sysfs folder; none named counts as one node). */
int xray__real_one_node(const int *cpu, int n);

#endif
