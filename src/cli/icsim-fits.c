/* xray-icsim FILE FUNCTION SIZE WAYS LINE: AX_XRAY_CODE_FITS's helper,
 * built by the macro from the files of src/icsim.list with the project's
 * compiler.  Prints "yes" if every innermost loop of FUNCTION (with what
 * it calls in FILE) fits the cache, "no" if one does not, or "unknown: "
 * and why; exit status 0, or 2 on a usage error. */
#include "xray.h"

#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char **argv)
{
  char err[400] = "", *end;
  unsigned long g[3];
  int i, fits;

  if (argc != 6) {
    fprintf(stderr, "usage: xray-icsim FILE FUNCTION SIZE WAYS LINE\n");
    return 2;
  }
  for (i = 0; i < 3; i++) {
    g[i] = strtoul(argv[3 + i], &end, 10);
    if (*end || !g[i]) {
      fprintf(stderr, "xray-icsim: '%s' is not a positive whole number\n", argv[3 + i]);
      return 2;
    }
  }
  fits = xray_icsim_fits(argv[1], argv[2], g[0], g[1], g[2], err, sizeof err);
  if (fits < 0)
    printf("unknown: %s\n", err);
  else
    printf("%s\n", fits ? "yes" : "no");
  return 0;
}
