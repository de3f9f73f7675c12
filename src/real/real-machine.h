/* The real machine's state, shared by the files of its backend (real.c,
 * kernels.c) and by no other layer. */
#ifndef XRAY__REAL_MACHINE_H
#define XRAY__REAL_MACHINE_H

#include "real/real.h"
#include "machine/ops.h"

#define MAX_KINDS 8

struct run_ctx {
  const struct xray__machine_code *code;
  size_t n;
};

/* One per statement kind.  The code is dropped by reset(); the reference's
 * iteration count and best time are not: they describe the machine, and a
 * run that starts while the host is busy must still be judged against a
 * time taken when it was not. */
struct kind {
  const struct xray_stmt *stmt;
  struct xray__machine_code *code;
  struct run_ctx refctx;
  struct xray__ref ref;
};

struct real {
  struct xray_machine base;
  struct xray__sampler sampler;
  struct kind kind[MAX_KINDS];
  struct xray__clock clock; /* ticks per cycle, as the core runs now */
  /* The chases' arenas, the duo's and the streams' (team) are never
   * resident at once: each can be a hundred MB or more (a chain past the
   * last level, memory's footprints), and a run's peak would be their
   * sum.  A chase releases the streams', the duo's and the other kind of
   * chase's; a duo the chases'; a stream the chases' and the duo's; they
   * are laid out again on demand. */
  struct xray__arena arena[2]; /* by enum xray__arena_kind */
  struct xray__kernel_set kernels; /* the last kernel set built */
  struct xray__kernel_set chain; /* the C add chain, where there is no machine code */
  struct xray__branch_set branch; /* the last branch kernels built */
  struct xray__stream_set stream; /* the last streaming kernels built */
  struct xray__arena duo[2]; /* the two sides' chains of a duo */
  struct xray__arena *team; /* the streaming threads' arenas, by thread */
  int nteam;
  /* 1 where the usable CPUs share one memory node, 2 where they span
   * more (the streams' arenas then one a thread); 0: not read yet. */
  int nodes;
  struct xray__pin pin; /* the CPU this machine measures on */
  int pinned;
  /* The last CPU besides home that a kernel was timed on (-1: none), with
   * its own clock and reference loop's times: a clock taken on one CPU
   * converts only that CPU's times (xray__pin). */
  struct {
    int cpu;
    struct xray__clock clock;
    struct xray__ref ref;
  } away;
};

/* Ticks as cycles of the clock the core runs at now. */
double xray__real_cycles(struct real *m, double ticks);
/* The reference loop that gates throughput-bound samples, or NULL. */
struct xray__ref *xray__real_alu_ref(struct real *m);
/* Binds this thread to CPU cpu (not home) to time a kernel there: that
 * CPU's clock in *clock and its reference loop (or NULL) in *ref; 0, or
 * -1 with the error (and the thread still home).  xray__real_home binds
 * it back. */
int xray__real_away(struct real *m, int cpu, struct xray__clock **clock, struct xray__ref **ref);
void xray__real_home(struct real *m);

/* kernels.c: one kernel of a set (struct xray__kernel_set_k) run iters
 * times, and the kernel-set and branch-kernel slots of the ops table. */
void xray__real_run_kset(void *ctx, uint64_t iters);
int xray__real_kset_build(xray_machine *base, const struct xray_cspec *c, size_t n);
double xray__real_kset_time(xray_machine *base, size_t i, int *avail, double *stack);
int xray__real_kset_info(xray_machine *base, size_t i, double *stack);
int xray__real_branch_build(xray_machine *base);
const struct xray__bcount *xray__real_branch_count(xray_machine *base, size_t k);
double xray__real_branch_time(xray_machine *base, size_t k, double frac, int cpu);
double xray__real_branch_event(xray_machine *base, const char *name, size_t k, long size);

#endif
