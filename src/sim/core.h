/* sim/core.c: the simulated core, part of the simulated machine (sim.h). */
#ifndef XRAY__SIM_CORE_H
#define XRAY__SIM_CORE_H

#include "kernels/kernels.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* sim/core.c: the simulated core (clock, operations, registers, FMA, CPUs),
 * part of the simulated machine. */
struct xray__sim_core {
  double mhz, tsc, drift; /* core and TSC clocks; drift: relative change per probe */
  int hidden; /* clock=none: the probes cannot time the core's clock */
  double swing; /* relative change for part of a probe's run ... */
  double swing_for; /* ... that fraction of it, from 0.4 of the way on */
  double step; /* relative change since the machine was made, held throughout */
  double lat[2][4], thru[2][4]; /* [int, fp][add, mul, div, fma]: cycles, ops per cycle */
  int regs[3]; /* variables that fit in registers: int, fp, vector */
  int vecbits; /* widest vector type the compiler offers */
  int fma_isa, contract; /* the ISA has FMA; the compiler fuses a*b+c */
  int ncpu, smt;
  double spill; /* cycles a spilled variable adds to its chain */
  double loop; /* integer adds of the loop control an iteration */
  double t; /* simulated time, for the drift */
  struct xray_cspec *k; /* the last kernel set */
  char *text;
  size_t nk;
};

void xray__sim_core_init(struct xray__sim_core *c);
void xray__sim_core_free(struct xray__sim_core *c);
/* 1 if key is a core item (set from val), 0 if not, -1 on a bad value. */
int xray__sim_core_item(struct xray__sim_core *c, const char *key, const char *val, char *err,
                        size_t errlen);
struct xray__param;
/* The core's true value of row p (params.c), or -1 where it has none. */
int xray__sim_core_truth(const struct xray__sim_core *c, const struct xray__param *p, double *v);
int xray__sim_core_kbuild(struct xray__sim_core *c, const struct xray_cspec *k, size_t n, char *err,
                          size_t errlen);
/* Noise-free cycles per statement; NAN with *avail 0 if unavailable. */
double xray__sim_core_ktime(struct xray__sim_core *c, size_t i, int *avail, double *stack);

#endif
