/* Internal interfaces of libxray (symbols xray__*), one header per layer
 * (see HACKING), gathered here.  Not installed as a header; the engine
 * sources are installed for the AX_XRAY_* macros. */
#ifndef XRAY__INTERNAL_H
#define XRAY__INTERNAL_H

#include "xray.h"
#include "isa/isa.h"
#include "measure/measure.h"
#include "kernels/kernels.h"
#include "machine/machine.h"
#include "real/real.h"
#include "run/run.h"
#include "sim/core.h"
#include "../probes/probes.h"

#endif
