/* cli/: the xray command's parts. */
#ifndef XRAY__CLI_H
#define XRAY__CLI_H

/* cli/icsim.c: `xray icsim ...`, argv[0] being "icsim"; the exit status. */
int xray_cli_icsim(int argc, char **argv, const char *prog);

/* cli/counters.c: `xray counters ...`, argv[0] being "counters". */
int xray_cli_counters(int argc, char **argv, const char *prog);

/* cli/plot.c: `xray --plot=DIR`: the curves of the trace (rewound and
 * read) drawn into DIR/<label>.svg and .png, listed in DIR/plots.txt;
 * own[] says which values of rep each probe set.  Files are opened and
 * committed through io (cli/xray.c: replaced atomically).  0, or -1 if a
 * file could not be written (or xray was built without cairo). */
#include <stdio.h>
#include "xray.h"
struct xray_cli_owned {
  const char *probe;
  size_t first, last;
};
struct xray_cli_files { /* which: 0 the index, 1 an image */
  FILE *(*open)(int which, const char *path);
  int (*commit)(int which, const char *path);
};
int xray_cli_plot(const char *dir, FILE *trace, const xray_report *rep,
                  const struct xray_cli_owned *own, size_t nown, const struct xray_cli_files *io);

#endif
