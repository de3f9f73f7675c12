/* Prints what configure measured, from config.h and from xray_config.h.
 * A value xray could not establish is left undefined in both: the
 * program's own default applies (-1 here, printed as "unknown"). */
#include "config.h"
#include <stdio.h>

#ifdef XRAY_L1I_SIZE
#define from_config_h XRAY_L1I_SIZE
#else
#define from_config_h -1
#endif
#undef XRAY_L1I_SIZE
#undef XRAY_UOP_CACHE_OPS
#undef XRAY_LAT_DOUBLE_MUL
#undef XRAY_NUM_CPUS
#include "xray_config.h"

#ifndef XRAY_L1I_SIZE
#define XRAY_L1I_SIZE -1
#endif
#ifndef XRAY_UOP_CACHE_OPS
#define XRAY_UOP_CACHE_OPS -1
#endif

static void
show(const char *what, long v)
{
  if (v < 0)
    printf("%s unknown", what);
  else
    printf("%s %ld", what, v);
}

int
main(void)
{
  show("config.h", (long) from_config_h);
  show(" xray_config.h", (long) XRAY_L1I_SIZE);
  show(" uop", (long) XRAY_UOP_CACHE_OPS);
  printf("\n");
#if defined XRAY_LAT_DOUBLE_MUL && defined XRAY_NUM_CPUS
  printf("double mul %g cycles, %d CPUs\n", (double) XRAY_LAT_DOUBLE_MUL, (int) XRAY_NUM_CPUS);
#endif
  return from_config_h == XRAY_L1I_SIZE ? 0 : 1;
}
