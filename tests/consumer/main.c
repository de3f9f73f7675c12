/* Prints what configure measured, from config.h and from xray_config.h. */
#include "config.h"
#include <stdio.h>

#define from_config_h XRAY_L1I_SIZE
#undef XRAY_L1I_SIZE
#undef XRAY_UOP_CACHE_OPS
#include "xray_config.h"

int
main(void)
{
  printf("config.h %ld xray_config.h %ld uop %ld\n", (long) from_config_h, (long) XRAY_L1I_SIZE,
         (long) XRAY_UOP_CACHE_OPS);
  return from_config_h == XRAY_L1I_SIZE ? 0 : 1;
}
