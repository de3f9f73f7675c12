/* machine/ops.h: the ops table, private to machine/ and the backends
 * that fill it. */
#ifndef XRAY__MACHINE_OPS_H
#define XRAY__MACHINE_OPS_H

#include "machine/machine.h"

/* The interface every backend (real/, sim/, replay/) implements; machine.c
 * calls it for the probes (xray__machine_measure and the calls beside it in
 * machine.h), which never see it. */
struct xray__machine_ops {
  /* Cycles per statement of a loop of n statements s; NAN if impossible. */
  double (*code)(xray_machine *m, const struct xray_stmt *s, size_t n);
  /* Cycles per statement of the C kernel c unrolled to n statements, and
   * its code bytes; NAN if impossible (see the machine's error). */
  double (*ccode)(xray_machine *m, const struct xray_cspec *c, size_t n, double *bytes);
  /* Cycles per piece of a chain of code pieces; NAN if impossible. */
  double (*jchain)(xray_machine *m, const struct xray__jchain *c);
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
  /* The branch kernels (kernels.h: XRAY__BK_*).  bbuild compiles them
   * with the machine's compiler and flags: 0, or -1 with the error.  Of
   * the last build, bcount gives kernel k's compiled loop per iteration
   * (the static check) and btime its cycles per iteration when the first
   * frac of its iterations draw a random bit, run on CPU cpu (-1: the
   * home CPU) and in that CPU's cycles; NAN if impossible. */
  int (*bbuild)(xray_machine *m);
  const struct xray__bcount *(*bcount)(xray_machine *m, size_t k);
  double (*btime)(xray_machine *m, size_t k, double frac, int cpu);
  /* The streaming kernels (kernels.h: XRAY__SK_*).  sbuild compiles them
   * with the machine's compiler and flags: the width of their vectors in
   * bytes, and in *nt whether write-nt stores non-temporally; 0 with the
   * error if they do not build.  stream: bytes per cycle kernel k moves
   * with `threads` threads at once, each pinned to a usable CPU of its own
   * and streaming its own arrays of `bytes` bytes in all: every thread's
   * bytes over the time from the first one's start to the last one's end;
   * NAN with the error if impossible.  Where the backend counted those
   * cycles in a clock of its own for this stream, it sets *hz (if hz is
   * not NULL) to that clock; else it leaves *hz as it is. */
  int (*sbuild)(xray_machine *m, int *nt);
  double (*stream)(xray_machine *m, size_t k, double bytes, int threads, double *hz);
  /* Hardware events.  pmu: 0 if the machine's counters can be read, else
   * -1 with the reason in the error.  event_at: the i-th event it offers
   * (NULL past the last).  bevent: the count of event name over one run
   * of size iterations of branch kernel k of the last bbuild; NAN with
   * the error if it cannot be counted. */
  int (*pmu)(xray_machine *m);
  const char *(*event_at)(xray_machine *m, size_t i);
  double (*bevent)(xray_machine *m, const char *name, size_t k, long size);
  /* The counts of events names[0..n-1] over `loads` loads of the pointer
   * chase c, after warming it, into out (NAN where one cannot be
   * counted); -1 with the error if the chase cannot run. */
  int (*cevents)(xray_machine *m, const char *const *names, size_t n, const struct xray__chase *c,
                 long loads, double *out);
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
  /* Cycles per step of what CPU a does while CPU b does its part (see
   * struct xray__duo); NAN with the error if impossible. */
  double (*duo)(xray_machine *m, const struct xray__duo *d);
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
   * in *measured.  lookup: a recording's answer for the point at x of a
   * probe's kernel, whatever the ask's kind, with the ask's outputs
   * filled as the timing slot would; NAN, with XRAY__FAIL_UNRECORDED and
   * the reason, where it holds none.  A backend with lookup times
   * nothing: its timing slots (code to duo above) stay NULL. */
  void (*begin)(xray_machine *m);
  int (*unsure)(const xray_machine *m, int *measured);
  double (*lookup)(xray_machine *m, const char *probe, const char *kernel, double x,
                   const struct xray__ask *ask);
};

#endif
