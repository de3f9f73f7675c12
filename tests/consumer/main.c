/* Prints what configure measured, from config.h and from xray_config.h. */
#include "config.h"
#include <stdio.h>

#define from_config_h XRAY_L1I_SIZE
#undef XRAY_L1I_SIZE
#undef XRAY_UOP_CACHE_OPS
#undef XRAY_LAT_DOUBLE_MUL
#undef XRAY_NUM_CPUS
#include "xray_config.h"

/* An unknown value is left undefined: the consumer's own default applies. */
#ifndef XRAY_UOP_CACHE_OPS
#define XRAY_UOP_CACHE_OPS -1
#endif

int
main(void)
{
  printf("config.h %ld xray_config.h %ld uop %ld\n", (long) from_config_h, (long) XRAY_L1I_SIZE,
         (long) XRAY_UOP_CACHE_OPS);
#if defined XRAY_LAT_DOUBLE_MUL && defined XRAY_NUM_CPUS
  printf("double mul %g cycles, %d CPUs\n", (double) XRAY_LAT_DOUBLE_MUL, (int) XRAY_NUM_CPUS);
#endif
  return from_config_h == XRAY_L1I_SIZE ? 0 : 1;
}
