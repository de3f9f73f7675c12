/* probes/: what probes share: the page-colour miss chance, kernel sets
 * timed in interleaved rounds. */
#ifndef XRAY__PROBES_H
#define XRAY__PROBES_H

#include "machine/machine.h"
#include "run/run.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* probes/caches-model.c: the chance that a load misses a level of A ways whose
 * sets span P page colours, with k whole pages of random colour (as a
 * hypervisor hands them out): Pr[X >= A], X ~ Binomial(k - 1, 1/P) the
 * other pages of its colour. */
double xray__colour_miss(double k, double P, int A);

/* probes/ops.c: build kernels and time each in five interleaved rounds;
 * -1 with the machine's error if the set does not compile. */
struct xray__timed {
  double t; /* cycles per statement */
  double stack; /* static check, -1 unknown */
  int avail, agree; /* type offered; rounds within 5 % */
};
int xray__time_set(xray_machine *m, const struct xray_cspec *k, size_t n, struct xray__timed *out);
/* probes/ops.c: cycles per statement of kernel i (k) of the last build,
 * the point at its variables of the probe's kernel named by its type,
 * unroll and statements; its type's availability and spills in *avail
 * and *stack (the machine's ktime). */
double xray__time_kernel(xray_machine *m, const char *probe, const struct xray_cspec *k, size_t i,
                         int *avail, double *stack);
/* probes/ops.c: v's figure in nanoseconds too, where the clock is known. */
void xray__value_ns(xray_machine *m, xray_value *v, double cycles);

/* probes/icache-geometry.c: the L1I's ways and line size by timing chains
 * of code pieces, resting on its measured capacity l1i. */
void xray__icache_geometry(xray_machine *m, const xray_value *l1i, xray_value *assoc,
                           xray_value *line);

/* probes/ops.c: the report holding the values a probe rests on, names
 * (NULL-terminated): rep, where an earlier probe of this run set them all
 * there; else the values given to the machine (xray_machine_give), where
 * they hold them all, as a report of their own (source override); else
 * rep's values with those of the probes of deps (NULL-terminated), each
 * run once for all rep's probes: a probe of deps that set a value in rep,
 * or ran for an earlier probe of rep (into rep->deps), is not run again.
 * *own is that report, for the caller to free, or NULL; NULL without
 * memory. */
const xray_report *xray__resting_on(xray_machine *m, xray_report *rep, const char *const *names,
                                    const char *const *deps, xray_report **own);
/* ... v there is established (measured in this run, or given), and sure
 * (confirmed, or given as confirmed). */
int xray__established(const xray_value *v);
int xray__sure(const xray_value *v);

/* probes/ops.c: the capacities of the data levels xray measured, L1D
 * first, at most max (4 or fewer): from rep where the dcache and caches
 * probes ran into it already, else as given to the machine, else by
 * running them (xray__resting_on).  How many levels in a
 * row are measured; if fewer than max and than the levels there are, why
 * says why the next is not (else it is empty).  *line: the L1D's line (64
 * if it is not measured).  Unless sure is NULL (else it holds max + 1),
 * sure[i] says whether level i's capacity is confirmed, and sure[max]
 * whether the number of levels is; unless lat is NULL (else it holds
 * max), lat[i] is level i's load-to-use latency in cycles where it is
 * established, else NAN. */
int xray__data_levels(xray_machine *m, xray_report *rep, double *level, int *sure, double *lat,
                      int max, double *line, char *why, size_t len);

/* probes/ops.c: the median of three pair tests of CPUs a and b (the
 * machine's pair op), so that one disturbed test does not make two cores
 * look like one: the point at b of the probe's kernel (whose label says
 * which CPU a is); NAN with the machine's error.  Below XRAY__SAME_CORE,
 * a and b are hardware threads of one core. */
double xray__pair_median(xray_machine *m, const char *probe, const char *kernel, int a, int b);
#define XRAY__SAME_CORE 0.75

/* probes/sharing.c: the index in cpu[0..n-1] of the first CPU that is
 * not a hardware thread of cpu[0]'s core (the cores probe's answer in rep
 * if it has one, else the pairwise test); -1 with why. */
int xray__other_core(xray_machine *m, const xray_report *rep, const int *cpu, int n, char *why,
                     size_t len);

#endif
