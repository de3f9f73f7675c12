/* sim/kinds.c: the kinds of core of a hybrid machine model, for the run
 * layer's kinds (run/kinds.c).  A hybrid spec is several machines'
 * specs separated by ';', one a kind, each naming itself with kind=NAME;
 * their CPUs are numbered on from kind to kind. */
#ifndef XRAY__SIM_KINDS_H
#define XRAY__SIM_KINDS_H

#include "machine/machine.h"

/* The kinds of spec into k[0..max): each part is checked as a machine of
 * its own, so that a bad one is named; what the kinds' source is into
 * src.  How many, or -1 with why. */
int xray__sim_kinds(const char *spec, struct xray__kind *k, int max, char *src, size_t srclen,
                    char *err, size_t errlen);
/* A machine of kind i (from 0) of spec, or NULL with why. */
xray_machine *xray__sim_kind_machine(const char *spec, int i, char *err, size_t errlen);

#endif
